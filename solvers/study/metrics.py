"""The strategy study in the field's terms: per-instance CSV, PAR-2, shifted geometric means, the
virtual best solver, cactus plots.

Every run of :func:`flipgame.study.compare.compare_strategies` is one (instance, strategy) pair.  An
instance is solved by a strategy when it answered (a proven minimum or Impossible) and the answer
was not flagged; every other outcome (time-out, refusal, skip, error, flagged answer) counts as
unsolved and is charged as the metric says:

PAR-2 (SAT competitions)
    Mean over the family's instances of the seconds, an unsolved instance counted as twice the
    time limit.
Shifted geometric mean (Mittelmann's MIP benchmarks, MIPLIB)
    ``exp(mean(log(t + s))) - s`` with the shift :data:`SGM_SHIFT` = 10 s, an unsolved instance
    counted as the time limit.
Virtual best solver (VBS)
    Per instance the fastest strategy that solved it; reported as a row ``VBS`` with the same metrics.

Source: SAT Competition rules (PAR-2); H. Mittelmann, "Benchmarks for Optimization Software"
(shifted geometric mean, shift 10 s); Achterberg, "Constraint Integer Programming" (2007), ch. 10.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SGM_SHIFT = 10.0
"""Shift of the shifted geometric mean, in seconds (Mittelmann's benchmarks)."""
PAR_FACTOR = 2
"""PAR-k penalty factor: an unsolved instance counts as ``PAR_FACTOR * time limit`` (PAR-2)."""
VBS = "VBS"
"""Name of the virtual best solver's row."""
CSV_FIELDS = ("instance", "family", "n", "nullity", "strategy", "status", "seconds", "answer", "flag")
"""Columns of the per-instance CSV."""


def instance_name(run) -> str:
    """``family/nxn/board`` of a run, e.g. ``random/14x14/1``."""
    return f"{run.family}/{run.n}x{run.n}/{run.board}"


def solved(run, time_limit: float) -> bool:
    """True if the run answered within ``time_limit`` seconds and its answer was not flagged (a strategy
    without a time limit of its own, e.g. rc2, may answer later: that counts as unsolved, as in the
    competitions)."""
    return run.answered and not run.flag and run.seconds is not None and run.seconds <= time_limit


def write_csv(runs: Iterable, path: str) -> int:
    """One row per (instance, strategy): :data:`CSV_FIELDS`.  Returns the rows written.  Raises OSError."""
    count = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for r in runs:
            w.writerow([instance_name(r), r.family, r.n, "" if r.nullity is None else r.nullity, r.strategy,
                        r.status, "" if r.seconds is None else f"{r.seconds:.6f}",
                        r.answer() if r.answered else "", r.flag])
            count += 1
    return count


@dataclass
class CsvRun:
    """A run read back from the per-instance CSV (enough for the metrics and the cactus plot)."""

    family: str
    n: int
    board: int
    strategy: str
    status: str
    seconds: float | None
    moves: str
    flag: str

    @property
    def answered(self) -> bool:
        return self.status in ("OPTIMAL", "INFEASIBLE")


def read_csv(path: str) -> list[CsvRun]:
    """The runs of a CSV written by :func:`write_csv` (to redraw or re-rate a study without rerunning it)."""
    with open(path, newline="") as f:
        return [CsvRun(r["family"], int(r["n"]), int(r["instance"].rsplit("/", 1)[1]), r["strategy"], r["status"],
                       float(r["seconds"]) if r["seconds"] else None, r["answer"], r["flag"])
                for r in csv.DictReader(f)]


def par(seconds: Sequence[float | None], time_limit: float, factor: int = PAR_FACTOR) -> float:
    """PAR-``factor`` of per-instance seconds (None = unsolved).

    >>> par([1.0, None], 5.0)
    5.5
    """
    return sum(factor * time_limit if s is None else s for s in seconds) / len(seconds)


def shifted_geometric_mean(seconds: Sequence[float | None], time_limit: float, shift: float = SGM_SHIFT) -> float:
    """``exp(mean(log(t + shift))) - shift``, an unsolved instance (None) counted as ``time_limit``.

    >>> round(shifted_geometric_mean([0.0, 0.0], 5.0), 9)
    0.0
    >>> round(shifted_geometric_mean([10.0, None], 30.0), 3)
    18.284
    """
    logs = [math.log((time_limit if s is None else min(s, time_limit)) + shift) for s in seconds]
    return math.exp(sum(logs) / len(logs)) - shift


def times(runs: Iterable, time_limit: float) -> dict[tuple[str, str], dict[str, float | None]]:
    """``(family, strategy) -> {instance: seconds or None (unsolved)}``, plus the VBS per family."""
    out: dict[tuple[str, str], dict[str, float | None]] = {}
    for r in runs:
        out.setdefault((r.family, r.strategy), {})[instance_name(r)] = r.seconds if solved(r, time_limit) else None
    for family in {f for f, _ in out}:
        best: dict[str, float | None] = {}
        for (f, _), per in out.items():
            if f != family:
                continue
            for inst, s in per.items():
                old = best.get(inst)
                best[inst] = s if old is None else (old if s is None else min(old, s))
        out[(family, VBS)] = best
    return out


def metrics(runs: Sequence, time_limit: float) -> list[dict]:
    """Per (strategy, family) and the VBS: instances, solved, PAR-2 and the shifted geometric mean (s).

    Running time: O(runs).
    """
    rows = []
    for (family, strategy), per in sorted(times(runs, time_limit).items(), key=lambda kv: (kv[0][0], kv[0][1] == VBS)):
        secs = list(per.values())
        rows.append({"family": family, "strategy": strategy, "instances": len(secs),
                     "solved": sum(s is not None for s in secs), "par2": par(secs, time_limit),
                     "sgm": shifted_geometric_mean(secs, time_limit)})
    return rows


def text(runs: Sequence, time_limit: float) -> str:
    """The metrics as a table per family, the shift and penalty stated."""
    lines = [f"Field metrics (unsolved = time-out, refusal, skip, error or flagged answer; PAR-2 counts it as "
             f"{PAR_FACTOR} x {time_limit:g} s; shifted geometric mean with shift {SGM_SHIFT:g} s counts it as "
             f"{time_limit:g} s; VBS = per instance the fastest strategy that solved it):"]
    family = None
    for row in metrics(runs, time_limit):
        if row["family"] != family:
            family = row["family"]
            lines += ["", f"{family}:", f"  {'strategy':<20} {'solved':>11} {'PAR-2 s':>9} {'SGM(10) s':>10}"]
        lines.append(f"  {row['strategy']:<20} {row['solved']:>5} of {row['instances']:<3} {row['par2']:>9.3f} "
                     f"{row['sgm']:>10.4f}")
    return "\n".join(lines)

"""The strategy study in the field's terms: per-instance CSV, PAR-2, shifted geometric means, the
virtual best solver.

Every run of :func:`flipgame.study.compare.compare_strategies` is one (instance, strategy) pair.  An
instance is *solved* by a strategy when it answered (a proven minimum or Impossible) within the time
limit and the answer was not flagged; every other outcome of a run made (time-out, an answer past the
limit, refusal, error, flagged answer) is unsolved and is charged as the metric says.  A run never
made (``not run``: after a time-out at a smaller size, or over the budget) is neither: the metrics
are taken over the instances *every* strategy ran (per family), and the others are listed as left
out.  With ``--run-all`` every strategy runs every instance, so all are scored (within the budget).

PAR-2 (SAT competitions)
    Mean over the scored instances of the seconds, an unsolved instance counted as twice the
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

import math
from collections.abc import Iterable, Sequence

SGM_SHIFT = 10.0
"""Shift of the shifted geometric mean, in seconds (Mittelmann's benchmarks)."""
PAR_FACTOR = 2
"""PAR-k penalty factor: an unsolved instance counts as ``PAR_FACTOR * time limit`` (PAR-2)."""
VBS = "VBS"
"""Name of the virtual best solver's row."""
NOT_RUN = "not run"
"""The status of a run never made."""


def instance_name(run) -> str:
    """``family/nxn/board`` of a run, e.g. ``random/14x14/1``."""
    return f"{run.family}/{run.n}x{run.n}/{run.board}"


def solved(run, time_limit: float) -> bool:
    """True if the run answered within ``time_limit`` seconds and its answer was not flagged (an answer
    after the limit counts as unsolved, as in the competitions)."""
    return run.answered and not run.flag and run.seconds is not None and run.seconds <= time_limit


def left_out(runs: Iterable) -> dict[str, list[str]]:
    """``family -> [instance]``: the instances some strategy did not run (they are not scored), in order."""
    out: dict[str, list[str]] = {}
    for r in runs:
        if r.status == NOT_RUN:
            names = out.setdefault(r.family, [])
            if instance_name(r) not in names:
                names.append(instance_name(r))
    return out


def times(runs: Iterable, time_limit: float) -> dict[tuple[str, str], dict[str, float | None]]:
    """``(family, strategy) -> {instance: seconds or None (unsolved)}`` over the scored instances (those
    every strategy ran), plus the VBS per family.  O(runs)."""
    runs = list(runs)
    skip = {i for names in left_out(runs).values() for i in names}
    out: dict[tuple[str, str], dict[str, float | None]] = {}
    for r in runs:
        per = out.setdefault((r.family, r.strategy), {})
        if instance_name(r) not in skip:
            per[instance_name(r)] = r.seconds if solved(r, time_limit) else None
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


def par(seconds: Sequence[float | None], time_limit: float, factor: int = PAR_FACTOR) -> float | None:
    """PAR-``factor`` of per-instance seconds (None = unsolved); None for no instance.

    >>> par([1.0, None], 5.0)
    5.5
    """
    if not seconds:
        return None
    return sum(factor * time_limit if s is None else s for s in seconds) / len(seconds)


def shifted_geometric_mean(seconds: Sequence[float | None], time_limit: float,
                           shift: float = SGM_SHIFT) -> float | None:
    """``exp(mean(log(t + shift))) - shift``, an unsolved instance (None) counted as ``time_limit``; None for
    no instance.

    >>> round(shifted_geometric_mean([0.0, 0.0], 5.0), 9)
    0.0
    >>> round(shifted_geometric_mean([10.0, None], 30.0), 3)
    18.284
    """
    if not seconds:
        return None
    logs = [math.log((time_limit if s is None else min(s, time_limit)) + shift) for s in seconds]
    return math.exp(sum(logs) / len(logs)) - shift


def metrics(runs: Sequence, time_limit: float) -> list[dict]:
    """Per (family, strategy) and the VBS: ``instances`` scored, ``solved``, ``par2`` and ``sgm`` (s, None
    when no instance is scored), and ``left_out`` (the family's instances some strategy did not run).

    Running time: O(runs).
    """
    out = left_out(runs)
    rows = []
    for (family, strategy), per in sorted(times(runs, time_limit).items(), key=lambda kv: (kv[0][0], kv[0][1] == VBS)):
        secs = list(per.values())
        rows.append({"family": family, "strategy": strategy, "instances": len(secs),
                     "solved": sum(s is not None for s in secs), "par2": par(secs, time_limit),
                     "sgm": shifted_geometric_mean(secs, time_limit), "left_out": len(out.get(family, []))})
    return rows


def scope(runs: Sequence, run_all: bool = False) -> str:
    """One sentence: which instances PAR-2 and SGM are taken over, and which were left out (at most 8 named
    per family)."""
    out = left_out(runs)
    if not out:
        how = "every strategy ran every instance (--run-all)" if run_all else "every strategy ran every instance"
        return f"PAR-2 and SGM over all instances: {how}."
    parts = []
    for family, names in out.items():
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        parts.append(f"{family}: {len(names)} left out ({shown})")
    why = "over the budget" if run_all else "not run after a time-out at a smaller size, or over the budget"
    return ("PAR-2 and SGM over the instances every strategy ran; the others are not scored (" + why + "): "
            + "; ".join(parts) + ".")


def text(runs: Sequence, time_limit: float, run_all: bool = False) -> str:
    """The metrics as a table per family, the scope, the shift and the penalty stated."""
    def num(v, fmt):
        return "-" if v is None else format(v, fmt)

    lines = [f"Field metrics (solved = a proven answer within {time_limit:g} s, not flagged; PAR-2 counts an "
             f"unsolved instance as {PAR_FACTOR} x {time_limit:g} s; shifted geometric mean with shift "
             f"{SGM_SHIFT:g} s counts it as {time_limit:g} s; VBS = per instance the fastest strategy that "
             f"solved it).", scope(runs, run_all)]
    family = None
    for row in metrics(runs, time_limit):
        if row["family"] != family:
            family = row["family"]
            lines += ["", f"{family}:", f"  {'strategy':<20} {'solved':>11} {'PAR-2 s':>9} {'SGM(10) s':>10}"]
        lines.append(f"  {row['strategy']:<20} {row['solved']:>5} of {row['instances']:<3} "
                     f"{num(row['par2'], '.3f'):>9} {num(row['sgm'], '.4f'):>10}")
    return "\n".join(lines)

"""The strategy study in the field's terms, under one scoring rule: solved, PAR-2, PAR-10, shifted geometric
means, the virtual best solver and each strategy's marginal contribution.

Every run of :func:`flipgame.study.compare.compare_strategies` is one (instance, strategy) pair, and every
metric follows the rule of :data:`RULE`, printed with the results:

solved
    a proven answer (a minimum or Impossible) within the time limit on the study's clock (CPU or wall),
    not flagged by the cross-check;
n/a
    ``refused``: the strategy cannot express the instance (a CNF program on a mod-3 board); the instance
    is left out of that strategy's metrics only, never scored as a time-out;
unsolved
    everything else, ``not run`` included (after a time-out on a smaller instance of the family, or over
    the budget): charged at the penalty, for that strategy only; the instance stays in every metric.

PAR-k (SAT competitions)
    Mean over the instances of the seconds, an unsolved instance counted as k times the limit (PAR-2, PAR-10).
Shifted geometric mean (Mittelmann's MIP benchmarks, MIPLIB)
    ``exp(mean(log(t + s))) - s`` with the shift :data:`SGM_SHIFT` = 10 s, an unsolved instance
    counted as the time limit.
Virtual best solver (VBS)
    Per instance the fastest strategy that solved it (unsolved if none did); a row ``VBS``.
Marginal contribution (Xu, Hutter, Hoos, Leyton-Brown 2012)
    The VBS's PAR-2 without the strategy minus the VBS's PAR-2: what the portfolio loses without it.

Source: SAT Competition rules (PAR-2); H. Mittelmann, "Benchmarks for Optimization Software"
(shifted geometric mean, shift 10 s); Xu et al., "Evaluating component solver contributions to
portfolio-based algorithm selectors", SAT 2012.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

SGM_SHIFT = 10.0
"""Shift of the shifted geometric mean, in seconds (Mittelmann's benchmarks)."""
PAR_FACTOR = 2
"""PAR-k penalty factor of the headline score: an unsolved instance counts as ``PAR_FACTOR * time limit``."""
PAR_FACTOR_HIGH = 10
"""The second penalty reported (PAR-10)."""
VBS = "VBS"
"""Name of the virtual best solver's row."""
NOT_RUN = "not run"
"""The status of a run never made (scored as unsolved)."""
REFUSED = "refused"
"""The status of a run the strategy refused (n/a: left out of its metrics)."""
CLOCKS = ("cpu", "wall")
"""The clocks a study's limit and scores may be on."""


def rule(time_limit: float, clock: str = "wall") -> str:
    """The scoring rule in one paragraph, with the limit and the clock."""
    return (f"Scoring: solved = a proven answer within {time_limit:g} s of {clock_name(clock)}, not flagged by "
            f"the cross-check; refused (the strategy cannot express the instance) = n/a, left out of that "
            f"strategy's metrics only; every other run (time-out, error, flagged, and not run after a time-out on "
            f"a smaller instance or over the budget) = unsolved, counted as {PAR_FACTOR} x {time_limit:g} s in "
            f"PAR-2, {PAR_FACTOR_HIGH} x in PAR-10 and {time_limit:g} s in the shifted geometric mean (shift "
            f"{SGM_SHIFT:g} s); VBS = per instance the fastest strategy that solved it; marginal = the VBS's "
            f"PAR-2 without the strategy minus with it.")


def clock_name(clock: str) -> str:
    return "CPU time" if clock == "cpu" else "wall-clock time"


def instance_name(run) -> str:
    """``family/nxn/board`` of a run, e.g. ``random/14x14/1``."""
    return f"{run.family}/{run.n}x{run.n}/{run.board}"


def seconds_on(run, clock: str = "wall") -> float | None:
    """The run's seconds on ``clock``: its CPU seconds for ``cpu`` (wall seconds where none were recorded)."""
    if clock == "cpu" and getattr(run, "cpu_seconds", None) is not None:
        return run.cpu_seconds
    return run.seconds


def solved(run, time_limit: float, clock: str = "wall") -> bool:
    """True if the run answered within ``time_limit`` seconds on ``clock`` and its answer was not flagged (an
    answer after the limit counts as unsolved, as in the competitions)."""
    seconds = seconds_on(run, clock)
    return run.answered and not run.flag and seconds is not None and seconds <= time_limit


def times(runs: Iterable, time_limit: float, clock: str = "wall") -> dict[tuple[str, str], dict[str, float | None]]:
    """``(family, strategy) -> {instance: seconds or None (unsolved)}`` by the rule (refused runs left out),
    plus the VBS per family over the instances some strategy can express.  O(runs)."""
    out: dict[tuple[str, str], dict[str, float | None]] = {}
    for r in runs:
        if r.status == REFUSED:
            continue
        out.setdefault((r.family, r.strategy), {})[instance_name(r)] = (
            seconds_on(r, clock) if solved(r, time_limit, clock) else None)
    for family in {f for f, _ in out}:
        out[(family, VBS)] = best_of([per for (f, s), per in out.items() if f == family and s != VBS])
    return out


def best_of(per_strategy: Sequence[dict[str, float | None]]) -> dict[str, float | None]:
    """Per instance the least seconds over the strategies (None where none solved it)."""
    best: dict[str, float | None] = {}
    for per in per_strategy:
        for inst, s in per.items():
            old = best.get(inst)
            best[inst] = s if old is None else (old if s is None else min(old, s))
    return best


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


def marginal(per: dict[tuple[str, str], dict], family: str, strategy: str, time_limit: float) -> float | None:
    """The VBS's PAR-2 on ``family`` without ``strategy`` minus with it (0: the others do as well)."""
    vbs = per.get((family, VBS), {})
    others = best_of([p for (f, s), p in per.items() if f == family and s not in (VBS, strategy)])
    without = [others.get(inst) for inst in vbs]
    with_all = par(list(vbs.values()), time_limit)
    return None if with_all is None else par(without, time_limit) - with_all


def metrics(runs: Sequence, time_limit: float, clock: str = "wall") -> list[dict]:
    """Per (family, strategy) and the VBS, by the rule: ``instances`` scored, ``solved``, ``na`` (refused),
    ``not_run`` (scored as unsolved), ``par2``, ``par10``, ``sgm`` (s; None with no instance) and ``marginal``.

    Running time: O(runs x strategies).
    """
    per = times(runs, time_limit, clock)
    na, not_run = _counts(runs)
    rows = []
    for family, strategy in sorted({*per, *na}, key=lambda k: (k[0], k[1] == VBS, k[1])):
        secs = list(per.get((family, strategy), {}).values())  # empty: refused every instance of the family
        rows.append({"family": family, "strategy": strategy, "instances": len(secs),
                     "solved": sum(s is not None for s in secs), "na": na.get((family, strategy), 0),
                     "not_run": not_run.get((family, strategy), 0), "par2": par(secs, time_limit),
                     "par10": par(secs, time_limit, PAR_FACTOR_HIGH), "sgm": shifted_geometric_mean(secs, time_limit),
                     "marginal": None if strategy == VBS or not secs else marginal(per, family, strategy, time_limit)})
    return rows


def _counts(runs: Iterable) -> tuple[dict, dict]:
    na: dict[tuple[str, str], int] = {}
    not_run: dict[tuple[str, str], int] = {}
    for r in runs:
        if r.status in (REFUSED, NOT_RUN):
            bucket = na if r.status == REFUSED else not_run
            bucket[(r.family, r.strategy)] = bucket.get((r.family, r.strategy), 0) + 1
    return na, not_run


def text(runs: Sequence, time_limit: float, clock: str = "wall") -> str:
    """The metrics as a table per family, under the rule stated."""
    def num(v, fmt):
        return "-" if v is None else format(v, fmt)

    lines = [rule(time_limit, clock)]
    family = None
    for row in metrics(runs, time_limit, clock):
        if row["family"] != family:
            family = row["family"]
            lines += ["", f"{family}:", f"  {'strategy':<20} {'solved':>11} {'n/a':>4} {'not run':>7} {'PAR-2 s':>9} "
                                        f"{'PAR-10 s':>9} {'SGM(10) s':>10} {'marginal':>9}"]
        lines.append(f"  {row['strategy']:<20} {row['solved']:>5} of {row['instances']:<3} {row['na']:>4} "
                     f"{row['not_run']:>7} {num(row['par2'], '.3f'):>9} {num(row['par10'], '.3f'):>9} "
                     f"{num(row['sgm'], '.4f'):>10} {num(row['marginal'], '.3f'):>9}")
    return "\n".join(lines)

"""The strategy study's report: the table per strategy x family, its text and its JSON.

``solved`` means one thing everywhere (:func:`flipgame.study.metrics.solved`): a proven answer within
the time limit, not flagged.  A run never made is counted as ``not run``, apart from the time-outs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from flipgame.algebra.zk import system_nullity
from flipgame.backends.registry import STRATEGIES
from flipgame.study import metrics as study_metrics
from flipgame.study.environment import machine_line
from flipgame.study.families import family
from flipgame.study.metrics import NOT_RUN, clock_name, instance_name, solved

if TYPE_CHECKING:
    from flipgame.study.compare import StrategyStudy


def summary(st: StrategyStudy) -> list[dict]:
    """One row per (strategy, family): ``instances``, ``solved``, ``time_outs`` (Unknown, or an answer past
    the limit), ``refused``, ``errors``, ``not_run``, ``disagreements`` (flagged answers), the median and worst
    wall seconds and the largest peak memory (MiB) of the solved, and the largest n solved.  The counts
    from ``solved`` to ``disagreements`` add up to ``instances``."""
    rows = []
    for f in st.families:
        for name in st.strategies:
            runs = [r for r in st.runs if r.family == f and r.strategy == name]
            done = [r for r in runs if solved(r, st.time_limit, st.clock)]
            secs = sorted(r.seconds for r in done)
            peaks = [r.peak_rss for r in done if r.peak_rss]
            rows.append({
                "strategy": name, "family": f, "instances": len(runs), "solved": len(done),
                "time_outs": sum(r.status == "UNKNOWN" or (r.answered and not r.flag and not solved(
                                 r, st.time_limit, st.clock)) for r in runs),
                "refused": sum(r.status == "refused" for r in runs),
                "errors": sum(r.status == "ERROR" for r in runs),
                "not_run": sum(r.status == NOT_RUN for r in runs),
                "disagreements": sum(bool(r.flag) for r in runs),
                "median_seconds": float(np.median(secs)) if secs else None,
                "worst_seconds": secs[-1] if secs else None,
                "peak_rss_mib": round(max(peaks) / 2**20, 1) if peaks else None,
                "largest_n_solved": max((r.n for r in done), default=None),
            })
    return rows


def to_json(st: StrategyStudy, runs: list[dict]) -> dict:
    """The study as JSON-ready dicts: strategies, families, limits, how it was measured, the environment,
    the summary, the metrics (with their scope) and every run (``runs``, as dicts)."""
    return {
        "strategies": {n: {"backend": STRATEGIES[n].backend, "options": dict(STRATEGIES[n].options),
                           "summary": STRATEGIES[n].summary} for n in st.strategies},
        "families": {f: {"summary": family(f).summary, "sizes": st.sizes[f]} for f in st.families},
        "source": st.source, "boards_per_size": st.boards_per_size, "seed": st.seed,
        "time_limit": st.time_limit, "margin": st.margin, "memory_limit_gib": st.memory_limit,
        "budget": st.budget, "run_all": st.run_all, "measured": "child" if st.isolate else "in-process",
        "environment": st.environment,
        "wall_seconds": round(st.wall_seconds, 3), "budget_note": st.budget_note,
        "disagreements": st.disagreements,
        "summary": summary(st),
        "metrics": {"clock": st.clock, "sgm_shift_seconds": study_metrics.SGM_SHIFT,
                    "par_factor": study_metrics.PAR_FACTOR, "par_factor_high": study_metrics.PAR_FACTOR_HIGH,
                    "rule": study_metrics.rule(st.time_limit, st.clock),
                    "rows": study_metrics.metrics(st.runs, st.time_limit, st.clock)},
        "runs": [{**r, "solved": solved(o, st.time_limit, st.clock)} for r, o in zip(runs, st.runs, strict=True)],
    }


def _programs_measured(st: StrategyStudy) -> str:
    """How the solver programs' runs were measured: by BenchExec, or why not."""
    limits = st.environment.get("limits", {})
    if st.clock == "wall":
        return "solver programs measured by wait4 and /proc (--clock wall: BenchExec is used for the CPU clock)"
    why = limits.get("benchexec_unavailable")
    if why:
        return f"solver programs measured by rusage, not BenchExec ({why})"
    return "solver programs measured and limited by BenchExec (cgroups: the program's whole process tree)"


def header(st: StrategyStudy) -> list[str]:
    """What was run, how it was measured and where: the lines above the tables."""
    if st.source.startswith("suite"):
        where = f"suite {st.source.removeprefix('suite ')}: {sum(len(v) for v in _instances(st).values())} instances"
    elif st.source.startswith("rules"):
        where = f"{st.source}: {st.boards_per_size} random board(s) (seed {st.seed})"
    else:
        where = f"{st.boards_per_size} random board(s) per size (seed {st.seed})"
    limit = f"{st.time_limit:g} s of {clock_name(st.clock)} per run"
    if st.repeat > 1:
        limit += f", each pair run {st.repeat} times (the run of median seconds recorded, with the spread)"
    if st.clock == "cpu":
        limit += f" (wall-clock safety net {st.wall_limit:g} s)"
    if st.isolate:
        how = (f"each run in a process of its own, stopped {st.margin:g} s past the limit; start-up, imports and a "
               f"warm-up not counted; {_programs_measured(st)}")
    else:
        how = "each run in this process (--in-process: the backends' own limits only, rc2 has none)"
    memory = (f"{st.memory_limit:g} GiB per run (address space; a program's resident memory under BenchExec)"
              if st.memory_limit else "no memory limit")
    skip = ("every strategy runs every instance (--run-all)" if st.run_all else
            "after a time-out a strategy does not run the family's later, no smaller boards (not run)")
    env = st.environment
    lines = [f"Strategies x families: {where}; {limit}, {memory}; {how}; {skip}; "
             f"budget {st.budget:g} s, wall time {st.wall_seconds:.1f} s."]
    if env:
        lines.append(f"Machine: {machine_line(env['machine'])}; flipgame {env['flipgame']}, Python "
                     f"{env['machine'].get('python', '?')}.  Solvers: " + "; ".join(
                         f"{n} = {s['solver']} ({s['version']})" for n, s in env["solvers"].items()) + ".")
    if st.budget_note:
        lines.append(st.budget_note)
    return lines


def _instances(st: StrategyStudy) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in st.runs:
        names = out.setdefault(r.family, [])
        if instance_name(r) not in names:
            names.append(instance_name(r))
    return out


def _family_lines(st: StrategyStudy, f: str, rows: list[dict]) -> list[str]:
    def sec(v):
        return "-" if v is None else f"{v:.3g}"

    fam = family(f)
    axis = "n (nullity)" if fam.axis == "nullity" else "n"
    shown = ", ".join(f"{n} ({system_nullity(fam.game(n))})" if fam.axis == "nullity" else str(n) for n in st.sizes[f])
    lines = ["", f"{f}: {fam.summary}; {axis} = {shown}",
             f"  {'strategy':<20} {'instances':>9} {'solved':>6} {'time-outs':>9} {'refused':>7} {'errors':>6} "
             f"{'not run':>7} {'flagged':>7} {'median s':>9} {'worst s':>9} {'peak MiB':>8} {'largest n':>9}"]
    for row in rows:
        if row["family"] == f:
            lines.append(f"  {row['strategy']:<20} {row['instances']:>9} {row['solved']:>6} {row['time_outs']:>9} "
                         f"{row['refused']:>7} {row['errors']:>6} {row['not_run']:>7} {row['disagreements']:>7} "
                         f"{sec(row['median_seconds']):>9} {sec(row['worst_seconds']):>9} "
                         f"{sec(row['peak_rss_mib']):>8} "
                         f"{'-' if row['largest_n_solved'] is None else row['largest_n_solved']:>9}")
    return lines


def not_run_lines(st: StrategyStudy) -> list[str]:
    """Per strategy and reason, the instances it did not run."""
    per: dict[tuple[str, str], list] = {}
    for r in st.runs:
        if r.status == NOT_RUN:
            per.setdefault((r.strategy, r.note), []).append(r)
    lines = []
    for (name, why), runs in per.items():
        names = [instance_name(r) for r in runs]
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        lines.append(f"  {name}: {shown} ({why})")
    return (["", "Not run (scored as unsolved for that strategy, at the penalty):"] + lines) if lines else []


def text(st: StrategyStudy) -> str:
    """The header, a table per family, the runs not made, and the flagged answers."""
    rows = summary(st)
    lines = header(st)
    for f in st.families:
        lines += _family_lines(st, f, rows)
    lines += not_run_lines(st)
    flagged = [r for r in st.runs if r.flag]
    lines.append("")
    lines.append(f"Disagreements: {len(flagged)}" + (" (every answer cross-checked against gauss where it "
                                                      "answers and against the other strategies; every "
                                                      "witness re-checked)" if not flagged else ":"))
    for r in flagged[:20]:
        lines.append(f"  {r.family} {r.n}x{r.n} board {r.board}: {r.strategy} answered {r.answer()}: {r.flag}")
    return "\n".join(lines)

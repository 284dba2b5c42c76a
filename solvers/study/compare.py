"""The strategy study: named strategies across instance families, every answer cross-checked.

:func:`compare_strategies` runs each strategy on each board of the families
(:mod:`flipgame.study.families`) or of an exported suite, each run measured by a process of its own
under the same time and memory limits (:mod:`flipgame.study.runner`), every answer checked by the
pipeline's referee in its run and judged by the one agreement policy (:mod:`flipgame.pipeline.decide`:
gauss where it answers, else the plurality), and keeps every run;
:mod:`flipgame.study.report` prints the table per strategy x family and
:mod:`flipgame.study.metrics` the field's measures (PAR-2, SGM, VBS).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from flipgame.algebra.zk import system_nullity
from flipgame.backends.registry import STRATEGIES
from flipgame.backends.result import Status
from flipgame.core import cgroup_run
from flipgame.core.limits import MEASURE_MARGIN_SECONDS, WALL_SAFETY_FACTOR
from flipgame.model.system import PressSystem
from flipgame.pipeline.decide import (
    IMPOSSIBLE_KEY,
    NO_ANSWER_KEY,
    REFERENCE,
    answer_key,
    charged,
    key_text,
    reference_answer,
)
from flipgame.study import report
from flipgame.study.environment import environment
from flipgame.study.families import FAMILIES
from flipgame.study.metrics import NOT_RUN
from flipgame.study.runner import Outcome, run_measured

STARVED_RATIO = 0.5
"""A run that got less than this share of a core over its wall time (CPU / wall) was starved: the note says so."""
STARVED_MIN_SECONDS = 0.5
"""Runs shorter than this are never called starved (a process start weighs too much in them)."""


@dataclass
class Run:
    """One strategy on one board.

    ``status`` is OPTIMAL, INFEASIBLE, UNKNOWN (time-out), ERROR, ``refused`` (the strategy does not take
    the board) or ``not run`` (:data:`flipgame.study.metrics.NOT_RUN`: after a time-out at a smaller size, or over the
    budget; scored as unsolved for that strategy; ``note`` says why).  ``seconds`` is the recorded wall time,
    ``cpu_seconds`` the CPU time of the run's process and its children, ``peak_rss`` its peak resident
    bytes, ``build_seconds`` / ``export_seconds`` / ``solve_seconds`` the parts where the strategy reports
    them, ``measured`` ``child`` or ``in-process`` (see :mod:`flipgame.study.runner`).
    """

    family: str
    n: int
    nullity: int | None
    board: int  # index of the board within its size
    strategy: str
    status: str
    moves: int | None = None
    seconds: float | None = None
    note: str = ""
    flag: str = ""  # why the answer is flagged (disagreement or rejected witness); "" = cross-checked fine
    cpu_seconds: float | None = None
    peak_rss: int | None = None
    build_seconds: float | None = None
    export_seconds: float | None = None
    solve_seconds: float | None = None
    measured: str = ""
    termination: str = ""  # cputime, walltime or memory: the limit that stopped the run
    measured_by: str = ""  # rusage, or benchexec (a solver program's own tree, in cgroups)
    instance_hash: str = ""  # of the rules and the board (instance_hash): two studies join on it
    repeats: int = 1  # runs of this pair (--repeat): the median one recorded
    spread_seconds: float | None = None  # max - min of their seconds on the study's clock

    @property
    def answered(self) -> bool:
        return self.status in ("OPTIMAL", "INFEASIBLE")

    def answer(self) -> str:
        return str(self.moves) if self.status == "OPTIMAL" else "Impossible"


class StudyInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during :func:`compare_strategies`: ``study`` holds the runs that finished, its
    ``budget_note`` says how many of how many, so a caller can still write them."""

    def __init__(self, study: StrategyStudy):
        super().__init__()
        self.study = study


@dataclass
class StrategyStudy:
    """The result of :func:`compare_strategies`: every run, what was measured how, and the environment.

    ``source`` says where the instances come from (``families`` or ``suite DIR``); ``run_all`` whether
    every strategy ran every instance (no skipping after a time-out); ``isolate`` whether each run had a
    process of its own; ``environment`` the machine, versions and limits
    (:func:`flipgame.study.environment.environment`).
    """

    strategies: list[str]
    families: list[str]
    sizes: dict[str, list[int]]
    boards_per_size: int | None
    time_limit: float
    budget: float
    seed: int | None
    runs: list[Run] = field(default_factory=list)
    wall_seconds: float = 0.0
    budget_note: str = ""
    source: str = "families"
    run_all: bool = False
    isolate: bool = True
    memory_limit: float | None = None
    environment: dict = field(default_factory=dict)
    clock: str = "wall"
    wall_limit: float | None = None
    repeat: int = 1

    @property
    def disagreements(self) -> int:
        return sum(1 for r in self.runs if r.flag)

    @property
    def margin(self) -> float:
        """Seconds past the time limit at which an isolated run is killed (0 in-process: nothing is killed)."""
        return MEASURE_MARGIN_SECONDS if self.isolate else 0.0

    def summary(self) -> list[dict]:
        """One row per (strategy, family); see :func:`flipgame.study.report.summary`."""
        return report.summary(self)

    def to_json(self) -> dict:
        """Everything, as JSON-ready dicts; see :func:`flipgame.study.report.to_json`."""
        return report.to_json(self, [dataclasses.asdict(r) for r in self.runs])

    def header(self) -> list[str]:
        """What was run, how it was measured and where; see :func:`flipgame.study.report.header`."""
        return report.header(self)

    def text(self) -> str:
        """The tables per family; see :func:`flipgame.study.report.text`."""
        return report.text(self)


def compare_strategies(strategies: list[str] | None = None, families: list[str] | None = None, *,
                       sizes: list[int] | None = None, boards: int = 2, time_limit: float = 5.0,
                       budget: float = 600.0, seed: int = 0, progress=None, plan: list | None = None,
                       source: str = "families", run_all: bool = False, isolate: bool = True,
                       memory_limit: float | None = None, clock: str = "cpu",
                       wall_limit: float | None = None, repeat: int = 1) -> StrategyStudy:
    """Run named strategies across instance families, each run measured, every answer cross-checked.

    Parameters
    ----------
    strategies : list of str, optional
        Keys of :data:`flipgame.backends.strategies.STRATEGIES` (default: all).
    families : list of str, optional
        Keys of :data:`flipgame.study.families.FAMILIES` (default: all).
    sizes : list of int, optional
        Sizes ``n`` for every family chosen (default: each family's own).
    boards : int
        Random boards per size (the all-lit family has one board per size).
    time_limit : float
        Seconds per run, the same for every strategy (see :mod:`flipgame.study.runner`).
    budget : float
        Seconds for the whole study; once spent, the remaining runs are ``not run`` and
        :attr:`StrategyStudy.budget_note` says how many.
    progress : callable(done, total, run), optional
        Called after each run (not-run ones included).
    plan : list of (family, n, PressSystem, index, board), optional
        The boards to run instead of drawing them (an exported suite's,
        :func:`flipgame.study.suite.suite_plan`), named by ``source``; ``families``, ``sizes``,
        ``boards`` and ``seed`` then do not apply.
    run_all : bool
        Run every strategy on every instance within the budget.  False: after a time-out at ``n`` with
        nullity ``k`` a strategy does not run the family's later boards with at least ``n`` and nullity at
        least ``k`` (search strategies slow down with both); those are ``not run``.
    isolate : bool
        Each run in a process of its own, killed past the limit (default); False: in this process, each
        backend bounded by its own time limit only (rc2 has none).
    memory_limit : float, optional
        GiB of address space per run (isolated runs), also handed to backends that declare a memory limit.
    clock : {"cpu", "wall"}
        The clock of ``time_limit`` and of every score (default CPU time, as runsolver ``-C`` and
        BenchExec); ``wall_limit`` is then the wall-clock safety net (default 3 x the limit).
    repeat : int
        Runs of each (instance, strategy) pair; the one of median seconds is recorded, with the spread.

    Returns
    -------
    StrategyStudy
        A run is flagged when its witness fails :func:`flipgame.verify.checks.witness.check_solution`,
        or its answer differs from gauss's (when gauss answers the board), or, without
        gauss, from the answer most strategies gave.

    Notes
    -----
    Runs are sequential, so the timings are comparable.

    Raises
    ------
    StudyInterrupted
        On Ctrl-C or SIGTERM, with the runs that finished.
    """
    strategies = list(strategies or STRATEGIES)
    if plan is None:
        families = list(families or FAMILIES)
        per_family = {f: list(sizes or FAMILIES[f].sizes) for f in families}
        plan = _plan(families, per_family, boards, np.random.default_rng(seed))
    else:
        families = list(dict.fromkeys(f for f, *_ in plan))
        per_family = {f: sorted({n for g, n, *_ in plan if g == f}) for f in families}
        if not source.startswith("rules"):  # a suite's manifest lists its instances
            boards = seed = None
    wall = wall_limit or (time_limit if clock == "wall" else WALL_SAFETY_FACTOR * time_limit)
    limits = {"time_limit": time_limit, "clock": clock, "wall_limit": wall,
              "margin": MEASURE_MARGIN_SECONDS if isolate else 0.0, "memory_limit_gib": memory_limit, "budget": budget,
              "programs_measured_by": "rusage" if cgroup_run.unavailable() else "benchexec",
              "benchexec_unavailable": cgroup_run.unavailable()}
    out = StrategyStudy(strategies, families, per_family, boards, time_limit, budget, seed, source=source,
                        run_all=run_all, isolate=isolate, memory_limit=memory_limit,
                        environment=environment([STRATEGIES[s] for s in strategies], limits), clock=clock,
                        wall_limit=wall, repeat=repeat)
    start = time.perf_counter()
    try:
        _run_plan(out, plan, progress)
    except KeyboardInterrupt:
        out.wall_seconds = time.perf_counter() - start
        total = len(plan) * len(out.strategies)
        out.budget_note = f"Interrupted: {len(out.runs)} of {total} runs finished; the others were not run."
        raise StudyInterrupted(out) from None
    return out


def _run_plan(out: StrategyStudy, plan: list, progress) -> None:
    """Every (board, strategy) of ``plan`` into ``out.runs``, in order, under the budget."""
    total = len(plan) * len(out.strategies)
    start = time.perf_counter()
    done = over_budget = 0
    timed_out: dict[tuple[str, str], list[tuple[int, int]]] = {}  # (family, strategy) -> [(n, nullity)]
    for f, n, game, i, board in plan:
        k, key = system_nullity(game), instance_hash(game, board)
        sols = {}
        for name in out.strategies:
            run = Run(f, n, k, i, name, NOT_RUN, instance_hash=key)
            if time.perf_counter() - start >= out.budget:
                run.note = "over budget"
                over_budget += 1
            elif not out.run_all and (beaten := _beaten_note(timed_out.get((f, name), []), n, k)):
                run.note = beaten
            elif _execute(run, STRATEGIES[name], game, board, out):
                sols[name] = run
            elif run.status == Status.UNKNOWN.name:
                timed_out.setdefault((f, name), []).append((n, k or 0))
            out.runs.append(run)
            done += 1
            if progress:
                progress(done, total, run)
        _cross_check(game, board, sols)
    out.wall_seconds = time.perf_counter() - start
    if over_budget:
        out.budget_note = (f"Budget of {out.budget:g} s spent: {over_budget} of {total} runs not run "
                           f"(raise --budget, or choose fewer --strategies / --families / --sizes).")


def instance_hash(game: PressSystem, board) -> str:
    """A content hash of an instance: SHA-256 of its rules' JSON (keys sorted) and its cells, 16 hex digits,
    the same for the same instance in any study, family name or order."""
    import hashlib
    import json

    text = json.dumps({"rules": game.to_json(), "board": game.cells_of(board)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _plan(families: list[str], per_family: dict[str, list[int]], boards: int,
          rng: np.random.Generator) -> list[tuple]:
    """The study's boards in order, as (family, n, game, board index, board)."""
    plan = []
    for f in families:
        fam = FAMILIES[f]
        for n in per_family[f]:
            game = fam.game(n)
            for i, b in enumerate(fam.boards(game, rng, boards)):
                plan.append((f, n, game, i, b))
    return plan


def _beaten_note(timeouts: list[tuple[int, int]], n: int, k: int | None) -> str | None:
    """Why a strategy does not run an ``n x n`` board of nullity ``k`` after its time-outs ``[(n, nullity)]``,
    or None to run it."""
    beaten = [(n0, k0) for n0, k0 in timeouts if n >= n0 and (k or 0) >= k0]
    if not beaten:
        return None
    n0, k0 = beaten[0]
    return f"after a time-out at {n0}x{n0} (nullity {k0}): this board is no smaller, its nullity no lower"


def _execute(run: Run, strategy, game: PressSystem, board, st: StrategyStudy) -> bool:
    """Run ``strategy`` on ``board``, measured, and fill in ``run``; True when the answer is definite
    (optimal or impossible), so it takes part in the cross-check."""
    refused = strategy.refusal(game)
    if refused:
        run.status, run.note = "refused", refused
        return False
    outcomes = [run_measured(strategy, game, board, st.time_limit, st.memory_limit, isolate=st.isolate,
                             clock=st.clock, wall_limit=st.wall_limit) for _ in range(st.repeat)]
    got = median_outcome(outcomes, st.clock)
    _record(run, got)
    if st.repeat > 1:
        run.repeats = st.repeat
        clocked = [_clock_seconds(o, st.clock) for o in outcomes]
        run.spread_seconds = round(max(clocked) - min(clocked), 6) if None not in clocked else None
    if not run.answered:
        return False
    if got.problem:
        run.flag = got.problem
    return True


def _clock_seconds(o: Outcome, clock: str) -> float | None:
    return o.measure.cpu if clock == "cpu" and o.measure.cpu is not None else o.measure.wall


def median_outcome(outcomes: list[Outcome], clock: str) -> Outcome:
    """Of ``--repeat`` runs, the one of median seconds on ``clock`` (a run without an answer counts as the
    slowest; the lower median of an even count), so its answer and measures are one run's, never a mix."""
    def key(o: Outcome) -> tuple:
        answered = o.status in ("OPTIMAL", "INFEASIBLE")
        return (not answered, _clock_seconds(o, clock) or 0.0)

    return sorted(outcomes, key=key)[(len(outcomes) - 1) // 2]


def _record(run: Run, got: Outcome) -> None:
    """The outcome's status, answer and measures into ``run``."""
    m = got.measure
    run.status, run.note, run.measured = got.status, got.note, m.where
    # to the microsecond, as the CSV keeps them: a study re-scored from its CSV gives the same metrics
    run.seconds, run.cpu_seconds = (None if v is None else round(v, 6) for v in (m.wall, m.cpu))
    run.peak_rss = m.peak_rss
    run.build_seconds, run.export_seconds, run.solve_seconds = m.build, m.export, m.solve
    run.termination, run.measured_by = m.termination or "", m.measured_by
    run.moves = got.solution.moves if got.solution is not None else None
    if m.wall and m.cpu is not None and m.wall >= STARVED_MIN_SECONDS and m.cpu < STARVED_RATIO * m.wall:
        starved = f"starved: {m.cpu:.2f} s of CPU in {m.wall:.2f} s of wall time"
        run.note = f"{run.note}; {starved}" if run.note else starved


def _key(run: Run) -> int:
    """The run's answer as a key of the agreement policy."""
    if run.status == "OPTIMAL":
        return run.moves
    return IMPOSSIBLE_KEY if run.status == "INFEASIBLE" else NO_ANSWER_KEY


def _cross_check(game: PressSystem, board, runs: dict[str, Run]) -> None:
    """Flag the definite answers the agreement policy charges (:func:`flipgame.pipeline.decide.charged`): gauss's
    answer is the reference (computed here when gauss was not run, where it takes the board), else the
    plurality; answers the referee rejected take no part."""
    keys = {name: _key(r) for name, r in runs.items() if not r.flag}
    source = None
    if REFERENCE not in runs:
        ref = reference_answer(game, board)
        if ref is not None:
            keys[REFERENCE], source = answer_key(ref), REFERENCE
    elif runs[REFERENCE].flag:
        keys.pop(REFERENCE, None)
    for name, why in charged(keys, REFERENCE, source).items():
        if name in runs:
            runs[name].flag = _flag_text(why, keys)


def _flag_text(why: str, keys: dict) -> str:
    """The flag of a charged answer, in the study's words."""
    if why.startswith("answers disagree"):
        answers = ", ".join(sorted({key_text(k) for k in keys.values()}))
        return f"strategies disagree ({answers}) and gauss does not answer"
    if why.startswith("disagrees with most answers"):
        return why.replace("most answers", "most strategies")
    return why

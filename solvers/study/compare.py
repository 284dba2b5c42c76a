"""The strategy study: named strategies across instance families, every answer cross-checked.

A *family* gives press systems by size (grids of several rules, Lights Out 2000 over Z_3, graph
games, counter machines) and draws boards for them; :func:`compare_strategies` runs each strategy
on each board under a time limit and a budget, cross-checks every answer (the model re-applies
each witness; gauss, or the majority, is the reference) and reports the table per strategy x
family, which :mod:`flipgame.study.metrics` turns into the field's measures (PAR-2, SGM, VBS).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from flipgame import solve
from flipgame.algebra import gf2 as algebra
from flipgame.algebra import zk
from flipgame.backends.result import Status
from flipgame.backends.strategies import STRATEGIES
from flipgame.core.errors import RefusedError
from flipgame.gate.session import solve_strategy
from flipgame.model.grid import Game
from flipgame.model.rules import from_edges
from flipgame.model.system import PressSystem
from flipgame.study import metrics as study_metrics
from flipgame.verify.checks.witness import check_solution

# --- Strategies across instance families -------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """An instance family: press systems for a size ``n`` and how their boards are drawn.

    Attributes
    ----------
    name : str
        Key of :data:`FAMILIES`, e.g. ``torus``.
    summary : str
        One line for ``--help`` and the output.
    sizes : tuple of int
        Default sizes ``n`` (an ``n x n`` grid, or n cells of a graph or machine), in the order they are run.
    wrap, neighbourhood : rules of a grid family's games (goal white).
    all_lit : bool
        True: the one board is all black (all lit); False: random solvable boards.
    axis : str
        What the plot's x axis shows: ``side`` (n) or ``nullity``.
    kind : str
        ``grid`` (two states), ``mod3`` (Lights Out 2000: an n x n grid over Z_3, goal 0), ``graph``
        (Lights Out on a random graph of n vertices, closed neighbourhoods, goal white) or ``counters``
        (a machine of n counters and n + 2 buttons that each add 1 to two or three counters, goal every
        counter at 2 times its number of buttons).  Graphs and machines are drawn from a generator seeded
        by n, so each size is one fixed system.
    """

    name: str
    summary: str
    sizes: tuple[int, ...]
    wrap: bool = False
    neighbourhood: str = "plus"
    all_lit: bool = False
    axis: str = "side"
    kind: str = "grid"

    def game(self, n: int) -> PressSystem:
        """The press system of size ``n``.  O(n) to O(n^2)."""
        if self.kind == "mod3":
            return Game(n, n, "0", states=3)
        if self.kind == "graph":
            return random_graph(n)
        if self.kind == "counters":
            return counter_machine(n)
        return Game(n, n, "white", self.wrap, self.neighbourhood)

    def boards(self, game: PressSystem, rng: np.random.Generator, count: int) -> list:
        """``count`` boards of ``game``: all lit once, or boards from which uniformly random press sets ``x``
        reach the goal (``A x`` away from it: every board has a number to cross-check)."""
        if self.all_lit:
            return [game.full]
        out = []
        for _ in range(count):
            if game.binary:
                x = int.from_bytes(rng.bytes((game.m + 7) // 8), "little") & ((1 << game.m) - 1)
                out.append(game.apply(game.targets[0], x))
            elif game.states is not None:
                out.append(game.apply(game.targets[0], tuple(int(v) for v in rng.integers(0, game.states, game.m))))
            else:
                added = game.apply((0,) * game.n, tuple(int(v) for v in rng.integers(0, 3, game.m)))
                out.append(tuple(t - a for t, a in zip(game.targets[0], added, strict=True)))
        return out


def random_graph(n: int) -> PressSystem:
    """Lights Out on a random graph of ``n`` vertices (about 3 edges per vertex, from a generator seeded by n;
    closed neighbourhoods), goal white.  O(n)."""
    rng = np.random.default_rng(n)
    edges = {tuple(sorted(map(int, rng.choice(n, 2, replace=False)))) for _ in range(3 * n // 2)} if n > 1 else set()
    return from_edges(n, sorted(edges), closed=True, goal="white")


def counter_machine(n: int) -> PressSystem:
    """A counter machine (Advent of Code 2025 day 10, part 2): ``n`` counters, ``n + 2`` buttons each adding 1
    to two or three counters (seeded by n), goal: every counter at twice the number of buttons touching it.
    O(n)."""
    rng = np.random.default_rng(n)
    buttons = [tuple((int(c), 1) for c in sorted(rng.choice(n, min(n, int(rng.integers(2, 4))), replace=False)))
               for _ in range(n + 2)]
    degree = [sum(1 for b in buttons for c, _ in b if c == i) for i in range(n)]
    system = PressSystem(n, tuple(buttons), None, "0")
    return system.with_goal("board", tuple(2 * max(1, d) for d in degree))


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("random", "random solvable n x n Lights Out boards, goal white", (4, 6, 8, 10, 12, 14, 16, 18, 20)),
    Family("all-lit", "the all-lit n x n board, goal white (OEIS A075464)", (4, 6, 8, 10, 12, 14, 16, 18, 20),
           all_lit=True),
    Family("torus", "random solvable boards on the n x n torus (--wrap), goal white", (4, 6, 8, 10, 12, 14, 16),
           wrap=True),
    Family("king", "random solvable boards, king (3x3) neighbourhood, goal white", (4, 6, 8, 10, 12, 14, 16),
           neighbourhood="king"),
    Family("nullity", "random solvable n x n boards with n chosen by nullity (0, 2, 4, 6, 8, 16, 20, 32)",
           (6, 5, 4, 11, 9, 19, 30, 39), axis="nullity"),
    Family("mod3", "Lights Out 2000: random solvable n x n boards over Z_3, goal all 0", (3, 4, 5, 6, 8),
           kind="mod3"),
    Family("graph", "Lights Out on a random graph of n vertices (closed neighbourhoods), goal white",
           (8, 16, 24, 32, 48), kind="graph"),
    Family("counters", "counter machines (Advent of Code 2025 day 10, part 2) of n counters", (3, 4, 6, 8),
           kind="counters"),
)}
"""The instance families of ``flipgame study --strategies``, in the order they are run."""


def family(name: str) -> Family:
    """The family ``name``: one of :data:`FAMILIES`, or (an exported suite's own, e.g. ``judge``) a plain
    family of that name with no default sizes."""
    return FAMILIES.get(name) or Family(name, f"{name} instances of an exported suite", ())


@dataclass
class Run:
    """One strategy on one board: ``status`` is OPTIMAL, INFEASIBLE, UNKNOWN (time-out), ERROR, ``refused``
    (the strategy does not take the board) or ``skipped`` (after a time-out at a smaller size, or over budget)."""

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

    @property
    def answered(self) -> bool:
        return self.status in ("OPTIMAL", "INFEASIBLE")

    def answer(self) -> str:
        return str(self.moves) if self.status == "OPTIMAL" else "Impossible"


@dataclass
class StrategyStudy:
    """The result of :func:`compare_strategies`: every run, and the table per strategy x family."""

    strategies: list[str]
    families: list[str]
    sizes: dict[str, list[int]]
    boards_per_size: int
    time_limit: float
    budget: float
    seed: int
    runs: list[Run] = field(default_factory=list)
    wall_seconds: float = 0.0
    budget_note: str = ""

    @property
    def disagreements(self) -> int:
        return sum(1 for r in self.runs if r.flag)

    def summary(self) -> list[dict]:
        """One row per (strategy, family): boards run, answered, median and worst seconds of the answered,
        time-outs, refused, skipped, errors, disagreements, and the largest n answered."""
        rows = []
        for f in self.families:
            for name in self.strategies:
                runs = [r for r in self.runs if r.family == f and r.strategy == name]
                done = [r for r in runs if r.answered]
                secs = sorted(r.seconds for r in done)
                rows.append({
                    "strategy": name, "family": f,
                    "boards": sum(r.status not in ("refused", "skipped") for r in runs),
                    "answered": len(done),
                    "median_seconds": float(np.median(secs)) if secs else None,
                    "worst_seconds": secs[-1] if secs else None,
                    "time_outs": sum(r.status == "UNKNOWN" for r in runs),
                    "refused": sum(r.status == "refused" for r in runs),
                    "skipped": sum(r.status == "skipped" for r in runs),
                    "errors": sum(r.status == "ERROR" for r in runs),
                    "disagreements": sum(bool(r.flag) for r in runs),
                    "largest_n_answered": max((r.n for r in done), default=None),
                })
        return rows

    def to_json(self) -> dict:
        return {
            "strategies": {n: {"backend": STRATEGIES[n].backend, "options": dict(STRATEGIES[n].options),
                               "summary": STRATEGIES[n].summary} for n in self.strategies},
            "families": {f: {"summary": family(f).summary, "sizes": self.sizes[f]} for f in self.families},
            "boards_per_size": self.boards_per_size, "time_limit": self.time_limit, "budget": self.budget,
            "seed": self.seed, "wall_seconds": round(self.wall_seconds, 3), "budget_note": self.budget_note,
            "disagreements": self.disagreements,
            "summary": self.summary(),
            "metrics": {"sgm_shift_seconds": study_metrics.SGM_SHIFT, "par_factor": study_metrics.PAR_FACTOR,
                        "rows": study_metrics.metrics(self.runs, self.time_limit)},
            "runs": [dataclasses.asdict(r) for r in self.runs],
        }

    def text(self) -> str:
        def sec(v):
            return "-" if v is None else f"{v:.3g}"

        lines = [f"Strategies x families: each board under a {self.time_limit:g} s time limit, total budget "
                 f"{self.budget:g} s, {self.boards_per_size} random board(s) per size (seed {self.seed}); "
                 f"wall time {self.wall_seconds:.1f} s."]
        if self.budget_note:
            lines.append(self.budget_note)
        for f in self.families:
            fam = family(f)
            axis = "n (nullity)" if fam.axis == "nullity" else "n"
            shown = ", ".join(f"{n} ({_nullity(fam.game(n))})" if fam.axis == "nullity" else str(n)
                              for n in self.sizes[f])
            lines += ["", f"{f}: {fam.summary}; {axis} = {shown}",
                      f"  {'strategy':<20} {'boards':>6} {'answered':>8} {'median s':>9} {'worst s':>9} "
                      f"{'time-outs':>9} {'refused':>7} {'skipped':>7} {'disagree':>8} {'largest n':>9}"]
            for row in self.summary():
                if row["family"] != f:
                    continue
                lines.append(f"  {row['strategy']:<20} {row['boards']:>6} {row['answered']:>8} "
                             f"{sec(row['median_seconds']):>9} {sec(row['worst_seconds']):>9} {row['time_outs']:>9} "
                             f"{row['refused']:>7} {row['skipped']:>7} {row['disagreements']:>8} "
                             f"{'-' if row['largest_n_answered'] is None else row['largest_n_answered']:>9}")
        flagged = [r for r in self.runs if r.flag]
        lines.append("")
        lines.append(f"Disagreements: {len(flagged)}" + (" (every answer cross-checked against gauss where it "
                                                          "answers and against the other strategies; every "
                                                          "witness re-checked)" if not flagged else ":"))
        for r in flagged[:20]:
            lines.append(f"  {r.family} {r.n}x{r.n} board {r.board}: {r.strategy} answered {r.answer()}: {r.flag}")
        return "\n".join(lines)


def _nullity(game: PressSystem) -> int | None:
    """The nullity of the press matrix (over GF(2), or Z_k), None for counters or rules the algebra does not take."""
    if game.binary:
        return algebra.nullity(game)
    return None if game.states is None else zk.diagonal_of(game.matrix, game.states).nullity


def compare_strategies(strategies: list[str] | None = None, families: list[str] | None = None, *,
                       sizes: list[int] | None = None, boards: int = 2, time_limit: float = 5.0,
                       budget: float = 600.0, seed: int = 0, progress=None, plan: list | None = None
                       ) -> StrategyStudy:
    """Run named strategies across instance families, cross-checking every answer.

    Parameters
    ----------
    strategies : list of str, optional
        Keys of :data:`flipgame.backends.strategies.STRATEGIES` (default: all).
    families : list of str, optional
        Keys of :data:`FAMILIES` (default: all).
    sizes : list of int, optional
        Board sides ``n`` for every family chosen (default: each family's own sizes).
    boards : int
        Random boards per size (the all-lit family has one board per size).
    time_limit : float
        Seconds per board for every strategy whose backend takes a time limit
        (gauss and bfs have none: they refuse what they cannot do quickly).
    budget : float
        Seconds for the whole study; once spent, the remaining runs are skipped and
        :attr:`StrategyStudy.budget_note` says how many.
    progress : callable(done, total, run), optional
        Called after each run (skipped ones included).
    plan : list of (family, n, Game, index, board), optional
        The boards to run instead of drawing them (an exported suite's,
        :func:`flipgame.study.suite.suite_plan`); ``families``, ``sizes`` and ``boards`` then come from it.

    Returns
    -------
    StrategyStudy
        A run is flagged when its witness fails :func:`flipgame.verify.checks.witness.check_solution`,
        or its answer differs from gauss's (when gauss answers the board), or, without
        gauss, from the answer most strategies gave.

    Notes
    -----
    Sizes run in the order given; after a time-out at ``n x n`` with nullity ``k`` a
    strategy skips the family's later boards with at least ``n`` on a side and nullity
    at least ``k`` (measured: search strategies slow down with both; a larger board of
    lower nullity is still run).  Runs are sequential, so the
    timings are comparable; the wall time of each run is taken around the gate call
    (model building included).
    """
    strategies = list(strategies or STRATEGIES)
    if plan is None:
        families = list(families or FAMILIES)
        per_family = {f: list(sizes or FAMILIES[f].sizes) for f in families}
        plan = _plan(families, per_family, boards, np.random.default_rng(seed))
    else:
        families = list(dict.fromkeys(f for f, *_ in plan))
        per_family = {f: sorted({n for g, n, *_ in plan if g == f}) for f in families}
    out = StrategyStudy(strategies, families, per_family, boards, time_limit, budget, seed)
    total = len(plan) * len(strategies)
    start = time.perf_counter()
    done = 0
    timed_out: dict[tuple[str, str], list[tuple[int, int]]] = {}  # (family, strategy) -> [(n, nullity)]
    over_budget = 0
    for f, n, game, i, board in plan:
        k = _nullity(game)
        sols = {}
        for name in strategies:
            s = STRATEGIES[name]
            run = Run(f, n, k, i, name, "skipped")
            if time.perf_counter() - start >= budget:
                run.note = "over budget"
                over_budget += 1
            elif beaten := _beaten_note(timed_out.get((f, name), []), n, k):
                run.note = beaten
            elif _execute(run, s, game, board, time_limit):
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
        out.budget_note = (f"Budget of {budget:g} s spent: {over_budget} of {total} runs skipped "
                           f"(raise --budget, or choose fewer --strategies / --families / --sizes).")
    return out


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
    """Why a strategy skips an ``n x n`` board of nullity ``k`` after its time-outs ``[(n, nullity)]``,
    or None to run it."""
    beaten = [(n0, k0) for n0, k0 in timeouts if n >= n0 and (k or 0) >= k0]
    if not beaten:
        return None
    n0, k0 = beaten[0]
    return f"timed out at {n0}x{n0} (nullity {k0}); this board is no smaller, its nullity no lower"


def _execute(run: Run, strategy, game: PressSystem, board: int, time_limit: float) -> bool:
    """Run ``strategy`` on ``board`` and fill in ``run`` (status, moves, seconds, note, witness flag);
    True when the answer is definite (optimal or impossible), so it takes part in the cross-check."""
    refused = strategy.refusal(game)
    if refused:
        run.status, run.note = "refused", refused
        return False
    t0 = time.perf_counter()
    try:
        sol = solve_strategy(strategy, board, game, time_limit)
    except RefusedError as exc:
        run.status, run.note = "refused", str(exc)
        return False
    except Exception as exc:  # noqa: BLE001 - a faulty strategy is data, not a crash
        run.status, run.note = "ERROR", f"{type(exc).__name__}: {exc}"
        return False
    run.seconds = time.perf_counter() - t0
    run.status = sol.status.name
    run.moves = sol.moves
    if sol.status is Status.UNKNOWN:
        run.note = f"no proof within {time_limit:g} s"
        return False
    if sol.status is Status.ERROR:
        run.note = str(sol.stats.get("error", ""))
        return False
    problem = check_solution(game, board, sol)
    if problem:
        run.flag = f"witness rejected: {problem}"
    return True


def _gauss_answer(game: PressSystem, board: int, runs: dict[str, Run]) -> str | None:
    """gauss's answer: its run's unless flagged, computed here if gauss was not run; None if it refuses."""
    if "gauss" in runs:
        return None if runs["gauss"].flag else runs["gauss"].answer()
    try:
        return solve(board, "gauss", game=game).answer()
    except RefusedError:
        return None


def _cross_check(game: PressSystem, board: int, runs: dict[str, Run]) -> None:
    """Flag the definite answers that differ from gauss's (computed here if gauss was not run), or, when
    gauss does not answer (nullity over its limit), from the answer most strategies gave."""
    reference, source = _gauss_answer(game, board, runs), "gauss"
    if reference is None:
        answers = [r.answer() for r in runs.values() if not r.flag]
        if not answers:
            return
        values, counts = np.unique(answers, return_counts=True)
        if (counts == counts.max()).sum() > 1:
            for r in runs.values():
                if not r.flag:
                    r.flag = f"strategies disagree ({', '.join(sorted(set(answers)))}) and gauss does not answer"
            return
        reference, source = str(values[counts.argmax()]), "most strategies"
    for r in runs.values():
        if not r.flag and r.answer() != reference:
            r.flag = f"disagrees with {source} ({reference})"

"""``auto``: a portfolio that picks a strategy per board from the rules, the nullity and the board.

Policy (from the measured crossover, ``flipgame study --strategies``; docs/results.md "Which strategy when"):

1. **gauss** whenever the algebra takes the rules (dense elimination up to
   2500 x 2500 cells x buttons, any neighbourhood and wrap; light chasing for the plus
   neighbourhood without wrap, any size) and the nullity ``k`` is at most
   ``max_nullity`` (by default: at most 32, 2**32 null-space combinations in
   :data:`flipgame.backends.gauss.NULLITY_32_SECONDS`, or above that, up to 48,
   when the enumeration's estimate at :data:`flipgame.algebra.coset_run.RATE` fits the
   time limit: for the rules, or, per board, using the board's symmetries, which
   divide the work by up to 8).  It is the fastest strategy on every family
   measured, and its time does not depend on the board.
2. **gauss** also above that when the board is Impossible: the elimination
   decides solvability at any nullity without enumerating.
3. **bfs** for such a board when the distance table over all 2**n boards costs at most
   :data:`~flipgame.core.limits.AUTO_BFS_MAX_WORK` (few cells, however many buttons: 10 cells
   with 5,000 buttons in 0.2 s, where the searches ran past their time limit).
4. **sat-xor** (CryptoMiniSat with native XOR clauses) otherwise: a solvable
   board at a nullity over that, or rules the algebra does not take
   (e.g. a king or toroidal board over 50x50).  It is the fastest search
   strategy measured (18x18 unique-solution boards in 0.1-0.2 s, where CP-SAT
   found nothing in 20 s), within ``time_limit``.
5. **ilp-scip** when sat refuses the board (its model over ``memory_limit``).

Beyond two states: **gauss** over Z_k when its coset enumeration fits its budget
(:data:`flipgame.algebra.zk.MAX_ENUMERATED`), else **cpsat**, then **ilp-scip**;
counters (integer programs) go to **cpsat**, then **ilp-scip**.

A time-out is Unknown, never a number.  ``Solution.stats`` names the
strategy that answered (``strategy``) and why it was chosen (``why``), besides
that strategy's own statistics (``flipgame solve --stats`` prints them).

Running time: the plan costs the elimination (cached per rule set: O(n^3/w),
or O(side * n) by light chasing), then the chosen strategy's time.

>>> from flipgame import solve
>>> from flipgame import Game
>>> s = solve(Game(19, 19).full, "auto", game=Game(19, 19, "white"))
>>> (s.moves, s.stats["strategy"])
(141, 'gauss')
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from flipgame.algebra import band_layout, coset_run, minweight, zk
from flipgame.algebra import gf2 as algebra
from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, Backend, Option, default_time_limit
from flipgame.backends.gauss import NULLITY_32_SECONDS
from flipgame.backends.result import BatchSolution, Solution
from flipgame.backends.strategies import BUILTIN
from flipgame.core.errors import BoardTooLargeError, RefusedError
from flipgame.core.limits import AUTO_BFS_MAX_WORK, BFS_MAX_CELLS, DEFAULT_MAX_NULLITY
from flipgame.model.system import PressSystem

SEARCH_ORDER = ("sat-xor", "ilp-scip")
"""Search strategies tried, in order, when gauss does not answer: the first one that takes the board runs."""
COUNTS_SEARCH_ORDER = ("cpsat", "ilp-scip")
"""The same beyond two states and for counters (sat models two states only)."""


@dataclass(frozen=True)
class Plan:
    """What ``auto`` does with one rule set.

    Attributes
    ----------
    strategy : str
        A key of :data:`flipgame.backends.strategies.BUILTIN`.
    why : str
        One sentence: the rule, size and nullity that decided it.
    nullity : int or None
        Nullity of the press matrix, when the algebra takes the rules.
    impossible_first : bool
        True when gauss should first decide solvability (nullity over ``max_nullity``): an
        Impossible board is then answered by gauss, a solvable one by ``strategy``.
    """

    strategy: str
    why: str
    nullity: int | None = None
    impossible_first: bool = False


def _search(game: PressSystem, options: dict, why: str) -> tuple[str, str]:
    """The first search strategy (:data:`SEARCH_ORDER`, or :data:`COUNTS_SEARCH_ORDER` beyond two states)
    that takes ``game``; raises RefusedError if none."""
    reasons = []
    for name in SEARCH_ORDER if game.binary else COUNTS_SEARCH_ORDER:
        refused = BUILTIN[name].refusal(game, memory_limit=options.get("memory_limit", MEMORY_LIMIT.default))
        if refused is None:
            skipped = "".join(f"; {r}" for r in reasons)
            return name, f"{why}{skipped}: {name} (search, time limit {_limit(game, options)})"
        reasons.append(refused)
    raise BoardTooLargeError(f"auto: no strategy takes {game.size}: {why}; " + "; ".join(reasons))


def _limit(game: PressSystem, options: dict) -> str:
    t = options.get("time_limit")
    return f"{t:g} s" if t is not None else f"{default_time_limit(game):g} s by default"


def _fits(game: PressSystem, k: int, options: dict, seconds: float, symmetries: int = 1) -> str | None:
    """Why gauss takes nullity ``k`` within the time limit (the enumeration estimated at ``seconds``), or
    None: ``max_nullity`` given, over :data:`~flipgame.algebra.minweight.MAX_NULLITY`, or too slow."""
    limit = options.get("time_limit") or default_time_limit(game)
    if options.get("max_nullity") is not None or k > minweight.MAX_NULLITY or seconds > limit:
        return None
    using = f" using {symmetries} symmetries of the board" if symmetries > 1 else ""
    return (f"gauss enumerates 2**{k} null-space combinations{using} in {coset_run.describe(seconds)} (at "
            f"{coset_run.RATE:.2g} a second), within the time limit {_limit(game, options)}")


def plan(game: PressSystem, options: dict | None = None) -> Plan:
    """The strategy ``auto`` uses for ``game`` (goal normalised), with the reason.

    Raises
    ------
    RefusedError
        No strategy takes the rules.

    >>> from flipgame import Game
    >>> plan(Game(39, 39, "white")).strategy
    'gauss'
    >>> p = plan(Game(39, 39, "white"), {"max_nullity": 20})
    >>> (p.strategy, p.impossible_first)
    ('sat-xor', True)
    >>> plan(Game(60, 60, "white", neighbourhood="king")).strategy  # the banded elimination, nullity 0
    'gauss'
    """
    options = options or {}
    if not game.binary:
        return _plan_counts(game, options)
    max_k = options.get("max_nullity")
    refused = BUILTIN["gauss"].refusal(game)
    if refused is None and algebra.method_for(game) == "band":
        refused = band_layout.band_refusal(game)  # the band read from the buttons: auto is about to solve
    if refused is None:
        k = algebra.nullity(game)
        method = algebra.method_for(game)
        how = {"chase": "light chasing", "band": "banded elimination"}.get(method, "dense elimination")
        if k <= (DEFAULT_MAX_NULLITY if max_k is None else max_k):
            return Plan("gauss", f"the algebra takes {game.size} ({how}) and nullity {k} <= max_nullity "
                                 f"{DEFAULT_MAX_NULLITY if max_k is None else max_k}: gauss enumerates 2**{k} "
                                 f"null-space combinations", k)
        fits = _fits(game, k, options, coset_run.seconds_for(1 << k))
        if fits:
            return Plan("gauss", f"the algebra takes {game.size} ({how}); nullity {k}: {fits}", k)
        over = (f"nullity {k} > max_nullity {max_k} (2**{k} combinations; --max-nullity {k} would force gauss)"
                if max_k is not None else
                f"nullity {k} > {DEFAULT_MAX_NULLITY} and 2**{k} combinations take "
                f"{coset_run.describe(coset_run.seconds_for(1 << k))}, over the time limit ({_limit(game, options)}), "
                f"unless the board's symmetries cut that down")
        name, why = _table_or_search(game, options, f"{over}; gauss decides Impossible boards, a solvable one "
                                                    f"goes to")
        return Plan(name, why, k, impossible_first=True)
    name, why = _table_or_search(game, options, f"the algebra does not take {game.size} ({refused})")
    return Plan(name, why)


def _table_or_search(game: PressSystem, options: dict, why: str) -> tuple[str, str]:
    """bfs when its distance table fits :data:`AUTO_BFS_MAX_WORK` (few cells, however many buttons), else
    :func:`_search`."""
    masks = len(set(game.press_masks) - {0}) if game.n <= BFS_MAX_CELLS else 0  # masks of a million cells: 62 GB
    if game.n <= BFS_MAX_CELLS and masks << game.n <= AUTO_BFS_MAX_WORK:
        return "bfs", (f"{why}: bfs (a distance table over 2**{game.n} boards and {masks} distinct buttons, "
                       f"within auto's table budget of 2**{AUTO_BFS_MAX_WORK.bit_length() - 1})")
    return _search(game, options, why)


_SLOW_DIAGONALS: dict[tuple[PressSystem, float], str] = {}
"""(system, seconds) whose diagonal form was not done within the seconds: every board of a batch plans, and each
would wait as long again (the finished forms are cached by :func:`flipgame.algebra.zk.diagonal_of`; at most 64
kept)."""


def _diagonal_within(game: PressSystem, seconds: float) -> tuple[zk.Diagonal | None, str]:
    """The Z_k diagonal form of ``game`` if done within ``seconds`` (cached), else None and why."""
    if (game, seconds) in _SLOW_DIAGONALS:
        return None, _SLOW_DIAGONALS[game, seconds]
    try:
        return zk.quick_diagonal(game, time.perf_counter() + seconds), ""
    except BoardTooLargeError as exc:
        return None, str(exc)
    except TimeoutError:
        if len(_SLOW_DIAGONALS) >= 64:
            _SLOW_DIAGONALS.clear()
        why = f"the diagonal form over Z_{game.states} was not done within {seconds:g} s"
        _SLOW_DIAGONALS[game, seconds] = why
        return None, why


def _plan_counts(game: PressSystem, options: dict) -> Plan:
    """The plan beyond two states: gauss over Z_k when its coset fits the enumeration budget, else search."""
    if game.states is None:
        why = f"{game.kind} are integer programs"
    elif (refused := BUILTIN["gauss"].refusal(game)) is not None:
        why = refused
    else:
        diag, why = _diagonal_within(game, options.get("time_limit") or default_time_limit(game))
        if diag is not None and diag.kernel_size * game.m <= zk.MAX_ENUMERATED:
            return Plan("gauss", f"Z_{game.states}: the diagonal form takes {game.size} and the coset has "
                                 f"{diag.kernel_text} press vectors: gauss enumerates them", diag.nullity)
        if diag is not None:
            why = f"the Z_{game.states} coset has {diag.kernel_text} press vectors, over gauss's budget"
    name, why = _search(game, options, why)
    return Plan(name, why)


class Auto(Backend):
    """The portfolio backend; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "auto").stats["strategy"]
    'gauss'
    """

    name = "auto"
    takes = frozenset({"two", "mod k", "counters"})
    summary = ("portfolio: gauss where the algebra takes the rules and the nullity is at most max_nullity "
               "(or the board is Impossible), else sat-xor, else ilp-scip; stats say which and why")
    options = (
        TIME_LIMIT,
        Option("max_nullity", int, None,
               f"gauss enumerates at most 2**N solutions of a solvable board (default: up to {DEFAULT_MAX_NULLITY}, "
               f"about {NULLITY_32_SECONDS:.0f} s, and above as far as the time limit allows, up to "
               f"{minweight.MAX_NULLITY}); above, auto hands a solvable board to sat", minimum=0),
        MEMORY_LIMIT,
    )

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        """None when a strategy takes ``game``.  Beyond two states, gauss taking the rules is enough (which of
        gauss or a search answers is the plan's choice when solving): the plan's diagonal form takes seconds."""
        if game.states is not None and not game.binary and BUILTIN["gauss"].refusal(game) is None:
            return None
        try:
            plan(game, options)
        except RefusedError as exc:
            return str(exc)
        return None

    def _run(self, name: str, game: PressSystem, board: int, options: dict) -> Solution:
        """Board ``board`` by strategy ``name``, passing on those of auto's options its backend declares."""
        s = BUILTIN[name]
        return s.run(game, board, **s.declared(options))

    @staticmethod
    def _board_plan(game: PressSystem, board: int, p: Plan, options: dict) -> tuple[str, str] | None:
        """gauss and why, for a board over the rules' nullity limit that it still takes: Impossible, or
        symmetric enough that its enumeration fits the time limit; else None."""
        parts, quiet, _ = algebra.solution_cosets(game, board)
        if not parts:
            return "gauss", (f"nullity {p.nullity} is over what auto enumerates, but the elimination shows the "
                             f"board is Impossible (no enumeration needed): gauss")
        fits = p.nullity <= minweight.MAX_NULLITY and \
            _fits(game, p.nullity, options, *coset_run.estimate(game, board, parts, quiet))
        return ("gauss", f"nullity {p.nullity}, a symmetric board: {fits}") if fits else None

    def solve(self, game: PressSystem, board: int, *, time_limit: float | None = None,
              max_nullity: int | None = None, memory_limit: float = MEMORY_LIMIT.default,
              canonical: bool = False) -> Solution:
        """One board by the planned strategy; ``stats["strategy"]`` and ``stats["why"]`` say which and why.

        Returns the strategy's Solution relabelled ``auto`` (OPTIMAL, INFEASIBLE, or UNKNOWN at the time limit).

        Raises
        ------
        RefusedError
            No strategy takes the board.
        """
        start = time.perf_counter()
        options = {"time_limit": time_limit, "max_nullity": max_nullity, "memory_limit": memory_limit,
                   "canonical": canonical}
        p = plan(game, options)
        name, why = p.strategy, p.why
        if p.impossible_first and game.binary:
            name, why = self._board_plan(game, board, p, options) or (name, why)
        if name == "gauss" and game.binary and p.nullity is not None:  # an Impossible board needs no enumeration
            options["max_nullity"] = min(max(p.nullity, max_nullity or 0), minweight.MAX_NULLITY)
        limit = time_limit or default_time_limit(game)  # the plan's time counts: the strategy gets what is left
        options["time_limit"] = max(limit - (time.perf_counter() - start), limit / 1000)
        s = self._run(name, game, board, options)
        stats = {**s.stats, "strategy": name, "why": why}
        if p.nullity is not None:
            stats.setdefault("nullity", p.nullity)
        return dataclasses.replace(s, backend=self.name, seconds=time.perf_counter() - start, stats=stats)

    def solve_batch(self, game: PressSystem, boards: np.ndarray, **options) -> BatchSolution:
        """Many boards (uint64, shape (k,)): one vectorised gauss batch when the plan is gauss, else per board."""
        opts = {"time_limit": None, "max_nullity": None, "memory_limit": MEMORY_LIMIT.default,
                "canonical": False, **options}
        p = plan(game, opts)
        if p.strategy != "gauss":
            out = super().solve_batch(game, boards, **opts)
            return out.with_time(out.seconds, why=p.why)
        gauss = BUILTIN["gauss"]
        if game.binary:
            opts["max_nullity"] = min(max(p.nullity or 0, opts["max_nullity"] or 0), minweight.MAX_NULLITY)
        gopts = gauss.method.accept(game, gauss.call_options(**gauss.declared(opts)))
        out = gauss.method.solve_batch(game, np.asarray(boards, dtype=np.uint64 if game.binary else np.int64), **gopts)
        return dataclasses.replace(out, backend=self.name).with_time(out.seconds, strategy="gauss", why=p.why)


__all__ = ["SEARCH_ORDER", "Auto", "Plan", "plan"]

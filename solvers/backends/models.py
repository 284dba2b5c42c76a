"""The base of the solver backends that build one model per rule set and solve many boards on it:
:class:`Model` (two states: press sets as bitmasks), :class:`CountsModel` (k states and counters: press
counts), :class:`ModelBackend`, and the refinement to the canonical witness.

A model backend (cpsat, sat, ilp and their strategies) supplies a :class:`Model` subclass with two
methods, ``_minimise(board)`` and ``_solve_fixed(fixed, weight)``; the base times each board, refines to
the canonical witness, recomputes the goal board reached with the board model, honours Ctrl-C while the
solver runs (:func:`~flipgame.backends.base.interruptible`), and frees the solver's native memory when the
model is closed (``with backend.open(game) as m: ...``).
"""

from __future__ import annotations

import dataclasses
import gc
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import numpy as np

from flipgame.backends.base import Backend, default_time_limit, interruptible
from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.errors import BoardTooLargeError, MemoryBudgetError, RulesError
from flipgame.core.limits import MEMORY_LIMIT_GIB
from flipgame.core.text import mib
from flipgame.model.system import PressSystem


def refine_lexicographic(n: int, presses: int, solve_fixed) -> int:
    """The lexicographically smallest minimum-weight press set (POJ 3279's rule).

    ``presses`` is one minimum-weight solution; ``solve_fixed(fixed)`` must return a
    minimum-weight solution (same weight) agreeing with ``fixed`` (cell -> 0/1), or
    None.  Cells are decided in reading order, preferring 0: a cell already 0 in
    the current solution needs no call, so at most ``weight`` solver calls are made
    per 1 met, O(n) calls in all.
    """
    fixed: dict[int, int] = {}
    for i in range(n):
        fixed[i] = 0
        if presses >> i & 1:
            other = solve_fixed(fixed)
            if other is None:
                fixed[i] = 1
            else:
                presses = other
    return presses


def canonical_solution(backend: str, game: PressSystem, board: int, presses: int, solve_fixed, start: float,
                       stats: Mapping[str, object] | None = None) -> Solution:
    """OPTIMAL with the lexicographically smallest minimum press set, found from the
    minimum ``presses`` by :func:`refine_lexicographic`; UNKNOWN if
    ``solve_fixed`` raises TimeoutError.  The goal board reached is recomputed by the
    board model.  ``start``: ``time.perf_counter()`` when the solve began.
    """
    try:
        presses = refine_lexicographic(game.m, presses, solve_fixed)
    except TimeoutError:
        return Solution(backend, Status.UNKNOWN, seconds=time.perf_counter() - start, stats=stats or {})
    return Solution(backend, Status.OPTIMAL, presses.bit_count(), presses, game.apply(board, presses),
                    time.perf_counter() - start, stats or {})


class Model:
    """The model of one game in one solver, re-used across boards; a context manager.

    Subclasses build the model in ``__init__(game, **options)`` and implement:

    ``_minimise(board) -> (status, presses or None, stats)``
        A proven minimum-weight press set (status OPTIMAL), INFEASIBLE, or
        UNKNOWN at the time limit.
    ``_solve_fixed(fixed, weight) -> presses or None``
        For the canonical witness: a press set of ``weight`` presses agreeing
        with ``fixed`` (cell -> 0/1) for the board of the last ``_minimise``, or
        None if there is none; raise TimeoutError at the time limit.
    ``_stop()`` (optional)
        Ask a running search to stop (Ctrl-C).
    ``close()``
        Free the solver's native memory.

    Small boards (at most :data:`THREAD_MIN_CELLS` cells) are solved in the
    calling thread: they finish in milliseconds, and a thread per board would
    cost more than the solve.
    """

    backend: ClassVar[str]
    THREAD_MIN_CELLS: ClassVar[int] = 64
    _build_seconds: float = 0.0  # seconds building took, until the first board spends them (set by open)

    def __init__(self, game: PressSystem, **options):
        if game.goal not in ("any", "white", "black"):
            raise RulesError(f"a model takes the goals any, white and black; goal {game.goal!r} is normalised "
                             f"by the gate: call flipgame.solve or flipgame.solve_batch")
        self.game = game
        self._board = 0  # the board whose bits the model's rows hold (built for the all-white board)

    def __enter__(self) -> Model:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Free native memory; the model cannot be used afterwards."""

    def _stop(self) -> None:
        """Ask a running search to stop; the default cannot."""

    def _changed_cells(self, board: int) -> Iterator[int]:
        """The cells whose bit differs between ``board`` and the board the rows hold, which
        becomes ``board``: a model rewrites only those rows between boards."""
        changed, self._board = board ^ self._board, board
        while changed:
            i = changed.bit_length() - 1
            changed ^= 1 << i
            yield i

    def _board_seconds(self, limit: float) -> float:
        """Seconds the board being solved may take: ``limit``, less the seconds building the model took
        on the first board after :meth:`ModelBackend.open` (the time limit counts model building)."""
        spent, self._build_seconds = self._build_seconds, 0.0
        return max(limit - spent, limit / 1000)  # a build past the limit leaves the board a thousandth of it

    def _run(self, call: Callable[[], Any]) -> Any:
        if self.game.n <= self.THREAD_MIN_CELLS:
            return call()
        return interruptible(call, self._stop)

    def _minimise(self, board: int) -> tuple[Status, int | None, dict]:
        raise NotImplementedError

    def _solve_fixed(self, fixed: dict[int, int], weight: int) -> int | None:
        raise NotImplementedError

    def solve(self, board: int, canonical: bool = False) -> Solution:
        """One board (bitmask of this game's cells): time it, refine it, and name the goal reached.

        The goal board reached is recomputed by the board model, not read
        from the solver.
        """
        start = time.perf_counter()
        status, presses, stats = self._run(lambda: self._minimise(board))
        if status is not Status.OPTIMAL:
            return Solution(self.backend, status, seconds=time.perf_counter() - start, stats=stats)
        if canonical:
            weight = presses.bit_count()
            return canonical_solution(self.backend, self.game, board, presses,
                                      lambda fixed: self._run(lambda: self._solve_fixed(fixed, weight)),
                                      start, stats)
        return Solution(self.backend, Status.OPTIMAL, presses.bit_count(), presses,
                        self.game.apply(board, presses), time.perf_counter() - start, stats)


class CountsModel(Model):
    """The model of a press system beyond two states (k >= 3 states, or counters), re-used across boards.

    Subclasses build it in ``__init__(system, **options)`` and implement ``_minimise(board) ->
    (status, counts or None, stats)`` for a board given as a tuple of n states; the base times the
    board, recomputes the goal board reached with the model's own :meth:`PressSystem.apply`, and
    runs the solver where Ctrl-C and the wall-clock limit reach it (as :class:`Model`).  The goal
    is the system's own (no normalisation), and there is no canonical refinement.
    """

    def __init__(self, system: PressSystem, **options):
        self.game = self.system = system

    def solve(self, board, canonical: bool = False) -> Solution:
        start = time.perf_counter()
        status, counts, stats = self._run(lambda: self._minimise(board))
        seconds = time.perf_counter() - start
        if status is not Status.OPTIMAL:
            return Solution(self.backend, status, seconds=seconds, stats=stats)
        return Solution(self.backend, status, sum(counts), counts, self.system.apply(board, counts), seconds, stats)


class ModelBackend(Backend):
    """Base of the backends that build a :class:`Model` once per rule set.

    Subclasses set :attr:`model` (the Model subclass of two-state systems), optionally
    :attr:`counts_model` (the :class:`CountsModel` of k-state systems and counters), and may
    override :meth:`estimate_bytes` (the model's memory, estimated before building it).
    """

    parallel = True
    model: ClassVar[type[Model]]
    counts_model: ClassVar[type[CountsModel] | None] = None
    SUMMED_STATS: ClassVar[tuple[str, ...]] = ("conflicts", "nodes", "branches")

    def estimate_bytes(self, game: PressSystem, options: dict) -> int:
        """Estimated peak memory of the model for ``game``, in bytes; 0 = not estimated."""
        return 0

    @property
    def takes(self) -> frozenset[str]:  # type: ignore[override]
        return frozenset({"two", "mod k", "counters"}) if self.counts_model else frozenset({"two"})

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        why = super().refusal(game, options)
        if why:
            return why
        need, budget = self.estimate_bytes(game, options), options.get("memory_limit", MEMORY_LIMIT_GIB) * 2**30
        if need > budget:
            return (f"{self.name}: the model of {game.size} needs about {mib(need)}, over the "
                    f"{mib(budget)} budget (--memory-limit, in GiB)")
        return None

    def refusal_error(self, game: PressSystem, options: dict) -> type[Exception]:
        return BoardTooLargeError if not self.supports(game) else MemoryBudgetError

    def model_class(self, options: dict) -> type[Model]:
        """The :class:`Model` subclass that builds the model for ``options`` (default :attr:`model`)."""
        return self.model

    def open(self, game: PressSystem, **options) -> Model:
        """The model of ``game`` (use as a context manager); ``options`` as validated by the gate."""
        options = {k: v for k, v in options.items() if k not in ("canonical", "memory_limit")}
        if "time_limit" in options and options["time_limit"] is None:
            options["time_limit"] = default_time_limit(game)
        if not game.binary:
            options = {k: v for k, v in options.items() if k in ("time_limit", "solver", "workers", "params")}
            return self.counts_model(game, **options)
        start = time.perf_counter()
        model = self.model_class(options)(game, **options)
        model._build_seconds = time.perf_counter() - start
        return model

    def solve(self, game: PressSystem, board: int, **options) -> Solution:
        """One board on a model built for it; ``stats["build_seconds"]``: the seconds building took."""
        start = time.perf_counter()
        with self.open(game, **options) as m:
            built = time.perf_counter() - start
            s = self.solve_on(m, board, canonical=options.get("canonical", False))
        return dataclasses.replace(s, stats={**s.stats, "build_seconds": built})

    def solve_on(self, model: Model, board: int, *, canonical: bool = False) -> Solution:
        """One board on an open model (e.g. a :class:`flipgame.Session`'s), as :meth:`solve` answers it."""
        return model.solve(board, canonical)

    def solve_batch(self, game: PressSystem, boards: np.ndarray, **options) -> BatchSolution:
        start = time.perf_counter()
        with self.open(game, **options) as m:
            return self.solve_batch_on(m, boards, canonical=options.get("canonical", False), start=start)

    def solve_batch_on(self, model: Model, boards: np.ndarray, *, canonical: bool = False,
                       start: float | None = None) -> BatchSolution:
        """Many boards on an open model, as :meth:`solve_batch` answers them; ``start``: when timing began."""
        start = time.perf_counter() if start is None else start
        boards = np.asarray(boards, dtype=np.uint64 if model.game.binary else np.int64)
        board_of = int if boards.ndim == 1 else lambda row: tuple(int(v) for v in row)
        collecting = gc.isenabled()
        gc.disable()  # each board's objects die by reference count; a profile put 2.6% in the collector
        try:
            solutions = [model.solve(board_of(b), canonical) for b in boards]
        finally:
            if collecting:
                gc.enable()
        out = BatchSolution.from_solutions(self.name, boards, solutions, time.perf_counter() - start, model.game.m)
        summed = {k: sum(s.stats.get(k, 0) for s in solutions) for k in self.SUMMED_STATS
                  if any(k in s.stats for s in solutions)}
        return out.with_time(out.seconds, **summed)


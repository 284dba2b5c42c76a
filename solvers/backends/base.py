"""What every backend is: :class:`Backend`, its declared :class:`Option` s, and
:class:`ModelBackend` / :class:`Model`, the base of the solver backends that
build one model per rule set and solve many boards on it.

A backend is called only through the gate (:func:`flipgame.solve`,
:func:`flipgame.solve_batch`), which validates the board, the rules and the
options once, normalises an explicit goal board to all white on
``board ^ target``, and asks :meth:`Backend.refusal` before anything is built.
So a backend sees only rules whose goal is ``any``, ``white`` or ``black``, and
options already checked against its declarations.

A model backend (cpsat, sat, ilp and their strategies) supplies a
:class:`Model` subclass with two methods, ``_minimise(board)`` and
``_solve_fixed(fixed, weight)``; the base times each board, refines to the
canonical witness, recomputes the goal board reached with the board model,
honours Ctrl-C while the solver runs, and frees the solver's native memory
when the model is closed (``with backend.model(game) as m: ...``).

>>> from flipgame import BACKENDS
>>> [o.name for o in BACKENDS["cpsat"].options][:2]
['time_limit', 'workers']
"""

from __future__ import annotations

import dataclasses
import gc
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.errors import BoardTooLargeError, MemoryBudgetError, OptionError, RulesError
from flipgame.core.limits import MEMORY_LIMIT_GIB, TIME_LIMIT_DEFAULT_SECONDS, TIME_LIMIT_MAX_SECONDS
from flipgame.model.system import PressSystem


@dataclass(frozen=True)
class Option:
    """One keyword option of a backend, declared once: the gate validates it, the CLI
    builds its flag from it and docs/cli.md lists it.

    Attributes
    ----------
    name : str
        Keyword, e.g. ``time_limit``.
    parse : callable(str) -> value
        Turns command-line text into a value (``float``, ``int``, ``str``).
    default : object
        Used when the option is not given.
    help : str
        One line for ``--help``.
    choices : tuple, optional
        The only values allowed (compared case-sensitively after ``parse``).
    minimum : float, optional
        Smallest allowed value (exclusive when ``positive``).
    maximum : float, optional
        Largest allowed value (what the solver or the machine can take).
    positive : bool
        Values must be > ``minimum`` (e.g. seconds > 0).
    flag : str or None
        Command-line flag; default ``--name-with-dashes``; ``""`` = no flag
        (set by another CLI option, e.g. ``canonical``).
    """

    name: str
    parse: Callable[[str], Any]
    default: Any
    help: str
    choices: tuple | None = None
    minimum: float | None = None
    positive: bool = False
    flag: str | None = None
    maximum: float | None = None

    @property
    def cli_flag(self) -> str:
        return ("--" + self.name.replace("_", "-")) if self.flag is None else self.flag

    def validate(self, backend: str, value: Any) -> Any:
        """``value`` checked (and parsed, if a string); raises :class:`OptionError` naming the option."""
        name = f"{backend} option {self.name}" + (f" ({self.cli_flag})" if self.cli_flag else "")
        value = self._typed(name, value)
        if self.choices is not None:
            if self.parse is str and isinstance(value, str):
                match = [c for c in self.choices if c.lower() == value.lower()]
                value = match[0] if match else value
            if value not in self.choices:
                raise OptionError(f"{name}: {value!r} is not one of "
                                  f"{', '.join(map(str, self.choices))}")
        if self.minimum is not None and value is not None:
            ok = value > self.minimum if self.positive else value >= self.minimum
            if not ok or value != value or value == float("inf"):
                sign = ">" if self.positive else ">="
                raise OptionError(f"{name} must be finite and {sign} {self.minimum}, got {value}")
        if self.maximum is not None and value is not None and value > self.maximum:
            raise OptionError(f"{name} must be at most {self.maximum:,.10g}, got {value}")
        return value

    def _typed(self, name: str, value: Any) -> Any:
        """``value`` of this option's type: a number parsed from text; text and booleans as themselves
        (``bool("False")`` is True, and a number as a command made ``shlex.split`` raise AttributeError)."""
        if self.parse in (str, bool) and value is not None and not isinstance(value, self.parse):
            raise OptionError(f"{name}: expected {'text' if self.parse is str else 'True or False'}, got {value!r:.40}")
        if isinstance(value, str) and self.parse is not str:
            try:
                value = self.parse(value)
            except ValueError:
                raise OptionError(f"{name}: cannot read {value!r:.40}") from None
        if self.parse in (int, float) and value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float))):
            raise OptionError(f"{name}: expected a number, got {value!r:.40}")
        return value


KIND_WORDS = {"two": "two states", "mod k": "k states (Z_k)", "counters": "counters (integer programs)"}
"""How a refusal names each kind of press system (:attr:`Backend.takes`)."""


def kind_of(system: PressSystem) -> str:
    """``two``, ``mod k`` or ``counters``: the kind of press system, as :attr:`Backend.takes` names it."""
    return "two" if system.binary else "counters" if system.states is None else "mod k"


CANONICAL = Option("canonical", bool, False, "among minimum press sets, the lexicographically smallest "
                   "read row by row (POJ 3279)", flag="")
TIME_LIMIT = Option("time_limit", float, TIME_LIMIT_DEFAULT_SECONDS,
                    f"seconds per board, model building included (default {TIME_LIMIT_DEFAULT_SECONDS:g}); a "
                    f"time-out answers Unknown, never a number",
                    minimum=0, positive=True, maximum=TIME_LIMIT_MAX_SECONDS)


def default_time_limit(game: PressSystem) -> float:
    """Seconds per board when none is given: :data:`~flipgame.core.limits.TIME_LIMIT_DEFAULT_SECONDS`."""
    return TIME_LIMIT_DEFAULT_SECONDS
MEMORY_LIMIT = Option("memory_limit", float, MEMORY_LIMIT_GIB, "GiB a model may take; a larger one is refused before "
                      "it is built", minimum=0, positive=True, maximum=1e6)


def no_canonical(backend: str, options: dict) -> dict:
    """``options``, or OptionError if they ask for the canonical press set (a backend that gives one minimum)."""
    if options.get("canonical"):
        raise OptionError(f"{backend}: the canonical press set is not offered (it gives one minimum press set)")
    return options


class Backend:
    """A solver backend: a name, declared options, and ``solve`` / ``solve_batch``.

    Subclasses set the class attributes and implement :meth:`solve`; they may
    override :meth:`solve_batch` (default: :meth:`solve` per board) and
    :meth:`refusal` (default: the :attr:`max_cells` check).

    Attributes
    ----------
    name : str
        Registry key, e.g. ``gauss``.
    summary : str
        One line for ``--help`` and docs/cli.md.
    parallel : bool
        True if a batch gains from being spread over worker processes
        (per-board solver calls); False if one vectorised call is faster.
    max_cells : int or None
        Largest board, in cells, the backend takes; None = no fixed limit.
    options : tuple of Option
        Keyword options besides ``canonical``, which every backend takes.
    by_default : bool
        Run by ``verify`` and ``bench`` when no list is given (False for the
        external programs, MaxSAT and PB: opt-in, named with ``--backends`` or a strategy).
    takes : frozenset of str
        The kinds of press system the backend models: ``two`` (two states, bitmasks), ``mod k``
        (k >= 3 states) and ``counters``; another kind is refused before anything is built.
    """

    name: ClassVar[str]
    by_default: ClassVar[bool] = True
    summary: ClassVar[str]
    parallel: ClassVar[bool] = False
    max_cells: ClassVar[int | None] = None
    options: ClassVar[tuple[Option, ...]] = ()
    takes: ClassVar[frozenset[str]] = frozenset({"two"})

    def __repr__(self) -> str:
        return f"<backend {self.name}>"

    @property
    def all_options(self) -> tuple[Option, ...]:
        return (*self.options, CANONICAL)

    def supports(self, game: PressSystem) -> bool:
        """False if the game is larger than :attr:`max_cells`."""
        return self.max_cells is None or game.n <= self.max_cells

    def check_options(self, options: dict) -> dict:
        """Every option validated, defaults filled in.

        Raises
        ------
        OptionError
            An option this backend does not declare (the message lists those it has), or a bad value.
        """
        declared = {o.name: o for o in self.all_options}
        unknown = sorted(set(options) - set(declared))
        if unknown:
            raise OptionError(f"backend {self.name!r} has no option {', '.join(unknown)} "
                              f"(its options: {', '.join(declared)})")
        return {name: o.validate(self.name, options[name]) if name in options else o.default
                for name, o in declared.items()}

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        """Why the backend declines ``game`` before building anything, or None: a kind of system it
        does not model (:attr:`takes`), or more cells than :attr:`max_cells`.  O(1) here."""
        kind = kind_of(game)
        if kind not in self.takes:
            what = " and ".join(KIND_WORDS[k] for k in ("two", "mod k", "counters") if k in self.takes)
            have = f"{game.states} states (Z_{game.states})" if kind == "mod k" else KIND_WORDS[kind]
            return f"{self.name} models {what} only, not {have}"
        if not self.supports(game):
            return f"{self.name} allows at most {self.max_cells} cells; {game.size} has {game.n}"
        return None

    def refusal_error(self, game: PressSystem, options: dict) -> type[Exception]:
        """The :class:`~flipgame.core.errors.RefusedError` subclass matching :meth:`refusal`."""
        return BoardTooLargeError

    def accept(self, game: PressSystem, options: dict) -> dict:
        """``options`` checked (defaults filled in) once the backend takes ``game``, whose goal is
        ``any``, ``white`` or ``black``.  O(1) plus :meth:`refusal`.

        Raises
        ------
        OptionError
            See :meth:`check_options`.
        RefusedError
            The :meth:`refusal_error` subclass, with :meth:`refusal`'s reason.
        """
        options = self.check_options(options)
        why = self.refusal(game, options)
        if why:
            raise self.refusal_error(game, options)(why)
        return options

    def solve(self, game: PressSystem, board: int, **options) -> Solution:
        """One board; ``game`` normalised and ``options`` validated by the gate."""
        raise NotImplementedError

    def solve_batch(self, game: PressSystem, boards: np.ndarray, **options) -> BatchSolution:
        """Many boards of one game: :meth:`solve` per board unless the backend does better."""
        start = time.perf_counter()
        boards = np.asarray(boards)
        board_of = int if boards.ndim == 1 else lambda row: tuple(int(v) for v in row)
        solutions = [self.solve(game, board_of(b), **options) for b in boards]
        return BatchSolution.from_solutions(self.name, boards, solutions, time.perf_counter() - start, game.m)


def interruptible(call: Callable[[], Any], stop: Callable[[], None], *, seconds: float | None = None,
                  grace: float = 2.0, keep_sigint: bool = False) -> Any:
    """Run a native solver call in a daemon thread that can be abandoned, so that Ctrl-C (or a
    wall-clock limit) stops the command at once instead of at the end of the search.

    Parameters
    ----------
    call : callable() -> value
        The solver call (the solvers release the GIL while they search).
    stop : callable()
        Asked on Ctrl-C and at the limit: tell the solver to stop, or drop it.
    seconds : float, optional
        Wall-clock seconds after which the call is abandoned: ``stop()``, then TimeoutError (the
        thread ends on its own).
    grace : float
        Seconds to wait for the thread after ``stop()`` on Ctrl-C (0 for a solver that cannot stop).
    keep_sigint : bool
        Put Python's SIGINT handler back while waiting (CryptoMiniSat installs its own as it solves).

    Returns the call's value or raises its exception; KeyboardInterrupt on Ctrl-C.
    """
    box: list = []

    def run() -> None:
        try:
            box.append((True, call()))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box.append((False, exc))

    worker = threading.Thread(target=run, daemon=True, name="flipgame-solver")
    deadline = None if seconds is None else time.perf_counter() + seconds
    main = keep_sigint and threading.current_thread() is threading.main_thread()
    handler = signal.getsignal(signal.SIGINT) if main else None
    worker.start()
    try:
        _wait(worker, deadline, handler)
    except KeyboardInterrupt:
        stop()
        worker.join(grace)
        raise
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
    if worker.is_alive():
        stop()
        raise TimeoutError
    ok, value = box[0]
    if not ok:
        raise value
    return value


def _wait(worker: threading.Thread, deadline: float | None, handler) -> None:
    """Join ``worker`` until it ends or ``deadline`` (perf_counter seconds) passes, re-installing
    the SIGINT ``handler`` (if any) between short joins."""
    while worker.is_alive():
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            return
        worker.join(0.2 if left is None and handler is None else min(0.05, max(left or 0.05, 0.001)))
        if handler is not None:
            signal.signal(signal.SIGINT, handler)


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
            return (f"{self.name}: the model of {game.size} needs about {need / 2**20:,.0f} MiB, over the "
                    f"{budget / 2**20:,.0f} MiB budget (--memory-limit, in GiB)")
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
            options = {k: v for k, v in options.items() if k in ("time_limit", "solver", "workers")}
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


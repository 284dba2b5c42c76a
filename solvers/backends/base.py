"""What every backend is: :class:`Backend` and its declared :class:`Option` s, and
:func:`interruptible`, a solver call that Ctrl-C and the wall clock stop.  The
backends that build one model per rule set and solve many boards on it derive
from :class:`~flipgame.backends.models.ModelBackend`.

A backend is called only through the gate (:func:`flipgame.solve`,
:func:`flipgame.solve_batch`), which validates the board, the rules and the
options once, normalises an explicit goal board to all white on
``board ^ target``, and asks :meth:`Backend.refusal` before anything is built.
So a backend sees only rules whose goal is ``any``, ``white`` or ``black``, and
options already checked against its declarations.

>>> from flipgame import BACKENDS
>>> [o.name for o in BACKENDS["cpsat"].options][:2]
['time_limit', 'workers']
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from flipgame.backends.result import BatchSolution, Solution
from flipgame.core import extras
from flipgame.core.errors import BoardTooLargeError, KindNotTakenError, OptionError
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
    fuzz : tuple or bool
        The values ``flipgame fuzz`` may draw for this option (True: every one of ``choices``; empty: never
        varied).  Only settings that leave the question unchanged: a different search, the same minimum.
    fuzz_many : bool
        Draw a subset of ``fuzz`` and join it with spaces (solver parameters), not one value.
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
    fuzz: tuple | bool = ()
    fuzz_many: bool = False

    @property
    def fuzz_values(self) -> tuple:
        """The values the fuzzer draws from (see ``fuzz``)."""
        return tuple(self.choices or ()) if self.fuzz is True else tuple(self.fuzz or ())

    @property
    def cli_flag(self) -> str:
        return ("--" + self.name.replace("_", "-")) if self.flag is None else self.flag

    def validate(self, backend: str, value: Any) -> Any:
        """``value`` checked (and parsed, if a string; None is the default); raises :class:`OptionError` naming
        the option."""
        name = f"{backend} option {self.name}" + (f" ({self.cli_flag})" if self.cli_flag else "")
        if value is None:  # as in Python's own APIs: None is "not given"
            return self.default
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
        if self.parse is int and isinstance(value, float):
            raise OptionError(f"{name}: expected a whole number, got {value!r:.40}")
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
    default_max_cells : int or None
        With ``by_default``, the largest board ``verify`` runs it on without being named (bfs:
        :data:`~flipgame.core.limits.BFS_DEFAULT_MAX_CELLS`); None = up to ``max_cells``.
    takes : frozenset of str
        The kinds of press system the backend models: ``two`` (two states, bitmasks), ``mod k``
        (k >= 3 states) and ``counters``; another kind is refused before anything is built.
    needs : tuple of str
        Optional libraries (:mod:`flipgame.core.extras`) the backend always needs; without one it refuses,
        naming the extra that brings it (see :meth:`missing_library`).
    """

    name: ClassVar[str]
    by_default: ClassVar[bool] = True
    summary: ClassVar[str]
    parallel: ClassVar[bool] = False
    max_cells: ClassVar[int | None] = None
    default_max_cells: ClassVar[int | None] = None
    options: ClassVar[tuple[Option, ...]] = ()
    takes: ClassVar[frozenset[str]] = frozenset({"two"})
    needs: ClassVar[tuple[str, ...]] = ()

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

    def missing_library(self, options: dict) -> str | None:
        """The optional library the backend needs with ``options`` and does not find installed, or None.
        Default: the first of :attr:`needs` missing.  O(1) after the first look-up."""
        return next((m for m in self.needs if not extras.installed(m)), None)

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        """Why the backend declines ``game`` before building anything, or None: a library it needs is not
        installed (:meth:`missing_library`), a kind of system it does not model (:attr:`takes`), or more cells
        than :attr:`max_cells`.  O(1) here."""
        if (library := self.missing_library(options)) is not None:
            return extras.missing(library, f"backend {self.name}")
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
            raise self.error_class(game, options)(why)
        return options

    def error_class(self, game: PressSystem, options: dict) -> type[Exception]:
        """The class of :meth:`refusal`'s error: a missing library, a kind of system not modelled, or the
        backend's own (:meth:`refusal_error`)."""
        if self.missing_library(options) is not None:
            return extras.ExtraMissingError
        if kind_of(game) not in self.takes:
            return KindNotTakenError
        return self.refusal_error(game, options)

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

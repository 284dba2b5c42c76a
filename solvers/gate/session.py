"""The gate: :func:`solve`, :func:`solve_batch` and :class:`Session` are the one way into a backend.

They read the board (a :class:`~flipgame.model.grid.Board`, rows of text, or a
bitmask with its :class:`~flipgame.model.grid.Game`), validate the rules and the
backend's options once, ask the backend whether it takes the board
(:class:`~flipgame.core.errors.RefusedError` if not, before anything is built,
naming the registered backends that do take it), normalise an explicit goal
board to all white on ``board ^ target`` so that backends only ever see the
goals ``any``, ``white`` and ``black``, and attach an Impossible board's
certificates.

This module also registers the built-in backends in
:data:`flipgame.gate.registry.BACKENDS`.  Heavy solver libraries (OR-Tools,
python-sat, pycryptosat) are imported inside their backend's model only.

>>> s = solve(["bwwb", "bbwb", "bwwb", "bwww"])
>>> s
Solution(backend='gauss', status=OPTIMAL, moves=4, presses=417, target=0, ...)
>>> solve(["wbbb", "wwww", "wwww", "wwww"], "bfs").answer()
'Impossible'
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from flipgame.algebra.gf2 import certificates
from flipgame.algebra.zk import certificates as zk_certificates
from flipgame.backends import auto, bfs, cpsat, external, gauss, ilp, maxsat, mip, pb, sat
from flipgame.backends.base import Backend
from flipgame.backends.models import ModelBackend
from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.backends.strategies import STRATEGIES, Strategy
from flipgame.core.errors import BoardTooLargeError, OptionError, RefusedError, RulesError, UnknownBackendError
from flipgame.core.limits import COUNTER_MAX
from flipgame.gate.registry import get_backend, register, taken_by
from flipgame.model.grid import Board, Game
from flipgame.model.system import PressSystem

for _b in (gauss.Gauss(), bfs.Bfs(), cpsat.CpSat(), sat.Sat(), ilp.Ilp(), auto.Auto(), external.External(),
           maxsat.MaxSat(), pb.Pb(), mip.Mip()):
    register(_b)


def _board_and_game(board, game: PressSystem | None):
    """The board in ``game``'s board form and the game (the board's shape when ``game`` is None)."""
    if game is not None and not game.binary:
        return game.board_of(board), game
    if isinstance(board, str):
        board = board.split()
    if isinstance(board, (list, tuple)):
        board = Board.from_rows(board)
    if isinstance(board, Board):
        game = game or Game(board.rows, board.cols)
        if (game.rows, game.cols) != (board.rows, board.cols):
            raise RulesError(f"board is {board.rows}x{board.cols} but the game is {game.size}")
        return board.cells, game
    if isinstance(board, (int, np.integer)) and not isinstance(board, bool):
        if game is None:
            raise RulesError("a board given as a bitmask needs game=Game(rows, cols, ...) for its shape")
        board = int(board)
        if not 0 <= board <= game.full:
            raise RulesError(f"board {board} is not a {game.size} bitmask (0..{game.full})")
        return board, game
    if game is not None and isinstance(board, (list, tuple, np.ndarray)):
        return game.board_of(board), game
    raise RulesError(f"expected a Board, rows of 'b'/'w' text or an int bitmask, got {type(board).__name__}")


def prepare(game: PressSystem, backend: str | Backend, options: dict) -> tuple[Backend, PressSystem, dict]:
    """Validate once: the backend, its options and whether it takes ``game``.

    Returns ``(backend, normalised game, options with defaults)``; the
    normalised game has goal ``any``, ``white`` or ``black`` (an explicit goal
    board becomes ``white``, to be solved from ``board ^ target``).

    Raises
    ------
    UnknownBackendError, OptionError, RefusedError
    """
    b = backend if isinstance(backend, Backend) else get_backend(backend)
    options = b.check_options(options)
    return b, _normal_taken(b, game, options), options


def _normal_taken(b: Backend, game: PressSystem, options: dict) -> PressSystem:
    """The normalised ``game``, once ``b`` takes it with ``options`` (already checked); else the
    RefusedError subclass of ``b``, whose message names the registered backends that take it."""
    if options.get("canonical") and not game.binary:
        raise OptionError(f"the canonical press set is for two-state games; {game.size} is {game.kind}")
    normal = game.normal
    why = b.refusal(normal, options)
    if why:
        raise _hinted(b.refusal_error(normal, options), why, normal, b.name)
    return normal


def _hinted(error: type[RefusedError], why: str, normal: PressSystem, name: str) -> RefusedError:
    """``error(why)`` with the hint of the registered backends that take ``normal`` (for a refusal about the
    board), computed by asking each of them."""
    if not error.about_the_board:
        return error(why)
    others = taken_by(normal, skip=name)
    return error(why + (f"; taken by: {', '.join(others)}" if others else "; no registered backend takes it"))


def solve(board, backend: str = "gauss", *, game: PressSystem | None = None, **options) -> Solution:
    """Minimum presses for one board, by the named backend, through the gate.

    Parameters
    ----------
    board : Board, sequence of str, str or int
        A :class:`Board`; its rows (``["bwwb", ...]`` or ``"bwwb\\nbbwb..."``);
        or an int bitmask (cell (r, c) = bit ``r*cols + c``) with ``game``.
    backend : str
        A key of :data:`BACKENDS`.
    game : Game, optional
        The rules; default: the board's shape, goal "any colour".
    **options
        The backend's declared options (``BACKENDS[name].options``), e.g.
        ``time_limit=5.0``, and ``canonical=True`` for every backend.

    Returns
    -------
    Solution
        An INFEASIBLE answer carries ``certificates`` (goal board -> cells)
        when the dense elimination or light chasing takes the board (quiet patterns above 2500 cells).

    Raises
    ------
    RulesError
        A board that does not fit the rules, or bad rules.
    UnknownBackendError, OptionError
        Naming the valid backends or options.
    RefusedError
        The backend declines the board (size, nullity, memory); the message
        names what does take it.

    >>> solve("bbw bww www", "sat", game=Game(3, 3, "white")).moves
    1
    """
    cells, game = _board_and_game(board, game)
    b, normal, options = prepare(game, backend, options)
    return _solve_one(b, game, normal, cells, options)


def solve_strategy(strategy: str | Strategy, board, game: PressSystem, time_limit: float | None = None,
                   **extra) -> Solution:
    """One board by a named strategy (:data:`flipgame.backends.strategies.STRATEGIES`), through the gate:
    :func:`solve` with the strategy's backend and options, ``time_limit`` if that backend takes one.

    >>> solve_strategy("sat-xor-binary", 11, Game(3, 3, "white")).moves
    1
    """
    s = strategy if isinstance(strategy, Strategy) else STRATEGIES.get(strategy) if isinstance(strategy, str) else None
    if s is None:
        raise UnknownBackendError(f"unknown strategy {strategy!r:.40}; valid strategies: {', '.join(STRATEGIES)}")
    return solve(board, s.backend, game=game, **s.call_options(time_limit, **extra))


def _solve_one(b: Backend, game: PressSystem, normal: PressSystem, cells: int, options: dict, model=None) -> Solution:
    """The gate's one-board path after validation: goal-board normalisation, the backend
    (on ``model`` when a session holds one open), the goal restored, certificates attached."""
    shift = game.binary and game.goal == "board"
    board = cells ^ game.target if shift else cells
    try:
        s = b.solve(normal, board, **options) if model is None else b.solve_on(model, board,
                                                                                canonical=options["canonical"])
    except RefusedError as exc:  # a refusal of this board (gauss's nullity, bfs's counter box): with the hint
        if "taken by:" in str(exc) or "takes it" in str(exc):
            raise
        raise _hinted(type(exc), str(exc), normal, b.name) from None
    if s.success and shift:
        s = dataclasses.replace(s, target=game.target)
    return _with_certificates(game, cells, s)


def _with_certificates(game: PressSystem, cells, s: Solution) -> Solution:
    """``s`` with an Impossible board's certificates attached: two states at any size the algebra
    takes (the dense elimination, or light chasing's quiet patterns on larger plus boards); Z_k
    from the diagonal form.  Counters have none (their Impossible is the backend's word)."""
    if s.status is Status.INFEASIBLE and game.states is not None:
        with contextlib.suppress(BoardTooLargeError):
            certs = certificates(game, cells) if game.binary else zk_certificates(game, cells)
            s = dataclasses.replace(s, certificates=certs)
    return s


def solve_batch(boards: Sequence[int] | np.ndarray, game: PressSystem, backend: str = "gauss",
                **options) -> BatchSolution:
    """Many boards of one game (at most 64 cells) through the gate; see :func:`solve`.

    Parameters
    ----------
    boards : array_like of uint64, shape (k,)
        Bitmasks, each at most ``game.full``.

    Returns
    -------
    BatchSolution
        Targets are the goal boards of ``game`` (an explicit goal board included).

    >>> solve_batch([0, 1, 14], Game(4, 4), "gauss").moves.tolist()
    [0, -1, -1]
    """
    boards = _batch_boards(boards, game)
    b, normal, options = prepare(game, backend, options)
    return _solve_many(b, game, normal, boards, options)


def _batch_boards(boards, game: PressSystem) -> np.ndarray:
    """``boards`` as uint64 bitmasks of a two-state ``game`` (at most 64 cells), or int64 rows of
    states shape (b, n) of another; raises RulesError naming what does not fit."""
    if not game.binary:
        return state_rows(boards, game)
    if game.n > 64:
        raise RulesError(f"batches hold boards of at most 64 cells in uint64; {game.size} has {game.n}: "
                         f"use solve() per board")
    values = _integers(boards, f"boards of {game.size} are integer bitmasks")
    if values.ndim != 1:
        raise RulesError(f"boards must be a one-dimensional array of bitmasks, got shape {values.shape}")
    bad = _out_of_range(values, game.full + 1)
    if bad is not None:
        raise RulesError(f"board {bad} is not a {game.size} bitmask (0..{game.full})")
    return values.astype(np.uint64)


def state_rows(boards, game: PressSystem) -> np.ndarray:
    """Rows of states (int64, shape (b, n)) of a k-state or counter ``game``; RulesError if they do not fit."""
    rows = _integers(boards, f"boards of {game.size} are rows of {game.n} integer states")
    if rows.ndim != 2 or rows.shape[1] != game.n:
        raise RulesError(f"boards of {game.size} are an array of shape (b, {game.n}), got {rows.shape}")
    top = game.states if game.states else COUNTER_MAX + 1
    bad = _out_of_range(rows, top)
    if bad is not None:
        raise RulesError(f"a board cell is {bad}, not a state 0..{top - 1}")
    return rows.astype(np.int64)


DTYPE_WORDS = {"f": "floats", "c": "complex numbers", "b": "booleans", "U": "text", "S": "bytes"}
"""How a batch error names an array's kind of values (numpy's ``dtype.kind``)."""


def _integers(values, what: str) -> np.ndarray:
    """``values`` as an array of integers (an integer dtype, or Python ints in an object array), never
    parsed from text nor cut from a float (1.5 is not read as 1).  Raises RulesError(``what``, and the
    kind of value found)."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise RulesError(f"{what}: {exc}") from None
    if arr.dtype.kind in "iu":
        return arr
    if not arr.size:
        return arr.astype(np.int64)
    if arr.dtype.kind == "O":
        bad = [v for v in arr.flat if not isinstance(v, (int, np.integer)) or isinstance(v, bool)][:1]
        if not bad:
            return arr
        raise RulesError(f"{what}, got {type(bad[0]).__name__} {str(bad[0])[:20]!r}")
    raise RulesError(f"{what}, got {DTYPE_WORDS.get(arr.dtype.kind, 'values')} ({arr.dtype})")


def _out_of_range(values: np.ndarray, top: int) -> int | None:
    """A value of ``values`` (an integer or object array) outside ``0..top-1``, or None.  O(size)."""
    if not values.size:
        return None
    low, high = values.min(), values.max()
    if low < 0:
        return int(low)
    return int(high) if high >= top else None


def _solve_many(b: Backend, game: PressSystem, normal: PressSystem, boards: np.ndarray, options: dict,
                model=None) -> BatchSolution:
    """The gate's batch path after validation; see :func:`_solve_one`."""
    def run(boards: np.ndarray) -> BatchSolution:
        if model is None:
            return b.solve_batch(normal, boards, **options)
        return b.solve_batch_on(model, boards, canonical=options["canonical"])

    if game.goal != "board" or not game.binary:
        return run(boards)
    out = run(boards ^ np.uint64(game.target))
    solved = out.status == Status.OPTIMAL
    return dataclasses.replace(out, boards=boards,
                               target=np.where(solved, np.uint64(game.target), np.uint64(0)))


class _Slot:
    """One open model of a :class:`Session`: the lock that serialises its solves, the model (built on
    first use, under the lock) and how many threads are using or waiting for it (never evicted then)."""

    __slots__ = ("lock", "model", "users")

    def __init__(self):
        self.lock, self.model, self.users = threading.Lock(), None, 0


class Session:
    """Many solves by one backend with one set of options, through the gate.

    The options are validated once, when the session starts; whether the
    backend takes a rule set is asked once per distinct :class:`Game`; a model
    backend (cpsat, sat, ilp) keeps one open :class:`~flipgame.backends.models.Model`
    per distinct normalised game, so a stream of same-size boards builds one
    model instead of one per board.  Validation, goal-board normalisation and
    certificates are those of :func:`solve` and :func:`solve_batch` (the same
    code), and so are the answers.  Models are closed by :meth:`close`, at the
    end of a ``with`` block.

    Threads: a session may be shared by threads.  Each open model has a lock,
    so solves on one model run one at a time (a native solver's model is
    changed by every board, and OR-Tools and CryptoMiniSat abort or crash when
    two threads use one model at once), while solves on models of different
    games, and every solve of a backend without a model (gauss, bfs), run side
    by side.  A model in use is never closed by the least-recently-used
    eviction; :meth:`close` waits for the solves running on each model.  For
    parallel solves of one game, give each thread its own session.

    Parameters
    ----------
    backend : str or Backend
        A key of :data:`BACKENDS`.
    max_models : int
        Open models kept at most; past it the least recently used idle one is closed
        (each may hold up to ``memory_limit`` GiB).
    **options
        The backend's declared options, as for :func:`solve`.

    Raises
    ------
    UnknownBackendError, OptionError
        At construction, naming the valid backends or options.

    >>> with Session("sat") as session:
    ...     [session.solve(b, game=Game(3, 3, "white")).moves for b in (0, 3, 11)]
    ...     session.models_built
    [0, 5, 1]
    1
    """

    def __init__(self, backend: str | Backend = "gauss", *, max_models: int = 8, **options):
        self.backend = backend if isinstance(backend, Backend) else get_backend(backend)
        self.options = self.backend.check_options(options)
        if not isinstance(max_models, int) or isinstance(max_models, bool) or max_models < 1:
            raise OptionError(f"max_models must be a positive integer, got {max_models!r:.40}")
        self.max_models = max_models
        self._taken: dict[PressSystem, PressSystem] = {}
        self._models: OrderedDict[PressSystem, _Slot] = OrderedDict()
        self._lock = threading.Lock()  # guards _models, the slots' users and models_built
        self.models_built = 0
        """Models built so far (at most one per distinct normalised game while it stays open)."""

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Session {self.backend.name}: {len(self._models)} open model(s)>"

    def close(self) -> None:
        """Close every open model (frees the solvers' native memory), each once the solve running on it
        has finished; the session stays usable."""
        with self._lock:
            slots = list(self._models.values())
            self._models.clear()
        for slot in slots:
            with slot.lock:
                _close(slot)

    def prepare(self, game: PressSystem) -> PressSystem:
        """The normalised ``game``, once the backend takes it; cached per game.  O(1) after the first call.

        Raises
        ------
        RefusedError
            The backend declines ``game``; the message names what takes it.
        """
        normal = self._taken.get(game)
        if normal is None:
            normal = self._taken[game] = _normal_taken(self.backend, game, self.options)
        return normal

    def _checkout(self, normal: PressSystem) -> _Slot | None:
        """The slot of ``normal``'s model, counted as in use (None for a backend without models); the
        caller takes its lock in its own frame and gives it back with :meth:`_checkin`.

        Not a generator context manager: a Ctrl-C raised between its ``yield`` under the lock and the
        caller's ``with`` (in contextlib's ``__enter__``) left the lock held by a suspended generator,
        and :meth:`close` then waited on it for good (a sat stream hung in 2 of 185 Ctrl-Cs).  A ``with
        lock:`` in the caller's frame always releases it."""
        if not isinstance(self.backend, ModelBackend):
            return None
        with self._lock:
            slot = self._models.get(normal)
            if slot is None:
                slot = self._models[normal] = _Slot()
            self._models.move_to_end(normal)
            slot.users += 1
        return slot

    def _open(self, slot: _Slot | None, normal: PressSystem):
        """The open model of ``slot`` (built on first use; the caller holds its lock), or None."""
        if slot is None:
            return None
        if slot.model is None:
            slot.model = self.backend.open(normal, **self.options)
            with self._lock:
                self.models_built += 1
        return slot.model

    def _on_model(self, normal: PressSystem, run):
        """``run(model)`` on the open model of ``normal`` (None for a backend without models), under its lock."""
        slot = self._checkout(normal)
        try:
            with slot.lock if slot is not None else contextlib.nullcontext():
                return run(self._open(slot, normal))
        finally:
            self._checkin(slot)

    def _checkin(self, slot: _Slot | None) -> None:
        """``slot`` is no longer used by the caller: idle models past :attr:`max_models` are closed."""
        if slot is None:
            return
        with self._lock:
            slot.users -= 1
            idle = self._evict()
        for old in idle:
            _close(old)

    def _evict(self) -> list[_Slot]:
        """The least recently used idle slots past :attr:`max_models`, taken out of the session (the
        caller holds the session lock, and closes them after releasing it)."""
        out = []
        for key in list(self._models):
            if len(self._models) <= self.max_models:
                break
            if self._models[key].users == 0:
                out.append(self._models.pop(key))
        return out

    def solve(self, board, *, game: PressSystem | None = None) -> Solution:
        """One board, as :func:`solve` with this session's backend and options (same arguments, errors)."""
        cells, game = _board_and_game(board, game)
        normal = self.prepare(game)
        return self._on_model(normal, lambda model: _solve_one(self.backend, game, normal, cells, self.options, model))

    def solve_batch(self, boards: Sequence[int] | np.ndarray, game: PressSystem) -> BatchSolution:
        """Many boards of one game (at most 64 cells), as :func:`solve_batch`."""
        boards = _batch_boards(boards, game)
        normal = self.prepare(game)
        return self._on_model(normal,
                              lambda model: _solve_many(self.backend, game, normal, boards, self.options, model))

    def solution(self, batch: BatchSolution, i: int, game: PressSystem) -> Solution:
        """Board ``i`` of ``batch`` (from :meth:`solve_batch` on ``game``) as :func:`solve` returns it:
        an Impossible board carries its certificates.  Per-board ``seconds`` and ``stats`` are not
        kept by a batch (0 and empty).  O(n^2 / w) for an Impossible board, O(1) otherwise."""
        return _with_certificates(game, int(batch.boards[i]), batch[i])


def _close(slot: _Slot) -> None:
    """Close the model of ``slot``, if it was built (the caller holds its lock or it is idle)."""
    if slot.model is not None:
        slot.model.close()
        slot.model = None

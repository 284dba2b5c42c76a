"""flipgame: the Flip Game (POJ 1753) and Lights Out, solved by cross-checked backends.

The gate.  :func:`solve` and :func:`solve_batch` are the one way into a
backend: they read the board (a :class:`Board`, rows of text, or a bitmask
with its :class:`Game`), validate the rules and the backend's options once,
ask the backend whether it takes the board (:class:`RefusedError` if not,
before anything is built), normalise an explicit goal board to all white on
``board ^ target`` so that backends only ever see the goals ``any``,
``white`` and ``black``, and attach an Impossible board's certificates.

The registries.  :data:`BACKENDS` maps a backend name to its
:class:`~solvers.backend.Backend`; the CLI's ``--backend`` choices and flags,
the verification harness, the study and the tests all read it.  Adding a
backend is one module with a :class:`~solvers.backend.Backend` subclass and
one :func:`register` call.  Heavy solver libraries (OR-Tools, python-sat,
pycryptosat) are imported inside their backend's model only.

>>> s = solve(["bwwb", "bbwb", "bwwb", "bwww"])
>>> s
Solution(backend='gauss', status=OPTIMAL, moves=4, presses=417, target=0, ...)
>>> solve(["wbbb", "wwww", "wwww", "wwww"], "bfs").answer()
'Impossible'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from . import bfs, cpsat, gauss, ilp, sat
from .backend import Backend, ModelBackend, Option
from .board import GOALS, Board, Game, format_cells, read_cases
from .errors import (
    BoardFormatError,
    BoardTooLargeError,
    FlipgameError,
    MemoryBudgetError,
    NullityTooLargeError,
    OptionError,
    RefusedError,
    RulesError,
    UnknownBackendError,
)
from .result import BatchSolution, Solution, Status

__all__ = [
    "BACKENDS", "GOALS", "Backend", "BatchSolution", "Board", "BoardFormatError", "BoardTooLargeError",
    "FlipgameError", "Game", "MemoryBudgetError", "ModelBackend", "NullityTooLargeError", "Option",
    "OptionError", "RefusedError", "RulesError", "Solution", "Status", "UnknownBackendError", "format_cells",
    "get_backend", "prepare", "read_cases", "register", "solve", "solve_batch",
]

BACKENDS: dict[str, Backend] = {}
"""Backend name -> backend, in the order the CLI lists them."""


def register(backend: Backend) -> Backend:
    """Add ``backend`` to :data:`BACKENDS` under its name (replacing one of that name)."""
    BACKENDS[backend.name] = backend
    return backend


for _b in (gauss.Gauss(), bfs.Bfs(), cpsat.CpSat(), sat.Sat(), ilp.Ilp()):
    register(_b)


def get_backend(name: str) -> Backend:
    """The registry entry for ``name``.

    Raises
    ------
    UnknownBackendError
        Naming every valid backend.
    """
    try:
        return BACKENDS[name]
    except KeyError:
        raise UnknownBackendError(f"unknown backend {name!r}; valid backends: {', '.join(BACKENDS)}") from None


def _board_and_game(board, game: Game | None) -> tuple[int, Game]:
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
    raise RulesError(f"expected a Board, rows of 'b'/'w' text or an int bitmask, got {type(board).__name__}")


def prepare(game: Game, backend: str | Backend, options: dict) -> tuple[Backend, Game, dict]:
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
    normal = game if game.goal != "board" else dataclasses.replace(game, goal="white", target=None)
    why = b.refusal(normal, options)
    if why:
        raise b.refusal_error(normal, options)(why)
    return b, normal, options


def solve(board, backend: str = "gauss", *, game: Game | None = None, **options) -> Solution:
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
        when the dense elimination takes the board (at most 2500 cells).

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
    target = game.target if game.goal == "board" else 0
    s = b.solve(normal, cells ^ target, **options)
    if s.success and game.goal == "board":
        s = dataclasses.replace(s, target=game.target)
    if s.status is Status.INFEASIBLE and game.n <= _dense_max():
        from .algebra import certificates

        s = dataclasses.replace(s, certificates=certificates(game, cells))
    return s


def _dense_max() -> int:
    from .algebra import DENSE_MAX_CELLS

    return DENSE_MAX_CELLS


def solve_batch(boards: Sequence[int] | np.ndarray, game: Game, backend: str = "gauss",
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
    if game.n > 64:
        raise RulesError(f"batches hold boards of at most 64 cells in uint64; {game.size} has {game.n}: "
                         f"use solve() per board")
    boards = np.asarray(boards, dtype=np.uint64)
    if len(boards) and int(boards.max()) > game.full:
        raise RulesError(f"board {int(boards.max())} is not a {game.size} bitmask (0..{game.full})")
    b, normal, options = prepare(game, backend, options)
    if game.goal != "board":
        return b.solve_batch(normal, boards, **options)
    out = b.solve_batch(normal, boards ^ np.uint64(game.target), **options)
    solved = out.status == Status.OPTIMAL
    return dataclasses.replace(out, boards=boards,
                               target=np.where(solved, np.uint64(game.target), np.uint64(0)))

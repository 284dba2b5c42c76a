"""flipgame: the Flip Game (POJ 1753) and Lights Out, solved by cross-checked backends.

The single registry :data:`BACKENDS` maps a backend name to its
:class:`Backend` entry; the CLI's ``--backend`` choices, the verification
harness and the tests all read it.  Every backend module has the signature
``solve(game, board, **options) -> Solution`` and a batch entry point
``solve_batch(game, boards, **options) -> BatchSolution``.

Heavy solver libraries (OR-Tools, python-sat) are imported inside their backend's model
code only, so ``import solvers`` and the ``gauss``/``bfs`` backends stay light.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from . import bfs, cpsat, gauss, ilp, sat
from .board import GOALS, Board, BoardFormatError, Game, format_cells, read_cases
from .result import BatchSolution, Solution, Status

__all__ = [
    "BACKENDS", "GOALS", "Backend", "BatchSolution", "Board", "BoardFormatError", "Game",
    "Solution", "Status", "UnknownBackendError", "format_cells", "get_backend", "read_cases", "solve",
]


class UnknownBackendError(KeyError):
    """A backend name that is not in :data:`BACKENDS`; the message lists the valid names."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


@dataclass(frozen=True)
class Backend:
    """A registry entry.

    Attributes
    ----------
    name : str
    module : module
        Provides ``solve(game, board, **options)`` and ``solve_batch(game, boards, **options)``.
    summary : str
        One line for ``--help`` and the README.
    parallel : bool
        True if a batch gains from being spread over worker processes
        (per-board solver calls); False if one vectorised call is faster.
    max_cells : int or None
        Largest board (in cells) the backend accepts; None = no fixed limit.
    """

    name: str
    module: ModuleType
    summary: str
    parallel: bool
    max_cells: int | None = None

    def supports(self, game: Game) -> bool:
        """False if the game is larger than :attr:`max_cells`."""
        return self.max_cells is None or game.n <= self.max_cells

    @property
    def options(self) -> tuple[str, ...]:
        """Names of the keyword options ``solve`` accepts (e.g. ``time_limit``)."""
        params = inspect.signature(self.module.solve).parameters.values()
        return tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)

    def solve(self, game: Game, board: int, **options) -> Solution:
        """``module.solve`` with options checked; an explicit goal board ``T`` is
        solved as the all-white goal from ``board ^ T`` (same presses)."""
        self._check_options(options)
        if game.goal != "board":
            return self.module.solve(game, board, **options)
        game.check_fits(board)
        s = self.module.solve(_as_white(game), board ^ game.target, **options)
        return dataclasses.replace(s, target=game.target if s.success else None)

    def solve_batch(self, game: Game, boards: np.ndarray, **options) -> BatchSolution:
        """``module.solve_batch`` with options checked (explicit goal boards as in :meth:`solve`)."""
        self._check_options(options)
        if game.goal != "board":
            return self.module.solve_batch(game, boards, **options)
        boards = np.asarray(boards, dtype=np.uint64)
        out = self.module.solve_batch(_as_white(game), boards ^ np.uint64(game.target), **options)
        solved = out.status == Status.OPTIMAL
        target = np.where(solved, np.uint64(game.target), np.uint64(0))
        return dataclasses.replace(out, boards=boards, target=target)

    def _check_options(self, options: dict) -> None:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            valid = ", ".join(self.options) or "none"
            raise TypeError(f"backend {self.name!r} has no option {', '.join(unknown)} (its options: {valid})")


MODEL_MAX_CELLS = 40_000
"""Largest board (200x200) the solver backends build a model for; beyond it the model
alone (and the totalizer's O(n^2) clauses for sat) outgrows the machine."""


def _as_white(game: Game) -> Game:
    return dataclasses.replace(game, goal="white", target=None)


BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("gauss", gauss, "GF(2) Gauss-Jordan elimination + null-space enumeration", parallel=False,
                max_cells=gauss.MAX_CELLS),
        Backend("bfs", bfs, "breadth-first distance table over all 2^n states", parallel=False,
                max_cells=bfs.MAX_CELLS),
        Backend("cpsat", cpsat, "OR-Tools CP-SAT: XOR constraints, minimise presses", parallel=True,
                max_cells=MODEL_MAX_CELLS),
        Backend("sat", sat, "python-sat: CNF parity + totalizer, incremental minimisation", parallel=True,
                max_cells=MODEL_MAX_CELLS),
        Backend("ilp", ilp, "OR-Tools MIP (SCIP/HiGHS): parity as sum = 2k + t", parallel=True,
                max_cells=MODEL_MAX_CELLS),
    )
}


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
        raise UnknownBackendError(
            f"unknown backend {name!r}; valid backends: {', '.join(BACKENDS)}"
        ) from None


def solve(board: Board, backend: str = "gauss", *, game: Game | None = None, **options) -> Solution:
    """Solve one :class:`Board` with the named backend.

    Parameters
    ----------
    board : Board
    backend : str
        A key of :data:`BACKENDS`.
    game : Game, optional
        The rules; default: the board's shape with the goal "any colour".
    **options
        Backend options (e.g. ``time_limit=5.0`` for cpsat).

    Raises
    ------
    UnknownBackendError, TypeError (unknown option), ValueError (shape mismatch).
    """
    game = game or Game(board.rows, board.cols)
    if (game.rows, game.cols) != (board.rows, board.cols):
        raise ValueError(f"board is {board.rows}x{board.cols} but the game is {game.size}")
    return get_backend(backend).solve(game, board.cells, **options)

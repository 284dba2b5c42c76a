"""flipgame: the Flip Game (POJ 1753) and Lights Out, solved by cross-checked backends.

This module only re-exports.  The layers, each importing only those before it:

* core: :mod:`~flipgame.board` (rules, boards, the plain simulation), :mod:`~flipgame.algebra`,
  :mod:`~flipgame.minweight`, :mod:`~flipgame.result`, :mod:`~flipgame.errors`, :mod:`~flipgame.limits`;
* backends: :mod:`~flipgame.backend` (the base classes), one module each (gauss, bfs, cpsat, sat,
  ilp), :mod:`~flipgame.registry` (the name -> backend table), :mod:`~flipgame.strategies`
  (named variants) and :mod:`~flipgame.auto` (the portfolio, which looks strategies up);
* :mod:`~flipgame.gate`: registers the built-in backends; :func:`solve`, :func:`solve_batch`,
  :class:`Session`;
* :mod:`flipgame.verify`, then :mod:`~flipgame.study`, :mod:`~flipgame.formats` and the CLI.

>>> solve(["bwwb", "bbwb", "bwwb", "bwww"]).moves
4
"""

from . import signals  # noqa: F401 - first: numpy starts its BLAS threads with Ctrl-C blocked
from .backend import Backend, ModelBackend, Option
from .board import GOALS, Board, Game, format_cells
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
from .formats import read_cases
from .gate import Session, prepare, solve, solve_batch, solve_strategy
from .registry import BACKENDS, get_backend, register
from .result import BatchSolution, Solution, Status

__all__ = [
    "BACKENDS", "GOALS", "Backend", "BatchSolution", "Board", "BoardFormatError", "BoardTooLargeError",
    "FlipgameError", "Game", "MemoryBudgetError", "ModelBackend", "NullityTooLargeError", "Option",
    "OptionError", "RefusedError", "RulesError", "Session", "Solution", "Status", "UnknownBackendError",
    "format_cells", "get_backend", "prepare", "read_cases", "register", "solve", "solve_batch",
    "solve_strategy",
]

"""flipgame: the Flip Game (POJ 1753) and Lights Out, solved by cross-checked backends.

This module only re-exports.  The layers are the subpackages, each importing only those before it:

* :mod:`flipgame.core` (errors, limits, signals, child processes) and :mod:`flipgame.model` (the press
  system and its generators: the grid, graphs, JSON; the plain simulation);
* :mod:`flipgame.algebra` (GF(2) and Z_k elimination, light chasing, minimum weight) and
  :mod:`flipgame.encode` (CNF/XOR encodings, exchange formats, parity proofs);
* :mod:`flipgame.backends` (the base classes, the one result type, one module per backend, strategies,
  the one registry);
* :mod:`flipgame.verify.checks` (the referee) and :mod:`flipgame.verify.proofs` (checked proofs);
* :mod:`flipgame.pipeline` (the path of every board: :func:`solve`, :func:`solve_batch`, :class:`Session`,
  batches, executors, the agreement policy), then :mod:`flipgame.verify.run` (the agreement run),
  :mod:`flipgame.formats`, :mod:`flipgame.study`, :mod:`flipgame.bench` and :mod:`flipgame.cli`.

>>> solve(["bwwb", "bbwb", "bwwb", "bwww"]).moves
4
"""

# isort: off
from flipgame.core import signals  # noqa: F401 - first: numpy starts its BLAS threads with Ctrl-C blocked
# isort: on
from flipgame.backends.base import Backend, Option
from flipgame.backends.models import ModelBackend
from flipgame.backends.registry import BACKENDS, STRATEGIES, get_backend, register
from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.errors import (
    BoardFormatError,
    BoardTooLargeError,
    FlipgameError,
    KindNotTakenError,
    MemoryBudgetError,
    NullityTooLargeError,
    OptionError,
    RefusedError,
    RulesError,
    UnknownBackendError,
)
from flipgame.formats.rows import read_cases
from flipgame.model.boards import BoardSet
from flipgame.model.grid import GOALS, Board, Game, format_cells
from flipgame.model.rules import from_edges, from_json, read_edge_list
from flipgame.model.system import PressSystem
from flipgame.pipeline.gate import prepare, solve, solve_batch, solve_strategy
from flipgame.pipeline.session import Session

__all__ = [
    "BACKENDS", "GOALS", "STRATEGIES", "Backend", "BatchSolution", "Board", "BoardFormatError", "BoardSet",
    "BoardTooLargeError", "FlipgameError", "Game", "KindNotTakenError", "MemoryBudgetError", "ModelBackend",
    "NullityTooLargeError", "Option", "OptionError", "PressSystem", "RefusedError", "RulesError", "Session",
    "Solution", "Status", "UnknownBackendError", "format_cells", "from_edges", "from_json", "get_backend", "prepare",
    "read_cases", "read_edge_list", "register", "solve", "solve_batch", "solve_strategy",
]

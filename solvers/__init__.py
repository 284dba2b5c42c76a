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
from flipgame.core import signals  # noqa: F401 - first: numpy, whoever loads it, starts its BLAS threads with Ctrl-C blocked
# isort: on
import importlib

_HOMES = {
    "flipgame.backends.base": ("Backend", "Option"),
    "flipgame.backends.models": ("ModelBackend",),
    "flipgame.backends.registry": ("BACKENDS", "STRATEGIES", "get_backend", "register"),
    "flipgame.backends.result": ("BatchSolution", "Solution", "Status"),
    "flipgame.core.errors": ("BoardFormatError", "BoardTooLargeError", "FlipgameError", "KindNotTakenError",
                             "MemoryBudgetError", "NullityTooLargeError", "OptionError", "RefusedError", "RulesError",
                             "UnknownBackendError"),
    "flipgame.formats.rows": ("read_cases",),
    "flipgame.model.boards": ("BoardSet",),
    "flipgame.model.grid": ("GOALS", "Board", "Game", "format_cells"),
    "flipgame.model.rules": ("from_edges", "from_json", "read_edge_list"),
    "flipgame.model.system": ("PressSystem",),
    "flipgame.pipeline.gate": ("prepare", "solve", "solve_batch", "solve_strategy"),
    "flipgame.pipeline.session": ("Session",),
}
"""Where each public name lives.  The names are imported when first used (PEP 562), so that a command importing
one module of the package (``flipgame solve``'s judge lane) does not load every backend and numpy with it."""
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str):
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'flipgame' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME_OF))


__all__ = sorted(_HOME_OF)  # the public names: one list, _HOMES

"""flipgame: the Flip Game (POJ 1753) and Lights Out, solved by cross-checked backends.

This module only re-exports.  The layers are the subpackages, each importing only those before it:

* :mod:`flipgame.core` (errors, limits, signals, child processes) and :mod:`flipgame.model` (the press
  system and its generators: the grid, graphs, JSON; the plain simulation);
* :mod:`flipgame.algebra` (GF(2) and Z_k elimination, light chasing, minimum weight) and
  :mod:`flipgame.encode` (CNF/XOR encodings, exchange formats, parity proofs);
* :mod:`flipgame.backends` (the base classes, the one result type, one module per backend, strategies);
* :mod:`flipgame.gate` (the registry; :func:`solve`, :func:`solve_batch`, :class:`Session`);
* :mod:`flipgame.verify` (checks, proofs, the agreement run), then :mod:`flipgame.formats`,
  :mod:`flipgame.study` and :mod:`flipgame.cli`.

>>> solve(["bwwb", "bbwb", "bwwb", "bwww"]).moves
4
"""

# isort: off
from flipgame.core import signals  # noqa: F401 - first: numpy starts its BLAS threads with Ctrl-C blocked
# isort: on

_HOMES = {
    "flipgame.backends.base": ("Backend", "ModelBackend", "Option"),
    "flipgame.backends.result": ("BatchSolution", "Solution", "Status"),
    "flipgame.core.errors": ("BoardFormatError", "BoardTooLargeError", "FlipgameError", "MemoryBudgetError",
                             "NullityTooLargeError", "OptionError", "RefusedError", "RulesError",
                             "UnknownBackendError"),
    "flipgame.formats.rows": ("read_cases",),
    "flipgame.gate.registry": ("BACKENDS", "get_backend", "register"),
    "flipgame.gate.session": ("Session", "prepare", "solve", "solve_batch", "solve_strategy"),
    "flipgame.model.grid": ("GOALS", "Board", "Game", "format_cells"),
    "flipgame.model.rules": ("from_edges", "from_json", "read_edge_list"),
    "flipgame.model.system": ("PressSystem",),
}
"""Where each re-exported name lives; each is imported on first use (PEP 562), so that ``import flipgame``
and ``flipgame solve`` load only the modules they use."""
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_HOME_OF)


def __getattr__(name: str):
    if name not in _HOME_OF:
        raise AttributeError(f"module 'flipgame' has no attribute {name!r}")
    import importlib

    if _HOME_OF[name] in ("flipgame.gate.registry", "flipgame.gate.session"):
        importlib.import_module("flipgame.gate.session")  # the registry is filled by the session's module
    value = getattr(importlib.import_module(_HOME_OF[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""The gate: the registry of backends (:mod:`~flipgame.gate.registry`) and the one validation gate
(:mod:`~flipgame.gate.session`: :func:`solve`, :func:`solve_batch`, :class:`Session`).  Only re-exports."""

from flipgame.gate.registry import BACKENDS, get_backend, register, taken_by
from flipgame.gate.session import Session, prepare, solve, solve_batch, solve_strategy

__all__ = ["BACKENDS", "Session", "get_backend", "prepare", "register", "solve", "solve_batch", "solve_strategy",
           "taken_by"]

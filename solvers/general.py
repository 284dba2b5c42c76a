"""The gate of the general game: which backend takes a press system, and one call to solve a board.

:data:`SYSTEM_BACKENDS` names every backend that answers press systems
(``gauss``, ``bfs``, ``cpsat``, ``ilp``, ``ilp-highs``, ``sat``); :func:`refusal`
gives the one line a backend answers when it declines (``sat`` declines more than two
states, ``bfs`` too many states, ``gauss`` counters, each naming who takes it).  :func:`solve_system` checks
the board, asks for a refusal, and calls the backend.

>>> from flipgame.board import Game
>>> from flipgame.system import from_game
>>> lo2000 = from_game(Game(5, 5), states=3, goal="0")
>>> solve_system(lo2000, (1,) * 25, "gauss").moves
18
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from . import system_bfs, system_gauss, system_models, system_sat
from .errors import RefusedError, UnknownBackendError
from .system import PressSystem
from .system_result import SystemBatch, SystemSolution

SYSTEM_BACKENDS: dict[str, Callable[..., SystemSolution]] = {
    "gauss": system_gauss.solve,
    "bfs": system_bfs.solve,
    "cpsat": system_models.solve_cpsat,
    "ilp": system_models.solve_ilp,
    "ilp-highs": system_models.solve_highs,
    "sat": system_sat.solve,
}
"""Backend name -> ``solve(system, board, **options)``."""

_REFUSALS: dict[str, Callable[[PressSystem], str | None]] = {
    "gauss": system_gauss.refusal,
    "bfs": system_bfs.refusal,
    "sat": system_sat.refusal,
}


def refusal(name: str, system: PressSystem) -> str | None:
    """The one line ``name`` answers when it declines ``system``, or None if it takes it."""
    if name in _REFUSALS:
        return _REFUSALS[name](system)
    if name in SYSTEM_BACKENDS:
        return None
    return f"{name}: no press-system model; gauss, bfs, cpsat and ilp take press systems"


def takers(system: PressSystem, names=None) -> list[str]:
    """The backends (of ``names``, default all) that take ``system``."""
    return [n for n in (names or SYSTEM_BACKENDS) if n in SYSTEM_BACKENDS and refusal(n, system) is None]


def _backend(name: str) -> Callable[..., SystemSolution]:
    if name not in SYSTEM_BACKENDS and name not in _REFUSALS:
        raise UnknownBackendError(f"unknown backend {name!r}; press systems are taken by "
                                  f"{', '.join(SYSTEM_BACKENDS)}")
    return SYSTEM_BACKENDS[name]


def solve_system(system: PressSystem, board, backend: str = "gauss", **options) -> SystemSolution:
    """Minimum presses from ``board`` (n states) to a goal of ``system`` on ``backend``.

    Raises
    ------
    RulesError
        A board that does not fit the system.
    RefusedError
        The backend declines the system (the message names who takes it).
    UnknownBackendError
    """
    solve = _backend(backend)
    system.check_board(board)
    why = refusal(backend, system)
    if why:
        raise RefusedError(why)
    return solve(system, tuple(int(v) for v in board), **options)


def solve_system_batch(system: PressSystem, boards: np.ndarray, backend: str = "gauss", **options
                       ) -> SystemBatch:
    """Many boards (int array shape (b, n)): vectorised for gauss, board by board otherwise."""
    solve = _backend(backend)
    why = refusal(backend, system)
    if why:
        raise RefusedError(why)
    if backend == "gauss":
        return system_gauss.solve_batch(system, boards, **options)
    if backend == "bfs":
        return system_bfs.solve_batch(system, boards, **options)
    start = time.perf_counter()
    boards = np.asarray(boards, dtype=np.int64)
    out = SystemBatch.empty(backend, boards, system.m)
    for i, b in enumerate(boards):
        s = solve(system, tuple(int(v) for v in b), **options)
        out.status[i] = s.status
        if s.success:
            out.moves[i], out.presses[i], out.target[i] = s.moves, s.presses, s.target
    return out.with_time(time.perf_counter() - start)

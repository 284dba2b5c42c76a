"""The gate of the general game: which backend takes a press system, and one call to solve a board.

:data:`SYSTEM_BACKENDS` names every backend that answers press systems
(``gauss``, ``bfs``, ``cpsat``, ``ilp``, ``ilp-highs``, ``sat``).  A backend
module says only *why* it declines a system (its ``declines``: ``sat`` more
than two states, ``bfs`` too many states, ``gauss`` counters); :func:`refusal`
adds who does take it, computed by :func:`who_takes` from asking every backend,
so the hint is true on that system.  :func:`solve_system` checks the board,
asks for a refusal, and calls the backend; a refusal the backend raises on one
board (gauss's coset budget, bfs's counter box) gets the same computed hint.

>>> from flipgame.model.grid import Game
>>> from flipgame.model.system import from_game
>>> lo2000 = from_game(Game(5, 5), states=3, goal="0")
>>> solve_system(lo2000, (1,) * 25, "gauss").moves
18
>>> refusal("bfs", lo2000).split("; ")[1]
'gauss, cpsat and ilp take it'
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from flipgame.backends import system_bfs, system_gauss, system_models, system_sat
from flipgame.backends.system_result import SystemBatch, SystemSolution
from flipgame.core.errors import RefusedError, UnknownBackendError
from flipgame.model.system import PressSystem

SYSTEM_BACKENDS: dict[str, Callable[..., SystemSolution]] = {
    "gauss": system_gauss.solve,
    "bfs": system_bfs.solve,
    "cpsat": system_models.solve_cpsat,
    "ilp": system_models.solve_ilp,
    "ilp-highs": system_models.solve_highs,
    "sat": system_sat.solve,
}
"""Backend name -> ``solve(system, board, **options)``."""

_DECLINES: dict[str, Callable[[PressSystem], str | None]] = {
    "gauss": system_gauss.declines,
    "bfs": system_bfs.declines,
    "sat": system_sat.declines,
}
"""Backend name -> why it declines a system (no hint), or None; backends not listed take every system."""
CLI_NAMES = {"ilp-highs": "ilp"}
"""Press-system backends shown under their command-line name (``ilp-highs`` is ``ilp --mip-solver HIGHS``)."""


def _declines(name: str, system: PressSystem) -> str | None:
    if name in _DECLINES:
        return _DECLINES[name](system)
    return None if name in SYSTEM_BACKENDS else f"{name}: no press-system model"


def takers(system: PressSystem, names=None) -> list[str]:
    """The backends (of ``names``, default all of :data:`SYSTEM_BACKENDS`) that take ``system``."""
    return [n for n in (names or SYSTEM_BACKENDS) if n in SYSTEM_BACKENDS and _declines(n, system) is None]


def who_takes(system: PressSystem, besides: str | None = None) -> str:
    """The hint of every press-system refusal, from asking each backend (but ``besides``, the one
    refusing) whether it takes ``system``: e.g. ``'gauss, cpsat and ilp take it'``, or ``'no other
    press-system backend takes it'``.  Names are the command line's (:data:`CLI_NAMES`)."""
    refusing = CLI_NAMES.get(besides, besides)
    names = [n for n in dict.fromkeys(CLI_NAMES.get(n, n) for n in takers(system)) if n != refusing]
    if not names:
        return "no other press-system backend takes it"
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} take{'s' if len(names) == 1 else ''} it"


def refusal(name: str, system: PressSystem) -> str | None:
    """The one line ``name`` answers when it declines ``system`` (why, then :func:`who_takes`), or None
    if it takes it."""
    why = _declines(name, system)
    return None if why is None else f"{why}; {who_takes(system, name)}"


def _hinted(exc: RefusedError, system: PressSystem, name: str) -> RefusedError:
    """A refusal raised by backend ``name`` on one board, with the computed hint added."""
    return type(exc)(f"{exc}; {who_takes(system, name)}")


def _backend(name: str) -> Callable[..., SystemSolution]:
    if name not in SYSTEM_BACKENDS:
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
        The backend declines the system, or this board (gauss: a coset over its enumeration budget;
        bfs: a counter box over its table); the message names who takes it (:func:`who_takes`).
    UnknownBackendError
    """
    solve = _backend(backend)
    system.check_board(board)
    why = refusal(backend, system)
    if why:
        raise RefusedError(why)
    try:
        return solve(system, tuple(int(v) for v in board), **options)
    except RefusedError as exc:
        raise _hinted(exc, system, backend) from None


def solve_system_batch(system: PressSystem, boards: np.ndarray, backend: str = "gauss", **options
                       ) -> SystemBatch:
    """Many boards (int array shape (b, n)): vectorised for gauss and bfs, board by board otherwise.

    Raises RefusedError as :func:`solve_system` (the first board refused stops the batch).
    """
    _backend(backend)
    why = refusal(backend, system)
    if why:
        raise RefusedError(why)
    try:
        return _batch(system, boards, backend, options)
    except RefusedError as exc:
        raise _hinted(exc, system, backend) from None


def _batch(system: PressSystem, boards: np.ndarray, backend: str, options: dict) -> SystemBatch:
    if backend == "gauss":
        return system_gauss.solve_batch(system, boards, **options)
    if backend == "bfs":
        return system_bfs.solve_batch(system, boards, **options)
    solve = SYSTEM_BACKENDS[backend]
    start = time.perf_counter()
    boards = np.asarray(boards, dtype=np.int64)
    out = SystemBatch.empty(backend, boards, system.m)
    for i, b in enumerate(boards):
        s = solve(system, tuple(int(v) for v in b), **options)
        out.status[i] = s.status
        if s.success:
            out.moves[i], out.presses[i], out.target[i] = s.moves, s.presses, s.target
    return out.with_time(time.perf_counter() - start)

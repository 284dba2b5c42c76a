"""The fuzzer's exact oracle: every press vector of a small press system, tried.

It reads only the system's raw fields (cells, the buttons' ``(cell, amount)`` lists, states, goal and
target) and shares no code with the model, the algebra or any backend: a press vector ``x`` (button j
pressed ``x_j`` times, ``0 <= x_j < k``; for counters up to the most presses that keep every cell at or
below its goal) gives the board ``b + A x`` (mod k), and the minimum is the least ``sum(x)`` that makes it a
goal board.  Pressing a button k times is pressing it never (mod k), so the search is complete.

Source: the brute-force cross-check of the issue that introduced ``flipgame fuzz`` (4,500 random press
systems against every backend, no wrong number); McKeeman, "Differential Testing for Software" (1998).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from flipgame.core.limits import FUZZ_ORACLE_MAX_VECTORS


@dataclass(frozen=True)
class Exact:
    """The oracle's answer: ``minimum`` presses, or None when no press vector reaches a goal (Impossible)."""

    minimum: int | None
    vectors: int


def exhaustive(system, board, max_vectors: int = FUZZ_ORACLE_MAX_VECTORS) -> Exact | None:
    """The exact minimum of ``board`` under ``system`` by trying every press vector, or None if there are more
    than ``max_vectors`` of them.

    Parameters
    ----------
    system : PressSystem
    board : int or tuple of int
        A bitmask for two states, else n cell values.

    Running time: O(V (m + n) |targets|) for V press vectors, in blocks of 2**16 (memory O(2**16 (m + n))).
    """
    n, k = system.cells, system.states
    cells = np.array([board >> i & 1 for i in range(n)] if k == 2 else list(board), dtype=np.int64)
    amounts = np.zeros((len(system.buttons), n), dtype=np.int64)
    for j, button in enumerate(system.buttons):
        for cell, amount in button:
            amounts[j, cell] += amount
    goals = _goal_boards(system)
    if k is None:
        if all((cells > g).any() for g in goals):
            return Exact(None, 0)
        tops = _counter_tops(amounts, cells, goals)
    else:
        tops = np.full(len(system.buttons), k - 1, dtype=np.int64)
    total = math.prod(int(t) + 1 for t in tops)
    if total > max_vectors:
        return None
    best = None
    for lo in range(0, total, 1 << 16):
        x = _vectors(tops, lo, min(total, lo + (1 << 16)))
        after = cells + x @ amounts
        if k is not None:
            after %= k
        hit = np.zeros(len(x), dtype=bool)
        for g in goals:
            hit |= (after == g).all(axis=1)
        if hit.any():
            weight = int(x.sum(axis=1)[hit].min())
            best = weight if best is None else min(best, weight)
    return Exact(best, total)


def _goal_boards(system) -> list[np.ndarray]:
    """Every goal board as n cell values, from the goal's name and the target alone."""
    n, k = system.cells, system.states
    if system.goal == "board":
        t = system.target
        return [np.array([t >> i & 1 for i in range(n)] if k == 2 else list(t), dtype=np.int64)]
    if system.goal == "any":
        return [np.full(n, d, dtype=np.int64) for d in range(k)]
    value = {"white": 0, "black": 1}.get(system.goal)
    return [np.full(n, int(system.goal) if value is None else value, dtype=np.int64)]


def _counter_tops(amounts: np.ndarray, cells: np.ndarray, goals: list[np.ndarray]) -> np.ndarray:
    """For counters: the most presses of each button that keep every cell it changes at or below the largest
    goal value of that cell (a press only adds)."""
    ceiling = np.max(np.stack(goals), axis=0) - cells
    tops = []
    for row in amounts:
        on = row > 0
        tops.append(int(np.min(np.maximum(ceiling[on], -1) // row[on])) if on.any() else 0)
    return np.maximum(np.array(tops, dtype=np.int64), 0)


def _vectors(tops: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Press vectors ``lo..hi-1`` in mixed radix (button 0 the fastest digit), int64 shape (hi - lo, m)."""
    index = np.arange(lo, hi, dtype=np.int64)
    out = np.empty((hi - lo, len(tops)), dtype=np.int64)
    for j, top in enumerate(tops):
        out[:, j] = index % (top + 1)
        index //= top + 1
    return out

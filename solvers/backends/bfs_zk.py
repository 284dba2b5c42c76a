"""bfs beyond two states: a distance table over every Z_k board, or a box of counter boards, by dynamic
programming over buttons (the two-state table is :mod:`flipgame.backends.bfs`'s).

Over Z_k the states are the ``k**n`` boards, held as an array of shape
``(k,) * n`` (axis i = cell i).  Presses commute and a button is pressed
0..k-1 times in a minimum, so the table of minimum presses to a goal is
built button by button::

    D_j[x] = min over t in 0..k-1 of  D_{j-1}[x + t a_j] + t

each term one ``np.roll`` of the table.  Counters (no modulus) have an
infinite state space; from one board the useful states are the boards
between it and the target, a box of ``prod(target_i - board_i + 1)`` states,
filled the same way with ``t`` up to the box's edge (an unbounded knapsack).
A witness is read back by walking down the table.  Nothing is shared with
:mod:`flipgame.backends.gauss` (the Z_k algebra) beyond the press matrix.

Running time O(k^n m k) table entries over Z_k (3^16 = 43M states: seconds
per button), O(box * m * t_max) for counters.  Memory: one byte (two above
254 presses) per state; at most :data:`MAX_STATES` states.

Source: Cormen et al., "Introduction to Algorithms", 3rd ed., 22.2 and 15
(breadth-first search; dynamic programming).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.errors import BoardTooLargeError
from flipgame.model.system import PressSystem

NAME = "bfs"
MAX_STATES = 1 << 30
"""Largest table, in states (1 GiB of uint8)."""


_CALL = threading.local()
"""The deadline of the bfs call running in this thread (``perf_counter`` seconds), or None."""


@contextlib.contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, a table build in this thread stops (TimeoutError) ``seconds`` from now."""
    _CALL.deadline = None if seconds is None else time.perf_counter() + seconds
    try:
        yield
    finally:
        _CALL.deadline = None


def check_deadline() -> None:
    """TimeoutError if this thread's bfs call is past its deadline (checked between buttons of a table build)."""
    at = getattr(_CALL, "deadline", None)
    if at is not None and time.perf_counter() > at:
        raise TimeoutError("bfs: the time limit ran out while building the distance table")


def table_bytes(system: PressSystem) -> int:
    """Peak bytes of the Z_k table build: the table, its next version and one rolled copy; O(1)."""
    return 3 * _states(system) * np.dtype(_dtype(system)).itemsize


def _states(system: PressSystem) -> int:
    return system.states ** system.cells


def declines(system: PressSystem) -> str | None:
    """Why bfs declines ``system`` (Z_k with more than MAX_STATES boards), or None; no hint of who
    takes it (:func:`flipgame.gate.general.refusal` adds one)."""
    if system.states is not None and _states(system) > MAX_STATES:
        return f"bfs: {system.states}^{system.cells} states are over its {MAX_STATES:,}-state table"
    return None


def _dtype(system: PressSystem):
    top = system.m * (system.max_press or 1)
    return np.uint8 if top < 255 else np.uint16


@lru_cache(maxsize=2)
def distance_table(system: PressSystem) -> np.ndarray:
    """Minimum presses from every board to a goal, shape ``(k,) * n`` (uint8/uint16, the dtype's max
    = unreachable).  Cached for the last two systems.  Raises BoardTooLargeError over MAX_STATES."""
    why = declines(system)
    if why:
        raise BoardTooLargeError(why)
    k, n = system.states, system.cells
    dtype = _dtype(system)
    inf = np.iinfo(dtype).max
    table = np.full((k,) * n, inf, dtype=dtype)
    for t in system.targets:
        table[t] = 0
    a = system.matrix
    for j in range(system.m):
        axes = tuple(int(i) for i in np.flatnonzero(a[:, j]))
        if not axes:
            continue
        check_deadline()
        new = table.copy()
        for t in range(1, k):
            check_deadline()
            shifts = tuple(int(-(t * a[i, j]) % k) for i in axes)
            cand = np.roll(table, shifts, axis=axes)
            np.minimum(cand, inf - t, out=cand)
            cand += t
            np.minimum(new, cand, out=new)
        table = new
    table.flags.writeable = False
    return table


def _walk(system: PressSystem, table: np.ndarray, board: tuple[int, ...]) -> list[int]:
    """Press counts walking down the table from ``board``: each step the first (button, t)
    that lowers the distance by exactly t."""
    k, a = system.states, system.matrix
    counts = [0] * system.m
    cur = np.array(board, dtype=np.int64)
    d = int(table[tuple(cur)])
    while d:
        for j in range(system.m):
            step = next((t for t in range(1, k) if int(table[tuple((cur + t * a[:, j]) % k)]) == d - t), None)
            if step is not None:
                cur = (cur + step * a[:, j]) % k
                counts[j] = (counts[j] + step) % k
                d -= step
                break
        else:
            raise RuntimeError("bfs: the distance table has no step down (a table fault)")
    return counts


def solve(system: PressSystem, board) -> Solution:
    """Minimum presses for one board from the cached table (Z_k) or a box table (counters)."""
    start = time.perf_counter()
    if system.states is None:
        return _solve_counters(system, tuple(board), start)
    table = distance_table(system)
    d = int(table[tuple(board)])
    if d == np.iinfo(table.dtype).max:
        return Solution(NAME, Status.INFEASIBLE, seconds=time.perf_counter() - start)
    counts = tuple(_walk(system, table, tuple(board)))
    return Solution(NAME, Status.OPTIMAL, sum(counts), counts, system.apply(board, counts),
                          time.perf_counter() - start)


def solve_batch(system: PressSystem, boards: np.ndarray, *, witnesses: bool = True) -> BatchSolution:
    """Many boards (int array shape (b, n)): over Z_k one table lookup per board and a vectorised
    walk for the witnesses (``witnesses=False``: moves and status only); counters board by board."""
    start = time.perf_counter()
    boards = np.asarray(boards, dtype=np.int64)
    out = BatchSolution.empty(NAME, boards, system.m)
    if system.states is None:
        for i, b in enumerate(boards):
            s = solve(system, tuple(int(v) for v in b))
            out.status[i] = s.status
            if s.success:
                out.moves[i], out.presses[i], out.target[i] = s.moves, s.presses, s.target
        return out.with_time(time.perf_counter() - start)
    table = distance_table(system).reshape(-1)
    powers = system.states ** np.arange(system.cells - 1, -1, -1, dtype=np.int64)
    idx = boards @ powers
    d = table[idx].astype(np.int64)
    ok = d != np.iinfo(table.dtype).max
    out.status[:] = np.where(ok, Status.OPTIMAL, Status.INFEASIBLE)
    out.moves[ok] = d[ok]
    if witnesses:
        rows = np.flatnonzero(ok)
        end, counts = _walk_many(system, table, idx[rows], d[rows], powers)
        out.presses[rows] = counts
        out.target[rows] = (end[:, None] // powers[None, :]) % system.states
    return out.with_time(time.perf_counter() - start)


def _walk_many(system: PressSystem, table: np.ndarray, idx: np.ndarray, d: np.ndarray, powers: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_walk` for many boards at once (flat table indices): (end indices, counts int64 (b, m))."""
    k, a = system.states, system.matrix
    counts = np.zeros((len(idx), system.m), dtype=np.int64)
    cur, d = idx.copy(), d.copy()
    active = np.flatnonzero(d > 0)
    while len(active):
        base, here = cur[active], d[active]
        digits = (base[:, None] // powers[None, :]) % k
        chosen = np.zeros(len(active), dtype=bool)
        for j in range(system.m):
            cells = np.flatnonzero(a[:, j])
            for t in range(1, k):
                delta = (((digits[:, cells] + t * a[cells, j]) % k - digits[:, cells]) * powers[cells]).sum(axis=1)
                nxt = base + delta
                take = ~chosen & (table[nxt].astype(np.int64) == here - t)
                rows = active[take]
                cur[rows], d[rows] = nxt[take], here[take] - t
                counts[rows, j] += t
                chosen |= take
        if not chosen.all():
            raise RuntimeError("bfs: the distance table has no step down (a table fault)")
        active = active[d[active] > 0]
    return cur, counts % k


MAX_BOX = 1 << 28
"""Largest counter box (states between the board and the target)."""


def _solve_counters(system: PressSystem, board: tuple[int, ...], start: float) -> Solution:
    """Counters: minimum presses with ``board + A t = target``, t >= 0, over the box table."""
    (target,) = system.targets
    need = np.array(target, dtype=np.int64) - np.array(board, dtype=np.int64)
    if (need < 0).any():
        return Solution(NAME, Status.INFEASIBLE, seconds=time.perf_counter() - start,
                              stats={"reason": "a counter is above its target"})
    shape = tuple(int(v) + 1 for v in need)
    if int(np.prod(shape, dtype=object)) > MAX_BOX:
        raise BoardTooLargeError(f"bfs: the counter box has {int(np.prod(shape, dtype=object)):,} states, over "
                                 f"its {MAX_BOX:,}-state table")
    inf = np.iinfo(np.int32).max // 2
    table = np.full(shape, inf, dtype=np.int32)
    table[(0,) * len(shape)] = 0
    a = system.matrix
    for j in range(system.m):
        check_deadline()
        table = _knapsack(table, a[:, j], inf)
    d = int(table[tuple(need)])
    if d >= inf:
        return Solution(NAME, Status.INFEASIBLE, seconds=time.perf_counter() - start)
    counts = _walk_box(system, table, need)
    return Solution(NAME, Status.OPTIMAL, sum(counts), counts, system.apply(board, counts),
                          time.perf_counter() - start, {"box_states": int(table.size)})


def _knapsack(table: np.ndarray, col: np.ndarray, inf: int) -> np.ndarray:
    """``min over t >= 0 of table[x - t col] + t`` for every x of the box, by increasing x along col."""
    rows = [int(i) for i in np.flatnonzero(col)]
    if not rows:
        return table
    out = table.copy()
    # add one press at a time: out[x] = min(out[x], out[x - col] + 1), swept in order of t
    tmax = min(table.shape[i] // int(col[i]) for i in rows)
    for _ in range(tmax):
        src = tuple(slice(0, table.shape[i] - int(col[i])) if col[i] else slice(None) for i in range(table.ndim))
        dst = tuple(slice(int(col[i]), None) if col[i] else slice(None) for i in range(table.ndim))
        cand = out[src] + 1
        np.minimum(out[dst], np.minimum(cand, inf), out=out[dst])
    return out


def _walk_box(system: PressSystem, table: np.ndarray, need: np.ndarray) -> tuple[int, ...]:
    a, counts, cur = system.matrix, [0] * system.m, need.copy()
    d = int(table[tuple(cur)])
    while d:
        for j in range(system.m):
            prev = cur - a[:, j]
            if (prev >= 0).all() and int(table[tuple(prev)]) == d - 1:
                cur, d = prev, d - 1
                counts[j] += 1
                break
        else:
            raise RuntimeError("bfs: the counter table has no step down (a table fault)")
    return tuple(counts)

"""``bfs``: breadth-first search over all ``2**n`` board states.

Method.  Pressing is an involution, so the state graph (boards, joined by one
press) is undirected and the minimum number of presses from a board to the
goal equals its BFS distance *from* the goal boards: a distance table (uint8,
one entry per state; 255 = unreachable = ``Impossible``), built once per game
and cached for the process.  A shortest path presses no cell twice, so the
table is filled press by press (dynamic programming over the press set, the
layered form of the multi-source BFS): after presses ``0..j`` are allowed,
``D[x] = min(D[x], D[x ^ mask_j] + 1)``.  That is n sweeps over the table, each
XOR permutation done blockwise on numpy views (``np.flip`` of a ``(2,)*k``
reshape), so the memory is the table plus three blocks of 4 MiB.  The level
by level BFS (:func:`_level_bfs`) is kept as the reference the tests compare it with.
A witness is recovered by walking down the table: from a board at distance
``d`` some press leads to a board at distance ``d - 1``.  A shortest path never
presses a cell twice, so the walk's presses form a set of exactly ``d`` cells.

This backend shares nothing with the elimination in :mod:`flipgame.backends.gauss`
beyond the press masks; that independence is why it is in the cross-check.

Running time: O(2**n * n) for the table (one vectorised sweep per press;
measured on a shared 2-core machine: 3-4 s for 25 cells, where the level BFS
took 5 s for 24; 138 s and 1.07 GiB peak for 30), O(d * n) per witness.  Memory: 2**n bytes, so it refuses boards
with more than :data:`BFS_MAX_CELLS` cells (1 GiB table).

Source: Cormen, Leiserson, Rivest & Stein, "Introduction to Algorithms", 3rd
ed., section 22.2 (breadth-first search), run from several sources at once.
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from flipgame.backends import bfs_zk
from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, Backend
from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.errors import BoardTooLargeError, MemoryBudgetError
from flipgame.core.limits import BFS_DEFAULT_MAX_CELLS, BFS_MAX_CELLS
from flipgame.core.text import mib
from flipgame.model.grid import to_bits
from flipgame.model.system import PressSystem

"""2**30 states, one byte each: a 1 GiB table."""
UNREACHABLE = 255
BLOCK_BITS = 22
"""The table is swept in blocks of 2**22 states (4 MiB)."""


def _check_size(game: PressSystem) -> None:
    if game.n > BFS_MAX_CELLS:
        raise BoardTooLargeError(
            f"bfs keeps a table of all 2**n states (one byte each) and allows at most {BFS_MAX_CELLS} cells "
            f"(1 GiB); "
            f"{game.size} has {game.n} (use gauss, or sat / ilp)"
        )


@lru_cache(maxsize=2)
def distance_table(game: PressSystem) -> np.ndarray:
    """Minimum presses from every state to the nearest goal board of ``game``.

    Returns
    -------
    ndarray of uint8, shape (2**n,)
        ``table[board]`` = minimum presses, or 255 if no goal board is reachable.
        Read-only; cached per game (the last two games).

    Raises
    ------
    BoardTooLargeError
        If ``game.n > BFS_MAX_CELLS``.

    Running time O(n 2**n) byte operations (25 cells: about 3 s); memory 2**n
    bytes plus three blocks of ``2**BLOCK_BITS``.
    """
    _check_size(game)
    n = game.n
    table = np.full(1 << n, UNREACHABLE, dtype=np.uint8)
    for t in set(game.targets):
        table[t] = 0
    k = min(n, BLOCK_BITS)
    size = 1 << k
    blocks = table.reshape(-1, size)
    step = np.empty(size, dtype=np.uint8)
    for mask in dict.fromkeys(game.press_masks):  # a repeated button adds no edge
        bfs_zk.check_deadline()
        hi, lo = mask >> k, mask & (size - 1)
        for p in range(len(blocks)):
            q = p ^ hi
            if q < p:
                continue  # the pair of blocks was done from p = q
            a = blocks[p]
            if q == p:  # x and x ^ mask in one block
                _plus_one(_xor_view(a, lo, k).reshape(-1), step)
                np.minimum(a, step, out=a)
                continue
            b = _xor_view(blocks[q], lo, k)  # b[i] = table[q-block, i ^ lo]
            b_flat = b.reshape(-1)  # a copy
            a_old = a.copy()
            _plus_one(b_flat, step)
            np.minimum(a, step, out=a)
            _plus_one(a_old, a_old)
            np.minimum(b_flat, a_old, out=b_flat)
            b[...] = b_flat.reshape(b.shape)
    table.flags.writeable = False
    return table


def _xor_view(block: np.ndarray, mask: int, k: int) -> np.ndarray:
    """A view of ``block`` (2**k entries) with entry ``i`` at position ``i ^ mask``, shape (2,)*k."""
    axes = tuple(k - 1 - j for j in range(k) if mask >> j & 1)
    view = block.reshape((2,) * k)
    return np.flip(view, axis=axes) if axes else view


def _plus_one(d: np.ndarray, out: np.ndarray) -> None:
    """``out = d + 1``, keeping 255 (unreachable) at 255."""
    np.minimum(d, UNREACHABLE - 1, out=out)
    out += 1


def _level_bfs(game: PressSystem) -> np.ndarray:
    """The table by a plain level-by-level multi-source BFS (the reference for tests; 24 cells: about 5 s)."""
    table = np.full(1 << game.n, UNREACHABLE, dtype=np.uint8)
    frontier = np.array(sorted(set(game.targets)), dtype=np.uint32)
    table[frontier] = 0
    masks = [np.uint32(m) for m in game.press_masks]
    level = 0
    while frontier.size:
        level += 1
        for m in masks:
            nxt = frontier ^ m
            table[nxt[table[nxt] == UNREACHABLE]] = level
        frontier = np.flatnonzero(table == level).astype(np.uint32)
    return table


def _walk(game: PressSystem, table: np.ndarray, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Witnesses by walking down the table: (presses, goal board reached), uint64 arrays (presses an object
    array of Python ints past 64 buttons).

    ``boards`` must all be reachable.  Each step takes, for every board, the
    lowest-numbered press that lowers the distance by one.
    """
    cur = boards.astype(np.int64)
    wide = game.m > 64
    presses = np.zeros(len(boards), dtype=object if wide else np.uint64)
    for _ in range(int(table[cur].max(initial=0))):
        here = table[cur].astype(np.int16)
        chosen = here == 0  # at a goal board already
        nxt = cur.copy()
        for j, m in enumerate(game.press_masks):
            cand = cur ^ m
            take = ~chosen & (table[cand] == here - 1)
            nxt[take] = cand[take]
            presses[take] |= (1 << j) if wide else np.uint64(1 << j)
            chosen |= take
        cur = nxt
    return presses, cur.astype(np.uint64)


def _canonical(game: PressSystem, table: np.ndarray, board: int) -> tuple[int, int]:
    """Lexicographically smallest minimum press set and the goal it reaches.

    Every ordering of a minimum press set walks down the table one level per
    press, so a depth-first search over presses in increasing order finds
    every minimum set; the smallest cell-by-cell reading is kept.
    """
    masks, m = game.press_masks, game.m
    best: list[tuple[str, int, int]] = []

    def walk(state: int, start: int, chosen: int) -> None:
        d = int(table[state])
        if d == 0:
            best.append((to_bits(chosen, m), chosen, state))
            return
        for j in range(start, m):
            if int(table[state ^ masks[j]]) == d - 1:
                walk(state ^ masks[j], j + 1, chosen | 1 << j)

    walk(board, 0, 0)
    _, presses, target = min(best)
    return presses, target


class Bfs(Backend):
    """Breadth-first distance-table backend; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "bfs").moves
    4
    """

    name = "bfs"
    summary = "breadth-first distance table over all 2^n states"
    max_cells = BFS_MAX_CELLS
    default_max_cells = BFS_DEFAULT_MAX_CELLS
    takes = frozenset({"two", "mod k", "counters"})
    options = (TIME_LIMIT, MEMORY_LIMIT)

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        """Over :data:`BFS_MAX_CELLS` cells or ``k**n`` over bfs_zk's table; a table over the memory budget."""
        why = super().refusal(game, options) if game.binary else bfs_zk.declines(game)
        if why or game.states is None:
            return why
        need = (1 << game.n) if game.binary else bfs_zk.table_bytes(game)
        budget = options.get("memory_limit", MEMORY_LIMIT.default) * 2**30
        if need > budget:
            return (f"bfs: the distance table of {game.size} needs about {mib(need)}, over the "
                    f"{mib(budget)} budget (--memory-limit, in GiB)")
        return None

    def refusal_error(self, game: PressSystem, options: dict) -> type[Exception]:
        too_big = (super().refusal(game, options) if game.binary else bfs_zk.declines(game)) is not None
        return BoardTooLargeError if too_big else MemoryBudgetError

    def solve(self, game: PressSystem, board, *, canonical: bool = False, time_limit: float | None = None,
              memory_limit: float = MEMORY_LIMIT.default) -> Solution:
        """Minimum presses for one board, read from the cached distance table.

        The first call for a game builds the table (about 0.02 s for 4x4, 3 s
        for 25 cells); later calls cost O(d * n).  With ``canonical`` the
        witness is the lexicographically smallest minimum press set.  A table
        build that outlasts ``time_limit`` seconds (checked between buttons)
        answers UNKNOWN.
        """
        start = time.perf_counter()
        try:
            with bfs_zk.deadline(time_limit):
                return self._solve(game, board, canonical)
        except TimeoutError as exc:
            return Solution(self.name, Status.UNKNOWN, seconds=time.perf_counter() - start,
                            stats={"reason": str(exc)})

    def _solve(self, game: PressSystem, board, canonical: bool) -> Solution:
        if not game.binary:
            return bfs_zk.solve(game, board)
        start = time.perf_counter()
        s = self._solve_batch(game, np.array([board], dtype=np.uint64))[0]
        presses, target = s.presses, s.target
        if canonical and s.success:
            presses, target = _canonical(game, distance_table(game), board)
        return Solution(self.name, s.status, s.moves, presses, target, time.perf_counter() - start)

    def solve_batch(self, game: PressSystem, boards: np.ndarray, *, canonical: bool = False,
                    witnesses: bool = True, time_limit: float | None = None,
                    memory_limit: float = MEMORY_LIMIT.default) -> BatchSolution:
        """Answers and witnesses for many boards (uint64 array, shape (k,)) from one distance table.

        With ``canonical``, a depth-first search per board, in Python.  A table build that outlasts
        ``time_limit`` seconds answers UNKNOWN for every board.
        Running time: the table once, then O(k * d_max * n) numpy element operations.
        """
        start = time.perf_counter()
        try:
            with bfs_zk.deadline(time_limit):
                return self._solve_batch(game, boards, canonical=canonical, witnesses=witnesses)
        except TimeoutError:
            return BatchSolution.empty(self.name, boards, game.m).with_time(time.perf_counter() - start)

    def _solve_batch(self, game: PressSystem, boards: np.ndarray, *, canonical: bool = False,
                     witnesses: bool = True) -> BatchSolution:
        if not game.binary:
            return bfs_zk.solve_batch(game, boards, witnesses=witnesses)
        start = time.perf_counter()
        boards = np.asarray(boards, dtype=np.uint64)
        table = distance_table(game)
        out = BatchSolution.empty(self.name, boards, game.m)
        dist = table[boards.astype(np.int64)]
        solvable = dist != UNREACHABLE
        out.status[:] = np.where(solvable, Status.OPTIMAL, Status.INFEASIBLE)
        out.moves[solvable] = dist[solvable]
        presses, reached = _walk(game, table, boards[solvable])
        if canonical:
            pairs = [_canonical(game, table, int(b)) for b in boards[solvable]]
            presses = np.array([p for p, _ in pairs], dtype=out.presses.dtype)
            reached = np.array([t for _, t in pairs], dtype=np.uint64)
        out.presses[solvable] = presses
        out.target[solvable] = reached
        return out.with_time(time.perf_counter() - start)

"""Light chasing: the plus grid without wrap-around solved through its last row, the one home of the method.

Press the first row, chase the lights down (press ``(r+1, c)`` exactly when ``(r, c)`` is still wrong), and
what is left on the last row is an affine function of the first row's presses: a ``cols x cols`` system
(:func:`last_row_system`) instead of the ``n x n`` press matrix.  A wide board is chased on its side
(:func:`upright`), so the square system has the short side.  Which press systems chase is read from their
buttons (:attr:`flipgame.model.system.PressSystem.chaseable`); the encodings that write the chase for a
solver or a proof (:mod:`flipgame.encode.chase`, :mod:`flipgame.encode.parity_proofs`) follow the same order.

Running time: O(side * n) bit operations for the last-row system (once per system), O(rows) row operations
per chase.  Memory O(n) bits.

Source: Leach, "Chasing the Lights in Lights Out", Mathematics Magazine 90(2), 2017; Fleischer & Yu, "A
survey of the game Lights Out!", 2013.

>>> from flipgame.model.grid import Game
>>> last_row_system(Game(5, 5)).nullity
2
"""

from __future__ import annotations

from functools import lru_cache

from flipgame.algebra.elimination import Elimination, gauss_jordan
from flipgame.model.grid import Game, from_rows, to_bits, to_rows
from flipgame.model.system import PressSystem


def transpose(cells: int, rows: int, cols: int) -> int:
    """The bitmask of a rows x cols board as its cols x rows transpose.  O(n)."""
    bits = to_bits(cells, rows * cols)
    return int("".join(bits[c::cols] for c in range(cols))[::-1] or "0", 2)


def chase(game: PressSystem, first_row: int, need: list[int]) -> tuple[list[int], int]:
    """Light chasing: press rows 1.. so that each row above ends right.

    ``need[r]``: row bitmask of cells that must flip.  Returns the press rows
    and the residual last row (cells still wrong; 0 iff the presses solve it).
    The map (first_row, need) -> (presses, residual) is affine over GF(2).
    """
    mask = (1 << game.cols) - 1
    presses = [first_row]
    above = 0
    for r in range(game.rows - 1):
        row = presses[r]
        flipped = row ^ (row << 1 & mask) ^ (row >> 1) ^ above
        presses.append(need[r] ^ flipped)
        above = row
    row = presses[-1]
    return presses, need[-1] ^ row ^ (row << 1 & mask) ^ (row >> 1) ^ above


@lru_cache(maxsize=8)
def last_row_system(game: PressSystem) -> Elimination:
    """Eliminate the cols x cols last-row system M v = residual of light chasing.

    Column k of M is the residual of chasing first row e_k with nothing to
    flip; the result is an :class:`Elimination` over the ``cols`` first-row
    variables.
    """
    cols = game.cols
    zero = [0] * game.rows
    columns = [chase(game, 1 << k, zero)[1] for k in range(cols)]
    return gauss_jordan([sum(1 << k for k in range(cols) if columns[k] >> i & 1) for i in range(cols)], cols)


def upright(game: PressSystem) -> PressSystem:
    """The game turned on its side if it is wider than tall, so chasing solves the short side."""
    if game.cols <= game.rows:
        return game
    target = None if game.target is None else transpose(game.target, game.rows, game.cols)
    return Game(game.cols, game.rows, game.goal, target=target)


def chase_solutions(game: PressSystem, board: int) -> tuple[list[tuple[int, int]], list[int], int]:
    """By light chasing: a particular press set per reachable goal board, the quiet
    patterns, and the nullity, all in ``game``'s own layout.

    A wide board is chased on its side (a min(rows, cols) square last-row
    system) and the results are turned back.  The solutions for a goal are
    the chases of first rows ``v`` with ``M v = residual(0)``: a particular
    ``v`` plus the null space of M, whose dimension is the nullity of the
    press matrix.  Running time O(side * n) bit operations for M (once per
    game), O(rows) row operations per chase.  Memory O(n) bits.
    """
    turned = upright(game)
    if turned is not game:
        parts, quiet, k = chase_solutions(turned, transpose(board, game.rows, game.cols))
        back = lambda x: transpose(x, game.cols, game.rows)  # noqa: E731
        return [(back(x), back(t)) for x, t in parts], [back(q) for q in quiet], k
    system = last_row_system(game)
    quiet = [from_rows(chase(game, z, [0] * game.rows)[0], game.cols) for z in system.null_basis]
    parts = []
    for t in game.targets:
        need = to_rows(board ^ t, game.rows, game.cols)
        _, residual = chase(game, 0, need)
        if system.consistent(residual):
            parts.append((from_rows(chase(game, system.particular(residual), need)[0], game.cols), t))
    return parts, quiet, system.nullity


def chase_frame(game: PressSystem, reverse: bool = False):
    """(frame rows, frame cols, index(a, b)): the frame every symbolic chase follows (the parity proofs'
    rows, the pruned split's forms): along the longer side, frame cell ``(a, b)`` at cell ``index(a, b)``;
    ``reverse`` starts at the far end, so that the first frame row holds the highest press indices."""
    rows, cols = (game.rows, game.cols) if game.cols <= game.rows else (game.cols, game.rows)
    flip = (lambda a: rows - 1 - a) if reverse else (lambda a: a)
    if game.cols <= game.rows:
        return rows, cols, lambda a, b: flip(a) * game.cols + b
    return rows, cols, lambda a, b: b * game.cols + flip(a)

"""Light chasing as rows of a model: the one home of the chase formulation that cpsat and ilp share.

On a plus grid without wrap-around, once the first row's presses and the goal colour ``t`` are
chosen, every other press is forced: cell ``(r, c)`` must end at colour ``t``, and press
``(r+1, c)`` is the last press that flips it.  So press ``j`` below the first row is an affine
form over GF(2) of the first row's presses, ``t`` and the board's cells, and the last row's cells
give ``cols`` conditions on the same variables.  The forms come from the press masks' geometry
alone (no elimination), once per game; a board changes only each row's constant.

A form is an int: bit ``c < cols`` is first-row press ``c``; bit ``cols`` the goal colour ``t``
(free for the goal ``any``); bit ``cols + 1`` the constant 1; bit ``cols + 2 + i`` board cell ``i``.

Source: light chasing (e.g. Leach, "Chasing the Lights in Lights Out", Mathematics Magazine 90(2),
2017); the rows are the chased system written for a solver.

>>> rows = chase_rows(Game(1, 2, "white"))
>>> rows.press, rows.last, rows.constants(0b01), rows.constants(0b10)
((1, 2), (19, 35), (1, 0), (0, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from flipgame.model.grid import Game


@dataclass(frozen=True)
class ChaseRows:
    """The chased system of one plus grid without wrap-around (see the module docstring).

    Attributes
    ----------
    cols : int
        Presses of the first row: the decisions, with the colour.
    press : tuple of int, length n
        The form of each press (first-row press ``c``: the form ``1 << c``).
    last : tuple of int, length cols
        The forms of the last row's cells, each of which must be 0.
    """

    cols: int
    press: tuple[int, ...]
    last: tuple[int, ...]

    @cached_property
    def rows(self) -> tuple[int, ...]:
        """The forms a model constrains, in order: press ``cols .. n-1`` (``press_j`` XOR its form = 0),
        then the last row's cells (the form = 0)."""
        return self.press[self.cols:] + self.last

    @cached_property
    def _board_parts(self) -> tuple[tuple[int, int], ...]:
        """Per row, (its board cells as a mask, its constant on the all-white board)."""
        shift = self.cols + 2
        return tuple((f >> shift, f >> (shift - 1) & 1) for f in self.rows)

    def decisions(self, form: int) -> list[int]:
        """The decision variables of ``form``: first-row presses ``0..cols-1`` and ``cols`` for the colour."""
        return [i for i in range(self.cols + 1) if form >> i & 1]

    def constants(self, board: int) -> tuple[int, ...]:
        """Per row of :attr:`rows`, the constant of its form on ``board`` (0 or 1): the row asks its
        variables' XOR to equal it.  O(rows) popcounts.

        >>> chase_rows(Game(2, 2, "any")).constants(0b0001)
        (1, 0, 1, 1)
        """
        return tuple(c ^ (cells & board).bit_count() & 1 for cells, c in self._board_parts)


@lru_cache(maxsize=64)
def chase_rows(game: Game) -> ChaseRows:
    """The chased system of ``game`` (a plus grid without wrap-around, goal any, white or black).
    O(n) XORs of ints of n + cols + 2 bits; cached per game.

    Raises
    ------
    ValueError
        ``game`` is not chaseable.
    """
    if not game.chaseable or game.goal not in ("any", "white", "black"):
        raise ValueError(f"light chasing needs a plus grid without wrap and goal any/white/black, not {game.rules}")
    rows, cols = game.rows, game.cols
    one = 1 << (cols + 1)
    colour = {"any": 1 << cols, "white": 0, "black": one}[game.goal]
    form = [1 << c for c in range(cols)] + [0] * (game.n - cols)

    def cell(r: int, c: int) -> int:
        acc = (1 << (cols + 2 + r * cols + c)) ^ colour
        for rr, cc in ((r, c), (r - 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < rows and 0 <= cc < cols:
                acc ^= form[rr * cols + cc]
        return acc

    for r in range(rows - 1):
        for c in range(cols):
            form[(r + 1) * cols + c] = cell(r, c)
    return ChaseRows(cols, tuple(form), tuple(cell(rows - 1, c) for c in range(cols)))


def chase_forms(game: Game, board: int) -> tuple[list[int], list[int]]:
    """The forms of :func:`chase_rows` on one ``board``: ``(press forms, last-row forms)`` over the
    decisions (bits ``0..cols``) and the constant 1 (bit ``cols + 1``).  O(n).

    >>> chase_forms(Game(1, 1, "white"), 1)  # x0 XOR 1 = 0: press 0 must be 1
    ([1], [5])
    """
    chased = chase_rows(game)
    keep, shift = (1 << (chased.cols + 1)) - 1, chased.cols + 2

    def on(f: int) -> int:
        odd = (f >> (shift - 1) & 1) ^ ((f >> shift) & board).bit_count() & 1
        return (f & keep) | odd << (shift - 1)

    return [on(f) for f in chased.press], [on(f) for f in chased.last]

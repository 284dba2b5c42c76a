"""The check of a covering lower bound: exact arithmetic, no solver.

A claim "every press set taking the board to the goal has at least ``L`` presses" comes with weights
``y`` on the cells to change.  It holds when every weight is at least 0, every press changes cells
of total weight at most 1, and ``L <= ceil(sum of the weights)``: a press set changes each cell of
``diff`` at least once, so its size is at least the weights it covers (the module notes of
:mod:`flipgame.study.cover_bound`).  This module shares no code with that one.
"""

from __future__ import annotations

import math
from fractions import Fraction


def cover_lower_bound(press_masks, diff: int, weights: dict[int, Fraction]) -> int:
    """The bound ``weights`` prove for ``board ^ goal == diff``.

    Parameters
    ----------
    press_masks : sequence of int
        The cells each press changes.
    diff : int
        The cells to change.
    weights : dict of cell -> Fraction

    Returns
    -------
    int
        ``ceil(sum of the weights)``: no press set of fewer presses changes exactly ``diff``.

    Raises
    ------
    ValueError
        A weight that is negative, on a cell not in ``diff``, or a press whose cells weigh more than 1.

    Running time O(sum of the presses' cells) exact additions.
    """
    for c, w in weights.items():
        if w < 0 or not diff >> c & 1:
            raise ValueError(f"cell {c}: weight {w} is negative or on a cell that need not change")
    for j, mask in enumerate(press_masks):
        total = Fraction(0)
        m = mask & diff
        while m:
            c = (m & -m).bit_length() - 1
            m &= m - 1
            total += weights.get(c, Fraction(0))
        if total > 1:
            raise ValueError(f"press {j} changes cells of weight {total} > 1")
    return math.ceil(sum(weights.values(), Fraction(0)))

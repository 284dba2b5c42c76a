"""The check of a covering lower bound: exact arithmetic, no solver.

A claim "every press set taking the board to the goal has at least ``L`` presses" comes with weights ``y`` on
the cells to change (and, for :func:`cut_lower_bound`, weights on parity cuts). It holds when every weight is
at least 0, every press changes cells of total weight at most 1, and ``L <= ceil(sum of the weights)``: a
press set changes each cell of ``diff`` at least once, so its size is at least the weights it covers (the
module notes of :mod:`flipgame.study.cover_bound`). This module shares no code with that one.
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
        A weight that is not exact (int or Fraction: a float's rounding can overstate the bound), negative, on
        a cell not in ``diff``, or a press whose cells weigh more than 1.

    Running time O(sum of the presses' cells) exact additions.
    """
    _check_weights(weights, diff)
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


def _exact(value, what: str) -> None:
    """ValueError unless ``value`` is an int or a Fraction (not a bool, a float or a Decimal)."""
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise ValueError(f"{what}: weight {value!r} is not exact (an int or a Fraction)")


def _check_weights(weights: dict, diff: int) -> None:
    """ValueError for a weight that is not exact, negative, or on a cell that need not change."""
    for c, w in weights.items():
        _exact(w, f"cell {c}")
        if w < 0 or not diff >> c & 1:
            raise ValueError(f"cell {c}: weight {w} is negative or on a cell that need not change")


def _cells(mask: int) -> list[int]:
    out = []
    while mask:
        out.append((mask & -mask).bit_length() - 1)
        mask &= mask - 1
    return out


def _add_cut(press_masks, diff: int, cells: tuple[int, ...], z: Fraction, load: list[Fraction]) -> Fraction:
    """Add cut ``cells`` with weight ``z`` to every press's load; its right side times ``z``.  ValueError if the
    cut is not an odd set of distinct cells of ``diff`` or ``z`` is negative or not exact."""
    _exact(z, f"cut {cells}")
    if z < 0 or len(cells) % 2 == 0 or len(set(cells)) != len(cells) or any(not diff >> c & 1 for c in cells):
        raise ValueError(f"cut {cells}: its weight {z} is negative, or its cells are not an odd set to change")
    s = 0
    for c in cells:
        s |= 1 << c
    for j, mask in enumerate(press_masks):
        hits = (mask & s).bit_count()
        if hits:
            load[j] += z * ((hits + 1) // 2)
    return z * ((len(cells) + 1) // 2)


def cut_lower_bound(press_masks, diff: int, weights: dict[int, Fraction],
                    cuts: list[tuple[tuple[int, ...], Fraction]]) -> int:
    """The bound that cover weights and Chvatal-Gomory cuts prove for ``board ^ goal == diff``.

    A cut is an odd set ``S`` of cells of ``diff`` with a weight ``z >= 0``.  Every press set ``x`` (0/1, or
    any non-negative integers) changes each cell of ``S`` at least once, so half the sum of their covering
    rows, ``sum_j (n_j / 2) x_j >= |S| / 2`` (``n_j``: the cells of ``S`` press j changes), holds; rounding
    the coefficients up keeps it (x >= 0) and then, the left side being an integer, the right side rounds up:
    ``sum_j ceil(n_j / 2) x_j >= (|S| + 1) / 2`` (V. Chvatal, Discrete Math. 4, 1973; R. E. Gomory, 1958).
    If every press's cover weights plus its cut coefficients times the cut weights total at most 1, then
    ``|x| >= sum y + sum z (|S| + 1) / 2``, and the bound is its ceiling.

    Raises
    ------
    ValueError
        A weight that is not exact (int or Fraction), negative, or on a cell outside ``diff``, a cut of even or
        repeated cells, or a press over 1.

    Running time O(presses x (cells + cuts' cells)) exact additions.
    """
    _check_weights(weights, diff)
    total = sum(weights.values(), Fraction(0))
    load = [sum((weights.get(c, Fraction(0)) for c in _cells(mask & diff)), Fraction(0)) for mask in press_masks]
    for cells, z in cuts:
        total += _add_cut(press_masks, diff, cells, z, load)
    for j, value in enumerate(load):
        if value > 1:
            raise ValueError(f"press {j} carries weight {value} > 1")
    return math.ceil(total)

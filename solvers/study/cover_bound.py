"""A proven lower bound on the presses of a two-state goal: the covering LP and its dual certificate.

Every press set taking ``board`` to ``goal`` changes each cell of ``board ^ goal`` an odd number of
times, so at least once: it *covers* those cells.  Weights ``y_c >= 0`` on the cells to change with
``sum of y_c over the cells each press changes <= 1`` for every press give, for any such press set
``x``, ``|x| >= sum_j x_j sum_{c in j} y_c = sum_c y_c cover(c) >= sum_c y_c``: the number of presses
is at least ``ceil(sum y)``.  The weights are the LP dual of the covering problem, solved by HiGHS
(interior point), then made exact: rounded to rationals and scaled until every press's sum is at
most 1.  :func:`flipgame.verify.proofs.cover_check.cover_lower_bound` checks them with exact
arithmetic and shares no code with this module.

The bound is weak where parity matters (on the all-lit n x n board it is about n^2 / 5, the
fractional domination number), but it holds at any nullity, where no enumeration reaches.

Sources: the LP duality bound for set cover (V. Chvatal, "A greedy heuristic for the set-covering
problem", Math. Oper. Res. 4(3), 1979); fractional domination of grids (E. R. Scheinerman and
D. H. Ullman, *Fractional Graph Theory*, 1997, ch. 7); HiGHS (Huangfu and Hall, Math. Prog. Comp. 10,
2018).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from flipgame.core import extras
from flipgame.core.bits import set_bits
from flipgame.core.native import quiet_stdout

DENOMINATOR = 10**6
"""The weights are rounded to multiples of ``1 / DENOMINATOR`` before they are made exact."""



def cover_certificate(press_masks, diff: int) -> tuple[dict[int, Fraction], int]:
    """Dual weights on the cells of ``diff`` and the bound they prove.

    Parameters
    ----------
    press_masks : sequence of int
        The cells each press changes (bitmasks).
    diff : int
        ``board ^ goal``: the cells to change.

    Returns
    -------
    (dict cell -> Fraction, int)
        Weights (only cells of ``diff``, zero weights left out) and ``ceil(sum of them)``.

    Running time: one LP of (presses x cells to change) with one nonzero per pair of a press and a cell
    it changes, by HiGHS's interior point method; O(nonzeros) exact fractions.
    """
    highspy = extras.require("highspy", "the covering LP's lower bound")
    cells = set_bits(diff)
    if not cells:
        return {}, 0
    column = {c: i for i, c in enumerate(cells)}
    rows_of: list[list[int]] = [[] for _ in cells]
    for j, mask in enumerate(press_masks):
        for c in set_bits(mask & diff):
            rows_of[column[c]].append(j)
    with quiet_stdout():  # the constructor prints HiGHS's banner
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "ipm")
    h.setOptionValue("run_crossover", "off")
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(cells), len(press_masks)
    lp.col_cost_ = np.full(len(cells), -1.0)
    lp.col_lower_, lp.col_upper_ = np.zeros(len(cells)), np.full(len(cells), highspy.kHighsInf)
    lp.row_lower_, lp.row_upper_ = np.full(len(press_masks), -highspy.kHighsInf), np.ones(len(press_masks))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.cumsum([0] + [len(r) for r in rows_of])
    lp.a_matrix_.index_ = np.array([j for r in rows_of for j in r], dtype=np.int32)
    lp.a_matrix_.value_ = np.ones(int(lp.a_matrix_.start_[-1]))
    h.passModel(lp)
    h.run()
    values = h.getSolution().col_value
    y = {c: Fraction(max(0, round(v * DENOMINATOR)), DENOMINATOR) for c, v in zip(cells, values, strict=True)}
    worst = max((sum((y[c] for c in set_bits(mask & diff)), Fraction(0)) for mask in press_masks), default=Fraction(0))
    if worst > 1:
        y = {c: w / worst for c, w in y.items()}
    y = {c: w for c, w in y.items() if w}
    return y, math.ceil(sum(y.values(), Fraction(0)))


def odd_cuts(press_masks, diff: int) -> list[tuple[int, ...]]:
    """The Chvatal-Gomory cut candidates: every odd set of 3 or 5 cells of ``diff`` that one press changes
    together (for the plus grid, within a cell's closed neighbourhood), deduplicated, in a fixed order.
    Each set ``S`` gives ``sum_j ceil(n_j / 2) x_j >= (|S| + 1) / 2`` (module notes of
    :mod:`flipgame.verify.proofs.cover_check`)."""
    out: dict[tuple[int, ...], None] = {}
    for mask in press_masks:
        cells = set_bits(mask & diff)
        for size in (3, 5):
            for subset in itertools.combinations(cells, size):
                out[subset] = None
    return list(out)


def cut_certificate(press_masks, diff: int) -> tuple[dict[int, Fraction], list[tuple[tuple[int, ...], Fraction]], int]:
    """The covering LP strengthened with the cuts of :func:`odd_cuts`: dual weights on the cells and on the cuts,
    made exact as in :func:`cover_certificate`, and the bound they prove.  Returns ``(cell weights, [(cut cells,
    weight)], bound)``; checked by :func:`flipgame.verify.proofs.cover_check.cut_lower_bound`.

    On the all-lit n x n board the cuts count near the edges and corners, where the fractional covering pays
    less than a whole press: at n = 20 the LP rises from 84.67 to 85.60.  Running time: one LP of presses x
    (cells + cuts), 11 cuts per cell on the plus grid."""
    cells = set_bits(diff)
    if not cells:
        return {}, [], 0
    cuts = odd_cuts(press_masks, diff)
    columns = [(c,) for c in cells] + cuts
    presses_of: dict[int, list[int]] = {c: [] for c in cells}
    for j, mask in enumerate(press_masks):
        for c in set_bits(mask & diff):
            presses_of[c].append(j)
    coefficients = [_coefficients(col, presses_of) for col in columns]
    rhs = [1.0] * len(cells) + [(len(cut) + 1) / 2 for cut in cuts]
    values = _max_dual(len(press_masks), coefficients, np.array(rhs))
    exact = [Fraction(max(0, round(v * DENOMINATOR)), DENOMINATOR) for v in values]
    loads = [Fraction(0)] * len(press_masks)
    for coef, w in zip(coefficients, exact, strict=True):
        if w:
            for j, a in coef.items():
                loads[j] += w * a
    worst = max(loads, default=Fraction(0))
    if worst > 1:
        exact = [w / worst for w in exact]
    y = {c: w for c, w in zip(cells, exact[:len(cells)], strict=True) if w}
    z = [(cut, w) for cut, w in zip(cuts, exact[len(cells):], strict=True) if w]
    total = sum(y.values(), Fraction(0)) + sum((w * ((len(cut) + 1) // 2) for cut, w in z), Fraction(0))
    return y, z, math.ceil(total)


def _coefficients(cells: tuple[int, ...], presses_of: dict[int, list[int]]) -> dict[int, int]:
    """Press -> ``ceil(hits / 2)`` for a cut's cells (a single cell: its covering row, coefficient 1)."""
    hits: dict[int, int] = {}
    for c in cells:
        for j in presses_of[c]:
            hits[j] = hits.get(j, 0) + 1
    return {j: (h + 1) // 2 for j, h in hits.items()} if len(cells) > 1 else hits


def _max_dual(presses: int, coefficients: list[dict[int, int]], rhs: np.ndarray) -> np.ndarray:
    """max rhs . u over u >= 0 with, for every press j, sum over the columns of their coefficient of j times u
    at most 1: the dual of the covering LP with cuts, by HiGHS's interior point method."""
    highspy = extras.require("highspy", "the covering LP's lower bound")
    starts = np.cumsum([0] + [len(c) for c in coefficients])
    with quiet_stdout():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "ipm")
    h.setOptionValue("run_crossover", "off")
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(coefficients), presses
    lp.col_cost_ = -rhs
    lp.col_lower_, lp.col_upper_ = np.zeros(len(coefficients)), np.full(len(coefficients), highspy.kHighsInf)
    lp.row_lower_, lp.row_upper_ = np.full(presses, -highspy.kHighsInf), np.ones(presses)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = starts
    lp.a_matrix_.index_ = np.array([j for c in coefficients for j in c], dtype=np.int32)
    lp.a_matrix_.value_ = np.array([float(a) for c in coefficients for a in c.values()])
    h.passModel(lp)
    h.run()
    return np.array(h.getSolution().col_value)


def certificate_text(y: dict[int, Fraction], cols: int) -> str:
    """The weights as text: one ``row col numerator/denominator`` line per cell of nonzero weight."""
    return "".join(f"{c // cols} {c % cols} {w.numerator}/{w.denominator}\n" for c, w in sorted(y.items()))

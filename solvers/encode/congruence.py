"""A press system beyond two states as integer rows: the one encoding the cpsat and ilp models and the
MPS/LP/CP-SAT exporters share.

Variables: ``x_j`` presses of button j, ``0 <= x_j <= k - 1`` over Z_k, or ``0 <= x_j <= u_j`` for
counters (``u_j``: the least ``(target_i - board_i) / A[i, j]`` over the cells button j adds to).
One row per cell i::

    sum_j A[i, j] x_j - k s_i - g = goal_i - board_i     (Z_k; s_i an integer slack)
    sum_j A[i, j] x_j             = target_i - board_i   (counters: exact)

With goal ``any``, ``g`` is one integer variable in 0..k-1 shared by every cell (``goal_i`` is then
0); otherwise ``g`` is absent.  Minimise ``sum_j x_j``.  The slack ``s_i`` lies in ``[-1, (sum_j
A[i, j] (k - 1) + k - 1) // k]`` for every board, so a model is built once per system and only the
right-hand sides (and, for counters, the press bounds) change between boards.

Source: the slack formulation of a congruence (Wolsey, "Integer Programming", Wiley 1998, 1.3).

>>> from flipgame.model.grid import Game
>>> rows = CongruenceRows(Game(1, 3, "0", states=3))
>>> rows.terms[1], rows.slack[1], rows.rhs((2, 0, 1))
([(0, 1), (1, 1), (2, 1)], (-1, 2), [-2, 0, -1])
"""

from __future__ import annotations

import numpy as np

from flipgame.model.system import PressSystem


class CongruenceRows:
    """The rows of one press system (k >= 3 states, or counters); see the module docstring.

    Attributes
    ----------
    terms : list of list of (int, int)
        Per cell i, the ``(button j, A[i, j])`` pairs with a non-zero amount.
    top : list of int
        The largest press count of each button (k - 1, or 2**30 for counters before a board's bounds).
    slack : list of (int, int) or None
        Per cell, the bounds of its slack ``s_i`` (None for counters).
    goal : tuple of int or None
        The goal board (a uniform or explicit goal), or None for ``any`` (the variable ``g``).
    """

    def __init__(self, system: PressSystem):
        self.system = system
        a, k = system.matrix, system.states
        self.terms = [[(int(j), int(a[i, j])) for j in np.flatnonzero(a[i])] for i in range(system.cells)]
        self.top = [k - 1] * system.m if k else [1 << 30] * system.m
        self.slack = [(-1, (sum(c for _, c in t) * (k - 1) + k - 1) // k) for t in self.terms] if k else None
        self.goal = None if system.goal == "any" else system.targets[0]

    def rhs(self, board) -> list[int]:
        """The right-hand side of each row for ``board`` (a tuple of n states)."""
        goal = self.goal if self.goal is not None else (0,) * self.system.cells
        return [int(goal[i]) - int(board[i]) for i in range(self.system.cells)]

    def bounds(self, board) -> list[int] | None:
        """The largest useful count of each button on ``board``, or None when a counter is already above
        its target (no press set reaches it).  Over Z_k: k - 1 each.  O(entries)."""
        if self.system.states is not None:
            return list(self.top)
        need = self.rhs(board)
        if min(need) < 0:
            return None
        out = [None] * self.system.m
        for i, terms in enumerate(self.terms):
            for j, amount in terms:
                cap = need[i] // amount
                out[j] = cap if out[j] is None else min(out[j], cap)
        return [0 if u is None else u for u in out]

"""The branch and bound behind a pruned minimality proof: the solutions' forms, and the search.

Every press set reaching a goal is ``x_j = c_j xor F_j . f`` for the ``d`` free presses ``f`` of
the elimination the proof does (:mod:`flipgame.encode.parity_proofs`: light chasing from the far
end of a plus board without wrap, else forward elimination over every press), with ``F_j`` the
press's *form* over them.  The search assigns the free presses in increasing index order.  At a
node with ``t`` of them assigned, the presses fall into *classes*: equal forms over the ``d - t``
free presses left.  Within a class every press is ``e xor`` a known constant for one unknown
``e`` (the form's value), so a class of ``h1`` presses with constant 1 and ``h0`` with constant 0
has at least ``min(h0, h1)`` presses in every completion, and the class of the zero form exactly
``h1``.  A node whose sum of these reaches ``k`` cannot hold a press set of fewer than ``k``
presses: it is closed there (:mod:`flipgame.encode.bnb_proofs` writes the derivation).

A press's *key* packs its form: bit ``i`` is the coefficient of the ``i``-th free press, so the
class of a press at depth ``t`` is ``key >> t``, and the classes of every depth are the subtrees
of the binary trie over the keys (most significant bit first), the tree the formula's counter is
built along (:mod:`flipgame.verify.proofs.card_network`).

Sources: the bound is the one-dimensional case of the coset-leader bounds of coding theory
(MacWilliams and Sloane, *The Theory of Error-Correcting Codes*, 1977, ch. 1); branch and bound
as in Land and Doig, Econometrica 28(3), 1960.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flipgame.algebra.chase import chase_frame
from flipgame.algebra.elimination import reduce_in_order
from flipgame.core.bits import set_bits
from flipgame.model.grid import Game


@dataclass(frozen=True)
class Plan:
    """The forms of one goal's solutions, in the proof's variables.

    ``free``: free press indices (increasing: the search's order); ``keys[j]``: press ``j``'s form
    as a key (bit ``i``: coefficient of ``free[i]``); ``consts[j]``: its value when every free press
    is 0; ``method``: ``chase`` or ``dense``, the elimination the proof must do to meet them.
    """

    free: tuple[int, ...]
    keys: tuple[int, ...]
    consts: tuple[int, ...]
    method: str

    @property
    def nullity(self) -> int:
        return len(self.free)


def _chase_forms(game: Game, diff: int):
    """Light chasing in the reversed frame: per press its (mask over first-row presses, const), the
    residual equations of the last frame row, and the first-row presses."""
    rows, cols, index = chase_frame(game, reverse=True)
    mask, const = [0] * game.n, [0] * game.n
    for b in range(cols):
        mask[index(0, b)] = 1 << index(0, b)
    residual = []
    for r in range(rows):
        for c in range(cols):
            cell = index(r, c)
            new = index(r + 1, c) if r + 1 < rows else None
            m, k = 0, diff >> cell & 1
            for f in game.flippers[cell]:
                if f != new:
                    m, k = m ^ mask[f], k ^ const[f]
            if new is None:
                residual.append((m, k))
            else:
                mask[new], const[new] = m, k
    first = sorted(index(0, b) for b in range(cols))
    return mask, const, residual, first


def plan(game: Game, diff: int, method: str) -> Plan:
    """The forms of the press sets ``x`` with ``A x = diff``, as the proof's elimination meets them.

    ``method``: ``chase`` (plus boards without wrap: the frame of
    :func:`flipgame.algebra.chase.chase_frame` reversed) or ``dense``.  O(n) chase steps on
    n-bit integers, or O(n^3 / w) for dense elimination.  ValueError if no press set exists.
    """
    n = game.n
    if method == "chase":
        mask, const, residual, first = _chase_forms(game, diff)
        pivots, free = reduce_in_order(residual, first)
        forms = []
        for j in range(n):
            m, c = 0, const[j]
            for u in set_bits(mask[j]):
                pm, pc = pivots.get(u, (1 << u, 0))
                m, c = m ^ pm, c ^ pc
            forms.append((m, c))
    else:
        equations = [(sum(1 << f for f in game.flippers[i]), diff >> i & 1) for i in range(n)]
        pivots, free = reduce_in_order(equations, list(range(n)))
        forms = [pivots.get(j, (1 << j, 0)) for j in range(n)]
    where = {f: i for i, f in enumerate(free)}
    keys = []
    for m, _ in forms:
        keys.append(sum(1 << where[u] for u in set_bits(m)))
    return Plan(tuple(free), tuple(keys), tuple(c for _, c in forms), method)


class Search:
    """The branch and bound over ``plan``'s free presses for "fewer than ``k`` presses".

    :meth:`run` finds the closed nodes: ``closed[t]`` lists the assignments (bit ``i``: the value of
    ``free[i]``, ``i < t``) of the nodes closed after ``t`` free presses.  A node is closed when
    its bound (module notes) reaches ``k``, or when every free press is assigned (its one press
    set, weight below ``k`` when the claim is wrong: then the proof fails its check, as it must).
    Running time O(nodes * n); memory O(n * d).
    """

    def __init__(self, plan: Plan, k: int):
        self.plan, self.k, self.d = plan, k, plan.nullity
        self.keys = np.array(plan.keys, dtype=np.uint64)
        self.consts = np.array(plan.consts, dtype=np.uint8)
        self.classes = []  # per depth: (class ids per press, class prefixes, sizes, index of prefix 0 or -1)
        for t in range(self.d + 1):
            prefixes, inverse = np.unique(self.keys >> np.uint64(t), return_inverse=True)
            zero = int(np.searchsorted(prefixes, 0)) if prefixes[0] == 0 else -1
            self.classes.append((inverse, prefixes, np.bincount(inverse), zero))
        self.bits = [((self.keys >> np.uint64(t)) & np.uint64(1)).astype(np.uint8) for t in range(self.d)]
        self.closed: list[list[int]] = [[] for _ in range(self.d + 1)]
        self.nodes = 0

    def minima(self, t: int, const: np.ndarray) -> np.ndarray:
        """Per class of depth ``t``: the fewest presses it holds in any completion (``const``: each
        press's value with the unassigned free presses 0)."""
        inverse, _, sizes, zero = self.classes[t]
        ones = np.bincount(inverse, weights=const, minlength=len(sizes)).astype(np.int64)
        mins = np.minimum(ones, sizes - ones)
        if zero >= 0:
            mins[zero] = ones[zero]
        return mins

    def consts_at(self, alpha: int) -> np.ndarray:
        """Each press's value under the assignment ``alpha``, the unassigned free presses 0."""
        parity = np.bitwise_count(self.keys & np.uint64(alpha)) & np.uint8(1)
        return self.consts ^ parity.astype(np.uint8)

    def run(self) -> Search:
        stack = [(0, 0, self.consts)]
        while stack:
            t, alpha, const = stack.pop()
            self.nodes += 1
            if t == self.d or int(self.minima(t, const).sum()) >= self.k:
                self.closed[t].append(alpha)
                continue
            stack.append((t + 1, alpha | 1 << t, const ^ self.bits[t]))
            stack.append((t + 1, alpha, const))
        return self


def tree_certificate(plan: Plan, search: Search) -> tuple[int, list[int], list[tuple[int, int]]]:
    """The branch-and-bound certificate of ``search`` (:func:`flipgame.verify.proofs.tree_check.check_tree`):
    ``x0``, the press set with every free press 0; null vector ``i``, the presses whose forms hold free
    press ``i``; the closed nodes ``(t, alpha)``.  O(n d) bit operations plus the nodes."""
    x0 = sum(1 << j for j, c in enumerate(plan.consts) if c)
    null_vectors = [sum(1 << j for j, key in enumerate(plan.keys) if key >> i & 1) for i in range(plan.nullity)]
    return x0, null_vectors, [(t, alpha) for t, nodes in enumerate(search.closed) for alpha in nodes]

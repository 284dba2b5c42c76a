"""DRAT proofs by branch and bound: "at most ``k - 1`` presses" refuted node by node of a pruned split.

The formula's counter is a cardinality network along the trie of the presses' keys
(:mod:`flipgame.verify.proofs.card_network`), so every class of :mod:`flipgame.encode.bnb` has a
unary output ``U_c`` (``U_c[i]``: at least ``i + 1`` of its presses).  The proof:

1. **Press rows.**  The elimination of :mod:`flipgame.encode.parity_proofs` (light chasing from
   the far end, or forward elimination), then back substitution: a row ``x_j + F_j . f = c_j``
   for every press over the free presses only.  Chased boards chase a second time, from first-row
   rows over the free presses.  Each row's chain starts at ``x_j`` and ends at its last free
   press, so unit propagation from an assignment of the first free presses fixes exactly the
   presses whose forms it covers, and touches no other row.
2. **Class rows**, per depth ``t`` with closed nodes: for a class whose form ``L`` over the free
   presses left has two or more of them, a fresh variable ``e`` with the row ``XOR L + e = 0``
   (its chain defined by RAT steps, ending at ``e``), and per member the sum of its press row and
   that row, ``x_j + G_j . f + e = c_j``, over the assigned free presses only.  Under the node's
   assignment and a value of ``e`` they fix every member.  A class of one free press ``f_i`` uses
   ``e = f_i`` and the press rows.
3. **Closed nodes.**  With ``a`` the node's assignment, per class holding at least ``m`` presses
   in every completion: ``-a | -e | U_c[m-1]`` and ``-a | e | U_c[m-1]`` (RUP: the members are fixed,
   the network counts them), then ``-a | U_c[m-1]``; then ``-a`` itself (RUP: the class outputs and
   the fixed presses reach the root's output ``k - 1``, which the formula forbids).
4. **The tree.**  Each open node's clause is RUP from its two children's; the root's is empty.

Nothing here is trusted: the checker replays every step against a formula built from the press
masks and the keys alone, and any keys give a correct counter.

Sources: the row calculus of :mod:`flipgame.encode.parity_rows` (Philipp and Rebola-Pardo, JELIA
2016); cardinality networks (Asin et al., Constraints 16(2), 2011); extended resolution (Tseitin
1968) for the class variables.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from flipgame.encode.bnb import Plan, Search
from flipgame.encode.parity_proofs import chase_frame, chase_rows, eliminate
from flipgame.encode.parity_rows import Log, Row, add_rows, drop, row_clauses
from flipgame.model.grid import Game

QUIET_NODES = 2000
"""Closed nodes written between two points where a checker reading the proof may end a piece."""


def _reduce(log: Log, pivots: list[Row]) -> dict[int, Row]:
    """Back substitution: ``{pivot press: its row over the free presses}`` (pivot rows hold their
    pivot first and higher variables only)."""
    reduced: dict[int, Row] = {}
    for row in sorted(pivots, key=lambda r: -r.pos[0]):
        v = row.pos[0]
        for u in [u for u in row.pos[1:] if u in reduced]:
            nxt = add_rows(log, row, reduced[u])
            drop(log, row)
            row = nxt
        reduced[v] = row
    return reduced


def press_rows(log: Log, game: Game, cells: list[Row], plan: Plan) -> dict[int, Row]:
    """Step 1 of the module notes: ``{press: row}`` for every press that is not free.

    Raises RuntimeError when the rows are not the plan's forms (a generator bug: the proof would fail
    its check anyway)."""
    if plan.method == "chase":
        residual, first = chase_rows(log, game, cells, reverse=True)
        pivots, free = eliminate(log, residual, first)
        reduced = _reduce(log, pivots)
        rows, cols, index = chase_frame(game, reverse=True)
        kept: dict[int, Row] = {}
        rest, _ = chase_rows(log, game, cells, reverse=True, first_rows=[reduced.get(index(0, b)) for b in
                                                                          range(cols)], keep=kept)
        if any(r.pos or r.parity for r in rest):
            raise RuntimeError("the second chase left a residual equation")
        rows_of = reduced | kept
    else:
        pivots, free = eliminate(log, cells, list(range(game.n)))
        rows_of = _reduce(log, pivots)
    if tuple(free) != plan.free:
        raise RuntimeError(f"the elimination's free presses {free} are not the plan's {list(plan.free)}")
    for j, row in rows_of.items():
        want = [j] + [plan.free[i] for i in range(plan.nullity) if plan.keys[j] >> i & 1]
        if row.pos != want or row.parity != plan.consts[j]:
            raise RuntimeError(f"press {j}'s row is not its form in the plan")
    return rows_of


def xor_row(log: Log, positions: list[int]) -> tuple[Row, int]:
    """A fresh variable ``e`` and the row ``XOR(positions) + e = 0`` (its position ``e - 1``, after every
    press): the prefix chain of ``positions`` and the link to ``e`` by RAT steps, the unit by RUP."""
    lits = [positions[0] + 1]
    for v in positions[1:]:
        f = log.fresh()
        y, x = lits[-1], v + 1
        log.add_all(([-f, y, x], [f, -y, x], [f, y, -x], [-f, -y, -x]))
        lits.append(f)
    q = lits[-1]
    e = log.fresh()
    definition = ([e, -q], [-e, q])
    log.add_all(definition)
    z = log.fresh()
    log.add_all(([-z, q, e], [z, -q, e], [z, q, -e], [-z, -q, -e]))
    helpers = ([-z, q], [-z, -q])
    log.add_all(helpers)
    log.add([-z])
    log.delete_all((*helpers, *definition))
    return Row([*positions, e - 1], [*lits, z], 0), e


def xor3(a: int, b: int, c: int) -> list[list[int]]:
    """The four clauses of ``a xor b xor c = 0``, as the formula writes a chain link."""
    lits = (a, b, c)
    return [[-x if k >> i & 1 else x for i, x in enumerate(lits)] for k in range(8) if k.bit_count() % 2]


def drop_cell_chains(log: Log, formula, rows: dict[int, Row]) -> None:
    """Delete the formula's cell equations that are no press's row (their units stay, as a checker
    keeps units): once every press has its row over the free presses they are implied, and kept they
    would let unit propagation chase lights across the board in every later step.  :attr:`Log.base`
    becomes the formula's clauses left, the base of the pieces a checker cuts after this point."""
    used = {row.lit[-1] for row in rows.values() if not row.owned and row.lit}
    gone, chain_vars = [], set()
    for flippers, prefix, _ in formula.chains:
        if prefix and prefix[-1] in used:
            continue
        chain_vars.update(prefix[1:])
        for k in range(1, len(prefix)):
            gone += xor3(prefix[k], prefix[k - 1], flippers[k] + 1)
    log.delete_all(gone)
    log.base = [c for c in formula.clauses if len(c) < 2 or not chain_vars.intersection(map(abs, c))]


class Writer:
    """Steps 2-4 of the module notes for one search (:meth:`write`)."""

    def __init__(self, log: Log, formula, plan: Plan, search: Search, rows: dict[int, Row]):
        self.log, self.network, self.plan, self.search, self.rows = log, formula.network, plan, search, rows
        self.var: dict[tuple[int, int], int] = {}  # (depth, class prefix) -> its variable e
        self.offset: dict[tuple[int, int], int] = {}  # (depth, assigned part G) -> its variable g
        self.made: list[Row] = []  # class rows

    def clause(self, t: int, alpha: int) -> list[int]:
        """``-a``: the negation of the assignment ``alpha`` of the first ``t`` free presses, the last
        assigned first (a checker watches a clause's first literals: these change least often)."""
        free = self.plan.free
        return [-(free[i] + 1) if alpha >> i & 1 else free[i] + 1 for i in reversed(range(t))]

    def classes(self, t: int, alpha: int) -> list[tuple[int, int]]:
        """(prefix, fewest presses) of the classes of depth ``t`` that hold at least one press in every
        completion of ``alpha``, the zero form's class left out (propagation counts it)."""
        _, prefixes, _, zero = self.search.classes[t]
        mins = self.search.minima(t, self.search.consts_at(alpha))
        if zero >= 0:
            mins[zero] = 0
        return [(int(prefixes[i]), int(mins[i])) for i in np.flatnonzero(mins)]

    def members(self, t: int, prefix: int) -> list[int]:
        return [int(j) for j in np.flatnonzero((self.search.keys >> np.uint64(t)) == np.uint64(prefix))]

    def class_rows(self, t: int, needed: set[int]) -> None:
        """Step 2 for depth ``t``: the variable ``e`` of each class of ``needed``, a variable ``g`` per
        assigned part ``G`` of its members (``XOR G + g = 0``), and per member ``x_j + e + g = c_j``."""
        free, low = self.plan.free, (1 << t) - 1
        for prefix in sorted(needed):
            form = [free[t + i] for i in range(self.plan.nullity - t) if prefix >> i & 1]
            row = None
            if len(form) == 1:
                self.var[(t, prefix)] = form[0] + 1
            else:
                row, self.var[(t, prefix)] = xor_row(self.log, form)
                self.made.append(row)
            for j in self.members(t, prefix):
                if j in free:
                    continue
                part = self.plan.keys[j] & low
                member = self.rows[j] if row is None else add_rows(self.log, self.rows[j], row)
                if part:
                    if (t, part) not in self.offset:
                        g_row, self.offset[(t, part)] = xor_row(self.log, [free[i] for i in range(t) if part >> i & 1])
                        self.made.append(g_row)
                    g_rows = [r for r in self.made if r.pos[-1] == self.offset[(t, part)] - 1]
                    nxt = add_rows(self.log, member, g_rows[0])
                    if member is not self.rows[j]:
                        drop(self.log, member)
                    member = nxt
                if member is not self.rows[j]:
                    self.made.append(member)

    def pattern(self, t: int, prefix: int, alpha: int) -> list[int]:
        """The negation of the values ``alpha`` gives the ``g`` of the class's members."""
        out = []
        for part in sorted({self.plan.keys[j] & (1 << t) - 1 for j in self.members(t, prefix)} - {0}):
            g = self.offset[(t, part)]
            out.append(-g if (part & alpha).bit_count() & 1 else g)
        return out

    def closed(self, t: int, alpha: int) -> list[int]:
        """Step 3 for one closed node; its clause."""
        log, level, neg = self.log, self.plan.nullity - t, self.clause(t, alpha)
        lemmas = []
        for prefix, m in self.classes(t, alpha):
            out, e = self.network[(level, prefix)][m - 1], self.var[(t, prefix)]
            given = self.pattern(t, prefix, alpha)
            log.add([out, -e, *given])
            lemmas.append([out, *given])
            log.add(lemmas[-1])
            log.delete([out, -e, *given])
        log.add(neg)
        log.delete_all(lemmas)
        return neg

    def write(self) -> None:
        """Steps 2-4: the class rows of every depth with closed nodes, then the tree depth first, each
        open node's clause derived from its children's as soon as both are (so that few are alive)."""
        for t, nodes in enumerate(self.search.closed):
            needed = {p for alpha in nodes for p, _ in self.classes(t, alpha)}
            if needed:
                self.class_rows(t, needed)
        self.log.split_from = len(self.log.dels)
        closed = [set(c) for c in self.search.closed]
        count = [0]

        def node(t: int, alpha: int) -> list[int]:
            if alpha in closed[t]:
                count[0] += 1
                if count[0] % QUIET_NODES == 0:
                    self.log.quiet(lambda: row_clauses([*self.rows.values(), *self.made], pending))
                return self.closed(t, alpha)
            left = node(t + 1, alpha)
            pending.append(left)
            right = node(t + 1, alpha | 1 << t)
            pending.pop()
            self.log.add(self.clause(t, alpha))
            self.log.delete_all((left, right))
            return self.clause(t, alpha)

        pending: list[list[int]] = []
        node(0, 0)


def refutation_bnb(game: Game, formula, plan: Plan, bound: int, on_quiet: Callable | None = None) -> Log:
    """A DRAT refutation of "at most ``bound`` presses" whose formula counts along ``plan``'s keys.

    Parameters
    ----------
    game : Game
        Its rules choose the elimination (``plan.method``); the equations come from the formula.
    formula : flipgame.verify.proofs.lower_bound.Formula
        Built with ``keys=plan.keys, key_bits=plan.nullity`` (the ``network`` counter).
    plan : Plan
        :func:`flipgame.encode.bnb.plan` for the formula's ``board ^ target``.
    bound : int
        The formula's bound: the search closes nodes that hold at least ``bound + 1`` presses.
    on_quiet : callable, optional
        As in :func:`flipgame.encode.parity_proofs.refutation`.

    Returns
    -------
    Log
        The proof; it refutes the formula only if no press set of at most ``bound`` presses
        exists (else the checker rejects the leaf that holds one).  Running time: the elimination,
        O(n d) row positions for the press rows, and per closed node O(classes) lines.
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()  # millions of small lists, none cyclic
    try:
        log = Log(formula.nvars, on_quiet=on_quiet)
        cells = [Row(list(f), list(p), bit, owned=False) for f, p, bit in formula.chains]
        rows = press_rows(log, game, cells, plan)
        if not log.refuted:
            drop_cell_chains(log, formula, rows)
            Writer(log, formula, plan, Search(plan, bound + 1).run(), rows).write()
        return log
    finally:
        if enabled:
            gc.enable()

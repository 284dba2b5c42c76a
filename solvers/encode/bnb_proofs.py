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
   (its chain defined by RAT steps, ending at ``e``); a class of one free press ``f_i`` uses
   ``e = f_i``.  Per member ``j``, with ``G_j`` its form over the ``t`` assigned free presses, a
   fresh ``d`` with ``XOR G_j + d = 0`` (``d`` the press itself when ``G_j`` has one, and the
   constant 0 when it is empty), and the row ``x_j + d + e = c_j``, the sum of its press row and
   those two.  Given ``d`` and ``e`` it fixes ``x_j``.
3. **Closed nodes**, depth by depth, each depth's class rows deleted after its nodes.  With ``a``
   the node's assignment, per class holding at least ``m`` presses in every completion, ``D`` is
   the clause "the ``d`` of some of the first ``m`` members that are 1 at ``a``, or of the first
   ``m`` that are 0, has another value than at ``a``": ``U_c[m-1] | -e | D`` and
   ``U_c[m-1] | e | D`` (RUP: those ``2m`` members are fixed, ``m`` of them 1, and the network
   counts them), then ``U_c[m-1] | D`` (RUP: its two cases clash at once), then ``-a`` (RUP: ``a``
   fixes every ``d``, the class lemmas their outputs, the press rows the zero class, and the
   root's output ``k - 1`` is reached, which the formula forbids).  A case over ``-a`` instead of
   ``D`` made the checker fix and count the whole zero class in every case.  A class lemma
   depends on the class, ``m`` and ``D`` alone: it stays alive for the rest of a window of
   :data:`LEMMA_WINDOW` nodes, and the nodes there that need it write nothing for that class.
4. **The tree.**  Each open node's clause is RUP from its two children's; the root's is empty.
   A node is resolved (its children's clauses deleted) as soon as its subtree's depths are
   written, so few node clauses are alive: each one alive is visited by the checker in every
   later check that falsifies a literal it watches.

Nothing here is trusted: the checker replays every step against a formula built from the press
masks and the keys alone, and any keys give a correct counter.

Sources: the row calculus of :mod:`flipgame.encode.parity_rows` (Philipp and Rebola-Pardo, JELIA
2016); cardinality networks (Asin et al., Constraints 16(2), 2011); extended resolution (Tseitin
1968) for the class variables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from flipgame.algebra.chase import chase_frame
from flipgame.encode.bnb import Plan, Search
from flipgame.encode.parity_proofs import chase_rows, eliminate
from flipgame.encode.parity_rows import Log, Row, add_rows, drop, row_clauses, sum_all
from flipgame.model.grid import Game

QUIET_NODES = 2000
"""Closed nodes written between two points where a checker reading the proof may end a piece."""

LEMMA_WINDOW = 500
"""Closed nodes of one depth that share their class lemmas ``U | D`` (none is alive at a quiet point)."""


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


@dataclass
class Depth:
    """Step 2's rows for one depth: ``var[i]`` (the variable ``e`` of class ``i``), ``delta[j]`` (the
    variable ``d`` of press ``j``'s row ``x_j + d + e = c_j``, 0 when ``d`` is the constant 0), the rows
    ``made`` (deleted after the depth), the class lemmas ``U | D`` alive in the current window,
    ``lemmas[(i, m, D as bytes)]``; ``order``, the members (press indices) of every class one after the
    other, ``cls[p]`` the class of ``order[p]`` and ``start[i]`` where class ``i`` begins in it."""

    var: dict[int, int]
    delta: np.ndarray
    made: list[Row]
    order: np.ndarray
    cls: np.ndarray
    start: np.ndarray
    lemmas: dict[tuple[int, int, bytes], list[int]] = field(default_factory=dict)


class Writer:
    """Steps 2-4 of the module notes for one search (:meth:`write`)."""

    def __init__(self, log: Log, formula, plan: Plan, search: Search, rows: dict[int, Row]):
        self.log, self.network, self.plan, self.search, self.rows = log, formula.network, plan, search, rows
        self.done: dict[tuple[int, int], list[int]] = {}  # alive node clauses (closed or resolved)
        self.closed_sets = [set(c) for c in search.closed]

    def clause(self, t: int, alpha: int) -> list[int]:
        """``-a``: the negation of the assignment ``alpha`` of the first ``t`` free presses, the last
        assigned first (a checker watches a clause's first literals: these change least often)."""
        free = self.plan.free
        return [-(free[i] + 1) if alpha >> i & 1 else free[i] + 1 for i in reversed(range(t))]

    def bounds(self, t: int, const: np.ndarray) -> np.ndarray:
        """Per class of depth ``t``: the fewest presses it holds in every completion (``const``:
        :meth:`Search.consts_at` of the node), 0 for the zero form's class (propagation counts it)."""
        zero = self.search.classes[t][3]
        mins = self.search.minima(t, const)
        if zero >= 0:
            mins[zero] = 0
        return mins

    def classes(self, t: int, const: np.ndarray) -> list[tuple[int, int]]:
        """(class index, fewest presses) of the classes of :meth:`bounds` that hold at least one press."""
        mins = self.bounds(t, const)
        return [(int(i), int(mins[i])) for i in np.flatnonzero(mins)]

    def class_rows(self, t: int, needed: set[int]) -> Depth:
        """Step 2 for depth ``t`` and the classes of indices ``needed``."""
        inverse, prefixes, sizes, _ = self.search.classes[t]
        free, keys, log = self.plan.free, self.plan.keys, self.log
        low = np.bitwise_count(self.search.keys & np.uint64((1 << t) - 1))
        # D takes each class's first members: those whose d is the constant 0 (no literal), then a fresh
        # d, then a free press (in every row's chain: a long watch list for the checker)
        cost = np.where(low == 1, 2, np.minimum(low, 1))
        order = np.lexsort((cost, inverse))
        start = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        here = Depth({}, np.zeros(len(keys), dtype=np.int64), [], order, inverse[order], start)
        members = np.split(order, start[1:])
        shared: dict[tuple[int, ...], tuple[Row, int]] = {}
        for i in sorted(needed):
            prefix = int(prefixes[i])
            form = [free[t + b] for b in range(self.plan.nullity - t) if prefix >> b & 1]
            class_row = None
            if len(form) == 1:
                here.var[i] = form[0] + 1
            else:
                class_row, here.var[i] = xor_row(log, form)
                here.made.append(class_row)
            for j in members[i].tolist():
                part = tuple(free[b] for b in range(t) if keys[j] >> b & 1)
                part_row = None
                if len(part) == 1:
                    here.delta[j] = part[0] + 1
                elif part:
                    if part not in shared:
                        shared[part] = xor_row(log, list(part))
                        here.made.append(shared[part][0])
                    part_row, here.delta[j] = shared[part]
                if class_row is not None or part_row is not None:
                    here.made.append(sum_all(log, self.rows[j], [class_row, part_row]))
        return here

    def reasons(self, const: np.ndarray, mins: np.ndarray, here: Depth) -> tuple[np.ndarray, np.ndarray]:
        """Every class's ``D`` at once: (sorted distinct literals of the classes in turn, where each
        class's run begins: ``len(mins) + 1`` offsets).  A class's ``D`` takes the literals "its ``d``
        is not the node's value" of its first ``m`` members that are 1 and its first ``m`` that are 0
        (``m``: ``mins`` of the class, in the member order of :meth:`class_rows`)."""
        flips = np.where(const ^ self.search.consts, -here.delta, here.delta)[here.order]
        high = const[here.order].astype(np.int64)
        before = np.cumsum(high) - high  # ones before each position, then within its class
        ones = before - before[here.start][here.cls]
        rank = np.where(high == 1, ones, np.arange(len(high)) - here.start[here.cls] - ones)
        keep = (rank < mins[here.cls]) & (flips != 0)
        lits, cls = flips[keep], here.cls[keep]
        at = np.lexsort((lits, cls))
        lits, cls = lits[at], cls[at]
        fresh = np.ones(len(lits), dtype=bool)
        fresh[1:] = (lits[1:] != lits[:-1]) | (cls[1:] != cls[:-1])
        lits, cls = lits[fresh], cls[fresh]
        return lits, np.searchsorted(cls, np.arange(len(mins) + 1))

    def closed(self, t: int, alpha: int, here: Depth) -> None:
        """Step 3 for one closed node: per class without its lemma ``U | D`` in ``here.lemmas``,
        ``U | -e | D`` and ``U | e | D``, then those classes' ``U | D`` (its two cases clash at once),
        then ``-a``.  O(n) array work, then O(1) Python steps a class plus its lines."""
        log, level = self.log, self.plan.nullity - t
        prefixes = self.search.classes[t][1]
        const = self.search.consts_at(alpha)
        mins = self.bounds(t, const)
        lits, bounds = self.reasons(const, mins, here)
        lemmas, new = here.lemmas, []
        for i in np.flatnonzero(mins).tolist():
            m = int(mins[i])
            reason = lits[bounds[i]:bounds[i + 1]]
            key = (i, m, reason.tobytes())
            if key not in lemmas:
                out, e, rest = self.network[(level, int(prefixes[i]))][m - 1], here.var[i], reason.tolist()
                log.add_all(([out, -e, *rest], [out, e, *rest]))
                new.append((key, out, e, rest))
        for key, out, e, rest in new:
            lemmas[key] = [out, *rest]
            log.add(lemmas[key])
            log.delete_all(([out, -e, *rest], [out, e, *rest]))
        self.done[(t, alpha)] = self.clause(t, alpha)
        log.add(self.done[(t, alpha)])

    def depth(self, t: int) -> None:
        """Every closed node of depth ``t``, its class rows made first and deleted after."""
        nodes = self.search.closed[t]
        needed = {i for alpha in nodes for i, _ in self.classes(t, self.search.consts_at(alpha))}
        here = self.class_rows(t, needed)
        for count, alpha in enumerate(nodes, start=1):
            self.closed(t, alpha, here)
            if count % LEMMA_WINDOW == 0 or count % QUIET_NODES == 0 or count == len(nodes):
                self.log.delete_all(here.lemmas.values())
                here.lemmas.clear()
            if count % QUIET_NODES == 0:
                self.log.quiet(lambda: row_clauses([*self.rows.values(), *here.made], list(self.done.values())))
        for row in here.made:
            drop(self.log, row)
        self.resolve(t)
        self.log.quiet(lambda: row_clauses(self.rows.values(), list(self.done.values())))

    def resolve(self, written: int) -> None:
        """Step 4 for the nodes whose subtrees are closed at depths up to ``written``: each one's clause,
        children first, its children's deleted (the root's clause is empty)."""
        closed, done, log = self.closed_sets, self.done, self.log

        def node(t: int, alpha: int) -> bool:
            if (t, alpha) in done:
                return True
            if alpha in closed[t] or t >= written:
                return False
            ready = node(t + 1, alpha) & node(t + 1, alpha | 1 << t)
            if ready:
                done[(t, alpha)] = self.clause(t, alpha)
                log.add(done[(t, alpha)])
                log.delete_all((done.pop((t + 1, alpha)), done.pop((t + 1, alpha | 1 << t))))
            return ready

        node(0, 0)

    def write(self) -> None:
        self.log.split_from = len(self.log.dels)
        for t in range(self.plan.nullity + 1):
            if self.search.closed[t]:
                self.depth(t)


def refutation_bnb(game: Game, formula, plan: Plan, bound: int, on_quiet: Callable | None = None,
                   search: Search | None = None) -> Log:
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
    search : Search, optional
        ``Search(plan, bound + 1)`` already run (else it runs here).

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
            Writer(log, formula, plan, search or Search(plan, bound + 1).run(), rows).write()
        return log
    finally:
        if enabled:
            gc.enable()

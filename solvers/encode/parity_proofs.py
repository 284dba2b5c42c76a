"""DRAT proofs of parity reasoning: refutations of "at most k presses" without search.

A press set ``x`` reaching goal ``t`` from board ``b`` solves ``A x = b ^ t``
over GF(2).  The lower-bound formula of :mod:`flipgame.verify.proofs.lower_bound`
states each cell's equation as a *prefix chain* (``P_1 = x_{a_1}``,
``P_j <-> P_{j-1} XOR x_{a_j}`` over the sorted flippers, and a unit on the
last ``P``), plus a cardinality counter.  CDCL solvers need exponentially long
resolution proofs for such formulas; this module writes short ones instead, by
doing the elimination itself and logging every sum of two equations as DRAT
steps over extension variables:

* **A row** (a derived equation ``XOR_{v in S} x_v = p``) is a prefix chain
  over sorted ``S`` like the formula's own, and a unit clause on its last
  prefix variable.
* **A sum** ``S3 = S1 xor S2`` walks the sorted union keeping the invariant
  ``I(v): y1(v) xor y2(v) xor y3(v) = 0`` (``y_i(v)``: the prefix of row i up
  to position v).  Where only one row has ``v``, the new prefix variable of the
  sum is defined by its four chain clauses (RAT on the fresh variable) and the
  four clauses of ``I(v)`` are RAT on it too: each resolvent is RUP by one
  step of propagation through the operand's chain and ``I(u)``.  Where both
  rows have ``v`` it cancels: each clause ``C`` of ``I(v)`` is derived as
  ``C | x_v``, ``C | -x_v`` (both RUP) and ``C``.  ``I(u)`` and the helpers are
  deleted.  At the end the unit of the sum is RUP, and an empty sum of parity
  1 is the empty clause.  About 12 proof lines per position, 24 where a
  variable cancels.
* **The order.**  Plus boards without wrap: light chasing (each press of row
  ``r + 1`` as the sum of its cell equation above and the rows already
  derived: rows over the first-row presses only, O(n^3) positions on an
  n x n board instead of the O(n^4) of dense elimination), then forward
  elimination of the last-row system over the first-row presses.  Other
  rules: forward elimination of the whole press matrix.  The derived rows are
  then triangular, so unit propagation through them and the formula's own
  chains fixes every press, and the counter fails: the empty clause is RUP.
  At nullity ``d`` the ``d`` free presses are split on: ``2**d`` RUP clauses
  resolved up to the empty clause, each pair deleted once resolved (``2**(d+2) - 3`` lines).

Nothing here is trusted: the checker replays every step.

Sources: Philipp and Rebola-Pardo, "DRAT proofs for XOR reasoning", JELIA
2016 (Tseitin chains and XOR sums in DRAT); Sinz and Biere, "Extended
resolution proofs for conjoining BDDs", CSR 2006 (extension variables
defined by RAT); Soos and Bryant, "Proof generation for CDCL solvers using
Gauss-Jordan elimination", 2023 (the same role in CryptoMiniSat); light
chasing as in :mod:`flipgame.algebra.gf2`.
"""

from __future__ import annotations

from collections.abc import Callable

from flipgame.algebra.chase import chase_frame
from flipgame.core.limits import SPLIT_MAX_NULLITY
from flipgame.encode.parity_rows import Log, Row, add_rows, drop, row_clauses, sum_all
from flipgame.model.grid import Game

__all__ = ["Log", "Row", "chase_rows", "close", "eliminate", "refutation"]


# ---------------------------------------------------------------------------
# orders: forward elimination, light chasing
# ---------------------------------------------------------------------------


def eliminate(log: Log, rows: list[Row], order: list[int]) -> tuple[list[Row], list[int]]:
    """Forward elimination of ``rows`` over the variables ``order`` (press indices, increasing).

    Returns (pivot rows, free variables).  Rows that become empty are dropped
    (parity 0) or end the proof (parity 1: the empty clause).  O(rank * rows * width) positions.
    """
    rest = [r for r in rows if r.pos]
    pivots: list[Row] = []
    free: list[int] = []
    for v in order:
        having = [r for r in rest if r.pos and r.pos[0] == v]
        if not having:
            free.append(v)
            continue
        pivot = min(having, key=lambda r: len(r.pos))
        rest.remove(pivot)
        kept = []
        for r in rest:
            if r.pos and r.pos[0] == v:
                s = add_rows(log, r, pivot)
                drop(log, r)
                if log.refuted:
                    return pivots, free
                if s.pos:
                    kept.append(s)
            else:
                kept.append(r)
        rest = kept
        pivots.append(pivot)
        log.quiet(lambda rest=rest: row_clauses([*pivots, *rest]))
    return pivots, free


def chase_rows(log: Log, game: Game, cells: list[Row], reverse: bool = False, first_rows=None,
               keep: dict | None = None) -> tuple[list[Row], list[int]]:
    """Light chasing: the rows over the first (frame) row's presses that the last row must satisfy.

    ``cells[i]``: the formula's equation of cell ``i``.  Returns (residual rows, first-row press
    indices).  ``D(r + 1, c) = E(r, c) + D(r - 1, c) + D(r, c - 1) + D(r, c) + D(r, c + 1)``, where
    ``D(r, c)`` is an equation over the press of ``(r, c)`` and first-row presses only.

    ``first_rows[c]``, when given, is ``D(0, c)`` (None: the press stays a variable): with the
    first-row pivots' rows over the free presses, every ``D`` is over free presses only.  ``keep``
    (a dict) receives every ``D(r, c)`` with r >= 1 under its press index instead of dropping it.
    ``reverse``: the frame of :func:`chase_frame`.
    """
    rows, cols, index = chase_frame(game, reverse)
    first = sorted(index(0, b) for b in range(cols))
    prev2: list[Row | None] = [None] * cols  # D(r-1, .)
    prev: list[Row | None] = list(first_rows) if first_rows else [None] * cols  # D(r, .)
    for r in range(rows):
        cur: list[Row] = []
        for c in range(cols):
            parts = (prev2[c], prev[c - 1] if c else None, prev[c], prev[c + 1] if c + 1 < cols else None)
            cur.append(sum_all(log, cells[index(r, c)], parts))
            if log.refuted:
                return [], first
        if keep is None:
            _drop_all(log, prev2)
            log.quiet(lambda alive=(*prev, *cur): row_clauses(alive))
        elif r + 1 < rows:
            keep.update((index(r + 1, c), d) for c, d in enumerate(cur))
        prev2, prev = prev, cur
    if keep is None:
        _drop_all(log, prev2)
    return prev, first


def _drop_all(log: Log, rows) -> None:
    for d in rows:
        if d is not None:
            drop(log, d)


QUIET_SPLIT_DEPTH = 12
"""Depth of the case split down to which each finished subtree is a point where a piece may end."""


def close(log: Log, free: list[int], rows=()) -> None:
    """Split on the free presses: a RUP clause per assignment, resolved up to the empty clause.

    ``rows``: the derived rows the leaves propagate through (named alive at the split's quiet points)."""
    log.split_from = len(log.dels)
    done: list[list[int]] = []  # the finished left subtrees' clauses on the current path

    def node(prefix: list[int]) -> None:
        clause = [-lit for lit in prefix]
        if len(prefix) == len(free):
            log.add(clause)
            return
        x = free[len(prefix)] + 1
        node(prefix + [x])
        done.append(clause + [-x])
        if len(prefix) < QUIET_SPLIT_DEPTH:
            log.quiet(lambda: row_clauses(rows, done))
        node(prefix + [-x])
        done.pop()
        log.add(clause)
        if prefix:  # the children are resolved: kept, they would slow every later propagation
            log.delete_all((clause + [-x], clause + [x]))

    node([])


def refutation(game: Game, chains, top: int, method: str = "auto", on_quiet: Callable | None = None) -> Log:
    """A DRAT refutation of the lower-bound formula whose cell chains are ``chains``.

    Parameters
    ----------
    game : Game
        Only its shape and rules choose the order; the equations come from ``chains``.
    chains : list of (flippers, prefix variables, bit)
        The formula's chain of each cell (:class:`flipgame.verify.proofs.lower_bound.Formula`).
    top : int
        Highest variable of the formula; extension variables follow.
    method : {"auto", "chase", "dense"}
    on_quiet : callable, optional
        :attr:`Log.on_quiet`: called where a checker reading the proof as it is written may cut it.

    Returns
    -------
    Log
        The proof.  It refutes the formula only if every solution of the
        equations is heavier than the formula's bound (else the checker
        rejects it at its last line).

    Raises
    ------
    ValueError
        More than :data:`SPLIT_MAX_NULLITY` free presses, or ``chase`` on rules it does not fit.
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()  # millions of small lists, none cyclic
    try:
        return _refutation(game, chains, top, method, on_quiet)
    finally:
        if enabled:
            gc.enable()


def _refutation(game: Game, chains, top: int, method: str, on_quiet: Callable | None) -> Log:
    log = Log(top, on_quiet=on_quiet)
    cells = [Row(list(f), list(p), bit, owned=False) for f, p, bit in chains]
    if method == "auto":
        method = "chase" if game.chaseable else "dense"
    if method == "chase":
        if not game.chaseable:
            raise ValueError("light chasing needs the plus neighbourhood without wrap")
        rows, first = chase_rows(log, game, cells)
        if log.refuted:
            return log
        pivots, free = eliminate(log, rows, first)
    else:
        pivots, free = eliminate(log, cells, list(range(game.n)))
    if log.refuted:
        return log
    if len(free) > SPLIT_MAX_NULLITY:
        raise ValueError(f"{len(free)} free presses; splitting allows at most {SPLIT_MAX_NULLITY}")
    close(log, free, pivots)
    return log

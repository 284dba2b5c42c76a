"""Gauss-Jordan elimination over GF(2) of any system of equations: the row reduction every method shares.

Rows are Python ints (bit ``j`` = the coefficient of variable ``j``), so a row operation is one XOR.  The
pivot column of every row is tracked, not assumed to be the diagonal, and every zero row is kept as a
consistency condition: the reference C++ of POJ 1753's seed skips one of these and answers a number for 4096
impossible 4x4 boards.  :func:`gauss_jordan` gives an :class:`Elimination`: the pivots, the particular-solution
map, the consistency rows and the null space.  Its variants are here too: columns eliminated one at a time
(:func:`column_echelon`, :func:`solve_columns`: the symmetry groups and the searches over a coset), and
equations reduced in the order a proof meets their variables (:func:`reduce_in_order`: the pruned split).
The press system's own elimination (dense, cached per system) is :func:`flipgame.algebra.gf2.eliminate`;
light chasing eliminates its last-row system here too (:mod:`flipgame.algebra.chase`).

Source: Gauss-Jordan over GF(2) as in Golub & Van Loan, "Matrix Computations", 4th ed., section 3.2.

>>> e = gauss_jordan([0b011, 0b110, 0b101], 3)
>>> e.rank, e.nullity, e.checks
(2, 1, (7,))
"""

from __future__ import annotations

from dataclasses import dataclass

from flipgame.core.bits import set_bits


@dataclass(frozen=True)
class Elimination:
    """The reduced press system of one game, shared by every board.

    Attributes
    ----------
    n : int
        Number of press variables (buttons; columns).
    pivots : tuple of int, length rank
        Pivot column (press variable) of each nonzero reduced row.
    combos : tuple of int, length rank
        For pivot row k, the bitmask of original equations (cells) summed
        into it: ``x[pivots[k]] = parity(combos[k] & d)`` when free vars are 0.
    checks : tuple of int, length equations - rank
        Consistency conditions: ``parity(c & d)`` must be 0 for each ``c`` (bitmasks of cells).
    null_basis : tuple of int, length nullity
        Quiet patterns: press sets that change no cell; one per free variable.
    free : tuple of int
        Free variables (columns without a pivot), in increasing order.
    equations : int
        Number of equations (cells; rows); ``n`` when the system is square.
    """

    n: int
    pivots: tuple[int, ...]
    combos: tuple[int, ...]
    checks: tuple[int, ...]
    null_basis: tuple[int, ...]
    free: tuple[int, ...]
    equations: int | None = None

    @property
    def rank(self) -> int:
        return len(self.pivots)

    @property
    def nullity(self) -> int:
        return len(self.null_basis)

    def consistent(self, d: int) -> bool:
        """True if ``A x = d`` has a solution (every zero row's parity check holds)."""
        return all((c & d).bit_count() % 2 == 0 for c in self.checks)

    def certificate(self, d: int) -> int | None:
        """A proof that ``A x = d`` has no solution, or ``None`` if it has one.

        Returns a consistency row ``c`` (a vector with ``c^T A = 0``: every press
        flips an even number of its cells; for the symmetric plus neighbourhood
        it is a quiet pattern, ``A c = 0``) whose overlap with ``d`` is odd.
        Since ``(A x) . c = x . (A^T c) = 0`` for every press set ``x``, no press
        set can change exactly the cells of ``d``.
        """
        return next((c for c in self.checks if (c & d).bit_count() & 1), None)

    def particular(self, d: int) -> int:
        """A solution of ``A x = d`` with every free variable 0 (assumes :meth:`consistent`)."""
        x = 0
        for p, comb in zip(self.pivots, self.combos, strict=True):
            if (comb & d).bit_count() & 1:
                x |= 1 << p
        return x

    def particular_columns(self) -> tuple[int, ...]:
        """``cols[i]`` = particular solution for ``d = 1 << i``, one per equation (the map is linear in d)."""
        cols = [0] * (self.n if self.equations is None else self.equations)
        for p, comb in zip(self.pivots, self.combos, strict=True):
            for j in range(len(cols)):
                if comb >> j & 1:
                    cols[j] |= 1 << p
        return tuple(cols)


def gauss_jordan(rows: list[int], n: int) -> Elimination:
    """Gauss-Jordan elimination over GF(2) of the system whose equation ``i`` is ``rows[i]``
    (bit j = coefficient of variable j, ``n`` variables; any number of equations), tracking which
    equations make up each row.

    Rows are Python ints, so a row operation is one XOR.  Running time O(e n min(e, n) / w) for e
    equations.
    """
    rows = list(rows)
    e = len(rows)
    comb = [1 << i for i in range(e)]
    pivots, free = [], []
    r = 0
    for col in range(n):
        p = next((i for i in range(r, e) if rows[i] >> col & 1), None)
        if p is None:
            free.append(col)
            continue
        rows[r], rows[p] = rows[p], rows[r]
        comb[r], comb[p] = comb[p], comb[r]
        for i in range(e):
            if i != r and rows[i] >> col & 1:
                rows[i] ^= rows[r]
                comb[i] ^= comb[r]
        pivots.append(col)
        r += 1
    assert all(row == 0 for row in rows[r:])
    null_basis = []
    for f in free:
        v = 1 << f
        for k, p in enumerate(pivots):
            if rows[k] >> f & 1:
                v |= 1 << p
        null_basis.append(v)
    return Elimination(n, tuple(pivots), tuple(comb[:r]), tuple(comb[r:]), tuple(null_basis), tuple(free),
                       None if e == n else e)


def column_echelon(columns) -> tuple[list[tuple[int, int, int]], list[int]]:
    """Columns (bitmasks) eliminated one at a time: the echelon rows ``(top bit, vector, combination of the
    columns that makes it)`` and a basis of the kernel (combinations, bit ``i`` = column ``i``, whose XOR is 0).
    O(len(columns) * rank) XORs."""
    rows: list[tuple[int, int, int]] = []
    kernel = []
    for i, v in enumerate(columns):
        combo = 1 << i
        for p, r, rc in rows:
            if v >> p & 1:
                v ^= r
                combo ^= rc
        if v:
            rows.append((v.bit_length() - 1, v, combo))
        else:
            kernel.append(combo)
    return rows, kernel


def solve_columns(columns, c: int) -> tuple[int, list[int]] | None:
    """A solution ``a0`` of ``M a = c`` (``M`` given by its columns, bitmasks) and a basis of ``M``'s kernel, or
    None when there is none.  O(len(columns) * rank) XORs.

    >>> solve_columns([0b01, 0b11, 0b10], 0b10)  # columns 0 and 1 make 0b10; all three make 0
    (3, [7])
    """
    rows, kernel = column_echelon(columns)
    a = 0
    for p, r, rc in rows:
        if c >> p & 1:
            c ^= r
            a ^= rc
    return None if c else (a, kernel)


def reduce_in_order(equations: list[tuple[int, int]], order: list[int]) -> tuple[dict[int, tuple[int, int]], list[int]]:
    """Forward elimination of ``(mask, const)`` equations over the variables ``order`` (increasing bit
    positions; a variable's pivot row is one whose lowest bit it is, as a proof meets them), then back
    substitution: ``{pivot: (mask of free variables, const)}`` and the free variables.  ValueError if the
    equations are inconsistent.  O(len(order) * rows) XORs."""
    rows = [e for e in equations if e[0]]
    pivots: dict[int, tuple[int, int]] = {}
    for v in order:
        at = next((i for i, (m, _) in enumerate(rows) if m & -m == 1 << v), None)
        if at is None:
            continue
        pm, pc = rows.pop(at)
        rows = [(m ^ pm, c ^ pc) if m & -m == 1 << v else (m, c) for m, c in rows]
        pivots[v] = (pm, pc)
        if any(m == 0 and c for m, c in rows):
            raise ValueError("the equations have no solution")
        rows = [(m, c) for m, c in rows if m]
    if rows:
        raise ValueError("the equations have no solution")
    reduced: dict[int, tuple[int, int]] = {}
    for v in sorted(pivots, reverse=True):  # a pivot row holds v and higher variables only
        m, c = pivots[v]
        for u in set_bits(m & ~(1 << v)):
            if u in reduced:
                um, uc = reduced[u]
                m, c = m ^ um, c ^ uc
        reduced[v] = (m, c)
    pivots = {v: (m & ~(1 << v), c) for v, (m, c) in reduced.items()}
    return pivots, [v for v in order if v not in pivots]

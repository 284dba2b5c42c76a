"""GF(2) elimination on machine words, without numpy: a small two-state press system solved once, then many boards
of it answered by table look-ups.  The judge's lane of ``flipgame solve`` (:mod:`flipgame.cli.lane`) runs on it.

The press masks (one int per button, bit ``i`` = cell ``i``) are reduced in turn against a basis of the column
space whose vectors each have a pivot cell (their highest bit) that no later basis vector has; a mask that
reduces to zero gives a press set that changes nothing (a vector of the null space).  Reducing a board the same
way leaves its residual, zero exactly on the pivot cells, together with the press set that produced the rest:
the board is reachable iff the residual is zero, and then that press set is a particular solution.  Both are
linear in the board, so they are tabulated per byte of the board (``ceil(n / 8)`` tables of 256 entries) and a
board costs ``ceil(n / 8)`` look-ups.  The minimum-weight solution is the lightest of the ``2**nullity`` press
sets of the coset (:data:`~flipgame.core.limits.LANE_MAX_NULLITY` bounds it).

For a non-pivot cell ``p``, the cells ``i`` whose residual has bit ``p`` form a certificate: it meets every press
mask in an even number of cells and the board in an odd number exactly when the board's residual has bit ``p``
(so no press set reaches it).  The referee checks such a certificate against the press masks themselves
(:mod:`flipgame.verify.checks.words`).

Source: Gaussian elimination over GF(2) with bit-packed rows (Bard, "Algebraic Cryptanalysis", Springer 2009,
ch. 9: the method of four Russians tabulates the same linear maps by 8-bit blocks); the linear-algebra view of
Lights Out: Anderson & Feil, Math. Magazine 71(4), 1998.

>>> p = Packed.of((0b011, 0b111, 0b100), 3, max_nullity=8)  # the third button is the first two together
>>> p.nullity, p.minima([0b011, 0b101], [0])
(1, [(1, 1, 0), (None, 3)])
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress

from flipgame.core.bits import set_bits
from flipgame.core.errors import NullityTooLargeError


def byte_tables(images: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The tables of the linear map sending bit ``i`` to ``images[i]``: entry ``[k][v]`` is the XOR of the images
    of the set bits of ``v << 8k``.  ``ceil(len(images) / 8)`` tables of 256 ints; O(len(images) * 256)."""
    tables = []
    for k in range(0, len(images), 8):
        table = [0] * 256
        for bit, image in enumerate(images[k:k + 8]):
            step = 1 << bit
            for v in range(step):
                table[v | step] = table[v] ^ image
        tables.append(tuple(table))
    return tuple(tables)


def look_up(tables: tuple[tuple[int, ...], ...], v: int) -> int:
    """The image of ``v`` under the map of :func:`byte_tables`: one look-up per byte."""
    out = 0
    for table in tables:
        out ^= table[v & 255]
        v >>= 8
    return out


class Packed:
    """A two-state press system of ``n`` cells, eliminated once (module docstring).

    Attributes
    ----------
    nullity : int
        Dimension of the null space (press sets that change nothing).
    null_space : tuple of int
        Every press set of the null space (``2**nullity`` of them, 0 first).
    certificates : dict of int to int
        For each non-pivot cell ``p``, the certificate (a cell mask) that bit ``p`` of a residual stands for.
    """

    __slots__ = ("_residual", "_particular", "nullity", "null_space", "certificates")

    def __init__(self, residual, particular, null_basis: list[int], certificates: dict[int, int]):
        self._residual = residual
        self._particular = particular
        self.nullity = len(null_basis)
        space = [0]
        for z in null_basis:
            space += [s ^ z for s in space]
        self.null_space = tuple(space)
        self.certificates = certificates

    @classmethod
    def of(cls, masks: Sequence[int], n: int, max_nullity: int) -> Packed:
        """Eliminate the press masks of a system of ``n`` cells.  O(m n) word operations for the elimination,
        O(n * 256 + 2**nullity) for the tables and the null space.

        Raises NullityTooLargeError, before any table is made, when the nullity is above ``max_nullity``.
        """
        basis: list[tuple[int, int, int]] = []  # (pivot cell, cells, presses)
        null_basis = []
        for j, mask in enumerate(masks):
            cells, presses = _reduce(basis, mask, 1 << j)
            if cells:
                basis.append((cells.bit_length() - 1, cells, presses))
            else:
                null_basis.append(presses)
        if len(null_basis) > max_nullity:
            raise NullityTooLargeError(f"nullity {len(null_basis)} is over {max_nullity}: 2**{len(null_basis)} "
                                       f"press sets per board")
        reduced = [_reduce(basis, 1 << i, 0) for i in range(n)]
        pivots = {p for p, _, _ in basis}
        certificates = {p: sum(1 << i for i, (cells, _) in enumerate(reduced) if cells >> p & 1)
                        for p in range(n) if p not in pivots}
        return cls(byte_tables([cells for cells, _ in reduced]), byte_tables([presses for _, presses in reduced]),
                   null_basis, certificates)

    def residual(self, board: int) -> int:
        """The part of ``board`` outside the column space: 0 iff some press set turns 0 into ``board``."""
        return look_up(self._residual, board)

    def particular(self, board: int) -> int:
        """A press set turning 0 into ``board`` (when :meth:`residual` is 0)."""
        return look_up(self._particular, board)

    def certificate(self, residual: int) -> int:
        """The certificate of the lowest set bit of a non-zero ``residual``."""
        return self.certificates[set_bits(residual & -residual)[0]]

    def minima(self, boards: Sequence[int], targets: Sequence[int]) -> list[tuple]:
        """Per board, ``(presses, press set, target)`` of a minimum-weight press set turning it into one of the
        ``targets`` (the first target on ties), or, when none is reachable, ``(None, c_0, c_1, ...)``: a
        certificate per target.  O(ceil(n / 8)) look-ups per board, and ``2**nullity`` press sets per reachable target;
        certificates are made once per residual (at most ``2**(n - rank)`` of them)."""
        shifts: dict[int, list[int]] = {}  # residual -> x ^ shift runs over the press sets of every target it reaches
        goals: dict[int, list[int]] = {}
        for t in targets:  # a board reaches t exactly when their residuals are equal
            r, pt = self.residual(t), self.particular(t)
            shifts.setdefault(r, []).extend(pt ^ z for z in self.null_space)
            goals.setdefault(r, []).append(t)
        residuals = apply_all(self._residual, boards)
        of_targets = [self.residual(t) for t in targets]
        proofs = {r: (None, *(self.certificate(r ^ rt) for rt in of_targets))
                  for r in set(residuals) if r not in shifts}
        out: list = list(map(proofs.get, residuals))
        size = len(self.null_space)
        for i in compress(range(len(residuals)), map(shifts.__contains__, residuals)):
            x, shift = self.particular(boards[i]), shifts[residuals[i]]
            weights = [(x ^ s).bit_count() for s in shift]
            best = min(weights)
            k = weights.index(best)
            out[i] = (best, x ^ shift[k], goals[residuals[i]][k // size])
        return out


def apply_all(tables: tuple[tuple[int, ...], ...], values: Sequence[int]) -> list[int]:
    """:func:`look_up` of every value, a table at a time over the whole list (a pass per byte)."""
    out = [tables[0][v & 255] for v in values]
    for k, table in enumerate(tables[1:], start=1):
        shift = 8 * k
        out = [o ^ table[v >> shift & 255] for o, v in zip(out, values, strict=True)]
    return out


def _reduce(basis: list[tuple[int, int, int]], cells: int, presses: int) -> tuple[int, int]:
    for pivot, b_cells, b_presses in basis:
        if cells >> pivot & 1:
            cells ^= b_cells
            presses ^= b_presses
    return cells, presses

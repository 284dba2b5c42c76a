"""Symmetries of a board and its rules, and how they act on the board's solution coset.

Argument (docs/high-nullity.md, "Symmetry").  Let ``s`` permute the cells of a grid
(a rotation or reflection of the rectangle) and the buttons alike.  If ``s`` maps the
rules onto themselves (every press mask ``m_j`` onto ``m_{s(j)}``, so that
``P A = A P`` for the permutation matrix ``P``) and fixes ``d = board ^ goal``
(``P d = d``), then ``A x = d`` gives ``A (P x) = P A x = P d = d``: ``s`` maps the
solution coset ``x0 ^ span(N)`` onto itself, and keeps the number of presses.  The
symmetries with both properties form a group ``G`` (of order 1, 2, 4 or 8), acting
on the coset by affine maps.  In coordinates over a basis of the null space ``N``,
``a -> M_s a ^ c_s``.

``G`` is a 2-group, so every G-invariant subspace ``W`` of ``N`` with ``W != N`` lies in
a G-invariant ``W'`` one dimension larger (a p-group acting on a nonzero vector space
over GF(p) fixes a nonzero vector; apply it to ``N / W``): :func:`coset_action` builds
an invariant subspace ``L`` of the dimension the blocked transform enumerates at once
(its *inner* assignments) and a basis of ``N`` whose first vectors span ``L``.  ``G`` then
permutes the cosets of ``L`` (the transform's *groups*, indexed by the outer
coordinates ``g``) by ``g -> M_hh g ^ c_h``, and the lightest element of a group
weighs as much as that of each group in its orbit.  So the minimum over one group per
orbit, the smallest index (:meth:`CosetAction.representatives`), is the minimum
over the coset.  Burnside's lemma counts the orbits (:meth:`CosetAction.orbit_count`).

Only grids (rows, cols and one button per cell) have candidate symmetries: the 8 of
the square, or the 4 of a rectangle.  Each one is checked against the press masks
themselves, so any neighbourhood, stencil or wrap-around the symmetry maps onto
itself qualifies, and a lopsided stencil does not.

Sources: J. L. Alperin & R. B. Bell, "Groups and Representations", Springer 1995,
section 3.1 (a p-group acting on a vector space over GF(p) has a fixed vector);
W. Burnside, "Theory of Groups of Finite Order", 1897 (counting orbits by fixed points).

>>> from flipgame import Game
>>> [name for name, _ in rule_symmetries(Game(4, 4))][:3]
['identity', 'rotate 90', 'rotate 180']
>>> len(stabiliser(Game(5, 5, "white"), (1 << 25) - 1))
8
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from flipgame.algebra.elimination import column_echelon
from flipgame.core.bits import bit_array, xor_of
from flipgame.model.system import PressSystem

Symmetry = tuple[str, np.ndarray]
"""A symmetry's name and its cell map, int64 array of shape (n,): cell ``c`` goes to ``perm[c]``."""


def permute(v: int, perm: np.ndarray) -> int:
    """The bitmask ``v`` (bit c = cell c) with every cell ``c`` moved to ``perm[c]``.  O(n).

    >>> permute(0b011, np.array([2, 0, 1]))
    5
    """
    n = perm.size
    out = np.zeros(n, dtype=np.uint8)
    out[perm] = bit_array(v, n)
    return int.from_bytes(np.packbits(out, bitorder="little").tobytes(), "little")


def square_maps(rows: int, cols: int) -> list[Symmetry]:
    """The symmetries of a rows x cols rectangle as cell maps: 8 on a square, else 4 (identity first)."""
    r, c = np.divmod(np.arange(rows * cols, dtype=np.int64), cols)
    maps = [("identity", r, c), ("rotate 180", rows - 1 - r, cols - 1 - c), ("flip rows", rows - 1 - r, c),
            ("flip columns", r, cols - 1 - c)]
    if rows == cols:
        maps[1:1] = [("rotate 90", c, cols - 1 - r)]
        maps[3:3] = [("rotate 270", rows - 1 - c, r)]
        maps += [("transpose", c, r), ("anti-transpose", rows - 1 - c, cols - 1 - r)]
    return [(name, rr * cols + cc) for name, rr, cc in maps]


def _grid_shape(game) -> tuple[int, int] | None:
    """``(rows, cols)`` of a two-state system laid out on a grid with one button per cell, else None."""
    shape = getattr(game, "shape", None)
    if not shape or not getattr(game, "binary", True) or not shape[0] * shape[1] == game.n == game.m:
        return None
    return tuple(shape)


@lru_cache(maxsize=16)
def rule_symmetries(game: PressSystem) -> tuple[Symmetry, ...]:
    """The grid symmetries that map the rules onto themselves: ``press_masks[j]`` onto
    ``press_masks[perm[j]]`` for every button j.  Only the identity for a game that is not a grid
    (one button per cell).  O(8 * nnz log nnz) for nnz press-matrix entries; cached per game."""
    shape = _grid_shape(game)
    n = game.n
    if shape is None:
        return (("identity", np.arange(n, dtype=np.int64)),)
    buttons = np.fromiter((j for fl in game.flippers for j in fl), dtype=np.int64)
    cells = np.repeat(np.arange(n, dtype=np.int64), [len(fl) for fl in game.flippers])
    entries = np.sort(cells * n + buttons)
    out = []
    for name, perm in square_maps(*shape):
        if np.array_equal(np.sort(perm[cells] * n + perm[buttons]), entries):
            out.append((name, perm))
    return tuple(out)


def stabiliser(game: PressSystem, d: int) -> list[Symmetry]:
    """The rule symmetries (:func:`rule_symmetries`) that fix ``d = board ^ goal``: a group that maps the
    solution coset of ``d`` onto itself.  Identity first.  O(8 n)."""
    return [(name, perm) for name, perm in rule_symmetries(game) if permute(d, perm) == d]


class Coordinates:
    """Coordinates over a basis of GF(2) vectors (Python ints), by an echelon form kept with the
    combination of basis vectors behind each row.  O(k) XORs of n-bit ints per vector."""

    def __init__(self, basis: Sequence[int]):
        self.rows: list[tuple[int, int, int]] = []
        for i, v in enumerate(basis):
            c = 1 << i
            for p, r, cc in self.rows:
                if v >> p & 1:
                    v ^= r
                    c ^= cc
            if not v:
                raise ValueError("the basis vectors are linearly dependent")
            self.rows.append((v.bit_length() - 1, v, c))

    def __call__(self, v: int) -> int:
        c = 0
        for p, r, cc in self.rows:
            if v >> p & 1:
                v ^= r
                c ^= cc
        if v:
            raise ValueError("vector outside the span")
        return c


def combine(columns: Sequence[int], v: int) -> int:
    """XOR of ``columns[i]`` over the set bits i of ``v``: a matrix (by its columns) times a vector, or the
    element of a span with coordinates ``v``.  O(popcount(v)) XORs.

    >>> combine([0b001, 0b110], 0b11)
    7
    """
    return xor_of(columns, v)


def _reduce(echelon: list[tuple[int, int]], v: int) -> int:
    for p, r in echelon:
        if v >> p & 1:
            v ^= r
    return v


def _add(echelon: list[tuple[int, int]], v: int) -> None:
    """Add the reduced nonzero vector v to the echelon form (rows stay reduced in insertion order)."""
    echelon.append((v.bit_length() - 1, v))


def invariant_flag(matrices: Sequence[Sequence[int]], k: int, dim: int) -> list[int]:
    """``dim`` vectors of GF(2)^k whose first ``i`` span a subspace invariant under every matrix, for
    each i (the matrices, as columns, must generate a 2-group).  O(dim * k^2 * len(matrices)) XORs.

    Raises RuntimeError if some step finds no fixed vector (the matrices do not generate a 2-group).
    """
    echelon: list[tuple[int, int]] = []
    flag: list[int] = []
    width = k + 1
    while len(flag) < dim:
        images = []
        for i in range(k):
            img = 0
            for t, cols in enumerate(matrices):
                img |= _reduce(echelon, cols[i] ^ (1 << i)) << (t * width)
            images.append(img)
        fresh = next((w for w in (_reduce(echelon, u) for u in column_echelon(images)[1]) if w), None)
        if fresh is None:
            raise RuntimeError("no fixed vector: the symmetries do not act as a 2-group")
        _add(echelon, fresh)
        flag.append(fresh)
    return flag


def _complete(vectors: list[int], k: int) -> list[int]:
    """``vectors`` (independent) followed by unit vectors up to a basis of GF(2)^k."""
    echelon: list[tuple[int, int]] = []
    for v in vectors:
        _add(echelon, _reduce(echelon, v))
    out = list(vectors)
    for i in range(k):
        r = _reduce(echelon, 1 << i)
        if r:
            _add(echelon, r)
            out.append(1 << i)
    return out


def _fixed_points(columns: Sequence[int], shift: int, width: int) -> int:
    """How many g of GF(2)^width have ``M g ^ shift == g``: 0 or 2**(width - rank(M - I))."""
    diff = [columns[j] ^ (1 << j) for j in range(width)]
    rows: list[tuple[int, int]] = []
    for v in diff:
        v = _reduce(rows, v)
        if v:
            _add(rows, v)
    return 0 if _reduce(rows, shift) else 1 << (width - len(rows))


@dataclass(frozen=True)
class CosetAction:
    """A symmetry group acting on the coset ``x ^ span(basis)``, in coordinates made for the blocked
    transform.

    Attributes
    ----------
    x : int
        The particular solution (a press set).
    basis : tuple of int, length k
        A basis of the null space whose first ``inner`` vectors span a G-invariant subspace.
    inner : int
        Coordinates enumerated inside one group; the outer ``k - inner`` index the groups.
    names : tuple of str
        The group's elements (identity first).
    maps : tuple of (tuple of int, int)
        Per element other than the identity, its action on the outer coordinates: the
        matrix's columns (bitmasks of ``k - inner`` bits) and the translation.
    """

    x: int
    basis: tuple[int, ...]
    inner: int
    names: tuple[str, ...]
    maps: tuple[tuple[tuple[int, ...], int], ...]

    @property
    def outer(self) -> int:
        return len(self.basis) - self.inner

    @property
    def order(self) -> int:
        return len(self.names)

    def image(self, element: int, g: int) -> int:
        """Group index ``g`` moved by the non-identity element ``element`` (0-based among ``maps``)."""
        cols, shift = self.maps[element]
        return combine(cols, g) ^ shift

    def orbit_count(self) -> int:
        """Number of orbits of the groups, by Burnside: the mean number of fixed groups.  O(|G| k^2)."""
        fixed = (1 << self.outer) + sum(_fixed_points(c, s, self.outer) for c, s in self.maps)
        return fixed // self.order

    @cached_property
    def _tables(self) -> list[tuple[list[np.ndarray], int]]:
        """Per element: byte-indexed lookup tables of its matrix, and its translation."""
        chunks = (self.outer + 7) // 8
        out = []
        for cols, shift in self.maps:
            tables = []
            for b in range(chunks):
                part = [cols[8 * b + i] if 8 * b + i < self.outer else 0 for i in range(8)]
                tables.append(np.array([combine(part, v) for v in range(256)], dtype=np.int64))
            out.append((tables, shift))
        return out

    def representatives(self, start: int, stop: int) -> np.ndarray:
        """The group indices g in ``[start, stop)`` that are the smallest of their orbit (int64, sorted).

        O((stop - start) * |G| * outer / 8) table look-ups (numpy).
        """
        g = np.arange(start, stop, dtype=np.int64)
        keep = np.ones(g.size, dtype=bool)
        for tables, shift in self._tables:
            img = np.full(g.size, shift, dtype=np.int64)
            for b, table in enumerate(tables):
                img ^= table[(g >> (8 * b)) & 255]
            keep &= g <= img
        return g[keep]


def coset_action(x: int, basis: Sequence[int], symmetries: Sequence[Symmetry], inner: int) -> CosetAction:
    """The action of ``symmetries`` (a group, identity first, each mapping the coset ``x ^ span(basis)``
    onto itself, e.g. :func:`stabiliser`) in a basis adapted to it (see :class:`CosetAction`).

    ``inner`` is capped at k.  With the identity alone the basis is kept as it is.  Running time
    O(inner * k^2 * |G|) XORs of k-bit ints plus O(|G| k^2) of n-bit ints.

    Raises
    ------
    ValueError
        If a symmetry does not map the coset onto itself, or the basis is dependent.
    """
    k = len(basis)
    inner = min(inner, k)
    names = tuple(name for name, _ in symmetries)
    if len(symmetries) <= 1 or inner == k:
        return CosetAction(x, tuple(basis), inner, names[:1] or ("identity",), ())
    coords = Coordinates(basis)
    others = symmetries[1:]
    matrices = [[coords(permute(q, perm)) for q in basis] for _, perm in others]
    flag = invariant_flag(matrices, k, inner)
    adapted = tuple(combine(basis, t) for t in _complete(flag, k))
    coords = Coordinates(adapted)
    maps = []
    for _, perm in others:
        images = [coords(permute(q, perm)) for q in adapted]
        if any(img >> inner for img in images[:inner]):  # pragma: no cover - guaranteed by invariant_flag
            raise RuntimeError("the inner subspace is not invariant")
        maps.append((tuple(img >> inner for img in images[inner:]), coords(permute(x, perm) ^ x) >> inner))
    return CosetAction(x, adapted, inner, names, tuple(maps))


__all__ = ["Coordinates", "CosetAction", "combine", "coset_action", "invariant_flag", "permute", "rule_symmetries",
           "square_maps", "stabiliser"]

"""Banded elimination over Z_p (p prime) for grid systems of any stencil and wrap-around: the solutions of
``A x = d`` at sizes the dense elimination cannot take (a 256x256 torus is 65,536 cells).

Method. :mod:`flipgame.algebra.band_layout` reads the band from the buttons (the order of the sweep, its width
``W``, the far-reaching buttons of the dense *border*: for the torus, the buttons of the first and last r
rows). :mod:`flipgame.algebra.band_kernel` eliminates the band columns with row pivoting, carrying the border
and the right-hand sides; the rows left form a dense system in the border's unknowns, solved here
(:func:`_dense`). Back substitution then gives one particular solution per right-hand side and, on request, a
basis of the null space (one vector per free band column and per free border column). Impossible boards get a
certificate from the transpose: a vector ``c`` with ``c^T A = 0`` and ``c . d != 0`` (:func:`certificate`).

Running time O(N W (2W + B)) for N cells, W the band width and B the border (N = 65,536, W = 256, B = 512
for the 256x256 plus torus), plus O(L B^2) for the L rows of the border system; memory O(N (2W + B)) bytes.
Source: banded Gaussian elimination with row pivoting, G. H. Golub & C. F. Van Loan, "Matrix Computations",
4th ed., 2013, sections 4.3 and 4.5.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from flipgame.algebra import band_kernel, band_layout
from flipgame.core.errors import BoardTooLargeError, NullityTooLargeError
from flipgame.model.system import PressSystem

BASIS_MAX_NULLITY = 48
"""Above this nullity the null space's basis is not built (the minimum enumerates at most 2**48 solutions;
the 256x256 torus has nullity 0, its 255x255 torus 508, whose basis would cost minutes)."""


def to_vector(mask: int, n: int) -> np.ndarray:
    """A two-state board or press set (bitmask) as a 0/1 int64 vector of length n."""
    raw = np.frombuffer(mask.to_bytes(-(-n // 8) or 1, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n].astype(np.int64)


def to_mask(vector: np.ndarray) -> int:
    """A 0/1 vector as a bitmask (bit i = entry i)."""
    return int.from_bytes(np.packbits(np.asarray(vector, dtype=np.uint8) & 1, bitorder="little").tobytes(), "little")


class UnbuiltBasis(Sequence):
    """The null space of a nullity over :data:`BASIS_MAX_NULLITY`: its length is the nullity, its vectors are
    not built (reading one raises NullityTooLargeError)."""

    def __init__(self, nullity: int):
        self.nullity = nullity

    def __len__(self) -> int:
        return self.nullity

    def __getitem__(self, i):
        raise NullityTooLargeError(f"nullity {self.nullity}: the banded elimination builds the null space up to "
                                   f"nullity {BASIS_MAX_NULLITY}")


def _in_cells(factor: Factor, x: np.ndarray) -> np.ndarray:
    """Vectors (rows: positions of the sweep) back in cell order."""
    if factor.order is None:
        return x
    out = np.empty_like(x)
    out[factor.order] = x
    return out


@dataclass(frozen=True)
class Factor:
    """The forward sweep of one matrix: pivots, free band columns, border, and the border system's reduction.

    ``border_solve(rhs)`` gives the border's values for a right-hand side of the rows left, or None."""

    p: int
    n: int
    border: tuple[int, ...]
    pivots: tuple
    free: np.ndarray
    left: np.ndarray
    left_rhs: np.ndarray
    order: np.ndarray | None = None
    """:func:`order` of the system: the positions of the sweep's vectors (None: cell order)."""


def _csr(entries, n: int, p: int):
    order = sorted(entries)
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    for i, _, _ in order:
        row_ptr[i + 1] += 1
    np.cumsum(row_ptr, out=row_ptr)
    col = np.array([j for _, j, _ in order], dtype=np.int64)
    val = np.array([v % p for _, _, v in order], dtype=np.int64)
    return row_ptr, col, val


def sweep(system: PressSystem, rhs: np.ndarray, transpose: bool = False) -> Factor:
    """The forward sweep of A (or A^T) with right-hand sides ``rhs`` (int, shape (n, q)).  BoardTooLargeError
    (one line) when the system is not banded or its band is over the memory budget."""
    p = system.states or 2
    n = system.cells
    if why := band_layout.refusal(system) or band_layout.band_refusal(system, transpose):
        raise BoardTooLargeError(f"{system.size}: {why}")
    entries = band_layout.entries(system, transpose)
    lay = band_layout.layout(system, transpose)
    border_of = np.full(n, -1, dtype=np.int64)
    border_of[list(lay.border)] = np.arange(len(lay.border))
    row_ptr, col, val = _csr(entries, n, p)
    perm = band_layout.order(system)
    if perm is not None:
        rhs = np.asarray(rhs)[perm]
    inverse = np.array([pow(int(v), p - 2, p) if v else 0 for v in range(p)], dtype=np.int64)
    forward, _ = band_kernel.kernels()
    slots = 2 * lay.width + len(lay.border) + 64
    while True:
        out = forward(n, n, lay.width, p, inverse, row_ptr, col, val, border_of,
                      np.ascontiguousarray(rhs, dtype=np.int64), slots)
        if not out[-1]:
            break
        slots *= 2
    pcol, pband, ptail, count, free, n_free, left, n_left, _ = out
    nb = len(lay.border)
    left = left[:n_left].astype(np.int64)
    factor = Factor(p, n, lay.border, (pcol[:count], pband[:count], ptail[:count]), free[:n_free].copy(),
                    left[:, :nb], left[:, nb:], perm)
    if not transpose:
        _LAST.clear()
        _LAST[system] = factor
    return factor


_LAST: dict = {}
"""The last sweep of A, by system: its pivots serve :func:`left_null_vectors` when A is symmetric (the
right-hand sides it carried are not read there), so an Impossible board costs one sweep, not two."""


@lru_cache(maxsize=16)
def symmetric(system: PressSystem) -> bool:
    """True when the press matrix equals its transpose (every stencil symmetric about its centre)."""
    return sorted(band_layout.entries(system, False)) == sorted(band_layout.entries(system, True))


def _dense(mat: np.ndarray, rhs: np.ndarray, p: int):
    """Gauss-Jordan mod p of ``mat`` (L x B) with right-hand sides ``rhs`` (L x q): ``(particulars (B x q, a
    column None-marked by ok False), ok (q,), null basis (k x B))``.  O(L B min(L, B))."""
    a = np.concatenate([mat, rhs], axis=1).astype(np.int64) % p
    rows, width = a.shape[0], mat.shape[1]
    pivots, r = [], 0
    for c in range(width):
        hit = np.flatnonzero(a[r:, c]) if r < rows else np.empty(0, dtype=np.int64)
        if not hit.size:
            continue
        a[[r, r + hit[0]]] = a[[r + hit[0], r]]
        a[r] = a[r] * pow(int(a[r, c]), p - 2, p) % p
        f = a[:, c].copy()
        f[r] = 0
        a -= np.outer(f, a[r])
        a %= p
        pivots.append(c)
        r += 1
    ok = ~a[r:, width:].any(axis=0) if r < rows else np.ones(rhs.shape[1], dtype=bool)
    part = np.zeros((width, rhs.shape[1]), dtype=np.int64)
    part[pivots] = a[:r, width:]
    free = [c for c in range(width) if c not in set(pivots)]
    null = np.zeros((len(free), width), dtype=np.int64)
    for k, f in enumerate(free):
        null[k, f] = 1
        null[k, pivots] = (-a[:r, f]) % p
    return part, ok, null


def nullity(factor: Factor) -> int:
    """The nullity of the swept matrix: free band columns plus the border system's free columns."""
    _, _, null = _dense(factor.left, np.zeros((factor.left.shape[0], 0), dtype=np.int64), factor.p)
    return len(factor.free) + len(null)


def _back(factor: Factor, x: np.ndarray, y: np.ndarray, rhs_of: np.ndarray) -> np.ndarray:
    _, backward = band_kernel.kernels()
    pcol, pband, ptail = factor.pivots
    x = np.ascontiguousarray(x, dtype=np.int32)
    backward(pcol, pband, ptail, len(factor.border), len(pcol), x, np.ascontiguousarray(y, dtype=np.int32),
             rhs_of.astype(np.int64), factor.p)
    x[list(factor.border)] = y
    return x


def solutions(factor: Factor, *, basis: bool = True) -> tuple[list[np.ndarray | None], list[np.ndarray]]:
    """One particular solution per right-hand side of the sweep (None: no solution) and, with ``basis``, a basis
    of the null space (uint8 vectors of n presses) up to :data:`BASIS_MAX_NULLITY` (else an
    :class:`UnbuiltBasis`)."""
    part, ok, null = _dense(factor.left, factor.left_rhs, factor.p)
    q = factor.left_rhs.shape[1]
    nb = len(factor.border)
    basis = basis and len(factor.free) + len(null) <= BASIS_MAX_NULLITY
    k_free = len(factor.free) if basis else 0
    k_border = len(null) if basis else 0
    count = q + k_free + k_border
    x = np.zeros((factor.n, count), dtype=np.int32)
    y = np.zeros((nb, count), dtype=np.int32)
    y[:, :q] = part
    for i, f in enumerate(factor.free[:k_free]):
        x[f, q + i] = 1
    if k_border:
        y[:, q + k_free:] = null.T
    rhs_of = np.array([*range(q), *[-1] * (k_free + k_border)], dtype=np.int64)
    x = _in_cells(factor, _back(factor, x, y, rhs_of))
    particulars = [x[:, s].astype(np.uint8) if ok[s] else None for s in range(q)]
    if not basis:
        return particulars, UnbuiltBasis(len(factor.free) + len(null))
    return particulars, [x[:, s].astype(np.uint8) for s in range(q, count)]


def cheapest(x0: np.ndarray, basis: Sequence[np.ndarray], p: int) -> np.ndarray:
    """The cheapest press vector (fewest presses counted with multiplicity) in ``x0 + span(basis)`` over Z_p,
    by a reflected p-ary Gray walk of all ``p**k`` combinations (:func:`flipgame.algebra.band_kernel.gray_minimum`;
    the first cheapest met).  O(p**k * support) additions: check :func:`enumeration_work` first."""
    if not len(basis):
        return np.asarray(x0, dtype=np.int64) % p
    support = [np.flatnonzero(b) for b in basis]
    starts = np.zeros(len(basis) + 1, dtype=np.int64)
    np.cumsum([s.size for s in support], out=starts[1:])
    values = np.concatenate([np.asarray(b, dtype=np.int64)[s] for b, s in zip(basis, support, strict=True)])
    _, digits = band_kernel.gray_kernel()(np.asarray(x0, dtype=np.int64) % p, np.concatenate(support), values,
                                          starts, p)
    x = np.asarray(x0, dtype=np.int64).copy()
    for d, b in zip(digits, basis, strict=True):
        x = (x + int(d) * np.asarray(b, dtype=np.int64)) % p
    return x


def enumeration_work(basis: Sequence[np.ndarray], p: int) -> int:
    """The additions :func:`cheapest` makes: ``p**k`` times the mean support of the basis."""
    support = sum(int(np.count_nonzero(b)) for b in basis) // max(1, len(basis))
    return p ** len(basis) * max(1, support)


@lru_cache(maxsize=16)
def system_nullity(system: PressSystem) -> int:
    """The nullity of the system's press matrix over Z_p by the banded elimination (cached)."""
    return nullity(sweep(system, np.zeros((system.cells, 0), dtype=np.int64)))


def left_null_vectors(system: PressSystem, count: int, seed: int = 0, *, basis_from: int | None = None
                      ) -> list[np.ndarray]:
    """``count`` vectors ``c`` with ``c^T A = 0``: random combinations of a basis of the null space of A^T, or
    with ``basis_from`` the basis vectors from that index on (one per free column of the sweep of A^T, then per
    free border column; fewer at the end of the basis).  Empty when A^T has full rank."""
    factor = _transpose_factor(system)
    _, _, null = _dense(factor.left, np.zeros((factor.left.shape[0], 0), dtype=np.int64), factor.p)
    k = len(factor.free) + len(null)
    if basis_from is not None:
        count = max(0, min(count, k - basis_from))
    if not k or not count:
        return []
    rng = random.Random(seed)
    p, nb = factor.p, len(factor.border)
    x = np.zeros((factor.n, count), dtype=np.int32)
    y = np.zeros((nb, count), dtype=np.int32)
    for s in range(count):
        if basis_from is None:
            coefficients = [rng.randrange(p) for _ in range(k)]
        else:
            coefficients = [int(i == basis_from + s) for i in range(k)]
        for f, a in zip(factor.free, coefficients, strict=False):
            x[f, s] = a
        for v, a in zip(null, coefficients[len(factor.free):], strict=True):
            y[:, s] = (y[:, s] + a * v) % p
    x = _in_cells(factor, _back(factor, x, y, np.full(count, -1, dtype=np.int64)))
    return [x[:, s].astype(np.int64) for s in range(count)]


def _transpose_factor(system: PressSystem) -> Factor:
    if system in _LAST and symmetric(system):
        return _LAST[system]
    return _transposed(system)


@lru_cache(maxsize=4)
def _transposed(system: PressSystem) -> Factor:
    return sweep(system, np.zeros((system.cells, 0), dtype=np.int64), transpose=True)


def certificate(system: PressSystem, d: np.ndarray, tries: int = 8) -> np.ndarray | None:
    """A vector ``c`` with ``c^T A = 0`` and ``c . d != 0`` (mod p): a proof that no press vector changes the
    cells by ``d``; None only when ``A x = d`` has a solution.  First ``tries`` random combinations of the left
    null space (each succeeds with probability at least 1 - 1/p), then its basis, 64 vectors a sweep: some basis
    vector meets ``d`` whenever ``d`` is not in the column space."""
    p, d = system.states or 2, np.asarray(d, dtype=np.int64)
    for c in left_null_vectors(system, tries):
        if int(c @ d) % p:
            return c
    start = 0
    while batch := left_null_vectors(system, CERTIFICATE_BATCH, basis_from=start):
        for c in batch:
            if int(c @ d) % p:
                return c
        start += len(batch)
    return None


CERTIFICATE_BATCH = 64
"""Basis vectors of the left null space built per back substitution when the random draws found no certificate."""


__all__ = ["BASIS_MAX_NULLITY", "Factor", "UnbuiltBasis", "certificate", "cheapest", "enumeration_work",
           "left_null_vectors", "nullity", "solutions", "sweep", "system_nullity", "to_mask", "to_vector"]

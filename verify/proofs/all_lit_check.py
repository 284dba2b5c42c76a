"""The second check of an all-lit term (OEIS A075464): its own elimination and its own enumeration.

A claim "the fewest presses that turn the all-lit n x n board off (plus, no wrap) is ``a``, and this
press set of ``a`` presses does it" is checked here without the solver's code: the plus matrix is
written down again, eliminated by a banded Gaussian elimination over GF(2) (no light chasing), and the
lightest element of its solution coset is found by a meet-in-the-middle enumeration of all ``2**k``
elements (no Walsh-Hadamard transform).  For the long runs (nullity above :data:`ENUMERATION_MAX_NULLITY`)
:func:`group_minimum` checks one group of the solver's enumeration: an offset and a set of null vectors
given as press sets, each re-applied here.  This module imports nothing from flipgame.

Method.  Cell ``(r, c)`` is bit ``r * n + c``; in that order the plus matrix is banded (``|i - j| <= n``),
so Gaussian elimination with row pivoting keeps every row within ``2 n`` columns of its pivot (the rows
below ``c + n`` are untouched when column ``c`` is eliminated).  Rows are packed 64 columns to a word.
Running time O(N n^2 / 64) word operations for N = n^2 cells, then O(2**k N / 64) for the enumeration.
Source: G. H. Golub & C. F. Van Loan, "Matrix Computations", 4th ed., 2013, section 4.3 (banded
elimination with partial pivoting); meet in the middle: E. Horowitz & S. Sahni, J. ACM 21 (1974).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_SIDE = 200
"""The largest n checked: the rows are kept whole, n^4 / 8 bytes (200 MB at n = 200, 7.8 GB at 500)."""
ENUMERATION_MAX_NULLITY = 24
"""The largest nullity whose whole coset :func:`check_term` enumerates (2**24 elements, seconds at n = 122)."""


class CheckFailed(ValueError):
    """A claim the second check refutes; the message says what differs."""


@dataclass(frozen=True)
class Coset:
    """The solutions of the all-lit n x n board: ``x0`` ^ span(``basis``), each a bool array of n*n presses."""

    n: int
    x0: np.ndarray
    basis: tuple[np.ndarray, ...]

    @property
    def nullity(self) -> int:
        return len(self.basis)


def _pack(bits: np.ndarray) -> np.ndarray:
    """A bool vector (or rows of them) as little-endian uint64 words."""
    bits = np.atleast_2d(bits)
    width = -(-bits.shape[1] // 64) * 64
    padded = np.zeros((bits.shape[0], width), dtype=bool)
    padded[:, :bits.shape[1]] = bits
    return np.packbits(padded, axis=1, bitorder="little").view(np.uint64)


def press(n: int, presses: np.ndarray) -> np.ndarray:
    """The cells (bool, shape (n*n,)) that ``presses`` (bool, shape (n*n,)) change: each press changes its
    cell and its four orthogonal neighbours inside the board.  O(n^2)."""
    p = np.asarray(presses, dtype=bool).reshape(n, n)
    out = p.copy()
    out[1:, :] ^= p[:-1, :]
    out[:-1, :] ^= p[1:, :]
    out[:, 1:] ^= p[:, :-1]
    out[:, :-1] ^= p[:, 1:]
    return out.reshape(-1)


def _plus_rows(n: int) -> np.ndarray:
    """The plus matrix, one packed row per cell (uint64, shape (n*n, words))."""
    size = n * n
    packed = np.zeros((size, -(-size // 64)), dtype=np.uint64)
    for i in range(size):
        r, c = divmod(i, n)
        for rr, cc in ((r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < n and 0 <= cc < n:
                j = rr * n + cc
                packed[i, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    return packed


def _forward(n: int, rows: np.ndarray, rhs: np.ndarray) -> tuple[list[int], list[int]]:
    """Row echelon form in place (banded, row pivoting): the pivot column of each of the first rows, and
    the free columns."""
    size = n * n
    words = rows.shape[1]
    pivots, free, r = [], [], 0
    for c in range(size):
        w, b = c >> 6, np.uint64(c & 63)
        hi = min(size, c + n + 1)
        hits = np.flatnonzero((rows[r:hi, w] >> b) & np.uint64(1))
        if hits.size == 0:
            free.append(c)
            continue
        p = r + int(hits[0])
        if p != r:
            rows[[r, p]] = rows[[p, r]]
            rhs[[r, p]] = rhs[[p, r]]
        others = r + 1 + np.flatnonzero((rows[r + 1:hi, w] >> b) & np.uint64(1))
        top = min(words, ((c + 2 * n) >> 6) + 1)
        rows[others, w:top] ^= rows[r, w:top]
        rhs[others] ^= rhs[r]
        pivots.append(c)
        r += 1
    return pivots, free


def _backward(n: int, rows: np.ndarray, rhs: np.ndarray, pivots: list[int], free: list[int]) -> np.ndarray:
    """The particular solution (free columns 0) and one null vector per free column: bool, shape
    (1 + len(free), n*n)."""
    size = n * n
    x = np.zeros((size, 1 + len(free)), dtype=np.uint8)
    for j, c in enumerate(free):
        x[c, 1 + j] = 1
    for i in range(len(pivots) - 1, -1, -1):
        c = pivots[i]
        w = c >> 6
        top = min(rows.shape[1], ((c + 2 * n) >> 6) + 1)
        bits = np.unpackbits(rows[i, w:top].view(np.uint8), bitorder="little")
        lo, hi = c + 1, min(size, w * 64 + bits.size)
        s = bits[lo - w * 64:hi - w * 64].astype(np.int64) @ x[lo:hi].astype(np.int64)
        x[c] = (s & 1).astype(np.uint8)
        x[c, 0] ^= rhs[i]
    return x.T.astype(bool)


def solutions(n: int) -> Coset | None:
    """Every press set that turns the all-lit n x n board off, as a coset, or None if none does.
    Banded elimination (module notes); O(n^4 / 64) word operations, n^4 / 8 bytes.  Each vector is re-applied.
    ValueError over :data:`MAX_SIDE`."""
    if n > MAX_SIDE:
        raise ValueError(f"the second check takes n <= {MAX_SIDE} (its rows take n^4 / 8 bytes)")
    size = n * n
    rows = _plus_rows(n)
    rhs = np.ones(size, dtype=np.uint8)
    pivots, free = _forward(n, rows, rhs)
    if rhs[len(pivots):].any():
        return None
    x = _backward(n, rows, rhs, pivots, free)
    if not press(n, x[0]).all() or any(press(n, v).any() for v in x[1:]):
        raise CheckFailed(f"n = {n}: the second check's own elimination does not re-apply (a bug in the check)")
    return Coset(n, x[0], tuple(x[1:]))


def _span(vectors: np.ndarray) -> np.ndarray:
    """Every XOR combination of the packed ``vectors`` (shape (k, words)): shape (2**k, words)."""
    out = np.zeros((1, vectors.shape[1]), dtype=np.uint64)
    for v in vectors:
        out = np.concatenate([out, out ^ v])
    return out


def lightest(x0: np.ndarray, basis) -> tuple[int, np.ndarray]:
    """The fewest set bits in ``x0 ^ span(basis)`` and one element reaching it (bool vectors), by meet in the
    middle: O(2**k * words) popcounts."""
    size = x0.size
    if not len(basis):
        return int(x0.sum()), x0.copy()
    packed = _pack(np.asarray(basis))
    half = len(basis) // 2
    left = _span(packed[:half]) ^ _pack(x0)[0]
    right = _span(packed[half:])
    best, where = size + 1, (0, 0)
    for i, row in enumerate(left):
        weights = np.bitwise_count(right ^ row).sum(axis=1)
        j = int(weights.argmin())
        if weights[j] < best:
            best, where = int(weights[j]), (i, j)
    word = left[where[0]] ^ right[where[1]]
    element = np.unpackbits(word.view(np.uint8), bitorder="little")[:size].astype(bool)
    return best, element


@dataclass(frozen=True)
class Checked:
    """What the second check found for one n: the nullity, the minimum and how it was found."""

    n: int
    nullity: int
    presses: int
    how: str


def _witness_bits(n: int, witness: int) -> np.ndarray:
    """A press set given as an int (bit ``r * n + c``; bits past n*n are dropped) as a bool vector."""
    size = n * n
    raw = np.frombuffer((witness & ((1 << size) - 1)).to_bytes(-(-size // 8), "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:size].astype(bool)


def check_witness(n: int, presses: int, witness: int) -> None:
    """CheckFailed unless ``witness`` (bit ``r * n + c``) has ``presses`` presses and turns the all-lit board off."""
    bits = _witness_bits(n, witness)
    if int(bits.sum()) != presses or witness >> (n * n):
        raise CheckFailed(f"a({n}): the witness has {int(bits.sum())} presses, not {presses}")
    if not press(n, bits).all():
        raise CheckFailed(f"a({n}): the witness leaves {int((~press(n, bits)).sum())} cells lit")


def check_term(n: int, presses: int, witness: int, nullity: int) -> Checked:
    """Check the claim a(n) = ``presses`` with its ``witness`` and ``nullity``: the witness re-applied, the
    nullity and the minimum recomputed (nullity 0: the unique solution; up to
    :data:`ENUMERATION_MAX_NULLITY`: every solution).  Raises CheckFailed on any difference, ValueError
    above that nullity (check a sample of the long run with :func:`group_minimum`)."""
    check_witness(n, presses, witness)
    coset = solutions(n)
    if coset is None:
        raise CheckFailed(f"a({n}): the second elimination finds no solution at all")
    if coset.nullity != nullity:
        raise CheckFailed(f"a({n}): nullity {coset.nullity} by the second elimination, not {nullity}")
    if coset.nullity > ENUMERATION_MAX_NULLITY:
        raise ValueError(f"a({n}): nullity {coset.nullity} is over the {ENUMERATION_MAX_NULLITY} enumerated here")
    weight, _ = lightest(coset.x0, coset.basis)
    if weight != presses:
        raise CheckFailed(f"a({n}): the second enumeration finds {weight} presses, not {presses}")
    how = "unique solution, second elimination" if coset.nullity == 0 else \
        f"all 2^{coset.nullity} solutions, second elimination and enumeration"
    return Checked(n, coset.nullity, weight, how)


def group_minimum(n: int, offset: int, vectors: list[int]) -> int:
    """The fewest presses in ``offset ^ span(vectors)`` (press sets as ints, bit ``r * n + c``), once the
    offset is checked to turn the all-lit board off and every vector to change nothing: one group of a long
    run, enumerated here.  CheckFailed otherwise.  O(2**len(vectors) n^2 / 64)."""
    x0 = _witness_bits(n, offset)
    if not press(n, x0).all():
        raise CheckFailed(f"a({n}): a group's offset does not turn the all-lit board off")
    basis = [_witness_bits(n, v) for v in vectors]
    if any(press(n, b).any() for b in basis):
        raise CheckFailed(f"a({n}): a group's vector is not in the null space")
    return lightest(x0, basis)[0]


__all__ = ["ENUMERATION_MAX_NULLITY", "MAX_SIDE", "CheckFailed", "Checked", "Coset", "check_term", "check_witness",
           "group_minimum", "lightest", "press", "solutions"]

"""``minweight``: minimum-weight element of a GF(2) coset by a Walsh-Hadamard transform.

Method.  The solutions of a press system are ``x ^ B a`` for the ``2**k``
assignments ``a`` of the null-space basis ``B = (basis[0], ..., basis[k-1])``
(bit ``i`` of ``a`` selects ``basis[i]``).  Give cell ``c`` the k-bit code
``r_c`` (bit ``i`` = bit ``c`` of ``basis[i]``); bit ``c`` of ``x ^ B a`` is
``x_c ^ <r_c, a>``.  Over the ``m`` cells with ``r_c != 0``::

    weight(a) = w0 + (m - S(a)) / 2,   S(a) = sum_c (-1)**(x_c + <r_c, a>) = WHT(f)(a),

where ``w0`` counts the set bits of ``x`` outside the support of the basis and
``f(r) = sum over cells c with r_c = r of (-1)**x_c``.  So one Walsh-Hadamard
transform of ``f`` (at most ``m`` nonzero entries) gives every weight, and the
minimum weight is ``w0 + (m - max S) / 2``.

* ``k <= DENSE_MAX_NULLITY``: one in-place numpy transform of length ``2**k``.
* larger ``k``: the blocked kernel of :mod:`flipgame.algebra.wht_blocked`:
  ``a = (group, lane, low)`` with ``LOW_BITS`` low bits and 4 lane bits.  For
  each group (numba, parallel over groups, one buffer per thread) the entries
  of ``f`` are scattered with their signs ``(-1)**<r_hi, a_hi>`` into a
  ``2**low x 16`` buffer (one column per lane, the lane signs laid out once by
  :func:`~flipgame.algebra.wht_blocked.layout`), transformed over the low bits
  with 16-lane butterflies (SIMD whatever the stride), and scanned for the
  maximum.  The buffer fits in a core's L2 cache.
  :func:`~flipgame.algebra.wht_blocked.group_maxima` runs any list of groups,
  so a caller can enumerate a subset (one group per symmetry orbit,
  :mod:`flipgame.algebra.coset_run`) in blocks of its choosing.

Values never exceed ``m`` in absolute value (every partial transform is a
signed sum of the ``f`` entries), so the transform runs in int16 when
``m < 32768`` and int32 (int64) otherwise
(:func:`~flipgame.algebra.wht_blocked.dtype_for`).

Ties: :func:`min_weight` returns the smallest assignment ``a`` (as an integer);
:func:`minima` returns all of them, so a caller can apply another rule.

Running time: O(n k) to build the codes, then O(2**k k) additions.  39x39
Lights Out (n = 1521, k = 32) takes seconds on two cores.

Source: the Walsh-Hadamard (Fourier) transform of Boolean functions, R.
O'Donnell, "Analysis of Boolean Functions", Cambridge, 2014, ch. 1; its use
for minimum-weight coset search is standard in coding theory (e.g. F. J.
MacWilliams & N. J. A. Sloane, "The Theory of Error-Correcting Codes", 1977,
ch. 14 on the Hadamard transform and maximum-likelihood decoding).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from flipgame.algebra.wht_blocked import LANE_BITS, blocked_maxima, dtype_for
from flipgame.core.bits import bit_array

DENSE_MAX_NULLITY = 22
"""Above this nullity the blocked numba kernel is used (2**22 int32 = 16 MiB)."""
WEIGHTS_MAX_NULLITY = 26
""":func:`weights` materialises 2**k int32 weights: 256 MiB at 26."""
MAX_NULLITY = 48
DEFAULT_CAP = 1 << 16


def _prepare(x: int, basis: Sequence[int], n: int):
    """Return ``(codes, f, m, w0)``: distinct nonzero codes r (uint64), f(r) (int64),
    the support size m and the weight w0 of x outside the support."""
    basis = [int(b) for b in basis]
    k = len(basis)
    if n < 0 or x < 0 or x >> n:
        raise ValueError(f"x must be a bitmask of n={n} bits")
    if any(b < 0 or b >> n for b in basis):
        raise ValueError(f"every basis vector must be a bitmask of n={n} bits")
    if k > MAX_NULLITY:
        raise ValueError(f"nullity {k} > {MAX_NULLITY}: 2**{k} assignments is too many")
    union = 0
    for b in basis:
        union |= b
    w0 = (x & ~union).bit_count()
    support = np.flatnonzero(bit_array(union, n))
    codes = np.zeros(support.size, dtype=np.uint64)
    for i, b in enumerate(basis):
        codes |= bit_array(b, n)[support].astype(np.uint64) << np.uint64(i)
    signs = 1 - 2 * bit_array(x, n)[support].astype(np.int64)
    codes, inverse = np.unique(codes, return_inverse=True)
    f = np.bincount(inverse.ravel(), weights=signs, minlength=codes.size).astype(np.int64)
    keep = f != 0
    return codes[keep], f[keep], int(support.size), w0


def _dense_transform(codes: np.ndarray, f: np.ndarray, k: int, dtype) -> np.ndarray:
    """S = WHT(f), shape (2**k,), by k vectorised butterfly passes."""
    s = np.zeros(1 << k, dtype=dtype)
    s[codes.astype(np.int64)] = f
    for h in range(k):
        v = s.reshape(-1, 2, 1 << h)
        u = v[:, 0, :].copy()
        v[:, 0, :] += v[:, 1, :]
        np.subtract(u, v[:, 1, :], out=v[:, 1, :])
    return s


def _assemble(x: int, basis: Sequence[int], a: int) -> int:
    for i, b in enumerate(basis):
        if a >> i & 1:
            x ^= b
    return x


def prepare(x: int, basis: Sequence[int], n: int):
    """``(codes, f, m, w0)`` of the coset ``x ^ span(basis)``: distinct nonzero cell codes (uint64),
    their signed counts ``f`` (int64), the support size ``m`` and the weight ``w0`` outside it (module
    docstring).  Raises ValueError as :func:`min_weight`.  O(n k)."""
    return _prepare(x, basis, n)


def _solve(x: int, basis: Sequence[int], n: int, cap: int | None):
    codes, f, m, w0 = _prepare(x, basis, n)
    k = len(basis)
    if k <= max(DENSE_MAX_NULLITY, LANE_BITS):
        s = _dense_transform(codes, f, k, dtype_for(m))
        top = s.max()
        first = int(np.argmax(s))
        found = None
        if cap is not None:
            count = int(np.count_nonzero(s == top))
            if count > cap:
                raise ValueError(f"{count} minimum-weight elements > cap={cap}")
            found = np.flatnonzero(s == top)
        return w0 + (m - int(top)) // 2, first, found
    top, first, found = blocked_maxima(codes, f, k, m, cap)
    return w0 + (m - top) // 2, first, found


def min_weight(x: int, basis: Sequence[int], n: int) -> tuple[int, int]:
    """Minimum-weight element of the coset ``x ^ span(basis)``.

    Parameters
    ----------
    x : int
        Particular solution, a bitmask of ``n`` bits (cell ``c`` = bit ``c``).
    basis : sequence of int, length k
        Null-space basis, each a bitmask of ``n`` bits (independence is not
        required; assignments are then counted with multiplicity).
    n : int
        Number of cells.

    Returns
    -------
    a : int
        The assignment, ``0 <= a < 2**k``: bit ``i`` selects ``basis[i]``.
        Among minimum-weight elements the smallest ``a`` is returned.
    element : int
        ``x ^ XOR(basis[i] for the set bits i of a)``, of minimum popcount.

    Raises
    ------
    ValueError
        If ``x`` or a basis vector is negative or has a bit at ``n`` or above,
        or ``k > MAX_NULLITY``.

    Notes
    -----
    Running time O(n k) to build the per-cell codes plus O(2**k k) integer
    additions for the Walsh-Hadamard transform; memory O(n + 2**min(k, 22)).
    Above ``DENSE_MAX_NULLITY`` the transform runs in a parallel numba kernel
    (compiled and cached on first use).  See the module docstring; source:
    R. O'Donnell, "Analysis of Boolean Functions", 2014, ch. 1 (the
    Walsh-Hadamard transform), a standard tool for minimum-weight coset
    search in coding theory.
    """
    _, a, _ = _solve(x, basis, n, None)
    return a, _assemble(x, basis, a)


def minima(x: int, basis: Sequence[int], n: int, cap: int = DEFAULT_CAP) -> list[int]:
    """Every minimum-weight element of ``x ^ span(basis)``.

    Parameters
    ----------
    x, basis, n
        As in :func:`min_weight`.
    cap : int, default 65536
        Largest number of minima returned.

    Returns
    -------
    list of int
        The minimum-weight elements (press sets), in increasing order of
        their assignment ``a``; the first is :func:`min_weight`'s element.

    Raises
    ------
    ValueError
        If there are more than ``cap`` minima, or on the input errors of
        :func:`min_weight`.

    Notes
    -----
    Running time O(n k) + O(2**k k) additions (a second, partial pass for the
    blocks holding the minima when ``k > DENSE_MAX_NULLITY``) + O(cap * n k / w)
    to assemble the elements.  Source: Walsh-Hadamard transform, O'Donnell,
    "Analysis of Boolean Functions", 2014, ch. 1.
    """
    _, _, found = _solve(x, basis, n, cap)
    return [_assemble(x, basis, int(a)) for a in found]


def weights(x: int, basis: Sequence[int], n: int) -> np.ndarray:
    """Weight of every element of ``x ^ span(basis)``.

    Parameters
    ----------
    x, basis, n
        As in :func:`min_weight`.

    Returns
    -------
    numpy.ndarray of int32, shape (2**k,)
        ``weights[a]`` = popcount of ``x ^ XOR(basis[i] for the set bits i of a)``.

    Raises
    ------
    ValueError
        If ``k > WEIGHTS_MAX_NULLITY`` (26: a 256 MiB result), or on the input
        errors of :func:`min_weight`.

    Notes
    -----
    Running time O(n k) + O(2**k k) additions (numpy, vectorised passes);
    memory O(2**k).  Source: Walsh-Hadamard transform, O'Donnell, "Analysis of
    Boolean Functions", 2014, ch. 1.
    """
    k = len(basis)
    if k > WEIGHTS_MAX_NULLITY:
        raise ValueError(f"nullity {k} > {WEIGHTS_MAX_NULLITY}: 2**{k} weights do not fit in memory")
    codes, f, m, w0 = _prepare(x, basis, n)
    s = _dense_transform(codes, f, k, np.int32 if m < 1 << 31 else np.int64).astype(np.int64)
    return ((m - s) // 2 + w0).astype(np.int32)

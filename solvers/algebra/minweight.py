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
* larger ``k``: ``a = (group, lane, low)`` with ``LOW_BITS`` low bits and 4 lane
  bits.  For each group (numba, parallel over groups, one buffer per thread)
  the entries of ``f`` are scattered with their signs ``(-1)**<r_hi, a_hi>``
  into a ``2**low x 16`` buffer (one column per lane, the lane signs laid out
  once by :func:`layout`), transformed over the low bits with 16-lane
  butterflies (SIMD whatever the stride), and scanned for the maximum.  The
  buffer fits in a core's L2 cache.  :func:`group_maxima` runs any list of
  groups, so a caller can enumerate a subset (one group per symmetry orbit,
  :mod:`flipgame.algebra.coset_run`) in blocks of its choosing.

Values never exceed ``m`` in absolute value (every partial transform is a
signed sum of the ``f`` entries), so the transform runs in int16 when
``m < 32768`` and int32 (int64) otherwise.

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

DENSE_MAX_NULLITY = 22
"""Above this nullity the blocked numba kernel is used (2**22 int32 = 16 MiB)."""
WEIGHTS_MAX_NULLITY = 26
""":func:`weights` materialises 2**k int32 weights: 256 MiB at 26."""
MAX_NULLITY = 48
LOW_BITS = 14
"""Low bits transformed per group in the blocked kernel: a 2**14 x 16 int16 buffer is 512 KiB, within a
core's L2 cache.  Each group first scatters every cell code into the buffer, which at 61x61 (3439
codes) cost more than the transform at 12 bits; measured on the all-lit 61x61 coset cut to 32 basis
vectors (``min_weight``, CPU seconds, loaded 2-core machine): 12 bits 1.4e9, 14 bits 2.1e9, 15 bits
2.3e9, 16 bits 1.8e9 assignments per CPU second."""
LANE_BITS = 4
DEFAULT_CAP = 1 << 16

prange = range
"""Rebound to ``numba.prange`` by :func:`_kernel`, so numba stays unimported until needed."""


def _bits(v: int, n: int) -> np.ndarray:
    """uint8 array of shape (n,): bit c of ``v``."""
    raw = np.frombuffer(v.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n]


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
    support = np.flatnonzero(_bits(union, n))
    codes = np.zeros(support.size, dtype=np.uint64)
    for i, b in enumerate(basis):
        codes |= _bits(b, n)[support].astype(np.uint64) << np.uint64(i)
    signs = 1 - 2 * _bits(x, n)[support].astype(np.int64)
    codes, inverse = np.unique(codes, return_inverse=True)
    f = np.bincount(inverse.ravel(), weights=signs, minlength=codes.size).astype(np.int64)
    keep = f != 0
    return codes[keep], f[keep], int(support.size), w0


def _dtype(m: int):
    return np.int16 if m < 1 << 15 else np.int32 if m < 1 << 31 else np.int64


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


# One numba loop nest on purpose (C901 waived): split into calls, LLVM no longer vectorises its inner loops.
def _scan(rows, hi, sv, low, groups, nchunks, full, top, offsets, out, best, arg, cnt):  # noqa: C901  # pragma: no cover
    """Blocked transform kernel (compiled by :func:`_kernel`); the codes come laid out by :func:`layout`.

    For each ``g`` in ``groups`` the transform at ``a = g << (low + 4) | lane << low | i``
    lands in ``buf[16 * i + lane]``.  Code ``e`` adds ``+-sv[e]`` (its ``f`` times the signs
    of its lane bits, 16 lanes) to the row at ``rows[e]``, negated when ``<hi[e], g>`` is odd.
    With ``out.size == 0`` it records per group the maximum ``best[j]`` and, if ``full``, the
    smallest in-group offset ``arg[j]`` reaching it and their count ``cnt[j]`` (scalar scans that
    cost about as much as the transform: ask for them on the groups that reach the top only);
    otherwise it writes every ``a`` with ``S(a) == top`` from ``out[offsets[j]]`` on, in increasing
    order.  (The hot loops run without branches, so that LLVM vectorises them.)
    """
    size = 16 << low
    shift = low + 4
    ng = groups.size
    for ch in prange(nchunks):
        buf = np.empty(size, dtype=sv.dtype)
        for j in range(ch * ng // nchunks, (ch + 1) * ng // nchunks):
            g = groups[j]
            buf[:] = 0
            for e in range(rows.size):  # scatter f with the signs of the group bits
                p = hi[e] & g
                p ^= p >> 32
                p ^= p >> 16
                p ^= p >> 8
                p ^= p >> 4
                p ^= p >> 2
                p ^= p >> 1
                sign = sv.dtype.type(1 - 2 * (p & 1))
                r = rows[e]
                for lane in range(16):
                    buf[r + lane] += sign * sv[e, lane]
            h = 16
            while h < size:  # Walsh-Hadamard butterflies over the low bits, 16 lanes at a time
                for i0 in range(0, size, 2 * h):
                    u = buf[i0:i0 + h]
                    w = buf[i0 + h:i0 + 2 * h]
                    for i in range(h):
                        su = u[i]
                        sw = w[i]
                        u[i] = su + sw
                        w[i] = su - sw
                h *= 2
            if out.size:
                pos = offsets[j]
                for lane in range(16):
                    for i in range(size >> 4):
                        if buf[16 * i + lane] == top:
                            out[pos] = (g << shift) | (lane << low) | i
                            pos += 1
            else:
                mx = buf[0]
                for q in range(size):
                    mx = max(mx, buf[q])
                best[j] = mx
                if full:  # slower scalar scans: only for the few groups that reach the top
                    count = 0
                    first = size
                    for q in range(size):
                        if buf[q] == mx:
                            count += 1
                            first = min(first, ((q & 15) << low) | (q >> 4))
                    arg[j] = first
                    cnt[j] = count


_compiled = None


def _kernel():
    """:func:`_scan` compiled by numba (parallel, cached on disk); numba is imported only here."""
    global _compiled
    if _compiled is None:
        import numba

        globals()["prange"] = numba.prange
        _compiled = numba.njit(parallel=True, cache=True, nogil=True)(_scan)
    return _compiled


def low_bits(k: int) -> int:
    """Low bits of the blocked transform at nullity ``k`` (the inner ``2**(low + 4)`` assignments)."""
    return max(0, min(LOW_BITS, k - LANE_BITS))


def layout(codes: np.ndarray, f: np.ndarray, low: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The codes as the blocked kernel reads them: ``(rows, hi, sv)``.

    ``rows`` (int64, shape (e,)): buffer offset ``16 * (code & (2**low - 1))``; ``hi`` (int64):
    ``code >> (low + 4)``, the group bits; ``sv`` (shape (e, 16), int16 when ``m < 32768``):
    ``f`` times ``(-1)**<lane bits of the code, lane>`` per lane.  O(16 e).
    """
    codes = codes.astype(np.int64)
    lanes = np.arange(16, dtype=np.int64)
    pattern = (codes >> low) & 15
    parity = np.zeros((codes.size, 16), dtype=np.int64)
    for b in range(LANE_BITS):
        parity ^= ((pattern[:, None] >> b) & (lanes[None, :] >> b)) & 1
    sv = (f.astype(np.int64)[:, None] * (1 - 2 * parity)).astype(_dtype(m))
    return 16 * (codes & ((1 << low) - 1)), codes >> (low + LANE_BITS), sv


def group_maxima(laid: tuple, k: int, groups: np.ndarray, full: bool = False):
    """Per group ``g`` (int64 array, shape (j,)) of the blocked transform at nullity ``k``: the largest
    ``S`` over its ``2**(low + 4)`` assignments, and with ``full`` the smallest in-group offset
    reaching it and how many do.

    ``laid`` is :func:`layout`'s result for ``low = low_bits(k)``.  Returns ``best`` (an array of
    ``laid``'s dtype, shape (j,)), or with ``full`` ``(best, arg, cnt)`` (arg and cnt int64); the
    assignment is ``g << (low + 4) | arg``.  Parallel over groups (numba prange, compiled on first
    use).  Running time O(j (e + (low + 4) 2**(low + 4))) additions, e = number of codes; ``full``
    about twice that (its scans are scalar).
    """
    import numba

    scan = _kernel()
    rows, hi, sv = laid
    groups = np.ascontiguousarray(groups, dtype=np.int64)
    best = np.empty(groups.size, dtype=sv.dtype)
    arg = np.zeros(groups.size if full else 0, dtype=np.int64)
    cnt = np.zeros(groups.size if full else 0, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    if groups.size:
        scan(rows, hi, sv, low_bits(k), groups, min(groups.size, 8 * numba.get_num_threads()), full,
             sv.dtype.type(0), none, none, best, arg, cnt)
    return (best, arg, cnt) if full else best


def prepare(x: int, basis: Sequence[int], n: int):
    """``(codes, f, m, w0)`` of the coset ``x ^ span(basis)``: distinct nonzero cell codes (uint64),
    their signed counts ``f`` (int64), the support size ``m`` and the weight ``w0`` outside it (module
    docstring).  Raises ValueError as :func:`min_weight`.  O(n k)."""
    return _prepare(x, basis, n)


def _blocked(codes: np.ndarray, f: np.ndarray, k: int, m: int, cap: int | None):
    """Blocked transform for large k: ``(best S, smallest argmax a, all argmax a or None)``."""
    import numba

    low = low_bits(k)
    laid = layout(codes, f, low, m)
    best = group_maxima(laid, k, np.arange(1 << (k - low - LANE_BITS), dtype=np.int64))
    top = best.max()
    hit = np.flatnonzero(best == top)
    _, arg, cnt = group_maxima(laid, k, hit, full=True)
    first = (int(hit[0]) << (low + LANE_BITS)) | int(arg[0])
    if cap is None:
        return int(top), first, None
    total = int(cnt.sum())
    if total > cap:
        raise ValueError(f"{total} minimum-weight elements > cap={cap}")
    offsets = np.zeros(hit.size + 1, dtype=np.int64)
    np.cumsum(cnt, out=offsets[1:])
    out = np.empty(total, dtype=np.int64)
    _kernel()(*laid, low, hit.astype(np.int64), min(hit.size, 8 * numba.get_num_threads()), False, top,
              offsets, out, best, arg, cnt)
    return int(top), first, out


def _solve(x: int, basis: Sequence[int], n: int, cap: int | None):
    codes, f, m, w0 = _prepare(x, basis, n)
    k = len(basis)
    if k <= max(DENSE_MAX_NULLITY, LANE_BITS):
        s = _dense_transform(codes, f, k, _dtype(m))
        top = s.max()
        first = int(np.argmax(s))
        found = None
        if cap is not None:
            count = int(np.count_nonzero(s == top))
            if count > cap:
                raise ValueError(f"{count} minimum-weight elements > cap={cap}")
            found = np.flatnonzero(s == top)
        return w0 + (m - int(top)) // 2, first, found
    top, first, found = _blocked(codes, f, k, m, cap)
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

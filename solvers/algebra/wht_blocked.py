"""``wht_blocked``: the blocked Walsh-Hadamard kernel of :mod:`flipgame.algebra.minweight` (nullity
above ``DENSE_MAX_NULLITY``).

The assignments are ``a = (group, lane, low)`` with :func:`low_bits` low bits and
:data:`LANE_BITS` lane bits.  The cell codes are laid out once (:func:`layout`): their row
in the buffer, their group bits, and their ``f`` times the signs of their lane bits, one
column per lane.  For each group (numba, parallel over groups, one buffer per thread) the
kernel takes four steps: it scatters the codes with their signs ``(-1)**<r_hi, a_hi>`` into
a ``2**low x 16`` buffer, transforms it over the low bits with 16-lane butterflies (SIMD
whatever the stride), then either scans it for its maximum (with the smallest offset reaching
it and their count, on request) or writes every assignment reaching a given top.  The buffer
fits in a core's L2 cache.  :func:`group_maxima` runs any list of groups, so a caller can
enumerate a subset (one group per symmetry orbit, :mod:`flipgame.algebra.coset_run`) in
blocks of its choosing; :func:`blocked_maxima` runs every group.

Values never exceed ``m`` in absolute value (every partial transform is a signed sum of the
``f`` entries), so the transform runs in int16 when ``m < 32768`` and int32 (int64) otherwise
(:func:`dtype_for`).

Running time: O(2**k k) additions over all groups.  Source: the Walsh-Hadamard transform,
R. O'Donnell, "Analysis of Boolean Functions", Cambridge, 2014, ch. 1.
"""

from __future__ import annotations

import numpy as np

from flipgame.core import extras

LOW_BITS = 14
"""Low bits transformed per group in the blocked kernel: a 2**14 x 16 int16 buffer is 512 KiB, within a
core's L2 cache.  Each group first scatters every cell code into the buffer, which at 61x61 (3439
codes) cost more than the transform at 12 bits; measured on the all-lit 61x61 coset cut to 32 basis
vectors (``min_weight``, CPU seconds, loaded 2-core machine): 12 bits 1.4e9, 14 bits 2.1e9, 15 bits
2.3e9, 16 bits 1.8e9 assignments per CPU second."""
LANE_BITS = 4

prange = range
"""Rebound to ``numba.prange`` by :func:`_kernel`, so numba stays unimported until needed."""


def dtype_for(m: int):
    """The integer type of a transform over ``m`` support cells: int16 below 2**15, int32 below 2**31,
    else int64 (no partial sum exceeds ``m`` in absolute value)."""
    return np.int16 if m < 1 << 15 else np.int32 if m < 1 << 31 else np.int64


# The steps of _scan.  Plain Python here; _kernel compiles each with numba's inline="always", so that
# they are inlined into _scan's loop nest before LLVM sees it (called, LLVM no longer vectorises them).

def _scatter(buf, rows, hi, sv, g):  # pragma: no cover
    """Step 1: ``buf`` = the codes' ``+-sv[e]`` at their rows, negated when ``<hi[e], g>`` is odd."""
    buf[:] = 0
    for e in range(rows.size):
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


def _butterflies(buf):  # pragma: no cover
    """Step 2: the Walsh-Hadamard butterflies over the low bits, 16 lanes at a time, in place."""
    size = buf.size
    h = 16
    while h < size:
        for i0 in range(0, size, 2 * h):
            u = buf[i0:i0 + h]
            w = buf[i0 + h:i0 + 2 * h]
            for i in range(h):
                su = u[i]
                sw = w[i]
                u[i] = su + sw
                w[i] = su - sw
        h *= 2


def _write_top(buf, low, head, top, out, pos):  # pragma: no cover
    """Step 3, writing: every assignment ``head | lane << low | i`` whose ``S`` is ``top``, from
    ``out[pos]`` on, in increasing order."""
    for lane in range(16):
        for i in range(buf.size >> 4):
            if buf[16 * i + lane] == top:
                out[pos] = head | (lane << low) | i
                pos += 1


def _maximum(buf):  # pragma: no cover
    """Step 3, scanning: the largest ``S`` in ``buf``."""
    mx = buf[0]
    for q in range(buf.size):
        mx = max(mx, buf[q])
    return mx


def _first_and_count(buf, low, mx):  # pragma: no cover
    """Step 4 (``full``, a slower scalar scan): the smallest in-group offset reaching ``mx``, and how many do."""
    count = 0
    first = buf.size
    for q in range(buf.size):
        if buf[q] == mx:
            count += 1
            first = min(first, ((q & 15) << low) | (q >> 4))
    return first, count


_STEPS = ("_scatter", "_butterflies", "_write_top", "_maximum", "_first_and_count")


def _scan(rows, hi, sv, low, groups, nchunks, full, top, offsets, out, best, arg, cnt):  # pragma: no cover
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
            _scatter(buf, rows, hi, sv, g)
            _butterflies(buf)
            if out.size:
                _write_top(buf, low, g << shift, top, out, offsets[j])
            else:
                mx = _maximum(buf)
                best[j] = mx
                if full:  # slower scalar scans: only for the few groups that reach the top
                    arg[j], cnt[j] = _first_and_count(buf, low, mx)


_compiled = None


def _kernel():
    """:func:`_scan` compiled by numba (parallel, cached on disk), its steps inlined into it; numba is
    imported only here."""
    global _compiled
    if _compiled is None:
        numba = extras.require("numba", "the minimum over a null space above nullity 22")

        globals()["prange"] = numba.prange
        for name in _STEPS:
            globals()[name] = numba.njit(inline="always")(globals()[name])
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
    sv = (f.astype(np.int64)[:, None] * (1 - 2 * parity)).astype(dtype_for(m))
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
    numba = extras.require("numba", "the minimum over a null space above nullity 22")

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


def blocked_maxima(codes: np.ndarray, f: np.ndarray, k: int, m: int, cap: int | None):
    """The blocked transform over every group at nullity ``k``: ``(best S, smallest argmax a, all argmax a
    or None)``, the last (int64, increasing) unless ``cap`` is None.

    Raises ValueError when more than ``cap`` assignments reach the best ``S``.  Running time: one
    :func:`group_maxima` pass over all groups, a ``full`` one over the groups reaching the top, and with
    ``cap`` one more over those groups to write their assignments.
    """
    numba = extras.require("numba", "the minimum over a null space above nullity 22")

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

"""``band_kernel``: the compiled steps of :mod:`flipgame.algebra.band` (banded elimination over Z_p with a dense
border), in plain Python until :func:`kernels` compiles them with numba.

Rows are equations (cells), columns buttons. A *band* column ``j`` has every nonzero within ``W`` rows of
``j``; the other columns form the *border* (``B`` of them, kept dense in every row). :func:`forward` sweeps
the band columns in order. Before column ``c`` it activates the rows up to ``c + W`` (so a row enters before
its first band column is eliminated); an active row keeps its band entries in a ring of ``R = 2W + 2`` slots
indexed by ``column % R`` (its band entries always lie in ``[c, c + 2W]``: its own are within W of its index,
fill-in comes from pivot rows, whose entries lie within 2W of their column), its border entries and its
right-hand sides. Of the active rows with a nonzero in column ``c``, the one reaching least far is the pivot (the least
fill-in): scaled to 1, subtracted from
every other active row with a nonzero there, and stored (band entries ``c..c + 2W``, then its *tail*: border
and right-hand sides) for :func:`backward`. Entries are uint8 (p < 256). A band column without a pivot is
free. The rows still active at the end have no band entries left: they are the border system, solved densely
by the caller.

Running time O(N W (2W + B)) operations for N rows; memory O(N (2W + B)) bytes for the pivot rows. Source:
banded Gaussian elimination with row pivoting, G. H. Golub & C. F. Van Loan, "Matrix Computations", 4th ed.,
2013, sections 4.3 and 4.5 (the border as in bordered band systems).
"""

from __future__ import annotations

import threading

import numpy as np

from flipgame.core import extras


def _axpy(a, b, lo, hi, g, p, table):  # pragma: no cover - compiled
    """``a[lo:hi] = (a + g * b) mod p`` on uint8 rows: XOR for p = 2, two conditional subtractions for p = 3
    (both vectorised), the multiplication table ``table[g]`` otherwise."""
    if p == 2:
        for i in range(lo, hi):
            a[i] ^= b[i]
    elif p == 3:
        for i in range(lo, hi):
            v = np.uint8(a[i] + g * b[i])
            v = np.uint8(v - 3 * (v >= 3))
            a[i] = np.uint8(v - 3 * (v >= 3))
    else:
        for i in range(lo, hi):
            v = a[i] + table[g, b[i]]
            a[i] = v - p if v >= p else v


def _row_op(rows, s, t, g, c, span, size, p, table):  # pragma: no cover - compiled
    """Row ``t`` += ``g`` * row ``s`` over the band ``c .. c + span - 1`` (a ring of ``size``), the border
    and the right-hand sides (the row's tail after the ring)."""
    a = rows[t]
    b = rows[s]
    lo = c % size
    hi = min(size, lo + span)
    _axpy(a, b, lo, hi, g, p, table)
    _axpy(a, b, 0, span - (hi - lo), g, p, table)
    _axpy(a, b, size, a.size, g, p, table)


def _scale(rows, s, g, p, table):  # pragma: no cover - compiled
    """Row ``s`` *= ``g`` (every entry: the ring's stale slots are zero)."""
    r = rows[s]
    for i in range(r.size):
        r[i] = table[g, r[i]]


def _activate(rows, ext, s, i, row_ptr, col, val, border_of, rhs_in, size, n_border, p):  # pragma: no cover
    """Row ``i`` of the matrix into slot ``s``: band entries in the ring, border and right-hand sides after it."""
    rows[s, :] = 0
    for q in range(rhs_in.shape[1]):
        rows[s, size + n_border + q] = rhs_in[i, q] % p
    ext[s] = 0
    for e in range(row_ptr[i], row_ptr[i + 1]):
        j = col[e]
        at = size + border_of[j] if border_of[j] >= 0 else j % size
        rows[s, at] = (rows[s, at] + val[e]) % p
        if border_of[j] < 0:
            ext[s] = max(ext[s], j)


def _pivot(rows, ext, active, n_active, pos):  # pragma: no cover
    """The active row with a nonzero at ring position ``pos`` reaching least far (the least fill-in), or -1."""
    k = -1
    for a in range(n_active):
        if rows[active[a], pos] != 0 and (k < 0 or ext[active[a]] < ext[active[k]]):
            k = a
    return k


def _eliminate(rows, ext, active, n_active, s, c, size, p, inverse, table):  # pragma: no cover
    """Scale row ``s`` to 1 at column ``c`` and subtract it from every other active row with a nonzero there."""
    pos = c % size
    if rows[s, pos] != 1:
        _scale(rows, s, inverse[rows[s, pos]], p, table)
    reach = ext[s] - c + 1
    for a in range(n_active):
        t = active[a]
        if t != s and rows[t, pos] != 0:
            _row_op(rows, s, t, p - rows[t, pos], c, reach, size, p, table)
            ext[t] = max(ext[t], ext[s])


def _products(p):  # pragma: no cover
    table = np.zeros((p, p), dtype=np.uint8)
    for g in range(p):
        for v in range(p):
            table[g, v] = (g * v) % p
    return table


def forward(n_rows, n_cols, width, p, inverse, row_ptr, col, val, border_of, rhs_in, slots):  # pragma: no cover
    """The forward sweep (module notes).  Returns ``(pivot_col, pivot_band, pivot_tail, count, free, n_free,
    left, n_left, overflow)``: the first ``count`` pivots (band entries ``c..c + 2W``, then border and
    right-hand sides), the ``n_free`` free band columns, the ``n_left`` rows left (the border system: their
    border and right-hand sides); ``overflow`` is True when more than ``slots`` rows were active at once (the
    caller retries with more)."""
    n_border = int((border_of >= 0).sum())
    size, span = 2 * width + 2, 2 * width + 1
    table = _products(p)
    rows = np.zeros((slots, size + n_border + rhs_in.shape[1]), dtype=np.uint8)
    ext = np.zeros(slots, dtype=np.int64)
    active = np.empty(slots, dtype=np.int64)
    spare = np.arange(slots)[::-1].copy()
    pivot_col = np.empty(n_cols, dtype=np.int64)
    pivot_band = np.zeros((n_cols, span), dtype=np.uint8)
    pivot_tail = np.zeros((n_cols, rows.shape[1] - size), dtype=np.uint8)
    free = np.empty(n_cols, dtype=np.int64)
    n_spare, n_active, count, n_free, nxt = slots, 0, 0, 0, 0
    for c in range(n_cols + 1):
        while nxt < (n_rows if c == n_cols else min(n_rows, c + width + 1)):
            if n_spare == 0:
                return pivot_col, pivot_band, pivot_tail, count, free, n_free, rows, 0, True
            n_spare -= 1
            _activate(rows, ext, spare[n_spare], nxt, row_ptr, col, val, border_of, rhs_in, size, n_border, p)
            active[n_active] = spare[n_spare]
            n_active += 1
            nxt += 1
        if c == n_cols or border_of[c] >= 0:
            continue
        k = _pivot(rows, ext, active, n_active, c % size)
        if k < 0:
            free[n_free] = c
            n_free += 1
            continue
        s = active[k]
        _eliminate(rows, ext, active, n_active, s, c, size, p, inverse, table)
        pivot_col[count] = c
        for q in range(span):
            pivot_band[count, q] = rows[s, (c + q) % size]
        pivot_tail[count, :] = rows[s, size:]
        count += 1
        n_active -= 1
        active[k] = active[n_active]
        spare[n_spare] = s
        n_spare += 1
    left = np.empty((n_active, rows.shape[1] - size), dtype=np.uint8)
    for a in range(n_active):
        left[a, :] = rows[active[a], size:]
    return pivot_col, pivot_band, pivot_tail, count, free, n_free, left, n_active, False


def backward(pivot_col, pivot_band, pivot_tail, n_border, count, x, y, rhs_of, p):  # pragma: no cover
    """Back substitution in place: ``x`` (int32, shape (n_cols, S)) holds the free band columns' values and
    ``y`` (shape (B, S)) the border's; solution ``s`` takes the pivot rows' right-hand side ``rhs_of[s]``
    (-1: none, a null vector).  Fills every pivot column of ``x``."""
    n_cols = x.shape[0]
    span = pivot_band.shape[1]
    n_sol = x.shape[1]
    acc = np.zeros(n_sol, dtype=np.int64)
    for t in range(count - 1, -1, -1):
        c = pivot_col[t]
        for s in range(n_sol):
            acc[s] = pivot_tail[t, n_border + rhs_of[s]] if rhs_of[s] >= 0 else 0
        for q in range(1, min(span, n_cols - c)):
            v = pivot_band[t, q]
            if v != 0:
                for s in range(n_sol):
                    acc[s] -= v * x[c + q, s]
        for b in range(n_border):
            v = pivot_tail[t, b]
            if v != 0:
                for s in range(n_sol):
                    acc[s] -= v * y[b, s]
        for s in range(n_sol):
            x[c, s] = acc[s] % p


def gray_minimum(x0, support, values, starts, p):  # pragma: no cover - compiled
    """The cheapest of the ``p**k`` vectors ``x0 + sum d_i b_i`` (mod p; cost = sum of the entries), walked in
    reflected p-ary Gray order so that each step adds +-b_i once, over b_i's support only.  ``b_i``'s nonzero
    entries are ``values[starts[i]:starts[i + 1]]`` at ``support[...]``.  Returns ``(cost, digits)`` of the
    first cheapest met.  O(p**k * mean support)."""
    k = starts.size - 1
    y = x0.copy()
    cost = 0
    for c in range(y.size):
        cost += y[c]
    best = cost
    digits = np.zeros(k, dtype=np.int64)
    best_digits = np.zeros(k, dtype=np.int64)
    direction = np.ones(k, dtype=np.int64)
    total = 1
    for _ in range(k):
        total *= p
    for _ in range(1, total):
        i = 0
        while not (0 <= digits[i] + direction[i] < p):
            direction[i] = -direction[i]
            i += 1
        digits[i] += direction[i]
        step = direction[i] % p
        for e in range(starts[i], starts[i + 1]):
            c = support[e]
            new = (y[c] + step * values[e]) % p
            cost += new - y[c]
            y[c] = new
        if cost < best:
            best = cost
            best_digits[:] = digits
    return best, best_digits


_INLINED = ("_axpy", "_row_op", "_scale", "_activate", "_pivot", "_eliminate", "_products")
_PLAIN = {name: globals()[name] for name in _INLINED}  # the Python functions, kept to compile from
_compiled: dict = {}
_compiling = threading.Lock()


def kernels():
    """``(forward, backward)`` compiled by numba (cached on disk); numba is imported only here.

    Thread-safe and idempotent: a compilation abandoned half-way (a time limit in another thread) is redone
    from the plain functions, never from ones already wrapped."""
    with _compiling:
        if "gray_minimum" not in _compiled:
            numba = extras.require("numba", "gauss's banded elimination (grids over 2,500 cells)")
            globals().update({name: numba.njit(inline="always")(fn) for name, fn in _PLAIN.items()})
            _compiled.update(forward=numba.njit(cache=True, nogil=True)(forward),
                             backward=numba.njit(cache=True, nogil=True)(backward),
                             gray_minimum=numba.njit(cache=True, nogil=True)(gray_minimum))
    return _compiled["forward"], _compiled["backward"]


def gray_kernel():
    """:func:`gray_minimum`, compiled."""
    kernels()
    return _compiled["gray_minimum"]


__all__ = ["backward", "forward", "gray_kernel", "gray_minimum", "kernels"]

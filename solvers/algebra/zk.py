"""Linear algebra over Z_k for any k >= 2: a diagonal form, the solution coset, its size, the
minimum-cost element, and an infeasibility certificate.

Z_k is a field only for prime k.  For any k we diagonalise the press matrix
by unimodular row and column operations (a Smith-like form without the
divisibility chain, which solving does not need)::

    U A V = D (mod k),   U (n x n) and V (m x m) invertible over Z_k,
    D diagonal with entries d_i that divide k (0 when the column is free).

Each step clears a pivot's row and column with 2x2 Bezout transforms
``[[s, t], [-b/g, a/g]]`` (determinant 1), so every entry stays in
``0..k-1``: no coefficient growth, O(n m min(n, m) log k) operations.

Then ``A x = c`` has a solution iff ``g_i | (U c)_i`` for every row (with
``g_i = gcd(d_i, k)``, and ``g_i = k`` beyond the pivots); the solutions are
``x = V y`` with ``y_i = (U c)_i / g_i + t (k / g_i)``, ``0 <= t < g_i``, and
``y_j`` free in Z_k for a column without a pivot.  The kernel has
``prod g_i * k^(free columns)`` elements (``k**nullity`` for prime k).  If a
row fails, ``c' = (k / g_i) U_i`` satisfies ``c'^T A = 0`` and
``c' . c != 0 (mod k)``: a certificate that the board cannot be solved.

Source: Howell, "Spans in the module (Z_m)^s", Linear and Multilinear Algebra
19, 1986; Storjohann, "Algorithms for Matrix Canonical Forms", PhD thesis,
ETH Zurich, 2000, ch. 7 (Smith form over Z/NZ by Bezout transforms).
"""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass
from math import gcd

import numpy as np

from flipgame.algebra import gf2
from flipgame.core.errors import BoardTooLargeError, NullityTooLargeError
from flipgame.core.limits import ZK_DENSE_MAX_CELLS

MAX_ENUMERATED = 1 << 24
"""Largest (kernel size x buttons) the minimum enumerates, in cells of an int32 array (64 MiB)."""
CHUNK_ELEMENTS = 1 << 22
"""Batch minimum: boards x kernel elements x buttons handled per numpy step."""
WORKING_MATRICES = 2
"""n x m int64 matrices alive at the peak of a diagonal form, besides U and V: the press matrix the system
keeps and the one being reduced (the gcds that choose a pivot take one byte an entry more)."""
CACHE_BYTES = 256 << 20
"""Most bytes of diagonal forms kept by :func:`diagonal_of` (its U and V); least recently used go first."""
EXACT_COUNT_MAX = 10**15
"""Kernel sizes up to this are written in full; above, as a product of powers (3^8997 has 4,293 digits,
and Python refuses ``str`` of an int of over 4,300)."""


def _egcd(a: int, b: int) -> tuple[int, int, int]:
    """``(g, s, t)`` with ``s a + t b = g = gcd(a, b)``."""
    s0, s1, t0, t1 = 1, 0, 0, 1
    while b:
        q, a, b = a // b, b, a - (a // b) * b
        s0, s1 = s1, s0 - q * s1
        t0, t1 = t1, t0 - q * t1
    return a, s0, t0


def _unit_to_divisor(a: int, k: int) -> int:
    """A unit u of Z_k with ``u a = gcd(a, k) (mod k)``."""
    g = gcd(a, k)
    q = k // g
    u = pow(a // g, -1, q) if q > 1 else 1
    while gcd(u, k) != 1:
        u += q
    return u % k


@dataclass(frozen=True)
class Diagonal:
    """``U A V = D (mod k)``: see the module docstring.

    Attributes
    ----------
    k : int
    u : ndarray of int64, shape (n, n)
    v : ndarray of int64, shape (m, m)
    d : tuple of int
        Pivots ``d_0..d_{r-1}`` (each a divisor of k, never 0), r = number of pivots.
    """

    k: int
    u: np.ndarray
    v: np.ndarray
    d: tuple[int, ...]

    @property
    def n(self) -> int:
        return self.u.shape[0]

    @property
    def m(self) -> int:
        return self.v.shape[0]

    @property
    def orders(self) -> tuple[int, ...]:
        """Per column of V: how many values its coordinate takes in the kernel (g_i, or k if free)."""
        return tuple(self.d) + (self.k,) * (self.m - len(self.d))

    @property
    def kernel_size(self) -> int:
        """Number of press vectors (counts mod k) that change nothing: ``prod orders``."""
        out = 1
        for o in self.orders:
            out *= o
        return out

    @property
    def kernel_text(self) -> str:
        """:attr:`kernel_size` as text: in full up to :data:`EXACT_COUNT_MAX`, else as a product of powers of
        the orders (``3^8997``, ``2^3 * 4^5``), never a number of thousands of digits.  O(m)."""
        return count_text(self.orders)

    @property
    def kernel_count(self) -> int | str:
        """:attr:`kernel_size` for statistics: the int up to :data:`EXACT_COUNT_MAX`, else :attr:`kernel_text`."""
        size = self.kernel_size
        return size if size <= EXACT_COUNT_MAX else self.kernel_text

    @property
    def nullity(self) -> int:
        """Free columns plus zero pivots: the nullity over GF(k) when k is prime."""
        return sum(1 for o in self.orders if o == self.k)

    def kernel_generators(self) -> list[tuple[np.ndarray, int]]:
        """``(vector, order)`` pairs generating the kernel: ``V[:, i] * (k / g_i)`` of order g_i."""
        out = []
        for i, o in enumerate(self.orders):
            if o > 1:
                out.append(((self.v[:, i] * (self.k // o)) % self.k, o))
        return out

    def particular(self, c: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """One solution of ``A x = c (mod k)`` and None, or None and a certificate.

        ``c``: int array shape (n,).  The certificate is an int64 vector shape (n,) with
        ``cert @ A = 0`` and ``cert @ c != 0 (mod k)``.  O(n^2 + m^2).
        """
        k = self.k
        uc = (self.u @ (np.asarray(c, dtype=np.int64) % k)) % k
        y = np.zeros(self.m, dtype=np.int64)
        for i in range(self.n):
            g = self.d[i] if i < len(self.d) else k
            if uc[i] % g:
                return None, ((k // g) * self.u[i]) % k
            if i < len(self.d):
                y[i] = uc[i] // g
        return (self.v @ y) % k, None

    def particular_batch(self, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised :meth:`particular` for boards ``c`` (int array shape (b, n)):
        ``(solvable bool (b,), x int64 (b, m))`` (x is 0 where not solvable)."""
        k = self.k
        uc = _matmul_mod(np.asarray(c, dtype=np.int64) % k, self.u.T, k)
        g = np.array([self.d[i] if i < len(self.d) else k for i in range(self.n)], dtype=np.int64)
        ok = ((uc % g) == 0).all(axis=1)
        y = np.zeros((len(uc), self.m), dtype=np.int64)
        r = len(self.d)
        y[:, :r] = uc[:, :r] // g[:r]
        x = _matmul_mod(y, self.v.T, k)
        x[~ok] = 0
        return ok, x


def _matmul_mod(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """``a @ b mod k`` for entries in 0..k-1, through float64 BLAS (numpy's int64 matmul has no BLAS and
    was 10x slower): exact while ``inner * (k-1)**2 < 2**53``, which holds for every size flipgame takes."""
    if a.shape[1] * (k - 1) ** 2 >= 1 << 53:
        return a @ b % k
    return np.rint(a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64) % k


def estimate_bytes(n: int, m: int) -> int:
    """Peak memory of the diagonal form of an n x m press matrix, in bytes: :data:`WORKING_MATRICES`
    int64 n x m matrices, U (n x n) and V (m x m).  O(1), nothing built."""
    return 8 * (WORKING_MATRICES * n * m + n * n + m * m) + n * m


def diagonalise(a: np.ndarray, k: int, deadline: float | None = None) -> Diagonal:
    """The diagonal form of ``a`` (int array shape (n, m)) over Z_k.

    Running time O(n m min(n, m) log k) integer operations on numpy rows; memory
    :func:`estimate_bytes` (a pivot is an entry of least gcd with k, found through a table of
    gcds, one byte an entry).  ``deadline`` (``time.perf_counter()`` seconds): TimeoutError once it
    has passed, checked between row operations.

    >>> d = diagonalise(np.array([[2, 0], [0, 3]]), 6)
    >>> d.d, d.kernel_size
    ((2, 3), 6)
    """
    return _diagonalise(np.asarray(a, dtype=np.int64) % k, k, deadline)


def _diagonalise(mat: np.ndarray, k: int, deadline: float | None) -> Diagonal:
    """:func:`diagonalise` reducing ``mat`` (int64, entries 0..k-1) in place."""
    n, m = mat.shape
    u, v = np.eye(n, dtype=np.int64), np.eye(m, dtype=np.int64)
    gcd_of = np.array([gcd(x, k) for x in range(k)], dtype=np.uint8)  # gcd(0, k) = k: zero is never least
    pivots: list[int] = []
    for p in range(min(n, m)):
        _check_deadline(deadline)
        sub = mat[p:, p:]
        gs = gcd_of[sub]
        at = int(np.argmin(gs))
        if gs.flat[at] == k:
            break
        del gs
        i, j = divmod(at, m - p)
        i, j = i + p, j + p
        mat[[p, i]], u[[p, i]] = mat[[i, p]], u[[i, p]]
        mat[:, [p, j]], v[:, [p, j]] = mat[:, [j, p]], v[:, [j, p]]
        unit = _unit_to_divisor(int(mat[p, p]), k)
        mat[p], u[p] = mat[p] * unit % k, u[p] * unit % k
        _clear(mat, u, v, p, k, deadline)
        pivots.append(int(mat[p, p]))
    return Diagonal(k, u, v, tuple(pivots))


def _check_deadline(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise TimeoutError("time limit reached in the diagonal form over Z_k")


def _clear(mat: np.ndarray, u: np.ndarray, v: np.ndarray, p: int, k: int, deadline: float | None) -> None:
    """Zero row p and column p of ``mat`` outside (p, p) by Bezout transforms, in place."""
    while True:
        _check_deadline(deadline)
        for i in np.flatnonzero(mat[p + 1:, p]) + p + 1:
            _combine(mat, u, p, int(i), k)
        for j in np.flatnonzero(mat[p, p + 1:]) + p + 1:
            _combine(mat.T, v.T, p, int(j), k)
        if not mat[p + 1:, p].any():
            return


def _combine(mat: np.ndarray, u: np.ndarray, p: int, i: int, k: int) -> None:
    """Row operation zeroing ``mat[i, p]`` against the pivot ``mat[p, p]`` (rows of ``u`` alike)."""
    a, b = int(mat[p, p]), int(mat[i, p])
    if a and b % a == 0:
        q = b // a
        mat[i], u[i] = (mat[i] - q * mat[p]) % k, (u[i] - q * u[p]) % k
        return
    g, s, t = _egcd(a, b)
    for rows in (mat, u):
        rp, ri = rows[p].copy(), rows[i].copy()
        rows[p] = (s * rp + t * ri) % k
        rows[i] = (-(b // g) * rp + (a // g) * ri) % k


_cache: OrderedDict[tuple, Diagonal] = OrderedDict()
_cache_lock = threading.Lock()


def diagonal_of(a: np.ndarray, k: int, deadline: float | None = None) -> Diagonal:
    """:func:`diagonalise`, cached by a digest of the matrix (a verify run asks once per board), at most
    :data:`CACHE_BYTES` of forms kept.  Works on one copy of ``a`` (see :func:`estimate_bytes`)."""
    import hashlib  # off the start-up path: only systems beyond two states get here

    mat = np.ascontiguousarray(a, dtype=np.int64) % k
    key = (hashlib.blake2b(mat, digest_size=16).digest(), mat.shape, k)
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    diag = _diagonalise(mat, k, deadline)
    del mat
    with _cache_lock:
        _cache[key] = diag
        while len(_cache) > 1 and sum(d.u.nbytes + d.v.nbytes for d in _cache.values()) > CACHE_BYTES:
            _cache.popitem(last=False)
    return diag


def quick_diagonal(system, deadline: float | None = None) -> Diagonal:
    """The diagonal form of a k-state ``system`` when it is quick to compute, for an answer's certificate or
    a plan: at most :data:`~flipgame.core.limits.ZK_DENSE_MAX_CELLS` cells and buttons (at that size, 40x40
    over Z_3, about 13 s on the 2-core machine, loaded), until ``deadline`` (a ``time.perf_counter()`` value).

    Raises BoardTooLargeError above that size, TimeoutError past ``deadline``.
    """
    if max(system.cells, system.m) > ZK_DENSE_MAX_CELLS:
        raise BoardTooLargeError(f"the diagonal form over Z_{system.states} is computed without a time limit up to "
                                 f"{ZK_DENSE_MAX_CELLS:,} cells and buttons; this system has {system.cells:,} cells "
                                 f"and {system.m:,} buttons")
    return diagonal_of(system.matrix, system.states, deadline)


def count_text(orders) -> str:
    """The product of ``orders`` (ints >= 1) as text: in full up to :data:`EXACT_COUNT_MAX`, else as powers.

    >>> count_text([3] * 40), count_text([2, 2, 6])
    ('3^40', '24')
    """
    total = 1
    for o in orders:
        total *= o
        if total > EXACT_COUNT_MAX:
            powers = sorted(Counter(o for o in orders if o > 1).items())
            return " * ".join(f"{o}^{c}" if c > 1 else str(o) for o, c in powers)
    return f"{total:,}"


def kernel_elements(diag: Diagonal, limit: int = MAX_ENUMERATED) -> np.ndarray:
    """Every kernel vector, int32 array shape (kernel_size, m), the zero vector first.

    Raises
    ------
    NullityTooLargeError
        When ``kernel_size * m`` is over ``limit``.
    """
    size, k = diag.kernel_size, diag.k
    if size * diag.m > limit:
        raise NullityTooLargeError(
            f"gauss: the solution coset has {diag.kernel_text} press vectors ({diag.m:,} buttons), over the "
            f"{limit:,}-entry enumeration budget over Z_k (--max-nullity bounds two states only); cpsat and ilp "
            f"search it instead")
    out = np.zeros((1, diag.m), dtype=np.int32)
    for gen, order in diag.kernel_generators():
        steps = (np.arange(order, dtype=np.int32)[:, None] * gen[None, :].astype(np.int32)) % k
        out = ((out[None, :, :] + steps[:, None, :]) % k).reshape(-1, diag.m)
    return out


def min_cost(x0: np.ndarray, kernel: np.ndarray, k: int) -> np.ndarray:
    """The cheapest of ``x0 + kernel (mod k)`` (cost = sum of counts; first on ties), int64 shape (m,)."""
    cand = (kernel + np.asarray(x0, dtype=np.int32)[None, :]) % k
    return cand[int(np.argmin(cand.sum(axis=1)))].astype(np.int64)


def min_cost_batch(x0: np.ndarray, kernel: np.ndarray, k: int) -> np.ndarray:
    """Row-wise :func:`min_cost` for ``x0`` int array shape (b, m): int64 shape (b, m).
    Chunked so that at most :data:`CHUNK_ELEMENTS` entries are live."""
    b, m = x0.shape
    out = np.empty((b, m), dtype=np.int64)
    step = max(1, CHUNK_ELEMENTS // max(1, len(kernel) * m))
    x0 = x0.astype(np.int32)
    for s in range(0, b, step):
        cand = (x0[s:s + step, None, :] + kernel[None, :, :]) % k
        pick = np.argmin(cand.sum(axis=2), axis=1)
        out[s:s + step] = cand[np.arange(len(cand)), pick]
    return out


def certificates(system, board) -> dict | None:
    """Certificates that ``board`` of a k-state press system is Impossible: goal board -> vector ``c``
    (a tuple of n ints) with ``c^T A = 0`` and ``c . (goal - board) != 0 (mod k)``; None if some goal
    board is reachable.  O(n m min(n, m) log k) once per system (cached), O(n^2) per goal.

    >>> from flipgame.model.grid import Game
    >>> certificates(Game(1, 2, "0", states=3), (1, 0))  # both cells always change together
    {(0, 0): (2, 1)}
    """
    diag = quick_diagonal(system)
    found = {}
    for t in system.targets:
        _, cert = diag.particular((np.array(t, dtype=np.int64) - np.array(board, dtype=np.int64)) % system.states)
        if cert is None:
            return None
        found[t] = tuple(int(v) for v in cert)
    return found


def system_nullity(system) -> int | None:
    """The nullity of any press system's matrix, the one home of that figure: over GF(2)
    (:func:`flipgame.algebra.gf2.nullity`), over Z_k the generators of order k of the diagonal form, None for
    counters or rules the algebra does not take.  Cached per system through the eliminations."""
    if system.binary:
        return gf2.nullity(system)
    return None if system.states is None else diagonal_of(system.matrix, system.states).nullity

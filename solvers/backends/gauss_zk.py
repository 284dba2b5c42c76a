"""gauss over Z_k (k >= 3): the diagonal form of :mod:`flipgame.algebra.zk`, or for a grid over its memory budget
with a prime k the banded elimination of :mod:`flipgame.algebra.band`; single boards and batches.

The diagonal form's matrices are estimated before anything is built (:func:`zk_memory_refusal`); it stops at
gauss's time limit (``seconds``, default :data:`~flipgame.core.limits.TIME_LIMIT_DEFAULT_SECONDS`: Unknown), and
Ctrl-C stops it between row operations.  The banded elimination and its Gray walk run in a thread Ctrl-C does not
wait for, and are Unknown past the same limit.

Sources: Howell, "Spans in the module (Z_m)^s", 1986 (the diagonal form); Golub & Van Loan, "Matrix
Computations", 4th ed., 2013, section 4.3 (banded elimination).
"""

from __future__ import annotations

import time

import numpy as np

from flipgame.algebra import band, band_layout, zk
from flipgame.backends.base import interruptible
from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.errors import NullityTooLargeError
from flipgame.core.limits import BAND_ENUMERATION_MAX, MEMORY_LIMIT_GIB, TIME_LIMIT_DEFAULT_SECONDS, ZK_BAND_MIN_CELLS
from flipgame.core.text import mib
from flipgame.model.system import PressSystem


def solve_mod_k(name: str, game: PressSystem, board, method: str,
                seconds: float = TIME_LIMIT_DEFAULT_SECONDS) -> Solution:
    """Over Z_k: the banded elimination when asked for; with ``method`` auto and a prime k on a banded grid, also
    from :data:`~flipgame.core.limits.ZK_BAND_MIN_CELLS` cells or over the diagonal form's memory budget, and
    when the diagonal form's enumeration budget refuses a coset (the band's Gray walk takes up to
    :data:`~flipgame.core.limits.BAND_ENUMERATION_MAX` additions); else the diagonal form.  UNKNOWN past
    ``seconds``."""
    if prefers_band(game, method):
        return _solve_band_zk(name, game, board, seconds)
    start = time.perf_counter()
    try:
        return _solve_zk(name, game, board, seconds)
    except NullityTooLargeError:
        if method != "auto" or not _band_takes(game):
            raise
        return _solve_band_zk(name, game, board, seconds - (time.perf_counter() - start))


def _band_takes(game: PressSystem) -> bool:
    """True when the banded elimination takes ``game``: a prime k, a grid, numba, and a band within its limits."""
    return band_layout.refusal(game) is None and band_layout.band_refusal(game) is None



def prefers_band(game: PressSystem, method: str) -> bool:
    """True when gauss takes ``game`` (k states) to the banded elimination before the diagonal form: asked
    for, or with ``method`` auto a prime k on a banded grid of :data:`~flipgame.core.limits.ZK_BAND_MIN_CELLS`
    cells or over the diagonal form's memory budget.  O(entries) (the band is read once, cached)."""
    if method == "band":
        return True
    big = game.cells >= ZK_BAND_MIN_CELLS or zk_memory_refusal(game) is not None
    return method == "auto" and big and _band_takes(game)


def band_timeout(name: str, start: float, seconds: float) -> Solution:
    """UNKNOWN: the banded elimination did not finish within gauss's time limit of ``seconds``."""
    return Solution(name, Status.UNKNOWN, seconds=time.perf_counter() - start,
                    stats={"error": f"the banded elimination was not done within the time limit of {seconds:g} s: "
                                    f"a larger --time-limit gives it more (cpsat and ilp search instead on "
                                    f"smaller boards)", "method": "band"})



def zk_memory_refusal(system: PressSystem) -> str | None:
    """Why gauss declines a k-state ``system``: its diagonal form's estimated memory
    (:func:`flipgame.algebra.zk.estimate_bytes`) over :data:`~flipgame.core.limits.MEMORY_LIMIT_GIB`;
    else None.  O(1)."""
    need, budget = zk.estimate_bytes(system.cells, system.m), MEMORY_LIMIT_GIB * 2**30
    if need <= budget:
        return None
    return (f"gauss: the diagonal form of {system.cells:,} cells x {system.m:,} buttons over Z_{system.states} needs "
            f"about {mib(need)}, over gauss's {mib(budget)} budget")


def _zk_kernel(diag: zk.Diagonal) -> np.ndarray:
    """The kernel's elements (:func:`flipgame.algebra.zk.kernel_elements`); refused over its budget."""
    return zk.kernel_elements(diag, zk.MAX_ENUMERATED)


def _zk_diagonal(system: PressSystem, deadline: float) -> zk.Diagonal:
    """The diagonal form of ``system``; TimeoutError once ``time.perf_counter()`` passes ``deadline``."""
    return zk.diagonal_of(system.matrix, system.states, deadline)


def _solve_zk(name: str, system: PressSystem, board: tuple[int, ...], seconds: float) -> Solution:
    """Over Z_k (k >= 3): the diagonal form of :mod:`flipgame.algebra.zk`, one particular solution per
    goal board, then the cheapest element of its coset.  INFEASIBLE carries a certificate per goal
    board; UNKNOWN when the diagonal form is not done within ``seconds``.
    Running time:
    the diagonal form once per system, O(n m min(n, m) log k); per board O(n^2 + m^2) plus
    O(kernel size * m).

    Raises NullityTooLargeError for a solvable board whose coset is over the enumeration budget.
    """
    start = time.perf_counter()
    k = system.states
    try:
        diag = _zk_diagonal(system, start + seconds)
    except TimeoutError:
        return Solution(name, Status.UNKNOWN, seconds=time.perf_counter() - start,
                        stats={"error": f"the diagonal form over Z_{k} was not done within the time limit of "
                                        f"{seconds:g} s (--time-limit); cpsat and ilp search instead"})
    stats = {"nullity": diag.nullity, "kernel_size": diag.kernel_count}
    best, certs, reachable, kernel = None, {}, 0, None
    for t in system.targets:
        x0, cert = diag.particular((np.array(t, dtype=np.int64) - np.array(board, dtype=np.int64)) % k)
        if x0 is None:
            certs[t] = tuple(int(v) for v in cert)
            continue
        reachable += 1
        kernel = _zk_kernel(diag) if kernel is None else kernel
        x = tuple(int(v) for v in zk.min_cost(x0, kernel, k))
        if best is None or sum(x) < sum(best[0]):
            best = (x, t)
    stats["solutions"] = _solutions(reachable, diag)
    seconds = time.perf_counter() - start
    if best is None:
        return Solution(name, Status.INFEASIBLE, seconds=seconds, stats=stats, certificates=certs)
    return Solution(name, Status.OPTIMAL, sum(best[0]), best[0], system.apply(board, best[0]), seconds, stats)


def _solve_band_zk(name: str, system: PressSystem, board: tuple[int, ...], seconds: float) -> Solution:
    """Over Z_p (p prime) on a grid too large for the diagonal form: the banded elimination of
    :mod:`flipgame.algebra.band`, one particular solution per goal board, the cheapest element of its coset by a
    p-ary Gray walk (up to :data:`~flipgame.core.limits.BAND_ENUMERATION_MAX` additions), and for an Impossible
    board a certificate per goal board from the transpose.  O(N W (2W + B)) for the elimination.

    Raises NullityTooLargeError for a solvable board whose coset is over the enumeration budget."""
    start, p = time.perf_counter(), system.states
    cells = np.array(board, dtype=np.int64)
    targets = list(system.targets)
    rhs = np.stack([(np.array(t, dtype=np.int64) - cells) % p for t in targets], axis=1)
    try:
        xs, basis = interruptible(lambda: band.solutions(band.sweep(system, rhs)), lambda: None,
                                  seconds=max(seconds, 0.0))
    except TimeoutError:
        return band_timeout(name, start, seconds)
    k = len(basis)
    stats = {"nullity": k, "method": "band"}
    if all(x is None for x in xs):
        certs = {t: tuple(int(v) for v in band.certificate(system, rhs[:, i])) for i, t in enumerate(targets)}
        return Solution(name, Status.INFEASIBLE, seconds=time.perf_counter() - start, stats=stats, certificates=certs)
    if isinstance(basis, band.UnbuiltBasis) or band.enumeration_work(basis, p) > BAND_ENUMERATION_MAX:
        raise NullityTooLargeError(f"nullity {k} over Z_{p}: the cheapest solution needs {p}**{k} press vectors "
                                   f"compared, over gauss's budget of {BAND_ENUMERATION_MAX:,} additions; cpsat and "
                                   f"ilp search for it instead")
    try:
        best = _cheapest_band(xs, basis, targets, p, start + seconds)
    except TimeoutError:
        stats["error"] = f"the cheapest of {p}**{k} solutions was not found within the time limit of {seconds:g} s"
        return Solution(name, Status.UNKNOWN, seconds=time.perf_counter() - start, stats=stats)
    stats["solutions"] = sum(x is not None for x in xs) * p ** k
    return Solution(name, Status.OPTIMAL, sum(best[0]), best[0], system.apply(board, best[0]),
                    time.perf_counter() - start, stats)


def _cheapest_band(xs, basis, targets, p: int, deadline: float) -> tuple[tuple[int, ...], tuple]:
    """The cheapest press vector over the cosets ``xs`` (None: a goal not reached) and its goal board, by the band's
    Gray walk in a thread; TimeoutError past ``deadline``."""
    best = None
    for x0, t in zip(xs, targets, strict=True):
        if x0 is not None:
            x = tuple(int(v) for v in interruptible(lambda x0=x0: band.cheapest(x0, basis, p), lambda: None,
                                                    seconds=max(deadline - time.perf_counter(), 0.0)))
            if best is None or sum(x) < sum(best[0]):
                best = (x, t)
    return best


def _solutions(reachable: int, diag: zk.Diagonal) -> int | str:
    """The press vectors reaching one of ``reachable`` goal boards: an int, or text past
    :data:`flipgame.algebra.zk.EXACT_COUNT_MAX` (``2 * 3^8997``)."""
    total = reachable * diag.kernel_size
    return total if total <= zk.EXACT_COUNT_MAX else zk.count_text([reachable, *diag.orders])


def batch_mod_k(name: str, system: PressSystem, boards: np.ndarray,
                seconds: float = TIME_LIMIT_DEFAULT_SECONDS) -> BatchSolution:
    """Vectorised :func:`_solve_zk` for boards as an int64 array shape (b, n); the coset is enumerated
    once for every board (NullityTooLargeError over budget); every board UNKNOWN when the diagonal form is
    not done within ``seconds``."""
    start = time.perf_counter()
    k, boards = system.states, np.asarray(boards, dtype=np.int64)
    out = BatchSolution.empty(name, boards, system.m)
    try:
        diag = _zk_diagonal(system, start + seconds)
    except TimeoutError:  # every board stays UNKNOWN
        return out.with_time(time.perf_counter() - start)
    kernel = _zk_kernel(diag)
    best = np.full(len(boards), np.iinfo(np.int32).max, dtype=np.int64)
    for t in system.targets:
        tv = np.array(t, dtype=np.int64)
        ok, x0 = diag.particular_batch(tv[None, :] - boards)
        idx = np.flatnonzero(ok)
        x = zk.min_cost_batch(x0[idx], kernel, k)
        cost = x.sum(axis=1)
        better = cost < best[idx]
        sel = idx[better]
        best[sel] = cost[better]
        out.presses[sel] = x[better]
        out.target[sel] = tv
    solved = best != np.iinfo(np.int32).max
    out.status[:] = np.where(solved, Status.OPTIMAL, Status.INFEASIBLE)
    out.moves[solved] = best[solved]
    return out.with_time(time.perf_counter() - start, nullity=diag.nullity)


__all__ = ["band_timeout", "batch_mod_k", "prefers_band", "solve_mod_k", "zk_memory_refusal"]

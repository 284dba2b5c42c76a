"""``gauss``: GF(2) elimination, then the minimum-weight solution over the null space.

Method.  The algebra (:mod:`flipgame.algebra.gf2`) turns a board into one coset
``x ^ span(quiet patterns)`` per reachable goal board: by dense Gauss-Jordan
elimination of the press matrix, or by light chasing for large plus boards
without wrap.  Solvability is decided first, so an Impossible board is
answered at any nullity; a solvable board then needs the lightest element of
its coset(s), found by :func:`flipgame.algebra.gf2.min_weight` (a Gray-code walk
for small nullity, a Walsh-Hadamard transform above).  For the goal "any
colour" both targets are solved and the lighter solution kept (white first on
a tie).

Above nullity :data:`LONG_RUN_MIN_NULLITY` the minimum is a long run
(:mod:`flipgame.algebra.coset_run`): one group of solutions per orbit of the
board's symmetries, a progress bar on stderr, Ctrl-C with the lightest solution
found so far (:class:`~flipgame.algebra.coset_run.InterruptedRun`), and a
resumable ``checkpoint`` file.

Time limit: ``time_limit`` seconds per board, elimination included.  The long run
stops at the first block boundary past it (a block takes a fraction of a second; the
first one in a process also loads the compiled kernel, about a second) and answers UNKNOWN,
the lightest solution found so far named in ``stats["error"]`` as an unproven bound,
the checkpoint written; the banded elimination and a canonical minimum above nullity
:data:`~flipgame.algebra.gf2.GRAY_MAX_NULLITY` are abandoned at it (UNKNOWN).  The
dense elimination and a minimum up to nullity :data:`LONG_RUN_MIN_NULLITY` (2**22
solutions, milliseconds) are not timed.

Ties: among minimum-weight solutions the one with the smallest free-variable
assignment (above :data:`LONG_RUN_MIN_NULLITY`: the first met in the long run's
block order), or with ``canonical`` the lexicographically smallest press
pattern; :meth:`Gauss.solve` and :meth:`Gauss.solve_batch` return the same witness.

Running time: the elimination O(n^3 / w) once per game (n = rows*cols, w =
machine word; chasing O(side * n)); per board O(n^2 / w) for the particular
solution and O(2**k k) for the minimum (k = nullity; 2**32 in
:data:`NULLITY_32_SECONDS` on 2 cores once numba has compiled the kernel).
4x4 has rank 12, nullity 4.

Source: Anderson & Feil, "Turning Lights Out with Linear Algebra", Math.
Magazine 71(4), 1998.

Grids past the dense limit of any stencil and wrap-around go to the banded
elimination (:mod:`flipgame.algebra.band`, ``method="band"``), in a thread that
Ctrl-C does not wait for, Unknown past
:data:`~flipgame.core.limits.TIME_LIMIT_DEFAULT_SECONDS`.  Over Z_k (k >= 3) the
diagonal form of :mod:`flipgame.algebra.zk`, or the banded elimination for a
prime k, takes the place of the elimination: :mod:`flipgame.backends.gauss_zk`.
(gauss has no ``memory_limit`` option: two-state boards are bounded by ``max_nullity`` and
:data:`~flipgame.core.limits.DENSE_MAX_WORK`, k states by
:func:`~flipgame.backends.gauss_zk.zk_memory_refusal`.)
"""

from __future__ import annotations

import math
import time

import numpy as np

from flipgame.algebra import band, band_layout, coset_run, minweight
from flipgame.algebra import gf2 as algebra
from flipgame.backends import gauss_zk
from flipgame.backends.base import TIME_LIMIT, Backend, Option, interruptible, kind_of
from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.errors import BoardTooLargeError, MemoryBudgetError, NullityTooLargeError, RefusedError
from flipgame.core.limits import (
    BOARD_MAX_CELLS,
    DEFAULT_MAX_NULLITY,
    DENSE_MAX_WORK,
    TIME_LIMIT_DEFAULT_SECONDS,
    TIME_LIMIT_MAX_SECONDS,
)
from flipgame.model.system import PressSystem

NULLITY_32_SECONDS = 2.0 ** 32 / coset_run.RATE
"""Seconds to enumerate 2**32 null-space combinations of a board without symmetry, at the one measured rate
:data:`flipgame.algebra.coset_run.RATE` (a symmetric board takes up to 8 times less)."""
LONG_RUN_MIN_NULLITY = minweight.DENSE_MAX_NULLITY
"""Above this nullity the minimum is a long run (:func:`flipgame.algebra.coset_run.minimum`): one group
per symmetry orbit, a progress bar, Ctrl-C with the lightest solution so far, ``--checkpoint``."""
SOLUTIONS_MAX_NULLITY = 62
"""Up to this nullity the ``solutions`` statistic counts the press sets reaching a goal (POJ 1830's answer)."""
BATCH_MAX_NULLITY = 20
"""solve_batch holds every null-space combination in memory (8 MiB at 20); above, it solves per board."""


def _better(x: int, best: tuple[int, int] | None, n: int, canonical: bool) -> bool:
    return algebra.better(x, best and best[0], n, canonical)


class Gauss(Backend):
    """GF(2) elimination backend; see the module docstring.

    Options: ``max_nullity`` (refuse to enumerate more than ``2**max_nullity``
    solutions of a solvable board) and ``method`` (``auto``, ``dense``, ``chase``).

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "gauss").moves
    4
    """

    name = "gauss"
    summary = "GF(2) Gauss-Jordan elimination + minimum over the null space (Z_k: a diagonal form)"
    max_cells = BOARD_MAX_CELLS
    takes = frozenset({"two", "mod k"})
    options = (
        Option("max_nullity", int, DEFAULT_MAX_NULLITY,
               f"enumerate at most 2**N solutions of a solvable board (32: {coset_run.describe(NULLITY_32_SECONDS)} "
               f"at the rate measured on the reference machine, docs/measured.md; twice that per extra nullity, "
               f"up to 8 times less on a symmetric board; Impossible boards are answered at any nullity)",
               minimum=0, maximum=minweight.MAX_NULLITY),
        Option("checkpoint", str, None,
               f"above nullity {LONG_RUN_MIN_NULLITY}: keep the enumeration's state in FILE (the finished blocks "
               "and the lightest solution so far) and resume from it when FILE is given again; a file of "
               "another board or rules is refused (flipgame solve --checkpoint)", flag=""),
        Option("method", str, "auto",
               f"auto, dense (elimination, any rules, cells x buttons <= {DENSE_MAX_WORK:,}), chase (light chasing: "
               "plus, no wrap, any size) or band (banded elimination: grids of any stencil and wrap-around, two or "
               "a prime number of states; 256x256 tori in seconds)", choices=algebra.METHODS, flag="--gauss-method",
               fuzz=("auto", "dense", "band")),
        TIME_LIMIT,
    )

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        why = super().refusal(game, options)
        if why:
            return why
        if not game.binary:
            if options.get("method") == "band" and (why := band_layout.refusal(game)):
                return f"gauss: {why}"
            why = gauss_zk.zk_memory_refusal(game)
            return None if why and band_layout.refusal(game) is None else why
        try:
            algebra.method_for(game, options.get("method", "auto"))
        except RefusedError as exc:
            return f"gauss: {exc}"
        return None

    def refusal_error(self, game: PressSystem, options: dict) -> type[Exception]:
        return MemoryBudgetError if kind_of(game) == "mod k" and self.supports(game) else BoardTooLargeError

    def solve(self, game: PressSystem, board: int, *, max_nullity: int = DEFAULT_MAX_NULLITY, method: str = "auto",
              canonical: bool = False, checkpoint: str | None = None,
              time_limit: float = TIME_LIMIT_DEFAULT_SECONDS) -> Solution:
        """Minimum presses taking ``board`` to a goal of ``game``.

        Returns OPTIMAL with a minimum-weight witness, or INFEASIBLE; stats give
        ``rank``, ``nullity`` and ``method``.  UNKNOWN past ``time_limit`` seconds (see the
        module docstring), ``stats["error"]`` saying why and, for a long run, the lightest
        solution found so far (re-applied by the board model) and how to resume.

        Raises
        ------
        NullityTooLargeError
            A solvable board whose nullity exceeds ``max_nullity``; the message
            gives the ``--max-nullity`` that takes it and its expected time.
        InterruptedRun
            Ctrl-C during a long run (nullity over :data:`LONG_RUN_MIN_NULLITY`), with the lightest
            solution found so far (an upper bound, not a minimum).
        CheckpointError
            A ``checkpoint`` file of another board or rules, damaged, or not writable.
        """
        if not game.binary:
            return gauss_zk.solve_mod_k(self.name, game, board, method, time_limit)
        start = time.perf_counter()
        try:
            parts, quiet, method = _cosets(game, board, method, time_limit)
        except TimeoutError:
            return gauss_zk.band_timeout(self.name, start, time_limit)
        k = len(quiet)
        stats = {"rank": game.m - k, "nullity": k, "method": method}
        if k <= SOLUTIONS_MAX_NULLITY:
            stats["solutions"] = len(parts) << k
        if not parts:
            return Solution(self.name, Status.INFEASIBLE, seconds=time.perf_counter() - start, stats=stats)
        if k > max_nullity:
            seconds, order = (None, 1) if isinstance(quiet, band.UnbuiltBasis) else \
                coset_run.estimate(game, board, parts, quiet)
            raise NullityTooLargeError(
                f"nullity {k}: the minimum needs 2**{k} solutions enumerated, over max_nullity={max_nullity}; "
                f"{nullity_hint(k, seconds, order, time_limit)}")
        try:
            x, t = _lightest(game, board, parts, quiet, canonical, checkpoint, start + time_limit, stats)
        except coset_run.TimedOutRun as stopped:
            stats["error"] = timed_out_text(game, board, stopped, time_limit)
        except TimeoutError:
            stats["error"] = f"the minimum over 2**{k} solutions was not done within the time limit of {time_limit:g} s"
        else:
            return Solution(self.name, Status.OPTIMAL, x.bit_count(), x, t, time.perf_counter() - start, stats)
        return Solution(self.name, Status.UNKNOWN, seconds=time.perf_counter() - start, stats=stats)

    def solve_batch(self, game: PressSystem, boards: np.ndarray, *, max_nullity: int = DEFAULT_MAX_NULLITY,
                    method: str = "auto", canonical: bool = False, checkpoint: str | None = None,
                    time_limit: float = TIME_LIMIT_DEFAULT_SECONDS, chunk_elements: int = 1 << 22) -> BatchSolution:
        """Vectorised :meth:`solve` for boards of at most 64 cells (uint64 array, shape (k,));
        identical answers and witnesses.  ``chunk_elements`` bounds the temporary
        (boards x null-space combinations) array, in 8-byte elements; ``time_limit`` applies per board
        where :meth:`solve` answers them one by one (the vectorised path takes milliseconds).

        Running time O(k (n + checks + 2**nullity)) numpy element operations;
        all 65536 4x4 boards take a few tens of milliseconds.
        """
        if not game.binary:
            if gauss_zk.prefers_band(game, method):  # one board at a time through the band
                return super().solve_batch(game, boards, max_nullity=max_nullity, method=method,
                                           time_limit=time_limit)
            return gauss_zk.batch_mod_k(self.name, game, boards, time_limit)
        if game.n > 64 or game.m > 64 or algebra.method_for(game, method) != "dense" or \
                algebra.eliminate(game).nullity > min(BATCH_MAX_NULLITY, max_nullity):
            return super().solve_batch(game, boards, max_nullity=max_nullity, method=method, canonical=canonical,
                                       checkpoint=checkpoint, time_limit=time_limit)
        return _dense_batch(self.name, game, np.asarray(boards, dtype=np.uint64), canonical, chunk_elements)


def _lightest(game: PressSystem, board: int, parts, quiet, canonical: bool, checkpoint: str | None, deadline: float,
              stats: dict) -> tuple[int, int]:
    """The lightest press set over the cosets ``parts`` and its goal board: above :data:`LONG_RUN_MIN_NULLITY` the
    long run (``stats`` gains ``symmetries``), else :func:`flipgame.algebra.gf2.min_weight` per coset, in a thread
    above :data:`~flipgame.algebra.gf2.GRAY_MAX_NULLITY` (numpy and the compiled kernel release the GIL) so that
    Ctrl-C, or the time limit, stops it at once.  TimedOutRun (the long run) or TimeoutError past ``deadline``."""
    k = len(quiet)
    if k > LONG_RUN_MIN_NULLITY and not canonical:
        run = coset_run.minimum(game, board, parts, quiet, checkpoint=checkpoint, deadline=deadline)
        stats["symmetries"] = run.symmetries
        return run.best.presses, run.best.target

    def minimum() -> tuple[int, int]:
        best = None
        for x, t in parts:
            x = algebra.min_weight(x, quiet, game.m, canonical)
            if _better(x, best, game.m, canonical):
                best = (x, t)
        return best

    if k <= algebra.GRAY_MAX_NULLITY:
        return minimum()
    return interruptible(minimum, lambda: None, seconds=max(deadline - time.perf_counter(), 0.0))


def _cosets(game: PressSystem, board: int, method: str, seconds: float = TIME_LIMIT_DEFAULT_SECONDS):
    """:func:`flipgame.algebra.gf2.solution_cosets`; the banded elimination (seconds of compiled code) in a thread
    that Ctrl-C does not wait for, TimeoutError past ``seconds``."""
    if algebra.method_for(game, method) == "band":
        return interruptible(lambda: algebra.solution_cosets(game, board, "band"), lambda: None, seconds=seconds)
    return algebra.solution_cosets(game, board, method)


def solution_count(game: PressSystem, board) -> int | str | None:
    """The number of press sets (press vectors over Z_k) taking ``board`` to a goal board, from the
    elimination alone: ``2**nullity`` per reachable goal board on two states (``--count`` beside a backend
    that does not count).  None for counters, or when gauss refuses the game or does not finish in its time.

    Over Z_k it is :func:`flipgame.backends.gauss_zk.solve_mod_k`'s count (which also finds the minimum).
    Running time: one elimination (:func:`flipgame.algebra.gf2.solution_cosets`)."""
    try:
        if game.states is None:
            return None
        if not game.binary:
            return gauss_zk.solve_mod_k("gauss", game, board, "auto").stats.get("solutions")
        parts, quiet, _ = _cosets(game, board, "auto")
    except (TimeoutError, RefusedError, NullityTooLargeError, BoardTooLargeError, MemoryBudgetError):
        return None
    return len(parts) << len(quiet)


def nullity_hint(k: int, seconds: float | None = None, symmetries: int = 1,
                 time_limit: float = TIME_LIMIT_DEFAULT_SECONDS) -> str:
    """What to do about a nullity too large to enumerate by default, with the time ``seconds`` this board
    takes (default: 2**k at :data:`flipgame.algebra.coset_run.RATE`, no symmetry): ``--max-nullity``, and
    a ``--time-limit`` of twice the estimate when the estimate is over ``time_limit``."""
    seconds = coset_run.seconds_for(1 << k) if seconds is None else seconds
    using = f", using {symmetries} symmetries of the board" if symmetries > 1 else ""
    when = f"{coset_run.describe(seconds)} on 2 cores{using}"
    if k <= minweight.MAX_NULLITY:
        resume = "; --checkpoint FILE makes the run resumable" if k > LONG_RUN_MIN_NULLITY else ""
        flags = _long_run_flags(k, seconds, time_limit)
        return f"{flags} enumerates them ({when}, twice that per extra nullity{resume})"
    return (f"gauss enumerates at most nullity {minweight.MAX_NULLITY} (this board: {when}); --backend auto "
            f"hands it to bfs (few cells) or to sat / ilp, which may find the minimum within their time limit")


def _long_run_flags(k: int, seconds: float, time_limit: float) -> str:
    """``--max-nullity K``, with ``--time-limit T`` (twice the estimate, rounded up to 2 significant digits, at
    most :data:`~flipgame.core.limits.TIME_LIMIT_MAX_SECONDS`) when ``seconds`` is over ``time_limit``."""
    if seconds <= time_limit:
        return f"--max-nullity {k}"
    step = 10.0 ** (math.floor(math.log10(2 * seconds)) - 1)
    limit = min(math.ceil(2 * seconds / step) * step, TIME_LIMIT_MAX_SECONDS)
    return f"--max-nullity {k} --time-limit {limit:.10g}"


def timed_out_text(game: PressSystem, board: int, stopped: coset_run.TimedOutRun, time_limit: float) -> str:
    """``stats["error"]`` of a long run stopped at its time limit: how far it got, its unproven bound (re-applied
    by the board model) and how to go on."""
    done = stopped.done
    share = "under 0.1%" if done < 0.001 else f"{done:.1%}" if done < 0.999 else "over 99.9%"
    go_on = stopped.resume_text() or "; with --checkpoint FILE a run resumes where the last one stopped"
    return (f"the long run reached its time limit of {time_limit:g} s with {share} of the solutions enumerated "
            f"({stopped.found(game, board)}){go_on}")


def _reading_key(x: np.ndarray, n: int) -> np.ndarray:
    """uint64 keys ordering press sets as their cell-by-cell readings (cell 0 most significant)."""
    key = np.zeros(x.shape, dtype=np.uint64)
    for j in range(n):
        key |= ((x >> np.uint64(j)) & np.uint64(1)) << np.uint64(n - 1 - j)
    return key


def _dense_batch(name: str, game: PressSystem, boards: np.ndarray, canonical: bool,
                 chunk_elements: int) -> BatchSolution:
    start = time.perf_counter()
    elim = algebra.eliminate(game)
    out = BatchSolution.empty(name, boards)
    cols = np.array(elim.particular_columns(), dtype=np.uint64)
    span = np.zeros(1, dtype=np.uint64)  # span[a] = XOR of basis vectors selected by bits of a
    for v in elim.null_basis:
        span = np.concatenate([span, span ^ np.uint64(v)])
    rows_per_chunk = max(1, chunk_elements // len(span))
    best_w = np.full(len(boards), np.iinfo(np.int16).max, dtype=np.int16)
    for t in game.targets:
        d = boards ^ np.uint64(t)
        ok = np.ones(len(boards), dtype=bool)
        for c in elim.checks:
            ok &= (np.bitwise_count(d & np.uint64(c)) & 1) == 0
        idx = np.flatnonzero(ok)  # the boards that reach t: only they have press sets to weigh
        d = d[idx]
        xp = np.zeros(len(idx), dtype=np.uint64)
        for j in range(game.n):  # d's cells, each with its particular press set
            xp ^= ((d >> np.uint64(j)) & np.uint64(1)) * cols[j]
        x = np.empty_like(xp)
        for s in range(0, len(idx), rows_per_chunk):
            cand = xp[s:s + rows_per_chunk, None] ^ span[None, :]
            weight = np.bitwise_count(cand)
            if canonical:  # lightest first, then the smallest cell-by-cell reading
                light = weight == weight.min(axis=1, keepdims=True)
                pick = np.argmin(np.where(light, _reading_key(cand, game.m), np.iinfo(np.uint64).max), axis=1)
            else:
                pick = np.argmin(weight, axis=1)
            x[s:s + rows_per_chunk] = cand[np.arange(len(cand)), pick]
        w = np.bitwise_count(x).astype(np.int16)
        better = w < best_w[idx]
        if canonical:
            better |= (w == best_w[idx]) & (_reading_key(x, game.m) < _reading_key(out.presses[idx], game.m))
        chosen = idx[better]
        best_w[chosen] = w[better]
        out.presses[chosen] = x[better]
        out.target[chosen] = t
        out.status[chosen] = Status.OPTIMAL
    out.status[out.status != Status.OPTIMAL] = Status.INFEASIBLE
    solved = out.status == Status.OPTIMAL
    out.moves[solved] = best_w[solved]
    return out.with_time(time.perf_counter() - start, rank=elim.rank, nullity=elim.nullity)

"""``gauss``: GF(2) Gaussian elimination with null-space enumeration.

Method.  The presses ``x`` that take board ``b`` to goal board ``t`` solve
``A x = b ^ t`` over GF(2), where ``A`` is the press matrix (row ``i`` = the
presses that flip cell ``i``).  Gauss-Jordan elimination of ``[A | I]``, with
the pivot column of every row tracked (not assumed to be the diagonal), gives
for once per game:

* a *consistency check* for every zero row of the reduced ``A``: the same
  combination of right-hand sides must have even parity, or the system has
  no solution (the reference C++ in POJ 1753's seed skips one of these rows
  and so answers a number for 4096 impossible 4x4 boards);
* a *particular solution* map: pivot variable ``p_k`` = parity of
  (row ``k`` of the combination matrix) & ``(b ^ t)``, free variables 0;
* a *null-space basis* (the quiet patterns), one vector per free variable.

The solutions are the particular solution XOR any of the ``2**nullity``
null-space combinations; the minimum-weight one is found by enumerating them
in Gray-code order (one XOR and one popcount per step).  For the goal "any
colour" both targets are solved and the lighter solution kept.

Ties: among minimum-weight solutions the one with the smallest free-variable
assignment (as an integer) is chosen, and white before black, so
:func:`solve` and :func:`solve_batch` return the same witness.

Running time: elimination O(n^3 / w) bit operations once per game (n =
rows*cols, w = machine word); then per board O(n) for the particular
solution and O(2**nullity) for the minimum.  4x4 has rank 12, nullity 4.

Source: Anderson & Feil, "Turning Lights Out with Linear Algebra", Math.
Magazine 71(4), 1998; Gauss-Jordan over GF(2) as in Golub & Van Loan,
"Matrix Computations", 4th ed., section 3.2 (with XOR for row operations).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .board import Game, from_rows, to_bits, to_rows
from .result import BatchSolution, Solution, Status

NAME = "gauss"
DEFAULT_MAX_NULLITY = 20
"""2**20 ~ 1e6 null-space combinations: about 0.5 s in the Python loop, 8 MiB in numpy."""
DENSE_MAX_CELLS = 2500
"""Dense elimination is O(n^3 / w): 2500 cells (50x50) take about 10 s in Python."""
MAX_CELLS = 4_000_000
"""Largest board gauss takes (2000x2000 by light chasing, about 15 s); the chased
side is the shorter one, whose last-row system must be at most :data:`CHASE_MAX_SIDE`."""
CHASE_MAX_SIDE = 2048
AUTO_DENSE_CELLS = 1024
"""``method="auto"`` uses light chasing above this many cells, when it applies."""


class NullityTooLargeError(ValueError):
    """The null space is too large to enumerate; use cpsat (or raise ``max_nullity``)."""


@dataclass(frozen=True)
class Elimination:
    """The reduced press system of one game, shared by every board.

    Attributes
    ----------
    n : int
        Number of cells / press variables.
    pivots : tuple of int, length rank
        Pivot column (press variable) of each nonzero reduced row.
    combos : tuple of int, length rank
        For pivot row k, the bitmask of original equations (cells) summed
        into it: ``x[pivots[k]] = parity(combos[k] & d)`` when free vars are 0.
    checks : tuple of int, length n - rank
        Consistency conditions: ``parity(c & d)`` must be 0 for each ``c``.
    null_basis : tuple of int, length nullity
        Quiet patterns: press sets that change no cell; one per free variable.
    free : tuple of int
        Free variables (columns without a pivot), in increasing order.
    """

    n: int
    pivots: tuple[int, ...]
    combos: tuple[int, ...]
    checks: tuple[int, ...]
    null_basis: tuple[int, ...]
    free: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.pivots)

    @property
    def nullity(self) -> int:
        return len(self.null_basis)

    def consistent(self, d: int) -> bool:
        """True if ``A x = d`` has a solution (every zero row's parity check holds)."""
        return all((c & d).bit_count() % 2 == 0 for c in self.checks)

    def certificate(self, d: int) -> int | None:
        """A proof that ``A x = d`` has no solution, or ``None`` if it has one.

        Returns a consistency row ``c`` (a vector with ``c^T A = 0``: every press
        flips an even number of its cells; for the symmetric plus neighbourhood
        it is a quiet pattern, ``A c = 0``) whose overlap with ``d`` is odd.
        Since ``(A x) . c = x . (A^T c) = 0`` for every press set ``x``, no press
        set can change exactly the cells of ``d``.
        """
        return next((c for c in self.checks if (c & d).bit_count() & 1), None)

    def particular(self, d: int) -> int:
        """A solution of ``A x = d`` with every free variable 0 (assumes :meth:`consistent`)."""
        x = 0
        for p, comb in zip(self.pivots, self.combos, strict=True):
            if (comb & d).bit_count() & 1:
                x |= 1 << p
        return x

    def particular_columns(self) -> tuple[int, ...]:
        """``cols[j]`` = particular solution for ``d = 1 << j`` (the map is linear in d)."""
        cols = [0] * self.n
        for p, comb in zip(self.pivots, self.combos, strict=True):
            for j in range(self.n):
                if comb >> j & 1:
                    cols[j] |= 1 << p
        return tuple(cols)


def gauss_jordan(rows: list[int], n: int) -> Elimination:
    """Gauss-Jordan elimination over GF(2) of the square system whose row ``i`` is ``rows[i]``
    (bit j = coefficient of variable j), tracking which equations make up each row.

    Rows are Python ints, so a row operation is one XOR.  Running time O(n^3 / w).
    """
    rows = list(rows)
    comb = [1 << i for i in range(n)]
    pivots, free = [], []
    r = 0
    for col in range(n):
        p = next((i for i in range(r, n) if rows[i] >> col & 1), None)
        if p is None:
            free.append(col)
            continue
        rows[r], rows[p] = rows[p], rows[r]
        comb[r], comb[p] = comb[p], comb[r]
        for i in range(n):
            if i != r and rows[i] >> col & 1:
                rows[i] ^= rows[r]
                comb[i] ^= comb[r]
        pivots.append(col)
        r += 1
    assert all(row == 0 for row in rows[r:])
    null_basis = []
    for f in free:
        v = 1 << f
        for k, p in enumerate(pivots):
            if rows[k] >> f & 1:
                v |= 1 << p
        null_basis.append(v)
    return Elimination(n, tuple(pivots), tuple(comb[:r]), tuple(comb[r:]), tuple(null_basis), tuple(free))


@lru_cache(maxsize=64)
def eliminate(game: Game) -> Elimination:
    """Gauss-Jordan elimination of the press matrix of ``game`` over GF(2).  Cached per game."""
    n = game.n
    # Row i of A: the presses that flip cell i.  (Symmetric for the plus
    # neighbourhood, but nothing relies on it: stencils may be lopsided.)
    return gauss_jordan([sum(1 << j for j in game.flippers[i]) for i in range(n)], n)


def certificates(game: Game, board: int) -> dict[int, int] | None:
    """Certificates that ``board`` is Impossible: goal board -> odd-overlap consistency row.

    Returns ``None`` if some goal board is reachable.  See
    :meth:`Elimination.certificate`; check one with
    :func:`verify.witness.check_certificate`.  O(n^2 / w) per goal board.
    """
    elim = eliminate(game)
    found = {t: elim.certificate(board ^ t) for t in game.targets}
    return None if any(c is None for c in found.values()) else found


def _check_nullity(elim: Elimination, max_nullity: int) -> None:
    if elim.nullity > max_nullity:
        raise NullityTooLargeError(
            f"nullity {elim.nullity} means 2**{elim.nullity} solutions to enumerate "
            f"(max_nullity={max_nullity}); use --backend cpsat for the minimum"
        )


def _min_weight(x: int, basis: tuple[int, ...], canonical_n: int | None = None) -> int:
    """Lightest of ``x ^ span(basis)``.

    Ties go to the smallest basis assignment, or with ``canonical_n`` (the
    number of cells) to the lexicographically smallest press pattern read
    cell by cell (POJ 3279's rule).
    """
    best_w, best_a, best_x = x.bit_count(), 0, x
    assign = 0
    for i in range(1, 1 << len(basis)):
        bit = (i & -i).bit_length() - 1  # Gray code: flip one basis vector per step
        x ^= basis[bit]
        assign ^= 1 << bit
        w = x.bit_count()
        if w < best_w or (w == best_w and (
                assign < best_a if canonical_n is None else lex_less(x, best_x, canonical_n))):
            best_w, best_a, best_x = w, assign, x
    return best_x


def lex_less(x: int, y: int, n: int) -> bool:
    """True if press set ``x`` reads before ``y`` cell by cell (0 before 1).  O(n)."""
    return to_bits(x, n) < to_bits(y, n)


def _better(x: int, best: int | None, n: int, canonical: bool) -> bool:
    if best is None or x.bit_count() != best.bit_count():
        return best is None or x.bit_count() < best.bit_count()
    return canonical and lex_less(x, best, n)


def transpose(cells: int, rows: int, cols: int) -> int:
    """The bitmask of a rows x cols board as its cols x rows transpose.  O(n)."""
    bits = to_bits(cells, rows * cols)
    return int("".join(bits[c::cols] for c in range(cols))[::-1] or "0", 2)


def chaseable(game: Game) -> bool:
    """True if light chasing applies: the plus neighbourhood without wrap-around."""
    return game.neighbourhood == "plus" and not game.wrap


def _chase(game: Game, first_row: int, need: list[int]) -> tuple[list[int], int]:
    """Light chasing: press rows 1.. so that each row above ends right.

    ``need[r]``: row bitmask of cells that must flip.  Returns the press rows
    and the residual last row (cells still wrong; 0 iff the presses solve it).
    The map (first_row, need) -> (presses, residual) is affine over GF(2).
    """
    mask = (1 << game.cols) - 1
    presses = [first_row]
    above = 0
    for r in range(game.rows - 1):
        row = presses[r]
        flipped = row ^ (row << 1 & mask) ^ (row >> 1) ^ above
        presses.append(need[r] ^ flipped)
        above = row
    row = presses[-1]
    return presses, need[-1] ^ row ^ (row << 1 & mask) ^ (row >> 1) ^ above


@lru_cache(maxsize=8)
def _last_row_system(game: Game) -> Elimination:
    """Eliminate the cols x cols last-row system M v = residual of light chasing.

    Column k of M is the residual of chasing first row e_k with nothing to
    flip; the result is an :class:`Elimination` over the ``cols`` first-row
    variables.
    """
    cols = game.cols
    zero = [0] * game.rows
    columns = [_chase(game, 1 << k, zero)[1] for k in range(cols)]
    return gauss_jordan([sum(1 << k for k in range(cols) if columns[k] >> i & 1) for i in range(cols)], cols)


def _upright(game: Game) -> Game:
    """The game turned on its side if it is wider than tall, so chasing solves the short side."""
    if game.cols <= game.rows:
        return game
    target = None if game.target is None else transpose(game.target, game.rows, game.cols)
    return Game(game.cols, game.rows, game.goal, target=target)


def _chase_solutions(game: Game, board: int) -> tuple[list[tuple[int, int]], list[int], int]:
    """By light chasing: a particular press set per reachable goal board, the quiet
    patterns, and the nullity, all in ``game``'s own layout.

    A wide board is chased on its side (a min(rows, cols) square last-row
    system) and the results are turned back.  The solutions for a goal are
    the chases of first rows ``v`` with ``M v = residual(0)``: a particular
    ``v`` plus the null space of M, whose dimension is the nullity of the
    press matrix.  Running time O(side * n) bit operations for M (once per
    game), O(rows) row operations per chase.  Memory O(n) bits.
    """
    upright = _upright(game)
    if upright is not game:
        parts, quiet, k = _chase_solutions(upright, transpose(board, game.rows, game.cols))
        back = lambda x: transpose(x, game.cols, game.rows)  # noqa: E731
        return [(back(x), back(t)) for x, t in parts], [back(q) for q in quiet], k
    system = _last_row_system(game)
    quiet = [from_rows(_chase(game, z, [0] * game.rows)[0], game.cols) for z in system.null_basis]
    parts = []
    for t in game.targets:
        need = to_rows(board ^ t, game.rows, game.cols)
        _, residual = _chase(game, 0, need)
        if system.consistent(residual):
            parts.append((from_rows(_chase(game, system.particular(residual), need)[0], game.cols), t))
    return parts, quiet, system.nullity


def _solve_chase(game: Game, board: int, max_nullity: int,
                 canonical: bool) -> tuple[tuple[int, int] | None, dict]:
    """Minimum-weight solution by light chasing; ((presses, target) or None, stats)."""
    if min(game.rows, game.cols) > CHASE_MAX_SIDE:
        raise ValueError(f"light chasing solves a min(rows, cols) = {min(game.rows, game.cols)} square "
                         f"system; at most {CHASE_MAX_SIDE}")
    k = _last_row_system(_upright(game)).nullity
    stats = {"rank": game.n - k, "nullity": k, "method": "chase"}
    if k > max_nullity:
        raise NullityTooLargeError(
            f"nullity {k} means 2**{k} solutions to enumerate "
            f"(max_nullity={max_nullity}); use --backend cpsat or sat for the minimum")
    parts, quiet, _ = _chase_solutions(game, board)
    best = None
    for x, t in parts:
        x = _min_weight(x, tuple(quiet), game.n if canonical else None)
        if _better(x, best and best[0], game.n, canonical):
            best = (x, t)
    return best, stats


def nullity(game: Game) -> int | None:
    """Dimension of the press matrix's null space (the quiet patterns), or None if the
    board is too large for either method.  Cached per game through the eliminations."""
    if chaseable(game) and game.n > AUTO_DENSE_CELLS:
        return _last_row_system(_upright(game)).nullity if min(game.rows, game.cols) <= CHASE_MAX_SIDE else None
    if game.n <= DENSE_MAX_CELLS:
        return eliminate(game).nullity
    return None


def solve(game: Game, board: int, *, max_nullity: int = DEFAULT_MAX_NULLITY, method: str = "auto",
          canonical: bool = False) -> Solution:
    """Minimum number of presses taking ``board`` to a goal board of ``game``.

    Parameters
    ----------
    game : Game
    board : int
        Bitmask of black cells.
    max_nullity : int
        Refuse games whose null space has more than ``2**max_nullity``
        vectors: 2**20 candidates take about a second in this loop.
    method : {"auto", "dense", "chase"}
        ``dense``: elimination of the n x n press matrix, for any rules up to
        :data:`DENSE_MAX_CELLS` cells.  ``chase``: light chasing (press the
        first row, chase the lights down, solve the ``cols`` last-row
        conditions), for the plus neighbourhood without wrap, any size
        (200x200 in well under a second, 1000x1000 in seconds).  ``auto``:
        dense up to 1024 cells, else chase when it applies.
    canonical : bool
        Among minimum-weight solutions return the lexicographically smallest
        press pattern read cell by cell (POJ 3279); else the one with the
        smallest free-variable assignment (slightly faster).

    Returns
    -------
    Solution
        OPTIMAL with a minimum-weight witness, or INFEASIBLE; stats give
        ``rank``, ``nullity`` and ``method``.

    Raises
    ------
    NullityTooLargeError
        If the nullity exceeds ``max_nullity``.
    ValueError
        If ``board`` does not fit, the method is unknown or does not apply,
        or the board is too large for the dense method.
    """
    start = time.perf_counter()
    game.check_fits(board)
    if method not in ("auto", "dense", "chase"):
        raise ValueError(f"unknown method {method!r}; expected auto, dense or chase")
    if method == "auto":
        method = "chase" if chaseable(game) and game.n > AUTO_DENSE_CELLS else "dense"
    if game.n > MAX_CELLS:
        raise ValueError(f"{game.size} has {game.n} cells; gauss allows at most {MAX_CELLS}")
    if method == "chase":
        if not chaseable(game):
            raise ValueError("light chasing needs the plus neighbourhood without wrap; use method='dense'")
        best, stats = _solve_chase(game, board, max_nullity, canonical)
        seconds = time.perf_counter() - start
        if best is None:
            return Solution(NAME, Status.INFEASIBLE, seconds=seconds, stats=stats)
        x, t = best
        return Solution(NAME, Status.OPTIMAL, x.bit_count(), x, t, seconds, stats)
    if game.n > DENSE_MAX_CELLS:
        raise ValueError(f"{game.size} has {game.n} cells; dense elimination allows at most {DENSE_MAX_CELLS} "
                         f"(light chasing covers large plus boards without wrap; otherwise use sat or cpsat)")
    elim = eliminate(game)
    _check_nullity(elim, max_nullity)
    best = None
    for t in game.targets:
        d = board ^ t
        if not elim.consistent(d):
            continue
        x = _min_weight(elim.particular(d), elim.null_basis, game.n if canonical else None)
        if _better(x, best and best[0], game.n, canonical):
            best = (x, t)
    stats = {"rank": elim.rank, "nullity": elim.nullity, "method": "dense"}
    seconds = time.perf_counter() - start
    if best is None:
        return Solution(NAME, Status.INFEASIBLE, seconds=seconds, stats=stats)
    x, t = best
    return Solution(NAME, Status.OPTIMAL, x.bit_count(), x, t, seconds, stats)


def _reading_key(x: np.ndarray, n: int) -> np.ndarray:
    """uint64 keys ordering press sets as their cell-by-cell readings (cell 0 most significant)."""
    key = np.zeros(x.shape, dtype=np.uint64)
    for j in range(n):
        key |= ((x >> np.uint64(j)) & np.uint64(1)) << np.uint64(n - 1 - j)
    return key


def _bits(values: np.ndarray) -> np.ndarray:
    return np.bitwise_count(values).astype(np.int16)


def solve_batch(game: Game, boards: np.ndarray, *, max_nullity: int = DEFAULT_MAX_NULLITY,
                canonical: bool = False, chunk_elements: int = 1 << 22) -> BatchSolution:
    """Vectorised :func:`solve` over many boards of one game; identical answers and witnesses.

    Parameters
    ----------
    boards : array_like of uint64, shape (k,)
    chunk_elements : int
        Bound on the temporary (boards x null-space combinations) array, in
        elements (8 bytes each).

    Running time O(k (n + checks + 2**nullity)) numpy element operations;
    all 65536 4x4 boards take a few tens of milliseconds.  Requires n <= 64.
    """
    start = time.perf_counter()
    if game.n > 64:
        raise ValueError(f"batch solving needs at most 64 cells, got {game.n}; call solve() per board")
    boards = np.asarray(boards, dtype=np.uint64)
    elim = eliminate(game)
    _check_nullity(elim, max_nullity)
    out = BatchSolution.empty(NAME, boards)
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
        xp = np.zeros(len(boards), dtype=np.uint64)
        for j in range(game.n):
            xp ^= ((d >> np.uint64(j)) & np.uint64(1)) * cols[j]
        x = np.empty_like(xp)
        for s in range(0, len(boards), rows_per_chunk):
            cand = xp[s:s + rows_per_chunk, None] ^ span[None, :]
            weight = np.bitwise_count(cand)
            if canonical:  # lightest first, then the smallest cell-by-cell reading
                light = weight == weight.min(axis=1, keepdims=True)
                pick = np.argmin(np.where(light, _reading_key(cand, game.n), np.iinfo(np.uint64).max), axis=1)
            else:
                pick = np.argmin(weight, axis=1)
            x[s:s + rows_per_chunk] = cand[np.arange(len(cand)), pick]
        w = _bits(x)
        better = ok & (w < best_w)
        if canonical:
            tie = ok & (w == best_w) & (_reading_key(x, game.n) < _reading_key(out.presses, game.n))
            better |= tie
        best_w[better] = w[better]
        out.presses[better] = x[better]
        out.target[better] = t
        out.status[better] = Status.OPTIMAL
    out.status[out.status != Status.OPTIMAL] = Status.INFEASIBLE
    solved = out.status == Status.OPTIMAL
    out.moves[solved] = best_w[solved]
    return out.with_time(time.perf_counter() - start, rank=elim.rank, nullity=elim.nullity)

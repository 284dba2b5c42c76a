"""The GF(2) algebra of the press system, shared by every part of flipgame.

The presses ``x`` that take board ``b`` to goal board ``t`` solve ``A x = b ^ t``
over GF(2), where ``A`` is the press matrix (row ``i`` = the presses that flip
cell ``i``).  This module owns everything that follows from ``A`` alone:

* :func:`eliminate`: the dense elimination of ``A`` (:func:`flipgame.algebra.elimination.gauss_jordan`,
  pivots tracked, every zero row a consistency check), cached per system, within
  :data:`~flipgame.core.limits.DENSE_MAX_WORK` cells x buttons (:func:`dense_refusal`);
* :func:`method_for`: the dense elimination or light chasing (:mod:`flipgame.algebra.chase`, for the systems
  whose buttons are a plus grid's without wrap), and through it :func:`structure`,
  :func:`solution_cosets`, :func:`consistency_rows` and :func:`nullity` at any size either takes;
* :func:`certificates`: proofs of ``Impossible`` (vectors ``c`` with
  ``c^T A = 0`` and odd overlap with ``b ^ t``);
* :func:`min_weight`, the minimum-weight element of a coset ``x ^ span(null space)``.

Used by the gauss backend, the harness's certificate check, the study and the
command line; it imports no solver.

Running time: dense elimination O(n^3 / w) bit operations (w = machine word),
once per game; light chasing O(side * n) for the last-row system.

Sources: Anderson & Feil, "Turning Lights Out with Linear Algebra", Math.
Magazine 71(4), 1998; Gauss-Jordan over GF(2) as in Golub & Van Loan, "Matrix
Computations", 4th ed., section 3.2 (XOR for row operations); light chasing
as in Leach, "Lights Out and the chasing of lights" (2017) and Fleischer &
Yu, "A survey of the game Lights Out!", 2013.

>>> from flipgame.model.grid import Game
>>> e = eliminate(Game(4, 4))
>>> (e.rank, e.nullity)
(12, 4)
>>> nullity(Game(5, 5))
2
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from flipgame.algebra import band, band_layout, minweight
from flipgame.algebra.chase import chase_solutions, last_row_system, upright
from flipgame.algebra.elimination import Elimination, gauss_jordan
from flipgame.core.errors import BoardTooLargeError, RulesError
from flipgame.core.limits import CHASE_MAX_SIDE, DENSE_MAX_WORK
from flipgame.model.grid import Game, to_bits
from flipgame.model.system import PressSystem

METHODS = ("auto", "dense", "chase", "band")
"""The ways :func:`method_for` knows: ``auto`` picks one of the other three."""
AUTO_DENSE_CELLS = 1024
"""Above this many cells light chasing is used where it applies (:func:`method_for`)."""
GRAY_MAX_NULLITY = 10
"""Up to this nullity :func:`min_weight` walks the null space in Gray-code order in Python;
above it, the Walsh-Hadamard transform of :mod:`flipgame.algebra.minweight` is faster."""


def dense_refusal(game: PressSystem) -> str | None:
    """Why the dense elimination does not take ``game`` (its cells x buttons over
    :data:`~flipgame.core.limits.DENSE_MAX_WORK`), or None.  O(1).

    >>> dense_refusal(Game(50, 50)) is None, dense_refusal(Game(51, 51))
    (True, '51x51: 2,601 cells x 2,601 buttons = 6,765,201, over the 6,250,000 the dense elimination takes')
    """
    if game.n * game.m <= DENSE_MAX_WORK:
        return None
    what = game.size if game.shape else "the system"
    return (f"{what}: {game.n:,} cells x {game.m:,} buttons = {game.n * game.m:,}, over the {DENSE_MAX_WORK:,} "
            f"the dense elimination takes")


def eliminate(game: PressSystem) -> Elimination:
    """Gauss-Jordan elimination of the press matrix of a two-state system over GF(2) (n cells, m
    buttons).  Cached per system; a system with a goal board shares the entry of its ``normal`` form
    (the goal does not enter the matrix), so a stream of cases of one machine with many targets
    eliminates once.

    Raises
    ------
    BoardTooLargeError
        Over :data:`~flipgame.core.limits.DENSE_MAX_WORK` cells x buttons (light chasing covers large plus
        boards).
    """
    return _eliminate(game.normal if game.goal == "board" else game)


@lru_cache(maxsize=64)
def _eliminate(game: PressSystem) -> Elimination:
    if why := dense_refusal(game):
        raise BoardTooLargeError(f"{why} (light chasing covers larger plus boards without wrap)")
    # Row i of A: the presses that flip cell i.  (Symmetric for the plus
    # neighbourhood, but nothing relies on it: stencils may be lopsided.)
    return gauss_jordan([sum(1 << j for j in game.flippers[i]) for i in range(game.n)], game.m)


def consistency_rows(game: Game) -> tuple[int, ...]:
    """A basis of the vectors ``c`` with ``c^T A = 0`` (every press flips an even number of c's cells).

    Up to :data:`~flipgame.core.limits.DENSE_MAX_WORK` cells x buttons: the zero rows of the dense elimination.
    Above, on plus boards without wrap: the quiet patterns of light chasing
    (``A`` is symmetric there, so ``A c = 0`` is ``c^T A = 0``).  Cached
    through the eliminations.  Running time O(n^3 / w) dense, O(side * n)
    chasing (once per game), then O(nullity * n) to turn the patterns back.

    Raises
    ------
    BoardTooLargeError
        Over that work, on rules light chasing does not fit.
    """
    if dense_refusal(game) is None:
        return eliminate(game).checks
    if not game.chaseable:
        method_for(game, "dense")  # raises the error naming the limit
    return tuple(structure(game, "chase")[2])


def certificates(game: Game, board: int) -> dict[int, int] | None:
    """Certificates that ``board`` is Impossible: goal board -> odd-overlap consistency row.

    Returns ``None`` if some goal board is reachable.  See
    :meth:`Elimination.certificate` and :func:`consistency_rows` (every size
    light chasing or the dense elimination takes); check one with
    :func:`flipgame.verify.checks.witness.check_certificate`.  O(nullity * n / w) per goal board.

    Raises
    ------
    BoardTooLargeError
        As :func:`consistency_rows`.
    """
    if dense_refusal(game) is not None and not game.chaseable and band_layout.refusal(game) is None:
        return _band_certificates(game, board)
    checks = consistency_rows(game)
    found = {t: next((c for c in checks if ((board ^ t) & c).bit_count() & 1), None) for t in game.targets}
    return None if any(c is None for c in found.values()) else found


def _band_certificates(game: PressSystem, board: int) -> dict[int, int] | None:
    """Certificates from the banded elimination of A^T (:func:`flipgame.algebra.band.certificate`)."""
    found = {}
    for t in game.targets:
        c = band.certificate(game, band.to_vector(board ^ t, game.n))
        if c is None:
            return None
        found[t] = band.to_mask(c)
    return found


def _gray_min_weight(x: int, basis: tuple[int, ...], canonical_n: int | None = None) -> int:
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


def better(x: int, best: int | None, n: int, canonical: bool) -> bool:
    if best is None or x.bit_count() != best.bit_count():
        return best is None or x.bit_count() < best.bit_count()
    return canonical and lex_less(x, best, n)


def method_for(game: Game, method: str = "auto") -> str:
    """``"dense"``, ``"chase"`` or ``"band"``: how :func:`solution_cosets` treats ``game``.

    ``auto`` chases above :data:`AUTO_DENSE_CELLS` cells when light chasing
    applies, else eliminates densely within :func:`dense_refusal`'s limit, else by the banded
    elimination of :mod:`flipgame.algebra.band` (grids of any stencil and wrap-around).

    Raises
    ------
    RulesError
        Unknown method, or ``chase`` on rules it does not apply to.
    BoardTooLargeError
        If neither method takes a board this size.
    """
    if method not in METHODS:
        raise RulesError(f"unknown method {method!r}; expected auto, dense, chase or band")
    if method == "auto":
        method = "chase" if game.chaseable and game.n > AUTO_DENSE_CELLS else "dense"
        if method == "dense" and dense_refusal(game) and band_layout.refusal(game) is None:
            method = "band"
    if method == "band":
        if why := band_layout.refusal(game):
            raise BoardTooLargeError(f"{game.size}: {why}")
        return method
    if method == "chase":
        if not game.chaseable:
            raise RulesError("light chasing needs the plus neighbourhood without wrap; use the dense method "
                             "(--gauss-method dense, or the strategy gauss)")
        if min(game.rows, game.cols) > CHASE_MAX_SIDE:
            raise BoardTooLargeError(f"light chasing solves a min(rows, cols) = {min(game.rows, game.cols)} "
                                     f"square system; at most {CHASE_MAX_SIDE}")
    elif why := dense_refusal(game):
        band_why = band_layout.refusal(game)
        hint = "" if game.chaseable else f" (and {band_why})" if band_why else " (--gauss-method band takes it)"
        raise BoardTooLargeError(f"{why}{hint}")
    return method


def structure(game: Game, method: str = "auto") -> tuple[int, int, list[int]]:
    """``(rank, nullity, quiet patterns)`` of the press matrix, by :func:`method_for`'s method.

    The quiet patterns are a basis of the null space (press sets that change
    nothing), as bitmasks in ``game``'s layout.  Cached through the eliminations.

    >>> structure(Game(4, 4))[:2]
    (12, 4)
    """
    method = method_for(game, method)
    if method == "dense":
        e = eliminate(game)
        return e.rank, e.nullity, list(e.null_basis)
    if method == "band":
        _, quiet = band.solutions(band.sweep(game, np.zeros((game.n, 0), dtype=np.int64)))
        quiet = quiet if isinstance(quiet, band.UnbuiltBasis) else [band.to_mask(v) for v in quiet]
        return game.m - len(quiet), len(quiet), quiet
    _, quiet, k = chase_solutions(game, 0)
    return game.m - k, k, quiet


def solution_cosets(game: Game, board: int, method: str = "auto") -> tuple[list[tuple[int, int]], list[int], str]:
    """Every press set taking ``board`` to a goal board, as cosets.

    Returns ``(parts, quiet, method)``: ``parts`` holds one ``(particular press set,
    goal board)`` per *reachable* goal board (empty: Impossible); the press sets
    reaching goal ``t`` are ``x ^ span(quiet)``.  Solvability is decided here,
    before any enumeration, so an Impossible board is answered at any nullity.
    Running time O(n^2 / w) per goal (dense, after the cached elimination) or
    O(rows) row operations per goal (chase).
    """
    method = method_for(game, method)
    if method == "chase":
        parts, quiet, _ = chase_solutions(game, board)
        return parts, quiet, method
    if method == "band":
        rhs = np.stack([band.to_vector(board ^ t, game.n) for t in game.targets], axis=1)
        xs, quiet = band.solutions(band.sweep(game, rhs))
        parts = [(band.to_mask(x), t) for x, t in zip(xs, game.targets, strict=True) if x is not None]
        return parts, quiet if isinstance(quiet, band.UnbuiltBasis) else [band.to_mask(v) for v in quiet], method
    e = eliminate(game)
    parts = [(e.particular(board ^ t), t) for t in game.targets if e.consistent(board ^ t)]
    return parts, list(e.null_basis), method


def min_weight(x: int, basis: list[int] | tuple[int, ...], n: int, canonical: bool = False) -> int:
    """The lightest press set in ``x ^ span(basis)``: a minimum-weight solution.

    Ties go to the smallest basis assignment, or with ``canonical`` to the
    lexicographically smallest press pattern read cell by cell (POJ 3279's rule).
    Up to :data:`GRAY_MAX_NULLITY` basis vectors a Gray-code walk (one XOR and one
    popcount per step); above, the Walsh-Hadamard transform of
    :mod:`flipgame.algebra.minweight` (O(2**k k) additions, compiled for k > 22).

    >>> min_weight(0b0111, [0b0110], 4)
    1
    """
    if len(basis) <= GRAY_MAX_NULLITY:
        return _gray_min_weight(x, tuple(basis), n if canonical else None)
    if not canonical:
        return minweight.min_weight(x, basis, n)[1]
    best = None
    for y in minweight.minima(x, basis, n):
        if best is None or lex_less(y, best, n):
            best = y
    return best


def nullity(game: Game) -> int | None:
    """Dimension of the press matrix's null space (the quiet patterns), or None if the
    board is too large for either method.  Cached per game through the eliminations.

    >>> nullity(Game(39, 39))
    32
    """
    try:
        method = method_for(game)
    except BoardTooLargeError:
        return None
    if method == "chase":
        return last_row_system(upright(game)).nullity
    if method == "band":
        return band.system_nullity(game)
    return eliminate(game).nullity

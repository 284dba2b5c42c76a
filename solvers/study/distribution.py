"""The distribution of minimum presses over all solvable boards of a two-state rule set, and the
largest minimum, by one of three methods (the note returned says which):

* the bfs distance table, up to :data:`TABLE_MAX_CELLS` cells (and
  :data:`flipgame.core.limits.BFS_MAX_CELLS`);
* the binomial coefficients when the nullity is 0 (each board has exactly one
  press set, so ``C(n, w)`` boards need ``w`` presses), up to
  :data:`BINOMIAL_MAX_CELLS` cells;
* coset enumeration (:func:`coset_distribution`), up to
  :data:`COSET_MAX_CELLS` cells: every solvable board is ``A x`` for exactly one
  press set ``x`` with its free variables 0, and its minimum is the minimum
  weight of ``x ^ span(null space)``; O(2**n) popcounts, vectorised.

:func:`flipgame.study.structure.study` reports it.  Source for the algebra: Anderson & Feil
(1998).
"""

from __future__ import annotations

import math

import numpy as np

from flipgame.algebra import gf2 as algebra
from flipgame.backends import bfs
from flipgame.core.limits import BFS_MAX_CELLS, BINOMIAL_MAX_CELLS, COSET_MAX_CELLS, COSET_MAX_NULLITY, TABLE_MAX_CELLS
from flipgame.model.system import PressSystem


def distribution(game: PressSystem) -> tuple[list[int] | None, str]:
    """Boards needing 0, 1, 2, ... presses over all solvable boards of ``game``, and how it was found.

    Returns ``(counts, note)``; ``counts`` is None (and ``note`` says why) when no method is feasible.
    An explicit goal board has the distribution of goal white (boards ``b ^ target``).

    >>> from flipgame.model.grid import Game
    >>> distribution(Game(4, 4, "white"))
    ([1, 16, 120, 560, 1387, 1440, 540, 32], 'exhaustive, from the bfs distance table')
    >>> distribution(Game(6, 6, "white"))[1]
    'nullity 0: each solvable board has exactly one press set, so C(36, w) boards need w presses'
    """
    white = game.with_goal("white")
    one = game if game.goal in ("any", "black") else white
    if game.n <= min(BFS_MAX_CELLS, TABLE_MAX_CELLS):
        table = bfs.distance_table(one)
        return np.bincount(table[table != bfs.UNREACHABLE]).tolist(), "exhaustive, from the bfs distance table"
    k = algebra.nullity(game)
    # Nullity 0 with goal any: all black is then solvable, and a board's minimum is the smaller of two
    # press sets, so only enumeration gives the distribution.
    if k == 0 and game.goal != "any" and game.m <= BINOMIAL_MAX_CELLS:
        return [math.comb(game.m, w) for w in range(game.m + 1)], \
            f"nullity 0: each solvable board has exactly one press set, so C({game.m}, w) boards need w presses"
    if game.m <= COSET_MAX_CELLS and k is not None and k <= COSET_MAX_NULLITY:
        counts = coset_distribution(one)
        return counts, f"exhaustive, by enumerating the 2**{game.m - k} press-set cosets (nullity {k})"
    return None, (f"{game.n} cells, nullity {k}: 2**{game.n} boards are too many to enumerate (bfs table up to "
                  f"{min(BFS_MAX_CELLS, TABLE_MAX_CELLS)} cells, coset enumeration up to {COSET_MAX_CELLS}, "
                  f"binomial at nullity 0 up to {BINOMIAL_MAX_CELLS})")


def coset_distribution(game: PressSystem, chunk_elements: int = 1 << 22) -> list[int]:
    """The distribution of minimum presses by enumerating press-set cosets.

    Every board solvable towards white is ``A x`` for exactly one press set
    ``x`` whose free variables are 0 (those press sets are a complement of the
    null space), and its minimum is ``min over q in span(quiet) of |x ^ q|``.
    For the goal ``any`` with all black solvable, a board's minimum is the
    smaller of that and the same for ``x ^ x_black``; if all black is not
    solvable the two goals' boards are disjoint and the counts double.

    Parameters
    ----------
    game : PressSystem
        Two states, goal ``any``, ``white`` or ``black``, at most :data:`COSET_MAX_CELLS` buttons and nullity at
        most :data:`COSET_MAX_NULLITY`.
    chunk_elements : int
        Elements (uint32) of the temporary (press sets x null space) array.

    Returns
    -------
    list of int
        ``counts[w]`` = solvable boards needing ``w`` presses, trailing zeros dropped.

    Running time O(2**n) popcounts (times 2 for goal any), in numpy: 5x5 Lights Out
    (2**23 boards x 4 quiet combinations) in about a second.

    >>> from flipgame.model.grid import Game
    >>> coset_distribution(Game(2, 2, "white"))
    [1, 4, 6, 4, 1]
    """
    if game.m > 32:
        raise ValueError(f"coset enumeration holds press sets of at most 32 buttons in uint32; {game.size} has "
                         f"{game.m}")
    white = game.with_goal("white")
    e = algebra.eliminate(white)
    shifts = [0]
    if game.goal == "any" and e.consistent(game.full):
        shifts.append(e.particular(game.full))
    span = np.zeros(1, dtype=np.uint32)
    for q in e.null_basis:
        span = np.concatenate([span, span ^ np.uint32(q)])
    pivots = list(e.pivots)
    low = max(0, min(len(pivots), (chunk_elements // len(span)).bit_length() - 1))
    part = np.zeros(1, dtype=np.uint32)
    for p in pivots[:low]:
        part = np.concatenate([part, part ^ np.uint32(1 << p)])
    block = part[:, None] ^ span[None, :]
    counts = np.zeros(game.m + 1, dtype=np.int64)
    high = pivots[low:]
    for h in range(1 << len(high)):
        hx = sum(1 << p for j, p in enumerate(high) if h >> j & 1)
        best = None
        for shift in shifts:
            w = np.bitwise_count(block ^ np.uint32(hx ^ shift)).min(axis=1)
            best = w if best is None else np.minimum(best, w)
        counts += np.bincount(best, minlength=game.m + 1)
    if game.goal == "any" and len(shifts) == 1:
        counts *= 2
    return np.trim_zeros(counts, "b").tolist()

"""Upper bounds on the lightest element of a coset too large to enumerate: a large-neighbourhood search.

Method.  The solutions of a board are the coset ``x ^ span(N)`` (k = dim N); above
nullity 48 its ``2**k`` elements are out of reach.  The search keeps the lightest
element found, ``best``, and repeats two kinds of exact sub-searches, each one blocked
Walsh-Hadamard transform (:func:`flipgame.algebra.minweight.min_weight`) over a
subspace of dimension ``dim`` (2**dim elements in about a second):

* *symmetric starts*: for each symmetry ``s`` of the board (an involution or a rotation,
  :mod:`flipgame.algebra.symmetry`; one per conjugacy class, as conjugate symmetries fix
  solutions of the same weights), the solutions that ``s`` fixes form a sub-coset
  (``(M_s - I) a = c_s`` in coordinates); where its dimension is small enough it is
  searched whole (up to :data:`SYMMETRIC_MAX_DIM`).  Symmetric boards often have a symmetric lightest solution (the
  all-lit n x n boards for n = 19, 30, 32, 33, 39, 62, 64, 67 among those checked);
* *classes*: where it is not symmetric, the lightest solution ``y`` of every all-lit board checked has
  ``y ^ s(y)`` among the :data:`CLASSES` lightest values for one symmetry ``s``
  (:mod:`flipgame.algebra.coset_classes`): the solutions with each of those values form a sub-coset as
  large as the fixed one, searched whole, lightest value first;
* *neighbourhoods*: ``current ^ span(R)`` for ``dim`` random elements ``R`` of ``N``, or every
  other step for the null vectors one symmetry fixes (a subspace of dimension 32 at n = 79)
  with :data:`SYMMETRIC_EXTRA` random ones: such a move changes ``current`` by a symmetric
  pattern, which keeps what its other half got right; the lightest element there is at most
  ``current`` (a = 0 is ``current`` itself), and replaces it.  After :data:`RESTART` steps
  without improvement, ``current`` restarts from the lightest element around a random
  element of the coset.  ``best`` is the
  lightest ``current`` ever was.

Whatever it returns is an upper bound, not a minimum: the search proves nothing.

Running time: ``seconds`` (checked between sub-searches) plus the last sub-search,
O(2**dim * dim / cores) each.

Source: large-neighbourhood search, P. Shaw, "Using constraint programming and local
search methods to solve vehicle routing problems", CP 1998; the exact neighbourhood
by the Walsh-Hadamard transform as in :mod:`flipgame.algebra.minweight`.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from flipgame.algebra import coset_classes, coset_run, minweight, symmetry

DIM = 30
"""Dimension of each neighbourhood: 2**30 elements, about half a second at 2e9 a second."""
SYMMETRIC_MAX_DIM = 36
"""Largest fixed sub-coset searched whole as a symmetric start: 2**36, about half a minute (the all-lit
79x79's are 16 and 32)."""
RESTART = 40
"""Neighbourhood steps without improvement before one around a random element of the coset."""
CLASSES = 64
"""Classes searched per symmetry, lightest ``y ^ s(y)`` first: the minimum of each of the 14 all-lit boards
up to n = 118 whose minimum is not symmetric lies in one of its symmetries' 64 lightest classes."""
PACE_MIN_DIM = 24
"""Sub-searches of 2**24 elements or more teach the search its pace (seconds an element: 2.5-3 s for 2**32
at 6,241 cells against 1.5 s at the measured rate, 30 s for 2**35 at 9,025 against 12 s), which every later
estimate takes when slower than the measured rate; below it, the O(n k) preparation dominates."""
SYMMETRIC_EXTRA = 4
"""Random null vectors added to a symmetry's fixed subspace in a symmetric neighbourhood (2**36 at n = 79)."""


@dataclass(frozen=True)
class Found:
    """The search's lightest element: ``presses`` (weight ``weight``), found after ``seconds`` by ``how``;
    ``steps`` exact sub-searches were run in ``elapsed`` seconds."""

    weight: int
    presses: int
    seconds: float
    how: str
    steps: int
    elapsed: float


def fixed_subcoset(x: int, basis: Sequence[int], perm) -> tuple[int, list[int]] | None:
    """The elements of ``x ^ span(basis)`` fixed by the cell map ``perm`` (which must map the coset onto
    itself), as ``(particular element, basis)``, or None if none is fixed: the class of ``y ^ s(y) = 0``
    (:func:`flipgame.algebra.coset_classes.symmetric`).  O(k^2) XORs of n-bit ints."""
    return coset_classes.symmetric(coset_classes.split(x, basis, perm))


def _conjugacy_representatives(symmetries: Sequence) -> list:
    """One symmetry per conjugacy class, identity left out: ``t s t^-1`` fixes the image under ``t`` of
    what ``s`` fixes, solutions of the same weights, so one of them is enough."""
    kept: list = []
    for name, perm in symmetries:
        if np.array_equal(perm, np.arange(len(perm))):
            continue
        conjugates = ({tuple(t[perm[np.argsort(t)]]) for _, t in symmetries})
        if not any(tuple(p) in conjugates for _, p in kept):
            kept.append((name, perm))
    return kept


def _symmetric_starts(x: int, basis: Sequence[int], symmetries: Sequence):
    """``(name, (particular, basis))`` of the fixed sub-coset of one symmetry per conjugacy class, up to
    :data:`SYMMETRIC_MAX_DIM`, smallest first."""
    out = []
    for name, perm in _conjugacy_representatives(symmetries):
        sub = fixed_subcoset(x, basis, perm)
        if sub is not None and len(sub[1]) <= SYMMETRIC_MAX_DIM:
            out.append((name, sub))
    return sorted(out, key=lambda item: len(item[1][1]))


def _class_steps(x: int, basis: Sequence[int], n: int, symmetries: Sequence, clock: _Clock):
    """``(how, particular, basis)`` of the :data:`CLASSES` lightest classes of each symmetry (one per conjugacy
    class) whose classes are up to :data:`SYMMETRIC_MAX_DIM` and whose ranking and first class ``clock``
    affords by their estimates; a ranking slower than its estimate stops at the clock's deadline."""
    for name, perm in _conjugacy_representatives(symmetries):
        sp = coset_classes.split(x, basis, perm)
        if len(sp.image) > coset_classes.MAX_IMAGE_DIM or len(sp.fixed) > SYMMETRIC_MAX_DIM or not clock.affords(
                coset_classes.ranking_seconds(len(sp.image), n) + clock.cost(len(sp.fixed))):
            continue
        for i, (w, around, sub) in enumerate(coset_classes.classes(sp, n, CLASSES, clock.deadline)):
            yield f"class {i + 1} of {name} (y ^ s(y) of weight {w})", around, sub


def _random_subspace(rng: random.Random, basis: Sequence[int], dim: int) -> list[int]:
    """``dim`` random elements of span(basis) (dependent ones are fine: the transform counts them twice)."""
    k = len(basis)
    return [symmetry.combine(basis, rng.getrandbits(k) or 1) for _ in range(min(dim, k))]


def _neighbourhood(rng: random.Random, basis: Sequence[int], starts: list, dim: int,
                   fits: Callable[[int], bool]) -> tuple[list[int], str]:
    """The subspace of a neighbourhood step and what it adds to its name: with ``starts``, the patterns a
    random one of them fixes and :data:`SYMMETRIC_EXTRA` random null vectors, when that fits the budget;
    else ``dim`` random null vectors."""
    if starts:
        name, (_, fixed) = rng.choice(starts)
        if fits(len(fixed) + SYMMETRIC_EXTRA):
            return fixed + _random_subspace(rng, basis, SYMMETRIC_EXTRA), f" (the patterns {name} fixes)"
    return _random_subspace(rng, basis, dim), ""


class _Clock:
    """A search's budget of ``seconds``: a sub-search of 2**k elements is estimated at the measured rate
    (:func:`flipgame.algebra.coset_run.seconds_for`), or at the pace the search's own sub-searches of
    2**:data:`PACE_MIN_DIM` or more showed, when slower."""

    def __init__(self, seconds: float):
        self.start, self.seconds, self.pace = time.perf_counter(), seconds, 0.0

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def cost(self, k: int) -> float:
        return max(coset_run.seconds_for(1 << k), self.pace * (1 << k))

    @property
    def deadline(self) -> float:
        return self.start + self.seconds

    def affords(self, seconds: float) -> bool:
        return self.elapsed() + seconds <= self.seconds

    def fits(self, k: int) -> bool:
        return self.affords(self.cost(k))

    def learn(self, k: int, seconds: float) -> None:
        if k >= PACE_MIN_DIM:
            self.pace = max(self.pace, seconds / (1 << k))


def _direct(call: Callable[[], tuple[int, int]]) -> tuple[int, int]:
    return call()


def search(x: int, basis: Sequence[int], n: int, seconds: float, *, symmetries: Sequence = (), dim: int = DIM,
           seed: int = 0, on_better: Callable[[Found], None] | None = None,
           run: Callable[[Callable[[], tuple[int, int]]], tuple[int, int]] = _direct) -> Found:
    """The lightest element of ``x ^ span(basis)`` that a search of ``seconds`` finds (an upper bound).

    Parameters
    ----------
    x, basis, n
        The coset (bitmasks of ``n`` bits; ``basis`` independent).
    seconds : float
        Time budget, checked between sub-searches (the symmetric starts, smallest first, count in it);
        a sub-search whose estimate at :data:`flipgame.algebra.coset_run.RATE` would overrun it is not
        started (a symmetric neighbourhood gives way to a random one of ``dim``), so the search ends
        within about one sub-search of it on a machine as fast as the measured one.
    symmetries : sequence of (name, cell map)
        Symmetries that map the coset onto itself (:func:`flipgame.algebra.symmetry.stabiliser`),
        for the symmetric starts; the identity is skipped.
    dim : int
        Dimension of each exact sub-search (at most :data:`flipgame.algebra.minweight.MAX_NULLITY`).
    seed : int
        Random seed: the same seed and budget give the same steps (not the same count of them).
    on_better : callable(Found), optional
        Called at each improvement.
    run : callable(callable) -> (int, int)
        Runs each sub-search (:func:`flipgame.algebra.minweight.min_weight`, which releases the GIL):
        directly by default; a caller that must answer Ctrl-C during a sub-search of a minute passes
        one that runs it in a thread it can abandon (:func:`flipgame.backends.base.interruptible`).

    Returns
    -------
    Found
        The lightest element met and how it was found.  O(steps * 2**dim * dim / cores).
    """
    rng = random.Random(seed)
    clock = _Clock(seconds)
    best = Found(x.bit_count(), x, 0.0, "particular solution", 0, 0.0)
    steps = 0

    def lightest(around: int, sub: Sequence[int], how: str) -> int:
        nonlocal best, steps
        began = time.perf_counter()
        y = run(lambda: minweight.min_weight(around, sub, n))[1]
        clock.learn(len(sub), time.perf_counter() - began)
        steps += 1
        if y.bit_count() < best.weight:
            now = clock.elapsed()
            best = Found(y.bit_count(), y, now, how, steps, now)
            if on_better:
                on_better(best)
        return y

    starts = _symmetric_starts(x, basis, symmetries)
    exact = itertools.chain(((f"the solutions fixed by {name}", sx, sub) for name, (sx, sub) in starts),
                            _class_steps(x, basis, n, symmetries, clock))
    fits = clock.fits
    for how, around, sub in exact:
        if fits(len(sub)):
            lightest(around, sub, how)
    current, stale = best.presses, 0
    dim = min(dim, len(basis))
    while fits(dim):
        if stale >= RESTART:
            around, how, stale = symmetry.combine(basis, rng.getrandbits(len(basis))) ^ x, "a restart", 0
        else:
            around, how = current, "a neighbourhood of the lightest so far" if current == best.presses else \
                "a neighbourhood after a restart"
        sub, patterns = _neighbourhood(rng, basis, starts if steps % 2 else [], dim, fits)
        y = lightest(around, sub, how + patterns)
        if around != current or y.bit_count() < current.bit_count():
            current, stale = y, 0
        else:
            stale += 1
    return Found(best.weight, best.presses, best.seconds, best.how, steps, clock.elapsed())


__all__ = ["DIM", "Found", "fixed_subcoset", "search"]

"""The classes of a symmetry on a solution coset, lightest first: where a board's lightest solution is not
symmetric, it is usually one step away from symmetric.

Method.  Let ``s`` be a symmetry of the rules and the board (:mod:`flipgame.algebra.symmetry`), so that ``s``
maps the solution coset ``x ^ span(N)`` onto itself.  For a solution ``y`` put ``c(y) = y ^ s(y)``: ``c``
takes its values in the coset ``c0 ^ (1+s)N`` (``c0 = x ^ s(x)``), and the solutions with one value of
``c`` form a *class*, ``y_c ^ F`` with ``F`` the null vectors ``s`` fixes; the class of ``c = 0`` (when it
is one) is the sub-coset of symmetric solutions.  So ``span(N)`` splits into ``2**dim((1+s)N)`` classes of
``2**dim F`` elements each, and ``c`` is half of what a solution looks like: on each orbit ``{p, s(p)}``
where ``c`` is 1 it has exactly one press.  The lightest solution of every all-lit n x n board checked so
far (the 14 terms of A075464 up to n = 118 whose minimum is not symmetric) lies in a class whose ``c`` is
among the 64 lightest of its symmetry (with at most 2**15 classes there; the weight of ``c`` predicts a
class's minimum only weakly, a rank correlation of 0.2 to 0.3, so this is an order, not a promise);
:func:`lightest` finds those ``c`` (a Walsh-Hadamard transform
over ``(1+s)N`` in blocks of :data:`BLOCK_DIM`) and :func:`classes` gives each class as a sub-coset that
:func:`flipgame.algebra.minweight.min_weight` searches whole.

Running time: O(2**dim((1+s)N) * dim) additions for the ranking, then O(2**dim(F) * dim(F)) per class.

Source: the decomposition of a code with an automorphism into its fixed subcode and the image of
``1 + s``, W. C. Huffman, "Automorphisms of codes with applications to extremal doubly even codes of
length 48", IEEE Trans. Inform. Theory 28 (1982) 511-521; the transform as in :mod:`flipgame.algebra.minweight`.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from flipgame.algebra import minweight, symmetry
from flipgame.algebra.elimination import column_echelon

BLOCK_DIM = 20
"""The ranking's blocks: 2**20 weights at once (4 MiB, in cache: 0.03 s each at 6,241 cells)."""
MAX_IMAGE_DIM = 32
"""Largest ``dim((1+s)N)`` ranked: 2**32 weights, about two minutes at 6,241 cells (n = 79's rotate 180)."""
RANK_RATE = 3.1e7 * 6241
"""Weights ranked per second times cells: 2**20 weights of 6,241 cells in 0.034 s on this 2-core machine."""


def ranking_seconds(d: int, n: int) -> float:
    """Estimated seconds of :func:`lightest` over a ``(1+s)N`` of dimension ``d`` and ``n`` cells."""
    return (1 << d) * max(n, 1) / RANK_RATE


@dataclass(frozen=True)
class Split:
    """The classes of one symmetry: ``c0 ^ span(image)`` are the values of ``c``; the class of the value with
    coordinates ``a`` is ``particular ^ combine(lifts, a) ^ span(fixed)``."""

    particular: int
    c0: int
    image: list[int]
    lifts: list[int]
    fixed: list[int]


def split(x: int, basis: Sequence[int], perm: np.ndarray) -> Split:
    """The classes of the symmetry with cell map ``perm`` on ``x ^ span(basis)`` (``perm`` must map the coset
    onto itself; ``basis`` independent).  O(k^2) XORs of n-bit ints."""
    rows, kernel = column_echelon([q ^ symmetry.permute(q, perm) for q in basis])
    fixed = [symmetry.combine(basis, a) for a in kernel]
    return Split(x, x ^ symmetry.permute(x, perm), [r for _, r, _ in rows],
                 [symmetry.combine(basis, a) for _, _, a in rows], fixed)


def symmetric(sp: Split) -> tuple[int, list[int]] | None:
    """The class of ``c = 0``, the solutions ``s`` fixes, as ``(particular element, basis)``, or None when
    ``c0`` is outside ``(1+s)N`` (no solution is symmetric).  O(k) XORs of n-bit ints."""
    c, a = sp.c0, 0
    for i, v in enumerate(sp.image):  # echelon rows, each reduced by the earlier ones: reduce in order
        if c >> (v.bit_length() - 1) & 1:
            c ^= v
            a |= 1 << i
    return None if c else (sp.particular ^ symmetry.combine(sp.lifts, a), sp.fixed)


def lightest(sp: Split, n: int, count: int, deadline: float = math.inf) -> list[tuple[int, int]]:
    """The ``count`` lightest values of ``c`` other than 0 (the symmetric class, searched on its own), as
    ``(weight, coordinates)``, lightest first (ties by coordinates); past ``deadline`` (a
    :func:`time.perf_counter` value, checked between blocks) the lightest of the blocks ranked so far.
    ValueError past :data:`MAX_IMAGE_DIM`.  O(2**d * d) additions for ``d = len(sp.image)``."""
    d = len(sp.image)
    if d > MAX_IMAGE_DIM:
        raise ValueError(f"(1+s)N has dimension {d} > {MAX_IMAGE_DIM}")
    if count <= 0:
        return []
    low = min(d, BLOCK_DIM)
    heap: list[tuple[int, int]] = []  # (-weight, -coordinates): the heaviest kept on top
    for top in range(1 << (d - low)):
        if top and time.perf_counter() > deadline:
            break
        ws = minweight.weights(sp.c0 ^ symmetry.combine(sp.image[low:], top), sp.image[:low], n).astype(np.int64)
        ws[ws == 0] = np.iinfo(np.int64).max  # c = 0: the symmetric class
        keep = min(count, len(ws))
        cut = np.partition(ws, keep - 1)[keep - 1]
        less = np.flatnonzero(ws < cut)
        ties = np.flatnonzero(ws == cut)[:keep - len(less)]  # the ties at the cut with the smallest coordinates
        for a in np.concatenate([less, ties]).tolist():
            item = (-int(ws[a]), -(a | top << low))
            if len(heap) < count:
                heapq.heappush(heap, item)
            elif item > heap[0]:
                heapq.heapreplace(heap, item)
    return sorted((-w, -a) for w, a in heap if -w != np.iinfo(np.int64).max)


def classes(sp: Split, n: int, count: int, deadline: float = math.inf) -> Iterator[tuple[int, int, list[int]]]:
    """The classes of the ``count`` lightest ``c`` (:func:`lightest`, ranked until ``deadline``), as
    ``(weight of c, particular element, basis)`` sub-cosets, lightest ``c`` first."""
    for w, a in lightest(sp, n, count, deadline):
        yield w, sp.particular ^ symmetry.combine(sp.lifts, a), sp.fixed


__all__ = ["BLOCK_DIM", "MAX_IMAGE_DIM", "RANK_RATE", "Split", "classes", "lightest", "ranking_seconds", "split",
           "symmetric"]

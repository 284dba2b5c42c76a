"""A Gray-code walk over a coset of GF(2) solutions (numba), for the slow test that weighs all 2**32 solutions of
the all-lit 39x39 board without the Walsh-Hadamard transform: a second method for the minimum and its ties."""

from __future__ import annotations

import numba
import numpy as np

KEPT = 8
"""Codes kept per prefix of the lightest solutions (the count goes on past it)."""


@numba.njit
def _weight(v):
    w = 0
    for x in v:
        x = x - (x >> np.uint64(1) & np.uint64(0x5555555555555555))
        x = (x & np.uint64(0x3333333333333333)) + (x >> np.uint64(2) & np.uint64(0x3333333333333333))
        x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        w += int(x * np.uint64(0x0101010101010101) >> np.uint64(56))
    return w


@numba.njit
def _prefix(x0, basis, top, p):
    v, low = x0.copy(), len(basis) - top
    for t in range(top):
        if p >> t & 1:
            v ^= basis[low + t]
    return v


@numba.njit
def _lowest(i):
    b = 0
    while not i >> b & 1:
        b += 1
    return b


@numba.njit(parallel=True)
def lightest_per_prefix(x0, basis, top):
    """x0 ^ span(basis) (uint64 words, shapes (w,) and (k, w)) walked in 2**top prefixes of the highest
    coordinates, in parallel: per prefix the lightest weight, how many solutions have it, and the low
    coordinates of the first :data:`KEPT` of them, shapes (2**top,), (2**top,), (2**top, KEPT)."""
    weights, counts = np.full(1 << top, 1 << 30), np.zeros(1 << top, np.int64)
    codes = np.zeros((1 << top, KEPT), np.int64)
    for p in numba.prange(1 << top):
        v, code = _prefix(x0, basis, top, p), 0
        for i in range(1 << (len(basis) - top)):
            if i:
                v ^= basis[_lowest(i)]
                code ^= 1 << _lowest(i)
            w = _weight(v)
            if w < weights[p]:
                weights[p], counts[p] = w, 0
            if w == weights[p] and counts[p] < KEPT:
                codes[p, counts[p]] = code
            counts[p] += w == weights[p]
    return weights, counts, codes

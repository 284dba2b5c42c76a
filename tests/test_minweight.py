"""flipgame.algebra.minweight (Walsh-Hadamard minimum-weight coset search) against brute force."""

from __future__ import annotations

import random

import numpy as np
import pytest

from flipgame.algebra import minweight, wht_blocked
from flipgame.algebra.gf2 import eliminate
from flipgame.algebra.minweight import min_weight, minima, weights
from flipgame.model.grid import Game

# OEIS A075464: fewest presses to turn an all-lit n x n Lights Out board off, n = 1..19
# (A075462 is the number of solutions; A075464(39) = 561 is the nullity-32 39x39 case).
A075464 = [1, 4, 5, 4, 15, 28, 33, 40, 25, 44, 55, 72, 105, 56, 117, 104, 147, 188, 141]


def brute_weights(x: int, basis: list[int]) -> list[int]:
    """Weight of x ^ B a for every assignment a, by a Gray-code walk (plain Python)."""
    out = [0] * (1 << len(basis))
    out[0] = x.bit_count()
    a = 0
    for i in range(1, 1 << len(basis)):
        bit = (i & -i).bit_length() - 1
        x ^= basis[bit]
        a ^= 1 << bit
        out[a] = x.bit_count()
    return out


def element(x: int, basis: list[int], a: int) -> int:
    for i, b in enumerate(basis):
        if a >> i & 1:
            x ^= b
    return x


def independent(rng: random.Random, k: int, n: int) -> list[int]:
    """k linearly independent random vectors of n bits (k <= n)."""
    basis, reduced = [], []
    while len(basis) < k:
        v = rng.getrandbits(n)
        r = v
        for p in reduced:
            r = min(r, r ^ p)
        if r:
            basis.append(v)
            reduced.append(r)
            reduced.sort(reverse=True)
    return basis


def cases(count: int, seed: int):
    rng = random.Random(seed)
    yield 0, [], 1
    yield 1, [], 1
    yield 0, [1], 1
    yield 0, [0b101, 0b011], 3
    for _ in range(count):
        n = rng.randint(1, 200)
        k = rng.randint(0, min(12, n))
        basis = independent(rng, k, n)
        x = 0 if rng.random() < 0.1 else rng.getrandbits(n)
        if rng.random() < 0.2:  # sparse vectors: many tied minima and repeated codes
            basis = independent(rng, k, n) if k == 0 else [b & rng.getrandbits(n) | 1 << i for i, b in
                                                           enumerate(basis)]
        yield x, basis, n


def check(x: int, basis: list[int], n: int) -> None:
    w = brute_weights(x, basis)
    best = min(w)
    tied = [a for a, v in enumerate(w) if v == best]
    a, el = min_weight(x, basis, n)
    assert a == tied[0]
    assert el == element(x, basis, a) and el.bit_count() == best
    assert minima(x, basis, n) == [element(x, basis, t) for t in tied]
    ws = weights(x, basis, n)
    assert ws.dtype == np.int32 and ws.shape == (1 << len(basis),)
    assert ws.tolist() == w


@pytest.mark.parametrize("x, basis, n", list(cases(150, seed=1)))
def test_dense_matches_brute_force(x, basis, n):
    check(x, basis, n)


@pytest.mark.parametrize("x, basis, n", [c for c in cases(60, seed=2) if len(c[1]) >= 4])
@pytest.mark.needs("numba")
def test_blocked_kernel_matches_brute_force(monkeypatch, x, basis, n):
    """Force the numba path (k > DENSE_MAX_NULLITY) with a small low block."""
    monkeypatch.setattr(minweight, "DENSE_MAX_NULLITY", 0)
    monkeypatch.setattr(wht_blocked, "LOW_BITS", random.Random(n).randint(0, 4))
    w = brute_weights(x, basis)
    tied = [a for a, v in enumerate(w) if v == min(w)]
    assert min_weight(x, basis, n) == (tied[0], element(x, basis, tied[0]))
    assert minima(x, basis, n) == [element(x, basis, t) for t in tied]


def test_duplicated_rows_count_with_multiplicity():
    basis = [0b0110, 0b0110, 0b1100]
    check(0b0111, basis, 4)


def test_real_board_4x4():
    game = Game(4, 4)
    e = eliminate(game)
    assert e.nullity == 4
    basis = list(e.null_basis)
    rng = random.Random(3)
    boards = [(1 << 16) - 1] + [rng.getrandbits(16) for _ in range(300)]
    checked = 0
    for d in boards:
        if e.consistent(d):
            check(e.particular(d), basis, 16)
            checked += 1
    assert checked > 5


@pytest.mark.parametrize("size", range(1, 20))
def test_all_lit_lights_out(size):
    n = size * size
    e = eliminate(Game(size, size))
    d = (1 << n) - 1
    assert e.consistent(d)
    a, presses = min_weight(e.particular(d), e.null_basis, n)
    assert presses.bit_count() == A075464[size - 1]


@pytest.mark.needs("numba")
def test_blocked_kernel_on_19x19(monkeypatch):
    """19x19 has nullity 16: the numba path must agree with the dense transform."""
    n = 19 * 19
    e = eliminate(Game(19, 19))
    x, basis = e.particular((1 << n) - 1), e.null_basis
    dense = min_weight(x, basis, n), minima(x, basis, n)
    monkeypatch.setattr(minweight, "DENSE_MAX_NULLITY", 0)
    assert (min_weight(x, basis, n), minima(x, basis, n)) == dense
    assert dense[0][1].bit_count() == 141


def test_errors():
    with pytest.raises(ValueError):
        min_weight(0b100, [0b1], 2)
    with pytest.raises(ValueError):
        min_weight(0, [0b100], 2)
    with pytest.raises(ValueError):
        min_weight(-1, [], 2)
    with pytest.raises(ValueError):
        weights(0, [1 << i for i in range(27)], 27)
    assert len(minima(0b01, [0b11], 2)) == 2
    with pytest.raises(ValueError):
        minima(0b01, [0b11], 2, cap=1)
    with pytest.raises(ValueError):  # basis with no support: every assignment ties
        minima(0, [0] * 3, 1, cap=7)

"""The banded elimination (flipgame.algebra.band): the same null space, solutions, minimum and certificates as
the dense eliminations on any stencil and wrap over Z_2, Z_3, Z_5 and Z_7; the torus nullities of OEIS A165738;
gauss on 256x256 tori; and its refusals."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from flipgame import solve, solve_batch
from flipgame.algebra import band, band_layout, zk
from flipgame.algebra import gf2 as algebra
from flipgame.backends.result import Status
from flipgame.core.errors import BoardTooLargeError, NullityTooLargeError
from flipgame.model.grid import Game
from flipgame.verify.checks.certificates import check_certificate

pytestmark = pytest.mark.needs("numba")

A165738 = (0, 0, 4, 0, 8, 8, 0, 0, 4, 16, 0, 16, 0, 0, 12, 0, 16, 8, 0, 32, 4, 0, 0, 32, 8, 0, 4, 0, 0, 24, 40, 0, 44,
           32, 8, 16, 0, 0, 4, 64, 0, 8, 0, 0, 12, 0, 0, 64, 0, 16, 20, 0, 0, 8, 8, 0, 4, 0, 0, 48, 0, 80, 52, 0, 56,
           88, 0, 64, 4, 16, 0, 32, 0, 0, 12, 0, 0, 8, 0, 128, 4, 0, 0, 16, 24, 0, 4, 0, 0, 24)
"""OEIS A165738, n = 1..90: the nullity of the n x n torus (plus, both wraps) over GF(2) (M. Alekseyev)."""


def _random_games(count: int, seed: int):
    rng = random.Random(seed)
    while count:
        offsets = sorted({(0, 0), *((rng.randint(-2, 2), rng.randint(-2, 2)) for _ in range(rng.randint(0, 5)))})
        game = Game(rng.randint(1, 12), rng.randint(1, 12), neighbourhood="stencil", stencil=offsets,
                    wrap=rng.random() < 0.5, states=rng.choice([2, 2, 3, 5, 7]))
        if band_layout.layout(game) is not None:
            count -= 1
            yield game, rng


def _dense_nullity(game: Game) -> int:
    return algebra.eliminate(game).nullity if game.binary else zk.diagonal_of(game.matrix, game.states).nullity


def test_the_band_gives_the_dense_nullity_solutions_null_space_and_certificates_on_random_stencils():
    for game, rng in _random_games(80, 3):
        p, a = game.states, game.matrix % game.states
        solvable = a @ np.array([rng.randrange(p) for _ in range(game.cells)]) % p
        other = np.array([rng.randrange(p) for _ in range(game.cells)])
        xs, basis = band.solutions(band.sweep(game, np.stack([solvable, other], axis=1)))
        assert len(basis) == _dense_nullity(game), game.rules
        assert (a @ xs[0] % p == solvable).all() and not any((a @ b % p).any() for b in basis)
        if xs[1] is None:
            c = band.certificate(game, other)
            assert not (c @ a % p).any() and c @ other % p
        else:
            assert (a @ xs[1] % p == other).all()


def test_the_torus_nullities_of_oeis_a165738_for_n_1_to_90():
    got = [band.system_nullity(Game(n, n, wrap=True)) for n in range(1, 91)]
    assert tuple(got) == A165738
    assert algebra.nullity(Game(60, 60, wrap=True)) == 48 and algebra.method_for(Game(60, 60, wrap=True)) == "band"


def test_the_gray_walk_finds_the_cheapest_element_of_the_coset():
    game = Game(5, 5, wrap=True, states=3)  # nullity 8: 6,561 press vectors
    rng = random.Random(4)
    d = game.matrix @ np.array([rng.randrange(3) for _ in range(25)]) % 3
    (x0,), basis = band.solutions(band.sweep(game, d[:, None]))
    brute = min(int(((x0 + sum(c * b for c, b in zip(cs, basis, strict=True))) % 3).sum())
                for cs in itertools.product(range(3), repeat=len(basis)))
    x = band.cheapest(x0, basis, 3)
    assert x.sum() == brute == 12 and (game.matrix @ x % 3 == d).all()  # 12: also the diagonal form's minimum


@pytest.mark.parametrize("neighbourhood", ["plus", "king", "cross"])
@pytest.mark.parametrize("states", [2, 3])
def test_gauss_band_gives_the_dense_minimum_on_small_tori(neighbourhood, states):
    rng = random.Random(len(neighbourhood) + states)
    side = 4 if (neighbourhood, states) == ("king", 3) else 6  # nullity 5 to 20 (the 6x6 king over Z_3 has 20)
    game = Game(side, side, "white" if states == 2 else "0", wrap=True, neighbourhood=neighbourhood, states=states)
    for _ in range(3):
        presses = tuple(rng.randrange(states) for _ in range(game.cells))
        board = game.apply(0 if states == 2 else (0,) * game.cells, presses if states > 2 else band.to_mask(presses))
        dense = solve(board, "gauss", game=game)
        banded = solve(board, "gauss", game=game, method="band")
        assert banded.status is dense.status is Status.OPTIMAL and banded.moves == dense.moves
        assert banded.stats["method"] == "band" and banded.stats["nullity"] == dense.stats["nullity"]


def test_an_impossible_torus_board_past_the_dense_limit_has_a_checked_certificate():
    game = Game(60, 60, "white", wrap=True)  # nullity 48; 3,600 cells
    board = 1 << 1234
    s = solve(board, "gauss", game=game)
    assert s.status is Status.INFEASIBLE and s.stats["method"] == "band"
    (target, cert), = s.certificates.items()
    assert check_certificate(game, board, target, cert) is None


def test_gauss_answers_a_256x256_torus_with_its_unique_solution():
    game = Game(256, 256, "white", wrap=True)  # nullity 0 (A165738: a(2n) = 2 a(n), a(1) = 0)
    rng = random.Random(256)
    presses = rng.getrandbits(256 * 256)
    s = solve(game.apply(0, presses), "gauss", game=game)
    assert s.status is Status.OPTIMAL and s.presses == presses and s.stats["nullity"] == 0


@pytest.mark.slow
@pytest.mark.parametrize(("neighbourhood", "states", "nullity"), [("plus", 3, 5), ("king", 2, 0), ("cross", 3, 10)])
def test_gauss_solves_256x256_tori_over_two_and_three_states(neighbourhood, states, nullity):
    game = Game(256, 256, "white" if states == 2 else "0", wrap=True, neighbourhood=neighbourhood, states=states)
    rng = random.Random(7)
    presses = tuple(rng.randrange(states) for _ in range(game.cells))
    board = game.apply(0 if states == 2 else (0,) * game.cells, presses if states > 2 else band.to_mask(presses))
    s = solve(board, "gauss", game=game)
    assert s.status is Status.OPTIMAL and s.stats["nullity"] == nullity


def test_the_band_refuses_composite_states_and_systems_without_a_grid_in_one_line():
    assert "4 states is not prime" in band_layout.refusal(Game(5, 5, wrap=True, states=4))
    with pytest.raises(BoardTooLargeError, match="not prime"):
        algebra.method_for(Game(5, 5, wrap=True, states=4), "band")
    assert band_layout.refusal(Game(5, 5).normal) is None  # a plus grid without wrap is banded too


def test_the_band_past_gauss_time_limit_is_unknown_never_a_number():
    for states in (2, 3):
        game = Game(70, 70, "white" if states == 2 else "0", wrap=True, states=states)
        s = solve(1 if states == 2 else (1,) + (0,) * (game.cells - 1), "gauss", game=game, method="band",
                  time_limit=1e-9)
        assert s.status is Status.UNKNOWN and s.moves is None
        assert "banded elimination was not done within the time limit of 1e-09 s: a larger --time-limit" \
            in s.stats["error"]


def test_kernels_compiled_from_two_threads_at_once_are_wrapped_once(monkeypatch):
    """A solve abandoned at its time limit left its thread compiling while the next solve compiled too: the
    second wrapped the already-jitted helpers ("A jit decorator was called on an already jitted function"),
    and the next board was ERROR (seen when the time-limit test ran just before the certificate test)."""
    import threading

    from flipgame.algebra import band_kernel

    monkeypatch.setattr(band_kernel, "_compiled", {})
    for name, fn in band_kernel._PLAIN.items():
        monkeypatch.setattr(band_kernel, name, fn)
    start, errors = threading.Barrier(4), []

    def compile_():
        start.wait()
        try:
            band_kernel.kernels()
        except Exception as exc:  # noqa: BLE001 - the finding is the exception itself
            errors.append(exc)

    threads = [threading.Thread(target=compile_) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    game = Game(60, 60, wrap=True)
    s = solve(sum(1 << c for c in (0, 1, 2, 3, 7, 9)), "gauss", game=game, method="band")
    assert s.status is Status.INFEASIBLE and s.stats["nullity"] == 48


def test_a_grid_past_the_band_limits_is_refused_before_its_band_is_read():
    from flipgame.core.limits import BAND_MAX_CELLS

    big = Game(1001, 1000, neighbourhood="king")
    assert band_layout.refusal(big) == f"the banded elimination takes at most {BAND_MAX_CELLS:,} cells"
    with pytest.raises(BoardTooLargeError, match="over the 6,250,000 the dense elimination takes .and the banded"):
        algebra.method_for(big)
    wide = Game(70, 70, neighbourhood="stencil", stencil=[(0, 0), (0, 1), (-1, 0)], wrap=True)
    assert band_layout.refusal(wide) is None and band_layout.band_refusal(wide) is None  # a lopsided stencil: banded


@pytest.mark.parametrize(("side", "states", "cells"), [
    (60, 2, {(0, 0): 1, (0, 1): 1, (0, 2): 1, (0, 3): 1, (0, 7): 1, (0, 9): 1}),
    (24, 3, {(0, 0): 2, (0, 5): 2, (0, 8): 1, (0, 9): 2}),
])
def test_a_board_no_random_draw_certifies_gets_its_certificate_from_the_basis(side, states, cells):
    """Break-it: boards crafted against the 8 seeded random draws answered Impossible with no certificate (two
    states) or crashed with a TypeError (Z_3); the basis of the left null space always has one."""
    game = Game(side, side, "white" if states == 2 else "0", wrap=True, states=states)
    if states == 2:
        board = sum(1 << (r * side + c) for (r, c) in cells)
    else:
        board = tuple(cells.get(divmod(i, side), 0) for i in range(side * side))
    s = solve(board, "gauss", game=game, method="band")
    assert s.status is Status.INFEASIBLE
    (target, cert), = s.certificates.items()
    assert check_certificate(game, board, target, cert) is None


def test_a_wide_torus_is_swept_along_its_short_side_and_answers_as_its_transpose():
    """A 10x1000 torus swept row-major had a band of 2,000 cells and was Unknown after 60 s; column-major its
    band is 20 wide and it answers in about a second, as the 1000x10 torus of the transposed board does."""
    wide, tall = Game(10, 1000, "white", wrap=True), Game(1000, 10, "white", wrap=True)
    assert band_layout.layout(wide).width == band_layout.layout(tall).width <= 20 and band_layout.order(tall) is None
    rng = random.Random(5)
    presses = rng.getrandbits(wide.n)
    for board in (wide.apply(0, presses), wide.apply(0, presses) ^ 1):  # solvable, then one cell off
        cells = [board >> i & 1 for i in range(wide.n)]
        transposed = sum(cells[r * 1000 + c] << (c * 10 + r) for r in range(10) for c in range(1000))
        got, want = solve(board, "gauss", game=wide), solve(transposed, "gauss", game=tall)
        assert (got.status, got.moves, got.stats["method"]) == (want.status, want.moves, "band")
        if got.status is Status.INFEASIBLE:
            (target, cert), = got.certificates.items()
            assert check_certificate(wide, board, target, cert) is None
    assert got.status is Status.INFEASIBLE and want.stats["nullity"] == got.stats["nullity"] == 16


def test_gauss_takes_a_large_prime_state_grid_to_the_band_and_a_coset_the_diagonal_form_refuses():
    """A 3x1000 torus over Z_3 ran the diagonal form past 55 s (3x300: 14.6 s); a 4x15 king torus over Z_5 was
    refused over the diagonal form's enumeration budget, although the band's Gray walk answers it."""
    rng = random.Random(2)
    king = Game(4, 15, "0", wrap=True, neighbourhood="king", states=5)
    board = king.apply((0,) * 60, tuple(rng.randrange(5) for _ in range(60)))
    s = solve(board, "gauss", game=king)
    assert (s.status, s.moves, s.stats["method"], s.stats["nullity"]) == (Status.OPTIMAL, 80, "band", 8)
    with pytest.raises(NullityTooLargeError, match="enumeration budget"):
        solve(board, "gauss", game=king, method="dense")
    wide = Game(3, 1000, "0", wrap=True, states=3)
    board = wide.apply((0,) * 3000, tuple(rng.randrange(3) for _ in range(3000)))
    s = solve(board, "gauss", game=wide)
    assert (s.status, s.moves, s.stats["method"]) == (Status.OPTIMAL, 2919, "band")


def test_a_batch_of_prime_state_boards_past_the_band_threshold_answers_as_one_by_one():
    game = Game(16, 16, "0", wrap=True, states=3)  # 256 cells (the threshold), nullity 5
    rng = random.Random(8)
    boards = np.array([game.apply((0,) * 256, tuple(rng.randrange(3) for _ in range(256))) for _ in range(2)]
                      + [tuple(rng.randrange(3) for _ in range(256))], dtype=np.int64)
    batch = solve_batch(boards, game, "gauss")
    singles = [solve(tuple(int(v) for v in b), "gauss", game=game) for b in boards]
    assert [batch[i].answer() for i in range(3)] == [s.answer() for s in singles]
    assert [s.stats["method"] for s in singles] == ["band"] * 3 and singles[2].status is Status.INFEASIBLE

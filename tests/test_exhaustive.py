"""All 65536 4x4 boards: counts and distributions that are known facts."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import batch_gate

from flipgame import Game, Status
from flipgame.algebra.gf2 import eliminate
from flipgame.verify.checks.witness import check_batch

# Flip Game (goal: either colour): 4096 solvable boards, minimum 0..6.
DISTRIBUTION_ANY = [2, 32, 228, 880, 1562, 1136, 256]
# Lights Out 4x4 (goal: all white): minimum 0..7.
DISTRIBUTION_WHITE = [1, 16, 120, 560, 1387, 1440, 540, 32]


@pytest.mark.parametrize("backend", ["gauss", "bfs"])
def test_4x4_answer_distribution(backend, exhaustive):
    r = exhaustive[backend]
    solvable = r.status == Status.OPTIMAL
    assert solvable.sum() == 4096
    assert (r.status == Status.INFEASIBLE).sum() == 61440
    assert np.bincount(r.moves[solvable]).tolist() == DISTRIBUTION_ANY
    assert np.all(r.moves[~solvable] == -1)


@pytest.mark.parametrize("backend", ["gauss", "bfs"])
def test_every_witness_reaches_a_uniform_board_with_that_many_presses(backend, game4, exhaustive):
    r = exhaustive[backend]
    assert not check_batch(game4, r).any()
    ok = r.status == Status.OPTIMAL
    after = game4.apply_many(r.boards[ok], r.presses[ok])
    assert set(np.unique(after).tolist()) == {0, 0xFFFF}
    assert np.array_equal(np.bitwise_count(r.presses[ok]).astype(np.int32), r.moves[ok])


@pytest.mark.parametrize("backend", ["gauss", "bfs"])
def test_4x4_lights_out_goal_white_distribution(backend, all_boards):
    r = batch_gate(backend, Game(goal="white"), all_boards)
    ok = r.status == Status.OPTIMAL
    assert ok.sum() == 4096
    assert np.bincount(r.moves[ok]).tolist() == DISTRIBUTION_WHITE


def test_3x3_every_board_solvable_binomial_distribution():
    g = Game(3, 3, goal="white")
    for backend in ("gauss", "bfs"):
        r = batch_gate(backend, g, np.arange(512, dtype=np.uint64))
        assert np.all(r.status == Status.OPTIMAL)
        assert np.bincount(r.moves).tolist() == [1, 9, 36, 84, 126, 126, 84, 36, 9, 1]


def test_4x4_rank_12_nullity_4_and_quiet_patterns_are_quiet():
    g = Game()
    e = eliminate(g)
    assert (e.rank, e.nullity) == (12, 4)
    for q in e.null_basis:
        assert g.apply(0, q) == 0  # a quiet pattern changes nothing


@pytest.mark.parametrize("n, nullity", [(1, 0), (2, 0), (3, 0), (4, 4), (5, 2), (6, 0), (9, 8), (11, 6)])
def test_square_board_nullity(n, nullity):
    assert eliminate(Game(n, n)).nullity == nullity


def test_reference_trap_coset_is_impossible(exhaustive, game4):
    """The 4096 boards the reference C++ gets wrong: 14 XOR any solvable-to-white board."""
    white = batch_gate("gauss", Game(goal="white"), np.arange(1 << 16, dtype=np.uint64))
    column_space = np.flatnonzero(white.status == Status.OPTIMAL).astype(np.uint64)
    coset = column_space ^ np.uint64(14)
    assert len(np.unique(coset)) == 4096
    for backend in ("gauss", "bfs"):
        assert np.all(exhaustive[backend].status[coset.astype(np.int64)] == Status.INFEASIBLE)


def test_cpsat_agrees_with_gauss_on_a_fixed_sample(game4, exhaustive):
    rng = np.random.default_rng(1681)
    gauss = exhaustive["gauss"]
    sample = np.concatenate([
        rng.choice(np.flatnonzero(gauss.status == Status.OPTIMAL), 200, replace=False),
        rng.choice(np.flatnonzero(gauss.status == Status.INFEASIBLE), 100, replace=False),
    ]).astype(np.uint64)
    r = batch_gate("cpsat", game4, sample)
    assert np.array_equal(r.status, gauss.status[sample.astype(np.int64)])
    assert np.array_equal(r.moves, gauss.moves[sample.astype(np.int64)])
    assert not check_batch(game4, r).any()

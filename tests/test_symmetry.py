"""flipgame.algebra.symmetry: the symmetries of the rules and the board, their action on the solution
coset, and the symmetry-reduced enumeration against the full one and against sat-xor (slow)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from flipgame import solve
from flipgame.algebra import coset_run, symmetry, wht_blocked
from flipgame.algebra import gf2 as algebra
from flipgame.backends.result import Status
from flipgame.model.grid import Game


def _names(game: Game) -> list[str]:
    return [name for name, _ in symmetry.rule_symmetries(game)]


def test_the_rules_symmetries_are_checked_on_the_press_masks():
    assert len(_names(Game(4, 4))) == 8
    assert _names(Game(4, 6)) == ["identity", "rotate 180", "flip rows", "flip columns"]
    assert len(_names(Game(5, 5, neighbourhood="king"))) == 8
    assert len(_names(Game(6, 6, wrap=True))) == 8
    # a lopsided stencil (the press and the cells above and up-left of it) is mapped onto no other
    assert _names(Game(5, 5, neighbourhood="stencil", stencil="xx./.x./...")) == ["identity"]
    # left-right symmetric, not up-down: only the column flip (and the identity) keep it
    assert _names(Game(5, 5, neighbourhood="stencil", stencil="x.x/.x./...")) == ["identity", "flip columns"]


def symmetric_board(game: Game, names: set[str], seed: int) -> int:
    """A solvable board fixed by the named symmetries: A y for a press set y made symmetric (the union of
    its images under the group they generate; A commutes with each)."""
    maps = dict(symmetry.rule_symmetries(game))
    y = random.Random(seed).getrandbits(game.n)
    while True:
        grown = y
        for name in names:
            grown |= symmetry.permute(grown, maps[name])
        if grown == y:
            return game.apply(0, y)
        y = grown


def test_the_stabiliser_is_the_symmetries_that_fix_the_board():
    g = Game(9, 9, "white")
    assert len(symmetry.stabiliser(g, g.full)) == 8
    b = symmetric_board(g, {"rotate 180"}, seed=1)
    fixed = [name for name, _ in symmetry.stabiliser(g, b)]
    assert "rotate 180" in fixed and "rotate 90" not in fixed
    assert [name for name, _ in symmetry.stabiliser(g, b ^ 1)] == ["identity"]  # one corner off: no symmetry


@pytest.mark.parametrize("n, names, seed", [
    (19, {"rotate 90"}, 0), (19, {"transpose"}, 1), (19, {"flip rows", "flip columns"}, 2), (23, {"transpose"}, 3),
    (16, {"rotate 180"}, 4), (9, {"rotate 90", "transpose"}, 5),
])
def test_the_action_keeps_an_inner_subspace_and_burnside_counts_the_representatives(monkeypatch, n, names, seed):
    game = Game(n, n, "white")
    board = symmetric_board(game, names, seed)
    parts, quiet, _ = algebra.solution_cosets(game, board)
    group = symmetry.stabiliser(game, board)
    assert names <= {name for name, _ in group}
    action = symmetry.coset_action(parts[0][0], quiet, group, inner=len(quiet) // 2)
    coords = symmetry.Coordinates(action.basis)
    for _, perm in group:  # the first `inner` basis vectors span an invariant subspace
        for b in action.basis[:action.inner]:
            assert coords(symmetry.permute(b, perm)) >> action.inner == 0
    reps = action.representatives(0, 1 << action.outer)
    assert reps.size == action.orbit_count() < 1 << action.outer
    orbit = {int(reps[-1])} | {action.image(i, int(reps[-1])) for i in range(len(action.maps))}
    assert min(orbit) == reps[-1]


def _both(game: Game, board: int) -> tuple[int, int, int]:
    """(reduced minimum, full minimum, symmetry order) by the long run on ``board``."""
    parts, quiet, _ = algebra.solution_cosets(game, board)
    reduced = coset_run.minimum(game, board, parts, quiet)
    full = coset_run.minimum(game, board, parts, quiet, use_symmetry=False)
    for r in (reduced, full):
        assert game.apply(board, r.best.presses) == r.best.target
    assert full.enumerated == sum(1 << len(quiet) for _ in parts) >= reduced.enumerated
    return reduced.best.weight, full.best.weight, reduced.symmetries


@pytest.mark.parametrize("n, names, seed", [
    (19, set(), 0), (19, {"rotate 90"}, 1), (19, {"transpose"}, 2), (19, {"flip columns"}, 3),
    (23, {"anti-transpose"}, 4), (16, {"rotate 180"}, 5), (9, set(), 6), (16, {"flip rows"}, 7),
])
@pytest.mark.needs("numba")
def test_reduced_and_full_enumeration_agree_on_symmetric_boards(monkeypatch, n, names, seed):
    """Small inner blocks (4 low bits) so that a nullity of 8 to 20 has groups for the symmetries to act on."""
    monkeypatch.setattr(wht_blocked, "LOW_BITS", 2)
    monkeypatch.setattr(coset_run, "BLOCK_GROUPS", 64)
    game = Game(n, n, "white")
    board = game.full if not names else symmetric_board(game, names, seed)
    reduced, full, order = _both(game, board)
    parts, quiet, _ = algebra.solution_cosets(game, board)
    assert reduced == full == min(algebra.min_weight(x, quiet, game.n).bit_count() for x, _ in parts)
    assert order >= (8 if not names else 2)


@pytest.mark.needs("numba")
def test_reduced_enumeration_on_the_any_colour_goal(monkeypatch):
    """Goal any: two cosets (white and black), each with its own symmetry group."""
    monkeypatch.setattr(wht_blocked, "LOW_BITS", 2)
    game = Game(19, 19)
    board = symmetric_board(game.with_goal("white"), {"rotate 90"}, 8)
    reduced, full, _ = _both(game, board)
    assert reduced == full == solve(board, "gauss", game=game).moves


@pytest.mark.slow
@pytest.mark.parametrize("n, names, seed", [
    (39, set(), 0), (39, {"rotate 90"}, 1), (39, {"transpose"}, 2), (39, {"flip rows"}, 3), (30, {"rotate 180"}, 4),
    (47, {"anti-transpose"}, 5), (32, {"flip columns", "flip rows"}, 6),
])
def test_reduced_and_full_agree_up_to_nullity_32(n, names, seed):
    game = Game(n, n, "white")
    board = game.full if not names else symmetric_board(game, names, seed)
    reduced, full, _ = _both(game, board)
    assert reduced == full


@pytest.mark.slow
@pytest.mark.parametrize("n, names, seed", [
    (20, {"rotate 90"}, 0), (24, {"transpose"}, 1), (24, set(), 2), (29, {"rotate 180"}, 3), (29, set(), 4),
    (34, {"flip rows"}, 5), (35, {"rotate 90"}, 6), (40, {"anti-transpose"}, 7),
])
def test_reduced_path_matches_sat_xors_proven_optimum(monkeypatch, n, names, seed):
    """Symmetric boards of 20x20 to 40x40 (nullity 0 to 10: sat-xor proved nothing at 30x30, nullity 20, in
    600 s): the symmetry-reduced run (4 inner bits, so that it acts from nullity 5) against CryptoMiniSat's
    proven optimum."""
    pytest.importorskip("pycryptosat")
    monkeypatch.setattr(wht_blocked, "LOW_BITS", 0)
    game = Game(n, n, "white")
    board = game.full if not names else symmetric_board(game, names, seed)
    parts, quiet, _ = algebra.solution_cosets(game, board)
    run = coset_run.minimum(game, board, parts, quiet)
    s = solve(board, "sat", game=game, time_limit=600.0)
    assert s.status is Status.OPTIMAL and s.moves == run.best.weight
    assert run.symmetries >= 2 or len(quiet) <= 4


def test_representatives_cover_blocks_in_order():
    game = Game(19, 19, "white")
    parts, quiet, _ = algebra.solution_cosets(game, game.full)
    action = symmetry.coset_action(parts[0][0], quiet, symmetry.stabiliser(game, game.full), inner=6)
    whole = action.representatives(0, 1 << action.outer)
    pieces = np.concatenate([action.representatives(s, s + 100) for s in range(0, 1 << action.outer, 100)])
    assert np.array_equal(whole, pieces) and whole[0] == 0

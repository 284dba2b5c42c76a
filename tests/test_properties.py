"""Property-based tests (hypothesis): random rules and boards up to 5x5."""

from __future__ import annotations

from conftest import missing_program, solve_gate
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgame import BACKENDS, Game
from flipgame.verify.checks.witness import check_certificate, check_solution


@st.composite
def game_and_board(draw, max_side=5):
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    game = Game(rows, cols, draw(st.sampled_from(["any", "white", "black"])), draw(st.booleans()))
    return game, draw(st.integers(0, game.full))


def transpose(game: Game, board: int) -> int:
    return sum(1 << (c * game.rows + r) for r in range(game.rows) for c in range(game.cols)
               if board >> (r * game.cols + c) & 1)


def mirror(game: Game, board: int) -> int:
    """Left-right reflection."""
    return sum(1 << (r * game.cols + game.cols - 1 - c) for r in range(game.rows) for c in range(game.cols)
               if board >> (r * game.cols + c) & 1)


def answers(game: Game, board: int) -> dict[str, str]:
    out = {}
    for name, backend in BACKENDS.items():
        if backend.supports(game) and not missing_program(name):  # external: its program, where installed
            s = backend.solve(game, board)
            assert check_solution(game, board, s) is None, (name, s)
            out[name] = s.answer()
    return out


SETTINGS = settings(max_examples=40, deadline=None)


@SETTINGS
@given(game_and_board())
def test_all_backends_agree_and_witnesses_apply(gb):
    game, board = gb
    got = answers(game, board)
    assert len(set(got.values())) == 1, got


@SETTINGS
@given(game_and_board())
def test_impossible_has_a_certificate_that_checks_out(gb):
    from flipgame.algebra.gf2 import certificates

    game, board = gb
    s = solve_gate("gauss", game, board)
    found = certificates(game, board)
    assert (found is None) == s.success
    for target, cert in (found or {}).items():
        assert check_certificate(game, board, target, cert) is None


@SETTINGS
@given(game_and_board())
def test_answer_invariant_under_rotations_and_reflections(gb):
    game, board = gb
    expected = solve_gate("gauss", game, board).answer()
    turned = Game(game.cols, game.rows, game.goal, game.wrap)
    assert solve_gate("gauss", turned, transpose(game, board)).answer() == expected
    assert solve_gate("gauss", game, mirror(game, board)).answer() == expected
    # A rotation is a transpose then a mirror; check it with an independent backend.
    rotated = mirror(turned, transpose(game, board))
    assert solve_gate("sat", turned, rotated).answer() == expected


@SETTINGS
@given(game_and_board())
def test_answer_invariant_under_colour_swap(gb):
    game, board = gb
    swapped_goal = {"any": "any", "white": "black", "black": "white"}[game.goal]
    swapped = Game(game.rows, game.cols, swapped_goal, game.wrap)
    a = solve_gate("gauss", game, board).answer()
    assert BACKENDS["bfs" if game.n <= 24 else "cpsat"].solve(swapped, board ^ game.full).answer() == a

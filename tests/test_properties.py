"""Property-based tests (hypothesis): random rules and boards up to 5x5."""

from __future__ import annotations

import pytest
from conftest import missing_program, solve_gate
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgame import BACKENDS, Game, PressSystem, RefusedError, solve
from flipgame.model.rules import from_edges
from flipgame.verify.checks.certificates import check_certificate
from flipgame.verify.checks.referee import check_impossible
from flipgame.verify.checks.witness import check_solution


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
@pytest.mark.needs("pycryptosat")
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
@pytest.mark.needs("pycryptosat")
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


@st.composite
def press_system_and_board(draw):
    """A random press system (a graph game over two states, a button list over Z_k for k in
    {2, 3, 4, 6}, or counters) with a board and a goal every backend can be asked about."""
    kind = draw(st.sampled_from(["graph", "zk", "counters"]))
    cells = draw(st.integers(1, 6))
    if kind == "graph":
        pairs = draw(st.lists(st.tuples(st.integers(0, cells - 1), st.integers(0, cells - 1)), max_size=8))
        system = from_edges(cells, [p for p in pairs if p[0] != p[1]], goal=draw(st.sampled_from(["any", "white"])))
        return system, draw(st.integers(0, system.full))
    buttons = draw(st.lists(st.lists(st.integers(0, cells - 1), min_size=1, max_size=cells), min_size=1, max_size=5))
    if kind == "zk":
        k = draw(st.sampled_from([2, 3, 4, 6]))
        amounts = [[draw(st.integers(1, k - 1)) for _ in b] for b in buttons]
        system = PressSystem(cells, [list(zip(b, a, strict=True)) for b, a in zip(buttons, amounts, strict=True)],
                             k, draw(st.sampled_from(["any", "0"])))
        board = tuple(draw(st.integers(0, k - 1)) for _ in range(cells))
        return system, system.board_of(board)
    system = PressSystem(cells, [[(c, 1) for c in b] for b in buttons], None, "board",
                         tuple(draw(st.integers(0, 6)) for _ in range(cells)))
    return system, tuple(draw(st.integers(0, 2)) for _ in range(cells))


@SETTINGS
@given(press_system_and_board())
@pytest.mark.needs("distributed", "dratify")
def test_every_backend_that_takes_a_press_system_agrees(sb):
    """Every registered backend (external: cadical, where installed) is asked; each that takes the system
    answers it, its witness re-applied by the model, and all answers are equal."""
    system, board = sb
    got = {}
    for name in BACKENDS:
        if missing_program(name):
            continue
        try:
            timed = any(o.name == "time_limit" for o in BACKENDS[name].options)
            s = solve(board, name, game=system, **({"time_limit": 30.0} if timed else {}))
        except RefusedError:
            continue
        assert check_solution(system, board, s) is None and check_impossible(system, board, s) is None, (name, s)
        got[name] = s.answer()
    assert len(got) >= 2 and len(set(got.values())) == 1, got
    assert {"cpsat", "ilp", "auto"} <= set(got), got  # these take every kind drawn
    if system.binary:
        assert {"gauss", "sat", "maxsat", "pb", "mip"} <= set(got), got
        assert "external" in got or missing_program("external"), got

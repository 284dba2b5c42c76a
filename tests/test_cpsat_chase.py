"""CP-SAT at judge sizes: the chase formulation (first row decides, other presses XORs of it)."""

from __future__ import annotations

import random

import pytest

from flipgame import Board, Game, solve
from flipgame.encode.chase import chase_forms
from flipgame.model.puzzles import B18
from flipgame.verify.checks.witness import check_solution


def test_chase_forms_of_a_1x1_board_say_press_iff_black():
    forms, last = chase_forms(Game(1, 1, "white"), 1)
    assert forms == [1] and last == [0b101]  # x0 XOR 1 = 0: press 0 must be 1


def test_default_cpsat_answers_the_18x18_unique_solution_board():
    g, b = Game(18, 18, "black"), Board.from_rows(B18).cells
    s = solve(b, "cpsat", game=g, time_limit=60)  # about 1 s idle; the limit only guards a hang
    assert s.moves == 176 and s.stats["formulation"] == "chase" and check_solution(g, b, s) is None


@pytest.mark.parametrize("n, answer", [(20, "192"), (30, "Impossible")])
def test_default_cpsat_answers_random_boards_goal_white(n, answer):
    random.seed(n)
    b, g = random.getrandbits(n * n), Game(n, n, "white")
    assert solve(b, "cpsat", game=g, time_limit=60).answer() == answer == solve(b, "gauss", game=g).answer()


@pytest.mark.parametrize("goal", ["any", "white", "black"])
def test_chase_agrees_with_gauss_on_9x10_boards(goal):
    g = Game(9, 10, goal)
    rng = random.Random(7)
    for _ in range(10):
        b = rng.getrandbits(90) if rng.random() < 0.5 else g.apply(0, rng.getrandbits(90))
        s = solve(b, "cpsat", game=g, formulation="chase")
        assert s.answer() == solve(b, "gauss", game=g).answer() and check_solution(g, b, s) is None


def test_chase_is_refused_with_wrap():
    from flipgame.core.errors import RulesError

    with pytest.raises(RulesError, match="plus neighbourhood without wrap"):
        solve(0, "cpsat", game=Game(3, 3, "white", wrap=True), formulation="chase")

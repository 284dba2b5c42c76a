"""Boards written as people write them: rows of 0/1 or upper case on a grid, and a first board of another size
answered with the --size that reads it."""

from __future__ import annotations

import pytest
from conftest import POJ_SAMPLE, flipgame

from flipgame import Board


def test_a_first_board_of_another_size_names_the_size_that_reads_it():
    r = flipgame("solve", stdin="bbbbb\n" * 5)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.endswith("the input's first board is 5 rows of 5 cells: --size 5x5 reads it\n")
    assert flipgame("solve", "--size", "5x5", "--goal", "white", stdin="bbbbb\n" * 5).stdout == "15\n"  # it works
    r = flipgame("solve", stdin="bbbbbb\n" * 3 + "\n")
    assert r.stderr.endswith("--size 3x6 reads it\n")
    assert flipgame("solve", "--size", "3x6", stdin="bbbbbb\n" * 3).returncode == 0


@pytest.mark.parametrize(("text", "tail"), [("bwwbb\nbbwb\nbwwb\nbwww\n", "then 4 cells on line 2"),
                                            ("bwwbb\nbbwbb\nbwwb\nbwwwb\n", "then 4 cells on line 3")])
def test_rows_of_another_width_then_the_expected_width_get_no_size(text, tail):
    """One long row of a 4x4 board was offered --size 1x5, which fails on the next line (a new user's finding)."""
    r = flipgame("solve", stdin=text)
    assert r.returncode == 2 and r.stderr.endswith(f"got 5 cells in 'bwwbb'; {tail}: the rows differ in width\n")


def test_one_line_of_a_whole_board_is_told_the_board_takes_a_line_per_row():
    """A new user's 4x4 board on one line, spaced or not, was offered only --size 1x16 (another game)."""
    for text in ("b w w b b b w b b w w b b w w w\n", "bwwbbbwbbwwbbwww\n"):
        r = flipgame("solve", stdin=text)
        assert r.returncode == 2 and r.stderr.endswith(
            "got 16 cells in '" + text.strip() + "'; a 4x4 board takes 4 lines of 4 cells "
            "(or --size 1x16 reads this line as one row)\n")
    assert flipgame("solve", "--size", "1x16", stdin="bwwbbbwbbwwbbwww\n").stdout == "7\n"


@pytest.mark.parametrize(("text", "size", "answer"), [("bwwbbbwbbwwbbwwwbwwb\n", "1x20", "Impossible\n"),
                                                      ("bwwbb\nbbwbb\n", "2x5", "3\n")])
def test_the_size_hint_counts_the_rows_it_saw_and_reads_the_input(text, size, answer):
    r = flipgame("solve", stdin=text)  # the rows are counted, never guessed square
    rows, cols = size.split("x")
    assert r.stderr.endswith(f"is {rows} row{'s' * (rows != '1')} of {cols} cells: --size {size} reads it\n")
    assert flipgame("solve", "--size", size, stdin=text).stdout == answer


def test_digit_rows_and_upper_case_are_two_state_cells_on_a_grid():
    assert flipgame("solve", "--size", "5x5", "--goal", "0", stdin="11111\n" * 5).stdout == "15\n"
    upper = "".join(row.upper() + "\n" for row in POJ_SAMPLE)
    digits = "".join(row.replace("b", "1").replace("w", "0") + "\n" for row in POJ_SAMPLE)
    assert flipgame("solve", stdin=upper).stdout == flipgame("solve", stdin=digits).stdout == "4\n"
    assert Board.from_rows(["1001", "BWWB"]).cells == Board.from_rows(["bwwb", "bwwb"]).cells


def test_a_mixed_up_cell_still_names_what_is_taken():
    r = flipgame("solve", stdin="bwxb\nbbwb\nbwwb\nbwww\n")
    assert r.returncode == 2 and "expected only 'b' or 'w' (or 1 and 0), got 'x'" in r.stderr


def test_a_numpy_grid_of_the_rules_shape_is_a_board():
    import numpy as np

    from flipgame import Game, solve

    rows = np.array([[1, 0, 0, 1], [1, 1, 0, 1], [1, 0, 0, 1], [1, 0, 0, 0]])
    assert solve(rows, game=Game(4, 4)).moves == 4  # the POJ 1753 sample
    assert solve(np.array(6585), game=Game(4, 4)).moves == 4  # a 0-d array holds the bitmask


def test_a_numpy_board_of_another_shape_is_refused_on_one_line():
    import numpy as np
    import pytest

    from flipgame import Game, solve
    from flipgame.core.errors import RulesError

    with pytest.raises(RulesError) as err:
        solve(np.zeros((3, 3), dtype=int), game=Game(4, 4))
    assert "\n" not in str(err.value) and "got array([[0, 0, 0], [0, 0, 0]" in str(err.value)


def test_a_tiny_memory_budget_is_not_printed_as_zero():
    import pytest

    from flipgame import solve
    from flipgame.core.errors import MemoryBudgetError

    with pytest.raises(MemoryBudgetError, match=r"over the 1\.02e-06 MiB budget"):
        solve(["bwww"] * 4, "cpsat", memory_limit=1e-9)


def test_goal_names_in_capitals_and_the_american_neighborhood_are_taken():
    board = "bwwb\nbbwb\nbwwb\nbwww\n"
    plain = flipgame("solve", "--goal", "white", "--neighbourhood", "king", "--presses", stdin=board)
    capitals = flipgame("solve", "--goal", "White", "--neighborhood", "king", "--presses", stdin=board)
    assert capitals.stdout == plain.stdout
    assert plain.returncode == 0 and plain.stdout.splitlines()[0].isdigit()

"""The board model: bit layout, press masks, apply, the POJ text format."""

from __future__ import annotations

import numpy as np
import pytest

from flipgame import Board, BoardFormatError, Game, read_cases


def test_bit_layout_row_major_black_is_one():
    b = Board.from_rows(["bwww", "wwww", "wwww", "wwwb"])
    assert b.cells == (1 << 0) | (1 << 15)
    assert Board.from_rows(["wbbb", "wwww", "wwww", "wwww"]).cells == 14
    assert str(b) == "bwww\nwwww\nwwww\nwwwb"


def test_press_masks_plus_neighbourhood_4x4():
    g = Game(4, 4)
    assert g.press_masks[0] == 0b10011  # (0,0): itself, right, below
    assert g.press_masks[5] == (1 << 5) | (1 << 1) | (1 << 9) | (1 << 4) | (1 << 6)
    assert [m.bit_count() for m in g.press_masks] == [3, 4, 4, 3, 4, 5, 5, 4, 4, 5, 5, 4, 3, 4, 4, 3]


def test_statement_example_press_first_piece_of_third_row():
    # The POJ statement: bwbw/wwww/bbwb/bwwb, flip row 3 column 1 -> bwbw/bwww/wwwb/wwwb.
    g = Game()
    before = Board.from_rows(["bwbw", "wwww", "bbwb", "bwwb"]).cells
    after = Board.from_rows(["bwbw", "bwww", "wwwb", "wwwb"]).cells
    assert g.apply(before, 1 << 8) == after


def test_toroidal_neighbourhoods():
    g = Game(4, 4, wrap=True)
    assert g.flipped_by(0) == (0, 1, 3, 4, 12)
    # 1 and 2 wide: a press never toggles a cell twice.
    assert Game(1, 2, wrap=True).flipped_by(0) == (0, 1)
    assert Game(1, 1, wrap=True).flipped_by(0) == (0,)
    assert Game(2, 2, wrap=True).flipped_by(0) == (0, 1, 2)


def test_apply_many_matches_apply():
    g = Game(3, 5)
    rng = np.random.default_rng(7)
    boards = rng.integers(0, 1 << 15, 200, dtype=np.uint64)
    presses = rng.integers(0, 1 << 15, 200, dtype=np.uint64)
    got = g.apply_many(boards, presses)
    assert [int(v) for v in got] == [g.apply(int(b), int(p)) for b, p in zip(boards, presses, strict=True)]


def test_targets_by_goal():
    assert Game(goal="any").targets == (0, 0xFFFF)
    assert Game(goal="white").targets == (0,)
    assert Game(goal="black").targets == (0xFFFF,)


@pytest.mark.parametrize("kwargs", [{"rows": 0}, {"cols": -1}, {"goal": "grey"}])
def test_game_rejects_bad_rules(kwargs):
    with pytest.raises(ValueError):
        Game(**kwargs)


def test_read_cases_tolerates_crlf_blank_lines_and_trailing_spaces():
    text = "bwwb  \r\nbbwb\r\n\r\nbwwb\nbwww\n\n\nwwww\nwwww\nwwww\nwwwb"  # no final newline
    boards = list(read_cases(text.splitlines(keepends=True)))
    assert [b.text() for b in boards] == ["bwwb\nbbwb\nbwwb\nbwww", "wwww\nwwww\nwwww\nwwwb"]


def test_read_cases_empty_input_gives_no_case():
    assert list(read_cases([])) == []
    assert list(read_cases(["\n", "  \n"])) == []


@pytest.mark.parametrize(
    "lines, case, line, words",
    [
        (["bwwb", "bbwb", "bww", "bwww"], 1, 3, "got 3 cells in 'bww'"),
        (["bwwb", "bbwb", "bwwbb", "bwww"], 1, 3, "got 5 cells"),
        (["bwwb", "bbwb", "bwxb", "bwww"], 1, 3, "'x'"),
        (["wwww"] * 4 + ["", "bwwb", "bbwb"], 2, 7, "incomplete case"),
    ],
)
def test_read_cases_errors_name_case_and_line(lines, case, line, words):
    with pytest.raises(BoardFormatError) as err:
        list(read_cases(lines))
    assert (err.value.case, err.value.line) == (case, line)
    assert words in str(err.value)
    assert f"case {case}, line {line}" in str(err.value)


def test_read_cases_is_streaming():
    def lines():
        yield from ["wwww"] * 4
        raise AssertionError("read past the first case before yielding it")

    cases = read_cases(lines())
    assert next(cases).cells == 0

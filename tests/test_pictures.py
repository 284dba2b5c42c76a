"""Pictures of puzzles: ``solve --svg`` and ``--steps`` on a grid and on press systems, the SVG parsed."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from conftest import POJ_SAMPLE, POJ_SAMPLE_TEXT

from flipgame import Game, solve
from flipgame.cli import main
from flipgame.formats import svg
from flipgame.model.rules import from_edges

NS = {"s": svg.SVG_NS}


def run(tmp_path, capsys, text: str, *args: str):
    """``flipgame solve FILE *args`` in this process on ``text``: ``(exit code, stdout, stderr)``."""
    cases = tmp_path / "cases.txt"
    cases.write_text(text)
    code = main(["solve", str(cases), *args])
    out, err = capsys.readouterr()
    return code, out, err


def parsed(path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag == f"{{{svg.SVG_NS}}}svg" and float(root.get("width")) > 0
    return root


def elements(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{{{svg.SVG_NS}}}{tag}") if cls in (e.get("class") or "").split()]


def test_solve_svg_draws_a_grid_board_its_presses_and_the_goal(tmp_path, capsys):
    path = tmp_path / "poj.svg"
    code, out, err = run(tmp_path, capsys, POJ_SAMPLE_TEXT, "--svg", str(path))
    assert (code, out) == (0, "4\n")
    root = parsed(path)
    cells = elements(root, "rect", "cell")
    assert len(cells) == 2 * 16  # the board, and the goal reached
    presses = elements(root, "circle", "press")
    assert len(presses) == 4  # the sample's 4 presses: (0,0), (1,1), (1,3), (2,0)
    centres = {(float(c.get("cx")), float(c.get("cy"))) for c in presses}
    first = [(float(c.get("x")), float(c.get("y"))) for c in cells[:16]]
    half = svg.CELL_PX / 2
    assert centres == {(first[i][0] + half, first[i][1] + half) for i in (0, 5, 7, 8)}
    fills = [c.get("fill") for c in cells]
    board = [c == "b" for c in "".join(POJ_SAMPLE)]
    assert fills[:16] == ["#1e1e1e" if b else "#ffffff" for b in board]
    assert set(fills[16:]) == {"#ffffff"}  # the goal reached: all white
    title = root.find("s:title", NS).text
    assert title == "case 1: 4x4 plus, goal any; answer 4"


def test_steps_print_the_boards_press_by_press_and_draw_them_in_sequence(tmp_path, capsys):
    path = tmp_path / "steps.svg"
    code, out, err = run(tmp_path, capsys, POJ_SAMPLE_TEXT, "--steps", "--svg", str(path))
    lines = out.splitlines()
    assert lines[:6] == ["4", "step 0: start", *POJ_SAMPLE]
    assert lines[6] == "step 1: press (0, 0)" and lines[-5:] == ["step 4: press (2, 0)"] + ["wwww"] * 4
    root = parsed(path)
    assert len(elements(root, "g", "panel")) == 5 and len(elements(root, "rect", "cell")) == 5 * 16
    assert len(elements(root, "circle", "press")) == 4  # one press marked on each board after the start


def test_solve_svg_draws_a_press_system_as_a_graph(tmp_path, capsys):
    rules = tmp_path / "g.edges"
    rules.write_text("0 1\n1 2\n2 3\n3 0\n0 2\n3 4\n4 5\n5 6\n6 4\n")
    path = tmp_path / "g.svg"
    code, out, err = run(tmp_path, capsys, "0000000\n", "--rules", str(rules), "--goal", "black", "--svg", str(path))
    assert (code, out) == (0, "2\n")
    root = parsed(path)
    assert len(elements(root, "circle", "cell")) == 2 * 7
    assert len(elements(root, "line", "edge")) == 2 * 2 * 9  # each edge from both of its ends, on both panels
    assert len(elements(root, "circle", "press")) == 2
    assert not elements(root, "rect", "button")  # a graph game: presses on the vertices
    numbers = [t.text for t in elements(root, "text", "cell-label")]
    assert numbers == [str(i) for i in range(7)] * 2  # each vertex numbered, as the steps name the buttons


def test_counters_draw_their_buttons_and_press_counts(tmp_path, capsys):
    path = tmp_path / "aoc.svg"
    code, out, err = run(tmp_path, capsys, "[.##.] (3) (1,3) (2) (2,3) (0,2) (0,1) {3,5,4,7}\n",
                         "--format", "aoc2025-10", "--part", "2", "--svg", str(path))
    assert out.splitlines()[0] == "10"
    root = parsed(path)
    assert len(elements(root, "rect", "button")) == 2 * 6 and len(elements(root, "circle", "cell")) == 2 * 4
    values = [t.text for t in elements(root, "text", "value")]
    assert values == ["0"] * 4 + ["3", "5", "4", "7"]  # the board (all zero), then the goal reached
    buttons = elements(root, "rect", "button")[:6]  # the first panel's
    labels = [t.text for t in elements(root, "text", "button-label")][:6]
    counts = [int(t.split("\u00d7")[1]) if "\u00d7" in t else int("press" in b.get("class"))
              for t, b in zip(labels, buttons, strict=True)]
    assert sum(counts) == 10 and all(c == 0 or "press" in b.get("class") for c, b in zip(counts, buttons, strict=True))


def test_several_cases_go_to_numbered_files_and_impossible_is_drawn(tmp_path, capsys):
    path = tmp_path / "case.svg"
    code, out, err = run(tmp_path, capsys, POJ_SAMPLE_TEXT + "wbbb\nwwww\nwwww\nwwww\n", "--svg", str(path))
    assert out == "4\nImpossible\n"
    assert parsed(path) is not None
    root = parsed(tmp_path / "case-2.svg")
    assert "Impossible" in root.find("s:title", NS).text and not elements(root, "circle", "press")
    assert len(elements(root, "rect", "cell")) == 16
    assert svg.case_path("out/{case}.svg", 7) == "out/7.svg"


def test_k_state_grid_and_the_limits():
    game = Game(5, 5, "0", states=3)
    board = (1,) * 25
    s = solve(board, "gauss", game=game)
    text = svg.picture(game, game.board_of(board), s.presses, s.target)
    root = ET.fromstring(text.split("?>", 1)[1])
    badges = [t.text for t in root.iter(f"{{{svg.SVG_NS}}}text") if t.get("class") == "count"]
    assert badges == ["2"] * 5  # the five cells pressed twice carry a badge (13 presses of 18 once)
    big = from_edges(401, [(i, i + 1) for i in range(400)], closed=True, goal="white")
    with pytest.raises(ValueError, match="at most 400 cells"):
        svg.picture(big, 0, 0, 0)
    assert svg.layout(from_edges(5, [(0, 1), (1, 2)], closed=True, goal="white")).shape == (5, 2)


def test_svg_refuses_an_unwritable_path_up_front(tmp_path, capsys):
    code, out, err = run(tmp_path, capsys, POJ_SAMPLE_TEXT, "--svg", str(tmp_path / "no" / "such" / "dir.svg"))
    assert code == 2 and "--svg" in err and "does not exist" in err and out == ""


def test_svg_refuses_a_grid_too_large_to_draw_before_solving(tmp_path, capsys):
    """The 10,000-cell cap was met only after the board was solved (a 200x200 board solved, then refused)."""
    board = "\n".join(["w" * 200] * 200) + "\n"
    code, out, err = run(tmp_path, capsys, board, "--size", "200x200", "--svg", str(tmp_path / "big.svg"))
    assert (code, out) == (2, "") and err.strip() == ("flipgame: --svg: a picture takes at most 10,000 cells "
                                                      "(a grid); this one has 40,000")
    assert not list(tmp_path.glob("*.svg"))

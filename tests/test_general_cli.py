"""The general game from the command line: --states, --rules, --goal D, poj1830, aoc2025-10, verify, study,
through the same commands, flags and report as the grid game."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import missing_program
from test_general import AOC_EXAMPLE, POJ1830_SAMPLE

from flipgame import BACKENDS
from flipgame.backends.strategies import BUILTIN
from flipgame.cli import ExitCode, main

MERLIN = Path(__file__).resolve().parent.parent / "examples" / "merlin.json"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """Every test runs in its own folder: verify writes its report (default flipgame-verify.json) there."""
    monkeypatch.chdir(tmp_path)


def _run(argv, stdin_text, capsys, monkeypatch):
    """``flipgame argv`` in this process, standard input a real file holding ``stdin_text``."""
    path = Path("stdin.txt")
    path.write_text(stdin_text)
    with path.open() as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("backend", ["gauss", "cpsat", "ilp", "auto"])
def test_lights_out_2000_cli(backend, tmp_path, capsys, monkeypatch):
    boards = tmp_path / "lo.txt"
    boards.write_text("11111\n" * 5 + "\n" + "22222\n" * 5)
    code, out, _ = _run(["solve", "--states", "3", "--goal", "0", "--size", "5x5", "--backend", backend,
                         str(boards)], "", capsys, monkeypatch)
    assert code == 0 and out.split() == ["18", "21"]


@pytest.mark.parametrize(("backend", "message"), [
    ("bfs", "bfs: 3^25 states are over its 1,073,741,824-state table; taken by: gauss, cpsat, ilp, auto"),
    ("sat", "sat models two states only, not 3 states (Z_3); taken by: gauss, cpsat, ilp, auto"),
])
def test_refusals_name_who_takes_it(backend, message, capsys, monkeypatch):
    # Lights Out 2000 (5x5 mod 3): the hint is computed, so it names gauss, cpsat and ilp, and not bfs
    code, out, err = _run(["solve", "--states", "3", "--goal", "0", "--size", "5x5", "--backend", backend],
                          "11111\n" * 5, capsys, monkeypatch)
    assert (code, out, err) == (5, "", f"flipgame: {message}\n")


@pytest.mark.parametrize(("backend", "message"), [
    ("sat", "sat models two states only, not counters (integer programs); taken by: bfs, cpsat, ilp, auto"),
    ("gauss", "gauss models two states and k states (Z_k) only, not counters (integer programs); taken by: bfs, "
              "cpsat, ilp, auto"),
])
def test_aoc_part2_refusals_do_not_name_gauss(backend, message, tmp_path, capsys, monkeypatch):
    path = tmp_path / "aoc.txt"
    path.write_text(AOC_EXAMPLE)
    code, out, err = _run(["solve", "--format", "aoc2025-10", "--part", "2", "--backend", backend, str(path)], "",
                          capsys, monkeypatch)
    assert (code, out, err) == (5, "", f"flipgame: {path}: case 1: {message}\n")


def test_aoc_part2_without_a_backend_takes_one_that_models_counters(tmp_path, capsys, monkeypatch):
    path = tmp_path / "aoc.txt"
    path.write_text(AOC_EXAMPLE)
    code, out, err = _run(["solve", "--format", "aoc2025-10", "--part", "2", str(path)], "", capsys, monkeypatch)
    assert (code, out, err) == (0, "10\n12\n11\ntotal 33\n", "")


def test_poj1830_cli(capsys, monkeypatch):
    code, out, _ = _run(["solve", "--format", "poj1830"], POJ1830_SAMPLE, capsys, monkeypatch)
    assert code == 0 and out == "4\nOh,it's impossible~!!\n"


def test_poj1830_refuses_a_backend_that_cannot_count(capsys, monkeypatch):
    code, out, err = _run(["solve", "--format", "poj1830", "--backend", "cpsat"], POJ1830_SAMPLE, capsys,
                          monkeypatch)
    assert (code, out) == (5, "") and err.count("\n") == 1 and "which gauss gives; use --backend gauss" in err


def test_poj1830_explain_says_how_its_cells_are_numbered(capsys, monkeypatch):
    """POJ 1830 numbers switches from 1; the certificate's 'cells 0 1' (switches 1 and 2) did not say it
    counted from 0, as the buttons line does."""
    code, out, _ = _run(["solve", "--format", "poj1830", "--explain"], POJ1830_SAMPLE, capsys, monkeypatch)
    assert code == 0 and out.splitlines()[-1] == "cells (numbered from 0): 0 1"
    assert out.splitlines()[1] == "buttons pressed (numbered from 0 in the rules' order): 0"


@pytest.mark.parametrize("backend", ["cpsat", "ilp", "bfs"])
def test_aoc_cli_both_parts(backend, tmp_path, capsys, monkeypatch):
    path = tmp_path / "aoc.txt"
    path.write_text(AOC_EXAMPLE)
    code, out, _ = _run(["solve", "--format", "aoc2025-10", "--backend", backend, str(path)], "", capsys,
                        monkeypatch)
    assert code == 0 and out == "2\n3\n2\ntotal 7\n"
    code, out, _ = _run(["solve", "--format", "aoc2025-10", "--part", "2", "--backend", backend, str(path)], "",
                        capsys, monkeypatch)
    assert code == 0 and out == "10\n12\n11\ntotal 33\n"


def test_merlin_cli(tmp_path, capsys, monkeypatch):
    ring = tmp_path / "ring.txt"
    ring.write_text("111\n101\n111\n")
    code, out, _ = _run(["solve", "--rules", str(MERLIN), "--target", str(ring)], "000\n000\n000\n\nbww\nwww\nwww\n",
                        capsys, monkeypatch)
    assert code == 0 and out.split() == ["8", "4"]


@pytest.mark.needs("dratify")
def test_merlin_certify_prints_a_checked_certificate(tmp_path, capsys, monkeypatch):
    ring = tmp_path / "ring.txt"
    ring.write_text("111\n101\n111\n")
    code, out, _ = _run(["solve", "--rules", str(MERLIN), "--target", str(ring), "--certify"], "000\n000\n000\n",
                        capsys, monkeypatch)
    lines = out.splitlines()
    assert code == 0 and lines[0] == "8"
    assert lines[1].startswith("certified: no press set of at most 7 presses reaches the target board (1 DRAT proof")
    assert lines[1].endswith("s)") and "checked by dratify" in lines[1]


def test_presses_name_the_buttons_on_a_press_system(capsys, monkeypatch):
    code, out, _ = _run(["solve", "--rules", str(MERLIN), "--goal", "black", "--presses", "--count"],
                        "www\nwww\nwww\n", capsys, monkeypatch)
    assert code == 0 and out == ("5\nbuttons pressed (numbered from 0 in the rules' order): 0, 2, 4, 6, "
                                 "8\nsolutions 1\n")


@pytest.mark.parametrize(("args", "stdin", "answer"), [
    (["--backend", "bfs"], "bwwb\nbbwb\nbwwb\nbwww\n", "4\nsolutions 32\n"),  # 4x4 plus: nullity 4, both goals
    (["--backend", "cpsat", "--states", "3", "--goal", "0", "--size", "3x3"], "102\n000\n000\n",
     "6\nsolutions 1\n"),
])
def test_count_comes_from_the_elimination_beside_a_backend_that_does_not_count(args, stdin, answer, capsys,
                                                                               monkeypatch):
    code, out, _ = _run(["solve", "--count", *args], stdin, capsys, monkeypatch)
    assert (code, out) == (0, answer)


def test_impossible_explained_with_certificate(capsys, monkeypatch):
    # 4x4 plus over Z_4: this board is not solvable to all 0; the weights are printed as rows
    code, out, _ = _run(["solve", "--states", "4", "--goal", "0", "--explain"], "1000\n0000\n0000\n0000\n",
                        capsys, monkeypatch)
    assert code == 0 and out == ("Impossible\ncertificate for all 0: every button adds 0 (mod 4) to the sum of the "
                                 "cells weighted as below, but reaching that goal changes it by 2:\n"
                                 "2020\n2022\n0020\n2200\n")


def test_explain_z3_prints_a_certificate_per_goal(capsys, monkeypatch):
    code, out, _ = _run(["solve", "--states", "3", "--size", "2x3", "--explain"], "100\n000\n", capsys,
                        monkeypatch)
    why = ("every button adds 0 (mod 3) to the sum of the cells weighted as below, but reaching that goal changes it "
           "by 2:")
    assert code == 0 and out == "Impossible\n" + "".join(f"certificate for all {d}: {why}\n102\n201\n" for d in "012")


def test_study_3x3_mod3(capsys, monkeypatch):
    code, out, _ = _run(["study", "--states", "3", "--size", "3x3", "--goal", "0"], "", capsys, monkeypatch)
    lines = out.splitlines()
    assert code == 0 and lines[:5] == [
        "Rules: 3x3 plus, Z_3, goal 0", "Press matrix: 9 x 9 over Z_3, rank 9, nullity 0 (a kernel of 1 press vector)",
        "Solvable boards: 19683 of 19683 (100.0000%)",
        "Quiet patterns: none (every board has exactly one press set per goal)",
        "Minimum presses over all solvable boards (exhaustive, from the bfs distance table):"]
    assert "    9: 3139" in lines and "   18: 1" in lines and lines[-1] == "Largest minimum: 18"


def test_study_times_backends_on_a_k_state_system_as_on_a_grid(capsys, monkeypatch):
    """One study for every press system: --backends and --json over Z_4 as over two states."""
    code, out, err = _run(["study", "--states", "4", "--size", "3x3", "--goal", "0", "--backends", "gauss,bfs",
                           "--sample", "5", "--json"], "", capsys, monkeypatch)
    st = json.loads(out)
    assert code == 0 and (st["rank"], st["nullity"], st["kernel_size"]) == (9, 0, 1)
    assert (st["solvable_boards"], st["total_boards"], sum(st["distribution"])) == (4**9, 4**9, 4**9)
    assert set(st["backend_seconds_per_board"]) == {"gauss", "bfs"} and st["sample_boards"] == 5


@pytest.mark.slow
def test_verify_z4_gauss_bfs_every_3x3_board(capsys, monkeypatch):
    code, out, _ = _run(["verify", "--states", "4", "--size", "3x3", "--backends", "gauss,bfs"], "", capsys,
                        monkeypatch)
    assert code == 0 and "262144 boards, 2 backends: 0 disagreements, 0 witness failures" in out


def test_judge_formats_refuse_rule_options(capsys, monkeypatch):
    code, _, err = _run(["solve", "--format", "poj1830", "--states", "3"], "", capsys, monkeypatch)
    assert code == 2 and "drop" in err
    code, _, err = _run(["solve", "--part", "2"], "", capsys, monkeypatch)
    assert code == 2 and "--part needs --format aoc2025-10" in err


def test_verify_writes_the_one_report(capsys, monkeypatch):
    # every 2x3 board mod 3, goal any: 243 solvable, 486 Impossible (each certificate checked)
    code, out, _ = _run(["verify", "--states", "3", "--size", "2x3", "--backends", "gauss,bfs"], "", capsys,
                        monkeypatch)
    assert code == 0 and "729 boards, 2 backends: 0 disagreements, 0 witness failures" in out
    data = json.loads(Path("flipgame-verify.json").read_text())
    assert data["game"]["states"] == 3 and (data["boards"], data["completed"], data["ok"]) == (729, True, True)
    assert [(b["backend"], b["boards"], b["solvable"], b["impossible"], b["unknown"], b["disagreements"],
             b["witness_failures"]) for b in data["backends"]] == [("gauss", 729, 243, 486, 0, 0, 0),
                                                                    ("bfs", 729, 243, 486, 0, 0, 0)]
    assert data["disagreements"] == [] and data["witness_failures"] == []


def test_verify_sample_with_highs(tmp_path, capsys, monkeypatch):
    report = tmp_path / "h.json"
    code, out, _ = _run(["verify", "--states", "3", "--size", "2x3", "--backends", "gauss,ilp", "--mip-solver",
                         "HIGHS", "--sample", "100", "--seed", "1", "--report", str(report)], "", capsys,
                        monkeypatch)
    assert code == 0 and "100 boards, 2 backends: 0 disagreements" in out
    gauss, highs = json.loads(report.read_text())["backends"]
    assert highs["boards"] == 100 and (highs["solvable"], highs["impossible"]) == (gauss["solvable"],
                                                                                   gauss["impossible"])


@pytest.mark.needs("dratify", "pycryptosat")
def test_verify_default_backends_name_the_one_they_skip(tmp_path, capsys, monkeypatch):
    code, out, err = _run(["verify", "--states", "3", "--size", "2x2", "--sample", "20",
                           "--report", str(tmp_path / "r.json")], "", capsys, monkeypatch)
    assert code == 0 and "flipgame: skipping sat: sat models two states only, not 3 states (Z_3)\n" in err
    assert [b["backend"] for b in json.loads((tmp_path / "r.json").read_text())["backends"]] == \
        ["gauss", "bfs", "cpsat", "ilp"]


def test_verify_runs_bfs_unnamed_up_to_28_cells_and_named_beyond(tmp_path, capsys, monkeypatch):
    """A new user's verify at 30 cells: bfs answered 300 Unknown after a minute (its table of 2**30 states)."""
    report = tmp_path / "r.json"
    code, _, err = _run(["verify", "--size", "6x5", "--sample", "2", "--backends", "gauss,cpsat", "--report",
                         str(report)], "", capsys, monkeypatch)
    assert code == 0 and "skipping bfs" not in err  # a list given: nothing is skipped
    code, _, err = _run(["verify", "--size", "6x5", "--sample", "2", "--report", str(report)], "", capsys, monkeypatch)
    assert code == 0 and ("flipgame: skipping bfs: it runs unnamed up to 28 cells (its table of every state doubles "
                          "with each cell: 45 s at 30); name it in --backends to run it\n") in err
    assert "bfs" not in [b["backend"] for b in json.loads(report.read_text())["backends"]]
    code, _, err = _run(["verify", "--size", "2x13", "--sample", "2", "--report", str(report)], "", capsys, monkeypatch)
    assert code == 0 and "bfs" in [b["backend"] for b in json.loads(report.read_text())["backends"]]


@pytest.mark.parametrize(("argv", "words"), [
    (["solve", "--canonical"], "the canonical press set is for two-state games"),
    (["solve", "--certify"], "--certify proves two-state minima"),
])
@pytest.mark.needs("dratify")
def test_what_the_maths_does_not_allow_is_one_line(argv, words, capsys, monkeypatch):
    code, out, err = _run([*argv, "--states", "3", "--size", "2x2"], "00\n00\n", capsys, monkeypatch)
    assert (code, out) == (2, "") and err.count("\n") == 1 and words in err


def test_verify_strategies_on_a_press_system(tmp_path, capsys, monkeypatch):
    code, out, _ = _run(["verify", "--states", "3", "--size", "2x2", "--strategies", "gauss,cpsat-linear,ilp-highs",
                         "--report", str(tmp_path / "r.json")], "", capsys, monkeypatch)
    assert code == 0 and "81 boards, 3 backends: 0 disagreements, 0 witness failures" in out


@pytest.mark.parametrize(("value", "message"), [("1", "2..255"), ("256", "2..255")])
def test_states_out_of_range(value, message, capsys, monkeypatch):
    with pytest.raises(SystemExit) as exc:
        _run(["solve", "--states", value], "", capsys, monkeypatch)
    _, err = capsys.readouterr()
    assert exc.value.code == 2 and err == (f"flipgame solve: argument --states: expected a number of states {message} "
                                           f"or 'counters', got '{value}' (see flipgame solve --help)\n")


@pytest.mark.parametrize(("rules", "message"), [
    ('{"grid": "3x3", "buttons": [[0, 1], [9]]}', "button 1 names cell 9; cells are 0..8"),
    ('{"grid": "3x3", "buttons": [[0]], "colour": 1}',
     'unknown key "colour" in the press-system file (keys: grid, cells, states, buttons, amounts, edges, '
     'neighbourhood, directed, goal, target, comment)'),
    ("0 1\n0 1 2\n", "edge list line 2: expected 'u v', 'cells N', 'closed' or 'open' (0-based vertex numbers), "
                     "got '0 1 2'"),
    # keys that were ignored unseen: each is refused, naming what it needs
    ('{"cells": 2, "edges": [[0, 1]], "amounts": [[1, 1]]}',
     '"amounts" applies to "buttons", which the press-system file does not give'),
    ('{"cells": 2, "buttons": [[0, 1]], "directed": true}',
     '"directed" applies to "edges", which the press-system file does not give'),
    ('{"cells": 2, "buttons": [[0, 1]], "target": [1, 1]}',
     '"target" is the goal board of "goal": "board"; give both or neither'),
    ('{"cells": 2, "buttons": [[0, 1]], "cells": 3}', "press-system file gives the key \"cells\" twice"),
    # a grid's rules: a JSON value of the wrong type is named as written (wrap 1 was read as no wrap)
    ('{"rows": 3, "cols": 3, "wrap": 1}', '"wrap" must be true or false, got 1'),
    ('{"rows": true, "cols": 3}', '"rows" must be a positive integer, got true'),
    ('{"rows": 3, "cols": 3, "neighbourhood": [true, 1]}', '"neighbourhood" must be a string, got [true, 1]'),
    ('{"rows": 3, "cols": 3, "neighbourhood": "stencil", "stencil": [[0, 0], [1.5, 0]]}',
     '"stencil" must be a list of [row, col] offsets (integers), got [[0, 0], [1.5, 0]]'),
    ('[{"cells": 2, "buttons": [[0, 1]]}]', "a press-system file is a JSON object"),
])
def test_bad_rules_file(rules, message, tmp_path, capsys, monkeypatch):
    path = tmp_path / "rules.txt"
    path.write_text(rules)
    code, out, err = _run(["solve", "--rules", str(path)], "", capsys, monkeypatch)
    assert (code, out, err) == (2, "", f"flipgame: --rules {path}: {message}\n")


@pytest.mark.parametrize(("argv", "stdin", "code", "message"), [
    (["--states", "counters", "--goal", "any"], "", 2,
     "counters need a target board or a value D (--goal D), not 'any'"),
    (["--states", "3", "--size", "3x3", "--goal", "0"], "000\n013\n000\n", 2,
     "standard input: case 1, line 2: state 3 is not below 3 (states 0..2) in '013'"),
])
def test_board_and_goal_errors(argv, stdin, code, message, capsys, monkeypatch):
    assert _run(["solve", *argv], stdin, capsys, monkeypatch) == (code, "", f"flipgame: {message}\n")


def test_counters_over_the_bfs_box_are_refused_naming_who_takes_them(capsys, monkeypatch):
    code, out, err = _run(["solve", "--states", "counters", "--size", "3x3", "--goal", "200", "--backend", "bfs"],
                          "0 0 0\n" * 3, capsys, monkeypatch)
    assert (code, out) == (5, "")
    assert err == ("flipgame: standard input: case 1: bfs: the counter box has 535,506,216,522,273,441,801 states, "
                   "over its 268,435,456-state table; taken by: cpsat, ilp, auto\n")


def test_verify_refuses_counters(capsys, monkeypatch):
    code, out, err = _run(["verify", "--states", "counters", "--goal", "1", "--size", "2x2"], "", capsys,
                          monkeypatch)
    assert (code, out) == (2, "") and err == ("flipgame: verify enumerates boards, and counters have no finite board "
                                              "set; flipgame solve answers them (auto, cpsat, ilp, bfs)\n")


def test_verify_z3_2x3_every_default_backend(capsys, monkeypatch):
    code, out, _ = _run(["verify", "--states", "3", "--size", "2x3"], "", capsys, monkeypatch)
    assert code == 0 and "729 boards, 4 backends: 0 disagreements, 0 witness failures" in out


def test_json_counters_with_amounts_and_target(tmp_path, capsys, monkeypatch):
    rules = tmp_path / "c.json"  # button 0 adds 2 to cell 0; button 1 adds 1 to both cells
    rules.write_text('{"cells": 2, "states": "counters", "buttons": [[0], [0, 1]], "amounts": [[2], [1, 1]]}')
    target = tmp_path / "t.txt"
    target.write_text("7 3\n")
    for backend in ("cpsat", "ilp", "bfs"):
        code, out, _ = _run(["solve", "--rules", str(rules), "--target", str(target), "--backend", backend,
                             "--presses"], "0 0\n0 1\n", capsys, monkeypatch)
        # 0 0 -> 7 3: button 1 three times, button 0 twice.  0 1 -> 7 3: button 1 twice leaves an odd gap of 5
        assert code == 0 and out == ("5\nbuttons pressed (numbered from 0 in the rules' order): 0 (x2), 1 (x3)\n"
                                     "Impossible\n")


def test_edge_list_rules(tmp_path, capsys, monkeypatch):
    rules = tmp_path / "path.txt"
    rules.write_text("# a path 0-1-2, closed neighbourhood\n0 1\n1 2\n")
    code, out, _ = _run(["solve", "--rules", str(rules), "--goal", "white", "--backend", "bfs"], "110\n111\n",
                        capsys, monkeypatch)
    assert code == 0 and out.split() == ["1", "1"]


def test_study_of_a_two_state_graph_lists_its_quiet_press_sets(capsys, monkeypatch):
    """The triangle, closed neighbourhoods: every button flips all three cells (rank 1, nullity 2)."""
    Path("tri.json").write_text('{"cells": 3, "edges": [[0, 1], [1, 2], [0, 2]]}')
    code, out, err = _run(["study", "--rules", "tri.json"], "", capsys, monkeypatch)
    assert code == 0 and err == ""
    assert out.splitlines()[:6] == [
        "Rules: 3 cells, 3 buttons, Z_2, goal any", "Press matrix: 3 x 3, rank 1, nullity 2",
        "Solvable boards: 2 of 8 (25.0000%)", "Quiet patterns (a basis of 2; each changes nothing):",
        "  buttons 0 1", "  buttons 0 2"]


@pytest.mark.parametrize("name", ["backend:" + b for b in BACKENDS] + ["strategy:" + s for s in sorted(BUILTIN)])
def test_every_backend_and_strategy_answers_merlin_or_refuses_in_one_line_naming_who_does(name, capsys, monkeypatch):
    """bwb/wbw/bwb needs 4 presses (buttons 1, 3, 5, 7); gauss-chase, for plus grids only, names the dense method."""
    kind, _, what = name.partition(":")
    if missing_program(what):
        pytest.skip(f"{missing_program(what)} is not installed")
    code, out, err = _run(["solve", "--rules", str(MERLIN), f"--{kind}", what, "--presses"], "bwb\nwbw\nbwb\n",
                          capsys, monkeypatch)
    if what == "gauss-chase":
        assert (code, out) == (2, "") and err == ("flipgame: light chasing needs the plus neighbourhood without "
                                                  "wrap; use the dense method (--gauss-method dense, or the strategy "
                                                  "gauss)\n")
        return
    assert (code, err) == (0, "") and out == ("4\nbuttons pressed (numbered from 0 in the rules' order): 1, 3, 5, "
                                              "7\n")


@pytest.mark.needs("dratify")
def test_aoc_part1_certify_proves_each_machine_over_all_its_buttons(capsys, monkeypatch):
    """Machine 1 has 4 lights and 6 buttons, machine 3 has 6 lights and 4: the lower-bound CNF has one variable
    per button and one parity row per light (machine 3 crashed the certification, machine 1 left buttons out)."""
    code, out, _ = _run(["solve", "--format", "aoc2025-10", "--certify"], AOC_EXAMPLE, capsys, monkeypatch)
    lines = out.splitlines()
    assert code == 0 and lines[0::2] == ["2", "3", "2", "total 7"]
    bounds = ["at most 1 press ", "at most 2 presses ", "at most 1 press "]
    assert all(line.startswith(f"certified: no press set of {b}reaches the target board (1 DRAT proof by search")
               for line, b in zip(lines[1::2], bounds, strict=True))


def test_a_backend_registered_at_run_time_is_checked_as_a_claim(capsys, monkeypatch):
    """A plug-in backend's valid but larger press set claimed as the minimum: gauss refutes it, the run exits
    DISAGREEMENT and the lie is never printed as an answer."""
    from flipgame.backends import registry
    from flipgame.backends.result import Solution, Status

    gauss = registry.BACKENDS["gauss"]

    class Padded(type(gauss)):
        name = "padded"

        def solve(self, game, board, **options):
            s = super().solve(game, board, **options)
            quiet = 0b1001_1111_1111_1001  # a quiet press set of 4x4: it changes no cell
            assert game.apply(0, quiet) == 0
            return Solution(self.name, Status.OPTIMAL, (s.presses ^ quiet).bit_count(), s.presses ^ quiet, s.target)

    monkeypatch.setitem(registry.BACKENDS, "padded", Padded())
    code, out, err = _run(["solve", "--backend", "padded"], "bwwb\nbbwb\nbwwb\nbwww\n", capsys, monkeypatch)
    assert code == ExitCode.DISAGREEMENT and out == "Error\n"
    assert "padded claims a minimum of 8 presses, but gauss proves a minimum of 4 presses" in err


def test_an_impossible_nothing_can_check_is_noted_once(tmp_path, capsys, monkeypatch):
    rules = tmp_path / "c.json"  # one button adding 1 to both cells: 0 0 -> 1 2 is Impossible
    rules.write_text('{"cells": 2, "states": "counters", "buttons": [[0, 1]], "goal": "board", "target": [1, 2]}')
    code, out, err = _run(["solve", "--rules", str(rules)], "0 0\n0 1\n0 0\n", capsys, monkeypatch)
    assert code == 0 and out == "Impossible\n1\nImpossible\n"
    assert err == ("flipgame: standard input: case 1: Impossible is auto's answer, not checked independently: "
                   "counters have no modular certificate (noted once per run)\n")

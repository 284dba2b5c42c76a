"""The general game from the command line: --states, --rules, --goal D, poj1830, aoc2025-10, verify, study."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
from test_general import AOC_EXAMPLE, POJ1830_SAMPLE

from flipgame.cli import main

MERLIN = Path(__file__).resolve().parent.parent / "examples" / "merlin.json"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """Every test runs in its own folder: verify writes its report (default flipgame-verify.json) there."""
    monkeypatch.chdir(tmp_path)


def _run(argv, stdin_text, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin_text))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("backend", ["gauss", "cpsat", "ilp"])
def test_lights_out_2000_cli(backend, capsys, monkeypatch):
    code, out, _ = _run(["solve", "--states", "3", "--goal", "0", "--size", "5x5", "--backend", backend],
                        "11111\n" * 5 + "\n" + "22222\n" * 5, capsys, monkeypatch)
    assert code == 0 and out.split() == ["18", "21"]


@pytest.mark.parametrize(("backend", "message"), [
    ("bfs", "bfs: 3^25 states are over its 1,073,741,824-state table; gauss, cpsat and ilp take it"),
    ("sat", "sat: only two-state games have a sat model, not 3 states; gauss, cpsat and ilp take it"),
])
def test_refusals_name_who_takes_it(backend, message, capsys, monkeypatch):
    # Lights Out 2000 (5x5 mod 3): the hint is computed, so it names gauss, cpsat and ilp, and not bfs
    code, out, err = _run(["solve", "--states", "3", "--goal", "0", "--size", "5x5", "--backend", backend],
                          "11111\n" * 5, capsys, monkeypatch)
    assert (code, out, err) == (5, "", f"flipgame: {message}\n")


@pytest.mark.parametrize(("backend", "message"), [
    ("sat", "case 1: sat: only two-state games have a sat model, not counters; bfs, cpsat and ilp take it"),
    ("gauss", "case 1: gauss: counters (no modulus) are integer programs, not a system mod k; bfs, cpsat and "
              "ilp take it"),
])
def test_aoc_part2_refusals_do_not_name_gauss(backend, message, tmp_path, capsys, monkeypatch):
    path = tmp_path / "aoc.txt"
    path.write_text(AOC_EXAMPLE)
    code, out, err = _run(["solve", "--format", "aoc2025-10", "--part", "2", "--backend", backend, str(path)], "",
                          capsys, monkeypatch)
    assert (code, out, err) == (5, "", f"flipgame: {message}\n")


def test_poj1830_cli(capsys, monkeypatch):
    code, out, _ = _run(["solve", "--format", "poj1830"], POJ1830_SAMPLE, capsys, monkeypatch)
    assert code == 0 and out == "4\nOh,it's impossible~!!\n"


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


def test_impossible_explained_with_certificate(capsys, monkeypatch):
    # 4x4 plus over Z_4: this board is not solvable to all 0; the goal and the weights are printed as rows
    code, out, _ = _run(["solve", "--states", "4", "--goal", "0", "--explain"], "1000\n0000\n0000\n0000\n",
                        capsys, monkeypatch)
    assert code == 0 and out == ("Impossible\ncertificate for the goal\n0000\n0000\n0000\n0000\nevery button adds 0 "
                                 "(mod 4) to the sum of the cells weighted as below, but reaching that goal changes "
                                 "it by 2 (mod 4):\n2020\n2022\n0020\n2200\n")


def test_explain_z3_prints_each_goal_as_rows(capsys, monkeypatch):
    code, out, _ = _run(["solve", "--states", "3", "--size", "2x3", "--explain"], "100\n000\n", capsys,
                        monkeypatch)
    why = ("every button adds 0 (mod 3) to the sum of the cells weighted as below, but reaching that goal changes it "
           "by 2 (mod 3):")
    assert code == 0 and out == "Impossible\n" + "".join(
        f"certificate for the goal\n{d * 3}\n{d * 3}\n{why}\n102\n201\n" for d in "012")


def test_study_3x3_mod3(capsys, monkeypatch):
    code, out, _ = _run(["study", "--states", "3", "--size", "3x3", "--goal", "0"], "", capsys, monkeypatch)
    assert code == 0
    assert "solvable boards: 19,683 of 19,683" in out
    assert "nullity 0 mod 3" in out and "18: 1" in out and "9: 3,139" in out


@pytest.mark.slow
def test_verify_z4_gauss_bfs_every_3x3_board(capsys, monkeypatch):
    code, out, _ = _run(["verify", "--states", "4", "--size", "3x3", "--backends", "gauss,bfs"], "", capsys,
                        monkeypatch)
    assert code == 0 and "262,144 boards: 0 disagreements, 0 witnesses rejected" in out


def test_grid_commands_refuse_general_options_elsewhere(capsys, monkeypatch):
    code, _, err = _run(["solve", "--format", "poj1830", "--states", "3"], "", capsys, monkeypatch)
    assert code == 2 and "drop" in err
    code, _, err = _run(["solve", "--part", "2"], "", capsys, monkeypatch)
    assert code == 2 and "--part needs --format aoc2025-10" in err


def test_verify_catches_a_planted_wrong_backend(tmp_path, capsys, monkeypatch):
    import flipgame.gate.general as general
    from flipgame.backends.system_result import SystemSolution

    honest = general.SYSTEM_BACKENDS["cpsat"]

    def liar(system, board, **options):
        s = honest(system, board, **options)
        if not s.success or s.moves == 0:
            return s
        return SystemSolution("cpsat", s.status, s.moves + 1, s.presses, s.target)  # claims one press too many

    monkeypatch.setitem(general.SYSTEM_BACKENDS, "cpsat", liar)
    report = tmp_path / "liar.json"
    code, out, _ = _run(["verify", "--states", "3", "--size", "2x2", "--backends", "gauss,cpsat", "--report",
                         str(report)], "", capsys, monkeypatch)
    assert code == 1 and "disagreement: board" in out and "78 disagreements" in out
    data = json.loads(report.read_text())
    assert data["disagreements"]["count"] == 78 and len(data["disagreements"]["first"]) == 78
    first = data["disagreements"]["first"][0]
    gauss, cpsat = first["answers"]
    assert (gauss["backend"], cpsat["backend"]) == ("gauss", "cpsat") and cpsat["moves"] == gauss["moves"] + 1
    assert len(first["board"]) == 4 and len(first["text"]) == 2
    # the liar's counts still reach the goal, but sum to one less than claimed: every witness is rejected
    assert data["witnesses_rejected"]["count"] == 78
    assert data["witnesses_rejected"]["first"][0]["problem"].startswith("claims ")
    assert data["completed"] is True and data["ok"] is False


def test_verify_writes_its_report(capsys, monkeypatch):
    # every 2x3 board mod 3, goal any: 243 solvable, 486 Impossible (each certificate checked)
    code, out, _ = _run(["verify", "--states", "3", "--size", "2x3", "--backends", "gauss,bfs"], "", capsys,
                        monkeypatch)
    assert code == 0 and out.endswith("729 boards: 0 disagreements, 0 witnesses rejected "
                                      f"({out.rsplit('(', 1)[1].split(')')[0]}). Report: flipgame-verify.json\n")
    data = json.loads(Path("flipgame-verify.json").read_text())
    assert data["rules"] == "2x3, 6 buttons, Z_3, goal any" and data["system"]["states"] == 3
    assert (data["boards"], data["selection"], data["completed"], data["ok"]) == (729, "all", True, True)
    assert [(b["backend"], b["boards"], b["solvable"], b["impossible"], b["unknown"], b["disagreements"],
             b["witness_failures"]) for b in data["backends"]] == [("gauss", 729, 243, 486, 0, 0, 0),
                                                                    ("bfs", 729, 243, 486, 0, 0, 0)]
    assert all(b["seconds"] >= 0 for b in data["backends"])
    assert data["disagreements"] == {"count": 0, "first": []}
    assert data["witnesses_rejected"] == {"count": 0, "first": []}
    assert data["certificates_checked"] == 486 and data["bfs_witnesses_walked"] == 729


def test_verify_report_option_and_sample(tmp_path, capsys, monkeypatch):
    report = tmp_path / "sub" / "r.json"
    report.parent.mkdir()
    code, out, _ = _run(["verify", "--states", "3", "--size", "3x3", "--sample", "30", "--seed", "2", "--backends",
                         "gauss,cpsat", "--report", str(report)], "", capsys, monkeypatch)
    assert code == 0 and out.endswith(f"Report: {report}\n") and not Path("flipgame-verify.json").exists()
    data = json.loads(report.read_text())
    assert data["boards"] == 30 and data["selection"] == {"sample": 30, "seed": 2}
    assert [b["backend"] for b in data["backends"]] == ["gauss", "cpsat"]
    assert all(b["solvable"] == 30 for b in data["backends"])  # nullity 0 mod 3: every 3x3 board is solvable


def test_verify_highs_beside_gauss(tmp_path, capsys, monkeypatch):
    report = tmp_path / "h.json"
    code, out, _ = _run(["verify", "--states", "3", "--size", "2x3", "--backends", "gauss,ilp", "--mip-solver",
                         "HIGHS", "--sample", "100", "--seed", "1", "--report", str(report)], "", capsys,
                        monkeypatch)
    assert code == 0 and "backends gauss, ilp-highs" in out
    assert "100 boards: 0 disagreements, 0 witnesses rejected" in out
    data = json.loads(report.read_text())
    assert [b["backend"] for b in data["backends"]] == ["gauss", "ilp-highs"]
    gauss, highs = data["backends"]
    assert highs["boards"] == 100 and (highs["solvable"], highs["impossible"]) == (gauss["solvable"],
                                                                                   gauss["impossible"])


def test_verify_default_backends_take_mip_solver(tmp_path, capsys, monkeypatch):
    code, out, err = _run(["verify", "--states", "3", "--size", "2x2", "--mip-solver", "HIGHS", "--sample", "20",
                           "--report", str(tmp_path / "r.json")], "", capsys, monkeypatch)
    assert code == 0 and "backends gauss, bfs, cpsat, ilp-highs" in out
    assert err == ("flipgame: skipping sat: only two-state games have a sat model, not 3 states; gauss, bfs, cpsat "
                   "and ilp take it\n")


GRID_ONLY = "is for the grid game (two states, --size without --states/--rules); press systems do not take it"


@pytest.mark.parametrize("argv", [
    ["verify", "--certify"], ["verify", "--checkpoint", "ck.jsonl"], ["verify", "--canonical"],
    ["verify", "--scheduler", "local:1"], ["verify", "--strategies", "gauss"],
    ["solve", "--canonical"], ["solve", "--certify"], ["solve", "--certify", "--proof-dir", "."],
    ["solve", "--strategy", "gauss"], ["study", "--json"], ["study", "--backends", "gauss"],
    ["study", "--plot", "p.png"],
])
def test_grid_only_flags_refused_on_press_systems(argv, capsys, monkeypatch):
    code, out, err = _run([*argv, "--states", "3", "--size", "2x2"], "00\n00\n", capsys, monkeypatch)
    flag = argv[1] if argv[1] != "--certify" or len(argv) == 2 else "--certify"
    assert (code, out, err) == (2, "", f"flipgame: {flag} {GRID_ONLY}\n")
    assert not Path("flipgame-verify.json").exists()


@pytest.mark.parametrize("jobs", ["1", str(os.cpu_count() or 1)])
def test_verify_refuses_jobs(capsys, monkeypatch, jobs):
    """Any --jobs given, the number of cores included, is refused."""
    code, out, err = _run(["verify", "--states", "3", "--size", "2x2", "--jobs", jobs], "", capsys, monkeypatch)
    assert (code, out) == (2, "") and err == ("flipgame: --jobs is for the grid game (two states, --size without "
                                              "--states/--rules); a press-system verify runs in this process\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["--backend", "ilp", "--mip-solver", "CBC"], "--mip-solver CBC: press systems take SCIP or HIGHS"),
    (["--backend", "sat", "--sat-solver", "glucose4"],
     "--sat-solver: not taken by sat on press systems (they take --time-limit, --mip-solver)"),
    (["--backend", "cpsat", "--memory-limit", "100"],
     "--memory-limit: not taken by cpsat on press systems (they take --time-limit, --mip-solver)"),
    (["--backend", "cpsat", "--time-limit", "abc"], "--time-limit: expected a positive number of seconds, got 'abc'"),
    (["--goal", "3"], "--goal 3: expected any, white, black or a state 0..2 (3 states), or --target FILE"),
])
def test_solve_option_errors(argv, message, capsys, monkeypatch):
    code, out, err = _run(["solve", "--states", "3", "--size", "2x2", *argv], "00\n00\n", capsys, monkeypatch)
    assert (code, out, err) == (2, "", f"flipgame: {message}\n")


def test_poj1830_presses_explain_stats(capsys, monkeypatch):
    code, out, err = _run(["solve", "--format", "poj1830", "--presses", "--explain", "--stats"], POJ1830_SAMPLE,
                          capsys, monkeypatch)
    # case 1: switch 1 toggles all three; case 2: weights 1 1 0 see every press even, but the target odd
    assert code == 0 and out == ("4\npress 1\nOh,it's impossible~!!\ncertificate for the goal\n101\nevery button "
                                 "adds 0 (mod 2) to the sum of the cells weighted as below, but reaching that goal "
                                 "changes it by 1 (mod 2):\n110\n")
    lines = err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("case 1: 3 cells, 3 buttons, Z_2, goal board; OPTIMAL presses=1 seconds=")
    assert lines[0].endswith(" nullity=2 kernel_size=4 solutions=4")
    assert lines[1].startswith("case 2: 3 cells, 3 buttons, Z_2, goal board; INFEASIBLE presses=None seconds=")
    code, out, _ = _run(["solve", "--format", "poj1830", "--presses"], POJ1830_SAMPLE, capsys, monkeypatch)
    assert code == 0 and out == "4\npress 1\nOh,it's impossible~!!\n"


@pytest.mark.parametrize("value", ["1", "256"])
def test_states_out_of_range(value, capsys, monkeypatch):
    with pytest.raises(SystemExit) as exc:
        _run(["solve", "--states", value], "", capsys, monkeypatch)
    _, err = capsys.readouterr()
    assert exc.value.code == 2 and err == (f"flipgame solve: argument --states: expected a number of states 2..255 "
                                           f"or 'counters', got '{value}' (see flipgame solve --help)\n")


@pytest.mark.parametrize(("rules", "message"), [
    ('{"grid": "3x3", "buttons": [[0, 1], [9]]}', "button 1 names cell 9; cells are 0..8"),
    ('{"grid": "3x3", "buttons": [[0]], "colour": 1}',
     "unknown key 'colour' in the press-system file (keys: amounts, buttons, cells, comment, directed, edges, grid, "
     "neighbourhood, states)"),
    ("0 1\n0 1 2\n", "edge list line 2: expected 'u v', 'cells N', 'closed' or 'open', got '0 1 2'"),
])
def test_bad_rules_file(rules, message, tmp_path, capsys, monkeypatch):
    path = tmp_path / "rules.txt"
    path.write_text(rules)
    code, out, err = _run(["solve", "--rules", str(path)], "", capsys, monkeypatch)
    assert (code, out, err) == (2, "", f"flipgame: --rules {path}: {message}\n")


@pytest.mark.parametrize(("argv", "stdin", "code", "message"), [
    (["--states", "counters", "--goal", "any"], "", 2,
     "counters need a target (--target FILE) or a value D (--goal D), not 'any'"),
    (["--states", "3", "--size", "3x3", "--goal", "0"], "000\n013\n000\n", 2,
     "standard input: case 1, line 2: state 3 is not below 3 (states 0..2) in '013'"),
    (["--states", "counters", "--size", "3x3", "--goal", "200", "--backend", "bfs"], "0 0 0\n" * 3, 5,
     "case 1: bfs: the counter box has 535,506,216,522,273,441,801 states, over its 268,435,456-state table; "
     "cpsat and ilp take it"),
])
def test_board_and_goal_errors(argv, stdin, code, message, capsys, monkeypatch):
    assert _run(["solve", *argv], stdin, capsys, monkeypatch) == (code, "", f"flipgame: {message}\n")


def test_verify_refuses_counters(capsys, monkeypatch):
    code, out, err = _run(["verify", "--states", "counters", "--goal", "1", "--size", "2x2"], "", capsys,
                          monkeypatch)
    assert (code, out) == (2, "") and err == ("flipgame: verify and study enumerate Z_k boards, and counters have no "
                                              "finite board set; flipgame solve answers them (bfs, cpsat and ilp "
                                              "take it)\n")


def test_verify_z3_2x3_every_backend(capsys, monkeypatch):
    code, out, _ = _run(["verify", "--states", "3", "--size", "2x3"], "", capsys, monkeypatch)
    assert code == 0 and "729 boards: 0 disagreements, 0 witnesses rejected" in out
    assert "backends gauss, bfs, cpsat, ilp" in out


def test_json_counters_with_amounts_and_target(tmp_path, capsys, monkeypatch):
    rules = tmp_path / "c.json"  # button 0 adds 2 to cell 0; button 1 adds 1 to both cells
    rules.write_text('{"cells": 2, "states": "counters", "buttons": [[0], [0, 1]], "amounts": [[2], [1, 1]]}')
    target = tmp_path / "t.txt"
    target.write_text("7 3\n")
    for backend in ("cpsat", "ilp", "bfs"):
        code, out, _ = _run(["solve", "--rules", str(rules), "--target", str(target), "--backend", backend,
                             "--presses"], "0 0\n0 1\n", capsys, monkeypatch)
        # 0 0 -> 7 3: button 1 three times, button 0 twice.  0 1 -> 7 3: button 1 twice leaves an odd gap of 5
        assert code == 0 and out == "5\n0x2 1x3\nImpossible\n"


def test_edge_list_rules(tmp_path, capsys, monkeypatch):
    rules = tmp_path / "path.txt"
    rules.write_text("# a path 0-1-2, closed neighbourhood\n0 1\n1 2\n")
    code, out, _ = _run(["solve", "--rules", str(rules), "--goal", "0", "--backend", "bfs"], "110\n111\n",
                        capsys, monkeypatch)
    assert code == 0 and out.split() == ["1", "1"]
def test_verify_interrupted_still_writes_the_report(tmp_path, capsys, monkeypatch):
    import flipgame.cli.general as cli_general

    honest, calls = cli_general.solve_system_batch, []

    def interrupted_third_chunk(system, boards, backend, **options):
        calls.append(len(boards))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return honest(system, boards, backend, **options)

    monkeypatch.setattr(cli_general, "solve_system_batch", interrupted_third_chunk)
    report = tmp_path / "r.json"
    code, out, err = _run(["verify", "--states", "3", "--size", "2x2", "--backends", "gauss", "--chunk-size", "27",
                           "--report", str(report)], "", capsys, monkeypatch)
    assert code == 130 and calls == [27, 27, 27] and "54 boards: 0 disagreements" in out
    assert err == (f"flipgame: interrupted: stopped after 54 of 81 boards; the report {report} holds everything "
                   f"finished\n")
    data = json.loads(report.read_text())
    assert (data["boards"], data["completed"], data["ok"]) == (54, False, False)
    assert data["backends"][0]["boards"] == 54

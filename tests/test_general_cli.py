"""The general game from the command line: --states, --rules, --goal D, poj1830, aoc2025-10, verify, study."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from test_general import AOC_EXAMPLE, POJ1830_SAMPLE

from flipgame.cli import main

MERLIN = Path(__file__).resolve().parent.parent / "examples" / "merlin.json"


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


@pytest.mark.parametrize(("backend", "who"), [("bfs", "gauss"), ("sat", "gauss, cpsat, ilp or bfs")])
def test_refusals_name_who_takes_it(backend, who, capsys, monkeypatch):
    code, out, err = _run(["solve", "--states", "3", "--goal", "0", "--size", "5x5", "--backend", backend],
                          "11111\n" * 5, capsys, monkeypatch)
    assert code == 5 and out == "" and who in err and len(err.strip().splitlines()) == 1


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
    # 4x4 plus over Z_4: this board is not solvable to all 0
    code, out, _ = _run(["solve", "--states", "4", "--goal", "0", "--explain"], "1000\n0000\n0000\n0000\n",
                        capsys, monkeypatch)
    assert code == 0 and out.startswith("Impossible\ncertificate")


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


def test_verify_catches_a_planted_wrong_backend(capsys, monkeypatch):
    import flipgame.general as general
    from flipgame.system_result import SystemSolution

    honest = general.SYSTEM_BACKENDS["cpsat"]

    def liar(system, board, **options):
        s = honest(system, board, **options)
        if not s.success or s.moves == 0:
            return s
        return SystemSolution("cpsat", s.status, s.moves + 1, s.presses, s.target)  # claims one press too many

    monkeypatch.setitem(general.SYSTEM_BACKENDS, "cpsat", liar)
    code, out, _ = _run(["verify", "--states", "3", "--size", "2x2", "--backends", "gauss,cpsat"], "", capsys,
                        monkeypatch)
    assert code == 1 and "disagreement: board" in out and "78 disagreements" in out


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

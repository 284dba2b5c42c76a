"""The registry and the gate: one way into a backend, its validation, hints and errors, each with its right value."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import POJ_SAMPLE, POJ_SAMPLE_TEXT
from conftest import flipgame as run_flipgame
from faulty_backends import FunctionBackend

import flipgame
from flipgame import (
    BACKENDS,
    Board,
    FlipgameError,
    Game,
    Option,
    OptionError,
    RefusedError,
    RulesError,
    Solution,
    Status,
    solve,
    solve_batch,
)
from flipgame.cli import ExitCode, main
from flipgame.verify.checks.certificates import check_certificate
from flipgame.verify.checks.witness import check_solution

T = Board.from_rows(["bwb", "wbw", "bwb"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_explicit_goal_board_through_the_gate_is_right(backend):
    g = Game(3, 3, goal="board", target=T.cells)
    s = solve(0, backend, game=g)
    assert (s.moves, s.target) == (9, T.cells) and check_solution(g, 0, s) is None


@pytest.mark.parametrize("backend", ["cpsat", "sat", "ilp"])
def test_a_model_refuses_a_goal_it_would_get_wrong(backend):
    # Before the gate, flipgame.backends.sat.solve(Game(3, 3, goal="board", target=T), 0) answered 0 presses.
    with pytest.raises(RulesError, match="flipgame.solve"):
        BACKENDS[backend].solve(Game(3, 3, goal="board", target=T.cells), 0)


def test_the_gate_takes_boards_as_rows_text_board_or_bitmask():
    rows = POJ_SAMPLE
    assert solve(rows).moves == solve("\n".join(rows)).moves == solve(Board.from_rows(rows)).moves == 4
    assert solve(Board.from_rows(rows).cells, game=Game(4, 4)).moves == 4
    with pytest.raises(RulesError, match="needs its rules: game="):
        solve(5)
    with pytest.raises(RulesError, match="expected a Board"):
        solve(4.5)


def test_game_takes_a_stencil_as_text_and_a_target_as_a_board_or_rows():
    g = Game(3, 3, neighbourhood="stencil", stencil="x.x/.x./x.x")
    assert g.offsets == ((-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1))
    assert Game(3, 3, goal="board", target=T).target == Game(3, 3, goal="board", target=["bwb", "wbw", "bwb"]).target
    with pytest.raises(RulesError, match="target board is 4x4"):
        Game(3, 3, goal="board", target=Board.from_rows(["wwww"] * 4))
    with pytest.raises(RulesError, match="stencil"):
        Game(3, 3, neighbourhood="stencil", stencil="xx/xx")


def test_impossible_carries_checked_certificates():
    g = Game(4, 4)
    s = solve(["wbbb", "wwww", "wwww", "wwww"])
    assert s.status is Status.INFEASIBLE and set(s.certificates) == {0, 0xFFFF}
    for target, cert in s.certificates.items():
        assert check_certificate(g, 14, target, cert) is None


def test_status_repr_is_its_name():
    assert repr(solve(POJ_SAMPLE)).startswith(
        "Solution(backend='gauss', status=OPTIMAL, moves=4,")


def test_one_error_base_class():
    for exc in (RulesError, OptionError, RefusedError, flipgame.UnknownBackendError, flipgame.BoardFormatError):
        assert issubclass(exc, FlipgameError)
    with pytest.raises(FlipgameError):
        solve(["bwwb"] * 4, "nope")
    with pytest.raises(OptionError, match=r"max_nullity \(--max-nullity\) must be finite and >= 0"):
        solve(["bwwb"] * 4, "gauss", max_nullity=-1)


def test_painter_explain_and_fliptile_stats_use_the_formats_own_colours():
    r = subprocess.run([sys.executable, "-m", "flipgame", "solve", "--format", "painter", "--explain"],
                       input="1\n4\nwyyy\nyyyy\nyyyy\nyyyy\n", capture_output=True, text=True)
    assert r.stdout.splitlines()[:2] == ["inf", "certificate for all y: every press flips an even number of the "
                                                "cells marked x, but 1 of them (odd) must change"]
    r = subprocess.run([sys.executable, "-m", "flipgame", "solve", "--format", "fliptile", "--stats"],
                       input="1 3\n1 1 0\n", capture_output=True, text=True)
    assert r.stdout == "1 0 0\n" and "goal all 0;" in r.stderr and "white" not in r.stderr


def test_verify_with_one_backend_does_not_claim_agreement(tmp_path, capsys):
    assert main(["verify", "--size", "2x2", "--backends", "gauss", "--report", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "All backends agree" not in out and "one backend: nothing to compare" in out


def test_binary_input_is_escaped_in_errors():
    r = subprocess.run([sys.executable, "-m", "flipgame", "solve"], input=b"\x1b[2J\x00bwb\n", capture_output=True)
    assert r.returncode == ExitCode.USAGE
    assert b"\x1b" not in r.stderr and b"\x00" not in r.stderr and b"\\x1b" in r.stderr


class Toy(FunctionBackend):
    """A backend in a few lines: gauss's answers, with one declared option of its own."""

    options = (Option("shout", int, 0, "how loud to be", minimum=0),)

    def __init__(self):
        super().__init__("toy", lambda game, board: solve(board, "gauss", game=game), "a toy backend")

    def solve(self, game, board, *, shout=0, canonical=False):
        s = self._solve(game, board)
        return Solution("toy", s.status, s.moves, s.presses, s.target, stats={"shout": shout})


def test_a_new_backend_is_one_class_and_one_registry_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(BACKENDS, "toy", Toy())  # what `register(Toy())` does, undone after the test
    assert solve(POJ_SAMPLE, "toy", shout=3).stats["shout"] == 3
    assert solve_batch(np.arange(16, dtype=np.uint64), Game(2, 2), "toy").moves.tolist() == \
        solve_batch(np.arange(16, dtype=np.uint64), Game(2, 2), "gauss").moves.tolist()
    cases = tmp_path / "cases.txt"
    cases.write_text(POJ_SAMPLE_TEXT)
    assert main(["solve", "--backend", "toy", "--shout", "2", "--stats", str(cases)]) == ExitCode.OK
    captured = capsys.readouterr()
    assert captured.out == "4\n" and "shout=2" in captured.err
    report = tmp_path / "r.json"
    assert main(["verify", "--size", "3x3", "--backends", "gauss,toy", "--jobs", "1", "--report", str(report)]) == 0
    assert [b["backend"] for b in json.loads(report.read_text())["backends"]] == ["gauss", "toy"]


@pytest.mark.parametrize("args, words", [
    (["solve", "--backend", "ilp", "--time-limit", "1e300"], "must be at most 1,000,000"),
    (["solve", "--backend", "cpsat", "--cpsat-workers", "100000"], "must be at most 64"),
    (["solve", "--max-nullity", "64", "--size", "40x40", "--wrap"], "must be at most 48"),
    pytest.param(["solve", "--certify", "--certify-time-limit", "inf"], "at most 1,000,000",
                 marks=pytest.mark.needs("dratify")),
    (["solve", "--certify-time-limit", "5"], "needs --certify"),
    pytest.param(["solve", "--certify", "--proof-dir", "/proc"], "cannot create files there",
                 marks=pytest.mark.needs("dratify")),
    (["solve", "--backend", "sat", "--sat-solver", "glucose4"], "--sat-engine cnf"),
    (["solve", "--size", "0x4"], "(see flipgame solve --help)"),
    pytest.param(["verify", "--size", "3x3", "--backends", "gauss", "--scheduler", "nope"], "expected local:N",
                 marks=pytest.mark.needs("distributed")),
    (["verify", "--size", "2x2", "--backends", "gauss", "--report", "/proc/x.json"], "cannot write"),
])
def test_odd_option_values_are_one_line_errors_found_by_a_new_user(args, words, tmp_path):
    r = run_flipgame(*args, stdin=POJ_SAMPLE_TEXT, cwd=tmp_path)
    assert r.returncode == ExitCode.USAGE and words in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 or args[0] == "verify"  # verify may print what it checks first
    assert r.stdout == ""


def test_hints_lead_to_something_that_takes_the_board():
    r = subprocess.run([sys.executable, "-m", "flipgame", "solve", "--size", "1001x1000", "--wrap"], input="",
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == ExitCode.REFUSED and "sat and ilp" not in r.stderr  # they refuse 1,001,000 cells too
    assert "the banded elimination takes at most 1,000,000 cells" in r.stderr  # (it took 2 min and 62 GB of masks)
    r = subprocess.run([sys.executable, "-m", "flipgame", "solve", "--size", "60x60", "--wrap", "--backend", "sat",
                        "--memory-limit", "0.001"], input="", capture_output=True, text=True)
    assert r.returncode == ExitCode.REFUSED and "gauss solves it" not in r.stderr  # gauss refuses 3600 dense cells


def test_verify_takes_minima_above_32767(tmp_path):
    # Moves were int16: 'verify --size 300x300 --sample 1' crashed with OverflowError on 44832 presses.
    report = tmp_path / "r.json"
    assert main(["verify", "--size", "1x100000", "--goal", "white", "--sample", "2", "--backends", "gauss",
                 "--report", str(report)]) == ExitCode.OK
    assert json.loads(report.read_text())["backends"][0]["solvable"] == 2


def test_the_template_backend_agrees_with_gauss_on_every_3x3_board(monkeypatch):
    """backends/TEMPLATE.py is a working backend: registered, it runs through the pipeline and agrees."""
    from flipgame.backends import registry
    from flipgame.backends.TEMPLATE import Template
    from flipgame.verify.run.harness import run_agreement

    monkeypatch.setitem(registry.BACKENDS, "template", Template())
    report = run_agreement(Game(3, 3), ["gauss", "template"])
    assert report.ok and [(s.solvable, s.impossible) for s in report.summaries] == [(512, 0)] * 2
    with pytest.raises(RefusedError, match="takes at most 20 buttons; 5x5 has 25"):
        solve([0] * 25, "template", game=Game(5, 5))

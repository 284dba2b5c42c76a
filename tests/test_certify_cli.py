"""`flipgame solve --certify` as a user meets it: a proof line per case, exit 6 when a minimum is wrong."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import POJ_SAMPLE_TEXT
from faulty_backends import FunctionBackend

from flipgame import BACKENDS, solve
from flipgame.algebra.gf2 import eliminate
from flipgame.cli import ExitCode, main


def heavier(game, board):
    """A minimum-weight witness XOR a quiet pattern: it reaches the same goal with more presses."""
    s = solve(board, "gauss", game=game)
    if not s.success:
        return dataclasses.replace(s, backend="heavier")
    x = s.presses ^ eliminate(game).null_basis[0]
    return dataclasses.replace(s, backend="heavier", moves=x.bit_count(), presses=x)


@pytest.fixture
def cases(tmp_path):
    f = tmp_path / "cases.txt"
    f.write_text(POJ_SAMPLE_TEXT)
    return f


@pytest.mark.needs("dratify")
def test_a_number_one_too_high_fails_certification_with_its_own_exit_code(monkeypatch, cases, capsys):
    monkeypatch.setitem(BACKENDS, "heavier", FunctionBackend("heavier", heavier))
    assert main(["solve", "--backend", "heavier", str(cases)]) == ExitCode.DISAGREEMENT  # a plug-in: gauss checks
    assert "heavier claims a minimum of 10 presses, but gauss proves a minimum of 4" in capsys.readouterr().err
    monkeypatch.setattr("flipgame.cli.answers.is_builtin", lambda backend: True)  # as if a built-in had the bug
    assert main(["solve", "--backend", "heavier", str(cases)]) == ExitCode.OK  # a valid witness: not caught
    capsys.readouterr()
    assert main(["solve", "--backend", "heavier", "--certify", str(cases)]) == ExitCode.CERTIFICATION_FAILURE == 6
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "10" and out[1].startswith("failed:")


@pytest.mark.needs("dratify")
def test_zero_presses_needs_no_proof(cases, capsys):
    cases.write_text("wwww\n" * 4)
    assert main(["solve", "--certify", str(cases)]) == ExitCode.OK
    assert capsys.readouterr().out.splitlines()[0] == "0"


def test_proof_dir_needs_certify(cases, tmp_path):
    assert main(["solve", "--proof-dir", str(tmp_path), str(cases)]) == ExitCode.USAGE


@pytest.mark.needs("dratify")
def test_verify_certify_sample_2000_on_4x4(tmp_path, capsys):
    report = tmp_path / "r.json"
    assert main(["verify", "--size", "4x4", "--backends", "gauss,bfs", "--sample", "2000", "--certify",
                 "--report", str(report)]) == ExitCode.OK
    cert = __import__("json").loads(report.read_text())["certification"]
    assert (cert["boards"], cert["certified"], cert["failed"], cert["unknown"]) == (2000, 2000, 0, 0)
    assert cert["proofs"] == 136 and "Certified 2000 of 2000 boards" in capsys.readouterr().out


@pytest.mark.needs("dratify")
def test_verify_certify_catches_a_minimum_the_backends_share(monkeypatch, tmp_path):
    """One backend alone, answering too many presses with valid witnesses: no cross-check can see it."""
    monkeypatch.setitem(BACKENDS, "heavier", FunctionBackend("heavier", heavier))
    args = ["verify", "--size", "4x4", "--sample", "300", "--backends", "heavier", "--jobs", "1",
            "--report", str(tmp_path / "r.json")]
    assert main(args) == ExitCode.OK
    assert main([*args, "--certify"]) == ExitCode.CERTIFICATION_FAILURE

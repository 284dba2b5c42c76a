"""Large boards, time limits, memory budgets, Ctrl-C and refusals: what each backend takes, with right values.

Tests marked ``slow`` need more than a few seconds: ``make test-slow`` runs them.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from conftest import POJ_SAMPLE_TEXT, assert_within, flipgame, sigint_default, wait_until_busy

from flipgame import Board, Game, solve
from flipgame.cli import ExitCode
from flipgame.model.puzzles import B18, P14
from flipgame.verify.checks.witness import check_solution


def lit(n: int) -> int:
    return (1 << n * n) - 1


@pytest.mark.parametrize("backend", ["gauss", "sat", "ilp"])
def test_18x18_unique_solution_is_176(backend):
    g = Game(18, 18, "black")
    b = Board.from_rows(B18).cells
    s = solve(b, backend, game=g)
    assert s.moves == 176 and check_solution(g, b, s) is None


def test_cpsat_answers_unknown_never_a_wrong_number():
    s = solve(Board.from_rows(B18), "cpsat", game=Game(18, 18, "black"), time_limit=1)
    assert s.answer() in ("176", "Unknown")


@pytest.mark.parametrize("backend", ["gauss", "sat", pytest.param("cpsat", marks=pytest.mark.slow),
                                     pytest.param("ilp", marks=pytest.mark.slow)])
def test_painter_14_is_89_at_default_settings(backend):
    r = flipgame("solve", "--format", "painter", "--backend", backend, stdin="1\n14\n" + "\n".join(P14) + "\n")
    assert (r.returncode, r.stdout) == (0, "89\n")


@pytest.mark.slow
def test_sat_100x100_answers_within_the_memory_budget(tmp_path):
    import random

    rng = random.Random(100)
    rows = ["".join(rng.choice("bw") for _ in range(100)) for _ in range(100)]
    g = Game(100, 100, "white")
    b = Board.from_rows(rows).cells
    s = solve(b, "sat", game=g, time_limit=60)
    assert s.moves == solve(b, "gauss", game=g).moves == 5003


@pytest.mark.needs("pycryptosat")
def test_a_model_over_the_budget_is_refused_in_one_line():
    r = flipgame("solve", "--size", "150x150", "--goal", "white", "--backend", "sat", "--memory-limit", "0.5",
                 stdin="")
    assert r.returncode == ExitCode.REFUSED
    assert r.stderr.count("\n") == 1 and "GiB" in r.stderr and "gauss" in r.stderr


@pytest.mark.parametrize("backend", ["sat", "cpsat", "ilp"])
def test_time_limit_2_returns_unknown_within_4_s(backend):
    t = time.perf_counter()
    r = flipgame("solve", "--size", "39x39", "--goal", "white", "--backend", backend, "--time-limit", "2",
                 stdin="\n".join(["b" * 39] * 39) + "\n")
    assert_within(time.perf_counter() - t, 4 + 1.5, "a 2 s limit")  # + the interpreter's and OR-Tools' start-up
    assert (r.returncode, r.stdout.splitlines()[-1]) == (ExitCode.INCOMPLETE, "Unknown")


@pytest.mark.parametrize("backend", ["sat", "cpsat", "ilp"])
def test_ctrl_c_exits_130_promptly_without_traceback(backend, tmp_path):
    f = tmp_path / "lit39.txt"
    f.write_text("\n".join(["b" * 39] * 39) + "\n")
    p = subprocess.Popen([sys.executable, "-m", "flipgame", "solve", "--size", "39x39", "--goal", "white",
                          "--backend", backend, "--time-limit", "60", str(f)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    wait_until_busy(p.pid)
    t = time.perf_counter()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == ExitCode.INTERRUPTED
    assert_within(time.perf_counter() - t, 2, "the exit after Ctrl-C")
    assert "Traceback" not in err and "flipgame: interrupted" in err


@pytest.mark.parametrize("size, neighbourhood", [(39, "plus"), (11, "king")])
def test_impossible_is_answered_at_any_nullity(size, neighbourhood):
    g = Game(size, size, "white", neighbourhood=neighbourhood)
    s = solve(1, "gauss", game=g)  # all white but the top-left cell
    assert s.answer() == "Impossible" and s.stats["nullity"] == {39: 32, 11: 21}[size]


@pytest.mark.slow
def test_39x39_all_lit_is_561():
    s = solve(lit(39), "gauss", game=Game(39, 39, "white"))
    assert (s.moves, s.stats["nullity"]) == (561, 32)
    assert Game(39, 39, "white").apply(lit(39), s.presses) == 0


def test_refusal_names_the_option_that_takes_it():
    r = flipgame("solve", "--size", "39x39", "--goal", "white", "--max-nullity", "20",
                 stdin="\n".join(["b" * 39] * 39) + "\n")
    assert r.returncode == ExitCode.REFUSED and "--max-nullity 32" in r.stderr
    assert "--backend" not in r.stderr  # no backend that would then fail on the same board


@pytest.mark.needs("dratify")
def test_certify_the_poj_sample():
    r = flipgame("solve", "--certify", stdin=POJ_SAMPLE_TEXT)
    assert r.returncode == 0
    assert r.stdout.splitlines()[0] == "4"
    assert r.stdout.splitlines()[1].startswith("certified: no press set of at most 3 presses reaches all white "
                                               "or all black")


@pytest.mark.needs("dratify")
def test_certify_writes_proof_files_that_recheck(tmp_path):
    from flipgame.verify.proofs.certify import check_proof_files

    r = flipgame("solve", "--certify", "--proof-dir", str(tmp_path), stdin=POJ_SAMPLE_TEXT)
    assert r.returncode == 0
    for goal in ("white", "black"):
        assert check_proof_files(tmp_path / f"case1-{goal}.cnf", tmp_path / f"case1-{goal}.drat")

"""The flipgame command as a user meets it: POJ answers, errors, exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import POJ_SAMPLE_TEXT, flipgame

from flipgame import BACKENDS
from flipgame.cli import ExitCode, main

TRAP = "wbbb\nwwww\nwwww\nwwww\n"


@pytest.mark.parametrize("backend", BACKENDS)
def test_poj_sample_prints_exactly_4(backend):
    r = flipgame("solve", "--backend", backend, stdin=POJ_SAMPLE_TEXT)
    assert (r.returncode, r.stdout, r.stderr) == (0, "4\n", "")


def test_multi_case_file_answers_every_case_in_order(tmp_path):
    f = tmp_path / "cases.txt"
    f.write_text(POJ_SAMPLE_TEXT + "\n" + TRAP + "wwww\n" * 4 + "bbbb\n" * 4 + "bbww\nbwww\nwwww\nwwww\n")
    r = flipgame("solve", str(f))
    assert r.returncode == 0
    assert r.stdout.splitlines() == ["4", "Impossible", "0", "0", "1"]


def test_presses_prints_the_witness_board():
    r = flipgame("solve", "--presses", stdin="bbww\nbwww\nwwww\nwwww\n" + TRAP)
    assert r.stdout.splitlines() == ["1", "x...", "....", "....", "....", "Impossible"]


def test_goal_and_size_options():
    r = flipgame("solve", "--size", "3x3", "--goal", "white", "--backend", "bfs", stdin="bbw\nbww\nwww\n")
    assert r.stdout == "1\n"
    r = flipgame("solve", "--size", "3x3", "--goal", "black", stdin="bbw\nbww\nwww\n")
    assert r.returncode == 0 and int(r.stdout) > 1


@pytest.mark.parametrize("text", ["", "\n\n"])
def test_empty_input_answers_nothing_and_says_so(text):
    """A judge's empty input is not an error (exit 0, nothing on standard output), but a newcomer who gave the
    wrong file saw nothing at all: standard error now says no case was read."""
    r = flipgame("solve", stdin=text)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "flipgame: standard input: no case read: the input holds "
                                                         "no board\n")


@pytest.mark.parametrize(
    "text, where, expected",
    [
        ("bwwb\nbbwb\nbww\nbwww\n", "case 1, line 3", "row of 4 cells"),
        ("bwwb\nbbwb\nbwxb\nbwww\n", "case 1, line 3", "'x'"),
        (POJ_SAMPLE_TEXT + "bwwb\nbbwb\n", "case 2, line 6", "incomplete case"),
    ],
)
def test_malformed_input_names_case_and_line_and_keeps_earlier_answers(text, where, expected):
    r = flipgame("solve", stdin=text)
    assert r.returncode == ExitCode.USAGE
    assert where in r.stderr and expected in r.stderr
    assert "Traceback" not in r.stderr
    if text.startswith(POJ_SAMPLE_TEXT):
        assert r.stdout == "4\n"  # the finished case stays printed


def test_unknown_backend_lists_the_valid_names():
    r = flipgame("solve", "--backend", "ekki-ekki-ekki", stdin=POJ_SAMPLE_TEXT)
    assert r.returncode == 2
    for name in BACKENDS:
        assert name in r.stderr
    r = flipgame("verify", "--backends", "gauss,nope")
    assert r.returncode == 2 and "'nope'" in r.stderr and "gauss, bfs, cpsat" in r.stderr


@pytest.mark.parametrize("size", ["4", "0x4", "4x-1", "axb", "4x4x4"])
def test_bad_size_is_a_usage_error(size):
    r = flipgame("solve", "--size", size, stdin=POJ_SAMPLE_TEXT)
    assert r.returncode == 2 and "RxC" in r.stderr


def test_missing_file_is_a_clear_error(tmp_path):
    r = flipgame("solve", str(tmp_path / "nope.txt"))
    assert r.returncode == ExitCode.USAGE and "cannot read" in r.stderr


def test_every_backend_takes_the_time_limit():
    """gauss and maxsat refused --time-limit ("every backend honours its time limit" was false for them)."""
    from flipgame.backends.registry import BACKENDS

    assert [n for n, b in BACKENDS.items() if "time_limit" not in {o.name for o in b.all_options}] == []
    for backend, b in BACKENDS.items():
        if backend == "external" or b.missing_library({}):  # it needs a --solver-cmd; an extra not installed
            continue
        r = flipgame("solve", "--backend", backend, "--time-limit", "30", stdin=POJ_SAMPLE_TEXT)
        assert (r.returncode, r.stdout) == (0, "4\n"), (backend, r.stderr)


def test_bfs_refuses_large_boards_with_the_limit():
    r = flipgame("solve", "--backend", "bfs", "--size", "6x6", stdin="wwwwww\n" * 6)
    assert r.returncode == ExitCode.REFUSED and "30 cells" in r.stderr


def test_gauss_never_loads_ortools():
    code = ("import sys; from flipgame.cli import main; main(['solve', '--backend', 'gauss', '-']); "
            "sys.stderr.write(str(any(m.startswith('ortools') for m in sys.modules)))")
    r = subprocess.run([sys.executable, "-c", code], input=POJ_SAMPLE_TEXT, capture_output=True, text=True)
    assert r.stdout == "4\n" and r.stderr == "False"


def test_verify_small_size_exits_zero_with_table(tmp_path, capsys):
    rc = main(["verify", "--size", "3x3", "--backends", "gauss,bfs", "--report", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert rc == ExitCode.OK
    assert "0 disagreements" in out and "512" in out


def test_verify_refuses_bfs_beyond_its_limit(tmp_path):
    r = flipgame("verify", "--size", "6x6", "--backends", "bfs", "--report", str(tmp_path / "r.json"))
    assert r.returncode == ExitCode.REFUSED and "bfs" in r.stderr


@pytest.mark.parametrize("args", [["--backend", "sat", "--sat-engine", "cnf", "--sat-solver", "minisat22"],
                                  ["--backend", "ilp", "--mip-solver", "highs", "--time-limit", "5"]])
def test_solver_name_options(args):
    r = flipgame("solve", *args, stdin=POJ_SAMPLE_TEXT + TRAP)
    assert (r.returncode, r.stdout, r.stderr) == (0, "4\nImpossible\n", "")


@pytest.mark.parametrize("args, words", [
    (["--backend", "sat", "--sat-solver", "nope"], "is not one of glucose3"),
    (["--backend", "ilp", "--mip-solver", "nope"], "SCIP, HIGHS"),
    (["--backend", "gauss", "--sat-solver", "minisat22"], "--sat-solver applies to backend sat"),
    (["--memory-limit", "1"], "--memory-limit applies to backend bfs or cpsat or sat or ilp"),
])
def test_bad_solver_options_are_usage_errors(args, words):
    r = flipgame("solve", *args, stdin=POJ_SAMPLE_TEXT)
    assert r.returncode == ExitCode.USAGE and words in r.stderr and r.stdout == ""


@pytest.mark.parametrize("args, words", [
    (["--report", "/nonexistent-dir/r.json"], "does not exist"),
    (["--report", "/tmp"], "is a directory"),
    (["--report", ""], "empty file name"),
    (["--checkpoint", "/dev/null"], "not a regular file"),
    (["--checkpoint", "same.json", "--report", "same.json"], "different files"),
])
def test_verify_output_paths_checked_before_the_run(args, words, tmp_path):
    r = subprocess.run([sys.executable, "-m", "flipgame", "verify", "--size", "2x2", "--backends", "gauss", *args],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == ExitCode.USAGE and words in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == ""  # nothing was solved


@pytest.mark.parametrize("attempt", range(3))
def test_a_reader_that_goes_away_is_not_a_read_error(tmp_path, attempt):
    """``solve --format fliptile FILE | head -c 10`` said "cannot read FILE: Broken pipe" (exit 2) in 1 run of 3:
    the broken pipe of a write was caught as the input's error."""
    case = "101 101\n" + "\n".join(" ".join("1" if (r * 7 + c * attempt) % 5 == 0 else "0" for c in range(101))
                                   for r in range(101)) + "\n"
    cases = tmp_path / "ft.txt"
    cases.write_text(case * 4)
    p = subprocess.Popen([sys.executable, "-m", "flipgame", "solve", "--format", "fliptile", str(cases)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert len(p.stdout.read(10)) == 10
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 0 and err == ""


def test_output_errors_are_one_line():
    full = subprocess.run(f"{sys.executable} -m flipgame solve > /dev/full", shell=True, input=POJ_SAMPLE_TEXT,
                          capture_output=True, text=True)
    assert full.returncode == ExitCode.USAGE and "cannot write output" in full.stderr
    assert "Traceback" not in full.stderr
    closed = subprocess.run(f"{sys.executable} -m flipgame solve >&-", shell=True, input=POJ_SAMPLE_TEXT,
                            capture_output=True, text=True)
    assert closed.returncode == ExitCode.USAGE and "standard output is closed" in closed.stderr


def test_bom_and_not_utf8_input():
    r = flipgame("solve", stdin="\ufeff" + POJ_SAMPLE_TEXT)
    assert r.stdout == "4\n"
    r = subprocess.run([sys.executable, "-m", "flipgame", "solve"], input=b"bw\xffb\nbbwb\nbwwb\nbwww\n",
                       capture_output=True)
    assert r.returncode == ExitCode.USAGE and b"not UTF-8" in r.stderr


@pytest.mark.parametrize("size", ["99999999999999999999x1", "3000x3000"])
def test_absurd_sizes_are_refused(size):
    r = flipgame("solve", "--size", size, stdin="")
    assert r.returncode == 2 and "Traceback" not in r.stderr


@pytest.mark.needs("pycryptosat")
def test_solver_backends_refuse_boards_beyond_their_model_limit():
    r = flipgame("solve", "--backend", "sat", "--size", "300x300", stdin="")
    assert r.returncode == ExitCode.REFUSED and "at most 40000 cells" in r.stderr


def test_one_million_cells_in_a_row_by_chasing_the_short_side():
    r = flipgame("solve", "--size", "1x100000", "--goal", "white", stdin="b" * 100000 + "\n")
    assert r.returncode == 0 and r.stdout == "33334\n"  # press cells 1, 4, 7, ...; 100000 = 3*33333 + 1


def test_duplicate_backends_and_version():
    r = flipgame("verify", "--backends", "gauss,gauss")
    assert r.returncode == 2 and "twice" in r.stderr
    r = flipgame("--version")
    assert r.returncode == 0 and r.stdout.startswith("flipgame ")

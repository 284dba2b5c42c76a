"""Solver programs as strategies: bounded, measured runs, and a program's word never the last word.

Most programs here are small shell scripts that lie or misbehave in one precise way (issue 30,
items 1, 2, 7, 22, 25; issue 29, "lies and faults are named", "any program is a strategy").
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from conftest import POJ_SAMPLE, POJ_SAMPLE_CELLS, POJ_SAMPLE_TEXT, assert_within, need_program

from flipgame import Game, solve
from flipgame.backends import strategies_file
from flipgame.backends.registry import STRATEGIES, register_strategy
from flipgame.backends.result import Status
from flipgame.cli import main
from flipgame.cli.common import ExitCode
from flipgame.core.limits import OUTPUT_MAX_BYTES
from flipgame.core.processes import run_bounded
from flipgame.core.workers import run_function
from flipgame.pipeline import decide as claims
from flipgame.verify.proofs import certify


@pytest.fixture(autouse=True)
def _strategies_restored():
    """Strategies registered by a test (a strategies file, --solver-cmd in-process) leave with it."""
    saved = dict(STRATEGIES)
    yield
    for name in set(STRATEGIES) - set(saved):
        del STRATEGIES[name]
    for name, strategy in saved.items():
        if STRATEGIES.get(name) is not strategy:
            register_strategy(strategy)


SIX = "6 7 9 11 12 13"
"""A valid press set of 6 presses for the POJ sample (whose minimum is 4), as DIMACS variables."""


def script(tmp_path, name: str, body: str, mode: int = 0o755) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(mode)
    return str(path)


def flipgame(*args: str, stdin: str = POJ_SAMPLE_TEXT, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flipgame", *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def solve_cli(*args: str, capsys, stdin: str = POJ_SAMPLE_TEXT) -> tuple[int, str, str]:
    """``flipgame solve ARGS`` in this process (no interpreter start): exit code, stdout, stderr."""
    saved = sys.stdin
    sys.stdin = _Stdin(stdin)
    try:
        code = main(["solve", *args])
    finally:
        sys.stdin = saved
    out = capsys.readouterr()
    return code, out.out, out.err


def alive(pid: int) -> bool:
    """True if ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


# --- issue 30, items 1 and 2: a claimed optimum or UNSAT is checked ---------------------------------------


@pytest.mark.parametrize("fmt", ["wcnf", "opb"])
def test_a_claimed_optimum_of_6_on_the_sample_is_a_lie_caught_by_gauss(tmp_path, capsys, fmt):
    liar = script(tmp_path, "optimum-liar.sh", f"printf 'o 6\\ns OPTIMUM FOUND\\nv {SIX} 0\\n'")
    code, out, err = solve_cli("--solver-cmd", f"{liar} {{file}}", "--solver-format", fmt, capsys=capsys)
    assert (code, out) == (ExitCode.DISAGREEMENT, "Error\n"), err
    assert err == (f"flipgame: standard input: case 1: {liar} claims a minimum of 6 presses, but gauss "
                          f"proves a minimum of 4 presses\n")


def test_a_lying_unsat_on_the_bound_is_caught_by_gauss(tmp_path, capsys):
    liar = script(tmp_path, "unsat-liar.sh", 'if grep -q "at most" "$1"; then echo "s UNSATISFIABLE"; '
                                             f"else printf 's SATISFIABLE\\nv {SIX} 0\\n'; fi")
    code, out, err = solve_cli("--solver-cmd", f"{liar} {{file}}", capsys=capsys)
    assert (code, out) == (ExitCode.DISAGREEMENT, "Error\n"), err
    assert "claims a minimum of 6 presses, but gauss proves a minimum of 4" in err


def test_a_false_impossible_from_a_program_is_a_disagreement_naming_it(tmp_path, capsys):
    """A program answering UNSAT for a solvable board lies about unsatisfiability: exit 1 (it was exit 3,
    'answer rejected', as if a witness had failed), naming the program and gauss's minimum."""
    liar = script(tmp_path, "impossible-liar.sh", 'echo "s UNSATISFIABLE"')
    code, out, err = solve_cli("--solver-cmd", f"{liar} {{file}}", capsys=capsys)
    assert (code, out) == (ExitCode.DISAGREEMENT, "Error\n"), err
    assert err == (f"flipgame: standard input: case 1: {liar} claims Impossible, "
                   "but gauss proves a minimum of 4 presses\n")
    trap = "".join(row + "\n" for row in ["wbbb", "wwww", "wwww", "wwww"])  # truly Impossible: no lie
    assert solve_cli("--solver-cmd", f"{liar} {{file}}", capsys=capsys, stdin=trap) == (ExitCode.OK, "Impossible\n", "")


def test_where_gauss_refuses_the_algebra_refutes_a_false_impossible(monkeypatch):
    from flipgame.backends.result import Solution
    from flipgame.verify.checks.referee import check_impossible

    monkeypatch.setattr(claims, "reference_answer", lambda game, board: None)
    lie = Solution("external", Status.INFEASIBLE, stats={"program": "liar"})
    found = check_impossible(Game(4, 4), POJ_SAMPLE_CELLS, lie)
    assert claims.check_claim(Game(4, 4), POJ_SAMPLE_CELLS, lie, referee_problem=found) == claims.ClaimCheck(
        "certificate", "liar says Impossible, but a goal board is reachable (no parity certificate exists)")


@pytest.mark.needs("dratify")
def test_where_gauss_refuses_a_parity_proof_refutes_the_claim(monkeypatch):
    monkeypatch.setattr(claims, "reference_answer", lambda game, board: None)
    game, six = Game(4, 4), sum(1 << (v - 1) for v in map(int, SIX.split()))
    from flipgame.backends.result import Solution

    lie = Solution("external", Status.OPTIMAL, 6, six, game.apply(POJ_SAMPLE_CELLS, six), stats={"program": "liar"})
    check = claims.check_claim(game, POJ_SAMPLE_CELLS, lie, proof_seconds=None)
    assert check.checker == "parity proof" and check.problem.startswith("liar claims a minimum of 6 presses, but "
                                                                         "the claimed minimum 6 is too high: 4 presses")
    truth = solve(POJ_SAMPLE, "bfs")
    assert claims.check_claim(game, POJ_SAMPLE_CELLS, truth, proof_seconds=None) == claims.ClaimCheck("parity proof")


def test_a_claim_nothing_checks_is_named_unchecked(monkeypatch, capsys):
    need_program("cadical")
    monkeypatch.setattr(claims, "reference_answer", lambda game, board: None)
    monkeypatch.setattr(certify, "certify_minimum", lambda *a, **k: _unknown())  # decide imports it when it proves
    assert solve_cli("--strategy", "cadical", capsys=capsys) == (
        ExitCode.OK, "4\n", "flipgame: standard input: case 1: the minimum 4 is cadical's unchecked claim (gauss does "
                             "not take this board and no proof finished)\n")


def _unknown():
    from flipgame.verify.proofs.certify import Certification, CertStatus

    return Certification(CertStatus.UNKNOWN, 4, 0, 0, 0.0, 0.0, "certification not finished within 0 s")


class _Stdin:
    """Standard input for an in-process ``main``: the file descriptor of a pipe holding ``text``."""

    def __init__(self, text: str):
        r, w = os.pipe()
        os.write(w, text.encode())
        os.close(w)
        self.fd = r

    def fileno(self) -> int:
        return self.fd


# --- issue 29: lies and faults are named ------------------------------------------------------------------


def test_a_wrong_model_is_a_rejected_witness_exit_3_naming_the_program(tmp_path, capsys):
    liar = script(tmp_path, "model-liar.sh", "printf 's SATISFIABLE\\nv 1 0\\n'")
    code, out, err = solve_cli("--solver-cmd", f"{liar} {{file}}", capsys=capsys)
    assert (code, out) == (ExitCode.WITNESS_FAILURE, "Error\n")
    assert err == (f"flipgame: case 1: external ({liar}) witness rejected: pressing the witness gives board "
                          f"{POJ_SAMPLE_CELLS ^ 0b10011}, not the claimed target 0\n")


def test_no_answer_names_the_command_its_exit_status_and_the_tail_of_its_output(tmp_path, capsys):
    crash = script(tmp_path, "crash.sh", 'echo "c parsing"; echo "oops: no memory" >&2; exit 139')
    code, out, err = solve_cli("--solver-cmd", f"{crash} --flag {{file}}", capsys=capsys)
    assert (code, out) == (ExitCode.INCOMPLETE, "Error\n")
    assert re.fullmatch(rf"flipgame: standard input: case 1: external \({crash}\) gave no proven answer \(ERROR, "
                        rf"\d+\.\d s\): {crash} gave no answer: `{crash} --flag /\S+/instance\.cnf` exit status 139; "
                        r"output ends: c parsing \| oops: no memory\n", err), err


def test_a_script_without_its_exec_bit_is_named_as_such(tmp_path, capsys):
    path = script(tmp_path, "solver.sh", "echo hi", mode=0o644)
    assert solve_cli("--solver-cmd", f"{path} {{file}}", capsys=capsys) == (
        ExitCode.REFUSED, "", f"flipgame: {path} is not executable (chmod +x {path})\n")


# --- issue 30, item 22: garbage is ERROR naming the output ------------------------------------------------


@pytest.mark.parametrize("v_line", ["v foo bar 0", "v 1 " + "9" * 5001 + " 0"])
def test_garbage_from_a_program_is_error_quoting_its_output(tmp_path, capsys, v_line):
    (tmp_path / "answer.txt").write_text(f"s SATISFIABLE\n{v_line}\n")
    garbage = script(tmp_path, "garbage.sh", f"cat {tmp_path / 'answer.txt'}")
    code, out, err = solve_cli("--solver-cmd", f"{garbage} {{file}}", capsys=capsys)
    assert (code, out) == (ExitCode.INCOMPLETE, "Error\n")
    bad = "foo" if "foo" in v_line else "9" * 60 + "..."
    assert f"{garbage} printed no answer: line 2 " in err and f"'{bad}' is not a literal" in err
    tail = "s SATISFIABLE | v foo bar 0)" if "foo" in v_line else "9" * 100  # the long line's end, cut in one_line
    assert f"(`{garbage} " in err and "exit status 0; output ends: " in err and tail in err.split("output ends:")[1]
    assert err.count("\n") == 1


@pytest.mark.parametrize("answer, fmt, why", [
    ("s OPTIMUM FOUND\\nv x1 x6 x8 x9 -x1\\n", "opb", "line 2 'v x1 x6 x8 x9 -x1': variable 1 is both true and false"),
    ("s SATISFIABLE\\ns UNSATISFIABLE\\n", "cnf", "its 's' lines disagree: 'SATISFIABLE', then 'UNSATISFIABLE'"),
], ids=["x1 and -x1", "SAT then UNSAT"])
def test_a_contradictory_answer_is_no_answer(tmp_path, capsys, answer, fmt, why):
    """A model setting x1 both ways was read as x1 true (the POJ sample's 4, exit 0), and of two 's' lines
    that differ the last was taken."""
    prog = script(tmp_path, "contradicts.sh", f"printf '{answer}'")
    code, out, err = solve_cli("--solver-cmd", f"{prog} {{file}}", "--solver-format", fmt, capsys=capsys)
    assert (code, out) == (ExitCode.INCOMPLETE, "Error\n") and f"{prog} printed no answer: {why}" in err, err


def test_control_characters_in_a_programs_output_are_escaped_in_the_message(tmp_path, capsys):
    """The tail quoted for a program that gave no answer wrote its NUL bytes and terminal escapes to the
    terminal as they were (``head -c 1G /dev/zero`` put 200 NULs into the line)."""
    rude = script(tmp_path, "rude.sh", r"printf '\000\000\033[2Jcleared\r\n'; printf 'oops\007\n' >&2; exit 3")
    code, out, err = solve_cli("--solver-cmd", f"{rude} {{file}}", capsys=capsys)
    assert (code, out) == (ExitCode.INCOMPLETE, "Error\n")
    assert err.endswith(r"exit status 3; output ends: \x00\x00\x1b[2Jcleared | oops\x07" + "\n"), err
    assert err[:-1].isprintable()


@pytest.mark.parametrize("leave, why", [("mkfifo \"$2\"", "is not a regular file"),
                                        ("ln -s /dev/zero \"$2\"", "is a symbolic link")], ids=["fifo", "symlink"])
def test_a_result_file_that_is_a_fifo_or_a_link_is_no_answer(tmp_path, leave, why):
    """A program that left a FIFO as its result file had flipgame wait for a writer forever, past the time
    limit; a link to /dev/zero was read for 64 MiB."""
    prog = script(tmp_path, "leaves.sh", f'rm -f "$2"; {leave}')
    s = solve(POJ_SAMPLE, "external", command=f"{prog} {{file}} {{out}}", answer="minisat", time_limit=5)
    assert s.status is Status.ERROR and s.stats["error"].startswith(
        f"{prog} printed no answer: its result file {why} (`{prog} "), s.stats["error"]


def test_more_literals_than_the_instance_has_variables_is_no_answer(tmp_path):
    flood = script(tmp_path, "flood.sh", 'echo "s SATISFIABLE"; yes "v 1 2 3 4 5 6 7 8" | head -c 20000000')
    s = solve(POJ_SAMPLE, "external", command=f"{flood} {{file}}")
    assert s.status is Status.ERROR and "more literals than the instance has variables" in s.stats["error"]


# --- issue 30, item 7: a program printing gigabytes -------------------------------------------------------


MEASURED = """
import resource, subprocess, sys
run = subprocess.run(sys.argv[2:], input=sys.argv[1], capture_output=True, text=True)
print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.stdout.write(run.stdout + run.stderr)
"""
"""Runs a command from a small Python and prints its exit code and peak memory (KiB), then its output: a child
of this (large) test process would count this process's pages in its ``ru_maxrss``."""


def test_a_program_printing_1_gb_is_killed_past_the_cap_and_flipgame_stays_small(tmp_path):
    flood = script(tmp_path, "gigabyte.sh", "head -c 1000000000 /dev/zero")
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", MEASURED, POJ_SAMPLE_TEXT, sys.executable, "-m", "flipgame", "solve",
                          "--solver-cmd", f"{flood} {{file}}", "--time-limit", "8"], capture_output=True, text=True,
                         timeout=120).stdout
    code, peak_kib = map(int, out.split("\n", 1)[0].split())
    assert code == ExitCode.INCOMPLETE and out.split("\n")[1] == "Error"
    assert f"killed: printed more than {OUTPUT_MAX_BYTES >> 20} MiB" in out
    assert peak_kib < 300 * 1024, f"peak {peak_kib >> 10} MB"
    assert_within(time.monotonic() - start, 8 + 1, "a program printing 1 GB under an 8 s limit")


def test_run_bounded_keeps_at_most_the_cap_and_kills_the_program():
    r = run_bounded(["sh", "-c", "head -c 100000000 /dev/zero; echo finished >&2"], 30, output_cap=1 << 20)
    assert r.over_cap and len(r.stdout) == 1 << 20 and r.signal is not None and b"finished" not in r.stderr_tail


# --- issue 30, item 25: the process group is killed after every run ---------------------------------------


def test_a_program_that_exits_normally_leaves_no_child_running(tmp_path):
    pidfile = tmp_path / "child.pid"
    prog = script(tmp_path, "forker.sh", f"sleep 100 &\necho $! > {pidfile}\n"
                                         f"if grep -q 'at most' \"$1\"; then echo 's UNSATISFIABLE'; "
                                         "else printf 's SATISFIABLE\\nv 1 6 8 9 0\\n'; fi")
    s = solve(POJ_SAMPLE, "external", command=f"{prog} {{file}}")
    assert s.moves == 4 and s.stats["calls"] == 2
    time.sleep(0.1)
    assert not alive(int(pidfile.read_text()))


def test_a_child_that_left_the_group_and_the_session_is_killed_too(tmp_path):
    """A child started by ``setsid`` has a group and a session of its own: the group kill missed it, and it
    ran on after flipgame (a daemon that held the output pipe also kept a timed-out run waiting 1 s more)."""
    need_program("setsid")
    pidfile = tmp_path / "daemon.pid"
    prog = script(tmp_path, "daemon.sh", f"setsid sleep 100 &\necho $! > {pidfile}\nsleep 0.05\n"
                                         f"if grep -q 'at most' \"$1\"; then echo 's UNSATISFIABLE'; "
                                         "else printf 's SATISFIABLE\\nv 1 6 8 9 0\\n'; fi")
    s = solve(POJ_SAMPLE, "external", command=f"{prog} {{file}}")
    assert s.moves == 4
    time.sleep(0.1)
    assert not alive(int(pidfile.read_text()))
    r = run_bounded(["sh", "-c", f"setsid sleep 100 & echo $! > {pidfile}; sleep 100"], 0.5)
    time.sleep(0.1)
    assert r.timed_out and not alive(int(pidfile.read_text()))
    assert_within(r.wall, 1.0, "a 0.5 s limit with a daemon holding the pipe")


def test_the_time_limit_kills_a_program_whose_child_holds_the_pipe(tmp_path):
    r = run_bounded(["sh", "-c", "sleep 30 & echo started; sleep 30"], 0.3)
    assert r.timed_out and r.stdout == b"started\n" and r.ended == "killed at the time limit"
    assert_within(r.wall, 1.3, "a 0.3 s limit")


# --- measurement, as runsolver does it --------------------------------------------------------------------


def test_a_run_is_measured_wall_cpu_and_peak_memory():
    r = run_bounded([sys.executable, "-c", "x = b'x' * (150 << 20); s = sum(range(3_000_000))"], 60)
    assert r.exit_status == 0 and r.signal is None
    assert r.peak_rss >= 150 << 20 and r.cpu > 0 and r.wall > 0
    assert set(r.measures()) == {"wall", "cpu", "peak_rss", "exit_status", "signal", "termination",
                                 "measured_by"}


def test_a_wrapper_scripts_peak_memory_is_its_solvers_not_the_shells():
    """Smaller than this process, the program's peak is sampled: over its whole tree, so that the solver a
    wrapper script runs is seen (the shell alone peaks at a few MiB)."""
    ballast = b"x" * (300 << 20)  # this process larger than the program: the fork's copy hides the program
    solver = f"{sys.executable} -S -c 'x = b\"y\" * (80 << 20); import time; time.sleep(0.3)'"
    r = run_bounded(["sh", "-c", f"{solver}; echo done"], 60)
    assert r.exit_status == 0 and r.stdout == b"done\n" and len(ballast) == 300 << 20
    assert 80 << 20 <= r.peak_rss < 300 << 20


def test_the_memory_limit_is_enforced_on_the_program():
    r = run_bounded([sys.executable, "-c", "x = bytearray(1 << 30)"], 60, memory_limit=300 << 20)
    assert r.exit_status == 1 and b"MemoryError" in r.stderr_tail


def test_run_function_returns_the_value_or_names_the_error_or_the_time_out():
    assert run_function("operator:add", (2, 3), 60).value == 5
    assert run_function("operator:truediv", (1, 0), 60).error == "ZeroDivisionError: division by zero"
    slow = run_function("time:sleep", (30,), 0.3)
    assert slow.error == "not finished within 0.3 s" and slow.run.timed_out


def test_an_in_process_strategy_runs_in_a_measured_killable_child():
    """The study's API: a strategy solved by run_function, its Solution back, the run measured."""
    got = run_function("flipgame.pipeline.gate:solve_strategy", ("gauss", POJ_SAMPLE_CELLS, Game(4, 4)), 60)
    assert got.ok and got.value.moves == 4 and got.value.stats["nullity"] == 4
    assert got.run.cpu > 0 and got.run.peak_rss > 10 << 20 and got.run.exit_status == 0


def test_a_program_answer_carries_wall_cpu_peak_memory_and_version():
    need_program("cadical")
    s = solve(POJ_SAMPLE, "cadical")
    assert s.moves == 4 and s.stats["program"] == "cadical" and s.stats["calls"] >= 2
    assert s.stats["wall"] > 0 and s.stats["cpu"] > 0 and s.stats["time_limit"] > 0
    assert 0 < s.stats["export_seconds"] < s.stats["wall"] + 1  # writing the files: a figure of its own
    assert s.stats["peak_rss"] is None or 1 << 20 < s.stats["peak_rss"] < 1 << 30  # None: ended before a sample
    assert re.search(r"[0-9]", s.stats["version"])


# --- issue 29: any program is a strategy, everywhere ------------------------------------------------------


def minisat_wrapper(tmp_path) -> str:
    """A shell script wrapping minisat, answering in the SAT competition's s/v lines."""
    return script(tmp_path, "my-minisat.sh", 'out=$(mktemp); minisat -verb=0 "$1" "$out" >/dev/null 2>&1\n'
                  'case "$(head -1 "$out")" in SAT) echo "s SATISFIABLE"; echo "v $(tail -1 "$out")";; '
                  'UNSAT) echo "s UNSATISFIABLE";; *) echo "s UNKNOWN";; esac\nrm -f "$out"')


def strategies_toml(tmp_path, **programs: str) -> str:
    path = tmp_path / "strategies.toml"
    path.write_text("".join(f'[{name}]\ncommand = "{command} {{file}}"\nformat = "cnf"\n'
                            f'version = "echo {name} 1.0"\n\n' for name, command in programs.items()))
    return str(path)


def test_a_study_whose_every_run_failed_exits_incomplete(tmp_path):
    """Break-it: a study of one strategy that crashed on every board exited 0 with a table of ERRORs."""
    toml = strategies_toml(tmp_path, broken=script(tmp_path, "broken.sh", "exit 3"))
    out = flipgame("study", "--strategies-file", toml, "--strategies", "broken", "--families", "random",
                   "--sizes", "3", "--boards", "2")
    assert out.returncode == ExitCode.INCOMPLETE, out.stderr
    assert "flipgame: every one of the 2 runs failed (ERROR: see the notes in the table and --csv)" in out.stderr


def test_a_minisat_wrapper_runs_in_study_beside_gauss_and_cadical_and_the_liars_are_flagged(tmp_path):
    need_program("minisat")
    need_program("cadical")
    model_liar = script(tmp_path, "model-liar.sh", "printf 's SATISFIABLE\\nv 1 0\\n'")
    unsat_liar = script(tmp_path, "unsat-liar.sh", "echo 's UNSATISFIABLE'")
    toml = strategies_toml(tmp_path, mine=minisat_wrapper(tmp_path), wrong=model_liar, unsat=unsat_liar)
    out = flipgame("study", "--strategies-file", toml, "--strategies", "gauss,mine,cadical,wrong,unsat",
                   "--families", "random", "--sizes", "4", "--boards", "2", "--csv", str(tmp_path / "runs.csv"))
    assert out.returncode == ExitCode.DISAGREEMENT, out.stderr
    solved = dict(re.findall(r"^  (\S+) +(\d+) of 2 ", out.stdout, flags=re.M))
    assert solved == {"gauss": "2", "mine": "2", "cadical": "2", "wrong": "0", "unsat": "0", "VBS": "2"}
    assert re.search(r"random 4x4 board 0: wrong answered \d+: witness rejected", out.stdout)
    assert ("random 4x4 board 0: unsat answered Impossible: answer rejected: says Impossible, but a goal board is "
            "reachable (no parity certificate exists)") in out.stdout
    with open(tmp_path / "runs.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["strategy"] in ("mine", "wrong", "unsat")]
    for r in rows:  # every run measured and the program's version recorded, liars included
        assert float(r["wall_seconds"]) > 0 and float(r["cpu_seconds"]) >= 0 and float(r["peak_rss_mib"]) > 0
        assert float(r["export_seconds"]) > 0 and r["solver_version"] == f"{r['strategy']} 1.0"
    assert [(r["strategy"], r["solved"], bool(r["flag"])) for r in rows] == [
        ("mine", "True", False), ("wrong", "False", True), ("unsat", "False", True)] * 2


def test_a_minisat_wrapper_runs_in_verify_and_solve_under_its_own_name(tmp_path, capsys):
    need_program("minisat")
    toml = strategies_toml(tmp_path, mine=minisat_wrapper(tmp_path))
    out = flipgame("verify", "--strategies-file", toml, "--strategies", "gauss,mine", "--size", "3x3",
                   "--sample", "12", "--report", str(tmp_path / "report.json"))
    assert out.returncode == ExitCode.OK, out.stderr
    assert "All backends agree on every board; every witness checks out." in out.stdout + out.stderr
    code, out, err = solve_cli("--strategies-file", toml, "--strategy", "mine", "--stats", capsys=capsys)
    assert (code, out) == (0, "4\n") and "version=mine 1.0" in err


@pytest.mark.slow
def test_a_strategy_from_a_file_runs_in_verifys_worker_processes(tmp_path):
    """Spawned workers know only the built-in strategies: the file's reach them with each chunk."""
    need_program("minisat")
    toml = strategies_toml(tmp_path, mine=minisat_wrapper(tmp_path))
    out = flipgame("verify", "--strategies-file", toml, "--strategies", "gauss,mine", "--size", "3x3",
                   "--sample", "12", "--jobs", "2", "--chunk-size", "4", "--report", str(tmp_path / "report.json"))
    assert out.returncode == ExitCode.OK, out.stderr


def test_a_worker_solves_a_run_time_strategy_it_is_sent_without_registering_it(tmp_path):
    import pickle

    from flipgame import BoardSet, get_backend
    from flipgame.pipeline.chunks import solve_chunk

    strategies_file.load(strategies_toml(tmp_path, mine="/bin/false"))
    sent = pickle.loads(pickle.dumps(get_backend("mine")))  # as a worker receives it
    del STRATEGIES["mine"]  # as in a freshly spawned worker
    assert sent.strategy.options == {"command": "/bin/false {file}", "format": "cnf", "version": "echo mine 1.0"}
    batch = solve_chunk(sent, BoardSet.of(Game(2, 2), [1]), {}).batch
    assert batch.status.tolist() == [Status.ERROR] and "gave no answer" in batch.stats["errors"][0]


def test_study_takes_the_solver_cmd_program_as_the_strategy_external(tmp_path):
    prog = script(tmp_path, "sample-only.sh", 'if grep -q "at most" "$1"; then echo "s UNSATISFIABLE"; '
                                              "else printf 's SATISFIABLE\\nv 1 6 8 9 0\\n'; fi")
    out = flipgame("study", "--strategies", "gauss,external", "--solver-cmd", f"{prog} {{file}}",
                   "--families", "random", "--sizes", "3", "--boards", "1")
    assert "unknown strategy" not in out.stderr and "do not apply" not in out.stderr
    # one instance, run under its own name; the wrapper's fixed press set does not solve this 3x3 board, so its
    # answer is flagged (witness rejected) and never counted as solved: instances 1, solved 0, ..., flagged 1
    assert re.search(r"^  external +1 +0 +0 +0 +0 +0 +1 ", out.stdout, flags=re.M), out.stdout + out.stderr
    assert out.returncode == 1 and "witness rejected" in out.stderr


@pytest.mark.parametrize(("text", "message"), [
    ('[mine]\nformat = "cnf"\n', r": \[mine\]: missing command \(a command with \{file\}\)"),
    ('[mine]\ncommand = "x {file}"\n', r": \[mine\]: missing format \(one of cnf, xcnf, wcnf, opb, opb-xor, mps, lp\)"),
    ('[mine]\ncommand = "x {file}"\nformat = "cnf"\ncolour = "red"\n', r": \[mine\]: unknown key 'colour'"),
    ('[mine]\ncommand = "x"\nformat = "cnf"\n', r": \[mine\]: command must name the instance file as \{file\}"),
    ('[mine]\ncommand = "x {file}"\nformat = "dimacs"\n', r": \[mine\]: format: 'dimacs' is not one of cnf, "),
    ('[cadical]\ncommand = "x {file}"\nformat = "cnf"\n', r": \[cadical\]: 'cadical' is a built-in strategy name"),
    ("[mine\n", r": not TOML: "),
    ('[mine]\ncommand = 5\nformat = "cnf"\n', r": \[mine\]: command must be a string"),
])
def test_a_wrong_strategies_file_is_one_line_naming_the_table(tmp_path, capsys, text, message):
    path = tmp_path / "s.toml"
    path.write_text(text)
    with pytest.raises(strategies_file.StrategiesFileError, match=rf"^--strategies-file {path}{message}"):
        strategies_file.load(str(path))
    assert main(["solve", "--strategies-file", str(path), "--strategy", "mine"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert re.fullmatch(rf"flipgame: --strategies-file {path}{message}.*\n", err)


def test_a_strategies_file_registers_its_programs_under_their_names(tmp_path):
    names = strategies_file.load(strategies_toml(tmp_path, alpha="/bin/a", beta="/bin/b"))
    assert names == ["alpha", "beta"]
    assert STRATEGIES["beta"].options == {"command": "/bin/b {file}", "format": "cnf", "version": "echo beta 1.0"}


SOLVERS_MD = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "solvers.md")


@pytest.mark.skipif(not os.path.exists(SOLVERS_MD), reason="docs/ is not beside the tests")
def test_the_worked_examples_of_docs_solvers_md_load_and_answer_the_sample(tmp_path, monkeypatch):
    """Every TOML block of docs/solvers.md is a valid strategies file; each installed program answers 4."""
    with open(SOLVERS_MD, encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"```toml\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 3  # a SAT, a MaxSAT and a MIP program
    (wrapper_text,) = re.findall(r"```sh\n(.*?)```", text, flags=re.S)  # the wrapper the SAT example registers
    wrapper = script(tmp_path, "my-minisat.sh", wrapper_text.removeprefix("#!/bin/sh\n"))
    names = []
    for i, block in enumerate(blocks):
        path = tmp_path / f"example{i}.toml"
        path.write_text(block.replace("/path/to/my-minisat.sh", wrapper))
        names += strategies_file.load(str(path))
    assert names == ["my-cadical", "my-minisat", "wrapped-minisat", "rc2-program", "my-cbc"]
    bin_dir = os.path.dirname(sys.executable)  # rc2.py is installed beside this Python
    monkeypatch.setenv("PATH", os.environ["PATH"] + os.pathsep + bin_dir)
    for name in names:
        program = "minisat" if name == "wrapped-minisat" else STRATEGIES[name].options["command"].split()[0]
        if shutil.which(program):
            assert solve(POJ_SAMPLE, name).moves == 4, name


def test_solver_cmd_does_not_silently_replace_a_named_strategys_program(capsys):
    assert main(["solve", "--strategy", "picosat", "--solver-cmd", "my-solver.sh {file}"]) == ExitCode.USAGE
    assert capsys.readouterr().err == ("flipgame: --solver-cmd and its --solver-* flags define a program; the "
                                       "strategy picosat has its own (give one or the other)\n")


def test_a_program_dies_with_flipgame_even_when_flipgame_is_killed(tmp_path):
    """SIGKILL to the parent: the kernel kills the program (PR_SET_PDEATHSIG through setpriv)."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is not installed (apt-get install util-linux)")
    pidfile = tmp_path / "program.pid"
    parent = subprocess.Popen([sys.executable, "-c", "import sys; from flipgame.core.processes import run_bounded; "
                               f"run_bounded(['sh', '-c', 'echo $$ > {pidfile}; exec sleep 100'], 100)"])
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    program = int(pidfile.read_text())
    assert alive(program)
    parent.kill()
    parent.wait()
    time.sleep(0.2)
    assert not alive(program)


def test_a_double_forking_program_leaves_no_process_behind(tmp_path):
    """A program whose child calls setsid() and forks a grandchild, then exits, left the grandchild running
    after flipgame ended: flipgame is now its subreaper, and kills what it adopts when the run ends."""
    from flipgame.core.processes import run_bounded

    pidfile = tmp_path / "pid"
    prog = script(tmp_path, "dfork.sh", f"setsid sh -c 'sleep 60 >/dev/null 2>&1 & echo $! > {pidfile}' &\n"
                                        "sleep 0.3\necho 's UNKNOWN'")
    r = run_bounded([prog], 30)
    assert r.exit_status == 0 and r.stdout == b"s UNKNOWN\n"
    grandchild = int(pidfile.read_text())
    assert not alive(grandchild)


def test_a_study_whose_runs_all_fail_exits_non_zero(tmp_path):
    toml = strategies_toml(tmp_path, broken="/bin/false")
    out = flipgame("study", "--strategies-file", toml, "--strategies", "broken", "--families", "random", "--sizes",
                   "4", "--boards", "2", "--in-process")
    assert out.returncode == ExitCode.INCOMPLETE, out.stderr
    assert out.stderr.splitlines()[-1] == "flipgame: every one of the 2 runs failed (ERROR: see the notes in the " \
                                          "table and --csv)"


def test_a_small_program_s_peak_is_its_own_after_flipgame_grew_and_shrank():
    """Linux put the peak of flipgame's own memory (vfork-shared until exec) in a program's ru_maxrss: an 80 MiB
    program was reported at 1.6 GiB after a large bfs table had been freed."""
    import numpy as np

    grown = np.ones(800 << 20, dtype=np.uint8)
    del grown
    r = run_bounded([sys.executable, "-S", "-c", "x = b'y' * (80 << 20); import time; time.sleep(0.3)"], 30)
    assert r.peak_rss is None or (80 << 20) <= r.peak_rss < (300 << 20)

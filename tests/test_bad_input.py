"""Bad input of every kind (files, numbers, JSON, boards, option values, names) ends in one clear line and a
non-zero exit, never a traceback, a hang or all of the memory; the Python API raises a FlipgameError."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import assert_within

MEMORY_CAP = 3 << 30
"""Address space of each child process, in bytes (flipgame with OR-Tools loaded maps about 0.3 GB)."""
HANG = 120
"""Seconds after which a child is taken to hang (a hang detector, far above any bound checked)."""


def _capped() -> None:
    """``preexec_fn``: the memory cap, and SIGINT back to its default (a test run in the background ignores it)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(*args: str, stdin_file: str = "/dev/null") -> subprocess.CompletedProcess:
    """``python -m flipgame *args < stdin_file`` in a child process under the memory cap; text output."""
    with open(stdin_file, "rb") as fh:
        return subprocess.run([sys.executable, "-m", "flipgame", *args], stdin=fh, capture_output=True, text=True,
                              errors="replace", timeout=HANG, preexec_fn=_capped)


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """``flipgame *args`` in this process (``flipgame.cli.main``), ``stdin`` as its standard input (text, or
    a file name with ``stdin_file``): a CompletedProcess of the exit code and the captured output."""
    from flipgame.cli import main

    def call(*args: str, stdin: str = "", stdin_file: str | None = None) -> subprocess.CompletedProcess:
        if stdin_file is None:
            stdin_file = tmp_path / "stdin.txt"
            stdin_file.write_text(stdin)
        capsys.readouterr()
        with open(stdin_file, "rb") as fh:
            monkeypatch.setattr(sys, "stdin", fh)
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code
        out = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out.out, out.err)

    return call


def one_line(r: subprocess.CompletedProcess, code: int, *words: str, longest: int = 400) -> str:
    """Assert that ``r`` exited ``code`` with one short line on stderr (no traceback) holding ``words``."""
    err = r.stderr.strip()
    assert r.returncode == code, (r.returncode, err[-2000:])
    assert "Traceback" not in err and len(err.splitlines()) == 1 and len(err) <= longest, err[-2000:]
    for w in words:
        assert w in err, err
    return err


def python(code: str, timeout: float = HANG) -> subprocess.CompletedProcess:
    """A Python snippet in a child process (a crash there must not take pytest down)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=_capped)


ZERO_INPUTS = [
    (["solve", "--states", "3"], "line longer than"),
    (["solve", "--format", "aoc2025-10"], "line longer than"),
    (["solve", "--format", "poj1830"], "line longer than"),
    (["solve", "--rules", "-"], "over 64 MiB"),
]


HUGE_RULES = [
    ("edges.txt", "0 999999999\n", "edge list line 1: 1,000,000,000 vertices"),
    ("cells.txt", "cells 1000000000\n0 1\n", "edge list line 1: 1,000,000,000 vertices"),
    ("cells.json", '{"cells": 1e9, "buttons": [[0]]}', '"cells" must be an integer 1..10,000'),
    ("grid.json", '{"grid": "99999x99999", "edges": [[0, 1]]}', '"grid" must be "RxC" with 1..10,000 cells'),
]


def _time_v(args: list[str], stdin_file: str) -> tuple[int, float, int, str]:
    """``/usr/bin/time -v flipgame args < stdin_file``: (exit code, user + system CPU seconds, peak RSS in
    bytes, flipgame's stderr)."""
    with open(stdin_file, "rb") as fh:
        r = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "flipgame", *args], stdin=fh,
                           capture_output=True, text=True, timeout=HANG, preexec_fn=_capped)
    stats = dict(re.findall(r"^\s*(.+?): (.+)$", r.stderr, flags=re.M))
    cpu = float(stats["User time (seconds)"]) + float(stats["System time (seconds)"])
    ours = "\n".join(line for line in r.stderr.splitlines() if line.startswith("flipgame"))
    return r.returncode, cpu, int(stats["Maximum resident set size (kbytes)"]) * 1024, ours


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("suite") / "suite"
    r = subprocess.run([sys.executable, "-m", "flipgame", "export-suite", str(root), "--families", "random",
                        "--sizes", "3", "--boards", "1"], capture_output=True, text=True, timeout=HANG)
    assert r.returncode == 0, r.stderr
    return root


def _copy_suite(suite, tmp_path):
    root = tmp_path / "suite"
    shutil.copytree(suite, root)
    return root


def _rules(tmp_path, text: str, name: str = "rules.json") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


DIGITS = "1" * 5000


LONG_NUMBERS = [
    (["--rules", "json"], "", '{"cells": ' + DIGITS + ', "buttons": [[0]]}', "press-system file"),
    (["--rules", "edges"], "", f"0 {DIGITS}\n", "edge list line 1"),
    (["--states", "3", "--size", "1x3", "--goal", "0"], f"1 {DIGITS} 2\n", None, "line 1"),
    (["--states", "counters", "--size", "1x3", "--goal", "5", "--backend", "cpsat"], f"{DIGITS} 1 2\n", None,
     "line 1"),
    (["--format", "poj1830"], f"1\n3\n0 0 0\n1 1 1\n1 {DIGITS}\n0 0\n", None, "line 5"),
    (["--format", "aoc2025-10"], f"[.#] (0,{DIGITS}) {{3,5}}\n", None, "line 1"),
    (["--format", "painter"], f"1\n{DIGITS}\n", None, "line 2"),
    (["--format", "fliptile"], f"{DIGITS} 3\n", None, "line 1"),
    (["--states", "counters", "--size", "1x3", "--backend", "cpsat", "--goal", DIGITS], "0 1 2\n", None, "--goal"),
]


SUPERSCRIPT = [
    (["--rules", "edges"], "", "0 \u00b2\n", "edge list line 1"),
    (["--states", "3", "--size", "1x3"], "0 \u00b2 1\n", None, "expected numbers separated by spaces"),
    (["--states", "3", "--size", "1x3"], "0\u00b21\n", None, "expected states 0..2"),
    (["--format", "poj1830"], "1\n3\n0 0 0\n1 1 1\n1 \u00b2\n0 0\n", None, "expected J of a pair"),
]


MANIFESTS = [
    ("string", lambda d: d["instances"].__setitem__(0, "random-3x3-0"), "instance 1 is a JSON string, not an object"),
    ("dict", lambda d: d.__setitem__("instances", {"a": d["instances"][0]}), 'whose "instances" is a list'),
    ("deep", lambda d: d.__setitem__("comment", "DEEP"), "nested too deep"),
]


BOUNDLESS = [
    (["export-suite", "suite", "--boards", "99999999999"], "--boards: expected a whole number from 1 to 1,000"),
    (["study", "--strategies", "gauss", "--boards", "99999999999"], "argument --boards: expected a whole number"),
    (["bench", "--size", "2x2", "--startup-runs", "101"], "--startup-runs: expected a whole number from 1 to 100"),
    (["study", "--size", "3x3", "--backends", "gauss", "--sample", "65537"], "from 1 to 65,536"),
    (["study", "--strategies", "gauss", "--time-limit", "1e300"],
     "--time-limit: expected a positive number of seconds, at most 1,000,000, got '1e300'"),
    (["study", "--strategies", "gauss", "--budget", "1e7"], "argument --budget: expected a positive number of seconds"),
    (["verify", "--size", "2x2", "--sample", "3", "--seed", "9" * 5000], "argument --seed: expected a non-negative "
                                                                          "integer seed of at most 100 digits"),
    (["solve", "--states", "1" * 5000], "argument --states: expected a number of states 2..255"),
    (["verify", "--size", "2x2", "--jobs", str(4 * (os.cpu_count() or 1) + 1)], "argument --jobs: expected a whole "
                                                                               "number from 1 to"),
]


API_FAULTS = [
    ("a grid of 10^18 cells", lambda f: f.solve(0, game=f.Game(10**9, 10**9)), "a grid has at most 4,000,000 cells"),
    ("a command that is a number", lambda f: f.solve(5, "external", game=f.Game(4, 4), command=5), "expected text"),
    ("canonical='no'", lambda f: f.solve(5, "gauss", game=f.Game(4, 4), canonical="no"), "expected True or False"),
    ("an unknown strategy", lambda f: f.solve_strategy("nope", 5, f.Game(4, 4)), "unknown strategy 'nope'"),
    ("max_models=nan", lambda f: f.Session("cpsat", max_models=float("nan")), "max_models must be a positive"),
    ("register('x')", lambda f: f.register("x"), "register takes a Backend"),
    ("a float vertex", lambda f: f.from_edges(3, [(0.5, 1)]), "names a vertex that is not an integer"),
    ("an edge list of bytes", lambda f: f.read_edge_list(b"0 1"), "an edge list is text (str), got bytes"),
    ("cases of bytes", lambda f: list(f.read_cases(b"bwwb\n")), "got bytes: decode them first"),
]


def test_a_board_file_past_16_mib_is_read_to_its_end(cli, tmp_path):
    """Item 3: a press-system board file was cut at 16 MiB (``fh.read(1 << 24)``): its last boards were
    dropped with exit 0.  17 MB of blank lines, then five boards: five answers."""
    path = tmp_path / "boards.txt"
    path.write_text((" " * 70 + "\n") * 240_000 + "0120\n2201\n0000\n1111\n2222\n")
    assert path.stat().st_size > 1 << 24
    r = cli("solve", "--states", "3", "--size", "1x4", "--goal", "0", str(path))
    assert (r.returncode, r.stdout.split()) == (0, ["6", "3", "0", "4", "2"]), r.stderr


@pytest.mark.parametrize("args, words", ZERO_INPUTS, ids=["states", "aoc", "poj1830", "rules"])
def test_standard_input_of_zero_bytes_ends_in_one_line(args, words):
    """Item 8: ``solve --states 3 < /dev/zero`` (and aoc2025-10, poj1830, --rules -) grew until out of memory."""
    one_line(run(*args, stdin_file="/dev/zero"), 2, words)


@pytest.mark.parametrize("name, text, words", HUGE_RULES, ids=[h[0] for h in HUGE_RULES])
def test_huge_vertex_numbers_are_refused_before_anything_is_built(name, text, words, tmp_path):
    """Item 9: vertex 999999999, ``cells 1000000000``, ``"cells": 1e9`` and ``"grid": "99999x99999"`` built
    10^9 sets (3.8 GB, then a MemoryError traceback) before the 10,000-cell limit was checked."""
    (tmp_path / name).write_text(text)
    one_line(run("solve", "--rules", str(tmp_path / name)), 2, words)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/usr/bin/time"), reason="needs GNU time (/usr/bin/time -v)")
def test_zero_bytes_and_a_huge_vertex_end_under_1_s_and_200_mb(tmp_path):
    """Items 8 and 9, the issue's bound: one line each, under 1 s (CPU, start-up included) and 200 MB."""
    (tmp_path / "edges.txt").write_text("0 999999999\n")
    for args, stdin in ((["solve", "--states", "3"], "/dev/zero"),
                        (["solve", "--rules", str(tmp_path / "edges.txt")], "/dev/null")):
        code, cpu, rss, err = _time_v(args, stdin)
        assert code == 2 and len(err.splitlines()) == 1, err
        assert rss < 200 << 20, f"{args}: {rss >> 20} MB"
        assert_within(cpu, 1.0, f"{' '.join(args)} (CPU seconds)")


def test_study_suite_reads_a_board_file_that_is_dev_zero_in_bounds(suite, tmp_path):
    """Item 11: a suite's board file that is a symlink to /dev/zero was read whole: 3 GB, then a traceback."""
    root = _copy_suite(suite, tmp_path)
    board = root / "random-3x3-0.txt"
    board.unlink()
    board.symlink_to("/dev/zero")
    one_line(run("study", "--suite", str(root), "--strategies", "gauss"), 2, "--suite:", longest=600)


def test_json_nested_too_deep_is_one_line(cli, tmp_path):
    """Item 13: JSON nested too deep raised a RecursionError."""
    rules = _rules(tmp_path, '{"cells": 2, "buttons": [[0, 1]], "comment": ' + "[" * 100_000 + "]" * 100_000 + "}")
    one_line(cli("solve", "--rules", rules), 2, "nested too deep")


@pytest.mark.parametrize("args, stdin, rules, words", LONG_NUMBERS,
                         ids=["json", "edges", "board", "counters", "poj1830", "aoc", "painter", "fliptile", "goal"])
def test_numbers_over_4300_digits_are_one_line(cli, args, stdin, rules, words, tmp_path):
    """Item 14: numbers over 4,300 digits (Python's int <-> str limit) raised ValueError tracebacks."""
    if rules is not None:
        args = [args[0], _rules(tmp_path, rules, args[1] + ".txt")]
    one_line(cli("solve", *args, stdin=stdin), 2, words)


@pytest.mark.parametrize("amounts", [[[10**23, 1]], [[2**63 - 1, 2**63 - 1]]], ids=["1e23", "2**63-1 twice"])
def test_amounts_past_the_counter_limit_are_one_line(cli, amounts, tmp_path):
    """Item 15: amounts of 10^23, or 2^63-1 twice on one cell, raised an OverflowError."""
    buttons = [[0, 1]] if amounts[0][1] == 1 else [[0, 0]]
    rules = _rules(tmp_path, json.dumps({"cells": 2, "states": "counters", "buttons": buttons, "amounts": amounts}))
    one_line(cli("solve", "--rules", rules, "--goal", "3", "--backend", "cpsat", stdin="0 0\n"), 2,
             "button 0 adds", "amounts are 1..2147483647")


@pytest.mark.parametrize("edges", ["5", "null"])
def test_edges_that_are_not_a_list_are_one_line(cli, edges, tmp_path):
    """Item 16: ``"edges": 5`` or ``null`` raised a TypeError."""
    rules = _rules(tmp_path, '{"cells": 2, "edges": ' + edges + "}")
    one_line(cli("solve", "--rules", rules), 2, '"edges" must be a list of pairs')


@pytest.mark.parametrize("args, stdin, rules, words", SUPERSCRIPT, ids=["edges", "numbers", "symbols", "poj1830"])
def test_non_ascii_digits_are_one_line(cli, args, stdin, rules, words, tmp_path):
    """Item 17: ``\u00b2`` passes ``isdigit()`` and then crashed ``int()``, in edge lists, boards and poj1830."""
    if rules is not None:
        args = [args[0], _rules(tmp_path, rules, "edges.txt")]
    one_line(cli("solve", *args, stdin=stdin), 2, words)


def test_counter_goals_past_2_31_are_one_line(cli):
    """Item 18: a goal of 2^63 raised an OverflowError in the bounds; counters now stop at COUNTER_MAX."""
    one_line(cli("solve", "--states", "counters", "--size", "1x1", "--goal", str(2**63), "--backend", "cpsat",
                 stdin="0\n"), 2, "argument --goal", "at most 12 digits")
    one_line(cli("solve", "--states", "counters", "--size", "1x1", "--goal", str(2**31), "--backend", "cpsat",
                 stdin="0\n"), 2, "a value 0..2147483647")


def test_an_advent_of_code_line_of_1_7_million_buttons_is_one_line(cli, tmp_path):
    """Item 21: a 10 MB Advent of Code line with 1.7 M buttons tried to allocate 21 TiB."""
    path = tmp_path / "aoc.txt"
    path.write_text("[.#] " + "(0,1) " * 1_700_000 + "{3,5}\n")
    one_line(cli("solve", "--format", "aoc2025-10", str(path)), 2, "line 1")


@pytest.mark.parametrize("kind, damage, words", MANIFESTS, ids=[m[0] for m in MANIFESTS])
def test_a_damaged_suite_manifest_is_one_line(cli, kind, damage, words, suite, tmp_path):
    """Item 23: a manifest whose instance entry is a string, whose ``instances`` is a dict, or that is nested
    too deep gave tracebacks or a message about ``'str' object has no attribute 'get'``."""
    root = _copy_suite(suite, tmp_path)
    manifest = json.loads((root / "manifest.json").read_text())
    damage(manifest)
    text = json.dumps(manifest).replace('"DEEP"', "[" * 100_000 + "]" * 100_000)
    (root / "manifest.json").write_text(text)
    one_line(cli("study", "--suite", str(root), "--strategies", "gauss"), 2, words)


@pytest.mark.parametrize("boards", [np.array([object()]), [[1, 2]], "abc", ["1", "2"], None],
                         ids=["objects", "nested list", "string", "strings", "None"])
def test_solve_batch_refuses_what_is_not_bitmasks_as_a_flipgame_error(boards):
    """Item 24: solve_batch with object, list or string input raised TypeError, ValueError or OverflowError
    (or parsed the strings)."""
    from flipgame import FlipgameError, Game, solve_batch

    with pytest.raises(FlipgameError, match="bitmask"):
        solve_batch(boards, Game(2, 2))


@pytest.mark.needs("dratify")
def test_check_proof_files_refuses_a_binary_proof_and_a_device_as_a_flipgame_error(tmp_path):
    """Item 24: check_proof_files raised UnicodeDecodeError on a binary proof and read /dev/urandom forever."""
    from flipgame import FlipgameError
    from flipgame.verify.proofs.proof_check import check_proof_files

    cnf, proof = tmp_path / "f.cnf", tmp_path / "f.drat"
    cnf.write_text("p cnf 1 2\n1 0\n-1 0\n")
    proof.write_text("0\n")
    assert check_proof_files(cnf, proof) is True
    proof.write_bytes(b"1 2 \xff\xfe 0\n")
    with pytest.raises(FlipgameError, match="f.drat"):
        check_proof_files(cnf, proof)
    proof.write_bytes(bytes([0x61, 0xFF, 0xFF, 0x80]))
    with pytest.raises(FlipgameError, match="truncated"):
        check_proof_files(cnf, proof)
    with pytest.raises(FlipgameError, match="not a regular file"):
        check_proof_files(cnf, "/dev/urandom")
    with pytest.raises(FlipgameError, match="not a regular file"):
        check_proof_files("/dev/zero", proof)


@pytest.mark.needs("dratify")
@pytest.mark.parametrize("text, words", [
    ("p cnf 2 1\n1 2 0 0\n", "header says 2 variables and 1 clauses; the body has 2 clauses"),
    ("p cnf 2 1\n1 2 0\np cnf 3 1\n3 0\n", "found 2"),
    ("p cnf 2 3\n1 2 0\n", "the body has 1 clauses"),
    ("p cnf 1 2\n1 -0 -1 0\n", "'-0'"),
    ("1 0\n-1 0\n", "found 0"),
    ("p cnf 1 2\n1 0\n-2 0\n", "names variable 2"),
    ("p cnf 1 2\n1 0\n-1\n", "no ending 0"),
], ids=["an empty clause past the count", "a second header", "clauses missing", "-0", "no header", "a variable past V",
        "an open last clause"])
def test_check_proof_files_refuses_a_cnf_unlike_its_header(tmp_path, text, words):
    """Break-it: '1 2 0 0' under 'p cnf 2 1' was read as two clauses, the second empty, and the proof '0'
    'refuted' it; so did '1 -0 -1 0', and a file with no header at all: none is the formula a header states."""
    from flipgame import FlipgameError
    from flipgame.verify.proofs.proof_check import check_proof_files

    cnf, proof = tmp_path / "f.cnf", tmp_path / "f.drat"
    cnf.write_text(text)
    proof.write_text("0\n")
    with pytest.raises(FlipgameError, match=re.escape(words)):
        check_proof_files(cnf, proof)


@pytest.mark.needs("dratify")
def test_check_proof_files_takes_a_cnf_with_a_tautology_and_comments(tmp_path):
    """The strict reading of the day before refused these: the reader drops tautologies before counting."""
    from flipgame.verify.proofs.proof_check import check_proof_files

    cnf, proof = tmp_path / "f.cnf", tmp_path / "f.drat"
    proof.write_text("0\n")
    cnf.write_text("c a tautology\np cnf 2 2\n1 -1 2 0\n-2 0\n")
    assert check_proof_files(cnf, proof) is False  # satisfiable: 1 = anything, 2 = false
    cnf.write_text("p cnf 1 3\n1 -1 0\nc between\n1 0\n-1 0\n")
    assert check_proof_files(cnf, proof) is True


def test_a_byte_order_mark_before_the_json_brace_is_read_as_json(cli, tmp_path):
    """Item 27: a BOM before ``{`` made a JSON press-system file be read as an edge list."""
    path = tmp_path / "rules.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"cells": 2, "states": 3, "buttons": [[0], [0, 1]]}')
    r = cli("solve", "--rules", str(path), "--goal", "0", stdin="12\n")
    assert (r.returncode, r.stdout) == (0, "2\n"), r.stderr


def test_a_manifest_optimum_given_as_a_number_is_taken(cli, suite, tmp_path):
    """Item 27: "the manifest says 4, gauss 4" when the manifest's optimum is a JSON number."""
    root = _copy_suite(suite, tmp_path)
    manifest = json.loads((root / "manifest.json").read_text())
    for entry in manifest["instances"]:
        if entry["optimum"].isdigit():
            entry["optimum"] = int(entry["optimum"])
    (root / "manifest.json").write_text(json.dumps(manifest))
    r = cli("study", "--suite", str(root), "--strategies", "gauss")
    assert r.returncode == 0 and "manifest says" not in r.stderr, r.stderr


def test_a_negative_int8_board_is_reported_as_minus_1():
    """Item 27: an int8 -1 was reported as 18446744073709551615 (cast to uint64 first)."""
    from flipgame import FlipgameError, Game, solve_batch

    with pytest.raises(FlipgameError, match=r"^board -1 is not a 2x2 bitmask \(0\.\.15\)$"):
        solve_batch(np.array([-1], dtype=np.int8), Game(2, 2))


def test_solve_batch_refuses_a_fractional_board():
    """Item 27: solve_batch silently truncated 1.5 to 1 (boards of two states and of three)."""
    from flipgame import FlipgameError, Game, solve_batch

    with pytest.raises(FlipgameError, match="integer bitmasks, got floats"):
        solve_batch([1.5], Game(2, 2))
    with pytest.raises(FlipgameError, match="integer states, got floats"):
        solve_batch([[1.5, 0, 0]], Game(1, 3, "0", states=3))


def test_an_upper_case_state_letter_is_refused(cli):
    """Item 27: upper-case ``B`` was read as state 11 (states are 0-9 then a-z, lower case)."""
    one_line(cli("solve", "--states", "12", "--size", "1x3", stdin="B01\n"), 2, "got 'B'")


def test_directed_given_as_text_is_refused(cli, tmp_path):
    """Item 27: ``"directed": "false"`` was taken as true (a non-empty string)."""
    rules = _rules(tmp_path, '{"cells": 2, "edges": [[0, 1]], "directed": "false"}')
    one_line(cli("solve", "--rules", rules, "--goal", "1", stdin="00\n"), 2, '"directed" must be true or false')


@pytest.mark.parametrize("args, words", BOUNDLESS, ids=["export-suite", "study-boards", "startup-runs", "study-sample",
                                                        "time-limit", "budget", "seed", "states", "jobs"])
def test_counts_and_seconds_past_their_cap_are_one_line(cli, args, words):
    """export-suite --boards 10^11 wrote files until killed, study --boards 10^11 and bench --startup-runs 10^11
    ran until killed, study took a 1e300 s limit (its PAR-2 was a 300-digit number), a 5,000-digit seed
    or --states was an 'invalid seed_int value' echoing all its digits, and verify --jobs 10**20 was reported
    as a pool of that many workers (it took four per core)."""
    one_line(cli(*args), 2, words)


@pytest.mark.parametrize("args", [["solve", "X"], ["solve", "--rules", "X"], ["solve", "--backend", "X"],
                                  ["solve", "--strategy", "X"], ["solve", "--bogusX"]],
                         ids=["file", "rules", "backend", "strategy", "unknown"])
def test_a_100000_character_value_is_not_echoed_whole(cli, args):
    """A file name, option value or unknown option of 100,000 characters was echoed in a 100 KB message."""
    long = "x" * 100_000
    err = one_line(cli(*(a.replace("X", long) for a in args)), 2, "...(", longest=700)
    assert "x" * 201 not in err


@pytest.mark.parametrize("what, call, words", API_FAULTS, ids=[a[0] for a in API_FAULTS])
def test_python_api_faults_are_flipgame_errors(what, call, words):
    """Found after item 24: each raised MemoryError, AttributeError, KeyError, ValueError or TypeError (or,
    for canonical='no', was taken as True)."""
    import flipgame
    from flipgame import FlipgameError

    with pytest.raises(FlipgameError, match=re.escape(words)):
        call(flipgame)


def test_read_cases_takes_the_whole_text_as_well_as_its_lines():
    from flipgame import read_cases

    text = "bwwb\nbbwb\nbwwb\nbwww\n"
    whole, lines = (read_cases(text), read_cases(text.splitlines()))
    assert [b.cells for b in whole] == [b.cells for b in lines] == [0b0001100110111001]


def test_a_file_name_with_a_newline_or_an_escape_is_one_printable_line(cli):
    """A newline in a file name split the message in two; a terminal escape in it reached the terminal."""
    one_line(cli("solve", "bad\nname"), 2, r"cannot read bad\nname: No such file or directory")
    one_line(cli("solve", "--rules", "bad\x1b[31mred"), 2, r"cannot read --rules bad\x1b[31mred")


def test_an_edge_list_with_a_byte_order_mark_is_read(tmp_path):
    """Refused with '\\ufeff0 1' (JSON rules and board files with one were read)."""
    from flipgame import read_edge_list
    from flipgame.cli import main

    path = tmp_path / "edges.txt"
    path.write_bytes("\ufeff0 1\n1 2\n".encode())
    assert read_edge_list(path.read_text(encoding="utf-8")).press_masks == (3, 7, 6)
    assert main(["verify", "--rules", str(path), "--report", str(tmp_path / "r.json")]) == 0


def test_a_memory_limit_no_run_can_start_in_is_refused(cli):
    one_line(cli("study", "--strategies", "gauss", "--families", "random", "--sizes", "4", "--memory-limit",
                 "0.001"), 2, "a run's process needs at least 0.2 GiB of address space to start")


@pytest.mark.parametrize(("fmt", "stdin", "answers", "case", "size"), [
    ("painter", "2\n1\nw\n99999999\nyyy\n", "1\n", 2, "99999999x99999999"),
    ("fliptile", "99999 99999\n", "", 1, "99999x99999"),
])
def test_a_case_too_large_to_read_is_named_after_the_answers_before_it(cli, fmt, stdin, answers, case, size):
    """A break-it run: the refusal said 'case 0' (the last case answered), and case 1's answer was lost."""
    r = cli("solve", "--format", fmt, stdin=stdin)
    assert (r.returncode, r.stdout) == (5, answers)
    assert r.stderr.startswith(f"flipgame: standard input: case {case}: a grid has at most 4,000,000 cells; {size}")

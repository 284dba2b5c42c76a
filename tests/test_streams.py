"""`flipgame solve` as a stream: batched chunks with the per-case output, interactive pipes,
bounded reading, and the gate's Session (one model per rule set)."""

from __future__ import annotations

import collections
import dataclasses
import io
import os
import resource
import select
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import POJ_SAMPLE_TEXT, assert_within, flipgame
from faulty_backends import FunctionBackend

from flipgame import BACKENDS, Game, Session, Solution, Status, solve, solve_batch
from flipgame.cli import ExitCode, answers, main
from flipgame.cli import solve as solve_cli
from flipgame.formats.lines import LineSource
from flipgame.model.grid import format_cells
from flipgame.verify.checks.witness import check_solution

TRAP = "wbbb\nwwww\nwwww\nwwww\n"
ALL_4X4 = "".join(format_cells(b, 4, 4) + "\n" for b in range(1 << 16))

# Solvable, Impossible, blank lines, CRLF, cells separated by spaces and tabs, trailing white space.
MIXED = ("bwwb\r\nbbwb\r\nbwwb\r\nbwww\r\n\r\n" + TRAP + "\n\n  wwww  \nwwww\nwwww\nwwww\n"
         "b b b b\nbbbb\nbbbb\n\tbbbb\n" + "bbww\r\nbwww\r\nwwww\r\nwwww\r\n" + TRAP)
MIXED_ANSWERS = ["4", "Impossible", "0", "0", "1", "Impossible"]


def run_inprocess(capsys, monkeypatch, argv: list[str], per_case: bool) -> tuple[int, str, str]:
    """``flipgame`` in this process; ``per_case`` turns the batch path off (every case solved alone)."""
    with monkeypatch.context() as m:
        if per_case:
            m.setattr(solve_cli.Stream, "batchable", lambda self, game: False)
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def without_seconds(text: str) -> str:
    return "\n".join(" ".join(w for w in line.split() if not w.startswith("seconds=")) for line in text.splitlines())


@pytest.mark.parametrize("flags", [[], ["--presses"], ["--explain"], ["--presses", "--explain", "--stats"],
                                   ["--canonical", "--presses"]])
@pytest.mark.parametrize("backend", ["gauss", "bfs"])
def test_batch_output_equals_per_case_output_on_a_mixed_file(tmp_path, capsys, monkeypatch, flags, backend):
    f = tmp_path / "mixed.txt"
    f.write_bytes(MIXED.encode())
    argv = ["solve", "--backend", backend, *flags, str(f)]
    batch = run_inprocess(capsys, monkeypatch, argv, per_case=False)
    single = run_inprocess(capsys, monkeypatch, argv, per_case=True)
    assert batch[0] == single[0] == ExitCode.OK
    assert batch[1] == single[1]
    assert without_seconds(batch[2]) == without_seconds(single[2])
    answers = [line for line in batch[1].splitlines() if line.strip(".x") and not line.startswith("certificate")]
    assert answers == MIXED_ANSWERS
    if "--presses" in flags:  # the witness of case 5 (one press at the top-left corner)
        assert "1\nx...\n....\n....\n....\n" in batch[1]
    if "--stats" in flags:
        assert batch[2].count("case ") == 6 and "case 2: 4x4 plus, goal all white or all black; INFEASIBLE" in batch[2]


def test_mixed_file_answers_and_explanations(tmp_path):
    f = tmp_path / "mixed.txt"
    f.write_bytes(MIXED.encode())
    r = flipgame("solve", str(f))
    assert (r.returncode, r.stdout.splitlines(), r.stderr) == (0, MIXED_ANSWERS, "")
    r = flipgame("solve", "--explain", str(f))
    lines = r.stdout.splitlines()
    assert lines[0] == "4" and lines.count("Impossible") == 2
    assert sum(line.startswith("certificate for all white") for line in lines) == 2
    assert sum(line.startswith("certificate for all black") for line in lines) == 2


@pytest.mark.parametrize("fmt, text", [
    ("painter", "3\n3\nyyy\nyyy\nyyy\n2\nwy\nyy\n5\nwwwww\nwwwww\nwwwww\nwwwww\nwwwww\n"),
    ("fliptile", "4 4\n1 0 0 1\n0 1 1 0\n0 1 1 0\n1 0 0 1\n2 2\n1 0\n0 0\n1 1\n1\n"),
])
def test_batch_equals_per_case_for_the_other_formats(tmp_path, capsys, monkeypatch, fmt, text):
    f = tmp_path / "cases.txt"
    f.write_text(text)
    argv = ["solve", "--format", fmt, "--presses", str(f)]
    batch = run_inprocess(capsys, monkeypatch, argv, per_case=False)
    single = run_inprocess(capsys, monkeypatch, argv, per_case=True)
    assert batch == single
    plain = run_inprocess(capsys, monkeypatch, ["solve", "--format", fmt, str(f)], per_case=False)
    assert plain[0] == ExitCode.OK
    if fmt == "fliptile":  # the POJ 3279 sample answer first
        assert plain[1].splitlines()[:4] == ["0 0 0 0", "1 0 0 1", "1 0 0 1", "0 0 0 0"]
    else:
        expected = [solve(b, game=Game(n, n, "white")).answer() for n, b in ((3, 0), (2, 1), (5, (1 << 25) - 1))]
        assert plain[1].splitlines() == [("inf" if a == "Impossible" else a) for a in expected]


def test_full_4x4_stream_gives_the_known_distribution():
    r = flipgame("solve", "--backend", "gauss", stdin=ALL_4X4)
    assert r.returncode == 0 and r.stderr == ""
    counts = collections.Counter(r.stdout.splitlines())
    assert counts == {"0": 2, "1": 32, "2": 228, "3": 880, "4": 1562, "5": 1136, "6": 256, "Impossible": 61440}
    assert r.stdout.splitlines()[:2] == ["0", "Impossible"] and r.stdout.splitlines()[-1] == "0"


@pytest.mark.slow
def test_full_4x4_stream_is_byte_identical_to_the_per_case_path(tmp_path, capsys, monkeypatch):
    f = tmp_path / "all.txt"
    f.write_text(ALL_4X4)
    batch = run_inprocess(capsys, monkeypatch, ["solve", "--presses", str(f)], per_case=False)
    single = run_inprocess(capsys, monkeypatch, ["solve", "--presses", str(f)], per_case=True)
    assert batch == single and batch[0] == 0


def test_chunks_of_different_games_keep_the_order(monkeypatch, tmp_path, capsys):
    """Painter cases change size: each run of one size is a batch; the answers stay in input order."""
    monkeypatch.setattr(answers, "STREAM_CHUNK", 3)
    sizes = [2, 2, 3, 3, 3, 3, 2, 5]
    text = f"{len(sizes)}\n" + "".join(f"{n}\n" + ("w" * n + "\n") * n for n in sizes)
    f = tmp_path / "painter.txt"
    f.write_text(text)
    code, out, _ = run_inprocess(capsys, monkeypatch, ["solve", "--format", "painter", str(f)], per_case=False)
    expected = [solve(Game(n, n, "white").full, game=Game(n, n, "white")).answer() for n in sizes]
    assert code == 0 and out.splitlines() == [("inf" if a == "Impossible" else a) for a in expected]


def test_malformed_case_after_a_chunk_of_good_ones_prints_the_good_answers_first():
    good = "".join(format_cells(b, 4, 4) + "\n" for b in range(5000))
    r = flipgame("solve", stdin=good + "bwwb\nbbxb\n")
    assert r.returncode == ExitCode.USAGE
    assert r.stdout.splitlines() == [solve(b, game=Game(4, 4)).answer() for b in range(5000)]
    assert r.stderr == ("flipgame: standard input: case 5001, line 20002: expected only 'b' or 'w' (or 1 and 0), "
                        "got 'x' in 'bbxb'\n")


def test_witness_failure_in_a_batch_is_reported_per_case(tmp_path, capsys, monkeypatch):
    def liar(game, board):  # claims board 1 (a corner) is solved by pressing nothing
        s = solve(board, game=game)
        if board == 1:
            return Solution("liar", Status.OPTIMAL, 0, 0, 0)
        return dataclasses.replace(s, backend="liar")

    monkeypatch.setitem(BACKENDS, "liar", FunctionBackend("liar", liar))
    f = tmp_path / "cases.txt"
    f.write_text("".join(format_cells(b, 4, 4) + "\n" for b in range(4)))
    argv = ["solve", "--backend", "liar", str(f)]
    batch = run_inprocess(capsys, monkeypatch, argv, per_case=False)
    single = run_inprocess(capsys, monkeypatch, argv, per_case=True)
    assert batch == single
    assert batch[0] == ExitCode.WITNESS_FAILURE
    assert batch[1].splitlines() == ["0", "Error", "Impossible", "Impossible"]
    assert "case 2: liar witness rejected" in batch[2]


def _read_line(pipe, timeout: float) -> bytes:
    """One line from an unbuffered pipe, or fail after ``timeout`` seconds (no deadlock)."""
    out = b""
    deadline = time.monotonic() + timeout
    while not out.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0, f"no answer within {timeout} s (got {out!r})"
        if select.select([pipe], [], [], left)[0]:
            chunk = os.read(pipe.fileno(), 1)
            assert chunk, f"output closed early (got {out!r})"
            out += chunk
    return out


@pytest.mark.parametrize("backend, args", [("gauss", []), ("gauss", ["--presses"]), ("sat", [])])
def test_interactive_pipe_gets_each_answer_before_the_next_case(backend, args):
    cases = [(POJ_SAMPLE_TEXT, "4"), (TRAP, "Impossible"), ("wwww\n" * 4, "0"), ("bbww\nbwww\nwwww\nwwww\n", "1")]
    proc = subprocess.Popen([sys.executable, "-m", "flipgame", "solve", "--backend", backend, *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    try:
        for text, answer in cases:
            proc.stdin.write(text.encode())
            assert _read_line(proc.stdout, 60).decode().strip() == answer
            if args and answer != "Impossible":
                for _ in range(4):
                    assert set(_read_line(proc.stdout, 60).decode().strip()) <= {"x", "."}
        proc.stdin.close()
        assert proc.wait(60) == 0
        assert proc.stdout.read() == b""
    finally:
        proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            pipe.close()


def test_interactive_painter_answers_the_last_declared_case_before_end_of_input():
    proc = subprocess.Popen([sys.executable, "-m", "flipgame", "solve", "--format", "painter"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    try:
        proc.stdin.write(b"2\n1\nw\n")
        assert _read_line(proc.stdout, 60) == b"1\n"
        proc.stdin.write(b"2\nyy\nyy\n")
        assert _read_line(proc.stdout, 60) == b"0\n"
        proc.stdin.close()
        assert proc.wait(60) == 0
    finally:
        proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            pipe.close()


def _one_gib_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_dev_zero_is_refused_at_once_in_bounded_memory():
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "flipgame", "solve", "/dev/zero"], capture_output=True, text=True,
                       timeout=30, preexec_fn=_one_gib_address_space)
    assert (r.returncode, r.stdout) == (ExitCode.USAGE, "")
    assert r.stderr == "flipgame: /dev/zero: case 1, line 1: line longer than 72 characters\n"
    assert_within(time.monotonic() - start, 10, "the refusal")  # start-up included; it reads 64 KiB


def test_target_dev_zero_and_an_endless_target_are_refused_in_bounded_memory(tmp_path):
    r = subprocess.run([sys.executable, "-m", "flipgame", "solve", "--target", "/dev/zero"], input="bwwb\n" * 4,
                       capture_output=True, text=True, timeout=30, preexec_fn=_one_gib_address_space)
    assert (r.returncode, r.stdout) == (ExitCode.USAGE, "")
    assert r.stderr == "flipgame: --target /dev/zero: line 1: line longer than 72 characters\n"
    # An endless stream of valid rows: refused after the second board, not read to the end.
    endless = subprocess.Popen(["yes", "bwwb"], stdout=subprocess.PIPE)
    try:
        r = subprocess.run([sys.executable, "-m", "flipgame", "solve", "--target", "/dev/stdin"],
                           stdin=endless.stdout, capture_output=True, text=True, timeout=30,
                           preexec_fn=_one_gib_address_space)
    finally:
        endless.kill()
        endless.wait()
    assert r.returncode == ExitCode.USAGE
    assert r.stderr == "flipgame: --target /dev/stdin: expected one 4x4 board, found more than one\n"


def test_over_long_line_names_case_and_line_after_the_good_answers():
    r = flipgame("solve", stdin=POJ_SAMPLE_TEXT + "\n" + "b" * 73 + "\n")
    assert (r.returncode, r.stdout) == (ExitCode.USAGE, "4\n")
    assert r.stderr == "flipgame: standard input: case 2, line 6: line longer than 72 characters\n"
    # The longest line allowed: 72 characters (cells, then spaces) is read as usual.
    r = flipgame("solve", stdin="bwwb" + " " * 68 + "\nbbwb\nbwwb\nbwww\n")
    assert (r.returncode, r.stdout, r.stderr) == (0, "4\n", "")
    r = flipgame("solve", "--size", "2x10", "--goal", "white", stdin="w" * 85 + "\n")
    assert r.returncode == ExitCode.USAGE and "case 1, line 1: line longer than 84 characters" in r.stderr


def test_line_source_limits_and_line_ends():
    def lines(data: bytes, limit: int = 10, **kw) -> list[str]:
        return list(LineSource(io.BytesIO(data), limit, block=4, **kw))

    assert lines(b"ab\r\ncd\ref\n", universal=True) == ["ab", "cd", "ef"]
    assert lines(b"ab\r\ncd\ref\n") == ["ab\r", "cd\ref"]  # standard input splits at LF only, as sys.stdin
    assert lines(b"\xef\xbb\xbfab\nx\xffy") == ["ab", "x\ufffdy"]
    assert lines(b"") == [] and lines(b"\n\n") == ["", ""]
    got = []
    with pytest.raises(ValueError, match="line 2: line longer than 10 characters"):
        got.extend(LineSource(io.BytesIO(b"ok\n" + b"z" * 100), 10, block=4))
    assert got == ["ok"]
    # Ten 3-byte characters fit a 10-character limit.
    assert lines("é€€€€€€€€€\n".encode()) == ["é€€€€€€€€€"]


@pytest.fixture
def built(monkeypatch) -> list:
    """The games for which a sat model gets built, in order."""
    sat = BACKENDS["sat"]
    games = []

    class Counting(sat.model):
        def __init__(self, game, **options):
            games.append(game)
            super().__init__(game, **options)

    monkeypatch.setattr(sat, "model", Counting)
    return games


@pytest.mark.needs("pycryptosat")
def test_session_reuses_one_model_per_game_and_answers_as_fresh_solves(built):
    game, boards = Game(4, 4), list(range(0, 1 << 16, 1601))  # 41 boards: a fresh model costs ~50 ms
    other = Game(4, 4, "board", target=0b1000_0100_0010_0001)
    with Session("sat", time_limit=5) as session:
        mine = [session.solve(b, game=game) for b in boards]
        assert len(built) == 1 and session.models_built == 1
        board_goal = [session.solve(b, game=other) for b in boards]
        batch = session.solve_batch(np.array(boards, dtype=np.uint64), game)
        assert len(built) == 2  # one more rule set, one more model; the batch re-used the first
    fresh = [solve(b, "sat", game=game, time_limit=5) for b in boards]
    assert len(built) == 2 + len(boards)
    # A search solver may pick another minimum press set once it has learnt from earlier boards:
    # the numbers agree, every witness is checked, and canonical witnesses (unique) agree too.
    assert [(s.status, s.moves) for s in mine] == [(s.status, s.moves) for s in fresh]
    assert not any(check_solution(game, b, s) for b, s in zip(boards, mine, strict=True))
    with Session("sat", time_limit=5, canonical=True) as session:
        canonical = [session.solve(b, game=game) for b in boards[:20]]
    assert [s.presses for s in canonical] == [solve(b, "sat", game=game, canonical=True).presses for b in boards[:20]]
    assert batch.moves.tolist() == [s.moves if s.success else -1 for s in fresh]
    assert [s.moves for s in mine] == [solve(b, game=game).moves for b in boards]  # gauss agrees
    expected = [solve(b, "gauss", game=other) for b in boards]
    assert [(s.status, s.moves, s.target) for s in board_goal] == [(s.status, s.moves, s.target) for s in expected]
    impossible = [s for s in board_goal if s.status is Status.INFEASIBLE]
    assert impossible and all(s.certificates == t.certificates for s, t in zip(board_goal, expected, strict=True))
    assert all(s.certificates for s in impossible)
    assert sum(s.success for s in mine) == sum(s.success for s in fresh) > 0


@pytest.mark.needs("pycryptosat")
def test_cli_stream_builds_one_model(built, tmp_path, capsys):
    f = tmp_path / "cases.txt"
    f.write_text(POJ_SAMPLE_TEXT + TRAP + POJ_SAMPLE_TEXT * 20)
    code = main(["solve", "--backend", "sat", str(f)])
    out = capsys.readouterr().out
    assert code == 0 and out.splitlines() == ["4", "Impossible"] + ["4"] * 20
    assert len(built) == 1


def test_session_validates_options_once_and_refuses_per_game():
    with pytest.raises(TypeError, match="has no option"):
        Session("gauss", memory_limit=5)
    session = Session("bfs")
    with pytest.raises(ValueError, match="cells"):
        session.prepare(Game(10, 10))
    assert session.solve_batch([0, 1, 14], Game(4, 4)).moves.tolist() == \
        solve_batch([0, 1, 14], Game(4, 4), "bfs").moves.tolist() == [0, -1, -1]


def test_max_nullity_refusal_stays_per_case():
    """gauss refuses a solvable board over --max-nullity; the batch path must not answer it instead."""
    r = flipgame("solve", "--max-nullity", "2", stdin=TRAP + POJ_SAMPLE_TEXT + TRAP)
    assert r.returncode == ExitCode.REFUSED and r.stdout == "Impossible\n"
    assert "case 2: nullity 4" in r.stderr

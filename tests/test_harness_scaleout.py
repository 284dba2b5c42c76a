"""Scale-out of `flipgame verify`: any executor (local pool, Dask), workers that die with
their parent, progress without a terminal, compact resumable checkpoints, bigger
exhaustive checks (bfs to 30 cells) and boards of more than 64 cells."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import psutil
import pytest
from faulty_backends import FunctionBackend

from flipgame import BACKENDS, Game, Solution, Status, prepare, solve
from flipgame.backends.bfs import _level_bfs, distance_table
from flipgame.cli import ExitCode, main
from flipgame.core.errors import BoardTooLargeError
from flipgame.verify.run.harness import run_agreement

BIN = os.path.dirname(sys.executable)


def verify(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flipgame", "verify", *args],
                          capture_output=True, text=True, timeout=timeout)


def counts(report_path) -> dict:
    """The report without wall times (which differ between runs and executors)."""
    with open(report_path, encoding="utf-8") as fh:
        report = json.load(fh)
    report.pop("seconds")
    for row in report["backends"]:
        row.pop("seconds")
        row.pop("boards_per_second")
    return report


# --- bfs: the table press by press, up to 30 cells ---------------------------------------------


@pytest.mark.parametrize("game", [Game(4, 4), Game(3, 5, "white", True), Game(4, 4, neighbourhood="king"),
                                  Game(2, 7, "black"), Game(4, 5, neighbourhood="cross")])
def test_press_by_press_table_equals_the_level_bfs(game, monkeypatch):
    monkeypatch.setattr("flipgame.backends.bfs.BLOCK_BITS", 9)  # many blocks, so pairs of blocks are exercised
    distance_table.cache_clear()
    try:
        assert np.array_equal(distance_table(game), _level_bfs(game))
    finally:
        distance_table.cache_clear()


def test_bfs_4x4_distance_histogram():
    table = distance_table(Game(4, 4))
    # POJ 1753: 4096 boards reach a single colour (all white and all black among them); at most 6 presses.
    assert np.bincount(table[table != 255]).tolist() == [2, 32, 228, 880, 1562, 1136, 256]


def test_bfs_refuses_above_30_cells_naming_the_limit():
    with pytest.raises(BoardTooLargeError, match="at most 30 cells"):
        solve(0, "bfs", game=Game(5, 7))
    assert BACKENDS["bfs"].supports(Game(5, 6)) and not BACKENDS["bfs"].supports(Game(1, 31))


def test_5x5_suggestion_names_only_backends_that_take_every_board(tmp_path):
    r = verify("--size", "5x5", "--report", str(tmp_path / "r.json"))
    assert r.returncode == ExitCode.USAGE
    m = re.search(r"--exhaustive --backends (\S+)", r.stderr)
    assert m, r.stderr
    suggested = m[1].split(",")
    assert {"gauss", "bfs"} <= set(suggested) and not {"cpsat", "sat", "ilp"} & set(suggested)
    for name in suggested:  # none of them refuses 5x5
        prepare(Game(5, 5), name, {})


# --- boards of more than 64 cells -----------------------------------------------------------------


@pytest.mark.parametrize("size, solvable", [("9x9", 0), ("7x10", 30)])
@pytest.mark.needs("pycryptosat")
def test_samples_over_64_cells_through_the_per_board_gate(tmp_path, size, solvable):
    report = tmp_path / "r.json"
    r = verify("--size", size, "--sample", "30", "--seed", "3", "--backends", "gauss,sat", "--report", str(report))
    assert r.returncode == ExitCode.OK, r.stderr
    data = json.loads(report.read_text())
    rows = {b["backend"]: b for b in data["backends"]}
    assert data["boards"] == 30 and rows["gauss"]["boards"] == rows["sat"]["boards"] == 30
    # 9x9 has nullity 8: a random board is solvable with chance 1/256; 7x10 has nullity 0: every board is.
    assert rows["gauss"]["solvable"] == rows["sat"]["solvable"] == solvable


def test_witnesses_of_boards_over_64_cells_are_checked_per_board(monkeypatch):
    game = Game(7, 10, "white")  # nullity 0: every board solvable

    def lie(g, board):
        s = solve(board, "gauss", game=g)
        if board % 2:  # claims the right count with an empty press set
            return Solution("liar", Status.OPTIMAL, s.moves, 0, 0)
        return Solution("liar", s.status, s.moves, s.presses, s.target)

    monkeypatch.setitem(BACKENDS, "liar", FunctionBackend("liar", lie))
    rng = np.random.default_rng(1)
    boards = [int(rng.integers(1, 1 << 62)) << 8 | 5 for _ in range(6)]  # 70-cell boards, all odd
    boards += [b - 1 for b in boards]
    report = run_agreement(game, ["gauss", "liar"], boards)
    assert report.summaries[1].witness_failures == 6 and report.summaries[0].witness_failures == 0
    assert {r["board"] for r in report.witness_failures} == {b for b in boards if b % 2}
    assert all("but the press set has 0" in r["reason"] for r in report.witness_failures)


# --- progress, resume and checkpoints -------------------------------------------------------------


@pytest.mark.needs("pycryptosat")
def test_progress_lines_without_a_terminal(tmp_path):
    # 20,000 sat boards take about a second (3,000 now take a quarter of one): lines every 0.05 s come twice or more
    r = verify("--size", "4x4", "--sample", "20000", "--backends", "sat", "--jobs", "1", "--chunk-size", "100",
               "--progress-interval", "0.05", "--report", str(tmp_path / "r.json"))
    assert r.returncode == ExitCode.OK, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("flipgame: progress: sat (in this process): ")]
    assert len(lines) >= 2, r.stderr
    pattern = re.compile(r": ([\d,]+) of 20,000 boards \([\d.]+%\), [\d,]+ boards/s, ETA (\d.* (?:s|min)|unknown)$")
    done = [int(pattern.search(ln)[1].replace(",", "")) for ln in lines]
    assert done == sorted(done) and done[-1] <= 20000


def test_resume_says_how_much_came_from_the_checkpoint(tmp_path):
    ck = tmp_path / "ck.jsonl"
    args = ["--size", "3x3", "--backends", "gauss,bfs", "--chunk-size", "64", "--checkpoint", str(ck)]
    first = verify(*args, "--report", str(tmp_path / "a.json"))
    assert first.returncode == ExitCode.OK and "resumed" not in first.stderr
    lines = ck.read_text().splitlines()
    assert len(lines) == 1 + 2 * 8
    ck.write_text("\n".join(lines[:4]) + "\n")  # header + 3 gauss chunks
    partial = verify(*args, "--report", str(tmp_path / "b.json"))
    assert partial.returncode == ExitCode.OK
    assert f"resumed: 3 of 16 chunks from {ck}" in partial.stderr
    assert "from checkpoint" in partial.stdout and "solved now" in partial.stdout  # the table says which is which
    whole = verify(*args, "--report", str(tmp_path / "c.json"))
    assert f"resumed: 16 of 16 chunks from {ck}" in whole.stderr
    assert "every answer came from the checkpoint" in whole.stderr
    assert counts(tmp_path / "a.json") == counts(tmp_path / "b.json") == counts(tmp_path / "c.json")


@pytest.mark.parametrize("change, field", [
    (["--chunk-size", "32"], "different chunk size from"),
    (["--backends", "gauss"], "different backends from"),
    (["--goal", "white"], "different game (size, goal"),
    (["--max-nullity", "3"], "different backend options from"),
])
def test_mismatched_checkpoint_names_the_field(tmp_path, change, field):
    ck = tmp_path / "ck.jsonl"
    base = {"--size": "3x3", "--backends": "gauss,bfs", "--chunk-size": "64"}
    assert verify(*[x for kv in base.items() for x in kv], "--checkpoint", str(ck),
                  "--report", str(tmp_path / "a.json")).returncode == 0
    base.update(dict(zip(change[::2], change[1::2], strict=True)))
    r = verify(*[x for kv in base.items() for x in kv], "--checkpoint", str(ck), "--report", str(tmp_path / "b.json"))
    assert r.returncode == ExitCode.USAGE and "another run" in r.stderr and field in r.stderr, r.stderr


def test_mismatched_sample_names_the_boards_digest(tmp_path):
    ck = tmp_path / "ck.jsonl"
    base = ["--size", "5x5", "--backends", "gauss", "--sample", "100", "--checkpoint", str(ck)]
    assert verify(*base, "--seed", "1", "--report", str(tmp_path / "a.json")).returncode == 0
    r = verify(*base, "--seed", "2", "--report", str(tmp_path / "b.json"))
    assert r.returncode == ExitCode.USAGE and "different boards digest" in r.stderr


def test_checkpoint_is_compact_and_resumes_to_the_same_report(tmp_path):
    ck = tmp_path / "ck.jsonl"
    args = ["verify", "--size", "4x4", "--backends", "gauss,bfs", "--chunk-size", "16384", "--checkpoint", str(ck)]
    assert main([*args, "--report", str(tmp_path / "a.json")]) == ExitCode.OK
    size = ck.stat().st_size
    assert size < 2 * 65536 * 5  # under 5 bytes a board and backend (JSON lists of numbers took about 45)
    assert main([*args, "--report", str(tmp_path / "b.json")]) == ExitCode.OK
    assert counts(tmp_path / "a.json") == counts(tmp_path / "b.json")
    assert ck.stat().st_size == size  # nothing solved again


# --- executors: Dask ------------------------------------------------------------------------------


@pytest.mark.needs("distributed", "pycryptosat")
def test_local_dask_cluster_gives_the_local_report(tmp_path):
    local = verify("--size", "3x3", "--jobs", "2", "--report", str(tmp_path / "local.json"))
    dask = verify("--size", "3x3", "--scheduler", "local:2", "--report", str(tmp_path / "dask.json"))
    assert local.returncode == dask.returncode == ExitCode.OK, dask.stderr
    assert counts(tmp_path / "local.json") == counts(tmp_path / "dask.json")
    assert "dask LocalCluster of 2 workers" in dask.stderr
    assert {b["backend"] for b in counts(tmp_path / "dask.json")["backends"]} >= {"gauss", "bfs", "cpsat", "sat", "ilp"}


@pytest.mark.slow  # two Dask clusters started: about 10 s idle
def test_a_press_system_on_a_local_dask_cluster_gives_the_local_counts(tmp_path):
    rules = ("--states", "3", "--size", "2x2", "--backends", "gauss,cpsat,ilp")
    local = verify(*rules, "--jobs", "2", "--report", str(tmp_path / "local.json"))
    dask = verify(*rules, "--scheduler", "local:2", "--report", str(tmp_path / "dask.json"))
    assert local.returncode == dask.returncode == ExitCode.OK, dask.stderr
    assert counts(tmp_path / "local.json") == counts(tmp_path / "dask.json")
    assert [b["solvable"] for b in counts(tmp_path / "dask.json")["backends"]] == [81, 81, 81]


@pytest.mark.parametrize("scheduler, words", [("local:0", "workers (four per core)"),
                                              ("local:x", "workers (four per core)"), ("local:1000", "1..")])
@pytest.mark.needs("pycryptosat")
def test_bad_scheduler_is_a_usage_error(tmp_path, scheduler, words):
    r = verify("--size", "2x2", "--backends", "sat", "--scheduler", scheduler, "--report", str(tmp_path / "r.json"))
    assert r.returncode == ExitCode.USAGE and words in r.stderr and "Traceback" not in r.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_external_dask_scheduler_gives_the_local_counts(tmp_path):
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = shutil.which("dask", path=BIN) or os.path.join(BIN, "dask")
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--dashboard-address", ":0", "--no-show"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        time.sleep(3)
        procs.append(subprocess.Popen([dask, "worker", address, "--nworkers", "2", "--nthreads", "1",
                                       "--no-dashboard", "--host", "127.0.0.1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(5)
        args = ["--size", "4x4", "--backends", "gauss,bfs,sat"]
        remote = verify(*args, "--scheduler", address, "--report", str(tmp_path / "remote.json"), timeout=900)
        assert remote.returncode == ExitCode.OK, remote.stderr
        assert f"dask scheduler {address} (2 workers)" in remote.stderr
        local = verify(*args, "--jobs", "2", "--report", str(tmp_path / "local.json"), timeout=900)
        assert local.returncode == ExitCode.OK
        assert counts(tmp_path / "remote.json") == counts(tmp_path / "local.json")
        rows = {b["backend"]: b for b in counts(tmp_path / "remote.json")["backends"]}
        assert rows["sat"]["solvable"] == 4096 and rows["sat"]["impossible"] == 65536 - 4096
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(30)


# --- workers die with their parent ----------------------------------------------------------------


@pytest.mark.parametrize("executor", [["--jobs", "2"], ["--scheduler", "local:2"]])
@pytest.mark.needs("pycryptosat")
def test_no_worker_outlives_a_killed_verify(tmp_path, executor):
    # ilp beside sat: sat alone (0.05 ms a board) could finish all 65,536 boards before the workers are seen
    proc = subprocess.Popen([sys.executable, "-m", "flipgame", "verify", "--size", "4x4", "--backends", "sat,ilp",
                             "--report", str(tmp_path / "r.json"), *executor],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + 120
    workers: list[psutil.Process] = []
    while time.monotonic() < deadline and proc.poll() is None:
        if sum("python" in " ".join(_cmd(c)) for c in parent.children(recursive=True)) >= 2:
            time.sleep(2)  # let them import and start solving
            workers = parent.children(recursive=True)
            break
        time.sleep(0.1)
    assert proc.poll() is None and len(workers) >= 2, "the workers never started"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    gone, alive = psutil.wait_procs(workers, timeout=5)
    assert not alive, [(p.pid, _cmd(p)) for p in alive]


def _cmd(p: psutil.Process) -> list[str]:
    try:
        return p.cmdline()
    except psutil.Error:
        return []

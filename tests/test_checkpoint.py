"""Resumable checks: kill -9 in the middle, rerun, and get the uninterrupted report."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import sigint_default

from flipgame.cli import ExitCode

# 3x3: 512 boards, 32 chunks of 16 per backend.
ARGS = ["verify", "--size", "3x3", "--backends", "gauss,sat,ilp", "--jobs", "1", "--chunk-size", "16"]
CHUNKS = 32


def verify(*extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flipgame", *ARGS, *extra],
                          capture_output=True, text=True, timeout=300)


def comparable(report_path) -> dict:
    """The report without wall times, which differ between runs."""
    report = json.loads(report_path.read_text())
    report.pop("seconds")
    for row in report["backends"]:
        row.pop("seconds")
        row.pop("boards_per_second")
    return report


def start_and_kill(tmp_path, checkpoint, min_lines: int, sig=signal.SIGKILL) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "flipgame", *ARGS, "--checkpoint", str(checkpoint),
                             "--report", str(tmp_path / "partial.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if checkpoint.exists() and checkpoint.read_text().count("\n") >= min_lines:
            break
        time.sleep(0.02)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    return proc


@pytest.mark.needs("pycryptosat")
def test_kill_9_then_resume_gives_the_uninterrupted_report(tmp_path):
    whole = verify("--report", str(tmp_path / "whole.json"))
    assert whole.returncode == ExitCode.OK

    checkpoint = tmp_path / "run.jsonl"
    proc = start_and_kill(tmp_path, checkpoint, min_lines=1 + 2 * CHUNKS + 2)  # ilp under way
    assert proc.returncode == -signal.SIGKILL
    lines_before = checkpoint.read_text().count("\n")
    assert lines_before >= 2 * CHUNKS + 3 and lines_before < 3 * CHUNKS + 1  # header + gauss + sat + 2 ilp chunks
    with checkpoint.open("a") as fh:
        fh.write('{"backend":"ilp","chunk":')  # a line torn by the kill

    resumed = verify("--checkpoint", str(checkpoint), "--report", str(tmp_path / "resumed.json"))
    assert resumed.returncode == ExitCode.OK, resumed.stderr
    assert comparable(tmp_path / "resumed.json") == comparable(tmp_path / "whole.json")
    assert checkpoint.read_text().count("\n") == 1 + 3 * CHUNKS


@pytest.mark.needs("pycryptosat")
def test_ctrl_c_writes_the_partial_report_and_exits_130(tmp_path):
    checkpoint = tmp_path / "run.jsonl"
    proc = start_and_kill(tmp_path, checkpoint, min_lines=1 + 2 * CHUNKS + 2, sig=signal.SIGINT)
    assert proc.returncode == ExitCode.INTERRUPTED
    partial = json.loads((tmp_path / "partial.json").read_text())
    assert partial["completed"] is False and partial["ok"] is False
    assert [b["backend"] for b in partial["backends"]] == ["gauss", "sat", "ilp"]  # ilp: the chunks it finished
    assert [b["boards"] == partial["boards"] for b in partial["backends"]] == [True, True, False]


@pytest.mark.needs("pycryptosat")
def test_checkpoint_of_another_run_is_refused(tmp_path):
    checkpoint = tmp_path / "run.jsonl"
    assert verify("--checkpoint", str(checkpoint), "--report", str(tmp_path / "a.json")).returncode == 0
    other = subprocess.run([sys.executable, "-m", "flipgame", "verify", "--size", "2x3", "--backends", "gauss",
                            "--checkpoint", str(checkpoint), "--report", str(tmp_path / "b.json")],
                           capture_output=True, text=True)
    assert other.returncode == ExitCode.USAGE and "another run" in other.stderr


@pytest.mark.parametrize("garbage", ["not json at all\n", ""])
@pytest.mark.needs("pycryptosat")
def test_unreadable_or_empty_checkpoint(tmp_path, garbage):
    checkpoint = tmp_path / "run.jsonl"
    checkpoint.write_text(garbage)
    r = verify("--checkpoint", str(checkpoint), "--report", str(tmp_path / "a.json"))
    assert r.returncode == (ExitCode.USAGE if garbage else ExitCode.OK)
    if garbage:
        assert f"checkpoint {checkpoint} is not a flipgame checkpoint (its first line is not a checkpoint header)" \
            in r.stderr


def _damaged_run(tmp_path, change) -> subprocess.CompletedProcess:
    """A 2x2 gauss,bfs checkpoint whose first chunk record is replaced by ``change(record)``, then resumed."""
    ck = tmp_path / "ck.jsonl"
    args = [sys.executable, "-m", "flipgame", "verify", "--size", "2x2", "--backends", "gauss,bfs",
            "--checkpoint", str(ck), "--report", str(tmp_path / "r.json")]
    assert subprocess.run(args, capture_output=True, text=True, timeout=120).returncode == ExitCode.OK
    header, first, *rest = ck.read_text().splitlines()
    ck.write_text("\n".join([header, change(json.loads(first)), *rest]) + "\n")
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("line", ["[1,2,3]", "{}", '{"backend":"gauss"}', '"str"', "null", "123",
                                  '{"backend":["x"],"chunk":0}', '{"backend":"gauss","chunk":-1}'])
def test_a_record_that_is_no_chunk_record_is_refused_in_one_line(tmp_path, line):
    r = _damaged_run(tmp_path, lambda rec: line)
    assert r.returncode == ExitCode.USAGE and "Traceback" not in r.stderr
    assert "ck.jsonl: line 2 is damaged (not a chunk record with a backend and a chunk number); remove the file " \
           "to start again" in r.stderr


@pytest.mark.parametrize("field, value, why", [
    ("errors", 5, "its errors are not a list of messages"),
    ("errors", [1], "its errors are not a list of messages"),
    ("seconds", "x", "its seconds are not a time"),
    ("seconds", -1, "its seconds are not a time"),
    ("moves", None, "no field 'moves'"),
])
def test_a_damaged_field_of_a_chunk_is_named(tmp_path, field, value, why):
    def change(rec):
        if value is None:
            del rec[field]
        else:
            rec[field] = value
        return json.dumps(rec)

    r = _damaged_run(tmp_path, change)
    assert r.returncode == ExitCode.USAGE and "Traceback" not in r.stderr
    assert f"chunk 0 of gauss is damaged ({why}); remove the file to start again" in r.stderr


def _checkpoint(tmp_path, name: str, size: str) -> list[str]:
    ck = tmp_path / name
    r = subprocess.run([sys.executable, "-m", "flipgame", "verify", "--size", size, "--backends", "gauss,bfs",
                        "--checkpoint", str(ck), "--report", str(tmp_path / f"{name}.json")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == ExitCode.OK, r.stderr
    return ck.read_text().splitlines()


def _resume(tmp_path, name: str, size: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flipgame", "verify", "--size", size, "--backends", "gauss,bfs",
                           "--checkpoint", str(tmp_path / name), "--report", str(tmp_path / "again.json")],
                          capture_output=True, text=True, timeout=120)


def test_a_chunk_of_another_run_is_refused_naming_its_line(tmp_path):
    """A 3x4 chunk appended to a 4x4 checkpoint charged gauss with 970 disagreements; now it is refused."""
    ours = _checkpoint(tmp_path, "a.jsonl", "2x2")
    foreign = _checkpoint(tmp_path, "b.jsonl", "2x3")[1]  # chunk 0 of gauss in a 2x3 run
    (tmp_path / "a.jsonl").write_text("\n".join([ours[0], ours[1], foreign]) + "\n")
    r = _resume(tmp_path, "a.jsonl", "2x2")
    assert r.returncode == ExitCode.USAGE and "Traceback" not in r.stderr
    assert "a.jsonl: line 3 is a chunk of another run (run digest" in r.stderr


def test_a_torn_middle_line_is_refused_naming_it(tmp_path):
    """A torn line in the middle silently dropped every valid line after it."""
    header, gauss, bfs = _checkpoint(tmp_path, "a.jsonl", "2x2")
    (tmp_path / "a.jsonl").write_text("\n".join([header, gauss[:40], bfs]) + "\n")
    r = _resume(tmp_path, "a.jsonl", "2x2")
    assert r.returncode == ExitCode.USAGE
    assert "a.jsonl: line 2 is torn (not JSON) and lines follow it" in r.stderr
    (tmp_path / "a.jsonl").write_text("\n".join([header, gauss, bfs[:40]]) + "\n")  # torn last line: dropped
    r = _resume(tmp_path, "a.jsonl", "2x2")
    assert r.returncode == ExitCode.OK and "resumed: 1 of 2 chunks" in r.stderr


def test_a_full_disk_names_the_checkpoint(tmp_path, game4):
    import numpy as np

    from flipgame import BACKENDS, BoardSet
    from flipgame.core.errors import CheckpointError
    from flipgame.pipeline.checkpoint import Checkpoint, run_header
    from flipgame.pipeline.chunks import solve_chunk

    boards = np.arange(16, dtype=np.uint64)
    store = Checkpoint(tmp_path / "ck.jsonl", run_header(game4, ["gauss"], {}, 16, boards), game4)

    class Full:
        def write(self, text):
            raise OSError(28, "No space left on device")

        def close(self):
            pass

    store._fh = Full()
    with pytest.raises(CheckpointError, match=r"cannot write checkpoint .*ck.jsonl: No space left on device"):
        store.add(0, solve_chunk(BACKENDS["gauss"], BoardSet.of(game4, boards), {}).batch)


def test_a_full_disk_leaves_no_empty_report(tmp_path, monkeypatch, capsys):
    from flipgame.cli import common

    def full(data, fh, **kw):
        fh.write("{")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(common.json, "dump", full)
    path = tmp_path / "r.json"
    assert common.write_json(str(path), {"a": 1}, "report") == ExitCode.USAGE
    assert not path.exists() and not (tmp_path / "r.json.part").exists()
    assert f"cannot write report {path}: No space left on device" in capsys.readouterr().err


MERLIN_FILE = Path(__file__).resolve().parent.parent / "examples" / "merlin.json"


@pytest.mark.parametrize("rules", [["--rules", str(MERLIN_FILE)], ["--states", "3", "--size", "2x3"]],
                         ids=["merlin-two-states", "z3-2x3"])
def test_a_press_system_run_killed_and_resumed_reports_as_an_uninterrupted_one(tmp_path, rules):
    """Any press system: --jobs 2 --checkpoint, killed with -9 and resumed, gives the uninterrupted report."""
    args = [sys.executable, "-m", "flipgame", "verify", *rules, "--backends", "gauss,cpsat", "--jobs", "2",
            "--chunk-size", "32"]
    whole = subprocess.run([*args, "--report", str(tmp_path / "whole.json")], capture_output=True, text=True,
                           timeout=300)
    assert whole.returncode == ExitCode.OK, whole.stderr
    checkpoint = tmp_path / "run.jsonl"
    proc = subprocess.Popen([*args, "--checkpoint", str(checkpoint), "--report", str(tmp_path / "partial.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (checkpoint.exists() and checkpoint.read_text().count("\n") >= 3):
        time.sleep(0.02)
    proc.kill()
    proc.wait(timeout=60)
    resumed = subprocess.run([*args, "--checkpoint", str(checkpoint), "--report", str(tmp_path / "resumed.json")],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == ExitCode.OK, resumed.stderr
    assert "resumed:" in resumed.stderr
    assert comparable(tmp_path / "resumed.json") == comparable(tmp_path / "whole.json")

"""Dask faults are answers, not tracebacks (issue 18, item 6): a lost scheduler, no live worker, bad schemes."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import psutil
import pytest
from conftest import sigint_default

from flipgame.cli import ExitCode

pytest.importorskip("distributed")
BIN = os.path.dirname(sys.executable)
ARGS = ["verify", "--size", "3x4", "--backends", "gauss,sat", "--chunk-size", "64"]


def verify(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flipgame", *args], capture_output=True, text=True, timeout=timeout)


def comparable(path) -> dict:
    report = json.loads(path.read_text())
    report.pop("seconds")
    for row in report["backends"]:
        row.pop("seconds")
        row.pop("boards_per_second")
    return report


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask(*args: str) -> subprocess.Popen:
    dask = shutil.which("dask", path=BIN) or os.path.join(BIN, "dask")
    return subprocess.Popen([dask, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _scheduler() -> tuple[subprocess.Popen, str]:
    port = _port()
    proc = _dask("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    time.sleep(3)
    return proc, f"tcp://127.0.0.1:{port}"


@pytest.mark.parametrize("scheme", ["tls", "ucx"])
def test_an_unsupported_scheme_is_a_usage_error(tmp_path, scheme):
    """tls:// and ucx:// gave a traceback and exit 1."""
    r = verify(*ARGS, "--scheduler", f"{scheme}://127.0.0.1:8786", "--report", str(tmp_path / "r.json"))
    assert r.returncode == ExitCode.USAGE and "Traceback" not in r.stderr
    assert f"the {scheme}:// scheme is not supported" in r.stderr


@pytest.mark.slow
def test_no_live_worker_stops_with_one_line_and_the_partial_report(tmp_path):
    """A scheduler without workers hung the run silently, its ETA growing."""
    sched, address = _scheduler()
    try:
        r = verify(*ARGS, "--scheduler", address, "--scheduler-timeout", "3", "--report", str(tmp_path / "r.json"),
                   timeout=120)
    finally:
        sched.kill()
        sched.wait(10)
    assert r.returncode == ExitCode.INCOMPLETE and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("flipgame: stopped: no live Dask worker or scheduler for 3 s")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["completed"] is False  # sat started, and no chunk of it finished
    assert [(b["backend"], b["boards"]) for b in report["backends"]] == [("gauss", 4096), ("sat", 0)]


@pytest.mark.slow
def test_a_killed_scheduler_is_one_line_exit_4_and_the_checkpoint_resumes(tmp_path):
    """A scheduler killed mid-run gave 61 lines of tracebacks, exit 1 (DISAGREEMENT) and no report."""
    sched, address = _scheduler()
    worker = _dask("worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1")
    ck = tmp_path / "ck.jsonl"
    try:
        time.sleep(5)
        run = subprocess.Popen([sys.executable, "-m", "flipgame", *ARGS, "--scheduler", address, "--checkpoint",
                                str(ck), "--report", str(tmp_path / "partial.json")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while (not ck.exists() or ck.read_text().count("\n") < 1 + 1 + 8) and time.monotonic() < deadline:
            time.sleep(0.05)  # the header, gauss's chunk and 8 of sat's 64
        sched.kill()
        _, err = run.communicate(timeout=120)
    finally:
        for p in (worker, sched):
            p.kill()
            p.wait(10)
    assert run.returncode == ExitCode.INCOMPLETE, err
    assert "Traceback" not in err and "ERROR" not in err
    assert err.strip().splitlines()[-1].startswith("flipgame: stopped: ")
    partial = json.loads((tmp_path / "partial.json").read_text())
    assert partial["completed"] is False and partial["stopped"]
    resumed = verify(*ARGS, "--jobs", "1", "--checkpoint", str(ck), "--report", str(tmp_path / "resumed.json"))
    assert resumed.returncode == ExitCode.OK and "resumed:" in resumed.stderr
    local = verify(*ARGS, "--jobs", "1", "--report", str(tmp_path / "local.json"))
    assert local.returncode == ExitCode.OK
    assert comparable(tmp_path / "resumed.json") == comparable(tmp_path / "local.json")


def _descendants(pid: int) -> set[int]:
    try:
        return {c.pid for c in psutil.Process(pid).children(recursive=True)}
    except psutil.NoSuchProcess:
        return set()


def _alive(pids) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.mark.slow
@pytest.mark.parametrize("workers, delay", [(0, 0.1), (3, 0.0), (3, 0.6), (3, 1.2)],
                         ids=["importing-dask", "workers-spawned", "workers-importing", "workers-registering"])
def test_ctrl_c_while_dask_workers_start_is_one_line_and_leaves_no_process(tmp_path, workers, delay):
    """Ctrl-C 1.0-1.4 s after launch gave up to 114 lines of the workers' tracebacks (KeyboardInterrupt in their
    imports, then "Queue ... not closed") in 7 of 10 runs: the resource tracker's launch had unblocked SIGINT in
    Dask's event-loop thread, and the workers it spawned inherited that."""
    err = tmp_path / "err.txt"
    p = subprocess.Popen([sys.executable, "-m", "flipgame", *ARGS, "--scheduler", "local:2", "--report",
                          str(tmp_path / "r.json")], stdout=subprocess.DEVNULL, stderr=err.open("w"),
                         start_new_session=True, preexec_fn=sigint_default)
    family, deadline = {p.pid}, time.monotonic() + 60
    # Past flipgame's imports ("Checking" is printed just before Dask's), until the tracker and both workers exist.
    while ("Checking" not in err.read_text() or len(_descendants(p.pid)) < workers) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(delay)
    family |= _descendants(p.pid)
    os.killpg(p.pid, signal.SIGINT)
    while p.poll() is None and time.monotonic() < deadline:
        family |= _descendants(p.pid)
        time.sleep(0.02)
    assert p.wait(timeout=10) == ExitCode.INTERRUPTED, err.read_text()
    time.sleep(2.0)
    assert len(family) >= 1 + workers and _alive(family) == []
    text = err.read_text()
    assert "Traceback" not in text
    lines = [line for line in text.splitlines() if not line.startswith("Checking gauss, sat on all 4096 ")
             and not re.fullmatch(r"  (gauss|sat): 4096 boards in .*", line)]
    assert len(lines) == 1 and lines[0].startswith("flipgame: interrupted"), text


def test_a_busy_dashboard_port_prints_no_dask_warning(tmp_path):
    """With another cluster on port 8787, Dask's scheduler warned "Port 8787 is already in use" on stderr."""
    holder = socket.socket()
    with contextlib.suppress(OSError):  # already taken: the condition holds either way
        holder.bind(("0.0.0.0", 8787))
        holder.listen()
    try:
        r = verify("verify", "--size", "2x2", "--backends", "gauss,sat", "--scheduler", "local:1", "--report",
                   str(tmp_path / "r.json"))
    finally:
        holder.close()
    assert r.returncode == 0 and "already in use" not in r.stderr and "Warning" not in r.stderr, r.stderr

"""Signals have one owner: flipgame (issue 18, items 1, 2 and 8).

CryptoMiniSat's "undetermined" is a time-out, never a Ctrl-C; its own SIGINT
handler never runs (no ``c`` line on stdout); Ctrl-C on a stream exits 130.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from conftest import assert_within, started_clean, wait_until_busy

from flipgame import Game
from flipgame.backends.sat_engines import CryptoMiniSat, cryptominisat_signals
from flipgame.model.grid import format_cells

pytest.importorskip("pycryptosat")


def _c_handler(sig: int) -> bytes:
    """The process's C-level sigaction for ``sig`` (the handler address first)."""
    buf = ctypes.create_string_buffer(512)
    assert ctypes.CDLL(None).sigaction(int(sig), None, buf) == 0
    return buf.raw[:8]


def test_undetermined_is_a_time_out_not_a_ctrl_c(monkeypatch):
    """An "undetermined" answer long before the limit (an abandoned thread's CPU clock) was taken for Ctrl-C."""
    cms = CryptoMiniSat(time_limit=10.0)
    monkeypatch.setattr(cms, "solver", type("S", (), {"solve": lambda self, a: (None, None)})())
    with pytest.raises(TimeoutError):
        cms.solve([], 10.0)


def test_cryptominisat_handler_never_stays_installed():
    """Two calls at once (an abandoned thread and the next board) left pycryptosat's handler installed."""
    before = {s: _c_handler(s) for s in (signal.SIGINT, signal.SIGTERM)}
    solvers = [CryptoMiniSat(time_limit=0.5) for _ in range(2)]
    rng = random.Random(1)
    for s in solvers:  # random 3-SAT near the threshold: busy for a while
        s.add_clauses([[rng.choice((-1, 1)) * rng.randint(1, 250) for _ in range(3)] for _ in range(1065)])
    threads = [threading.Thread(target=lambda s=s: _ignore_timeout(s)) for s in solvers]
    for t in threads:
        t.start()
        time.sleep(0.01)
    for t in threads:
        t.join()
    assert {s: _c_handler(s) for s in (signal.SIGINT, signal.SIGTERM)} == before


def _ignore_timeout(s: CryptoMiniSat) -> None:
    with contextlib.suppress(TimeoutError):
        s.solve([], 0.5)


def test_signal_in_a_call_is_delivered_after_it():
    """A SIGINT raised inside the guarded call reaches Python's handler when the call ends (the handler set
    here: another test in this worker process may have left SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt), cryptominisat_signals():
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.01)  # still blocked here: nothing raised yet
            blocked = True
    finally:
        signal.signal(signal.SIGINT, previous)
    assert blocked


def _cases(path, k: int, seed: int = 3) -> None:
    rng = random.Random(seed)
    path.write_text("\n\n".join(format_cells(rng.getrandbits(16), 4, 4) for _ in range(k)) + "\n")


def _interrupt(args: list[str], after_lines: int, tmp_path) -> tuple[int, list[str], str]:
    """Run ``flipgame args``, send SIGINT to its process group once ``after_lines`` answers are out."""
    out = tmp_path / "out.txt"
    with out.open("w") as fh:
        p = subprocess.Popen([sys.executable, "-m", "flipgame", *args], stdout=fh, stderr=subprocess.PIPE,
                             text=True, start_new_session=True, env={**os.environ, "PYTHONFAULTHANDLER": "1"},
                             preexec_fn=started_clean)
        deadline = time.monotonic() + 60
        while out.read_text().count("\n") < after_lines and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGINT)
        try:
            _, err = p.communicate(timeout=60)  # a hang guard, no timing: the suite may run beside other load
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGABRT)  # faulthandler writes every thread's stack: where it hung
            _, err = p.communicate(timeout=30)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)  # anything it started
            pytest.fail(f"still running 60 s after the SIGINT; its stacks:\n{err[-4000:]}")
    return p.returncode, out.read_text().splitlines(), err


@pytest.mark.parametrize("attempt", range(3))
def test_ctrl_c_on_a_sat_stream_exits_130_with_answers_only(tmp_path, attempt):
    """Ctrl-C was ignored in 5 of 10 runs, and a ``c`` line reached stdout."""
    cases = tmp_path / "cases.txt"
    _cases(cases, 200_000, seed=attempt)
    rc, lines, err = _interrupt(["solve", "--backend", "sat", str(cases)], 300 + 700 * attempt, tmp_path)
    assert rc == 130, err
    assert lines and all(line == "Impossible" or line.isdigit() for line in lines)
    assert "INTERRUPTED" not in err and err.strip().endswith("interrupted")


@pytest.mark.slow
def test_six_30x30_sat_answers_under_a_time_limit(tmp_path):
    """``solve --backend sat --size 30x30 --goal white --time-limit 5`` exited 130 after 1-4 answers."""
    game, rng = Game(30, 30, goal="white"), random.Random(7)
    cases = tmp_path / "six.txt"
    cases.write_text("\n\n".join(format_cells(game.apply(0, rng.getrandbits(900)), 30, 30) for _ in range(6)) + "\n")
    r = subprocess.run([sys.executable, "-m", "flipgame", "solve", "--backend", "sat", "--size", "30x30", "--goal",
                        "white", "--time-limit", "5", str(cases)], capture_output=True, text=True, timeout=120)
    lines = r.stdout.splitlines()
    assert len(lines) == 6 and all(x == "Unknown" or x.isdigit() for x in lines), r.stderr
    assert r.returncode in (0, 4)


def _started_as_a_scripts_job() -> None:
    """``preexec_fn``: the signal state of a job a script starts with ``&`` (SIGINT ignored)."""
    started_clean()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start_verify(tmp_path, *extra: str, preexec=started_clean) -> tuple[subprocess.Popen, Path]:
    """``verify --jobs 2`` on 4x4, returned once its per-board solvers run on the pool."""
    err = tmp_path / "err.txt"
    p = subprocess.Popen([sys.executable, "-m", "flipgame", "verify", "--jobs", "2", "--backends", "gauss,bfs,sat",
                          "--report", str(tmp_path / "r.json"), *extra], stdout=subprocess.DEVNULL,
                         stderr=err.open("w"), start_new_session=True, preexec_fn=preexec)
    deadline = time.monotonic() + 60
    while "bfs:" not in err.read_text() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    time.sleep(1.0)  # the pool's workers are up and solving sat chunks
    return p, err


def test_ctrl_c_on_verify_writes_the_partial_report_at_once(tmp_path):
    """The first Ctrl-C waited for the running chunks (6.8 s); now it kills them and writes what finished."""
    p, err = _start_verify(tmp_path)
    os.killpg(p.pid, signal.SIGINT)
    t0 = time.monotonic()
    rc = p.wait(timeout=30)
    assert rc == 130
    assert_within(time.monotonic() - t0, 3.0, "the exit after Ctrl-C")  # 0.2 s measured
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["completed"] is False and [b["backend"] for b in report["backends"]] == ["gauss", "bfs", "sat"]
    assert report["backends"][0]["solvable"] == 4096 and "Traceback" not in err.read_text()
    assert report["backends"][2]["boards"] < 65536  # sat: the chunks it finished before the Ctrl-C


@pytest.mark.parametrize("preexec", [started_clean, _started_as_a_scripts_job], ids=["shell", "scripts-job"])
def test_sigterm_on_verify_writes_the_partial_report_and_exits_143(tmp_path, preexec):
    """SIGTERM (``timeout``, a batch scheduler) killed verify at once: no report, and the resource tracker
    warned of leaked semaphores on stderr.  It stops as on Ctrl-C now, with its own exit status; also when
    started with Ctrl-C ignored (``&`` in a script), where no SIGTERM handler was installed."""
    p, err = _start_verify(tmp_path, preexec=preexec)
    if preexec is _started_as_a_scripts_job:  # a Ctrl-C the caller ignores stays ignored: the run goes on
        p.send_signal(signal.SIGINT)
        time.sleep(0.5)
        assert p.poll() is None
    p.send_signal(signal.SIGTERM)  # to flipgame only, as timeout(1) sends it
    assert p.wait(timeout=30) == 143
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["completed"] is False and report["backends"][0]["solvable"] == 4096
    text = err.read_text()
    assert "Traceback" not in text and "leaked" not in text and "holds everything finished" in text


def test_sigterm_on_solve_exits_143_in_one_line(tmp_path):
    cases = tmp_path / "cases.txt"
    _cases(cases, 200_000, seed=3)
    p = subprocess.Popen([sys.executable, "-m", "flipgame", "solve", "--backend", "sat", str(cases)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=started_clean)
    wait_until_busy(p.pid, cpu_seconds=1.5)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    assert (p.returncode, err) == (143, "flipgame: terminated\n")
    assert all(line == "Impossible" or line.isdigit() for line in out.splitlines())


def test_second_ctrl_c_on_verify_leaves_no_process(tmp_path):
    """A second Ctrl-C hung the driver, both workers and the resource tracker forever."""
    psutil = pytest.importorskip("psutil")
    p, err = _start_verify(tmp_path)
    family = [p.pid] + [c.pid for c in psutil.Process(p.pid).children(recursive=True)]
    assert len(family) >= 3  # the driver, two workers (and the resource tracker)
    os.killpg(p.pid, signal.SIGINT)
    time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(p.pid, signal.SIGINT)
    # 130, or killed by the second SIGINT (-2, 130 to a shell) when it came after Python's finalisation
    # had put the default handler back
    assert p.wait(timeout=5) in (130, -signal.SIGINT), err.read_text()
    time.sleep(2.0)
    alive = [pid for pid in family if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]
    assert alive == []


def test_ctrl_c_on_bench_exits_130_saying_interrupted(tmp_path):
    """bench exited 1 after about 9 s and printed "All backends agree: NO."."""
    err = tmp_path / "err.txt"
    p = subprocess.Popen([sys.executable, "-m", "flipgame", "bench", "--backends", "gauss,bfs,sat", "--jobs", "1",
                          "--json", str(tmp_path / "b.json")], stdout=subprocess.PIPE, stderr=err.open("w"),
                         text=True, start_new_session=True, preexec_fn=started_clean)
    deadline = time.monotonic() + 60
    while "bfs:" not in err.read_text() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)
    os.killpg(p.pid, signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    assert p.returncode == 130 and "agree" not in out
    assert "interrupted: the benchmark did not finish" in err.read_text() and not (tmp_path / "b.json").exists()


# --- Ctrl-C while the command starts ----------------------------------------------------------------------


INTERRUPTED_AT_IMPORT = """
import os, signal, sys
sys.argv[0] = {argv0!r}
import flipgame
os.kill(os.getpid(), signal.SIGINT)
import time
time.sleep(30)
print("not interrupted")
"""


def test_ctrl_c_while_the_command_imports_exits_130_in_one_line():
    """Ctrl-C in the first 0.3-0.7 s of a run (its imports) printed a KeyboardInterrupt traceback and died
    by SIGINT; now the command's start-up handler exits 130 with the one line of every interrupted run."""
    r = subprocess.run([sys.executable, "-c", INTERRUPTED_AT_IMPORT.format(argv0="/usr/local/bin/flipgame")],
                       capture_output=True, text=True, timeout=60, preexec_fn=_sigint_default)
    assert (r.returncode, r.stdout, r.stderr) == (130, "", "flipgame: interrupted\n")


def test_a_program_importing_flipgame_keeps_its_keyboard_interrupt():
    r = subprocess.run([sys.executable, "-c", INTERRUPTED_AT_IMPORT.format(argv0="my_script.py")],
                       capture_output=True, text=True, timeout=60, preexec_fn=_sigint_default)
    assert r.returncode == -signal.SIGINT and r.stderr.strip().endswith("KeyboardInterrupt") and r.stdout == ""


@pytest.mark.parametrize("argv, orig_argv, command", [
    (["/venv/bin/flipgame", "solve"], ["/venv/bin/python", "/venv/bin/flipgame", "solve"], True),
    (["-m", "solve"], ["python3", "-X", "dev", "-m", "flipgame", "solve"], True),
    (["-m"], ["python3", "-m", "flipgame.cli.docs"], False),
    (["my_script.py"], ["python3", "my_script.py", "flipgame"], False),
    ([], [], False),
])
def test_the_start_up_handler_is_for_the_command_only(monkeypatch, argv, orig_argv, command):
    from flipgame.core import signals

    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(sys, "orig_argv", orig_argv)
    assert signals._started_as_the_command() is command


def test_an_import_error_from_a_ctrl_c_is_an_interrupt(monkeypatch, capsys):
    """A Ctrl-C while OR-Tools' cp_model loads became ``ImportError: initialization failed`` (pybind11),
    a traceback and exit 1 (5 of 40 Ctrl-Cs during that import)."""
    from flipgame.cli import main, solve

    def import_interrupted(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise ImportError("initialization failed") from exc

    monkeypatch.setattr(solve, "run", import_interrupted)
    assert main(["solve"]) == 130 and capsys.readouterr().err == "flipgame: interrupted\n"
    monkeypatch.setattr(solve, "run", lambda args: [][0])
    with pytest.raises(IndexError):  # any other fault stays a fault
        main(["solve"])


SWALLOWING_IMPORT = """
import os, signal, time
try:  # a library whose optional import takes whatever it raised for a missing module
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.2)
except BaseException:
    SWALLOWED = True
"""

CTRL_C_IN_AN_IMPORT = """
import sys, time
sys.path.insert(0, {folder!r})
sys.argv[0] = "flipgame"
import flipgame
from flipgame.core.signals import command_started
command_started()
try:
    import swallowing
    print("imported, swallowed" if hasattr(swallowing, "SWALLOWED") else "imported")
    time.sleep(10)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted")
"""


def test_a_ctrl_c_during_an_import_comes_once_the_import_ends(tmp_path):
    """A Ctrl-C while OR-Tools loaded was lost in 1 run of 150 (pybind11 made it an ImportError, which an
    optional import took for a missing module) and in 2 more printed as 'Exception ignored' from an
    import-lock callback; the run then went on for minutes.  Inside an import it is now put off until
    the import ends (at most IMPORT_WAIT_SECONDS)."""
    (tmp_path / "swallowing.py").write_text(SWALLOWING_IMPORT)
    r = subprocess.run([sys.executable, "-c", CTRL_C_IN_AN_IMPORT.format(folder=str(tmp_path))], capture_output=True,
                       text=True, timeout=60, preexec_fn=_sigint_default)
    assert (r.returncode, r.stdout, r.stderr) == (0, "imported\ninterrupted\n", "")


def test_a_ctrl_c_raised_where_python_only_prints_it_comes_again():
    r = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import sys, time, weakref
        sys.argv[0] = "flipgame"
        import flipgame
        from flipgame.core.signals import command_started
        command_started()
        class A:
            pass
        a = A()
        def callback(ref):
            raise KeyboardInterrupt
        ref = weakref.ref(a, callback)
        try:
            del a
            time.sleep(10)
            print("lost")
        except KeyboardInterrupt:
            print("interrupted")
    """)], capture_output=True, text=True, timeout=60, preexec_fn=_sigint_default)
    assert (r.returncode, r.stdout, r.stderr) == (0, "interrupted\n", "")


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a test run in the background inherits SIGINT ignored


@pytest.mark.slow
def test_ctrl_c_at_varied_moments_of_the_start_up_exits_130_in_one_line(tmp_path):
    """Ten Ctrl-Cs from the moment flipgame's first module has loaded numpy (its start-up handler is in
    place) to 1.5 s later: each exits 130 with one line and nothing on stdout."""
    rng = random.Random(30)
    board = tmp_path / "b.txt"
    board.write_text("".join("".join(rng.choice("012") for _ in range(14)) + "\n" for _ in range(14)))
    for _ in range(10):
        p = subprocess.Popen([sys.executable, "-m", "flipgame", "solve", "--states", "3", "--size", "14x14",
                              "--goal", "0", "--backend", "cpsat", str(board)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=_sigint_default)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "numpy" not in Path(f"/proc/{p.pid}/maps").read_text():
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 1.5))
        os.killpg(p.pid, signal.SIGINT)
        start = time.monotonic()
        out, err = p.communicate(timeout=60)
        assert (p.returncode, out, err) == (130, "", "flipgame: interrupted\n"), err
        # A Ctrl-C that comes in an import waits for it (IMPORT_WAIT_SECONDS), then for the C code it runs:
        # 2.2 s at worst in 450 runs on the loaded machine, where the Ctrl-Cs of a running solve take 0.2 s.
        assert_within(time.monotonic() - start, 3.0, "the exit after a Ctrl-C at start-up")

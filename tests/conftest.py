"""Shared test helpers, in one place: the POJ sample, the seed's trap boards, the ``flipgame``
subprocess, gate shorthands, the slow-test switch and the exhaustive 4x4 batch fixtures."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from flipgame import Board, Game, solve, solve_batch
from flipgame.backends.program import package_hint
from flipgame.backends.registry import BACKENDS, STRATEGIES
from flipgame.core import extras

POJ_SAMPLE = ["bwwb", "bbwb", "bwwb", "bwww"]
"""The POJ 1753 sample board: 4 presses."""
POJ_SAMPLE_TEXT = "".join(row + "\n" for row in POJ_SAMPLE)
"""The sample as ``flipgame solve`` reads it."""
POJ_SAMPLE_CELLS = 0b0001100110111001
"""The sample as a bitmask (cell (r, c) = bit 4r + c)."""

# The reference C++ in the seed skips one consistency row, so it answers a
# number for the 4096 boards of the coset 14 + column space of A.  Board 14
# (bits 1, 2, 3 black) is the one DESIGN.md names; the others are 14 XOR a
# press mask, so they lie in the same coset.  All must be Impossible.
REFERENCE_TRAP_BOARDS = [
    ["wbbb", "wwww", "wwww", "wwww"],  # 14
    ["bwbb", "bwww", "wwww", "wwww"],  # 14 ^ press(0,0)
    ["wbbb", "wbww", "bbbw", "wbww"],  # 14 ^ press(2,1)
    ["wbbb", "wwww", "wwwb", "wwbb"],  # 14 ^ press(3,3)
]


HEAVY_PER_BOARD = {"pb", "maxsat", "external", "mip"}
"""Backends at several milliseconds a board (a program started, or a model rebuilt, per board): their sweeps over
hundreds of boards are in ``make test-slow``; their answers on the known boards stay in the fast suite."""


def per_board(methods) -> list:
    """``methods`` as parameters, the sweeps of :data:`HEAVY_PER_BOARD` and of the strategy variants marked slow."""
    return [pytest.param(m, marks=pytest.mark.slow) if m in HEAVY_PER_BOARD or m.startswith("strategy:") else m
            for m in methods]


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", help="also run the tests marked slow (make test-slow)")


TIMING = {"checked": False}
"""Whether wall-clock bounds are asserted: only in ``make test-slow`` (``--runslow``), never in the fast
suite, where a loaded machine would make them fail.  The fast suite still checks what the run gives."""


def pytest_configure(config):
    TIMING["checked"] = bool(config.getoption("--runslow"))


def assert_within(seconds: float, bound: float, what: str = "the run") -> None:
    """Assert that ``seconds`` (wall clock) is under ``bound``, when timings are checked (see :data:`TIMING`)."""
    if TIMING["checked"]:
        assert seconds < bound, f"{what} took {seconds:.2f} s, over its bound of {bound} s"


def program_of(method: str) -> str | None:
    """The program a backend or strategy name runs (``external``, ``cadical``, ``strategy:picosat``), or None."""
    name = method.removeprefix("strategy:")
    if name == "external":
        name = "cadical"  # the external backend's default command
    strategy = STRATEGIES.get(name)
    if strategy is None or strategy.backend != "external":
        return None
    return strategy.options["command"].split()[0]


def missing_program(method: str) -> str | None:
    """The program of ``method`` (see :func:`program_of`) if it is not installed, else None."""
    program = program_of(method)
    return program if program and shutil.which(program) is None else None


def need_program(program: str) -> None:
    """Skip the running test unless ``program`` is installed, naming its Debian package."""
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed ({package_hint(program)})")


def _needed_program(item) -> str | None:
    """The missing program named by one of ``item``'s parameters (a backend or strategy name), or None."""
    params = getattr(item, "callspec", None)
    for value in (params.params.values() if params else ()):
        if isinstance(value, str) and (program := missing_program(value)):
            return program
    return None


def missing_library(method: str) -> str | None:
    """The optional library a backend or strategy name (``sat``, ``strategy:sat-xor``) needs with its default
    options and does not find installed (:mod:`flipgame.core.extras`), or None."""
    name = method.removeprefix("backend:").removeprefix("strategy:")
    if name in STRATEGIES:
        strategy = STRATEGIES[name]
        return BACKENDS[strategy.backend].missing_library(dict(strategy.options)) if strategy.backend in BACKENDS \
            else None
    return BACKENDS[name].missing_library({}) if name in BACKENDS else None


def _needed_library(item) -> str | None:
    """The missing library a parameter of ``item`` (a backend or strategy name) needs, or one of the test's
    ``needs`` marks names (``@pytest.mark.needs("numba")``), or None."""
    for mark in item.iter_markers("needs"):
        for module in mark.args:
            if not extras.installed(module):
                return module
    params = getattr(item, "callspec", None)
    for value in (params.params.values() if params else ()):
        if isinstance(value, str) and (library := missing_library(value)):
            return library
    return None


def need(module: str) -> None:
    """Skip the running test unless the optional library ``module`` is installed, naming its extra."""
    if not extras.installed(module):
        pytest.skip(extras.missing(module, "this test"))


def pytest_collection_modifyitems(config, items):
    """Slow tests are opt-in, as in networkx's conftest: a bare ``pytest`` runs the fast suite.  A test
    run for an external program that is not installed skips, naming the package to install."""
    for item in items:
        if program := _needed_program(item):
            item.add_marker(pytest.mark.skip(reason=f"{program} is not installed ({package_hint(program)})"))
        elif library := _needed_library(item):
            item.add_marker(pytest.mark.skip(reason=extras.missing(library, "this test")))
    if config.getoption("--runslow") or "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow or make test-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter):
    """One line at the end for each kind of thing missing: the solver programs (and how to install them), and
    the optional libraries (and their extras); computed here, in the process that reports, so it holds with
    ``-n`` workers too."""
    skipped = terminalreporter.stats.get("skipped", [])
    programs = sorted({p for name in STRATEGIES if (p := missing_program(name))})
    if programs:
        count = sum(1 for r in skipped if "is not installed" in str(r.longrepr))
        listed = ", ".join(f"{p} ({package_hint(p)})" for p in programs)
        terminalreporter.write_line(f"skipped {count} tests for missing solver programs: {listed}; install them "
                                    f"to run every external-strategy test")
    libraries = sorted(m for m in extras.EXTRA_OF if not extras.installed(m))
    if libraries:
        count = sum(1 for r in skipped if "pip install 'flipgame[" in str(r.longrepr))
        listed = ", ".join(f"{m} ([{extras.EXTRA_OF[m]}])" for m in libraries)
        terminalreporter.write_line(f"skipped {count} tests for missing optional libraries: {listed}; "
                                    f"pip install 'flipgame[all]' runs them all")


@pytest.fixture(scope="session")
def game4() -> Game:
    return Game(4, 4)


@pytest.fixture(scope="session")
def all_boards() -> np.ndarray:
    return np.arange(1 << 16, dtype=np.uint64)


@pytest.fixture(scope="session")
def exhaustive(game4, all_boards):
    """Batch results of gauss and bfs over all 65536 4x4 boards (goal any)."""
    return {name: batch_gate(name, game4, all_boards) for name in ("gauss", "bfs")}


def board(rows: list[str]) -> Board:
    return Board.from_rows(rows)


def solve_gate(backend: str, game: Game, board: int, **options):
    """One board through the gate, argument order (backend, rules, board)."""
    return solve(board, backend, game=game, **options)


def batch_gate(backend: str, game: Game, boards, **options):
    """Many boards through the gate."""
    return solve_batch(boards, game, backend, **options)


def flipgame(*args: str, stdin: str = "", timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    """``python -m flipgame *args`` with ``stdin``; text output captured."""
    return subprocess.run([sys.executable, "-m", "flipgame", *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, **kw)


def sigint_default() -> None:
    """``preexec_fn`` for a child that a test will Ctrl-C: a test run started in the background
    (``make test &``) ignores SIGINT, and children would inherit that; give them the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_until_busy(pid: int, cpu_seconds: float = 1.5, timeout: float = 60.0) -> None:
    """Wait until process ``pid`` has used ``cpu_seconds`` of CPU: past its imports (about 0.5 s of
    CPU), so a signal sent next reaches the solve, however loaded the machine is."""
    import psutil

    proc, deadline = psutil.Process(pid), time.monotonic() + timeout
    while time.monotonic() < deadline:
        times = proc.cpu_times()
        if times.user + times.system >= cpu_seconds:
            return
        time.sleep(0.05)


def started_clean() -> None:
    """``preexec_fn`` of a command a test interrupts: the signal state a shell gives it (nothing blocked, SIGINT
    and SIGTERM at their defaults), whatever an earlier test left in this worker process (children inherit the
    mask and ignored signals across ``exec``)."""
    import signal as _signal

    _signal.pthread_sigmask(_signal.SIG_SETMASK, [])
    for s in (_signal.SIGINT, _signal.SIGTERM):
        _signal.signal(s, _signal.SIG_DFL)



@pytest.fixture
def small_blocks(monkeypatch):
    """6 inner bits and blocks of 64 groups: a 19x19 all-lit run (nullity 16) has 16 blocks (the long run's
    tests: checkpoints, chunks)."""
    from flipgame.algebra import coset_run, wht_blocked

    monkeypatch.setattr(wht_blocked, "LOW_BITS", 2)
    monkeypatch.setattr(coset_run, "BLOCK_GROUPS", 64)


def lit_coset(n: int):
    """The all-lit n x n board's ``(game, board, parts, quiet)`` (goal white), as the long run takes them."""
    from flipgame.algebra import gf2

    game = Game(n, n, "white")
    parts, quiet, _ = gf2.solution_cosets(game, game.full)
    return game, game.full, parts, quiet

"""``external``: any solver program, run on an exported file, its answer read in the competitions' conventions.

The board is written with :mod:`flipgame.encode.export` in the program's format and the
program is run as a child process in a session of its own, so that its whole
process group is killed at the time limit or on Ctrl-C.  What it prints is read
as the community it comes from prints it:

``cnf`` / ``xcnf`` (SAT)
    ``s SATISFIABLE`` / ``s UNSATISFIABLE`` and ``v`` lines of literals (SAT
    competitions), or MiniSat's result file (``SAT`` then the literals) when the
    command names ``{out}``.  A SAT solver decides; the backend descends over the
    bound: the file without a bound gives a first press set of weight w (or
    Impossible), then the file with "at most w - 1 presses" is solved again until
    it is UNSAT, so the last model is a minimum.
``wcnf`` (MaxSAT) and ``opb`` (PB)
    ``o COST``, ``s OPTIMUM FOUND`` / ``s UNSATISFIABLE`` and a ``v`` line (MaxSAT
    Evaluation 2022: a string of 0/1 or literals; PB competition: ``x1 -x2 ...``).
``mps`` (MIP)
    CBC's solution file (``Optimal - objective value 4`` / ``Infeasible ...``, then
    one line per non-zero column) when the command names ``{out}``.

Every press set read back must reach the goal under the board model
(:meth:`flipgame.model.system.PressSystem.apply`) with the weight read; anything else is an
error, never an answer.  A time-out is UNKNOWN.  A program that is not installed
is refused before anything runs, in one line naming its Debian package.

Running time: the program's, plus a process start and a file per call (about
2-10 ms on 4x4).
Source: SAT competition output rules; MaxSAT Evaluation 2022 rules; PB
competition rules (Roussel & Manquinho 2016); CBC's ``solu`` command.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

from flipgame.backends.base import TIME_LIMIT, Backend, Option, default_time_limit, no_canonical
from flipgame.backends.result import Solution, Status
from flipgame.core.errors import OptionError, RefusedError
from flipgame.encode.export import SUFFIXES, export
from flipgame.model.system import PressSystem

FORMATS = ("cnf", "xcnf", "wcnf", "opb", "mps")
"""Formats an external program can be given."""
PACKAGES = {"cadical": "cadical", "cryptominisat5": "cryptominisat", "minisat": "minisat", "picosat": "picosat",
            "cbc": "coinor-cbc", "kissat": "kissat", "glucose": "glucose", "lingeling": "lingeling"}
"""Program -> the Debian package that installs it (for the refusal message)."""
KILL_GRACE = 2.0
"""Seconds to wait for a killed process group to be reaped."""


class ExternalRefused(RefusedError):
    """The program is not installed, or the command cannot be run."""

    about_the_board = False


def package_hint(program: str) -> str:
    """How to get ``program``, for the one-line refusal."""
    pkg = PACKAGES.get(os.path.basename(program))
    return f"apt-get install {pkg}" if pkg else "install it or give its full path"


def run_program(argv: list[str], seconds: float) -> str | None:
    """Run ``argv`` in a new session; its standard output, or None at the time limit.

    The whole process group is killed (SIGKILL) at ``seconds`` and on any exception,
    KeyboardInterrupt included, which is re-raised.  Exit codes are not errors
    (SAT solvers exit 10 and 20).
    """
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=max(seconds, 0.001))
        return out
    except subprocess.TimeoutExpired:
        _kill(proc)
        return None
    except BaseException:
        _kill(proc)
        raise


def _kill(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):  # a process that survives SIGKILL
        proc.communicate(timeout=KILL_GRACE)


def literals(tokens: list[str]) -> set[int]:
    """The true variables among DIMACS / OPB literal tokens (``12``, ``-3``, ``x5``, ``-x7``), 0 ignored."""
    true = set()
    for tok in tokens:
        neg = tok.startswith("-")
        v = int(tok.lstrip("-").lstrip("x") or 0)
        if v and not neg:
            true.add(v)
    return true


def read_competition(text: str) -> tuple[str, set[int]]:
    """``(status, true variables)`` from ``s``/``v`` lines; status is the ``s`` line's word(s) or ``""``.

    A ``v`` line of only 0/1 characters (MaxSAT Evaluation 2022) gives variable i+1 for each 1.

    >>> read_competition("c hi\\ns SATISFIABLE\\nv 1 -2\\nv 3 0\\n")
    ('SATISFIABLE', {1, 3})
    >>> read_competition("o 2\\ns OPTIMUM FOUND\\nv 0110\\n")
    ('OPTIMUM FOUND', {2, 3})
    """
    status, true = "", set()
    for line in text.splitlines():
        head, _, rest = line.strip().partition(" ")
        if head == "s":
            status = rest.strip()
        elif head == "v":
            rest = rest.strip()
            if rest and set(rest) <= {"0", "1"} and len(rest) > 1 or rest in ("0", "1") and not true:
                true |= {i + 1 for i, ch in enumerate(rest) if ch == "1"}
            else:
                true |= literals(rest.split())
    return status, true


def read_minisat(text: str) -> tuple[str, set[int]]:
    """MiniSat's result file: ``SAT`` then the literals, ``UNSAT``, or ``INDET``."""
    words = text.split()
    if not words:
        return "", set()
    status = {"SAT": "SATISFIABLE", "UNSAT": "UNSATISFIABLE"}.get(words[0], "")
    return status, literals(words[1:])


def read_cbc(text: str, n: int) -> tuple[str, set[int]]:
    """CBC's solution file: ``Optimal - objective value W`` / ``Infeasible - ...``, then
    ``index name value reduced-cost`` lines; the presses are columns ``press_j`` at 1."""
    lines = text.splitlines()
    if not lines:
        return "", set()
    first = lines[0].lower()
    status = ("OPTIMUM FOUND" if first.startswith("optimal") else
              "UNSATISFIABLE" if "infeasible" in first else "")
    true = set()
    for line in lines[1:]:
        parts = line.split()
        if len(parts) >= 3 and parts[1].startswith("press_") and float(parts[2]) > 0.5:
            true.add(int(parts[1][6:]) + 1)
    return status, true


class Program:
    """One command template, its format and how its answer is read.

    Parameters
    ----------
    command : str
        ``PROGRAM ARGS {file}``; ``{out}`` names a result file the program writes.
    fmt : str
        One of :data:`FORMATS`.
    """

    def __init__(self, command: str, fmt: str):
        self.argv = shlex.split(command)
        if not self.argv or not any("{file}" in a for a in self.argv):
            raise OptionError(f"--solver-cmd must name the instance file as {{file}}, got {command!r}")
        if fmt not in FORMATS:
            raise OptionError(f"--solver-format: {fmt!r} is not one of {', '.join(FORMATS)}")
        self.fmt = fmt

    @property
    def program(self) -> str:
        return self.argv[0]

    def missing(self) -> str | None:
        """One line if the program cannot be found, else None."""
        if shutil.which(self.program) is None:
            return f"{self.program} is not installed ({package_hint(self.program)})"
        return None

    def run(self, game: PressSystem, board: int, seconds: float,
            bound: int | None = None) -> tuple[str, set[int]] | None:
        """Write the instance, run the program on it; ``(status, true variables)`` or None at the time limit."""
        with tempfile.TemporaryDirectory(prefix="flipgame-") as tmp:
            path = os.path.join(tmp, "instance" + SUFFIXES[self.fmt])
            out = os.path.join(tmp, "result.txt")
            with open(path, "w") as f:
                f.write(export(self.fmt, game, board, bound=bound))
            argv = [a.replace("{file}", path).replace("{out}", out) for a in self.argv]
            stdout = run_program(argv, seconds)
            if stdout is None:
                return None
            uses_out = any("{out}" in a for a in self.argv)
            text = _read(out) if uses_out else stdout
        if self.fmt == "mps":
            return read_cbc(text, game.m)
        if uses_out and self.fmt in ("cnf", "xcnf"):
            return read_minisat(text)
        return read_competition(text)


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


def _presses(true: set[int], n: int) -> int:
    return sum(1 << (v - 1) for v in true if v <= n)


def _wrong_model(game: PressSystem, board: int, presses: int) -> str | None:
    """Why the program's press set is no witness (it reaches no goal board), or None."""
    if game.apply(board, presses) in game.targets:
        return None
    return f"the program's press set {presses:#x} does not reach a goal board"


def solve_external(prog: Program, game: PressSystem, board: int, time_limit: float) -> tuple[Status, int | None, dict]:
    """``(status, presses, stats)``: one optimisation call, or the SAT descent over the bound."""
    deadline = time.perf_counter() + time_limit
    stats = {"program": prog.program, "format": prog.fmt, "calls": 0}
    bound, best = None, None
    while True:
        stats["calls"] += 1
        got = prog.run(game, board, deadline - time.perf_counter(), bound)
        if got is None:
            return Status.UNKNOWN, None, stats
        status, true = got
        if status in ("UNSATISFIABLE", "UNSAT"):
            return (Status.INFEASIBLE, None, stats) if best is None else (Status.OPTIMAL, best, stats)
        if status not in ("SATISFIABLE", "OPTIMUM FOUND"):
            return Status.UNKNOWN, None, stats
        best = _presses(true, game.m)
        if wrong := _wrong_model(game, board, best):
            return Status.ERROR, None, stats | {"error": wrong}
        if prog.fmt not in ("cnf", "xcnf"):
            return Status.OPTIMAL, best, stats
        if best == 0:
            return Status.OPTIMAL, 0, stats
        bound = best.bit_count() - 1


class External(Backend):
    """A solver program on an exported file; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "external", command="cadical -q {file}").moves  # doctest: +SKIP
    4
    """

    name = "external"
    summary = "an external solver program on an exported DIMACS/WCNF/OPB/MPS file (SAT: descent over the bound)"
    parallel = True
    max_cells = 40_000
    by_default = False
    options = (
        TIME_LIMIT,
        Option("command", str, "cadical -q {file}", "external program: 'PROGRAM ARGS {file}' ({out}: a result "
               "file it writes)", flag="--solver-cmd"),
        Option("format", str, "cnf", "the format the external program reads", choices=FORMATS,
               flag="--solver-format"),
    )

    def check_options(self, options: dict) -> dict:
        checked = no_canonical(self.name, super().check_options(options))
        Program(checked["command"], checked["format"])
        return checked

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        return super().refusal(game, options) or Program(options["command"], options["format"]).missing()

    def refusal_error(self, game: PressSystem, options: dict) -> type[Exception]:
        return ExternalRefused if self.supports(game) else super().refusal_error(game, options)

    def solve(self, game: PressSystem, board: int, **options) -> Solution:
        options = self.check_options(options)  # defaults filled when called without the gate
        start = time.perf_counter()
        limit = options.get("time_limit") or default_time_limit(game)
        status, presses, stats = solve_external(Program(options["command"], options["format"]), game, board, limit)
        seconds = time.perf_counter() - start
        if status is not Status.OPTIMAL:
            return Solution(self.name, status, seconds=seconds, stats=stats)
        return Solution(self.name, status, presses.bit_count(), presses, game.apply(board, presses), seconds, stats)

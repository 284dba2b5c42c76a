"""``external``: any solver program, run on an exported file, its answer read in the competitions' conventions.

The board is written with :mod:`flipgame.encode.export` in the program's format and the
program runs bounded and measured (:func:`flipgame.core.processes.run_bounded`): its own
session, the time limit, an address-space limit (``memory_limit`` GiB), a cap on the output
read, its whole process group killed after every call.  What it prints is read as the
community it comes from prints it (:mod:`flipgame.backends.program_output`):

``cnf`` / ``xcnf`` (SAT)
    ``s SATISFIABLE`` / ``s UNSATISFIABLE`` and ``v`` lines of literals (SAT
    competitions), or MiniSat's result file (``SAT`` then the literals) when the
    command names ``{out}``.  A SAT solver decides; the backend descends over the
    bound: the file without a bound gives a first press set of weight w (or
    Impossible), then the file with "at most w - 1 presses" is solved again until
    it is UNSAT, so the last model is a minimum.
``wcnf`` (MaxSAT), ``opb`` / ``opb-xor`` (PB)
    ``o COST``, ``s OPTIMUM FOUND`` / ``s UNSATISFIABLE`` and a ``v`` line (MaxSAT
    Evaluation 2022: a string of 0/1 or literals; PB competition: ``x1 -x2 ...``).
``mps`` / ``lp`` (MIP)
    CBC's solution file (``Optimal - objective value 4`` / ``Infeasible ...``, then
    one line per non-zero column) when the command names ``{out}``.

The command may also name ``{seconds}`` (the whole seconds left of the limit) and
``{memory_mb}``, for the program's own limit flags.  The answer is the program's
claim, passed on as claimed: a press set that reaches no goal is returned as the
witness it claims to be, for the callers' witness checks to reject (``solve`` exits 3),
and a claimed minimum or Impossible is checked by ``solve`` against gauss or a proof
(:mod:`flipgame.verify.checks.claims`).  Output that is no answer (garbage, a crash, no
``s`` line) is ERROR, its message quoting the output, the exit status and the command
line; a time-out is UNKNOWN.  ``stats`` carries the program, its version, the calls and
their summed ``wall`` and ``cpu`` seconds, the largest ``peak_rss`` (bytes; None when every
call ended before it could be measured, see :class:`~flipgame.core.processes.RunResult`), and the limits
(``time_limit`` seconds, ``memory_limit`` GiB).  A program
that is not installed, or lacks its exec bit, is refused before anything runs.

Running time: the program's, plus a process start and a file per call (about
2-10 ms on 4x4).
Source: SAT competition output rules; MaxSAT Evaluation 2022 rules; PB
competition rules (Roussel & Manquinho 2016); CBC's ``solu`` command; runsolver.
"""

from __future__ import annotations

import errno
import math
import os
import re
import shlex
import shutil
import stat
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, Backend, Option, default_time_limit, no_canonical
from flipgame.backends.program_output import (
    ProgramOutputError,
    literals,
    read_cbc,
    read_competition,
    read_minisat,
)
from flipgame.backends.result import Solution, Status
from flipgame.core.errors import OptionError, RefusedError
from flipgame.core.limits import OUTPUT_MAX_BYTES
from flipgame.encode.export import SUFFIXES, export
from flipgame.model.system import PressSystem

if TYPE_CHECKING:
    from flipgame.core.processes import RunResult

FORMATS = ("cnf", "xcnf", "wcnf", "opb", "opb-xor", "mps", "lp")
"""Formats an external program can be given (every one :func:`flipgame.encode.export.export` writes
that a program reads; ``cpsat`` is OR-Tools' own)."""
DECISION = ("cnf", "xcnf")
"""Formats whose programs decide (SAT): the backend descends over the bound."""
ANSWERS = ("auto", "competition", "minisat", "cbc")
"""How a program answers: ``competition`` ``s``/``v``/``o`` lines on standard output; ``minisat`` or
``cbc``, a result file it writes to ``{out}``; ``auto``: cbc for mps/lp, minisat for cnf/xcnf naming
``{out}``, else competition."""
PACKAGES = {"cadical": "cadical", "cryptominisat5": "cryptominisat", "minisat": "minisat", "picosat": "picosat",
            "cbc": "coinor-cbc", "kissat": "kissat", "glucose": "glucose", "lingeling": "lingeling"}
"""Program -> the Debian package that installs it (for the refusal message)."""
VERSION_SECONDS = 5.0
"""Seconds a version command may take (they print one line at once; a hung one is not waited for)."""
RESULT_STATUSES = {"SATISFIABLE": "sat", "OPTIMUM FOUND": "sat", "UNSATISFIABLE": "unsat", "UNSAT": "unsat",
                   "UNKNOWN": "unknown", "INDET": "unknown"}
"""The ``s`` words a program may answer, and what each means; no ``s`` line at all is no answer (ERROR)."""


FLAGS = {"command": "--solver-cmd", "format": "--solver-format", "answer": "--solver-answer"}
"""The command-line flags of the program's options, as messages name them."""


class ExternalRefused(RefusedError):
    """The program is not installed, or the command cannot be run."""

    about_the_board = False


def package_hint(program: str) -> str:
    """How to get ``program``, for the one-line refusal."""
    pkg = PACKAGES.get(os.path.basename(program))
    return f"apt-get install {pkg}" if pkg else "install it or give its full path"


def not_runnable(program: str) -> str | None:
    """One line if ``program`` (a path, or a name on ``PATH``) cannot be run, else None: not installed,
    or a file without its exec bit (named as such, with the ``chmod`` that fixes it)."""
    if "/" in program:
        candidates = [program]
    elif shutil.which(program) is not None:
        return None
    else:
        candidates = [os.path.join(d, program) for d in os.environ.get("PATH", os.defpath).split(os.pathsep) if d]
    for path in candidates:
        if os.path.isfile(path) and not os.access(path, os.X_OK):
            return f"{path} is not executable (chmod +x {path})"
        if os.path.isdir(path):
            return f"{path} is a folder, not a program"
    if "/" in program and os.path.isfile(program):
        return None
    return f"{program} is not installed ({package_hint(program)})"


_VERSIONS: dict[str, str] = {}
VERSION_PATTERN = re.compile(r"\b\d+\.\d+")
"""A version number in a program's output (``5.11.4``, ``2.10.8``)."""


def version_of(command: str) -> str:
    """The line ``command`` prints that names a version: the first holding a version number (``CryptoMiniSat
    version 5.11.4`` without its DIMACS comment mark), else the first holding a digit (PicoSAT's ``965``), else
    its first line; ``""`` for no command (the program is never run with a guessed ``--version``: a wrapper
    would pass it on).  Run once per command (cached), bounded by :data:`VERSION_SECONDS`."""
    if not command:
        return ""
    if command not in _VERSIONS:
        from flipgame.core.processes import run_bounded  # child processes: only when a program runs

        try:
            run = run_bounded(shlex.split(command), VERSION_SECONDS, output_cap=1 << 16)
            text = (run.stdout + b"\n" + run.stderr_tail).decode("utf-8", "replace")
            lines = [ln.strip().removeprefix("c ").strip() for ln in text.splitlines() if ln.strip()]
            found = [ln for ln in lines if VERSION_PATTERN.search(ln)] or [ln for ln in lines if re.search(r"\d", ln)]
            _VERSIONS[command] = (found or lines or [f"unknown ({run.ended})"])[0][:120]
        except (OSError, ValueError) as exc:
            _VERSIONS[command] = f"unknown ({getattr(exc, 'strerror', None) or exc})"
    return _VERSIONS[command]


@dataclass(frozen=True)
class Call:
    """One program call: the status word it answered (``""`` for none), its true press variables, the run,
    why its output is no answer (None when it is one), and the seconds writing its instance file took."""

    status: str
    true: frozenset
    run: RunResult
    problem: str | None = None
    export_seconds: float = 0.0


class Program:
    """One command template, its format and how its answer is read.

    Parameters
    ----------
    command : str
        ``PROGRAM ARGS {file}``; ``{out}`` names a result file the program writes; ``{seconds}`` and
        ``{memory_mb}`` its limits.
    fmt : str
        One of :data:`FORMATS`.
    answer : str
        One of :data:`ANSWERS`.
    flags : dict
        What the messages call the command, format and answer (the CLI flags, or a file's keys).

    Raises
    ------
    OptionError
        No ``{file}``, an unknown format or answer, or a result-file answer without ``{out}``.
    """

    def __init__(self, command: str, fmt: str, answer: str = "auto", flags: dict[str, str] = FLAGS):
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise OptionError(f"{flags['command']} {command!r}: {exc}") from None
        if not self.argv or not any("{file}" in a for a in self.argv):
            raise OptionError(f"{flags['command']} must name the instance file as {{file}}, got {command!r}")
        if fmt not in FORMATS:
            raise OptionError(f"{flags['format']}: {fmt!r} is not one of {', '.join(FORMATS)}")
        if answer not in ANSWERS:
            raise OptionError(f"{flags['answer']}: {answer!r} is not one of {', '.join(ANSWERS)}")
        self.fmt, self.uses_out = fmt, any("{out}" in a for a in self.argv)
        if answer == "auto":
            answer = "cbc" if fmt in ("mps", "lp") else "minisat" if self.uses_out and fmt in DECISION else \
                "competition"
        if answer != "competition" and not self.uses_out:
            raise OptionError(f"a {answer} answer is a result file: the command must name it as {{out}}, "
                              f"got {command!r}")
        self.answer = answer

    @property
    def program(self) -> str:
        return self.argv[0]

    def missing(self) -> str | None:
        """One line if the program cannot be run, else None."""
        return not_runnable(self.program)

    def read(self, text: str, n: int, limit: int | None = None) -> tuple[str, set[int]]:
        """``(status word, true press variables)`` of the answer ``text``, at most ``limit`` literals.
        Raises ProgramOutputError."""
        reader = {"competition": read_competition, "minisat": read_minisat, "cbc": read_cbc}[self.answer]
        return reader(text, n, limit)

    def run(self, game: PressSystem, board: int, seconds: float, bound: int | None = None,
            memory_gib: float | None = None) -> Call:
        """Write the instance, run the program on it bounded, read its answer (``problem`` quotes the offending
        line of an output that is no answer).  Raises OSError when it cannot be started."""
        import tempfile

        from flipgame.core.processes import run_bounded  # child processes: only when a program runs

        memory = None if memory_gib is None else int(memory_gib * (1 << 30))
        with tempfile.TemporaryDirectory(prefix="flipgame-") as tmp:
            path = os.path.join(tmp, "instance" + SUFFIXES[self.fmt])
            out = os.path.join(tmp, "result.txt")
            start = time.monotonic()
            instance = export(self.fmt, game, board, bound=bound)
            with open(path, "w") as f:
                f.write(instance)
            exported = time.monotonic() - start
            fill = {"{file}": path, "{out}": out, "{seconds}": str(max(1, math.ceil(seconds))),
                    "{memory_mb}": str(memory >> 20 if memory else 0)}
            argv = [_fill(a, fill) for a in self.argv]
            run = run_bounded(argv, seconds, memory_limit=memory)
            if run.timed_out or run.over_cap:
                return Call("", frozenset(), run, export_seconds=exported)
            try:
                text = _read(out) if self.uses_out and self.answer != "competition" else \
                    run.stdout.decode("utf-8", "replace")
                status, true = self.read(text, game.m, len(instance) // 2 + 1)  # each variable is in the file
            except ProgramOutputError as exc:
                return Call("", frozenset(), run, str(exc), exported)
        return Call(status, frozenset(true), run, export_seconds=exported)


def _fill(arg: str, fill: dict[str, str]) -> str:
    for key, value in fill.items():
        arg = arg.replace(key, value)
    return arg


def _read(path: str) -> str:
    """A result file, at most :data:`~flipgame.core.limits.OUTPUT_MAX_BYTES` of it (``""`` if absent).
    Raises ProgramOutputError for a larger one, and for one that is not a regular file of its own: a
    program that left a FIFO there had flipgame wait for a writer forever, past every time limit."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        why = "is a symbolic link" if exc.errno == errno.ELOOP else f"cannot be read: {exc.strerror}"
        raise ProgramOutputError(f"its result file {why}") from None
    with open(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ProgramOutputError("its result file is not a regular file")
        data = f.read(OUTPUT_MAX_BYTES + 1)
    if len(data) > OUTPUT_MAX_BYTES:
        raise ProgramOutputError(f"its result file is larger than {OUTPUT_MAX_BYTES >> 20} MiB")
    return data.decode("utf-8", "replace")


def _presses(true, n: int) -> int:
    return sum(1 << (v - 1) for v in true if v <= n)


class _Descent:
    """The calls of one board: their summed measures, and the answer as ``(status, presses, stats)``."""

    def __init__(self, prog: Program, version: str, time_limit: float, memory_gib: float | None):
        self.prog = prog
        self.stats = {"program": prog.program, "format": prog.fmt, "calls": 0, "wall": 0.0, "cpu": 0.0,
                      "peak_rss": None, "export_seconds": 0.0, "time_limit": time_limit, "memory_limit": memory_gib}
        if version:
            self.stats["version"] = version

    def add(self, call: Call) -> None:
        s, run = self.stats, call.run
        s["calls"] += 1
        s["export_seconds"] += call.export_seconds
        s["wall"] += run.wall
        s["cpu"] += run.cpu
        if run.peak_rss is not None:
            s["peak_rss"] = max(s["peak_rss"] or 0, run.peak_rss)
        s["exit_status"], s["signal"] = run.exit_status, run.signal

    def no_answer(self, status: Status, why: str) -> tuple[Status, None, dict]:
        return status, None, self.stats | {"error": f"{self.prog.program} {why}"}

    def call(self, game: PressSystem, board: int, deadline: float, bound: int | None, memory_gib: float | None,
             time_limit: float) -> Call | tuple[Status, None, dict]:
        """One call that answered SAT or UNSAT (its ``status`` then a key of :data:`RESULT_STATUSES`), or the
        board's final ``(status, None, stats)`` when it gave no answer."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return self.no_answer(Status.UNKNOWN, f"did not finish within {time_limit:g} s")
        try:
            call = self.prog.run(game, board, remaining, bound, memory_gib)
        except OSError as exc:
            return self.no_answer(Status.ERROR, f"cannot be run: {exc.strerror or exc}")
        self.add(call)
        meaning = RESULT_STATUSES.get(call.status.upper())
        if call.run.timed_out:
            return self.no_answer(Status.UNKNOWN, f"did not finish within {time_limit:g} s")
        if call.problem:
            return self.no_answer(Status.ERROR, f"printed no answer: {call.problem} ({call.run.describe()})")
        if call.run.over_cap or meaning is None:
            return self.no_answer(Status.ERROR, f"gave no answer: {call.run.describe()}")
        if meaning == "unknown":
            return self.no_answer(Status.UNKNOWN, f"answered {call.status}: {call.run.describe()}")
        return Call(meaning, call.true, call.run)


def solve_external(prog: Program, game: PressSystem, board: int, time_limit: float, memory_gib: float | None = None,
                   version: str = "") -> tuple[Status, int | None, dict]:
    """``(status, presses, stats)``: one optimisation call, or the SAT descent over the bound.

    A press set that reaches no goal ends the descent and is returned as claimed (OPTIMAL, for the
    witness check to reject); a model over the bound asked for is ERROR; see the module docstring.
    """
    deadline = time.monotonic() + time_limit
    d = _Descent(prog, version, time_limit, memory_gib)
    bound, best = None, None
    while True:
        call = d.call(game, board, deadline, bound, memory_gib, time_limit)
        if not isinstance(call, Call):
            return call
        if call.status == "unsat":
            return (Status.INFEASIBLE, None, d.stats) if best is None else (Status.OPTIMAL, best, d.stats)
        best = _presses(call.true, game.m)
        if bound is not None and best.bit_count() > bound:
            return d.no_answer(Status.ERROR, f"answered a model of {best.bit_count()} presses to 'at most {bound} "
                                             f"presses': {call.run.command}")
        if game.apply(board, best) not in game.targets or prog.fmt not in DECISION or best == 0:
            return Status.OPTIMAL, best, d.stats
        bound = best.bit_count() - 1


class External(Backend):
    """A solver program on an exported file; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "external", command="cadical -q {file}").moves  # doctest: +SKIP
    4
    """

    name = "external"
    summary = ("an external solver program on an exported DIMACS/WCNF/OPB/MPS/LP file (SAT: descent over the "
               "bound), bounded and measured")
    parallel = True
    max_cells = 40_000
    by_default = False
    options = (
        TIME_LIMIT,
        MEMORY_LIMIT,
        Option("command", str, "cadical -q {file}", "external program: 'PROGRAM ARGS {file}' ({out}: a result "
               "file it writes; {seconds}, {memory_mb}: its limits)", flag="--solver-cmd"),
        Option("format", str, "cnf", "the format the external program reads", choices=FORMATS,
               flag="--solver-format"),
        Option("answer", str, "auto", "how the external program answers: s/v/o lines, or a minisat or cbc "
               "result file at {out}", choices=ANSWERS, flag="--solver-answer"),
        Option("version", str, "", "a command printing the external program's version (recorded)",
               flag="--solver-version"),
    )

    def check_options(self, options: dict) -> dict:
        checked = no_canonical(self.name, super().check_options(options))
        Program(checked["command"], checked["format"], checked["answer"])
        return checked

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        return super().refusal(game, options) or Program(options["command"], options["format"],
                                                         options["answer"]).missing()

    def refusal_error(self, game: PressSystem, options: dict) -> type[Exception]:
        return ExternalRefused if self.supports(game) else super().refusal_error(game, options)

    def solve(self, game: PressSystem, board: int, **options) -> Solution:
        options = self.check_options(options)  # defaults filled when called without the gate
        start = time.perf_counter()
        limit = options.get("time_limit") or default_time_limit(game)
        prog = Program(options["command"], options["format"], options["answer"])
        status, presses, stats = solve_external(prog, game, board, limit, options["memory_limit"],
                                                version_of(options["version"]))
        seconds = time.perf_counter() - start
        if status is not Status.OPTIMAL:
            return Solution(self.name, status, seconds=seconds, stats=stats)
        after = game.apply(board, presses)
        target = after if after in game.targets else game.targets[0]  # a wrong press set keeps its claim
        return Solution(self.name, status, presses.bit_count(), presses, target, seconds, stats)


def is_program(backend: Backend) -> bool:
    """True if ``backend`` runs an external program (the backend itself, or a strategy over it)."""
    return getattr(getattr(backend, "base", backend), "name", None) == External.name


__all__ = ["ANSWERS", "DECISION", "FORMATS", "Call", "External", "ExternalRefused", "Program", "is_program",
           "literals", "not_runnable", "read_cbc", "read_competition", "read_minisat", "solve_external",
           "version_of"]

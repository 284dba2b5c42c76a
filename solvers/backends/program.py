"""A solver program as the ``external`` backend runs it: its command template, format and answer
convention (:class:`Program`), whether it can be run, its version, and one call on an exported file.

:meth:`Program.run` writes the board with :mod:`flipgame.encode.export` in the program's format
and runs the program bounded and measured (:func:`flipgame.core.processes.run_bounded`); its
output, or the result file it names as ``{out}`` (read at most
:data:`~flipgame.core.limits.OUTPUT_MAX_BYTES` of, never from anything but a regular file), is
read by :mod:`flipgame.backends.program_output`.  The call comes back as a :class:`Call`: the
status word, the true press variables, the run, and why the output is no answer.  What the
answers mean for a board (the descent over the bound) is :mod:`flipgame.backends.external`'s.

Running time: the program's, plus a process start and a file per call (about 2-10 ms on 4x4).
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

from flipgame.backends.program_output import ProgramOutputError, read_cbc, read_competition, read_minisat
from flipgame.core.errors import OptionError
from flipgame.core.limits import OUTPUT_MAX_BYTES, VERSION_SECONDS
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
FLAGS = {"command": "--solver-cmd", "format": "--solver-format", "answer": "--solver-answer"}
"""The command-line flags of the program's options, as messages name them."""


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
            memory_gib: float | None = None, cpu_seconds: float | None = None) -> Call:
        """Write the instance, run the program on it bounded, read its answer (``problem`` quotes the offending
        line of an output that is no answer).  ``seconds`` is the wall-clock limit; ``cpu_seconds``, when given,
        a CPU-time limit enforced and measured by BenchExec (:mod:`flipgame.core.cgroup_run`) where it can be
        used, the memory limit then the tree's resident memory.  Raises OSError when it cannot be started."""
        import tempfile

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
            run = measured_run(argv, seconds, memory, cpu_seconds)
            if run.timed_out or run.over_cap:
                return Call("", frozenset(), run, export_seconds=exported)
            try:
                text = _read(out) if self.uses_out and self.answer != "competition" else \
                    run.stdout.decode("utf-8", "replace")
                status, true = self.read(text, game.m, len(instance) // 2 + 1)  # each variable is in the file
            except ProgramOutputError as exc:
                return Call("", frozenset(), run, str(exc), exported)
        return Call(status, frozenset(true), run, export_seconds=exported)


def measured_run(argv: list[str], seconds: float, memory: int | None, cpu_seconds: float | None):
    """The program's run: under BenchExec with a CPU-time limit when one is asked for and BenchExec can be used,
    else :func:`~flipgame.core.processes.run_bounded` (wall-clock limit, address-space limit)."""
    from flipgame.core import cgroup_run
    from flipgame.core.processes import run_bounded

    if cpu_seconds is not None and cgroup_run.unavailable() is None:
        return cgroup_run.run_cgroup(argv, cpu_seconds, seconds, memory)
    return run_bounded(argv, seconds, memory_limit=memory)


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

"""The ``flipgame`` command line: the entry point, which answers plain POJ 1753 input in the judge's lane
(:mod:`flipgame.cli.lane`, without numpy or the backends) and hands every other command line to the dispatcher
(:mod:`flipgame.cli.commands`, one module per command).  Exit statuses are the named codes of :class:`ExitCode`.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Sequence

from flipgame.cli import lane
from flipgame.cli.exits import ExitCode, fail
from flipgame.core.signals import caused_by_interrupt, command_started, terminated


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``flipgame`` console script; returns an :class:`ExitCode`."""
    if sys.stdout is None:
        print("flipgame: standard output is closed", file=sys.stderr)
        return int(ExitCode.USAGE)
    try:
        code = _command(sys.argv[1:] if argv is None else list(argv))
    except KeyboardInterrupt:
        code = _interrupted()
    except BrokenPipeError:
        # The reader went away (e.g. `| head -1`): stop quietly, as other Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.OK)
    except OSError as exc:  # e.g. standard output on a full disk
        return int(fail(ExitCode.USAGE, f"cannot write output: {exc.strerror or exc}"))
    except Exception as exc:
        if not caused_by_interrupt(exc):
            raise
        code = _interrupted()
    if code == ExitCode.INTERRUPTED:
        # Ctrl-C exits at once: the garbage collection of every module at shutdown took about 1 s of the
        # 2 s an interrupt may take once OR-Tools' CP-SAT was loaded (0.13 s with the objects frozen).
        gc.freeze()
        if terminated():
            code = int(ExitCode.TERMINATED)
    return code


def _command(argv: list[str]) -> int:
    """Answer ``argv`` in the judge's lane when it takes it, else through the dispatcher (KeyboardInterrupt, on
    Ctrl-C or SIGTERM, is the caller's)."""
    command_started()
    code = lane.answer(argv)
    if code is not None:
        return int(code)
    return dispatcher().run_command(argv)


def dispatcher():
    """The dispatcher, imported when the lane does not answer: it loads every backend (start-up time)."""
    return importlib.import_module("flipgame.cli.commands")  # lazy: the lane answers without it


def build_parser(command: str | None = None):
    """:func:`flipgame.cli.commands.build_parser`."""
    return dispatcher().build_parser(command)


def _interrupted() -> int:
    return int(fail(ExitCode.INTERRUPTED, "terminated" if terminated() else "interrupted"))


__all__ = ["ExitCode", "build_parser", "main"]

"""The ``flipgame`` command line: a thin dispatcher over one module per command.

``flipgame solve`` answers judge cases, ``verify`` runs the agreement check,
``study`` describes a rule set and ``bench`` times the backends.  Each
command module has ``add_parser(subparsers)`` and ``run(args) -> ExitCode``;
its flags come from the registries (backends and their declared options,
formats, goals).  Exit statuses are the named codes of :class:`ExitCode`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from . import bench, export, solve, study, verify
from .common import ExitCode, OneLineParser, fail

COMMANDS = (solve, verify, study, bench, export)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("flipgame")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="flipgame",
                                     description="Flip Game (POJ 1753) and Lights Out solver with cross-checked "
                                                 "backends.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{solve,verify,study,bench,export,export-suite}")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``flipgame`` console script; returns an :class:`ExitCode`."""
    if sys.stdout is None:
        print("flipgame: standard output is closed", file=sys.stderr)
        return int(ExitCode.USAGE)
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return int(fail(ExitCode.INTERRUPTED, "interrupted"))
    except BrokenPipeError:
        # The reader went away (e.g. `| head -1`): stop quietly, as other Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.OK)
    except OSError as exc:  # e.g. standard output on a full disk
        return int(fail(ExitCode.USAGE, f"cannot write output: {exc.strerror or exc}"))


__all__ = ["ExitCode", "build_parser", "main"]

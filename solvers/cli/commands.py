"""The dispatcher of the ``flipgame`` command line over one module per command.

``flipgame solve`` answers judge cases, ``verify`` runs the agreement check,
``study`` describes a rule set and ``bench`` times the backends.  Each
command module has ``add_parser(subparsers)`` and ``run(args) -> ExitCode``;
its flags come from the registries (backends and their declared options,
formats, goals).  Exit statuses are the named codes of :class:`~flipgame.cli.exits.ExitCode`.
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

from flipgame.cli.common import COMMAND_HELP, ExitCode, OneLineParser, fail, register_programs, strategy_name_problem
from flipgame.core.errors import FlipgameError

COMMANDS = tuple(COMMAND_HELP)
"""Command names; each is a module of this package with ``add_parser(subparsers)`` and ``run(args)``."""
PROGRAM_COMMANDS = ("solve", "verify", "study", "fuzz")
"""The commands that take ``--strategies-file`` and the ``external`` strategy of ``--solver-cmd``."""


def command_module(name: str) -> ModuleType:
    """The module of command ``name``, imported when first needed, so that ``flipgame solve`` never
    loads the agreement harness, the study or the benchmark: start-up time is a product requirement."""
    module = name.replace("-", "_")  # export-suite lives in export_suite
    return importlib.import_module(f"flipgame.cli.{module}")  # lazy, as the dispatcher itself (start-up time)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("flipgame")
    except PackageNotFoundError:
        return "unknown (not installed)"


class _Commands(argparse._SubParsersAction):
    """The subcommands: each one's ``--help`` line comes from :data:`~flipgame.cli.common.COMMAND_HELP`."""

    def add_parser(self, name, **kwargs):
        kwargs.setdefault("help", COMMAND_HELP[name])
        return super().add_parser(name, **kwargs)


class _VersionAction(argparse.Action):
    """``--version``: reads the installed metadata only when asked (importlib.metadata costs start-up time)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {_version()}")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``flipgame`` parser: every command's flags, or with ``command`` only that one's (the others
    keep their one-line help), which is all ``main`` needs to parse one command's arguments."""
    parser = OneLineParser(prog="flipgame",
                                     description="Flip Game (POJ 1753) and Lights Out solver with cross-checked "
                                                 "backends.")
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="show the program's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{" + ",".join(COMMANDS) + "}", action=_Commands)
    for name in COMMANDS:
        if command in (None, name):
            command_module(name).add_parser(sub)
        else:
            sub.add_parser(name)
    return parser


def run_command(argv: list[str]) -> int:
    """Parse ``argv`` and run its command (KeyboardInterrupt, on Ctrl-C or SIGTERM, is the caller's)."""
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    if args.command in PROGRAM_COMMANDS:
        try:
            register_programs(args)
        except FlipgameError as exc:
            return int(fail(ExitCode.USAGE, str(exc)))
        if problem := strategy_name_problem(args):
            parser.command_parser(args.command).error(problem)
    return int(args.run(args))

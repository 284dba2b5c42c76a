"""``flipgame export``: one board in an exchange format, its header naming the board, rules and known answer."""

from __future__ import annotations

import argparse
import sys

from flipgame.cli import general
from flipgame.cli.common import ExitCode, add_rule_options, fail, game_from_args
from flipgame.core.errors import FlipgameError
from flipgame.encode.export import BOUNDED, FORMATS, export
from flipgame.encode.system_export import export_system
from flipgame.formats.judge import read_cases
from flipgame.model.system import read_boards
from flipgame.study.suite import known_answer, system_known_answer


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write one board as a SAT/MaxSAT/PB/MIP/CP-SAT instance",
                       description="Write the first board of FILE (default standard input) under the rules "
                                   "given, in an exchange format; the header names the board, the rules and "
                                   "the optimum gauss proves.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="board file (default: standard input)")
    p.add_argument("--format", dest="fmt", choices=FORMATS, required=True,
                   help="cnf (DIMACS), xcnf (CryptoMiniSat XOR), wcnf (MaxSAT 2022), opb, opb-xor, mps, lp, cpsat")
    p.add_argument("--bound", type=int, metavar="K", help="cnf/xcnf: at most K presses (default: no bound)")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="file to write ('-': standard output)")
    add_rule_options(p, backend_options=False)
    p.set_defaults(run=run)


def _grid_text(args: argparse.Namespace) -> str:
    """The exported text of the first grid board of the input."""
    game = game_from_args(args)
    with (sys.stdin if args.file == "-" else open(args.file)) as f:
        board = next(iter(read_cases(f, game.rows, game.cols)), None)
    if board is None:
        raise FlipgameError(f"{args.file}: no {game.size} board in the input")
    optimum, certificate = known_answer(game, board.cells)
    return export(args.fmt, game, board.cells, bound=args.bound, notes=[f"known answer: {optimum} ({certificate})"])


def _system_text(args: argparse.Namespace) -> str:
    """The exported text of the first board of a press system (``--rules``, ``--states``, ``--goal D``)."""
    system = general.system_from_args(args)
    with (sys.stdin if args.file == "-" else open(args.file)) as f:
        board = next(iter(read_boards(f, system)), None)
    if board is None:
        raise FlipgameError(f"{args.file}: no board of {system.size} in the input")
    optimum, certificate = system_known_answer(system, board)
    try:
        return export_system(args.fmt, system, board, bound=args.bound,
                             notes=[f"known answer: {optimum} ({certificate})"])
    except ValueError as exc:
        raise FlipgameError(str(exc)) from None


def run(args: argparse.Namespace) -> ExitCode:
    try:
        if args.bound is not None and args.fmt not in BOUNDED:
            raise FlipgameError(f"--bound applies to {' and '.join(BOUNDED)}; {args.fmt} minimises")
        if args.bound is not None and args.bound < 0:
            raise FlipgameError(f"--bound must be at least 0, got {args.bound}")
        text = _system_text(args) if general.wanted(args) else _grid_text(args)
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot read {exc.filename}: {exc.strerror}")
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    try:
        if args.output == "-":
            sys.stdout.write(text)
        else:
            with open(args.output, "w") as f:
                f.write(text)
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot write {args.output}: {exc.strerror}")
    return ExitCode.OK

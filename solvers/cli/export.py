"""``flipgame export``: one board in an exchange format, its header naming the board, rules and known answer."""

from __future__ import annotations

import argparse
import sys

from flipgame.cli.common import ExitCode, add_rule_options, fail
from flipgame.cli.rules import game_from_args
from flipgame.core.errors import BoardFormatError, FlipgameError
from flipgame.encode.export import BOUNDED, FORMATS, export
from flipgame.formats.judge import FORMATS as FORMATS_IN
from flipgame.formats.lines import LineSource
from flipgame.study.suite import known_answer


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


def _text(args: argparse.Namespace) -> str:
    """The exported text of the first board of the input under the rules given (a grid or any press
    system), read in bounded pieces."""
    game = game_from_args(args)
    source = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")  # noqa: SIM115 - closed below
    with source:
        lines = LineSource(source, FORMATS_IN["poj1753"].line_limit(game), universal=True)
        case = next(iter(FORMATS_IN["poj1753"].reader(lines, game)), None)
    if case is None:
        raise FlipgameError(f"{args.file}: no board of {game.size} in the input")
    optimum, certificate = known_answer(game, case.board)
    try:
        return export(args.fmt, game, case.board, bound=args.bound, notes=[f"known answer: {optimum} ({certificate})"])
    except ValueError as exc:
        raise FlipgameError(str(exc)) from None


def run(args: argparse.Namespace) -> ExitCode:
    try:
        if args.bound is not None and args.fmt not in BOUNDED:
            raise FlipgameError(f"--bound applies to {' and '.join(BOUNDED)}; {args.fmt} minimises")
        if args.bound is not None and args.bound < 0:
            raise FlipgameError(f"--bound must be at least 0, got {args.bound}")
        text = _text(args)
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot read {exc.filename}: {exc.strerror}")
    except BoardFormatError as exc:
        return fail(ExitCode.USAGE, f"{args.file}: {exc}")
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

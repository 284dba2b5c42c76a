"""``flipgame solve``: answer judge cases from a file or standard input."""

from __future__ import annotations

import argparse
import contextlib
import sys

from .. import BACKENDS, Game, get_backend, prepare
from ..board import format_cells
from ..errors import FlipgameError, RefusedError, RulesError
from ..formats import FORMATS, Format
from ..result import Solution, Status
from .common import ExitCode, add_rule_options, backend_options, fail, game_from_args


def add_parser(sub) -> None:
    p = sub.add_parser("solve", help="answer judge cases from FILE or standard input",
                       description="Print, per case, the minimum number of presses or Impossible, exactly as "
                                   "the judge expects.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="input file (default: standard input)")
    p.add_argument("--backend", choices=list(BACKENDS), default="gauss",
                   help="solver backend (default gauss): "
                        + "; ".join(f"{n}: {b.summary}" for n, b in BACKENDS.items()))
    p.add_argument("--presses", action="store_true",
                   help="after each answer, print the press set as a board of x (press) and . (no press)")
    p.add_argument("--explain", action="store_true",
                   help="also print the press set, or for Impossible a certificate per goal colour")
    p.add_argument("--format", choices=list(FORMATS), default="poj1753",
                   help="input/output format: " + "; ".join(f"{f.name} ({f.summary})" for f in FORMATS.values()))
    p.add_argument("--canonical", action="store_true",
                   help="among minimum press sets, the lexicographically smallest (always on for fliptile)")
    p.add_argument("--certify", action="store_true",
                   help="after each number, prove it minimal: a DRUP proof that no smaller press set reaches a "
                        "goal, checked by an independent checker (dratify); one line per case")
    p.add_argument("--certify-time-limit", type=float, default=10.0, metavar="SECONDS",
                   help="seconds per case for --certify (default 10); past it the line says Unknown")
    p.add_argument("--proof-dir", metavar="DIR",
                   help="with --certify: write each case's CNF (DIMACS) and proof (DRAT) here")
    p.add_argument("--stats", action="store_true",
                   help="per case on stderr: rules, status, presses, nullity, seconds and solver statistics")
    add_rule_options(p)
    p.set_defaults(run=run)


def explain_impossible(game: Game, board: int, fmt: Format, certificates) -> str:
    """Text of an Impossible certificate per goal board, each re-checked by the board model.

    Raises RuntimeError if a certificate fails the board model's check.
    """
    from verify.witness import check_certificate

    if certificates is None:
        from ..algebra import DENSE_MAX_CELLS

        return f"(no certificate: it needs the dense elimination, at most {DENSE_MAX_CELLS} cells)"
    out = []
    for target, cert in certificates.items():
        problem = check_certificate(game, board, target, cert)
        if problem:
            raise RuntimeError(f"certificate rejected by the board model: {problem}")
        overlap = ((board ^ target) & cert).bit_count()
        out.append(f"certificate for {fmt.goal_name(game, target)}: every press flips an even number of the "
                   f"cells marked x, but {overlap} of them (odd) must change")
        out.append(format_cells(cert, game.rows, game.cols, "x", "."))
    return "\n".join(out)


def stats_line(number: int, game: Game, sol: Solution, fmt: Format) -> str:
    from ..algebra import nullity

    k = sol.stats["nullity"] if "nullity" in sol.stats else nullity(game)
    extra = " ".join(f"{key}={value}" for key, value in sol.stats.items() if key != "nullity")
    moves = "-" if sol.moves is None else sol.moves
    goals = " or ".join(fmt.goal_name(game, t) for t in game.targets)
    rules = f"{game.size} {game.neighbourhood}{' toroidal' if game.wrap else ''}, goal {goals}"
    return (f"case {number}: {rules}; {sol.status.name} presses={moves} "
            f"nullity={'?' if k is None else k} seconds={sol.seconds:.4f} {extra}").rstrip()


def run(args: argparse.Namespace) -> ExitCode:
    from verify.witness import check_solution

    from .. import solve

    fmt = FORMATS[args.format]
    if fmt.size_from_input and (args.size or args.goal or args.target):
        return fail(ExitCode.USAGE, f"the {args.format} format gives the size and goal in its input; "
                                    f"drop --size/--goal/--target")
    backend = get_backend(args.backend)
    if args.proof_dir is not None and not args.certify:
        return fail(ExitCode.USAGE, "--proof-dir needs --certify")
    if args.proof_dir is not None and not __import__("os").path.isdir(args.proof_dir):
        return fail(ExitCode.USAGE, f"--proof-dir {args.proof_dir}: not a folder")
    if not args.certify_time_limit > 0:
        return fail(ExitCode.USAGE, "--certify-time-limit must be a positive number of seconds")
    try:
        rules = game_from_args(args)
        options = backend_options([backend.name], args)[backend.name]
        if fmt.canonical or args.canonical:
            options["canonical"] = True
        # Validates every option (and, when the size is known, that the backend takes it) before input is read.
        prepare(rules if not fmt.size_from_input else Game(1, 1), backend, options)
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, str(exc))
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    worst = ExitCode.OK
    try:
        # Undecodable bytes become U+FFFD and are then reported with their line.
        # utf-8-sig drops a byte-order mark (files saved by Windows Notepad).
        if args.file == "-":
            if sys.stdin is None:
                return fail(ExitCode.USAGE, "standard input is closed")
            sys.stdin.reconfigure(encoding="utf-8-sig", errors="replace")
        stream = (contextlib.nullcontext(sys.stdin) if args.file == "-"
                  else open(args.file, encoding="utf-8-sig", errors="replace"))  # noqa: SIM115 - closed by `with`
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot read {args.file}: {exc.strerror}")
    name = "standard input" if args.file == "-" else args.file
    number = 0
    with stream as stream:
        try:
            for case in fmt.reader(stream, rules):
                number, game = case.number, case.game
                sol = solve(case.board, backend.name, game=game, **options)
                problem = check_solution(game, case.board, sol)
                if problem:
                    print("Error", flush=True)
                    fail(ExitCode.WITNESS_FAILURE, f"case {number}: {backend.name} witness rejected: {problem}")
                    worst = max(worst, ExitCode.WITNESS_FAILURE)
                    continue
                print(fmt.writer(case, sol))
                if sol.status in (Status.UNKNOWN, Status.ERROR):
                    worst = max(worst, ExitCode.INCOMPLETE)
                    fail(ExitCode.INCOMPLETE, f"{name}: case {number}: {backend.name} gave no proven answer "
                                              f"({sol.status.name}, {sol.seconds:.1f} s)")
                if (args.presses or args.explain) and sol.success:
                    print(format_cells(sol.presses, game.rows, game.cols, "x", "."))
                if args.explain and sol.status is Status.INFEASIBLE:
                    print(explain_impossible(game, case.board, fmt, sol.certificates))
                if args.certify and sol.success:
                    from verify.certify import CertStatus, certify_minimum

                    cert = certify_minimum(game, case.board, sol.moves, witness=sol.presses,
                                           time_limit=args.certify_time_limit, proof_dir=args.proof_dir,
                                           name=f"case{number}")
                    print(cert.line())
                    if cert.status is CertStatus.FAILED:
                        worst = max(worst, ExitCode.CERTIFICATION_FAILURE)
                    elif cert.status is CertStatus.UNKNOWN:
                        worst = max(worst, ExitCode.INCOMPLETE)
                sys.stdout.flush()
                if args.stats:
                    print(stats_line(number, game, sol, fmt), file=sys.stderr)
        except RefusedError as exc:
            return fail(ExitCode.REFUSED, f"{name}: case {number}: {exc}")
        except (FlipgameError, RulesError) as exc:
            return fail(ExitCode.USAGE, f"{name}: {exc}")
    return worst

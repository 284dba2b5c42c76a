"""``flipgame solve``: answer judge cases from a file or standard input.

Cases stream through in chunks.  The input is read in bounded pieces
(:class:`~flipgame.formats.lines.LineSource`) and handed to
:class:`~flipgame.cli.answers.Stream`, which answers small boards of one game in
batches through the gate and others one at a time through the same session
(one model per rule set), and checks every answer before writing it.  The
output is the same either way: the batch answers and witnesses are those of
the per-board path.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from flipgame.backends.registry import BACKENDS, STRATEGIES
from flipgame.cli.answers import Stream
from flipgame.cli.common import (
    ExitCode,
    add_rule_options,
    add_strategies_file,
    backend_summary,
    chosen_backend,
    chosen_options,
    fail,
    writable_folder,
    writable_path,
)
from flipgame.cli.rules import game_from_args
from flipgame.core import extras
from flipgame.core.errors import BoardFormatError, FlipgameError, RefusedError, RulesError
from flipgame.core.limits import CERTIFY_SECONDS, TIME_LIMIT_MAX_SECONDS
from flipgame.formats.aoc2025_10 import aoc_reader
from flipgame.formats.cases import Case
from flipgame.formats.judge import FORMATS, Format
from flipgame.formats.lines import LineSource
from flipgame.model.grid import Game
from flipgame.model.system import PressSystem
from flipgame.pipeline.session import Session


def add_parser(sub) -> None:
    p = sub.add_parser("solve", description="Print, per case, the minimum number of presses or Impossible, exactly as "
                                   "the judge expects.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="input file (default: standard input)")
    p.add_argument("--backend", choices=list(BACKENDS), default=None,
                   help="solver backend (default gauss, or auto for counters; external when only --solver-cmd is "
                        "given): "
                        + "; ".join(f"{n}: {backend_summary(b)}" for n, b in BACKENDS.items()))
    p.add_argument("--strategy", default=None, metavar="NAME",
                   help="a registered strategy instead of --backend (a backend with fixed options, external "
                        "programs included): " + ", ".join(STRATEGIES))
    p.add_argument("--presses", action="store_true",
                   help="after each answer, print the press set: on a two-state grid a board of x (press) and . "
                        "(no press), on a k-state grid the press counts as a board, on other press systems the "
                        "buttons pressed, numbered from 0 in the order the rules list them, a count after one pressed "
                        "more than once ('0, 3 (x2)')")
    p.add_argument("--count", action="store_true",
                   help="after each answer, print the number of press sets that reach a goal board "
                        "('solutions N', from gauss's elimination: 2**nullity per reachable goal on two states)")
    p.add_argument("--explain", action="store_true",
                   help="also print the press set, or for Impossible a certificate per goal colour")
    p.add_argument("--format", choices=list(FORMATS), default="poj1753",
                   help="input/output format: " + "; ".join(f"{f.name} ({f.summary})" for f in FORMATS.values()))
    p.add_argument("--part", type=int, choices=(1, 2), help="with --format aoc2025-10: part 1 (lights, default) "
                   "or 2 (joltage counters)")
    p.add_argument("--canonical", action="store_true",
                   help="among minimum press sets, the lexicographically smallest (always on for fliptile)")
    p.add_argument("--certify", action="store_true",
                   help="after each number, prove it minimal: a DRAT proof that no smaller press set reaches a "
                        "goal, checked by an independent checker (dratify); one line per case")
    p.add_argument("--certify-time-limit", type=float, default=None, metavar="SECONDS",
                   help=f"seconds per case for --certify (default {CERTIFY_SECONDS:g}, at most "
                        f"{TIME_LIMIT_MAX_SECONDS:,.0f}); past it the certification line says 'unknown: certification "
                        f"not finished within N s'")
    p.add_argument("--proof-dir", metavar="DIR",
                   help="with --certify: write each case's CNF and DRAT proof here (a tree certificate: .tree.json)")
    p.add_argument("--checkpoint", metavar="FILE",
                   help="gauss above nullity 22: keep the enumeration's state in FILE and resume from it when "
                        "given again (one long case per file; a file of another board or rules is refused)")
    p.add_argument("--svg", metavar="FILE",
                   help="draw each answered case as SVG: the board with its presses and the goal reached (a grid as "
                        "squares, another press system as a graph); case N >= 2 goes to FILE-N.svg, or where "
                        "{case} in FILE says")
    p.add_argument("--steps", action="store_true",
                   help="after each answer, the boards press by press (presses in button order); with --svg, the "
                        "picture shows them as a sequence")
    p.add_argument("--stats", action="store_true",
                   help="per case on stderr: rules, status, presses, nullity, seconds and solver statistics")
    add_rule_options(p)
    add_strategies_file(p)
    p.set_defaults(run=run)


def _usage_problem(args: argparse.Namespace, fmt: Format) -> str | None:
    """What is wrong with the flags, before anything is built, or None; fills in the certify limit."""
    if fmt.size_from_input and (args.size or args.goal or args.target):
        return f"the {args.format} format gives the size and goal in its input; drop --size/--goal/--target"
    if args.proof_dir is not None and not args.certify:
        return "--proof-dir needs --certify"
    if args.certify_time_limit is not None and not args.certify:
        return "--certify-time-limit needs --certify"
    if args.certify and not extras.installed("dratify"):
        return extras.missing("dratify", "--certify (checked DRAT proofs)")
    if problem := _unwritable(args):
        return problem
    if args.certify_time_limit is None:
        args.certify_time_limit = CERTIFY_SECONDS
    if not 0 < args.certify_time_limit <= TIME_LIMIT_MAX_SECONDS:
        return f"--certify-time-limit must be a number of seconds above 0 and at most {TIME_LIMIT_MAX_SECONDS:,.0f}"
    return None


def _unwritable(args: argparse.Namespace) -> str | None:
    """The line for an output file or folder of the flags that cannot be written, or None."""
    try:
        if args.proof_dir is not None:
            writable_folder(args.proof_dir, "--proof-dir")
        if args.checkpoint is not None:
            writable_path(args.checkpoint, "--checkpoint")
        if args.svg is not None:
            from flipgame.formats import svg  # drawing only: not on the judge path

            writable_path(svg.case_path(args.svg, 1), "--svg")
    except FlipgameError as exc:
        return str(exc)
    return None


def _undrawable(rules: PressSystem) -> str | None:
    """Why --svg cannot draw these rules, said before any board is solved (formats that give the size
    in their input are checked per case, after the answer)."""
    from flipgame.formats import svg  # drawing only: not on the judge path

    return svg.refusal(rules)


def _session(args: argparse.Namespace, fmt: Format) -> tuple[PressSystem, Session]:
    """The rules and a session that has validated every option (and, when the size is known, that the
    backend takes it) before input is read.  Raises RefusedError or another FlipgameError."""
    if args.strategy and args.backend:
        raise RulesError("give either --backend or --strategy, not both")
    rules = game_from_args(args) if not fmt.size_from_input else Game(1, 1)
    counters = rules.states is None or (args.format == "aoc2025-10" and args.part == 2)
    backend = chosen_backend(args, default="auto" if counters else "gauss")
    if fmt.backends is not None and backend.name not in fmt.backends:
        raise RefusedError(f"{backend.name}: {fmt.name} asks for {fmt.summary.split(': ', 1)[-1]}, which "
                           f"{' and '.join(fmt.backends)} give{'s' if len(fmt.backends) == 1 else ''}; "
                           f"use --backend {fmt.backends[0]}")
    if args.certify and not rules.binary:
        raise RulesError(f"--certify proves two-state minima; {rules.size} is {rules.kind} (gauss's answer carries "
                         f"its own check: the witness is re-applied, an Impossible has a certificate)")
    options = chosen_options(backend, args)
    if args.checkpoint is not None:
        if "checkpoint" not in {o.name for o in backend.all_options}:
            raise RulesError("--checkpoint applies to backend gauss (its long runs above nullity 22)")
        options["checkpoint"] = args.checkpoint
    if fmt.canonical or args.canonical:
        options["canonical"] = True
    session = Session(backend, **options)
    session.prepare(rules)
    return rules, session


def _open_input(path: str):
    """The input as an unbuffered binary file, read in bounded pieces by :class:`LineSource`
    (undecodable bytes become U+FFFD, reported with their line; a byte-order mark is dropped).
    Raises OSError, or ValueError when standard input is closed."""
    if path != "-":
        return open(path, "rb", buffering=0)  # noqa: SIM115 - the caller closes it
    if sys.stdin is None:
        raise ValueError("standard input is closed")
    return open(sys.stdin.fileno(), "rb", buffering=0, closefd=False)  # noqa: SIM115 - the caller closes it


def _answer_all(stream: Stream, fmt: Format, lines: LineSource, rules: PressSystem, args: argparse.Namespace,
                name: str) -> ExitCode:
    """Read and answer every case; a bad case is reported after the answers before it."""
    try:
        for got in fmt.block_reader(lines, rules) if fmt.block_reader else fmt.reader(lines, rules):
            if isinstance(got, Case):
                stream.add(got)
            else:
                stream.add_batch(got)
    except BoardFormatError as exc:
        if exc.case is None:  # a line too long: the case being read
            exc = BoardFormatError(exc.reason, case=stream.read + 1, line=exc.line)
        stream.flush()  # the answers before the bad case come first
        return fail(ExitCode.USAGE, f"{name}: {exc}")
    except RefusedError as exc:
        if getattr(exc, "case", None) is None:  # refused while answering: the caller names the case
            raise
        stream.flush()  # a case's size refused as it is read: the answers before it come first
        return fail(ExitCode.REFUSED, f"{name}: case {exc.case}: {exc}")
    except BrokenPipeError:
        raise  # standard output's reader went away (``| head``): main stops quietly; not a read error
    except OSError as exc:
        stream.flush()
        return fail(ExitCode.USAGE, f"cannot read {args.file}: {exc.strerror or exc}")
    return _finish(stream, fmt, name)


def _finish(stream: Stream, fmt: Format, name: str) -> ExitCode:
    """Answer the cases still waiting, print the format's footer, and give the run's exit status."""
    stream.flush()
    if fmt.footer is not None:
        print(fmt.footer(stream.total))
    if stream.read == 0:  # nothing to answer is not an error (a judge's empty input), but it is said
        fail(ExitCode.OK, f"{name}: no case read: the input holds no board")
    return ExitCode.DISAGREEMENT if stream.lied else stream.worst


def _format(args: argparse.Namespace) -> Format:
    """The format of ``--format`` (with ``--part`` for Advent of Code); RulesError for a bad combination."""
    fmt = FORMATS[args.format]
    if args.part is not None and args.format != "aoc2025-10":
        raise RulesError("--part needs --format aoc2025-10")
    if args.format == "aoc2025-10":
        fmt = dataclasses.replace(fmt, reader=aoc_reader(args.part or 1))
    if fmt.size_from_input and (args.rules or args.states is not None or args.wrap or args.neighbourhood != "plus"
                                or args.stencil):
        raise RulesError(f"the {args.format} format gives the rules in its input; drop "
                         f"--rules/--states/--wrap/--neighbourhood/--stencil")
    return fmt


def run(args: argparse.Namespace) -> ExitCode:
    try:
        fmt = _format(args)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    problem = _usage_problem(args, fmt)
    if problem:
        return fail(ExitCode.USAGE, problem)
    try:
        rules, session = _session(args, fmt)
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, str(exc))
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if args.svg is not None and not fmt.size_from_input and (why := _undrawable(rules)):
        return fail(ExitCode.USAGE, f"--svg: {why}")
    try:
        raw = _open_input(args.file)
    except ValueError as exc:
        return fail(ExitCode.USAGE, str(exc))
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot read {args.file}: {exc.strerror}")
    name = "standard input" if args.file == "-" else args.file
    stream = Stream(args, fmt, session, name)
    # A named file splits lines as open() does (CR LF, CR or LF); standard input at LF, as sys.stdin does.
    lines = LineSource(raw, fmt.line_limit(rules), universal=args.file != "-", before_block=stream.flush)
    with raw, session:
        try:
            return _answer_all(stream, fmt, lines, rules, args, name)
        except RefusedError as exc:
            return fail(ExitCode.REFUSED, f"{name}: case {stream.number}: {exc}")
        except (FlipgameError, RulesError) as exc:
            return fail(ExitCode.USAGE, f"{name}: {exc}")

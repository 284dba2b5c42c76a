"""``flipgame solve``: answer judge cases from a file or standard input.

Cases stream through in chunks.  The input is read in bounded pieces
(:class:`~flipgame.formats.lines.LineSource`); cases of one game of at most 64 cells
are gathered, up to :data:`CHUNK` of them or until the input would wait, and
answered by one batch through the gate (:meth:`flipgame.Session.solve_batch`),
their witnesses checked in bulk (:func:`flipgame.verify.checks.witness.check_batch`) and their
answers written at once.  Other cases (larger boards, a backend that solves
board by board, ``--stats``) go one at a time through the same session, which
keeps one model per rule set.  The output is the same either way: the batch
answers and witnesses are those of the per-board path.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Sequence

import numpy as np

from flipgame import BACKENDS, Game, Session
from flipgame.algebra.coset_run import InterruptedRun
from flipgame.algebra.gf2 import nullity
from flipgame.backends.external import is_program
from flipgame.backends.result import Solution, Status
from flipgame.backends.strategies import STRATEGIES
from flipgame.cli.common import (
    ExitCode,
    add_rule_options,
    add_strategies_file,
    backend_summary,
    chosen_backend,
    chosen_options,
    fail,
    game_from_args,
    interrupted_bound,
    writable_folder,
    writable_path,
)
from flipgame.core.errors import BoardFormatError, FlipgameError, RefusedError, RulesError
from flipgame.core.limits import TIME_LIMIT_MAX_SECONDS, ZK_DENSE_MAX_CELLS
from flipgame.formats.judge import FORMATS, Case, CaseBatch, Format, aoc_reader
from flipgame.formats.lines import LineSource
from flipgame.model.grid import format_cells
from flipgame.model.system import PressSystem
from flipgame.verify.checks.witness import (
    check_batch,
    check_batch_impossible,
    check_certificate,
    check_impossible,
    check_solution,
)


def add_parser(sub) -> None:
    p = sub.add_parser("solve", description="Print, per case, the minimum number of presses or Impossible, exactly as "
                                   "the judge expects.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="input file (default: standard input)")
    p.add_argument("--backend", choices=list(BACKENDS), default=None,
                   help="solver backend (default gauss, or auto for counters; external when only --solver-cmd is "
                        "given): "
                        + "; ".join(f"{n}: {backend_summary(b)}" for n, b in BACKENDS.items()))
    p.add_argument("--strategy", choices=list(STRATEGIES), default=None, metavar="NAME",
                   help="a registered strategy instead of --backend (a backend with fixed options, external "
                        "programs included): " + ", ".join(STRATEGIES))
    p.add_argument("--presses", action="store_true",
                   help="after each answer, print the press set: on a two-state grid a board of x (press) and . "
                        "(no press), on a k-state grid the press counts as a board, on other press systems the "
                        "buttons pressed as 'button x count', buttons numbered from 0 in the order the rules list "
                        "them")
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
                   help=f"seconds per case for --certify (default 10, at most {TIME_LIMIT_MAX_SECONDS:,.0f}); past it "
                        f"the certification line says 'unknown: certification not finished within N s'")
    p.add_argument("--proof-dir", metavar="DIR",
                   help="with --certify: write each case's CNF (DIMACS) and proof (DRAT) here")
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


def explain_impossible(game: PressSystem, board, fmt: Format, certificates) -> str:
    """Text of an Impossible certificate per goal board, each re-checked by the model.

    Raises RuntimeError if a certificate fails the model's check.
    """
    if certificates is None:
        if game.states is None:
            return "(no certificate: counters are integer programs; the Impossible is the backend's word, unchecked)"
        if not game.binary:
            return (f"(no certificate: the diagonal form over Z_{game.states} is computed for certificates up to "
                    f"{ZK_DENSE_MAX_CELLS:,} cells and buttons; the Impossible is the backend's word, unchecked)")
        return "(no certificate: neither the dense elimination nor light chasing takes these rules at this size)"
    out = []
    for target, cert in certificates.items():
        problem = check_certificate(game, board, target, cert)
        if problem:
            raise RuntimeError(f"certificate rejected by the model: {problem}")
        if not game.binary:
            gap = sum(c * (t - b) for c, t, b in zip(cert, target, board, strict=True)) % game.states
            out += [f"certificate for {fmt.goal_name(game, target)}: every button adds 0 (mod {game.states}) to the "
                    f"sum of the cells weighted as below, but reaching that goal changes it by {gap}:",
                    game.format_board(cert)]
            continue
        overlap = ((board ^ target) & cert).bit_count()
        out.append(f"certificate for {fmt.goal_name(game, target)}: every press flips an even number of the "
                   f"cells marked x, but {overlap} of them (odd) must change")
        out.append(format_cells(cert, game.rows, game.cols, "x", ".") if isinstance(game, Game)
                   else "cells " + " ".join(str(i) for i in range(game.n) if cert >> i & 1))
    return "\n".join(out)


def presses_text(game: PressSystem, presses) -> str:
    """A witness as ``--presses`` prints it: a two-state grid's x/. board, a k-state grid's board of press
    counts, or on any other system ``buttons pressed: 0x1 3x2`` (0-based, in the rules' order)."""
    if isinstance(game, Game):
        return format_cells(presses, game.rows, game.cols, "x", ".") if game.binary else game.format_board(presses)
    return f"buttons pressed (numbered from 0 in the rules' order, x count): {game.format_presses(presses)}"


def stats_line(number: int, game: PressSystem, sol: Solution, fmt: Format) -> str:
    k = sol.stats["nullity"] if "nullity" in sol.stats else nullity(game) if game.binary else None
    extra = " ".join(f"{key}={value}" for key, value in sol.stats.items() if key != "nullity")
    moves = "-" if sol.moves is None else sol.moves
    goals = " or ".join(fmt.goal_name(game, t) for t in game.targets) if game.binary else game.goal
    if isinstance(game, Game) and game.binary:
        rules = f"{game.size} {game.neighbourhood}{' toroidal' if game.wrap else ''}, goal {goals}"
    else:
        rules = game.rules
    return (f"case {number}: {rules}; {sol.status.name} presses={moves} "
            f"nullity={'?' if k is None else k} seconds={sol.seconds:.4f} {extra}").rstrip()


CHUNK = 1 << 16
"""Most cases answered by one batch: every 4x4 board in one gauss batch (whose memory is bounded per step,
whatever the batch) and one write.  Cases also go out before any read that may wait (interactive input)."""
BATCHABLE_CACHE = 256
"""Most systems whose batchability is remembered (a stream of machines would otherwise keep every one)."""


class _Cases(Sequence):
    """The consecutive cases of a batch, as :class:`Case` s made on demand from their boards (uint64)."""

    def __init__(self, items: list[Case | CaseBatch]):
        first = items[0]
        self.game = first.game
        self.first = first.number if isinstance(first, Case) else first.first
        if len(items) == 1 and isinstance(first, CaseBatch):
            self.boards = first.boards
        else:
            self.boards = np.concatenate([np.array([it.board], dtype=np.uint64) if isinstance(it, Case)
                                          else it.boards for it in items])

    def __len__(self) -> int:
        return len(self.boards)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return Case(self.first + range(len(self))[i], self.game, int(self.boards[i]))


class _Stream:
    """Answers the cases of one ``flipgame solve`` run, in order: batched where that gives the same output."""

    def __init__(self, args: argparse.Namespace, fmt: Format, session: Session, name: str):
        self.args, self.fmt, self.session, self.name = args, fmt, session, name
        self.worst = ExitCode.OK
        self.lied = False  # a program's claim was refuted: the run exits DISAGREEMENT
        self.read = 0  # cases read so far
        self.number = 0  # the case being answered (for error messages)
        self.pending: list[Case | CaseBatch] = []  # consecutive cases of one game, waiting for a batch
        self.waiting = 0  # cases in ``pending``
        self._batchable: dict[Game, bool] = {}
        self._last: tuple[Game | None, bool] = (None, False)  # the last game asked about (cases share one)
        self._plain = not (args.presses or args.explain or args.certify or args.count or args.svg or args.steps)
        self.total = 0  # presses of every answer, for a format's footer (Advent of Code's total)

    def batchable(self, game: Game) -> bool:
        """True if a batch gives this game's cases the output the per-board path gives.

        Needs: at most 64 cells (uint64 boards), a backend whose batch is one vectorised call
        (``parallel`` False: gauss, bfs), no ``--stats`` (its per-board seconds and solver
        statistics come from single solves), and no ``max_nullity`` below the game's nullity
        (the per-board path refuses a solvable board there; a batch would answer it).
        """
        if game is self._last[0]:
            return self._last[1]
        ok = self._batchable.get(game)
        if ok is None:
            if len(self._batchable) >= BATCHABLE_CACHE:  # a stream of machines, each its own system
                self._batchable.clear()
            ok = (game.binary and game.n <= 64 and not self.session.backend.parallel and not self.args.stats
                  and not self.fmt.per_case and not self.args.count)
            limit = self.session.options.get("max_nullity")
            if ok and limit is not None:
                k = nullity(game)
                ok = k is not None and k <= limit
            self._batchable[game] = ok
        self._last = (game, ok)
        return ok

    def add(self, case: Case) -> None:
        """Take the next case read: batch it, or answer it now (after the cases waiting)."""
        self.read += 1
        game = case.game
        if self._last[1] if game is self._last[0] else self.batchable(game):
            self._wait(case, 1)
        else:
            self.flush()
            self.one(case)

    def add_batch(self, batch: CaseBatch) -> None:
        """Take the next cases read at once: batch them, or answer them one by one."""
        if not self.batchable(batch.game):
            for i, board in enumerate(batch.boards.tolist()):
                self.add(Case(batch.first + i, batch.game, board))
            return
        self.read += len(batch.boards)
        self._wait(batch, len(batch.boards))

    def _wait(self, item: Case | CaseBatch, count: int) -> None:
        """Put batchable cases in the queue (after answering those of another game), and answer a full queue."""
        if self.pending:
            first = self.pending[0].game
            if first is not item.game and first != item.game:
                self.flush()
        self.pending.append(item)
        self.waiting += count
        if self.waiting >= CHUNK:
            self.flush()

    def one(self, case: Case) -> None:
        self.number = case.number
        try:
            sol = self.session.solve(case.board, game=case.game)
        except InterruptedRun as exc:  # the answer line stays Unknown; the bound found so far goes to stderr
            print(self.fmt.writer(case, Solution(self.session.backend.name, Status.UNKNOWN)), flush=True)
            print(f"flipgame: case {case.number}: {interrupted_bound(case.game, case.board, exc)}", file=sys.stderr)
            raise
        problem = check_solution(case.game, case.board, sol)
        if not problem and is_program(self.session.backend) and not self._claim_checked(case, sol):
            return  # a program's false Impossible is its lie (a disagreement), not a rejected witness
        self.report(case, sol, problem or check_impossible(case.game, case.board, sol))

    def _claim_checked(self, case: Case, sol: Solution) -> bool:
        """A program's claimed minimum or Impossible checked (:func:`check_claim`): False, after an Error
        line naming the lie, when it is false; a claim nothing could check is named so on stderr."""
        from flipgame.verify.proofs.claims import check_claim, unchecked_line  # programs only: not on the judge path

        claim = check_claim(case.game, case.board, sol, prove=not self.args.certify)
        if claim.problem:
            print("Error", flush=True)
            fail(ExitCode.DISAGREEMENT, f"{self.name}: case {case.number}: {claim.problem}")
            self.lied = True
        elif claim.unchecked and sol.status in (Status.OPTIMAL, Status.INFEASIBLE):
            fail(ExitCode.OK, f"{self.name}: case {case.number}: {unchecked_line(sol)}")
        return not claim.problem

    def flush(self) -> None:
        """Answer the cases waiting: one batch, one witness check, one write."""
        items, self.pending, self.waiting = self.pending, [], 0
        if not items:
            return
        game = items[0].game
        cases = _Cases(items)
        if len(cases) == 1 and not isinstance(game, Game):  # a machine of its own (poj1830, aoc2025-10)
            self.one(cases[0])
            return
        self.number = cases.first
        try:
            batch = self.session.solve_batch(cases.boards, game)
        except FlipgameError:  # answer one by one: the error then names its case, after the answers before it
            for case in cases:
                self.one(case)
            return
        bad = check_batch(game, batch) | check_batch_impossible(game, batch)
        decided = (batch.status == Status.OPTIMAL) | (batch.status == Status.INFEASIBLE)
        if self._plain and not bad.any() and decided.all():
            self.total += int(batch.moves[batch.status == Status.OPTIMAL].sum())
            sys.stdout.write("\n".join(self.fmt.answers(cases, batch)) + "\n")
            sys.stdout.flush()
            self.number = cases.first + len(cases) - 1
            return
        for i, case in enumerate(cases):
            self.number = case.number
            sol = self.session.solution(batch, i, game)
            problem = (check_solution(game, case.board, sol) or check_impossible(game, case.board, sol)
                       or "rejected by the batch check") if bad[i] else None
            self.report(case, sol, problem)

    def extra_lines(self, case: Case, sol: Solution) -> None:
        """The --presses, --count and --explain lines of one answer."""
        args, game = self.args, case.game
        if (args.presses or args.explain) and sol.success:
            print(presses_text(game, sol.presses))
        if args.count and sol.status in (Status.OPTIMAL, Status.INFEASIBLE):
            print(f"solutions {sol.stats.get('solutions', 0 if sol.status is Status.INFEASIBLE else 'unknown')}")
        if args.explain and sol.status is Status.INFEASIBLE:
            print(explain_impossible(game, case.board, self.fmt, sol.certificates))
        if args.steps or args.svg:
            from flipgame.formats import svg  # drawing only: not on the judge path
        if args.steps and sol.success:
            print(svg.steps_text(game, case.board, sol.presses, self.fmt.colours))
        if args.svg and sol.status in (Status.OPTIMAL, Status.INFEASIBLE):
            problem = svg.save_case(args.svg, case.number, game, case.board, sol, show_steps=args.steps)
            if problem:
                fail(ExitCode.USAGE, f"case {case.number}: --svg: {problem}")
                self.worst = max(self.worst, ExitCode.USAGE)

    def answerer(self, sol: Solution) -> str:
        """The backend's name, and an external program's (``external (/opt/my-solver.sh)``)."""
        name = self.session.backend.name
        return f"{name} ({sol.stats['program']})" if "program" in sol.stats else name

    def report(self, case: Case, sol: Solution, problem: str | None) -> None:
        """Write one case's answer lines (and its --presses, --explain, --certify, --stats lines)."""
        args, fmt, game, number, backend = self.args, self.fmt, case.game, case.number, self.answerer(sol)
        if problem:
            print("Error", flush=True)
            what = "answer" if sol.status is Status.INFEASIBLE else "witness"
            fail(ExitCode.WITNESS_FAILURE, f"case {number}: {backend} {what} rejected: {problem}")
            self.worst = max(self.worst, ExitCode.WITNESS_FAILURE)
            return
        print(fmt.writer(case, sol))
        self.total += sol.moves or 0
        if sol.status in (Status.UNKNOWN, Status.ERROR):
            self.worst = max(self.worst, ExitCode.INCOMPLETE)
            why = f": {sol.stats['error']}" if "error" in sol.stats else ""
            fail(ExitCode.INCOMPLETE, f"{self.name}: case {number}: {backend} gave no proven answer "
                                      f"({sol.status.name}, {sol.seconds:.1f} s){why}")
        self.extra_lines(case, sol)
        if args.certify and sol.success:
            from flipgame.verify.proofs.certify import CertStatus, certify_minimum  # --certify only

            cert = certify_minimum(game, case.board, sol.moves, witness=sol.presses,
                                   time_limit=args.certify_time_limit, proof_dir=args.proof_dir,
                                   name=f"case{number}", jobs=os.cpu_count() or 1)
            line = cert.line()
            if fmt.colours != ("w", "b"):  # the format's own words for the goal, as in --explain and --stats
                line = line.replace("all white", fmt.goal_name(game, 0)).replace("all black",
                                                                                fmt.goal_name(game, game.full))
            print(line)
            if cert.status is CertStatus.FAILED:
                self.worst = max(self.worst, ExitCode.CERTIFICATION_FAILURE)
            elif cert.status is CertStatus.UNKNOWN:
                self.worst = max(self.worst, ExitCode.INCOMPLETE)
        sys.stdout.flush()
        if args.stats:
            print(stats_line(number, game, sol, fmt), file=sys.stderr)


def _usage_problem(args: argparse.Namespace, fmt: Format) -> str | None:
    """What is wrong with the flags, before anything is built, or None; fills in the certify limit."""
    if fmt.size_from_input and (args.size or args.goal or args.target):
        return f"the {args.format} format gives the size and goal in its input; drop --size/--goal/--target"
    if args.proof_dir is not None and not args.certify:
        return "--proof-dir needs --certify"
    if args.certify_time_limit is not None and not args.certify:
        return "--certify-time-limit needs --certify"
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
    if args.certify_time_limit is None:
        args.certify_time_limit = 10.0
    if not 0 < args.certify_time_limit <= TIME_LIMIT_MAX_SECONDS:
        return f"--certify-time-limit must be a number of seconds above 0 and at most {TIME_LIMIT_MAX_SECONDS:,.0f}"
    return None


def _session(args: argparse.Namespace, fmt: Format) -> tuple[Game, Session]:
    """The rules and a session that has validated every option (and, when the size is known, that the
    backend takes it) before input is read.  Raises RefusedError or another FlipgameError."""
    if args.strategy and args.backend:
        raise RulesError("give either --backend or --strategy, not both")
    rules = game_from_args(args) if not fmt.size_from_input else Game(1, 1)
    counters = rules.states is None or (args.format == "aoc2025-10" and args.part == 2)
    backend = chosen_backend(args, default="auto" if counters else "gauss")
    if fmt.backends is not None and backend.name not in fmt.backends:
        raise RefusedError(f"{backend.name}: {fmt.name} asks for {fmt.summary.split(': ', 1)[-1]}, which "
                           f"{' and '.join(fmt.backends)} give; use --backend {fmt.backends[0]}")
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


def _answer_all(stream: _Stream, fmt: Format, lines: LineSource, rules: Game, args: argparse.Namespace,
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
    except OSError as exc:
        stream.flush()
        return fail(ExitCode.USAGE, f"cannot read {args.file}: {exc.strerror or exc}")
    stream.flush()
    if fmt.footer is not None:
        print(fmt.footer(stream.total))
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
    try:
        raw = _open_input(args.file)
    except ValueError as exc:
        return fail(ExitCode.USAGE, str(exc))
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot read {args.file}: {exc.strerror}")
    name = "standard input" if args.file == "-" else args.file
    stream = _Stream(args, fmt, session, name)
    # A named file splits lines as open() does (CR LF, CR or LF); standard input at LF, as sys.stdin does.
    lines = LineSource(raw, fmt.line_limit(rules), universal=args.file != "-", before_block=stream.flush)
    with raw, session:
        try:
            return _answer_all(stream, fmt, lines, rules, args, name)
        except RefusedError as exc:
            return fail(ExitCode.REFUSED, f"{name}: case {stream.number}: {exc}")
        except (FlipgameError, RulesError) as exc:
            return fail(ExitCode.USAGE, f"{name}: {exc}")

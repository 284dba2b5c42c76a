"""How ``flipgame solve`` answers its cases (:class:`Stream`), through the pipeline.

Cases of one system that the batching policy lets share a batch (:func:`flipgame.pipeline.batching.streamable`)
are gathered, up to :data:`~flipgame.pipeline.batching.STREAM_CHUNK` of them or until the input would wait, and
answered by one batch (:meth:`flipgame.pipeline.session.Session.solve_batch_checked`) and written at once;
other cases go one at a time through the same session.  Every answer comes with the referee's verdict
(:mod:`flipgame.verify.checks.referee`), and a solver program's claim is decided by the one agreement policy
(:func:`flipgame.pipeline.decide.check_claim`) before it is written.  The extra lines (``--presses``,
``--explain``, ``--stats``, ``--certify``, pictures) are written here too, in the words of
:mod:`flipgame.formats.text`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import numpy as np

from flipgame.algebra.coset_run import InterruptedRun
from flipgame.backends.external import is_program
from flipgame.backends.registry import is_builtin
from flipgame.backends.result import Solution, Status
from flipgame.cli.common import ExitCode, fail
from flipgame.core.errors import FlipgameError
from flipgame.formats.cases import Case, CaseBatch
from flipgame.formats.judge import Format
from flipgame.formats.text import explain_impossible, presses_text, stats_line
from flipgame.model.system import PressSystem
from flipgame.pipeline.batching import STREAM_CHUNK, streamable
from flipgame.pipeline.decide import check_claim, unchecked_line
from flipgame.pipeline.gate import with_certificates
from flipgame.pipeline.session import Session
from flipgame.verify.checks.referee import Verdict

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


class Stream:
    """Answers the cases of one ``flipgame solve`` run, in order: batched where that gives the same output."""

    def __init__(self, args: argparse.Namespace, fmt: Format, session: Session, name: str):
        self.args, self.fmt, self.session, self.name = args, fmt, session, name
        self.worst = ExitCode.OK
        self.lied = False  # a program's claim was refuted: the run exits DISAGREEMENT
        self.read = 0  # cases read so far
        self.number = 0  # the case being answered (for error messages)
        self.pending: list[Case | CaseBatch] = []  # consecutive cases of one game, waiting for a batch
        self.waiting = 0  # cases in ``pending``
        self._batchable: dict[PressSystem, bool] = {}
        self._last: tuple[PressSystem | None, bool] = (None, False)  # the last system asked about (cases share one)
        self._plain = not (args.presses or args.explain or args.certify or args.count or args.svg or args.steps)
        self.total = 0  # presses of every answer, for a format's footer (Advent of Code's total)
        backend = session.backend
        self.claims = is_program(backend) or not is_builtin(backend)  # each answer is checked as a claim
        self.noted = False  # the note on an Impossible nothing could check was written (once per run)

    def batchable(self, game: PressSystem) -> bool:
        """True if a batch gives this system's cases the output the per-board path gives
        (:func:`flipgame.pipeline.batching.streamable`); remembered per system."""
        if game is self._last[0]:
            return self._last[1]
        ok = self._batchable.get(game)
        if ok is None:
            if len(self._batchable) >= BATCHABLE_CACHE:  # a stream of machines, each its own system
                self._batchable.clear()
            per_board = self.args.stats or self.fmt.per_case or self.args.count or self.claims
            ok = self._batchable[game] = streamable(game, self.session.backend, self.session.options,
                                                    per_board=bool(per_board))
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
        if self.waiting >= STREAM_CHUNK:
            self.flush()

    def one(self, case: Case) -> None:
        self.number = case.number
        try:
            checked = self.session.solve_checked(case.board, game=case.game)
        except InterruptedRun as exc:  # the answer line stays Unknown; the bound found so far goes to stderr
            print(self.fmt.writer(case, Solution(self.session.backend.name, Status.UNKNOWN)), flush=True)
            print(f"flipgame: case {case.number}: {exc.checked_text(case.game, case.board)}", file=sys.stderr)
            raise
        sol, verdict = checked.solution, checked.verdict
        if self.claims and verdict.check != "witness" and not self._claim_checked(case, sol, verdict):
            return  # a program's false Impossible is its lie (a disagreement), not a rejected witness
        self.report(case, sol, verdict.problem)
        if verdict.unchecked and sol.status is Status.INFEASIBLE and not (self.claims or self.args.explain):
            self.note_unchecked(case, verdict.unchecked)

    def note_unchecked(self, case: Case, why: str) -> None:
        """Say once on stderr that an Impossible is the backend's word (``why`` nothing could check it)."""
        if not self.noted:
            self.noted = True
            fail(ExitCode.OK, f"{self.name}: case {case.number}: Impossible is {self.session.backend.name}'s answer, "
                              f"not checked independently: {why} (noted once per run)")

    def _claim_checked(self, case: Case, sol: Solution, verdict: Verdict) -> bool:
        """A program's claimed minimum or Impossible decided by the agreement policy (:func:`check_claim`): False,
        after an Error line naming the lie, when it is false; a claim nothing could check is named so on stderr."""
        claim = check_claim(case.game, case.board, sol, referee_problem=verdict.problem, prove=not self.args.certify)
        if claim.problem:
            print("Error", flush=True)
            fail(ExitCode.DISAGREEMENT, f"{self.name}: case {case.number}: {claim.problem}")
            self.lied = True
        elif claim.unchecked and sol.status in (Status.OPTIMAL, Status.INFEASIBLE):
            fail(ExitCode.OK, f"{self.name}: case {case.number}: {unchecked_line(sol)}")
        return not claim.problem

    def flush(self) -> None:
        """Answer the cases waiting: one batch, checked by the referee at once, one write."""
        items, self.pending, self.waiting = self.pending, [], 0
        if not items:
            return
        game = items[0].game
        cases = _Cases(items)
        if len(cases) == 1:  # one case (a machine of its own, or an interactive line): the one-board path
            self.one(cases[0])
            return
        self.number = cases.first
        try:
            got = self.session.solve_batch_checked(cases.boards, game)
        except FlipgameError:  # answer one by one: the error then names its case, after the answers before it
            for case in cases:
                self.one(case)
            return
        batch, bad = got.batch, got.verdict.bad
        decided = (batch.status == Status.OPTIMAL) | (batch.status == Status.INFEASIBLE)
        if self._plain and not bad.any() and decided.all():
            self.total += int(batch.moves[batch.status == Status.OPTIMAL].sum())
            sys.stdout.write("\n".join(self.fmt.answers(cases, batch)) + "\n")
            sys.stdout.flush()
            self.number = cases.first + len(cases) - 1
            return
        for i, case in enumerate(cases):
            self.number = case.number
            checked = got.checked(i, game)
            self.report(case, with_certificates(game, case.board, checked.solution), checked.verdict.problem)

    def extra_lines(self, case: Case, sol: Solution) -> None:
        """The --presses, --count and --explain lines of one answer."""
        args, game = self.args, case.game
        if (args.presses or args.explain) and sol.success:
            print(presses_text(game, sol.presses))
        if args.count and sol.status in (Status.OPTIMAL, Status.INFEASIBLE):
            count = sol.stats.get("solutions", 0 if sol.status is Status.INFEASIBLE else None)
            if count is None:  # a backend that does not count: the elimination does
                from flipgame.backends.gauss import solution_count
                count = solution_count(game, case.board)
            print(f"solutions {'unknown' if count is None else count}")
        if args.explain and sol.status is Status.INFEASIBLE:
            print(explain_impossible(game, case.board, self.fmt.goal_name, sol.certificates))
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
            print(stats_line(number, game, sol, fmt.goal_name), file=sys.stderr)



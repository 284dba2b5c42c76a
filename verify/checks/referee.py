"""The referee: every answer of every backend is checked here, and only here.

The pipeline (:mod:`flipgame.pipeline`) runs the referee on every answer it hands on, whoever asked
(``solve``, ``verify``, the study, the Python API), as scipy's ``linprog`` runs ``_check_result``
inside its entry point: callers never check on their own, so a new check is one more function in
:data:`CHECKS` and every path picks it up.

The checks, in order, each from the press system's buttons alone:

1. the witness (:func:`flipgame.verify.checks.witness.check_solution`): the press set, re-applied by
   the model, reaches the goal board the answer names, which is a goal of the rules, in exactly the
   claimed number of presses; an answer without a number carries none;
2. ``Impossible`` (:mod:`flipgame.verify.checks.certificates`): the certificates it carries are
   checked, and an answer without any gets one from the algebra, which finds one exactly when no goal
   board is reachable.  Where none can be built (counters; rules the algebra does not take at this
   size) the answer passes *unchecked*, and the verdict says why.

A claimed minimum is checked by agreement (:mod:`flipgame.pipeline.decide`: a reference backend, a
checked proof, or the plurality of independent backends), not here: the referee needs no solver.

>>> from flipgame.backends.result import Solution, Status
>>> from flipgame.model.grid import Game
>>> referee(Game(1, 3, "white"), 0b011, Solution("x", Status.OPTIMAL, 1, 0b001, 0)).ok
True
>>> referee(Game(1, 3, "white"), 0b011, Solution("x", Status.OPTIMAL, 1, 0b100, 0)).problem
'pressing the witness gives board 5, not the claimed target 0'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from flipgame.backends.result import NO_MOVES, BatchSolution, Solution, Status, board_at
from flipgame.model.system import PressSystem
from flipgame.verify.checks.certificates import attached_problem, uncertified
from flipgame.verify.checks.witness import check_batch, check_solution


def impossible_wrong(game: PressSystem) -> str:
    """The referee's finding on an ``Impossible`` answer for which the algebra finds no certificate."""
    return f"says Impossible, but a goal board is reachable (no {'parity ' if game.binary else ''}certificate exists)"


@dataclass(frozen=True)
class Verdict:
    """The referee's word on one answer.

    Attributes
    ----------
    problem : str or None
        Why the answer is wrong (it must not be written as an answer), or None.
    unchecked : str or None
        What could not be checked, and why (an ``Impossible`` of counters, or of rules the algebra does
        not take at this size), or None.
    check : str or None
        The check that found the problem: ``witness`` or ``impossible``.
    """

    problem: str | None = None
    unchecked: str | None = None
    check: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


@dataclass(frozen=True)
class BatchVerdict:
    """The referee's word on a batch: ``bad`` (bool shape (k,)) marks the wrong answers, whose reasons
    :func:`referee` gives one at a time; ``unchecked`` counts the ``Impossible`` answers no certificate
    could be looked for, and ``why`` says why."""

    bad: np.ndarray
    unchecked: int = 0
    why: str | None = None


def check_impossible(game: PressSystem, board, solution: Solution) -> str | None:
    """Why an ``Impossible`` answer is not proved (check 2 of :data:`CHECKS`), or None (also for any other
    status, and where no certificate can be looked for).  O(n^2 / w) per goal board on two states."""
    return _impossible(game, board, solution).problem


def _impossible(game: PressSystem, board, solution: Solution) -> Verdict:
    """Check 2 for one answer: its certificates, or the algebra's search for one."""
    if solution.status is not Status.INFEASIBLE:
        return Verdict()
    if solution.certificates is not None:
        return Verdict(attached_problem(game, board, solution.certificates), None, "impossible")
    bad, why = uncertified(game, _one(game, board), np.ones(1, dtype=bool))
    return Verdict(impossible_wrong(game) if bad[0] else None, why, "impossible")


def _witness(game: PressSystem, board, solution: Solution) -> Verdict:
    """Check 1 for one answer."""
    return Verdict(check_solution(game, board, solution), None, "witness")


CHECKS: tuple[Callable[[PressSystem, object, Solution], Verdict], ...] = (_witness, _impossible)
"""The referee's checks of one answer, in order; the first problem found is the verdict."""


def _one(game: PressSystem, board) -> np.ndarray:
    """One board as a batch of one, in the array form of the referee's batch checks."""
    if not game.binary:
        return np.array([board], dtype=np.int64)
    return np.array([board], dtype=np.uint64 if game.n <= 64 else object)


def referee(game: PressSystem, board, solution: Solution) -> Verdict:
    """Every check of :data:`CHECKS` on one answer, in order; the first problem found, or what was left
    unchecked.  O(entries) for a witness; O(n^2 / w) per goal board for an ``Impossible``.

    Parameters
    ----------
    game : PressSystem
        The rules as the pipeline took them (an explicit goal board included).
    board : int or tuple of int
        The board, in ``game``'s board form.
    solution : Solution
    """
    unchecked = None
    for check in CHECKS:
        verdict = check(game, board, solution)
        if verdict.problem:
            return verdict
        unchecked = unchecked or verdict.unchecked
    return Verdict(None, unchecked)


def referee_batch(game: PressSystem, batch: BatchSolution) -> BatchVerdict:
    """:func:`referee` on every answer of a batch, vectorised: the witnesses re-applied at once
    (:func:`~flipgame.verify.checks.witness.check_batch`), the ``Impossible`` answers' certificates looked
    for at once (:func:`~flipgame.verify.checks.certificates.uncertified`).  O(k m) on two states up to 64
    cells, plus O(k * nullity * goals) for the certificates."""
    bad = check_batch(game, batch)
    infeasible = (batch.status == Status.INFEASIBLE) & ~bad
    wrong, why = uncertified(game, batch.boards, infeasible)
    return BatchVerdict(bad | wrong, int(infeasible.sum()) if why else 0, why)


REJECTED = "rejected by the referee"
"""How a rejected answer's error begins (:meth:`Checked.answer`)."""


@dataclass(frozen=True)
class Checked:
    """An answer as the backend gave it, with the referee's verdict on it."""

    solution: Solution
    verdict: Verdict

    @property
    def answer(self) -> Solution:
        """What may be reported: the solution, or for a rejected one an ERROR whose ``stats["error"]`` names the
        referee's finding and the answer it rejected (never a number the referee did not accept)."""
        if self.verdict.ok:
            return self.solution
        s = self.solution
        why = f"{REJECTED}: {s.backend} answered {s.answer()}, but {self.verdict.problem}"
        return Solution(s.backend, Status.ERROR, seconds=s.seconds, stats={**s.stats, "error": why})


@dataclass(frozen=True)
class CheckedBatch:
    """A batch as the backend gave it, with the referee's verdict on every answer (None: not checked yet, a
    worker's chunk on its way to the driver, which checks it)."""

    batch: BatchSolution
    verdict: BatchVerdict | None

    def checked(self, i: int, game: PressSystem) -> Checked:
        """Answer ``i`` with its own verdict (the reason of a rejection, looked up again for that answer)."""
        s = self.batch[i]
        if not self.verdict.bad[i]:
            return Checked(s, Verdict(None, self.verdict.why if s.status is Status.INFEASIBLE else None))
        found = referee(game, board_at(self.batch.boards, i), s)
        return Checked(s, found if found.problem else Verdict("rejected by the batch check", None, "witness"))

    @property
    def answers(self) -> BatchSolution:
        """The batch with every rejected answer turned into ERROR (no number), as :meth:`Checked.answer`."""
        bad = self.verdict.bad
        if not bad.any():
            return self.batch
        b = self.batch
        status, moves = b.status.copy(), b.moves.copy()
        status[bad], moves[bad] = Status.ERROR, NO_MOVES
        errors = [*b.stats.get("errors", []), f"{REJECTED}: {int(bad.sum())} answer(s) of {b.backend}"]
        return BatchSolution(b.backend, b.boards, status, moves, b.presses, b.target, b.seconds,
                             {**b.stats, "errors": errors})

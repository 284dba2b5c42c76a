"""The steps of an agreement run after solving: the referee's findings, the comparison, the certification.

Every answer was checked by the referee as its chunk arrived (:class:`~flipgame.pipeline.chunks.BackendRun`);
here its rejections become the report's witness failures (each with its board and answer), the Impossible
answers no certificate could be looked for become a note, and the answers are compared board by board
under the one agreement policy (:func:`flipgame.pipeline.decide.charged_rows`).  :func:`checks` runs the steps
in turn and, on Ctrl-C, keeps the finished ones.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from flipgame.backends.result import Status, board_at
from flipgame.model.system import PressSystem
from flipgame.pipeline.answers import Answers
from flipgame.pipeline.decide import REFERENCE, answer_keys, charged_rows
from flipgame.verify.checks.referee import referee
from flipgame.verify.proofs.certify_run import certify_run
from flipgame.verify.run.report import BackendSummary, answer_record, board_record

COMPARE_STEP = 1 << 20
"""Boards compared at once (the temporary arrays hold a few times this many answers)."""

CHECKS = ("witness_failures", "disagreements", "certification")
"""The steps after solving, in order; a Ctrl-C during one leaves it and the later ones undone."""


def checks(game: PressSystem, boards: np.ndarray, results: dict[str, Answers], summaries: list[BackendSummary],
           compare_presses: bool, certify: bool, on_certify) -> tuple[dict, list[str]]:
    """The referee's findings, the comparison and the certification, in turn.

    Returns the findings and the steps not done: on Ctrl-C the report keeps every finished step."""
    out: dict = {"witness_failures": [], "disagreements": [], "certification": None, "notes": []}
    steps = [
        ("witness_failures", lambda: out.update(witness_failures=rejections(game, results, summaries, out["notes"]))),
        ("disagreements", lambda: out.update(disagreements=compare(game, results, summaries, compare_presses))),
    ]
    if certify and results:
        steps.append(("certification", lambda: out.update(
            certification=certify_run(game, boards, {n: a.batch() for n, a in results.items()}, progress=on_certify))))
    for k, (_step, run) in enumerate(steps):
        try:
            run()
        except KeyboardInterrupt:
            return out, [name for name, _ in steps[k:]]
    return out, []


def summarise(name: str, run) -> BackendSummary:
    """The summary row of one backend's run (:class:`~flipgame.pipeline.chunks.BackendRun`): the boards it
    answered, their statuses, and the referee's rejections."""
    answers = run.answers
    st = answers.status
    return BackendSummary(
        backend=name, boards=answers.done, solvable=int(np.sum(st == Status.OPTIMAL)),
        impossible=int(np.sum(st == Status.INFEASIBLE)), unknown=int(np.sum(st == Status.UNKNOWN)) - (
            len(answers) - answers.done), errors=int(np.sum(st == Status.ERROR)), seconds=run.seconds,
        error_messages=list(dict.fromkeys(answers.errors))[:5], witness_failures=int(answers.rejected.sum()),
        resumed=run.resumed)


def rejections(game: PressSystem, results: dict[str, Answers], summaries: list[BackendSummary],
               notes: list[str]) -> list[dict]:
    """Every answer the referee rejected, as a record with its board, the answer and why; and a note per
    backend whose Impossible answers could not be checked."""
    out = []
    for name, answers in results.items():
        if answers.unchecked:
            notes.append(f"{answers.unchecked} Impossible answer(s) of {name} unchecked: {answers.unchecked_why}")
        for i in np.flatnonzero(answers.rejected):
            board = board_at(answers.boards, i)
            why = referee(game, board, answers[i]).problem or "answer fields inconsistent with its status"
            out.append(board_record(game, board) | {"backend": name, "answer": answer_record(game, answers, i),
                                                     "reason": why})
    return out


def compare(game: PressSystem, results: dict[str, Answers], summaries: list[BackendSummary],
            compare_presses: bool = False) -> list[dict]:
    """Boards whose definite answers differ, each with every backend's answer; each answer off the decided one
    (:func:`flipgame.pipeline.decide.charged_rows`: gauss where it answers, else the plurality) is charged.
    With ``compare_presses`` an answer is the count and the press set.  :data:`COMPARE_STEP` boards at a time."""
    names = list(results)
    if len(names) < 2:
        return []
    charged_count: Counter = Counter()
    records = []
    total = len(results[names[0]])
    for lo in range(0, total, COMPARE_STEP):
        part = slice(lo, lo + COMPARE_STEP)
        keys = np.stack([answer_keys(results[n].status[part], results[n].moves[part]) for n in names], axis=1)
        presses = np.stack([results[n].presses[part] for n in names], axis=1) if compare_presses else None
        charged = charged_rows(keys, names, REFERENCE, presses)
        differ = np.flatnonzero(charged.any(axis=1))
        for i in differ:
            charged_count.update(n for j, n in enumerate(names) if charged[i, j])
            records.append(board_record(game, board_at(results[names[0]].boards, lo + i)) | {
                "answers": {n: answer_record(game, results[n], lo + i) for n in names}})
    for s in summaries:
        s.disagreements = charged_count.get(s.backend, 0)
    return records


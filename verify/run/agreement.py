"""The checks after solving: witnesses, Impossible certificates, agreement, certification.

Every witness is re-applied by the board model (:mod:`flipgame.verify.checks.witness`); every
Impossible answer must have a parity certificate; then the answers are compared board
by board.  Two answers agree when both are ``Impossible`` or both give the same minimum
number of presses; press sets are not compared (a board may have several minimum-weight
solutions) unless asked.  UNKNOWN (time-out) and ERROR answers agree with nothing and
disagree with nothing.  :func:`_checks` runs the steps in turn and, on Ctrl-C, keeps
the finished ones.  Source: differential testing as in the yinyang SMT-solver fuzzer
(``SolverResult.equals``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from flipgame.algebra.gf2 import consistency_rows
from flipgame.algebra.zk import certificates as zk_certificates
from flipgame.backends.result import NO_MOVES, Status, board_at
from flipgame.core.errors import BoardTooLargeError
from flipgame.model.system import PressSystem
from flipgame.verify.checks.witness import check_batch, check_certificate, check_solution
from flipgame.verify.proofs.certify_run import certify_run
from flipgame.verify.run.answers import Answers
from flipgame.verify.run.report import BackendSummary, answer_record, board_record

IMPOSSIBLE_KEY = -2


NO_ANSWER_KEY = -99


COMPARE_STEP = 1 << 20
"""Boards checked or compared at once (the temporary arrays hold a few times this many answers)."""


CHECKS = ("witness_failures", "certificates", "disagreements", "certification")
"""The steps after solving, in order; a Ctrl-C during one leaves it and the later ones undone."""


def _checks(game: PressSystem, boards: np.ndarray, results: dict[str, Answers], summaries: list[BackendSummary],
            compare_presses: bool, certify: bool, on_certify) -> tuple[dict, list[str]]:
    """The witness check, the Impossible certificates, the comparison and the certification, in turn.

    Returns the findings and the steps not done: on Ctrl-C the report keeps every finished step
    (issue 18: an interrupt during the final checks lost the whole report)."""
    out: dict = {"witness_failures": [], "disagreements": [], "certification": None, "notes": []}
    steps = [
        ("witness_failures", lambda: out["witness_failures"].extend(_witness_failures(game, results, summaries))),
        ("certificates", lambda: out["witness_failures"].extend(
            _certificate_failures(game, boards, results, summaries, out["notes"]))),
        ("disagreements", lambda: out.update(disagreements=_compare(game, results, summaries, compare_presses))),
    ]
    if certify and results:
        steps.append(("certification", lambda: out.update(certification=_certify(game, boards, results, on_certify))))
    for k, (_step, run) in enumerate(steps):
        try:
            run()
        except KeyboardInterrupt:
            return out, [name for name, _ in steps[k:]]
    return out, []


def _certify(game: PressSystem, boards: np.ndarray, results: dict[str, Answers], on_certify) -> dict:
    return certify_run(game, boards, {n: a.batch() for n, a in results.items()}, progress=on_certify)


def _answer_keys(status: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """Per board, the minimum, :data:`IMPOSSIBLE_KEY` or :data:`NO_ANSWER_KEY` (int32)."""
    keys = np.full(len(status), NO_ANSWER_KEY, dtype=np.int32)
    keys[status == Status.OPTIMAL] = moves[status == Status.OPTIMAL]
    keys[status == Status.INFEASIBLE] = IMPOSSIBLE_KEY
    return keys


def _witness_failures(game: PressSystem, results: dict[str, Answers],
                      summaries: list[BackendSummary]) -> list[dict]:
    """Every answer whose witness the board model rejects (vectorised up to 64 cells, else per board), a chunk
    at a time."""
    out = []
    for name, answers in results.items():
        failed = 0
        for _, batch in answers.each_chunk():
            if batch.boards.dtype == object:
                bad = [i for i in range(len(batch)) if check_solution(game, int(batch.boards[i]), batch[i])
                       or (batch.status[i] != Status.OPTIMAL and batch.moves[i] != NO_MOVES)]
            else:
                bad = np.flatnonzero(check_batch(game, batch))
            failed += len(bad)
            for i in bad:
                b = board_at(batch.boards, i)
                reason = check_solution(game, b, batch[i]) or "answer fields inconsistent with its status"
                out.append(board_record(game, b) | {
                    "backend": name, "answer": answer_record(game, batch, i), "reason": reason})
        next(s for s in summaries if s.backend == name).witness_failures = failed
    return out


def _certificate_failures(game: PressSystem, boards: np.ndarray, results: dict[str, Answers],
                          summaries: list[BackendSummary], notes: list[str] | None = None) -> list[dict]:
    """Every Impossible answer without a certificate (charged as a witness failure), :data:`COMPARE_STEP` boards
    at a time.  When the algebra does not take the rules, the Impossible answers stay unchecked, and a line in
    ``notes`` says so."""
    out, unchecked, why = [], 0, None
    step = COMPARE_STEP if boards.dtype != object and boards.ndim == 1 else max(len(boards), 1)
    for lo in range(0, len(boards), step):
        infeasible = {name: np.flatnonzero(a.status[lo:lo + step] == Status.INFEASIBLE) for name, a in results.items()}
        try:
            uncertified = _uncertified(game, boards[lo:lo + step], infeasible)
        except BoardTooLargeError as exc:
            unchecked, why = unchecked + sum(len(v) for v in infeasible.values()), exc
            continue
        for name, idx in uncertified.items():
            next(s for s in summaries if s.backend == name).witness_failures += len(idx)
            for i in idx:
                out.append(board_record(game, board_at(boards, lo + i)) | {
                    "backend": name, "answer": answer_record(game, results[name], lo + i),
                    "reason": "claims Impossible, but no certificate exists: a goal board is reachable"})
    if why is not None and notes is not None:
        notes.append(f"{unchecked} Impossible answer(s) unchecked: no certificate is built ({why})")
    return out


def _uncertified(game: PressSystem, boards: np.ndarray, infeasible: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per backend, the indices of its Impossible answers that have no certificate.

    Certificates are the consistency rows of the elimination (vectors ``c``
    with ``c^T A = 0``); each is first re-checked against the board model's
    press masks, so the elimination is not trusted either.  A board is
    certified Impossible iff, for every goal board ``t``, some ``c`` has odd
    overlap with ``board ^ t``.  O(k * nullity) per goal board.
    """
    if not any(len(v) for v in infeasible.values()) or game.states is None:
        return {}  # counters: no certificate to look for (their Impossible is checked by agreement)
    if not game.binary:
        return _uncertified_rows(game, boards, infeasible)
    checks = consistency_rows(game)
    for c in checks:
        bad = [j for j, m in enumerate(game.press_masks) if (m & c).bit_count() & 1]
        if bad:
            raise RuntimeError(f"consistency row {c} is not orthogonal to press {bad[0]}: elimination bug")
    if boards.dtype == object:  # Python ints: per board
        certified = np.array([all(any(((int(b) ^ t) & c).bit_count() & 1 for c in checks) for t in game.targets)
                              for b in boards], dtype=bool).reshape(len(boards))
        return {name: idx[~certified[idx]] for name, idx in infeasible.items() if np.any(~certified[idx])}
    certified = np.ones(len(boards), dtype=bool)
    for t in game.targets:
        d = boards ^ np.uint64(t)
        odd = np.zeros(len(boards), dtype=bool)
        for c in checks:
            odd |= (np.bitwise_count(d & np.uint64(c)) & 1).astype(bool)
        certified &= odd
    return {name: idx[~certified[idx]] for name, idx in infeasible.items() if np.any(~certified[idx])}


def _uncertified_rows(game: PressSystem, boards: np.ndarray, infeasible: dict[str, np.ndarray]
                      ) -> dict[str, np.ndarray]:
    """:func:`_uncertified` over Z_k: each Impossible board needs a certificate from the diagonal form that the
    model's own check (:func:`~flipgame.verify.checks.witness.check_certificate`) accepts.  O(n^2) per board."""
    idx = np.unique(np.concatenate([v for v in infeasible.values() if len(v)]))
    certified = {}
    for i in idx:
        board = board_at(boards, i)
        certs = zk_certificates(game, board)
        certified[int(i)] = certs is not None and all(check_certificate(game, board, t, c) is None
                                                      for t, c in certs.items())
    return {name: v[[not certified[int(i)] for i in v]] for name, v in infeasible.items()
            if any(not certified[int(i)] for i in v)}


def _summarise(game: PressSystem, name: str, answers: Answers, seconds: float) -> BackendSummary:
    st = answers.status
    return BackendSummary(
        backend=name,
        boards=len(answers),
        solvable=int(np.sum(st == Status.OPTIMAL)),
        impossible=int(np.sum(st == Status.INFEASIBLE)),
        unknown=int(np.sum(st == Status.UNKNOWN)),
        errors=int(np.sum(st == Status.ERROR)),
        seconds=seconds,
        error_messages=list(dict.fromkeys(answers.errors))[:5],
    )


def _compare(game: PressSystem, results: dict[str, Answers], summaries: list[BackendSummary],
             compare_presses: bool = False) -> list[dict]:
    """Boards whose definite answers differ; each backend off the plurality answer is charged one.

    On a tie for the plurality (e.g. two backends, two answers) every backend is charged.
    With ``compare_presses`` an answer is the count and the press set.  :data:`COMPARE_STEP` boards at a time.
    """
    if len(results) < 2:
        return []
    names = list(results)
    presses = np.stack([results[n].presses for n in names], axis=1) if compare_presses else None
    charged = Counter()
    records = []
    for lo in range(0, len(results[names[0]]), COMPARE_STEP):
        part = slice(lo, lo + COMPARE_STEP)
        keys = np.stack([_answer_keys(results[n].status[part], results[n].moves[part]) for n in names], axis=1)
        bad, definite = _differing(game, results, keys, None if presses is None else presses[part])
        for i in bad:
            row = {n: (int(keys[i, j]), int(presses[lo + i, j]) if compare_presses else 0)
                   for j, n in enumerate(names) if definite[i, j]}
            counts = Counter(row.values()).most_common()
            top = counts[0][0] if len(counts) == 1 or counts[0][1] > counts[1][1] else None
            charged.update(n for n, k in row.items() if top is None or k != top)
            records.append(board_record(game, board_at(results[names[0]].boards, lo + i)) | {
                "answers": {n: answer_record(game, results[n], lo + i) for n in names}})
    for s in summaries:
        s.disagreements = charged.get(s.backend, 0)
    return records


def _differing(game: PressSystem, results: dict[str, Answers], keys: np.ndarray, presses: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``keys`` (boards x backends) where two definite answers differ, and which answers are definite."""
    big = next(iter(results.values())).boards.dtype == object
    definite = keys != NO_ANSWER_KEY
    hi = np.where(definite, keys, np.iinfo(np.int32).min).max(axis=1)
    lo = np.where(definite, keys, np.iinfo(np.int32).max).min(axis=1)
    differ = hi != lo
    if presses is not None:
        optimal = keys >= 0
        below, above = (-1, 1 << (game.n + 1)) if big else (np.uint64(0), np.iinfo(np.uint64).max)
        p_hi = np.where(optimal, presses, below).max(axis=1)
        p_lo = np.where(optimal, presses, above).min(axis=1)
        differ |= optimal.any(axis=1) & (p_hi != p_lo)
    return np.flatnonzero((definite.sum(axis=1) >= 2) & differ), definite

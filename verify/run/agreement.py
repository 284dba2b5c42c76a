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
from flipgame.backends.result import NO_MOVES, BatchSolution, Status, board_at
from flipgame.core.errors import BoardTooLargeError
from flipgame.model.system import PressSystem
from flipgame.verify.checks.witness import check_batch, check_certificate, check_solution
from flipgame.verify.proofs.certify_run import certify_run
from flipgame.verify.run.report import BackendSummary, answer_record, board_record

IMPOSSIBLE_KEY = -2


NO_ANSWER_KEY = -99


CHECKS = ("witness_failures", "certificates", "disagreements", "certification")
"""The steps after solving, in order; a Ctrl-C during one leaves it and the later ones undone."""


def _checks(game: PressSystem, boards: np.ndarray, results: dict[str, BatchSolution], summaries: list[BackendSummary],
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


def _certify(game: PressSystem, boards: np.ndarray, results: dict[str, BatchSolution], on_certify) -> dict:
    return certify_run(game, boards, results, progress=on_certify)


def _answer_keys(batch: BatchSolution) -> np.ndarray:
    keys = np.full(len(batch), NO_ANSWER_KEY, dtype=np.int32)
    keys[batch.status == Status.OPTIMAL] = batch.moves[batch.status == Status.OPTIMAL]
    keys[batch.status == Status.INFEASIBLE] = IMPOSSIBLE_KEY
    return keys


def _witness_failures(game: PressSystem, results: dict[str, BatchSolution],
                      summaries: list[BackendSummary]) -> list[dict]:
    """Every answer whose witness the board model rejects (vectorised up to 64 cells, else per board)."""
    out = []
    for name, batch in results.items():
        if batch.boards.dtype == object:
            failed = [i for i in range(len(batch)) if check_solution(game, int(batch.boards[i]), batch[i])
                      or (batch.status[i] != Status.OPTIMAL and batch.moves[i] != NO_MOVES)]
        else:
            failed = np.flatnonzero(check_batch(game, batch))
        next(s for s in summaries if s.backend == name).witness_failures = len(failed)
        for i in failed:
            b = board_at(batch.boards, i)
            reason = check_solution(game, b, batch[i]) or "answer fields inconsistent with its status"
            out.append(board_record(game, b) | {
                "backend": name, "answer": answer_record(game, batch, i), "reason": reason})
    return out


def _certificate_failures(game: PressSystem, boards: np.ndarray, results: dict[str, BatchSolution],
                          summaries: list[BackendSummary], notes: list[str] | None = None) -> list[dict]:
    """Every Impossible answer without a certificate (charged as a witness failure).  When the algebra does
    not take the rules, the Impossible answers stay unchecked, and a line in ``notes`` says so."""
    out = []
    infeasible_sets = {name: np.flatnonzero(b.status == Status.INFEASIBLE) for name, b in results.items()}
    try:
        uncertified = _uncertified(game, boards, infeasible_sets)
    except BoardTooLargeError as exc:
        count = sum(len(v) for v in infeasible_sets.values())
        if notes is not None:
            notes.append(f"{count} Impossible answer(s) unchecked: no certificate is built ({exc})")
        return out
    for name, idx in uncertified.items():
        next(s for s in summaries if s.backend == name).witness_failures += len(idx)
        for i in idx:
            out.append(board_record(game, board_at(boards, i)) | {
                "backend": name, "answer": answer_record(game, results[name], i),
                "reason": "claims Impossible, but no certificate exists: a goal board is reachable"})
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


def _summarise(game: PressSystem, name: str, batch: BatchSolution, parts, seconds: float) -> BackendSummary:
    st = batch.status
    messages = [m for p in parts for m in p.stats.get("errors", [])]
    return BackendSummary(
        backend=name,
        boards=len(batch),
        solvable=int(np.sum(st == Status.OPTIMAL)),
        impossible=int(np.sum(st == Status.INFEASIBLE)),
        unknown=int(np.sum(st == Status.UNKNOWN)),
        errors=int(np.sum(st == Status.ERROR)),
        seconds=seconds,
        error_messages=list(dict.fromkeys(messages))[:5],
    )


def _compare(game: PressSystem, results: dict[str, BatchSolution], summaries: list[BackendSummary],
             compare_presses: bool = False) -> list[dict]:
    """Boards whose definite answers differ; each backend off the plurality answer is charged one.

    On a tie for the plurality (e.g. two backends, two answers) every backend is charged.
    With ``compare_presses`` an answer is the count and the press set.
    """
    if len(results) < 2:
        return []
    names = list(results)
    keys = np.stack([_answer_keys(results[n]) for n in names], axis=1)
    big = results[names[0]].boards.dtype == object
    definite = keys != NO_ANSWER_KEY
    hi = np.where(definite, keys, np.iinfo(np.int32).min).max(axis=1)
    lo = np.where(definite, keys, np.iinfo(np.int32).max).min(axis=1)
    differ = hi != lo
    presses = None
    if compare_presses:
        presses = np.stack([results[n].presses for n in names], axis=1)
        optimal = keys >= 0
        below, above = (-1, 1 << (game.n + 1)) if big else (np.uint64(0), np.iinfo(np.uint64).max)
        p_hi = np.where(optimal, presses, below).max(axis=1)
        p_lo = np.where(optimal, presses, above).min(axis=1)
        differ |= optimal.any(axis=1) & (p_hi != p_lo)
    bad = np.flatnonzero((definite.sum(axis=1) >= 2) & differ)
    charged = Counter()
    records = []
    boards = results[names[0]].boards
    for i in bad:
        row = {n: (int(keys[i, j]), int(presses[i, j]) if compare_presses else 0)
               for j, n in enumerate(names) if definite[i, j]}
        counts = Counter(row.values()).most_common()
        top = counts[0][0] if len(counts) == 1 or counts[0][1] > counts[1][1] else None
        charged.update(n for n, k in row.items() if top is None or k != top)
        records.append(board_record(game, board_at(boards, i)) | {
            "answers": {n: answer_record(game, results[n], i) for n in names}})
    for s in summaries:
        s.disagreements = charged.get(s.backend, 0)
    return records

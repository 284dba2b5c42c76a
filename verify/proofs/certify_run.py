"""Certification of a whole agreement run: every number by a checked minimality proof
(:func:`flipgame.verify.proofs.certify.certify_minimum`), every Impossible by its parity certificate,
spread over worker processes."""

from __future__ import annotations

import os
import time

from flipgame.algebra.gf2 import certificates
from flipgame.backends.result import Status
from flipgame.core.errors import BoardTooLargeError
from flipgame.core.limits import CERTIFY_SECONDS
from flipgame.core.workers import kill_pool, local_pool, pool_map
from flipgame.verify.checks.certificates import check_certificate
from flipgame.verify.proofs.certify import CertStatus, certify_minimum

__all__ = ["certify_run"]

IN_PROCESS_MAX_CELLS = 36
"""Up to this many cells a proof takes milliseconds, so it runs in-process (no child per board)."""


def _certificates(game, board: int) -> dict | None:
    """:func:`flipgame.algebra.gf2.certificates`, or None where the algebra takes no board this size."""
    try:
        return certificates(game, board)
    except BoardTooLargeError:
        return None


def _certify_board(task: tuple) -> dict:
    """One board of :func:`certify_run` (runs in a worker process): a small record."""
    game, board, kind, moves, presses, time_limit, check_jobs = task
    if kind == "impossible":
        found = _certificates(game, board)
        ok = found is not None and all(check_certificate(game, board, t, c) is None for t, c in found.items())
        return {"status": "certified" if ok else "failed", "lines": 0, "message": "no parity certificate"}
    cert = certify_minimum(game, board, moves, witness=presses,
                           time_limit=None if game.n <= IN_PROCESS_MAX_CELLS else time_limit, jobs=check_jobs)
    status = "certified" if cert.ok else "unknown" if cert.status is CertStatus.UNKNOWN else "failed"
    return {"status": status, "lines": cert.proof_lines, "message": cert.message, "prover": cert.prover,
            "engine": cert.engine}


def _tasks(game, boards, results: dict, time_limit: float, check_jobs: int = 1):
    """(task or None for no definite answer, claimed answer) per board, in order."""
    names = list(results)
    for i in range(len(boards)):
        board = int(boards[i])
        answer = next((results[n][i] for n in names if results[n][i].status in (Status.OPTIMAL, Status.INFEASIBLE)),
                      None)
        if answer is None:
            yield None, None
        elif answer.status is Status.INFEASIBLE:
            yield (game, board, "impossible", None, None, time_limit, check_jobs), "Impossible"
        else:
            yield (game, board, "number", answer.moves, answer.presses, time_limit, check_jobs), answer.moves


def certify_run(game, boards, results: dict, *, time_limit: float = CERTIFY_SECONDS, progress=None,
                jobs: int | None = None) -> dict:
    """Certify every board of an agreement run: each number by a checked DRAT proof of
    minimality (:func:`certify_minimum`), each Impossible by its parity certificate.

    Parameters
    ----------
    game : Game
    boards : sequence of int or ndarray, shape (k,)
    results : dict of str -> BatchSolution
        Every backend's answers, in the order of ``boards``.  A board is
        certified on the first backend's definite answer (OPTIMAL with its
        witness, or INFEASIBLE); disagreements are the harness's business.
    time_limit : float
        Seconds per board for boards over :data:`IN_PROCESS_MAX_CELLS` cells.
    progress : callable(done, total), optional
    jobs : int, optional
        Worker processes (default: one per core); 1 works in this process.

    Returns
    -------
    dict
        ``size``, ``boards``, ``certified``, ``failed``, ``unknown`` (counts of boards),
        ``proofs``, ``proof_lines_median``, ``proof_lines_max``, ``provers``
        (proofs per prover), ``engine``, ``jobs``, ``seconds``, and ``failures``:
        one record per failed board (board, claimed minimum, message).

    Running time: per solvable board one or two proofs (about 11 ms each on 4x4),
    spread over ``jobs`` processes.
    """
    start = time.perf_counter()
    jobs = jobs or os.cpu_count() or 1
    pairs = list(_tasks(game, boards, results, time_limit))
    tasks = [t for t, _ in pairs if t is not None]
    if len(tasks) == 1:  # one board: its proof is checked by every process instead
        tasks = [(*tasks[0][:-1], jobs)]
    if jobs > 1 and len(tasks) > 1:
        pool = local_pool(min(jobs, len(tasks)))
        try:
            records = pool_map(pool, _certify_board, tasks, chunksize=max(1, min(64, len(tasks) // (8 * jobs))))
            out = _tally(game, pairs, records, progress, jobs, start)
        except BaseException:  # Ctrl-C, SIGTERM: the workers are killed, not waited for
            kill_pool(pool)
            raise
        pool.shutdown()
        return out
    return _tally(game, pairs, map(_certify_board, tasks), progress, 1, start)


def _tally(game, pairs, records, progress, jobs: int, start: float) -> dict:
    """Counts of :func:`certify_run` from the workers' records (consumed in board order)."""
    import statistics

    counts = {"certified": 0, "failed": 0, "unknown": 0}
    lines: list[int] = []
    provers: dict[str, int] = {}
    engine = ""
    failures = []
    for i, (task, claimed) in enumerate(pairs):
        if task is None:
            counts["unknown"] += 1
            continue
        rec = next(records)
        counts[rec["status"]] += 1
        if rec["status"] == "failed":
            failures.append({"board": task[1], "claimed": claimed, "message": rec["message"]})
        if rec["lines"]:
            lines.append(rec["lines"])
            provers[rec["prover"]] = provers.get(rec["prover"], 0) + 1
            engine = rec["engine"] or engine
        if progress and (i + 1) % 256 == 0:
            progress(i + 1, len(pairs))
    return {"size": game.size, "boards": len(pairs), **counts, "proofs": len(lines),
            "proof_lines_median": statistics.median(lines) if lines else 0,
            "proof_lines_max": max(lines, default=0), "provers": provers, "engine": engine, "jobs": jobs,
            "seconds": round(time.perf_counter() - start, 3), "failures": failures[:100]}

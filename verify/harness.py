"""The agreement run: every selected backend on every board, witnesses re-checked.

For each backend the boards are solved in chunks (in worker processes for
backends whose registry entry says ``parallel``), every witness is re-applied
by the board model (:mod:`verify.witness`), and then the answers are compared
board by board.  Two answers agree when both are ``Impossible`` or both give
the same minimum number of presses; press sets are not compared, since a board
may have several minimum-weight solutions.  UNKNOWN (time-out) and ERROR
answers agree with nothing and disagree with nothing: they are counted
separately and make the run incomplete, never successful by default.

Source: differential testing as in the yinyang SMT-solver fuzzer
(``SolverResult.equals``, ``report_diff``): keep every mismatch replayable.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field

import numpy as np

from solvers import BACKENDS, get_backend, solve, solve_batch
from solvers.board import Game, format_cells
from solvers.errors import RulesError
from solvers.result import BatchSolution, Solution, Status

from .witness import check_batch, check_solution

IMPOSSIBLE_KEY = -2
NO_ANSWER_KEY = -99


@dataclass
class BackendSummary:
    """One row of the verification table (counts are numbers of boards; seconds are wall time)."""

    backend: str
    boards: int = 0
    solvable: int = 0
    impossible: int = 0
    unknown: int = 0
    errors: int = 0
    disagreements: int = 0
    witness_failures: int = 0
    seconds: float = 0.0
    error_messages: list[str] = field(default_factory=list)

    @property
    def boards_per_second(self) -> float:
        return self.boards / self.seconds if self.seconds > 0 else float("inf")


@dataclass
class AgreementReport:
    """Everything an agreement run found; :meth:`to_json` is the replayable report."""

    game: Game
    boards: int
    summaries: list[BackendSummary]
    disagreements: list[dict]
    witness_failures: list[dict]
    seconds: float
    completed: bool = True

    @property
    def incomplete(self) -> bool:
        """Some board has an UNKNOWN or ERROR answer, or the run was interrupted."""
        return not self.completed or any(s.unknown or s.errors for s in self.summaries)

    @property
    def ok(self) -> bool:
        return not self.disagreements and not self.witness_failures and not self.incomplete

    def table(self) -> str:
        """The per-backend table as aligned text."""
        head = ("backend", "boards", "solvable", "impossible", "unknown", "errors",
                "disagree", "witness-fail", "seconds", "boards/s")
        rows = [head] + [
            (s.backend, s.boards, s.solvable, s.impossible, s.unknown, s.errors, s.disagreements,
             s.witness_failures, f"{s.seconds:.3f}", f"{s.boards_per_second:,.0f}")
            for s in self.summaries
        ]
        widths = [max(len(str(r[i])) for r in rows) for i in range(len(head))]
        lines = ["  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w)
                           for i, (v, w) in enumerate(zip(r, widths, strict=True))) for r in rows]
        lines.insert(1, "-" * len(lines[0]))
        return "\n".join(lines)

    def to_json(self) -> dict:
        g = self.game
        return {
            "game": g.to_json(),
            "boards": self.boards,
            "completed": self.completed,
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "backends": [asdict(s) | {"boards_per_second": round(s.boards_per_second, 1)}
                         for s in self.summaries],
            "disagreements": self.disagreements,
            "witness_failures": self.witness_failures,
        }


def answer_record(game: Game, batch: BatchSolution, i: int) -> dict:
    """One backend's answer on board ``i`` of a batch, as JSON-ready text."""
    s = batch[i]
    rec = {"status": s.status.name, "answer": s.answer()}
    if s.status is Status.OPTIMAL:
        rec |= {
            "moves": s.moves,
            "presses": format_cells(s.presses, game.rows, game.cols, "x", ".").split("\n"),
            "target": game.target_name(s.target),
        }
    return rec


def board_record(game: Game, board: int) -> dict:
    return {"board": board, "text": format_cells(board, game.rows, game.cols).split("\n")}


def _solve_chunk(name: str, game: Game, boards: np.ndarray, options: dict) -> BatchSolution:
    """Solve one chunk; an exception becomes ERROR answers for the chunk, and the run goes on."""
    start = time.perf_counter()
    try:
        return solve_batch(boards, game, name, **options)
    except Exception:  # noqa: BLE001 - a backend fault must not stop the run
        pass
    # Isolate the fault: solve the chunk board by board, each failure an ERROR of its own.
    solutions = []
    for b in boards:
        try:
            solutions.append(solve(int(b), name, game=game, **options))
        except Exception as exc:  # noqa: BLE001
            solutions.append(Solution(name, Status.ERROR, stats={"error": f"board {int(b)}: "
                                                                          f"{type(exc).__name__}: {exc}"}))
    return BatchSolution.from_solutions(name, boards, solutions, time.perf_counter() - start)


def _ignore_sigint() -> None:
    """Worker initialiser: Ctrl-C is handled by the parent, which writes what finished."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _answer_keys(batch: BatchSolution) -> np.ndarray:
    keys = np.full(len(batch), NO_ANSWER_KEY, dtype=np.int16)
    keys[batch.status == Status.OPTIMAL] = batch.moves[batch.status == Status.OPTIMAL]
    keys[batch.status == Status.INFEASIBLE] = IMPOSSIBLE_KEY
    return keys


def run_agreement(
    game: Game,
    backends: Sequence[str] | None = None,
    boards: np.ndarray | None = None,
    *,
    jobs: int = 1,
    options: dict[str, dict] | None = None,
    chunk_size: int = 2048,
    progress: Callable[[str, int], None] | None = None,
    on_backend_done: Callable[[BackendSummary], None] | None = None,
    checkpoint: str | None = None,
    compare_presses: bool = False,
) -> AgreementReport:
    """Run every backend on every board, check every witness, compare every answer.

    Parameters
    ----------
    game : Game
        At most 64 cells.
    backends : sequence of str, optional
        Registry names; default every registered backend.
    boards : ndarray of uint64, shape (k,), optional
        Default: all ``2**n`` boards (n <= 24).
    jobs : int
        Worker processes for backends marked ``parallel`` (1 = in this process).
    options : dict
        Per-backend options, e.g. ``{"cpsat": {"time_limit": 5.0}}``.
    chunk_size : int
        Boards per unit of work (and per progress update).
    progress : callable(backend, boards_done), optional
        Called after each finished chunk.
    on_backend_done : callable(BackendSummary), optional
        Called when a backend has finished every board (before comparison).
    checkpoint : str, optional
        JSON-lines file of finished chunks (:mod:`verify.checkpoint`): chunks
        already in it are not solved again, new ones are appended as they
        finish, so an interrupted run resumes where it stopped.
    compare_presses : bool
        Also require equal press sets (for canonical witnesses, e.g. POJ 3279).

    Returns
    -------
    AgreementReport
        On KeyboardInterrupt, the report of the backends finished so far,
        with ``completed=False``.

    Raises
    ------
    UnknownBackendError, RulesError (a game over 64 cells or boards that do not fit).

    Running time: the sum of the backends' times; comparison is O(k * backends).
    """
    names = list(backends or BACKENDS)
    for name in names:
        get_backend(name)
    options = options or {}
    if game.n > 64:
        raise RulesError(f"the agreement run handles at most 64 cells, got {game.size}")
    if boards is None:
        if game.n > 24:
            raise RulesError(f"{game.size} has 2**{game.n} boards; pass a sample of boards")
        boards = np.arange(1 << game.n, dtype=np.uint64)
    boards = np.asarray(boards, dtype=np.uint64)
    if len(boards) and int(boards.max()) > game.full:
        raise RulesError(f"board {int(boards.max())} does not fit {game.size}")

    start = time.perf_counter()
    chunks = [boards[i:i + chunk_size] for i in range(0, len(boards), chunk_size)]
    results: dict[str, BatchSolution] = {}
    summaries: list[BackendSummary] = []
    pool = None
    completed = True
    store = None
    if checkpoint:
        from .checkpoint import Checkpoint, run_header

        store = Checkpoint(checkpoint, run_header(game, names, options, chunk_size, boards))
    try:
        for name in names:
            t0 = time.perf_counter()
            opts = options.get(name, {})
            parts: list[BatchSolution | None] = [store.get(name, i) if store else None for i in range(len(chunks))]
            todo = [i for i, p in enumerate(parts) if p is None]
            if progress and len(todo) < len(chunks):
                progress(name, sum(len(chunks[i]) for i in range(len(chunks)) if parts[i] is not None))

            def finish(i: int, batch: BatchSolution, name=name, parts=parts) -> None:
                parts[i] = batch
                if store:
                    store.add(i, batch)
                if progress:
                    progress(name, len(chunks[i]))

            if BACKENDS[name].parallel and jobs > 1 and len(todo) > 1:
                if pool is None:
                    workers = min(jobs, len(todo), 4 * (os.cpu_count() or 1))
                    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                               initializer=_ignore_sigint)
                futures = {pool.submit(_solve_chunk, name, game, chunks[i], opts): i for i in todo}
                for fut in as_completed(futures):
                    finish(futures[fut], fut.result())
            else:
                for i in todo:
                    finish(i, _solve_chunk(name, game, chunks[i], opts))
            batch = BatchSolution.concat(parts)
            summary = _summarise(game, name, batch, parts, time.perf_counter() - t0)
            results[name] = batch
            summaries.append(summary)
            if on_backend_done:
                on_backend_done(summary)
    except KeyboardInterrupt:
        completed = False
    finally:
        if pool is not None:
            pool.shutdown(wait=completed, cancel_futures=True)
        if store:
            store.close()

    witness_failures = []
    for name, batch in results.items():
        failed = np.flatnonzero(check_batch(game, batch))
        next(s for s in summaries if s.backend == name).witness_failures = len(failed)
        for i in failed:
            b = int(batch.boards[i])
            reason = check_solution(game, b, batch[i]) or "answer fields inconsistent with its status"
            witness_failures.append(board_record(game, b) | {
                "backend": name, "answer": answer_record(game, batch, i), "reason": reason})

    infeasible_sets = {name: np.flatnonzero(b.status == Status.INFEASIBLE) for name, b in results.items()}
    uncertified = _uncertified(game, boards, infeasible_sets)
    for name, idx in uncertified.items():
        next(s for s in summaries if s.backend == name).witness_failures += len(idx)
        for i in idx:
            witness_failures.append(board_record(game, int(boards[i])) | {
                "backend": name, "answer": answer_record(game, results[name], i),
                "reason": "claims Impossible, but no certificate exists: a goal board is reachable"})

    disagreements = _compare(game, results, summaries, compare_presses)
    return AgreementReport(game, len(boards), summaries, disagreements, witness_failures,
                           time.perf_counter() - start, completed)


def _uncertified(game: Game, boards: np.ndarray, infeasible: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per backend, the indices of its Impossible answers that have no certificate.

    Certificates are the consistency rows of the elimination (vectors ``c``
    with ``c^T A = 0``); each is first re-checked against the board model's
    press masks, so the elimination is not trusted either.  A board is
    certified Impossible iff, for every goal board ``t``, some ``c`` has odd
    overlap with ``board ^ t``.  O(k * nullity) per goal board.
    """
    if not any(len(v) for v in infeasible.values()):
        return {}
    from solvers.algebra import eliminate

    checks = eliminate(game).checks
    for c in checks:
        bad = [j for j, m in enumerate(game.press_masks) if (m & c).bit_count() & 1]
        if bad:
            raise RuntimeError(f"consistency row {c} is not orthogonal to press {bad[0]}: elimination bug")
    certified = np.ones(len(boards), dtype=bool)
    for t in game.targets:
        d = boards ^ np.uint64(t)
        odd = np.zeros(len(boards), dtype=bool)
        for c in checks:
            odd |= (np.bitwise_count(d & np.uint64(c)) & 1).astype(bool)
        certified &= odd
    return {name: idx[~certified[idx]] for name, idx in infeasible.items() if np.any(~certified[idx])}


def _summarise(game: Game, name: str, batch: BatchSolution, parts, seconds: float) -> BackendSummary:
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


def _compare(game: Game, results: dict[str, BatchSolution], summaries: list[BackendSummary],
             compare_presses: bool = False) -> list[dict]:
    """Boards whose definite answers differ; each backend off the plurality answer is charged one.

    On a tie for the plurality (e.g. two backends, two answers) every backend is charged.
    With ``compare_presses`` an answer is the count and the press set.
    """
    if len(results) < 2:
        return []
    names = list(results)
    keys = np.stack([_answer_keys(results[n]) for n in names], axis=1)
    presses = np.stack([results[n].presses for n in names], axis=1)
    definite = keys != NO_ANSWER_KEY
    hi = np.where(definite, keys, np.iinfo(np.int16).min).max(axis=1)
    lo = np.where(definite, keys, np.iinfo(np.int16).max).min(axis=1)
    differ = hi != lo
    if compare_presses:
        optimal = keys >= 0
        p_hi = np.where(optimal, presses, np.uint64(0)).max(axis=1)
        p_lo = np.where(optimal, presses, np.iinfo(np.uint64).max).min(axis=1)
        differ |= optimal.any(axis=1) & (p_hi != p_lo)
    bad = np.flatnonzero((definite.sum(axis=1) >= 2) & differ)
    charged = Counter()
    records = []
    boards = results[names[0]].boards
    for i in bad:
        row = {n: (int(k), int(p) if compare_presses else 0)
               for n, k, p, d in zip(names, keys[i], presses[i], definite[i], strict=True) if d}
        counts = Counter(row.values()).most_common()
        top = counts[0][0] if len(counts) == 1 or counts[0][1] > counts[1][1] else None
        charged.update(n for n, k in row.items() if top is None or k != top)
        records.append(board_record(game, int(boards[i])) | {
            "answers": {n: answer_record(game, results[n], i) for n in names}})
    for s in summaries:
        s.disagreements = charged.get(s.backend, 0)
    return records

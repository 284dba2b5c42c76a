"""The agreement run: every selected backend on every board, witnesses re-checked.

For each backend the boards are solved in chunks (on an executor for backends
whose registry entry says ``parallel``: a local process pool by default, or any
``concurrent.futures`` executor, e.g. a Dask cluster's through
:func:`open_executor`), every witness is re-applied
by the board model (:mod:`flipgame.verify.checks.witness`), and then the answers are compared
board by board.  Two answers agree when both are ``Impossible`` or both give
the same minimum number of presses; press sets are not compared, since a board
may have several minimum-weight solutions.  UNKNOWN (time-out) and ERROR
answers agree with nothing and disagree with nothing: they are counted
separately and make the run incomplete, never successful by default.

The run is a sequence of steps over the answers: :func:`solve_all` (solve,
or read from the checkpoint), then the witness check, the Impossible
certificates and the comparison; a further check (e.g. certification of
minimality) is one more step over ``results`` in :func:`run_agreement`.

The run is split along its seams: :mod:`flipgame.verify.run.executors` (pools,
Dask, workers that die with their parent), :mod:`flipgame.verify.run.agreement`
(the checks after solving) and :mod:`flipgame.verify.run.report` (the table and
the JSON); their public names stay importable from here.  Only the driver
writes the checkpoint.

Source: differential testing as in the yinyang SMT-solver fuzzer
(``SolverResult.equals``, ``report_diff``): keep every mismatch replayable.
"""


from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor

import numpy as np

from flipgame import BACKENDS, get_backend
from flipgame.backends.result import BatchSolution
from flipgame.core.errors import RulesError
from flipgame.core.limits import EXHAUSTIVE_MAX_CELLS, JOBS_MAX
from flipgame.gate.session import state_rows
from flipgame.model.system import PressSystem
from flipgame.verify.run.agreement import (
    CHECKS,
    IMPOSSIBLE_KEY,
    NO_ANSWER_KEY,
    _certificate_failures,
    _checks,
    _compare,
    _summarise,
    _uncertified,
    _witness_failures,
)
from flipgame.verify.run.answers import Answers
from flipgame.verify.run.checkpoint import Checkpoint, run_header
from flipgame.verify.run.executors import (
    DASK_SCHEMES,
    SCHEDULER_TIMEOUT,
    ExecutorLost,
    _ignore_sigint,
    _pack,
    _pool_worker_init,
    _run_on,
    _solve_chunk,
    close_sessions,
    dask_setup,
    die_with_parent,
    kill_pool,
    live_workers,
    local_pool,
    open_executor,
)
from flipgame.verify.run.report import AgreementReport, BackendSummary, answer_record, board_record

__all__ = [
    "BATCH_CHUNK_SIZE", "CHECKS", "CHUNK_SIZE", "DASK_SCHEMES", "EXHAUSTIVE_MAX_CELLS", "IMPOSSIBLE_KEY",
    "NO_ANSWER_KEY", "SCHEDULER_TIMEOUT", "AgreementReport", "BackendSummary", "ExecutorLost", "_certificate_failures",
    "_compare", "_ignore_sigint", "_pack", "_pool_worker_init", "_solve_chunk", "_summarise", "_uncertified",
    "_witness_failures", "answer_record", "as_boards", "board_record", "chunk_sizes", "dask_setup", "die_with_parent",
    "kill_pool", "live_workers", "local_pool", "open_executor", "run_agreement", "solve_all",
]


CHUNK_SIZE = 2048
"""Boards per unit of work for per-board (``parallel``) backends."""


BATCH_CHUNK_SIZE = 1 << 20
"""Boards per unit of work for vectorised backends (gauss, bfs): 2**20 boards, about 20 MiB per answer array."""


def as_boards(game: PressSystem, boards: np.ndarray | Sequence[int] | None) -> np.ndarray:
    """The run's boards: on two states uint64 for at most 64 cells, else an object array of Python ints;
    beyond, rows of states (uint8, shape (b, n); every board of ``k**n`` when ``boards`` is None).

    Raises
    ------
    RulesError
        A board that does not fit ``game``, too many boards to enumerate, or counters (no finite board set).
    """
    if not game.binary:
        return state_boards(game, boards)
    if boards is None:
        if game.n > EXHAUSTIVE_MAX_CELLS:
            raise RulesError(f"{game.size} has 2**{game.n} boards; pass a sample of boards")
        return np.arange(1 << game.n, dtype=np.uint64)
    if game.n > 64:
        out = np.array([int(b) for b in boards] or [], dtype=object)
        bad = [b for b in out if not 0 <= b <= game.full]
    else:
        out = np.asarray(boards, dtype=np.uint64)
        bad = [int(out.max())] if len(out) and int(out.max()) > game.full else []
    if bad:
        raise RulesError(f"board {bad[0]} does not fit {game.size}")
    return out


def state_boards(game: PressSystem, boards) -> np.ndarray:
    """The boards of a k-state system as uint8 rows shape (b, n): ``boards`` checked, or all ``k**n`` of them
    (at most 2**:data:`~flipgame.core.limits.EXHAUSTIVE_MAX_CELLS`, digit i = cell i, cell 0 most significant)."""
    if game.states is None:
        raise RulesError("counters have no finite set of boards to check; give boards, or solve them one by one")
    if boards is not None:
        return state_rows(boards, game).astype(np.uint8)
    total = game.states ** game.n
    if total > 1 << EXHAUSTIVE_MAX_CELLS:
        raise RulesError(f"{game.states}^{game.n} = {total:,} boards; pass a sample of boards")
    powers = game.states ** np.arange(game.n - 1, -1, -1, dtype=np.int64)
    idx = np.arange(total, dtype=np.int64)
    return ((idx[:, None] // powers[None, :]) % game.states).astype(np.uint8)


def chunk_sizes(names: Sequence[str], chunk_size: int | None, boards: int) -> dict[str, int]:
    """Boards per unit of work for each backend: ``chunk_size`` for all, or by default
    :data:`BATCH_CHUNK_SIZE` for vectorised backends and, for per-board ones, :data:`CHUNK_SIZE`
    or less so that ``boards`` make at least 64 chunks (at least 16 boards each) for the workers."""
    if chunk_size is not None:
        return dict.fromkeys(names, chunk_size)
    per_board = max(16, min(CHUNK_SIZE, -(-boards // 64)))
    return {n: per_board if get_backend(n).parallel else BATCH_CHUNK_SIZE for n in names}


def run_agreement(
    game: PressSystem,
    backends: Sequence[str] | None = None,
    boards: np.ndarray | Sequence[int] | None = None,
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    options: dict[str, dict] | None = None,
    chunk_size: int | None = None,
    progress: Callable[[str, int], None] | None = None,
    on_backend_done: Callable[[BackendSummary], None] | None = None,
    checkpoint: str | None = None,
    on_resume: Callable[[int, int, str], None] | None = None,
    compare_presses: bool = False,
    certify: bool = False,
    on_certify: Callable[[int, int], None] | None = None,
    scheduler_timeout: float = SCHEDULER_TIMEOUT,
) -> AgreementReport:
    """Run every backend on every board, check every witness, compare every answer.

    Parameters
    ----------
    game : Game
    backends : sequence of str, optional
        Registry names; default every registered backend.
    boards : ndarray, shape (k,), optional
        uint64 bitmasks for at most 64 cells; Python ints (any array or
        sequence) above, solved board by board through :func:`flipgame.solve`.
        Default: all ``2**n`` boards (n <= 30).
    jobs : int
        Worker processes of the default local pool for backends marked
        ``parallel`` (1 = in this process); ignored when ``executor`` is given.
    executor : concurrent.futures.Executor, optional
        Where the chunks of ``parallel`` backends run instead (e.g. a Dask
        cluster's, from :func:`open_executor`); not shut down here.  Its
        futures must be ``concurrent.futures.Future`` s.
    options : dict
        Per-backend options, e.g. ``{"cpsat": {"time_limit": 5.0}}``.
    chunk_size : int, optional
        Boards per unit of work (and per progress update and checkpoint line);
        default :func:`chunk_sizes` (up to 2048 per-board, 2**20 vectorised).
    progress : callable(backend, boards_done, resumed=False), optional
        Called with the number of boards of each finished chunk, and once per
        backend with the boards read from the checkpoint (``resumed=True``).
    on_backend_done : callable(BackendSummary), optional
        Called when a backend has finished every board (before comparison).
    checkpoint : str, optional
        JSON-lines file of finished chunks (:mod:`flipgame.verify.run.checkpoint`): chunks
        already in it are not solved again, new ones are appended as they
        finish, so an interrupted run resumes where it stopped.
    on_resume : callable(chunks_found, chunks_total, path), optional
        Called once, before solving, when the checkpoint already holds chunks of this run.
    compare_presses : bool
        Also require equal press sets (for canonical witnesses, e.g. POJ 3279).
    certify : bool
        Also prove every answer (:func:`flipgame.verify.proofs.certify_run.certify_run`): each minimum
        by a DRUP proof checked by dratify, each Impossible by its parity certificate.
    on_certify : callable(done, total), optional
        Progress of the certification.
    scheduler_timeout : float
        Seconds with no live worker (or no scheduler) of ``executor`` after which solving stops,
        as after Ctrl-C, with ``stopped`` saying why.

    Returns
    -------
    AgreementReport
        On KeyboardInterrupt, the report of the backends finished so far,
        with ``completed=False``.  The same on any executor, apart from wall times.

    Raises
    ------
    UnknownBackendError, RulesError (boards that do not fit), CheckpointError (a checkpoint of another run).

    Running time: the sum of the backends' times; comparison is O(k * backends).
    """
    names = list(backends or BACKENDS)
    for name in names:
        get_backend(name)
    options = options or {}
    boards = as_boards(game, boards)
    start = time.perf_counter()
    sizes = chunk_sizes(names, chunk_size, len(boards))
    store = None
    if checkpoint:
        store = Checkpoint(checkpoint, run_header(game, names, options, sizes, boards), game)
    try:
        results, summaries, stopped, found, total = solve_all(
            game, names, boards, sizes, options, jobs=jobs, executor=executor, store=store, progress=progress,
            on_backend_done=on_backend_done, on_resume=(lambda f, t: on_resume(f, t, checkpoint)) if on_resume
            else None, scheduler_timeout=scheduler_timeout)
    finally:
        if store is not None:
            store.close()

    checks, unchecked = _checks(game, boards, results, summaries, compare_presses, certify and not stopped,
                                on_certify)
    return AgreementReport(game, len(boards), summaries, checks["disagreements"], checks["witness_failures"],
                           time.perf_counter() - start, not stopped and not unchecked, found, total,
                           checks["certification"], stopped or ("interrupted" if unchecked else None), unchecked,
                           checks["notes"])


def solve_all(game: PressSystem, names: Sequence[str], boards: np.ndarray, sizes: dict[str, int], options: dict,
              *, jobs: int = 1, executor: Executor | None = None, store=None, progress=None,
              on_backend_done=None, on_resume=None, scheduler_timeout: float = SCHEDULER_TIMEOUT
              ) -> tuple[dict[str, Answers], list[BackendSummary], str | None, int, int]:
    """Every backend's answers on ``boards``, chunk by chunk: read from ``store`` or solved.

    Returns ``(results, summaries, stopped, chunks from the checkpoint, chunks in all)``;
    ``stopped`` says why solving stopped early (``"interrupted"`` after Ctrl-C, or the
    executor's fault), None when every backend finished; results then hold the backends that
    finished, and the checkpoint every chunk that did.
    """
    chunks = {n: [boards[i:i + sizes[n]] for i in range(0, len(boards), sizes[n])] for n in names}
    parts = {n: [store.get(n, i, c) if store is not None else None for i, c in enumerate(chunks[n])] for n in names}
    found = sum(p is not None for n in names for p in parts[n])
    total = sum(len(chunks[n]) for n in names)
    if found and on_resume:
        on_resume(found, total)
    results: dict[str, Answers] = {}
    summaries: list[BackendSummary] = []
    run = _Run(game, jobs, executor, store, progress, scheduler_timeout)
    stopped = None
    try:
        for name in names:
            summary, results[name] = run.backend(name, chunks[name], parts[name], options.get(name, {}), boards)
            parts[name] = []  # the concatenation holds the answers now
            summaries.append(summary)
            if on_backend_done:
                on_backend_done(summary)
    except KeyboardInterrupt:
        stopped = "interrupted"
    except ExecutorLost as exc:
        stopped = str(exc)
    finally:
        run.close(killed=stopped is not None)
    return results, summaries, stopped, found, total


class _Run:
    """The solving of one run, backend by backend: where each backend's chunks go, and the local
    pool (started on first use, killed on Ctrl-C or an executor fault)."""

    def __init__(self, game: PressSystem, jobs: int, executor: Executor | None, store, progress, timeout: float):
        self.game, self.jobs, self.executor, self.store, self.progress = game, jobs, executor, store, progress
        self.timeout = timeout
        self.pool = None

    def backend(self, name: str, chunks: list[np.ndarray], got: list, opts: dict, boards: np.ndarray
                ) -> tuple[BackendSummary, Answers]:
        """Solve the chunks of ``name`` missing from ``got`` (the checkpoint's, emptied as they are kept); its
        summary and answers."""
        t0 = time.perf_counter()
        answers = Answers(name, boards, len(chunks[0]) if chunks else 1)
        todo = [i for i, p in enumerate(got) if p is None]
        resumed = sum(len(chunks[i]) for i, p in enumerate(got) if p is not None)
        for i, p in enumerate(got):
            if p is not None:
                answers.add(i, p)
                got[i] = True
        if self.progress:
            self.progress(name, resumed, resumed=True) if resumed else self.progress(name, 0)

        def finish(i: int, batch: BatchSolution) -> None:
            answers.add(i, batch)
            got[i] = True
            if self.store is not None:
                self.store.add(i, batch)
            if self.progress:
                self.progress(name, len(chunks[i]))

        ex = self._executor(name, len(todo))
        if ex is not None:
            _run_on(ex, name, self.game, chunks, todo, opts, finish, window=4 * max(self.jobs, 8),
                    timeout=self.timeout)
        else:
            for i in todo:
                finish(i, _solve_chunk(name, self.game, chunks[i], opts))
        summary = _summarise(self.game, name, answers, time.perf_counter() - t0)
        summary.resumed = resumed
        return summary, answers

    def _executor(self, name: str, todo: int) -> Executor | None:
        """Where the chunks of ``name`` run: None (this process) unless the backend is ``parallel``."""
        if not get_backend(name).parallel or not todo:
            return None
        if self.executor is not None:
            return self.executor
        if self.jobs <= 1 or todo <= 1:
            return None
        if self.pool is None:
            self.pool = local_pool(min(self.jobs, todo, JOBS_MAX))
        return self.pool

    def close(self, killed: bool) -> None:
        close_sessions()
        if self.pool is not None and not killed:
            self.pool.shutdown(wait=True)
        elif self.pool is not None:
            kill_pool(self.pool)

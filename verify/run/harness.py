"""The agreement run: every selected backend on every board of a board set, through the one pipeline.

For each backend the boards go through :class:`~flipgame.pipeline.chunks.BackendRun`: in chunks of the
one batching policy (:func:`~flipgame.pipeline.batching.chunk_size`), in this process or on an executor
(a local pool by default, or a Dask cluster's through :func:`~flipgame.pipeline.executors.open_executor`),
taken from the checkpoint where it holds them, every chunk checked by the referee as it arrives.  Then
:mod:`flipgame.verify.run.agreement` compares the answers board by board under the one agreement policy
(:mod:`flipgame.pipeline.decide`) and, with ``certify``, proves them; :mod:`flipgame.verify.run.report`
keeps everything replayable.  UNKNOWN (time-out) and ERROR answers agree with nothing and disagree with
nothing: they are counted separately and make the run incomplete, never successful by default.

Only the driver writes the checkpoint.  Source: differential testing as in the yinyang SMT-solver fuzzer
(``SolverResult.equals``, ``report_diff``): keep every mismatch replayable.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor

import numpy as np

from flipgame.backends.registry import BACKENDS, get_backend
from flipgame.core.limits import SCHEDULER_TIMEOUT
from flipgame.model.boards import BoardSet
from flipgame.model.system import PressSystem
from flipgame.pipeline import batching
from flipgame.pipeline.answers import Answers
from flipgame.pipeline.checkpoint import Checkpoint, run_header
from flipgame.pipeline.chunks import BackendRun, Pool
from flipgame.pipeline.executors import ExecutorLost
from flipgame.verify.run.agreement import checks, summarise
from flipgame.verify.run.report import AgreementReport, BackendSummary

__all__ = ["AgreementReport", "BackendSummary", "run_agreement", "solve_all"]


def run_agreement(
    game: PressSystem,
    backends: Sequence[str] | None = None,
    boards: BoardSet | np.ndarray | Sequence[int] | None = None,
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
    """Run every backend on every board, check every answer, compare every answer.

    Parameters
    ----------
    game : PressSystem
    backends : sequence of str, optional
        Registry names (strategies included); default every registered backend.
    boards : BoardSet, or array_like, optional
        The boards (checked once here unless already a :class:`~flipgame.model.boards.BoardSet` of ``game``);
        default every board (:meth:`BoardSet.every <flipgame.model.boards.BoardSet.every>`).
    jobs : int
        Worker processes of the default local pool for backends marked ``parallel`` (1 = in this process);
        ignored when ``executor`` is given.
    executor : concurrent.futures.Executor, optional
        Where the chunks of ``parallel`` backends run instead (e.g. a Dask cluster's, from
        :func:`~flipgame.pipeline.executors.open_executor`); not shut down here.
    options : dict
        Per-backend options, e.g. ``{"cpsat": {"time_limit": 5.0}}``.
    chunk_size : int, optional
        Boards per unit of work (and per progress update and checkpoint line); default
        :func:`~flipgame.pipeline.batching.chunk_size`.
    progress : callable(backend, boards_done, resumed=False), optional
        Called with the number of boards of each finished chunk, and once per backend with the boards read
        from the checkpoint (``resumed=True``).
    on_backend_done : callable(BackendSummary), optional
        Called when a backend has finished every board (before comparison).
    checkpoint : str, optional
        JSON-lines file of finished chunks (:mod:`flipgame.pipeline.checkpoint`): chunks already in it are not
        solved again, new ones are appended as they finish.
    on_resume : callable(chunks_found, chunks_total, path), optional
        Called once, before solving, when the checkpoint already holds chunks of this run.
    compare_presses : bool
        Also require equal press sets (for canonical witnesses, e.g. POJ 3279).
    certify : bool
        Also prove every answer (:func:`flipgame.verify.proofs.certify_run.certify_run`).
    on_certify : callable(done, total), optional
    scheduler_timeout : float
        Seconds with no live worker (or no scheduler) of ``executor`` after which solving stops, as after
        Ctrl-C, with ``stopped`` saying why.

    Returns
    -------
    AgreementReport
        On KeyboardInterrupt, the report of what finished (the interrupted backend's finished chunks
        included), with ``completed=False`` and ``done`` counting the boards answered.

    Raises
    ------
    UnknownBackendError, RulesError (boards that do not fit), CheckpointError (a checkpoint of another run).

    Running time: the sum of the backends' times; comparison is O(k * backends).
    """
    names = list(backends or BACKENDS)
    chosen = {name: get_backend(name) for name in names}
    options = options or {}
    board_set = BoardSet.every(game) if boards is None else BoardSet.of(game, boards)
    start = time.perf_counter()
    sizes = {n: batching.chunk_size(chosen[n], len(board_set), chunk_size) for n in names}
    store = None
    if checkpoint:
        store = Checkpoint(checkpoint, run_header(game, names, options, sizes, board_set.boards), game)
    try:
        results, summaries, stopped, found, total = solve_all(
            board_set, chosen, sizes, options, jobs=jobs, executor=executor, store=store, progress=progress,
            on_backend_done=on_backend_done, on_resume=(lambda f, t: on_resume(f, t, checkpoint)) if on_resume
            else None, scheduler_timeout=scheduler_timeout)
    finally:
        if store is not None:
            store.close()
    found_checks, unchecked = checks(game, board_set.boards, results, summaries, compare_presses,
                                     certify and not stopped, on_certify)
    return AgreementReport(game, len(board_set), summaries, found_checks["disagreements"],
                           found_checks["witness_failures"], time.perf_counter() - start,
                           not stopped and not unchecked, found, total, found_checks["certification"],
                           stopped or ("interrupted" if unchecked else None), unchecked, found_checks["notes"])


def solve_all(boards: BoardSet, backends: dict, sizes: dict[str, int], options: dict, *, jobs: int = 1,
              executor: Executor | None = None, store=None, progress=None, on_backend_done=None, on_resume=None,
              scheduler_timeout: float = SCHEDULER_TIMEOUT
              ) -> tuple[dict[str, Answers], list[BackendSummary], str | None, int, int]:
    """Every backend's checked answers on ``boards``, backend by backend.

    Returns ``(results, summaries, stopped, chunks from the checkpoint, chunks in all)``; ``stopped`` says why
    solving stopped early (``"interrupted"`` after Ctrl-C, or the executor's fault), None when every backend
    finished; results and summaries then hold what finished, the interrupted backend's finished chunks
    included (its summary counts the boards it answered).
    """
    runs = {n: BackendRun(b, boards, sizes[n], options.get(n, {}), store, progress) for n, b in backends.items()}
    found = sum(1 for r in runs.values() for i in range(len(r.chunks))
                if store is not None and (r.backend.name, i) in store.records)
    total = sum(len(r.chunks) for r in runs.values())
    if found and on_resume:
        on_resume(found, total)
    results: dict[str, Answers] = {}
    summaries: list[BackendSummary] = []
    pool = Pool(jobs, executor)
    stopped = None
    try:
        for name, run in runs.items():
            results[name] = run.answers
            run.run(pool, timeout=scheduler_timeout)
            summaries.append(summarise(name, run))
            if on_backend_done:
                on_backend_done(summaries[-1])
    except KeyboardInterrupt:
        stopped = "interrupted"
    except ExecutorLost as exc:
        stopped = str(exc)
    finally:
        pool.close(killed=stopped is not None)
    if stopped is not None and len(summaries) < len(results):  # the backend that was running: what it finished
        name = list(results)[len(summaries)]
        summaries.append(summarise(name, runs[name]))
    return results, summaries, stopped, found, total

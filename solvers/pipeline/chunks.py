"""One backend over a :class:`~flipgame.model.boards.BoardSet`, in chunks: solved where they belong, taken
from the checkpoint where they are there, every chunk checked by the referee as it arrives.

The unit of work is :func:`solve_chunk` (one backend on one chunk, through this thread's open
:class:`~flipgame.pipeline.session.Session`; a backend fault becomes ERROR answers, never an exception),
run in this process or on an executor (:mod:`flipgame.pipeline.executors`).  :class:`BackendRun` takes the
finished chunks of one backend from the checkpoint (:mod:`flipgame.pipeline.checkpoint`), solves the rest,
runs the referee (:func:`~flipgame.verify.checks.referee.referee_batch`) on each chunk in this process,
whichever way it came, and keeps the answers (:class:`~flipgame.pipeline.answers.Answers`).  Chunks are sent
to workers with their backend (a picklable :class:`~flipgame.backends.base.Backend`, a strategy's included),
so a worker needs no registration of its own.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor

from flipgame.backends.base import Backend
from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.limits import JOBS_MAX, SCHEDULER_TIMEOUT
from flipgame.core.workers import kill_pool, local_pool
from flipgame.model.boards import BoardSet
from flipgame.pipeline.answers import Answers
from flipgame.pipeline.executors import run_on
from flipgame.pipeline.gate import solve_one
from flipgame.pipeline.session import Session
from flipgame.verify.checks.referee import CheckedBatch, referee_batch

_OPEN = threading.local()
"""This thread's open sessions, one per backend and options (``_OPEN.sessions``): a worker keeps each model
backend's models (one per system) from one chunk to the next instead of building them per chunk."""


def _session(backend: Backend, options: dict, drop: bool = False) -> Session | None:
    """The open :class:`Session` of this thread for ``backend`` with ``options`` (made on first use); with
    ``drop``, close it and forget it instead (None)."""
    sessions = _OPEN.__dict__.setdefault("sessions", {})
    key = (backend.name, repr(sorted(options.items())))
    if drop:
        old = sessions.pop(key, None)
        if old is not None:
            old.close()
        return None
    if key not in sessions:
        sessions[key] = Session(backend, **options)
    return sessions[key]


def close_sessions() -> None:
    """Close the open sessions of this thread (their solvers' native memory is freed); run at a run's end by
    the driver, whose thread solves the chunks of vectorised backends and of ``--jobs 1``."""
    for session in _OPEN.__dict__.pop("sessions", {}).values():
        session.close()


def solve_chunk(backend: Backend, boards: BoardSet, options: dict, check: bool = True) -> CheckedBatch:
    """One chunk on this thread's open session for ``backend`` and ``options``: one batch where the boards
    allow it, else board by board (boards of more than 64 cells; a chunk whose batch failed, its session
    closed, each failure then an ERROR of its own).  Never raises: the run goes on.  With ``check`` False
    (a worker's chunk) the referee is left to the driver."""
    start = time.perf_counter()
    game = boards.system
    if boards.boards.dtype != object:
        try:
            return _session(backend, options).solve_batch_checked(boards, game, check=check, contain=False)
        except Exception:  # noqa: BLE001 - a backend fault must not stop the run
            _session(backend, options, drop=True)
    solutions = [_one(backend, game, boards[i], options) for i in range(len(boards))]
    batch = BatchSolution.from_solutions(backend.name, boards.boards, solutions, time.perf_counter() - start, game.m)
    return CheckedBatch(batch, referee_batch(game, batch) if check else None)


def _one(backend: Backend, game, board, options: dict) -> Solution:
    """One board through the gate, a fault an ERROR naming the board."""
    try:
        session = _session(backend, options)
        s = solve_one(backend, game, session.prepare(game), board, session.options).solution
    except Exception as exc:  # noqa: BLE001 - a backend fault must not stop the run
        return Solution(backend.name, Status.ERROR, stats={"error": f"board {board}: {type(exc).__name__}: {exc}"})
    if s.status is Status.ERROR and "error" in s.stats:  # the gate's contained fault: name the board
        s = dataclasses.replace(s, stats={**s.stats, "error": f"board {board}: {s.stats['error']}"})
    return s


class BackendRun:
    """The chunks of one backend over a board set: from the checkpoint, or solved here or on an executor;
    each checked by the referee as it arrives.

    Parameters
    ----------
    backend : Backend
    boards : BoardSet
    size : int
        Boards per chunk (:func:`flipgame.pipeline.batching.chunk_size`).
    options : dict
        The backend's options, already checked.
    store : Checkpoint, optional
        Finished chunks are read from it and new ones appended.
    progress : callable(backend name, boards done, resumed=False), optional
    """

    def __init__(self, backend: Backend, boards: BoardSet, size: int, options: dict, store=None,
                 progress: Callable | None = None):
        self.backend, self.boards, self.size, self.options = backend, boards, size, options
        self.store, self.progress = store, progress
        self.chunks = boards.chunks(size)
        self.answers = Answers(backend.name, boards.boards, size)
        self.resumed = 0
        self.seconds = 0.0

    def from_store(self) -> list[int]:
        """Take the chunks the checkpoint holds; the indices of those still to solve."""
        todo = []
        for i, chunk in enumerate(self.chunks):
            got = self.store.get(self.backend.name, i, chunk.boards) if self.store is not None else None
            if got is None:
                todo.append(i)
            else:
                self.answers.add(i, got, referee_batch(self.boards.system, got))
                self.resumed += len(chunk)
        if self.progress:
            self.progress(self.backend.name, self.resumed, resumed=True) if self.resumed else \
                self.progress(self.backend.name, 0)
        return todo

    def finish(self, i: int, got: CheckedBatch) -> None:
        """Keep chunk ``i`` with the referee's verdict (checked here if it came unchecked from a worker), and
        write it to the checkpoint."""
        verdict = got.verdict or referee_batch(self.boards.system, got.batch)
        self.answers.add(i, got.batch, verdict)
        if self.store is not None:
            self.store.add(i, got.batch, self.backend.name)
        if self.progress:
            self.progress(self.backend.name, len(self.chunks[i]))

    def run(self, pool: Pool, *, timeout: float = SCHEDULER_TIMEOUT) -> Answers:
        """Every chunk not in the checkpoint, where ``pool`` says.  Raises KeyboardInterrupt or
        :class:`~flipgame.pipeline.executors.ExecutorLost` with :attr:`answers` holding what finished."""
        start = time.perf_counter()
        try:
            todo = self.from_store()
            executor = pool.for_backend(self.backend, len(todo))
            if executor is None:
                for i in todo:
                    self.finish(i, solve_chunk(self.backend, self.chunks[i], self.options))
            else:
                tasks = [(self.backend, self.chunks[i], self.options, False) for i in todo]
                run_on(executor, solve_chunk, tasks, lambda k, got: self.finish(todo[k], got), pool.window, timeout)
        finally:
            self.seconds = time.perf_counter() - start
        return self.answers


class Pool:
    """The local pool of a run, started on first use and killed on Ctrl-C or an executor's fault: where a
    per-board backend's chunks go unless an executor (Dask) is given."""

    def __init__(self, jobs: int, executor: Executor | None = None):
        self.jobs, self.executor, self.pool = jobs, executor, None
        self.window = 4 * max(jobs, 8)
        """Chunks kept submitted at once."""

    def for_backend(self, backend: Backend, todo: int) -> Executor | None:
        """Where the chunks of ``backend`` run: None (this process) unless the backend is ``parallel``."""
        if not backend.parallel or not todo:
            return None
        if self.executor is not None:
            return self.executor
        if self.jobs <= 1 or todo <= 1:
            return None
        if self.pool is None:
            self.pool = local_pool(min(self.jobs, todo, JOBS_MAX))
        return self.pool

    def close(self, killed: bool) -> None:
        """Close this thread's sessions; shut the pool down (kill its workers after Ctrl-C or a fault)."""
        close_sessions()
        if self.pool is not None and not killed:
            self.pool.shutdown(wait=True)
        elif self.pool is not None:
            kill_pool(self.pool)


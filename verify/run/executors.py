"""Where the chunks of an agreement run are solved: a local process pool or a Dask cluster.

One unit of work is :func:`_solve_chunk` (one backend on one chunk of boards; a backend
fault becomes ERROR answers, never an exception).  :func:`_run_on` keeps a window of
chunks on any ``concurrent.futures`` executor and turns its faults into one
:class:`ExecutorLost` (a lost scheduler, no live worker for ``--scheduler-timeout``, a
dead pool process).

Workers die with the driver: the local pool's initializer and the Dask LocalCluster's
worker preload (:func:`dask_setup`) set ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` and start
a thread that exits when the parent process is gone, so no worker outlives a killed
``verify``.  They start with SIGINT/SIGTERM blocked (so a Ctrl-C during their start-up is
no traceback; :func:`start_resource_tracker` keeps that mask from being undone) and then
ignore Ctrl-C: the driver handles it, and on Ctrl-C kills the pool's running chunks
(:func:`kill_pool`) instead of waiting for them, or closes the LocalCluster.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError, Executor, ProcessPoolExecutor
from multiprocessing import resource_tracker

import numpy as np

from flipgame import Session, solve
from flipgame.backends.result import NO_MOVES, BatchSolution, Solution, Status, board_at
from flipgame.backends.strategies import ensure_registered, portable
from flipgame.core.errors import FlipgameError
from flipgame.core.signals import interrupts_held, signals_blocked
from flipgame.core.workers import die_with_parent, kill_pool  # noqa: F401 - kill_pool re-exported
from flipgame.model.system import PressSystem

SCHEDULER_TIMEOUT = 60.0
"""Seconds a run waits with no live worker (or no scheduler) before it stops with what finished."""


EXECUTOR_POLL = 1.0
"""Seconds between checks of the executor's workers while no chunk finishes."""


DASK_CLOSE_TIMEOUT = 5
"""Seconds given to closing a Dask client or LocalCluster (a lost scheduler never answers)."""


DASK_SCHEMES = ("tcp",)
"""Scheduler address schemes taken by ``--scheduler`` (tls:// and ucx:// need a security or UCX set-up)."""


class ExecutorLost(Exception):
    """The executor can no longer run chunks: its scheduler is gone, no worker lived for
    :data:`SCHEDULER_TIMEOUT` seconds, or a worker process died.  The message says which."""


_OPEN = threading.local()
"""This thread's open sessions, one per backend and options (``_OPEN.sessions``): a worker keeps each model
backend's models (one per game) from one chunk to the next instead of building them per chunk."""


def _session(name: str, options: dict, drop: bool = False) -> Session | None:
    """The open :class:`~flipgame.Session` of this thread for ``name`` with ``options`` (made on first use);
    with ``drop``, close it and forget it instead (None).  Raises what :class:`~flipgame.Session` raises
    (UnknownBackendError, OptionError)."""
    sessions = _OPEN.__dict__.setdefault("sessions", {})
    key = (name, repr(sorted(options.items())))
    if drop:
        old = sessions.pop(key, None)
        if old is not None:
            old.close()
        return None
    if key not in sessions:
        sessions[key] = Session(name, **options)
    return sessions[key]


def close_sessions() -> None:
    """Close the open sessions of this thread (their solvers' native memory is freed); run at a run's end by
    the driver, whose thread solves the chunks of vectorised backends and of ``--jobs 1``."""
    for session in _OPEN.__dict__.pop("sessions", {}).values():
        session.close()


def _solve_chunk(name: str, game: PressSystem, boards: np.ndarray, options: dict,
                 strategy: tuple | None = None) -> BatchSolution:
    """Solve one chunk on this thread's open session for ``name`` and ``options``; an exception becomes
    ERROR answers for the chunk, and the run goes on.

    Boards of more than 64 cells (an object array of Python ints) are solved
    board by board through the gate's :func:`flipgame.solve`.  ``strategy``: a strategy registered at
    run time (:func:`flipgame.backends.strategies.portable`), registered in this worker first.
    A chunk that fails closes its session (its models may be half-changed), and is solved again
    board by board, each failure an ERROR of its own.
    """
    if strategy is not None:
        ensure_registered(strategy)
    start = time.perf_counter()
    if boards.dtype != object:
        try:
            return _session(name, options).solve_batch(boards, game)
        except Exception:  # noqa: BLE001 - a backend fault must not stop the run
            _session(name, options, drop=True)
    # Board by board (also isolates a fault: each failure an ERROR of its own).
    solutions = []
    for i in range(len(boards)):
        b = board_at(boards, i)
        try:
            solutions.append(solve(b, name, game=game, **options))
        except Exception as exc:  # noqa: BLE001
            solutions.append(Solution(name, Status.ERROR, stats={"error": f"board {b}: "
                                                                          f"{type(exc).__name__}: {exc}"}))
    return _pack(name, game, boards, solutions, time.perf_counter() - start)


def _pack(name: str, game: PressSystem, boards: np.ndarray, solutions: Sequence[Solution],
          seconds: float) -> BatchSolution:
    """:meth:`BatchSolution.from_solutions`, with object arrays for boards of more than 64 cells."""
    if boards.dtype != object:
        return BatchSolution.from_solutions(name, boards, solutions, seconds, game.m)
    k = len(boards)
    status = np.array([s.status for s in solutions], dtype=np.uint8).reshape(k)
    moves = np.array([s.moves if s.success else NO_MOVES for s in solutions], dtype=np.int32).reshape(k)
    presses = np.array([s.presses if s.success else 0 for s in solutions] or [], dtype=object)
    target = np.array([s.target if s.success else 0 for s in solutions] or [], dtype=object)
    errors = [s.stats.get("error", "no message") for s in solutions if s.status is Status.ERROR]
    return BatchSolution(name, boards, status, moves, presses, target, seconds,
                         {"errors": errors[:10]} if errors else {})


def _pool_worker_init(parent_pid: int) -> None:
    """Local pool initializer: Ctrl-C is handled by the parent (which writes what finished); die with it.

    The worker was started with SIGINT/SIGTERM blocked (:func:`_submit`), so a Ctrl-C during its
    start-up stays pending; it is ignored from here on (the pending one is dropped) and stays blocked in
    every thread: the watcher thread of :func:`die_with_parent` had it unblocked, so the kernel gave it
    the Ctrl-C while a ``sat`` chunk blocked it in the main thread, and CryptoMiniSat's handler, installed
    for the call, took it (``*** INTERRUPTED ***``, 1 Ctrl-C of 12)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)


def _ignore_sigint() -> None:
    """Worker initialiser kept for callers of the earlier API: Ctrl-C is handled by the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def dask_setup(worker) -> None:  # noqa: ARG001 - the Dask preload hook's signature
    """Dask worker preload (``LocalCluster(preload=["flipgame.verify.run.executors"])``): never take Ctrl-C, die
    with the driver.

    The worker process was spawned with SIGINT/SIGTERM blocked (:func:`open_executor`).  SIGINT is
    ignored and stays blocked for good: the threads Dask starts later to run chunks inherit that, so
    CryptoMiniSat's handler, installed while a chunk's ``sat`` call runs in such a thread, never takes a
    Ctrl-C (it printed ``*** INTERRUPTED ***``).  SIGTERM is unblocked: the nanny's terminate still works.
    The worker processes of a LocalCluster are children of the driver (the nannies run inside it), so
    their parent is the ``verify`` process.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    die_with_parent(os.getppid())


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, before any :func:`signals_blocked` start of workers.

    Its launch ends with ``pthread_sigmask(SIG_UNBLOCK, [SIGINT, SIGTERM])`` in the thread that
    launches it (CPython 3.11's ``resource_tracker.ensure_running``), whatever that thread's mask
    was.  Launched lazily by the first queue or process, inside a blocked start-up, it unblocked
    Ctrl-C in Dask's event-loop thread, so the worker processes spawned next took a Ctrl-C while
    importing (tracebacks in 7 of 10 interrupted start-ups).  Started here, later calls find it running.
    """
    resource_tracker.ensure_running()


def local_pool(jobs: int) -> ProcessPoolExecutor:
    """The default executor: ``jobs`` spawned worker processes that ignore Ctrl-C and die with this process."""
    start_resource_tracker()
    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_pool_worker_init, initargs=(os.getpid(),))


def _quiet_dask() -> None:
    """Dask's own loggers (its config sets levels per module, e.g. ``distributed.client``) print only
    critical faults: a lost scheduler is one line of flipgame's, not 60 lines of tracebacks."""
    import logging

    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)


@contextlib.contextmanager
def open_executor(scheduler: str | None, jobs: int) -> Iterator[tuple[Executor | None, str]]:
    """The executor of a run and its label, closed on exit.

    Parameters
    ----------
    scheduler : str or None
        None: a local process pool of ``jobs`` workers (started on first use
        by :func:`run_agreement`; yields ``None``).  ``local:N``: a Dask
        ``LocalCluster(n_workers=N, threads_per_worker=1, processes=True)``
        whose workers die with this process.  Anything else: the address of
        a running Dask scheduler (e.g. ``tcp://host:8786``), used through
        ``Client(address).get_executor()``; its workers are not ours and are
        left running.
    jobs : int

    Raises
    ------
    FlipgameError
        ``local:N`` with a bad N, Dask not installed, or a scheduler that cannot be reached.

    Dask is imported only here.
    """
    if scheduler is None:
        yield None, f"local pool of {jobs} worker{'s' if jobs != 1 else ''}"
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise FlipgameError("--scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
    _quiet_dask()
    cluster = None
    if scheduler.startswith("local:"):
        n = scheduler[len("local:"):]
        if not (n.isascii() and n.isdigit() and int(n) > 0):
            raise FlipgameError(f"--scheduler local:N needs a positive number of workers, got {scheduler!r}")
        start_resource_tracker()  # not inside the block: its launch unblocks Ctrl-C in the thread that does it
        with signals_blocked():  # Ctrl-C waits for the start-up (Dask's threads never take it), then ends the run
            cluster = LocalCluster(n_workers=int(n), threads_per_worker=1, processes=True, dashboard_address=None,
                                   preload=["flipgame.verify.run.executors"], silence_logs=40)
        label = f"dask LocalCluster of {n} worker{'s' if n != '1' else ''}"
        target = cluster
    else:
        label, target = f"dask scheduler {scheduler}", scheduler
        if "://" not in scheduler and ":" not in scheduler:
            raise FlipgameError(f"--scheduler {scheduler!r}: expected local:N or a scheduler address such as "
                                f"tcp://127.0.0.1:8786")
        scheme = scheduler.split("://", 1)[0] if "://" in scheduler else "tcp"
        if scheme not in DASK_SCHEMES:
            raise FlipgameError(f"--scheduler {scheduler}: the {scheme}:// scheme is not supported (tls:// and ucx:// "
                                f"need a security or UCX set-up); use tcp://HOST:PORT or local:N")
    try:
        try:
            client = Client(target, timeout="10s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise FlipgameError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
        try:
            n_workers = len(client.scheduler_info().get("workers", {}))
            yield client.get_executor(), f"{label} ({n_workers} workers)" if cluster is None else label
        finally:
            with contextlib.suppress(Exception):  # a lost scheduler was reported by the run  # noqa: BLE001
                client.close(timeout=DASK_CLOSE_TIMEOUT)
    finally:
        if cluster is not None:
            with contextlib.suppress(Exception):  # noqa: BLE001
                cluster.close(timeout=DASK_CLOSE_TIMEOUT)


def _run_on(ex: Executor, name: str, game: PressSystem, chunks: list[np.ndarray], todo: list[int], opts: dict,
            finish: Callable[[int, BatchSolution], None], window: int, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Submit the chunks ``todo`` to ``ex``, at most ``window`` at a time, and ``finish`` each as it completes.

    A finished future is put on a queue by its done callback (in the executor's thread), and this thread
    takes it from there: ``concurrent.futures.wait`` takes every pending future's lock in a Python loop,
    and a Ctrl-C raised between two of them left those locks held, so the pool's manager thread blocked on
    them for good, and the interpreter's exit (which joins it) with it (CI run 31).  Every other use of
    a future runs inside :class:`~flipgame.core.signals.interrupts_held`; the wait on the queue does not
    (it holds no Python lock), so a Ctrl-C still stops the run at once.

    Raises ExecutorLost when a chunk's future fails (``_solve_chunk`` itself never raises: the
    executor broke) or no worker has lived for ``timeout`` seconds."""
    waiting = iter(todo)
    pending = {}
    finished: queue.SimpleQueue = queue.SimpleQueue()
    idle_since = None

    def submit(i: int) -> None:
        fut = _submit(ex, name, game, chunks[i], opts)
        pending[fut] = i
        fut.add_done_callback(finished.put)

    try:
        with interrupts_held():
            for i in waiting:
                submit(i)
                if len(pending) >= window:
                    break
        while pending:
            try:
                fut = finished.get(timeout=EXECUTOR_POLL)
            except queue.Empty:
                idle_since = _check_workers(ex, idle_since, timeout)
                continue
            idle_since = None
            with interrupts_held():
                finish(pending.pop(fut), _chunk_result(fut, ex))
                nxt = next(waiting, None)
                if nxt is not None:
                    submit(nxt)
    finally:
        if not isinstance(ex, ProcessPoolExecutor):  # a local pool is killed by solve_all, which fails them
            with interrupts_held():  # (cancelled ones make Python 3.11's pool thread raise InvalidStateError)
                for fut in pending:
                    fut.cancel()


def _chunk_result(fut, ex: Executor) -> BatchSolution:
    try:
        return fut.result()
    except CancelledError:
        raise ExecutorLost("the Dask scheduler was lost (it cancelled the running chunks)") from None
    except Exception as exc:  # noqa: BLE001 - the executor's fault, named in one line
        where = "a Dask worker or the scheduler" if _dask_client(ex) is not None else "a worker process of the pool"
        raise ExecutorLost(f"{where} failed: {type(exc).__name__}: {str(exc)[:200] or 'no message'}") from None


def _dask_client(ex: Executor):
    """The Dask client behind ``client.get_executor()``, or None for other executors."""
    return getattr(ex, "_client", None)


def live_workers(ex: Executor) -> int | None:
    """Workers the executor's Dask scheduler knows now (0 when the scheduler is gone); None if not Dask."""
    client = _dask_client(ex)
    if client is None:
        return None
    if getattr(client, "status", "running") != "running":
        return 0
    try:
        return len(client.scheduler_info().get("workers", {}))
    except Exception:  # noqa: BLE001 - any failure to ask means no scheduler to ask
        return 0


def _check_workers(ex: Executor, idle_since: float | None, timeout: float) -> float | None:
    """When no worker lives: the time since then, ExecutorLost past ``timeout`` seconds; None while some do."""
    if live_workers(ex) != 0:
        return None
    now = time.monotonic()
    idle_since = now if idle_since is None else idle_since
    if now - idle_since >= timeout:
        raise ExecutorLost(f"no live Dask worker or scheduler for {timeout:g} s (--scheduler-timeout)")
    return idle_since


def _submit(ex: Executor, name: str, game: PressSystem, chunk: np.ndarray, opts: dict):
    """``ex.submit`` of one chunk with SIGINT/SIGTERM blocked: a local pool starts its worker processes
    inside ``submit``, and they inherit the mask, so a Ctrl-C during their start-up (before the
    initializer ignores it) is no traceback in them; here it is delivered after the call."""
    with signals_blocked():
        return ex.submit(_solve_chunk, name, game, chunk, opts, portable(name))

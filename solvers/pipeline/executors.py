"""Where the pipeline's chunks run: this process, the local process pool, or a Dask cluster.

:func:`open_executor` opens the executor of a run (``--scheduler``: ``local:N`` or a scheduler's
address; by default the local pool of :func:`flipgame.core.workers.local_pool`, started on first use).
:func:`run_on` keeps a window of tasks on any ``concurrent.futures`` executor and turns its faults
into one :class:`ExecutorLost` (a lost scheduler, no live worker for ``--scheduler-timeout``, a dead
pool process).

Workers die with the driver: the local pool's initializer and the Dask LocalCluster's worker preload
(:func:`dask_setup`) set ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` and start a thread that exits when the
parent process is gone.  They start with SIGINT/SIGTERM blocked (so a Ctrl-C during their start-up is
no traceback) and then ignore Ctrl-C: the driver handles it, and on Ctrl-C kills the pool's running
tasks (:func:`flipgame.core.workers.kill_pool`) instead of waiting for them, or closes the LocalCluster.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, Executor, ProcessPoolExecutor

from flipgame.core import extras
from flipgame.core.errors import FlipgameError
from flipgame.core.limits import DASK_CLOSE_TIMEOUT, JOBS_MAX, SCHEDULER_TIMEOUT
from flipgame.core.signals import interrupts_held, signals_blocked, worker_ignores_ctrl_c
from flipgame.core.workers import die_with_parent, start_resource_tracker

EXECUTOR_POLL = 1.0
"""Seconds between checks of the executor's workers while no chunk finishes."""


DASK_SCHEMES = ("tcp",)
"""Scheduler address schemes taken by ``--scheduler`` (tls:// and ucx:// need a security or UCX set-up)."""


class ExecutorLost(Exception):
    """The executor can no longer run chunks: its scheduler is gone, no worker lived for
    :data:`SCHEDULER_TIMEOUT` seconds, or a worker process died.  The message says which."""


def dask_setup(worker) -> None:  # noqa: ARG001 - the Dask preload hook's signature
    """Dask worker preload (``LocalCluster(preload=["flipgame.pipeline.executors"])``): never take Ctrl-C, die
    with the driver.

    The worker process was spawned with SIGINT/SIGTERM blocked (:func:`open_executor`).  SIGINT is
    ignored and stays blocked for good: the threads Dask starts later to run chunks inherit that, so
    CryptoMiniSat's handler, installed while a chunk's ``sat`` call runs in such a thread, never takes a
    Ctrl-C (it printed ``*** INTERRUPTED ***``).  SIGTERM is unblocked: the nanny's terminate still works.
    The worker processes of a LocalCluster are children of the driver (the nannies run inside it), so
    their parent is the ``verify`` process.
    """
    worker_ignores_ctrl_c(every_thread=True)
    die_with_parent(os.getppid())


def _quiet_dask() -> None:
    """Dask's own loggers (its config sets levels per module, e.g. ``distributed.client``) and its event
    loop's (tornado) print only critical faults: a lost scheduler is one line of flipgame's, not 60 lines of
    tracebacks."""
    import logging
    import warnings

    # The LocalCluster's scheduler serves /health over HTTP even without a dashboard, trying port 8787 first:
    # with another cluster there, Dask warned on stderr beside flipgame's one line before taking a free port.
    warnings.filterwarnings("ignore", message=r"Port \d+ is already in use", category=UserWarning)
    for name in ["distributed", "tornado", *logging.root.manager.loggerDict]:
        if name.split(".")[0] in ("distributed", "tornado"):  # tornado: Dask's event loop, e.g. a future
            logging.getLogger(name).setLevel(logging.CRITICAL)  # cancelled as the cluster closes on Ctrl-C


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
    if not extras.installed("distributed"):
        raise FlipgameError(extras.missing("distributed", "--scheduler"))
    from distributed import Client
    _quiet_dask()
    cluster = _local_cluster(scheduler) if scheduler.startswith("local:") else None
    if cluster is None:
        _check_address(scheduler)
        label, target = f"dask scheduler {scheduler}", scheduler
    else:
        n = len(cluster.workers)
        label, target = f"dask LocalCluster of {n} worker{'s' if n != 1 else ''}", cluster
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
    except BaseException:
        if cluster is not None:  # a Ctrl-C or a failed run: the chunks in flight are not waited for
            _kill_workers(cluster)
        raise
    finally:
        if cluster is not None:
            with contextlib.suppress(Exception):  # noqa: BLE001
                cluster.close(timeout=DASK_CLOSE_TIMEOUT)


def _local_cluster(scheduler: str):
    """The Dask LocalCluster of ``local:N`` (FlipgameError for a bad N), its workers started with Ctrl-C
    blocked and preloaded with :func:`dask_setup`."""
    from distributed import LocalCluster

    n = scheduler[len("local:"):]
    if not (n.isascii() and n.isdigit() and 0 < int(n) <= JOBS_MAX):
        raise FlipgameError(f"--scheduler local:N needs 1..{JOBS_MAX} workers (four per core), got {scheduler!r}")
    start_resource_tracker()  # not inside the block: its launch unblocks Ctrl-C in the thread that does it
    with signals_blocked():  # Ctrl-C waits for the start-up (Dask's threads never take it), then ends the run
        return LocalCluster(n_workers=int(n), threads_per_worker=1, processes=True, dashboard_address=None,
                            preload=["flipgame.pipeline.executors"], silence_logs=40)


def _check_address(scheduler: str) -> None:
    """FlipgameError unless ``scheduler`` looks like a Dask scheduler address of a supported scheme."""
    if "://" not in scheduler and ":" not in scheduler:
        raise FlipgameError(f"--scheduler {scheduler!r}: expected local:N or a scheduler address such as "
                            f"tcp://127.0.0.1:8786")
    scheme = scheduler.split("://", 1)[0] if "://" in scheduler else "tcp"
    if scheme not in DASK_SCHEMES:
        raise FlipgameError(f"--scheduler {scheduler}: the {scheme}:// scheme is not supported (tls:// and ucx:// "
                            f"need a security or UCX set-up); use tcp://HOST:PORT or local:N")


def _kill_workers(cluster) -> None:
    """SIGKILL the worker processes of our LocalCluster (their nannies told not to restart them), so that
    closing it does not wait for the chunks they run: a chunk is idempotent and its manifest line is written
    only when it is done.  The close after a Ctrl-C took 4 s.  Source: ``distributed.nanny.Nanny``
    (``close_gracefully``, ``pid``)."""
    for nanny in list(getattr(cluster, "workers", {}).values()):
        with contextlib.suppress(Exception):  # noqa: BLE001 - a nanny already gone
            nanny.close_gracefully()  # its status now says: do not restart the worker when it dies
        pid = getattr(nanny, "pid", None)
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def run_on(ex: Executor, fn: Callable, tasks: list[tuple], finish: Callable[[int, object], None], window: int,
           timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Submit ``fn(*tasks[i])`` for every task to ``ex``, at most ``window`` at a time, and ``finish(i, value)``
    each as it completes (in this thread).

    A finished future is put on a queue by its done callback (in the executor's thread), and this thread
    takes it from there: ``concurrent.futures.wait`` takes every pending future's lock in a Python loop,
    and a Ctrl-C raised between two of them would leave those locks held, so the pool's manager thread
    would block on them for good.  Every other use of a future runs inside
    :class:`~flipgame.core.signals.interrupts_held`; the wait on the queue does not (it holds no Python
    lock), so a Ctrl-C still stops the run at once.

    Raises ExecutorLost when a task's future fails (``fn`` itself must not raise: the executor broke) or no
    worker has lived for ``timeout`` seconds."""
    waiting = iter(range(len(tasks)))
    pending = {}
    finished: queue.SimpleQueue = queue.SimpleQueue()
    idle_since = None

    def submit(i: int) -> None:
        with signals_blocked():  # a pool starts its workers inside submit: they inherit the mask
            fut = ex.submit(fn, *tasks[i])
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
                finish(pending.pop(fut), _task_result(fut, ex))
                nxt = next(waiting, None)
                if nxt is not None:
                    submit(nxt)
    finally:
        if not isinstance(ex, ProcessPoolExecutor):  # a local pool is killed by its owner, which fails them
            with interrupts_held():  # (cancelled ones make Python 3.11's pool thread raise InvalidStateError)
                for fut in pending:
                    fut.cancel()


def _task_result(fut, ex: Executor):
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

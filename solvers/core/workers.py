"""Worker processes: a Python function in a bounded, measured child, and pools that die with their parent.

:func:`run_function` runs a Python function as :func:`~flipgame.core.processes.run_bounded` runs a
program, in a fresh interpreter, for in-process work that must be killable (the certifier's proof
child, a study's measured run).  :func:`local_pool` is the one process pool (the pipeline's chunks, a
certification run's proofs): its workers ignore Ctrl-C, which the parent handles, and die with their
parent through :func:`die_with_parent`; :func:`kill_pool` stops one at once.

Standard library only: the certificate checker imports this module and no solver.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import resource_tracker

from flipgame.core.limits import KILL_GRACE_SECONDS
from flipgame.core.process_tree import libc as process_libc
from flipgame.core.processes import RunResult, run_bounded
from flipgame.core.signals import signals_blocked, worker_ignores_ctrl_c

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal the kernel sends a process when its parent exits (Linux)."""

@dataclass(frozen=True)
class FunctionResult:
    """:func:`run_function`'s outcome: the run (measured), and the function's value or why there is none."""

    run: RunResult
    value: object = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


_FUNCTION_CHILD = "from flipgame.core.workers import _function_child; _function_child()"


def run_function(target: str, args: tuple, time_limit: float, *, memory_limit: int | None = None) -> FunctionResult:
    """``module:function(*args)`` in a fresh Python, bounded and measured as :func:`run_bounded`.

    The arguments and the value travel pickled (standard input, standard output); the child ignores
    Ctrl-C (the parent kills it and re-raises) and dies with the parent.  ``error`` names a time-out,
    an exception in the function (``TypeError: ...``) or a child that died (its exit and last lines).

    >>> run_function("operator:add", (2, 3), 30).value
    5
    """
    import pickle

    run = run_bounded([sys.executable, "-c", _FUNCTION_CHILD, str(os.getpid()), target], time_limit,
                      memory_limit=memory_limit, output_cap=None, stdin=pickle.dumps(args))
    if run.timed_out:
        return FunctionResult(run, error=f"not finished within {time_limit:g} s")
    if run.exit_status != 0 or not run.stdout:
        return FunctionResult(run, error=f"worker {run.ended}: {run.tail(1)}")
    kind, value = pickle.loads(run.stdout)
    return FunctionResult(run, value) if kind == "ok" else FunctionResult(run, error=value)


def _function_child() -> None:
    """Entry point of :func:`run_function`'s child: arguments on stdin, ``(kind, value)`` pickled on stdout."""
    import importlib
    import pickle

    die_with_parent(int(sys.argv[1]))
    worker_ignores_ctrl_c()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints from C code cannot corrupt the result stream
    module, _, name = sys.argv[2].partition(":")
    args = pickle.load(sys.stdin.buffer)
    try:
        result = pickle.dumps(("ok", getattr(importlib.import_module(module), name)(*args)))
    except Exception as e:  # noqa: BLE001 - reported to the parent, which decides
        result = pickle.dumps(("error", f"{type(e).__name__}: {e}"))
    out.write(result)
    out.close()


def die_with_parent(parent_pid: int, poll_seconds: float = 0.5) -> None:
    """Make this (worker) process die when process ``parent_pid`` is gone.

    On Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (via ctypes) has the kernel
    kill it when its parent exits, even by SIGKILL and even while a native
    solver holds the GIL; everywhere a daemon thread also polls
    ``os.getppid()`` every ``poll_seconds`` and ends the process with
    ``os._exit`` once the parent has changed (between native calls).  Exits
    at once if the parent is already gone.
    """
    libc = process_libc()
    if libc is not None:
        with contextlib.suppress(OSError, AttributeError):
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="flipgame-parent-watch").start()


def kill_pool(pool) -> None:
    """Kill a ``ProcessPoolExecutor``'s worker processes at once (their running tasks are lost), then shut it down.

    Ctrl-C must not wait for the running chunks (measured: 6.8 s on the default agreement run, 33 s
    with ``--chunk-size 16384``).  ``ProcessPoolExecutor`` has no public way before Python 3.14
    (``kill_workers``), so its ``_processes`` are killed.  The pool is unusable afterwards.
    """
    kill = getattr(pool, "kill_workers", None)
    if kill is not None:
        kill()
    else:
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                proc.kill()
    # This process's copy of the results pipe's write end: a worker killed while it wrote a result left
    # the pool's manager thread reading the rest of it for good (the killed writers' ends were closed,
    # this one never), and the interpreter's exit joins that thread (1 Ctrl-C of 12 on verify --jobs 2).
    # Closed, the read ends in EOF, which the pool takes as a broken pool.
    with contextlib.suppress(OSError, AttributeError):
        pool._result_queue._writer.close()
    # Pending futures are not cancelled: the pool's manager thread fails them as a broken pool, and before
    # Python 3.12 it raised InvalidStateError on one cancelled under it (a traceback after SIGTERM).
    pool.shutdown(wait=False, cancel_futures=False)
    # The manager thread sees the broken pool and ends; joined here, the interpreter's exit finds nothing to
    # wake (waking it there raced its own close of the wake-up pipe: EBADF printed, 1 Ctrl-C in 12).
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None and manager is not threading.current_thread():
        manager.join(KILL_GRACE_SECONDS)


def pool_worker_init(parent_pid: int) -> None:
    """Initializer of :func:`local_pool`'s workers: Ctrl-C is handled by the parent (which writes what
    finished), and the worker dies with it.

    Workers are started with SIGINT/SIGTERM blocked (:func:`flipgame.core.signals.signals_blocked` around
    ``submit``), so a Ctrl-C during their start-up stays pending; it is ignored from here on (the pending one
    is dropped) and stays blocked in every thread, so no solver's own handler, installed for a call in
    some thread, ever takes it."""
    worker_ignores_ctrl_c()
    die_with_parent(parent_pid)


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, before any blocked start of workers.

    Its launch ends with ``pthread_sigmask(SIG_UNBLOCK, [SIGINT, SIGTERM])`` in the thread that
    launches it (CPython 3.11's ``resource_tracker.ensure_running``), whatever that thread's mask
    was; launched lazily inside a blocked start-up it would unblock Ctrl-C in that thread, and the
    workers spawned next would take it while importing.  Started here, later calls find it running.
    """
    resource_tracker.ensure_running()


def _run_chunk(fn, chunk: list) -> list:
    return [fn(task) for task in chunk]


def pool_map(pool: ProcessPoolExecutor, fn, tasks: list, chunksize: int = 1):
    """``fn`` over ``tasks`` on ``pool``, in order, in chunks of ``chunksize``: ``Executor.map`` that cancels nothing.

    ``Executor.map``'s iterator cancels its pending futures when it is closed early (Ctrl-C, SIGTERM),
    under the pool's manager thread, which CPython before 3.12 then fails with ``InvalidStateError`` (a
    traceback on stderr, measured 4 runs in 10) when :func:`kill_pool` breaks the pool.  Here pending
    futures are left for the broken pool to fail.  Workers start inside ``submit`` with Ctrl-C blocked.
    """
    with signals_blocked():
        futures = [pool.submit(_run_chunk, fn, tasks[i:i + chunksize]) for i in range(0, len(tasks), chunksize)]
    for future in futures:
        yield from future.result()


def local_pool(jobs: int) -> ProcessPoolExecutor:
    """The one local pool: ``jobs`` spawned worker processes that ignore Ctrl-C and die with this process."""
    start_resource_tracker()
    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=pool_worker_init, initargs=(os.getpid(),))


def fork_call(work) -> tuple[int, int]:
    """Fork a child that runs ``work()`` and writes its value, pickled, to a pipe: the one forked worker (it
    shares this process's arrays copy on write).  The child ignores Ctrl-C (the parent handles it, and kills
    it) and dies with this process.  Returns ``(pid, read end)`` for :func:`collect_fork`."""
    import pickle

    parent = os.getpid()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read)
            worker_ignores_ctrl_c()
            die_with_parent(parent)
            data = pickle.dumps(("ok", work()))
        except BaseException as e:  # noqa: BLE001  (reported to the parent, which raises it)
            data, code = pickle.dumps(("error", f"{type(e).__name__}: {e}")), 1
        with os.fdopen(write, "wb") as fh:
            fh.write(data)
        os._exit(code)
    os.close(write)
    return pid, read


def collect_fork(pid: int, fd: int, what: str = "forked worker"):
    """The value of a :func:`fork_call` child (waits for it).  Raises RuntimeError naming ``what`` when the
    child raised or died."""
    import pickle

    with os.fdopen(fd, "rb") as fh:
        data = fh.read()
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    kind, value = pickle.loads(data) if data else ("error", "the process died")
    if kind != "ok":
        raise RuntimeError(f"{what} failed: {value}")
    return value


def kill_forks(pids) -> None:
    """SIGKILL and reap :func:`fork_call` children that may still run (after their results, or on an error)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)

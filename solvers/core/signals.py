"""Signals have one owner: flipgame.  Threads other than the main thread never take SIGINT/SIGTERM.

A process-directed signal goes to the main thread unless it blocks the signal,
and then to any other thread that does not.  While CryptoMiniSat runs, the
main thread blocks SIGINT and SIGTERM (:func:`flipgame.backends.sat_engines.cryptominisat_signals`),
because pycryptosat swaps in its own handler for them; a thread that does not
block them (numpy's BLAS pool, started when numpy is imported) would then run
that handler, which prints ``c`` on stdout and swallows the Ctrl-C.  So
this module, imported first by :mod:`flipgame`, puts :class:`NumpyFinder` in front of the import system:
whenever numpy is first imported, its module runs inside :func:`signals_blocked`, and the threads it starts
inherit the blocked mask.  Source: ``pthread_sigmask(3)`` ("a new thread inherits a copy of its creator's
signal mask"), ``signal(7)``; PEP 451 (module specs, finders and loaders).

When numpy is first imported after flipgame (by flipgame or by the program that imported it), its BLAS gets
one thread (``OPENBLAS_NUM_THREADS=1`` while numpy loads, unless the variable is set; it is removed again, so
other programs started later are not touched), as it did when flipgame's own import loaded numpy; a program that
wants more sets the variable, or imports numpy first, and numpy's ``__loader__`` is the wrapper :class:`NumpyFinder`
gives it: starting OpenBLAS's pool was a third of numpy's import, about 50 ms of every ``flipgame``
command on the 2-core machine, and flipgame's numpy work is integer bit operations and small
float products over Z_k, spread over worker processes where it is large.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

from flipgame.core.limits import IMPORT_WAIT_SECONDS

EXIT_INTERRUPTED = 128 + signal.SIGINT
"""The exit status of a process a Ctrl-C ended (130; the command's ``ExitCode.INTERRUPTED``)."""
GUARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals flipgame handles (Ctrl-C, and the polite kill)."""
REDELIVER_SECONDS = 0.01
"""Delay before a Ctrl-C that Python could only print, or that came during an import, is delivered again
(and how often the end of that import is looked for)."""


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """Block :data:`GUARDED_SIGNALS` in the calling thread for the block, then restore its mask.

    Threads started inside the block keep them blocked for good.  A signal
    that arrives meanwhile is delivered when the mask is restored.  Does
    nothing where POSIX signal masks do not exist.

    >>> with signals_blocked():
    ...     pass
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, GUARDED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


_HOLD_DEPTH = [0]
"""How many :class:`interrupts_held` blocks the main thread is in."""
_HELD: list[int] = []
"""Signals that came inside them, raised again at the end of the outermost one."""


def holdable(handler):
    """``handler`` (a Python signal handler of the command), made to wait for the end of an
    :class:`interrupts_held` block that is open when its signal comes."""
    def held_until_the_block_ends(signum, frame):
        if _HOLD_DEPTH[0]:
            _HELD.append(signum)
            return None
        return handler(signum, frame)

    held_until_the_block_ends.__wrapped__ = handler
    held_until_the_block_ends.__name__ = handler.__name__
    return held_until_the_block_ends


class interrupts_held:  # noqa: N801 - used as a statement, like contextlib's lower-case managers
    """Hold Ctrl-C and SIGTERM in the main thread for the block; one that came is raised again at its end.

    Python runs a signal's handler in the main thread between two bytecodes, so ``KeyboardInterrupt``
    can come between a lock's ``acquire`` and the ``with`` or ``try`` that would release it: in the
    Python-level ``__enter__`` of ``threading.Condition`` (every ``concurrent.futures.Future`` method
    takes one), or in the loop of ``acquire`` calls of ``concurrent.futures.wait``.  The lock then stays
    held for good, and the thread that needs it next (a pool's manager thread, which the interpreter's
    exit joins) never ends.  Code that takes another library's locks runs inside this block.

    Unlike :func:`signals_blocked`, this holds the signal whichever thread the kernel gives it to.  It
    holds what the command's handlers (made :func:`holdable`) take; a library caller's own handler is
    not held.  Does nothing outside the main thread, which takes no signal.  Blocks nest.
    """

    __slots__ = ()

    def __enter__(self) -> None:
        if threading.get_ident() == threading.main_thread().ident:
            _HOLD_DEPTH[0] += 1

    def __exit__(self, *exc) -> None:
        if threading.get_ident() != threading.main_thread().ident or not _HOLD_DEPTH[0]:
            return
        _HOLD_DEPTH[0] -= 1
        if not _HOLD_DEPTH[0] and _HELD:
            held = list(dict.fromkeys(_HELD))
            _HELD.clear()
            for sig in held:
                signal.raise_signal(sig)  # its handler runs once this returns


def _started_as_the_command() -> bool:
    """True in the ``flipgame`` command (its console script, or ``python -m flipgame``), False where a
    program imports flipgame as a library."""
    argv = list(getattr(sys, "orig_argv", ()))
    as_module = any(a == "-m" and b == "flipgame" for a, b in zip(argv, argv[1:], strict=False))
    return as_module or bool(sys.argv) and os.path.basename(sys.argv[0]) == "flipgame"


def _interrupted_while_starting(signum, frame) -> None:
    """The command's SIGINT handler until :func:`command_started`: nothing is computed yet, so exit 130
    with the line every interrupted run prints (Python's default printed a KeyboardInterrupt traceback
    from whichever import it stopped, in the first 0.3-0.7 s of every run)."""
    os.write(2, b"flipgame: interrupted\n")
    os._exit(130)


def caused_by_interrupt(exc: BaseException) -> bool:
    """True if a ``KeyboardInterrupt`` is in ``exc``'s chain of causes: a pybind11 extension module (OR-Tools'
    ``cp_model_helper``) turns a Ctrl-C that arrives while its initialisation runs Python code into
    ``ImportError: initialization failed`` (a Ctrl-C during ``from ortools.sat.python import cp_model``)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


class Terminated(KeyboardInterrupt):
    """SIGTERM in the command (the polite kill of ``timeout`` or a batch scheduler), raised where Ctrl-C's
    ``KeyboardInterrupt`` is, so that the run stops the same way and writes what it finished (verify's
    report was lost, and the resource tracker warned of leaked semaphores); a second SIGTERM ends the
    process at once."""


_TERMINATED: list[bool] = []


def _importing(frame) -> bool:
    """True while ``frame`` (the main thread's) runs inside an import."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


_FORCED: list[int] = []
"""Signals delivered again by :func:`_after_the_import` at its deadline: raised even inside an import."""


def _after_the_import(signum: int) -> None:
    """Deliver ``signum`` to the main thread again once no import runs there (a watcher thread polls), or
    at the latest :data:`IMPORT_WAIT_SECONDS` later, so that Ctrl-C still ends the run within 2 s."""
    main, deadline = threading.main_thread().ident, time.monotonic() + IMPORT_WAIT_SECONDS

    def watch() -> None:
        while _importing(sys._current_frames().get(main)) and time.monotonic() < deadline:
            time.sleep(REDELIVER_SECONDS)
        _FORCED.append(signum)
        _thread.interrupt_main(signum)

    threading.Thread(target=watch, daemon=True, name="flipgame-interrupt").start()


def _deferred(signum: int, frame) -> bool:
    """True if the signal is put off until the running import ends (see :func:`_interrupt`)."""
    if signum in _FORCED:
        _FORCED.remove(signum)
        return False
    if _importing(frame):
        _after_the_import(signum)
        return True
    return False


def _interrupt(signum, frame) -> None:
    """The command's SIGINT handler: ``KeyboardInterrupt``, except inside an import, where the libraries'
    own handling lost it (pybind11 turned it into ``ImportError``, which an optional import then took as a
    missing module: 1 Ctrl-C of 150 while OR-Tools loaded was ignored, and the run went on); there it
    comes once the import has finished."""
    if not _deferred(signum, frame):
        raise KeyboardInterrupt


def _terminate(signum, frame) -> None:
    if _deferred(signum, frame):
        return
    if _TERMINATED:
        os.write(2, b"flipgame: terminated again: stopping at once\n")
        os._exit(128 + signal.SIGTERM)
    _TERMINATED.append(True)
    raise Terminated


def terminated() -> bool:
    """True once the command has taken a SIGTERM (its exit status is then 143, not Ctrl-C's 130)."""
    return bool(_TERMINATED)


def _raised_where_it_is_lost(unraisable) -> None:
    """``sys.unraisablehook`` of the command: a ``KeyboardInterrupt`` raised where Python can only print it
    (a weakref callback or ``__del__``: importlib's module-lock callbacks while OR-Tools loads, 2 runs of
    120) was printed as 'Exception ignored in ...' and the run went on for minutes; it is delivered to the
    main thread again, where it interrupts the run."""
    exc = unraisable.exc_value
    if not isinstance(exc, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)
        return
    again = signal.SIGINT
    if isinstance(exc, Terminated):
        _TERMINATED.clear()  # the first SIGTERM again, not a second one that ends at once
        again = signal.SIGTERM
    elif getattr(signal.getsignal(signal.SIGINT), "ends_at_once", False):
        signal.signal(signal.SIGINT, holdable(_interrupt))  # the first Ctrl-C again, not a second one
    # From a thread, a moment later: raised now, it would be raised in this hook, and lost again.
    threading.Timer(REDELIVER_SECONDS, _thread.interrupt_main, (again,)).start()


def command_started() -> None:
    """Called by the command once its ``KeyboardInterrupt`` handling is in place: Ctrl-C raises
    ``KeyboardInterrupt`` again, SIGTERM :class:`Terminated`, and either one raised where it would be lost
    is delivered again.  Does nothing in a library; a signal the caller ignores stays ignored (a job
    started with ``&`` by a script ignores Ctrl-C, and SIGTERM must still stop it as documented)."""
    if not _started_as_the_command():
        return
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, holdable(_interrupt))
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, holdable(_terminate))
    sys.unraisablehook = _raised_where_it_is_lost


class _NumpyLoader:
    """numpy's own loader, whose module runs with Ctrl-C blocked and, unless the user chose otherwise, one BLAS
    thread: the threads numpy starts while it loads inherit the mask.  Everything else is the real loader's."""

    def __init__(self, loader):
        self._loader = loader

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        chosen = "OPENBLAS_NUM_THREADS" in os.environ
        if not chosen:
            os.environ["OPENBLAS_NUM_THREADS"] = "1"
        try:
            with signals_blocked():
                self._loader.exec_module(module)
        finally:
            if not chosen:
                del os.environ["OPENBLAS_NUM_THREADS"]


class NumpyFinder:
    """The first import of numpy in the process, whoever asks for it, gets :class:`_NumpyLoader`; the finder
    then leaves ``sys.meta_path`` (a meta path finder of PEP 451; importlib.abc is not imported for its base class,
    which costs 8 ms of start-up).  Installed when flipgame is imported before numpy: so a command that never
    needs an array (the judge's lane of ``flipgame solve``) never pays numpy's import."""

    def find_spec(self, name, path=None, target=None):
        if name != "numpy":
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        for finder in sys.meta_path:  # the finders after this one, as the import system would ask them
            spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _NumpyLoader(spec.loader)
                return spec
        return None


if _started_as_the_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_while_starting)  # a Ctrl-C ignored by the caller stays ignored
if "numpy" not in sys.modules and not any(isinstance(f, NumpyFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, NumpyFinder())


def worker_ignores_ctrl_c(*, every_thread: bool = False) -> None:
    """In a worker process (the local pool, a forked checker, a measured child, a Dask worker): Ctrl-C is
    ignored, the parent handles it and kills the worker.  ``every_thread``: SIGINT also stays blocked in this
    thread and in every thread started from it (a solver's own handler, installed for a call in some thread,
    then never takes it), while SIGTERM is deliverable (a Dask nanny's terminate still works)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if every_thread and hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])


def second_ctrl_c_ends_at_once() -> object:
    """Install the run's SIGINT handler and return the one it replaces.

    The first Ctrl-C raises KeyboardInterrupt (the run kills its workers' chunks and writes the
    report of everything finished); a second one ends the process at once with exit 130.  Worker
    processes die with it (``PR_SET_PDEATHSIG``), so nothing is left behind.
    """
    def second(signum, frame) -> None:  # noqa: ARG001 - a signal handler's signature
        os.write(2, b"flipgame: interrupted again: stopping at once, without the report\n")
        os._exit(EXIT_INTERRUPTED)

    def first(signum, frame) -> None:  # noqa: ARG001
        signal.signal(signal.SIGINT, second)
        raise KeyboardInterrupt

    second.ends_at_once = True  # a first Ctrl-C lost where Python only prints it comes again as a first
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # ignored by the caller (a script's & job): it stays so
        return signal.SIG_IGN
    return signal.signal(signal.SIGINT, holdable(first))


def restore_ctrl_c(previous) -> None:
    """Put ``previous`` back, unless a first Ctrl-C came: the process is ending, and a second one must still end it."""
    if getattr(signal.getsignal(signal.SIGINT), "__name__", None) != "second":
        signal.signal(signal.SIGINT, previous)

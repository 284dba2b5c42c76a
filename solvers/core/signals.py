"""Signals have one owner: flipgame.  Threads other than the main thread never take SIGINT/SIGTERM.

A process-directed signal goes to the main thread unless it blocks the signal,
and then to any other thread that does not.  While CryptoMiniSat runs, the
main thread blocks SIGINT and SIGTERM (:func:`flipgame.backends.sat.cryptominisat_signals`),
because pycryptosat swaps in its own handler for them; a thread that does not
block them (numpy's BLAS pool, started when numpy is imported) would then run
that handler, which prints ``c`` on stdout and swallows the Ctrl-C.  So
this module, imported first by :mod:`flipgame`, imports numpy inside
:func:`signals_blocked`: the threads it starts inherit the blocked mask.  Source: ``pthread_sigmask(3)``
("a new thread inherits a copy of its creator's signal mask"), ``signal(7)``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator

GUARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""The signals flipgame handles (Ctrl-C, and the polite kill)."""


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
    ``ImportError: initialization failed`` (5 of 40 Ctrl-Cs during ``from ortools.sat.python import
    cp_model``)."""
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


def _terminate(signum, frame) -> None:
    if _TERMINATED:
        os.write(2, b"flipgame: terminated again: stopping at once\n")
        os._exit(128 + signal.SIGTERM)
    _TERMINATED.append(True)
    raise Terminated


def terminated() -> bool:
    """True once the command has taken a SIGTERM (its exit status is then 143, not Ctrl-C's 130)."""
    return bool(_TERMINATED)


def command_started() -> None:
    """Called by the command once its ``KeyboardInterrupt`` handling is in place: Ctrl-C raises
    ``KeyboardInterrupt`` again, and SIGTERM :class:`Terminated`.  Does nothing where the start-up
    handler was not installed (a library, or a signal the caller ignores)."""
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _terminate)


if _started_as_the_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_while_starting)  # a Ctrl-C ignored by the caller stays ignored

with signals_blocked():  # flipgame imports this module first: numpy's BLAS threads start with Ctrl-C blocked
    import numpy  # noqa: E402, F401

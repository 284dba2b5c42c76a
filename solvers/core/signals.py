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

When flipgame is what loads numpy, its BLAS gets one thread (``OPENBLAS_NUM_THREADS=1`` while numpy
loads, unless the variable is set; it is removed again, so other programs started later are not
touched): starting OpenBLAS's pool was a third of numpy's import, about 50 ms of every ``flipgame``
command on the 2-core machine, and flipgame's numpy work is integer bit operations and small
float products over Z_k, spread over worker processes where it is large.
"""

from __future__ import annotations

import contextlib
import signal
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


def _import_numpy() -> None:
    """numpy, loaded with Ctrl-C blocked and, unless the user chose otherwise, one BLAS thread."""
    import os

    chosen = "OPENBLAS_NUM_THREADS" in os.environ
    if not chosen:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        with signals_blocked():  # flipgame imports this module first: numpy's BLAS threads start with Ctrl-C blocked
            import numpy  # noqa: F401
    finally:
        if not chosen:
            del os.environ["OPENBLAS_NUM_THREADS"]


_import_numpy()

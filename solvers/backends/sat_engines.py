"""The two SAT engines of the ``sat`` backend (:mod:`flipgame.backends.sat`), behind one interface
(``add_clauses``, ``add_xor``, ``solve(assumptions, seconds_left)``, ``stats``, ``stop``, ``close``):
:class:`CryptoMiniSat` (native XOR clauses, a time limit per call) and :class:`PySat` (a python-sat solver,
XOR cut into CNF, interrupted by a timer); and the guard that keeps SIGINT and SIGTERM flipgame's while
CryptoMiniSat runs (:func:`cryptominisat_signals`, :func:`wait_for`).

Sources: pycryptosat documentation; python-sat documentation (``pysat.solvers``); ``sigaction(2)``,
``pthread_sigmask(3)``, ``sigtimedwait(2)``.
"""

from __future__ import annotations

import _signal
import contextlib
import ctypes
import functools
import signal
import threading
import time

from flipgame.backends.parameters import cms_options
from flipgame.core.errors import OptionError
from flipgame.core.signals import GUARDED_SIGNALS
from flipgame.encode.parity import xor_chain

# --- signals: flipgame owns SIGINT and SIGTERM, never CryptoMiniSat ------------------------------------
# pycryptosat's ``solve`` installs its own handler for SIGINT and SIGTERM (it calls ``interrupt_asap``
# on the solver that called ``solve`` last, and CryptoMiniSat's prints ``c`` on stdout) and puts back
# what it found on entry; two calls running at once (an abandoned thread and a new board) leave its
# handler installed for good.
SIGACTION_BYTES = 512
"""An opaque buffer larger than any libc's ``struct sigaction`` (152 bytes on glibc x86-64)."""
SIGNAL_POLL = 0.05
"""Seconds between checks of a thread-run CryptoMiniSat call (its end, the deadline, a pending signal)."""
_guard = threading.Lock()
_guard_depth = 0
_overlapped = False  # did two calls run at once since the depth was last 0?
_saved_actions: dict[int, ctypes.Array | None] = {}
_SIGNUMS = tuple(int(sig) for sig in GUARDED_SIGNALS)


@functools.cache
def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _get_action(sig: int) -> ctypes.Array | None:
    buf = ctypes.create_string_buffer(SIGACTION_BYTES)
    try:
        return buf if _libc().sigaction(sig, None, buf) == 0 else None
    except (OSError, AttributeError):
        return None


def _restore_actions() -> None:
    """Put back the handlers found when the first of the overlapping CryptoMiniSat calls began.

    In the main thread through :func:`signal.signal` (Python's handler as it is now), elsewhere
    by ``sigaction`` with the saved bytes."""
    main = threading.current_thread() is threading.main_thread()
    for sig in GUARDED_SIGNALS:
        handler = signal.getsignal(sig)
        if main and handler is not None:
            signal.signal(sig, handler)
        elif _saved_actions.get(sig) is not None:
            with contextlib.suppress(OSError, AttributeError):
                _libc().sigaction(int(sig), _saved_actions[sig], None)


@contextlib.contextmanager
def cryptominisat_signals():
    """Run a CryptoMiniSat call so that its SIGINT/SIGTERM handler never runs.

    The calling thread blocks both signals for the call and restores its mask
    afterwards, so a signal that arrived meanwhile is delivered then, to
    flipgame's handler (the main thread) or another thread.  pycryptosat puts
    back the handlers it found when its call ends, which is right for calls
    one after the other; when two ran at once (an abandoned thread and a new
    board), the second found the first's handler, so the handlers found before
    the first are put back after each call until none runs.  A thread-run call
    is waited on by :meth:`SatModel._call_abandonable`, which also blocks them
    and collects them with ``sigtimedwait``.  Running time: about 5 us per
    call (``_signal``'s mask calls skip :mod:`signal`'s enum conversions, 4 us
    each).  Source: pycryptosat's ``solve`` (cryptominisat
    ``python/src/pycryptosat.cpp``), which swaps handlers around each call.
    """
    global _guard_depth, _saved_actions, _overlapped
    if not hasattr(_signal, "pthread_sigmask"):  # no POSIX signals: nothing to guard
        yield
        return
    mask = _signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNUMS)
    with _guard:
        if _guard_depth == 0:
            _saved_actions = {sig: _get_action(sig) for sig in GUARDED_SIGNALS}
        else:
            _overlapped = True
        _guard_depth += 1
    try:
        yield
    finally:
        with _guard:
            _guard_depth -= 1
            if _overlapped:
                _restore_actions()
                _overlapped = _guard_depth > 0
        _signal.pthread_sigmask(signal.SIG_SETMASK, mask)


class CryptoMiniSat:
    """CryptoMiniSat with native XOR clauses; a per-call time limit set at construction."""

    def __init__(self, time_limit: float, options: str = ""):
        import pycryptosat

        try:
            self.solver = pycryptosat.Solver(time_limit=time_limit, options=cms_options(options) or None)
        except ValueError as exc:
            raise OptionError(f"sat option cms_params (--cms-params): CryptoMiniSat says {exc}") from None
        self.calls, self.limit = 0, time_limit

    def add_clauses(self, clauses) -> None:
        self.solver.add_clauses(clauses)

    def add_xor(self, variables: list[int], rhs: bool) -> None:
        self.solver.add_xor_clause(variables, rhs)

    def solve(self, assumptions: list[int], seconds_left: float) -> list[bool] | None:
        """Model as a list indexed by variable (index 0 unused), None if UNSAT; TimeoutError at the limit.

        The call runs inside :func:`cryptominisat_signals`, so CryptoMiniSat's own handler never
        sees a signal: "undetermined" can only be its time limit (TimeoutError), never a Ctrl-C.
        """
        self.calls += 1
        with cryptominisat_signals():
            sat, values = self.solver.solve(assumptions)
        if sat is None:
            raise TimeoutError
        return list(values) if sat else None

    def stats(self) -> dict:
        return {"sat_calls": self.calls}

    def stop(self) -> None:
        """CryptoMiniSat has no interrupt: a running call ends at its own time limit."""

    def close(self) -> None:
        self.solver = None


class PySat:
    """A python-sat solver; XOR cut into CNF; interrupted by a timer at the limit."""

    def __init__(self, name: str, pool):
        from pysat.solvers import Solver

        self.solver, self.pool, self.calls = Solver(name=name), pool, 0

    def add_clauses(self, clauses) -> None:
        self.solver.append_formula(clauses)

    def add_xor(self, variables: list[int], rhs: bool) -> None:
        lits = list(variables)
        if rhs:
            lits[0] = -lits[0]
        self.solver.append_formula(xor_chain(lits, lambda: self.pool.id()))

    def solve(self, assumptions: list[int], seconds_left: float) -> list[bool] | None:
        self.calls += 1
        timer = threading.Timer(max(seconds_left, 0.0), self.solver.interrupt)
        timer.start()
        try:
            result = self.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            timer.cancel()
            self.solver.clear_interrupt()
        if result is None:
            raise TimeoutError
        if not result:
            return None
        model = self.solver.get_model()
        values = [False] * (abs(model[-1]) + 1 if model else 1)
        for lit in model:
            values[abs(lit)] = lit > 0
        return values

    def stats(self) -> dict:
        st = self.solver.accum_stats() or {}
        return {"sat_calls": self.calls, **{k: st.get(k, 0) for k in ("conflicts", "decisions")}}

    def stop(self) -> None:
        self.solver.interrupt()

    def close(self) -> None:
        self.solver.delete()


def wait_for(worker: threading.Thread, deadline: float) -> None:
    """Start ``worker`` and wait until it ends or ``deadline`` (``time.perf_counter`` seconds) passes.

    In the main thread SIGINT/SIGTERM stay blocked while waiting, so CryptoMiniSat's handler
    (installed while its call runs) cannot take them; one that arrives is collected by
    ``sigtimedwait`` and raised again once flipgame's handler is back (KeyboardInterrupt for
    Ctrl-C).  Elsewhere a plain join: signals go to the main thread.
    """
    main = threading.current_thread() is threading.main_thread()
    if not (main and hasattr(signal, "sigtimedwait")):
        worker.start()
        while worker.is_alive() and time.perf_counter() < deadline:
            worker.join(min(SIGNAL_POLL, max(deadline - time.perf_counter(), 0.001)))
        return
    started = False
    while True:
        with cryptominisat_signals():  # the worker inherits the blocked mask
            if not started:
                worker.start()
                started = True
            got = None
            while got is None and worker.is_alive() and time.perf_counter() < deadline:
                got = signal.sigtimedwait(GUARDED_SIGNALS, min(SIGNAL_POLL, max(deadline - time.perf_counter(), 0.001)))
        if got is None:
            return
        signal.raise_signal(got.si_signo)  # flipgame's handler, back and unblocked (Ctrl-C: KeyboardInterrupt)

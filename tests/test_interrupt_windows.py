"""Ctrl-C at every point of ``Session.solve`` leaves no model's lock held (a sat stream hung in 2 of 185 Ctrl-Cs).

A Ctrl-C raises ``KeyboardInterrupt`` wherever the main thread's Python code is.  Raised after a generator
context manager's ``yield`` under a lock but before the caller's ``with`` took over, it left the lock held
by the suspended generator, and ``Session.close`` waited on it for good.  This test raises the interrupt
at each call, line and return event of the main thread in turn (``sys.settrace``) and checks that every
lock is free afterwards.

The line events of a ``with`` statement's own line are skipped: Python 3.11 reports that line again
before calling ``__exit__`` on the way out, where a real signal is not handled (the interpreter checks for
one after the call, once the lock is released), so raising there would be a false alarm.  So are the
events while the thread blocks SIGINT (CryptoMiniSat's calls), where no Ctrl-C comes.
"""

from __future__ import annotations

import linecache
import signal
import sys

import pytest

from flipgame import Game, Session

EVENTS = ("call", "line", "return")


class _InterruptAt:
    """A trace function that raises KeyboardInterrupt at the ``n``-th event of the traced thread (0: never);
    counts the events."""

    def __init__(self, n: int):
        self.n, self.seen = n, 0

    def __call__(self, frame, event, arg):
        if event in EVENTS and not (event == "line" and _with_line(frame)) and not _sigint_blocked():
            self.seen += 1
            if self.seen == self.n:
                raise KeyboardInterrupt
        return self


def _with_line(frame) -> bool:
    return linecache.getline(frame.f_code.co_filename, frame.f_lineno).lstrip().startswith(("with ", "async with "))


def _sigint_blocked() -> bool:
    return signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def _traced(call, n: int = 0) -> int:
    """Run ``call()`` with a KeyboardInterrupt at event ``n``; the events counted.  The signal mask and
    handlers are as before afterwards (the test fails otherwise, and puts them back for the tests after it)."""
    tracer = _InterruptAt(n)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    sys.settrace(tracer)
    try:  # not contextlib.suppress: its traced __exit__ would be one more event, outside the block
        call()
    except KeyboardInterrupt:
        tracer.n = -1  # the interrupt came; the caller checks the locks
    finally:
        sys.settrace(None)
        now = signal.pthread_sigmask(signal.SIG_SETMASK, mask), {s: signal.getsignal(s) for s in handlers}
        for s, h in handlers.items():
            signal.signal(s, h)
    assert now == (mask, handlers), f"the signal mask or handlers changed by an interrupt at event {n}"
    return tracer.seen


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
def test_a_session_solve_interrupted_anywhere_leaves_its_model_free(backend):
    """``Session.solve`` (a model backend) interrupted at each of its events: every lock is free, and
    ``close`` returns (it blocked for good when the interrupt came inside contextlib's ``__enter__``)."""
    game = Game(3, 3, "white")
    with Session(backend) as warm:
        assert warm.solve(11, game=game).moves == 1
        events = _traced(lambda: warm.solve(3, game=game))
    assert events > 20
    for n in range(1, events + 1):
        session = Session(backend)
        assert session.solve(11, game=game).moves == 1  # the model is built: the events match the count
        _traced(lambda s=session: s.solve(3, game=game), n)
        held = [slot for slot in session._models.values() if slot.lock.locked()]
        assert not held and not session._lock.locked(), f"a lock is still held after an interrupt at event {n}"
        session.close()
        assert session.solve(3, game=game).moves == 5  # still usable
        session.close()

"""One fuzzed call and the judgement of an instance's calls: what counts as a finding.

A call is one backend with one drawn setting on one instance, through the pipeline's gate and referee
(:func:`flipgame.pipeline.gate.solve_checked`), so the fuzzer checks nothing on its own.  Its findings
(:data:`KINDS`):

``failed witness``
    the referee re-applied the press set and it does not reach a goal in the claimed presses;
``wrong Impossible``
    Impossible, but the oracle or the referee's algebra reaches a goal;
``wrong minimum``
    a checked number that the oracle (or, without one, the agreement policy of
    :mod:`flipgame.pipeline.decide`) says is not the minimum;
``disagreement``
    answers that differ with neither an oracle nor a reference to decide;
``crash``
    an exception or an ERROR answer (a refusal, :class:`~flipgame.core.errors.RefusedError` or an option the
    installed solver does not take, is not a finding);
``limit not honoured``
    an answer after :data:`FUZZ_SLOW_FACTOR` times the time limit (plus 1 s);
``hang``
    no answer after :data:`FUZZ_HANG_FACTOR` times the limit plus :data:`FUZZ_HANG_GRACE`.

The last two are timings, which a loaded machine or a first call that compiles its kernels can fake (a 3-cell
gauss call "hung" for 25 s beside two other jobs, and answered in a second when run again): a call that
shows either is made once more (:func:`attempt_confirmed`), and only the second call's outcome is judged.
"""

from __future__ import annotations

import signal
import threading
import time
import traceback
from dataclasses import asdict, dataclass, field, replace

from flipgame.backends.base import Backend
from flipgame.backends.result import Status
from flipgame.core.errors import FlipgameError, OptionError, RefusedError, RulesError
from flipgame.core.limits import FUZZ_HANG_FACTOR, FUZZ_HANG_GRACE, FUZZ_SLOW_FACTOR
from flipgame.pipeline.decide import IMPOSSIBLE_KEY, NO_ANSWER_KEY, charged
from flipgame.pipeline.gate import solve_checked
from flipgame.verify.fuzz.settings import as_backend

HANDLER_POLL_SECONDS = 0.05
"""How often a fuzzed call's wait in the main thread puts the signal handlers back (see :func:`attempt`)."""
KINDS = ("wrong minimum", "wrong Impossible", "failed witness", "disagreement", "crash", "limit not honoured",
         "hang")
"""Kinds of finding, most serious first."""
ORACLE = "exhaustive enumeration"
"""How the oracle's answer is named in a finding."""


@dataclass(frozen=True)
class Outcome:
    """One call's result, as plain data (it crosses process boundaries).

    ``status`` is ``optimal``, ``impossible``, ``unknown``, ``error``, ``refused``, ``rejected`` (the referee
    rejected the answer; ``check`` says which check) or ``hang``; ``moves`` the claimed minimum.
    """

    backend: str
    settings: dict
    status: str
    moves: int | None = None
    seconds: float = 0.0
    message: str = ""
    check: str = ""
    limited: bool = True  # the backend takes a time limit

    @property
    def key(self) -> int:
        """The answer as an agreement key (:mod:`flipgame.pipeline.decide`)."""
        if self.status == "optimal":
            return self.moves
        return IMPOSSIBLE_KEY if self.status == "impossible" else NO_ANSWER_KEY


@dataclass
class Finding:
    """Something wrong with one call: its kind, the call, and what was expected."""

    kind: str
    backend: str
    settings: dict
    seed: int
    index: int
    got: str
    expected: str
    detail: str = ""
    reproducer: str = ""
    shrunk: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


def time_limited(backend: str | Backend) -> bool:
    """True if ``backend`` declares ``time_limit``."""
    return any(o.name == "time_limit" for o in as_backend(backend).all_options)


def attempt(system, board, backend: str | Backend, settings: dict, time_limit: float) -> Outcome:
    """``backend`` with ``settings`` on ``board``, through the gate and the referee, watched for a hang.

    The call runs in a daemon thread; past :data:`FUZZ_HANG_FACTOR` x ``time_limit`` + :data:`FUZZ_HANG_GRACE`
    seconds the outcome is ``hang`` and the thread is left to its fate (it dies with the process).  Called in
    the main thread, the wait puts this process's SIGINT and SIGTERM handlers back every
    :data:`HANDLER_POLL_SECONDS`: a solver (Exact) installs its own as it runs, and would take Ctrl-C as
    the end of its search, not of the campaign.
    """
    backend = as_backend(backend)
    box: list[Outcome] = []
    start = time.perf_counter()
    def call() -> None:
        try:
            box.append(_call(system, board, backend, settings, time_limit))
        except BaseException as exc:  # noqa: BLE001 - whatever escapes is the call's error, never a hang
            box.append(Outcome(backend.name, settings, "error", message=f"{type(exc).__name__}: {str(exc)[:300]}"))

    worker = threading.Thread(target=call, daemon=True, name=f"fuzz-{backend.name}")
    handlers = {}
    if threading.current_thread() is threading.main_thread():
        handlers = {s: h for s in (signal.SIGINT, signal.SIGTERM) if callable(h := signal.getsignal(s))}
    worker.start()
    deadline = start + FUZZ_HANG_FACTOR * time_limit + FUZZ_HANG_GRACE
    while worker.is_alive() and time.perf_counter() < deadline:
        worker.join(HANDLER_POLL_SECONDS if handlers else deadline - time.perf_counter())
        for s, h in handlers.items():
            signal.signal(s, h)
    if box and box[0].status == "interrupted":
        raise KeyboardInterrupt
    if box:
        return box[0]
    return Outcome(backend.name, settings, "hang", seconds=time.perf_counter() - start,
                   message=f"no answer after {time.perf_counter() - start:.0f} s at a {time_limit:g} s limit")


def too_slow(o: Outcome, time_limit: float) -> bool:
    """True when ``o`` is a hang, or an answer of a time-limited call past :data:`FUZZ_SLOW_FACTOR` times its
    limit plus 1 s (the timing findings)."""
    slow = o.status != "refused" and o.limited and o.seconds > FUZZ_SLOW_FACTOR * time_limit + 1
    return o.status == "hang" or slow


def attempt_confirmed(system, board, backend: str | Backend, settings: dict, time_limit: float) -> Outcome:
    """:func:`attempt`, made once more when the outcome is :func:`too_slow`: the second outcome, with ``(the
    first call too)`` added to the message of a second hang.  A timing finding must happen twice."""
    first = attempt(system, board, backend, settings, time_limit)
    if not too_slow(first, time_limit):
        return first
    again = attempt(system, board, backend, settings, time_limit)
    if again.status == "hang":
        return replace(again, message=f"{again.message} (the first call too)")
    return again


def _call(system, board, backend: Backend, settings: dict, time_limit: float) -> Outcome:
    limited = time_limited(backend)
    options = dict(settings, time_limit=time_limit) if limited else dict(settings)
    start = time.perf_counter()

    def out(status: str, moves=None, message: str = "", check: str = "") -> Outcome:
        return Outcome(backend.name, settings, status, moves, time.perf_counter() - start, message[:300], check,
                       limited)

    try:
        checked = solve_checked(board, backend, game=system, **options)
    except KeyboardInterrupt:  # a solver's own signal handler took Ctrl-C (Exact): the campaign's to stop
        return out("interrupted")
    except (RefusedError, OptionError, RulesError) as exc:
        return out("refused", message=str(exc))
    except (FlipgameError, Exception) as exc:  # noqa: BLE001 - any exception of a backend is a finding
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return out("error", message=f"{type(exc).__name__}: {str(exc)[:300]} ({where.filename}:{where.lineno})")
    s, verdict = checked.solution, checked.verdict
    if verdict.problem:
        return out("rejected", s.moves if s.status is Status.OPTIMAL else None, verdict.problem,
                   verdict.check or "witness")
    status = {Status.OPTIMAL: "optimal", Status.INFEASIBLE: "impossible", Status.UNKNOWN: "unknown"}.get(
        s.status, "error")
    return out(status, s.moves if status == "optimal" else None,
               str(s.stats.get("error", "")) if status == "error" else "")


def answer_text(key: int | None) -> str:
    """An answer key (or an oracle's minimum, None for Impossible) as a finding writes it."""
    return "Impossible" if key is None or key == IMPOSSIBLE_KEY else str(key)


def judge(instance, outcomes: list[Outcome], exact, time_limit: float) -> list[Finding]:
    """The findings of one instance's calls: the referee's rejections, crashes, hangs and slow answers, then
    every definite answer charged by the agreement policy, with the oracle's answer (``exact``, an
    :class:`~flipgame.verify.fuzz.oracle.Exact` or None) as the reference where there is one.  O(calls)."""
    found = []

    def add(o: Outcome, kind: str, expected: str, detail: str) -> None:
        found.append(Finding(kind, o.backend, o.settings, instance.seed, instance.index,
                             _got(o), expected, detail))

    known = _known_answer(outcomes, exact)
    for o in outcomes:
        if o.status == "rejected":
            add(o, "wrong Impossible" if o.check == "impossible" else "failed witness", known, o.message)
        elif o.status in ("error", "hang"):
            add(o, "crash" if o.status == "error" else "hang", "an answer", o.message)
        elif too_slow(o, time_limit):
            add(o, "limit not honoured", f"at most {time_limit:g} s", f"answered after {o.seconds:.1f} s")
    keys = {o.backend: o.key for o in outcomes}
    if exact is not None:
        truth = exact.minimum if exact.minimum is not None else IMPOSSIBLE_KEY
        why = charged({**keys, ORACLE: truth}, reference=ORACLE)
    else:
        truth, why = None, charged(keys)
    by_name = {o.backend: o for o in outcomes}
    for name, reason in why.items():
        if name == ORACLE:
            continue
        o = by_name[name]
        if truth is None and "none is a reference" in reason:
            kind = "disagreement"
        else:
            kind = "wrong Impossible" if o.key == IMPOSSIBLE_KEY else "wrong minimum"
        add(o, kind, answer_text(truth) if truth is not None else "", reason)
    return found


def _known_answer(outcomes: list[Outcome], exact) -> str:
    """The right answer as text where it is known: the oracle's, else gauss's (the reference); else ""."""
    if exact is not None:
        return answer_text(exact.minimum)
    ref = next((o for o in outcomes if o.backend == "gauss" and o.key != NO_ANSWER_KEY), None)
    return answer_text(ref.key) if ref is not None else ""


def _got(o: Outcome) -> str:
    if o.status in ("optimal", "rejected") and o.moves is not None:
        return str(o.moves)
    return {"impossible": "Impossible", "rejected": "Impossible"}.get(o.status, o.status)

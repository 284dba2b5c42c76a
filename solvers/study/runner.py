"""One run of a strategy on one board, measured as the solver competitions measure it.

Each run gets a process of its own (:func:`flipgame.core.workers.run_function`: a fresh
interpreter, killed with its group): it imports the strategy's solver and warms it up on a
3x3 board (not counted), then starts its clock and solves the board under the time and memory
limits.  What is recorded per run (:class:`Measure`):

wall
    Seconds from the start of the solve to its answer, or to the kill.
cpu
    User plus system seconds of the run's process (all its threads) and of the programs it
    waited for (``getrusage``, self and children, over the solve).
peak_rss
    Peak resident memory of the process during the solve (``VmHWM``, reset when the clock starts
    through ``/proc/self/clear_refs``), or of a program it ran, whichever is larger; bytes.
build, export
    Seconds spent building the model (a model backend's ``build_seconds``) or writing the files
    (an external program's ``export_seconds``), where the strategy reports them.
solve
    The backend's own seconds (:attr:`Solution.seconds`: model building excluded where it builds one).

The time limit is every strategy's alike: a backend with a clock of its own gets the limit and
answers Unknown at it; whatever runs past the limit plus :data:`MEASURE_MARGIN_SECONDS` (rc2,
which cannot be interrupted; a search without a clock) is killed by a watchdog thread of the
C runtime (``faulthandler``, which needs no interpreter lock) and recorded as Unknown at that
time.  The memory limit is the run's address space (``RLIMIT_AS``), as runsolver's ``-M``.
``isolate=False`` runs in this process instead (no kill; the backends' own limits only), after one
warm-up per strategy and kind of system.

Source: runsolver (Roussel 2011, JSAT 7); BenchExec (Beyer, Loewe, Wendler 2019, STTT 21);
``proc(5)`` (``clear_refs``, ``VmHWM``); ``getrusage(2)``.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import resource
import sys
import time
from dataclasses import dataclass

from flipgame.backends.result import Solution, Status
from flipgame.backends.strategies import Strategy
from flipgame.core.errors import RefusedError
from flipgame.core.limits import MEASURE_MARGIN_SECONDS, START_ALLOWANCE_SECONDS
from flipgame.core.workers import run_function
from flipgame.model.grid import Game
from flipgame.model.system import PressSystem
from flipgame.pipeline.gate import solve_strategy, solve_strategy_checked

START_STAMP = "flipgame-measure-start"
"""The line a run's process writes on standard error when its clock starts: ``STAMP monotonic cpu``."""
KILL_SLACK_SECONDS = 0.2
"""A run that ends without an answer this close to its kill time was killed by the watchdog."""


@dataclass(frozen=True)
class Measure:
    """What one run cost; see the module docstring.  ``where``: ``child`` or ``in-process``."""

    wall: float | None = None
    cpu: float | None = None
    peak_rss: int | None = None
    build: float | None = None
    export: float | None = None
    solve: float | None = None
    where: str = "child"
    killed: bool = False


@dataclass(frozen=True)
class Outcome:
    """One run's result: ``status`` (a :class:`Status` name or ``refused``), the solution when the backend
    answered, a note (why there is no answer), the measure, and the referee's finding on the answer (the
    pipeline's check, run in the run's process with the solve), or None."""

    status: str
    solution: Solution | None
    note: str
    measure: Measure
    problem: str | None = None


def run_measured(strategy: Strategy, game: PressSystem, board, time_limit: float, memory_gib: float | None = None,
                 *, isolate: bool = True, margin: float = MEASURE_MARGIN_SECONDS) -> Outcome:
    """``strategy`` on ``board`` of ``game``, measured (in a process of its own unless ``isolate`` is False).

    Parameters
    ----------
    time_limit : float
        Seconds for the solve; the run is killed at ``time_limit + margin``.
    memory_gib : float, optional
        GiB of address space for the run's process, also handed to the backends that declare a
        ``memory_limit`` (they refuse a model estimated over it).
    margin : float
        Seconds past the limit before the kill (default :data:`MEASURE_MARGIN_SECONDS`).

    Returns
    -------
    Outcome
        Never raises for a faulty strategy: an exception is an ERROR outcome naming it.  A killed run
        records ``time_limit + margin`` as its wall time, the moment its watchdog ended it.

    Running time: the solve's, plus (isolated) a process start, the solver's import and a 3x3 warm-up.
    """
    if not isolate:
        _warm_up_once(strategy, game, time_limit)
        return _outcome(_measured_call(strategy, game, board, time_limit, memory_gib), "in-process")
    spec = (strategy.name, strategy.backend, dict(strategy.options), strategy.summary)
    got = run_function("flipgame.study.runner:measured_child", (spec, game, board, time_limit, memory_gib, margin),
                       START_ALLOWANCE_SECONDS + time_limit + margin,
                       memory_limit=None if memory_gib is None else int(memory_gib * 2**30))
    end = time.monotonic()
    if got.ok:
        return _outcome(got.value, "child")
    return _no_value(got, end, time_limit, margin)


def _no_value(got, end: float, time_limit: float, margin: float) -> Outcome:
    """The outcome of a run's process that returned nothing: killed by its watchdog at the limit, never
    started (no clock stamp), or died (how, and its last words)."""
    stamp = _stamp(got.run.stderr_tail)
    if stamp is None:
        return Outcome("ERROR", None, f"the run's process {got.error}", Measure(where="child"))
    started, cpu_before = stamp
    wall, kill_at = end - started, time_limit + margin
    cpu = max(got.run.cpu - cpu_before, 0.0)
    if got.run.timed_out:  # the parent's backstop, past the start allowance: the watchdog did not fire
        return Outcome("UNKNOWN", None, f"killed by the parent at {wall:.3g} s", Measure(wall, cpu, got.run.peak_rss,
                                                                                       where="child", killed=True))
    if wall >= kill_at - KILL_SLACK_SECONDS:
        return Outcome("UNKNOWN", None, f"killed at {kill_at:g} s (time limit {time_limit:g} s + {margin:g} s margin)",
                       Measure(kill_at, cpu, got.run.peak_rss, where="child", killed=True))
    return Outcome("ERROR", None, f"the run's process {got.error}", Measure(wall, cpu, got.run.peak_rss, where="child"))


def _stamp(stderr: bytes) -> tuple[float, float] | None:
    """``(monotonic, cpu)`` of the clock-start line in a run's standard error, or None."""
    for line in reversed(stderr.decode("utf-8", "replace").splitlines()):
        if line.startswith(START_STAMP):
            with contextlib.suppress(ValueError, IndexError):
                _, t, cpu = line.split()
                return float(t), float(cpu)
    return None


def _outcome(value: dict, where: str) -> Outcome:
    """An :class:`Outcome` from what :func:`_measured_call` returned (in this process or a child's)."""
    m = Measure(value["wall"], value["cpu"], value["peak_rss"], where=where)
    kind = value["kind"]
    if kind != "solution":
        return Outcome("refused" if kind == "refused" else "ERROR", None, value["note"], m)
    backend, status, moves, presses, target, seconds, stats, certificates = value["solution"]
    sol = Solution(backend, Status(status), moves, presses, target, seconds, stats, certificates)
    m = Measure(m.wall, m.cpu, m.peak_rss, _seconds(stats, "build_seconds"), _seconds(stats, "export_seconds"),
                seconds, where)
    if sol.status is Status.UNKNOWN:
        return Outcome("UNKNOWN", sol, f"no proof within {value['time_limit']:g} s", m)
    if sol.status is Status.ERROR:
        return Outcome("ERROR", sol, str(stats.get("error", "")), m)
    return Outcome(sol.status.name, sol, "", m, value.get("problem"))


def _seconds(stats: dict, key: str) -> float | None:
    v = stats.get(key)
    return float(v) if isinstance(v, (int, float)) else None


def _cpu() -> float:
    """User plus system seconds of this process and its waited-for children so far."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def _reset_peak() -> None:
    """Reset this process's ``VmHWM`` to its current resident size (Linux 4.0+; elsewhere nothing)."""
    with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _peak() -> int | None:
    """Peak resident bytes of this process since :func:`_reset_peak` (``VmHWM``), or of a child it waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    try:
        with open("/proc/self/status") as f:
            own = next((int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:")), 0)
    except (OSError, ValueError, IndexError):
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return max(own, children) or None


def _call_options(strategy: Strategy, memory_gib: float | None) -> dict:
    """``memory_limit`` for a backend that declares one (and a limit is set)."""
    if memory_gib is None or not any(o.name == "memory_limit" for o in strategy.method.all_options):
        return {}
    return {"memory_limit": memory_gib}


def _measured_call(strategy: Strategy, game: PressSystem, board, time_limit: float, memory_gib: float | None) -> dict:
    """Solve, measured: ``{"kind": "solution" | "refused" | "error", "solution": fields or None, "note",
    "wall", "cpu", "peak_rss", "time_limit"}`` (plain values, so that it crosses a pipe pickled)."""
    extra = _call_options(strategy, memory_gib)
    _reset_peak()
    cpu0, t0 = _cpu(), time.perf_counter()
    out = {"kind": "solution", "solution": None, "note": "", "time_limit": time_limit, "problem": None}
    try:
        checked = solve_strategy_checked(strategy, board, game, time_limit, **extra)
        s = checked.solution
        out["solution"] = (s.backend, int(s.status), s.moves, s.presses, s.target, s.seconds, dict(s.stats),
                           None if s.certificates is None else dict(s.certificates))
        v = checked.verdict
        out["problem"] = None if v.ok else f"{'witness' if v.check == 'witness' else 'answer'} rejected: {v.problem}"
    except RefusedError as exc:
        out.update(kind="refused", note=str(exc))
    except MemoryError:
        out.update(kind="error", note=f"out of memory (limit {memory_gib:g} GiB of address space)"
                   if memory_gib else "out of memory")
    except Exception as exc:  # noqa: BLE001 - a faulty strategy is data, not a crash
        out.update(kind="error", note=f"{type(exc).__name__}: {exc}")
    out["wall"], out["cpu"] = time.perf_counter() - t0, _cpu() - cpu0
    out["peak_rss"] = _peak()
    return out


def warm_up_game(game: PressSystem) -> tuple[PressSystem, object]:
    """A small system of ``game``'s kind and a board of it: 3x3 two-state, 2x2 over Z_k, or two counters."""
    if game.binary:
        return Game(3, 3, "white"), 1
    if game.states is not None:
        return Game(2, 2, "0", states=game.states), (1, 0, 0, 0)
    system = PressSystem(2, (((0, 1),), ((0, 1), (1, 1))), None, "0")
    return system.with_goal("board", (2, 1)), (0, 0)


_WARM: set[tuple[str, str]] = set()
"""(strategy, kind of system) already warmed up in this process (``isolate=False``)."""


def _warm_up(strategy: Strategy, game: PressSystem, time_limit: float) -> None:
    """A solve of :func:`warm_up_game`, not counted: the solver's imports and first-call costs."""
    small, small_board = warm_up_game(game)
    with contextlib.suppress(Exception):
        solve_strategy(strategy, small_board, small, time_limit)


def _warm_up_once(strategy: Strategy, game: PressSystem, time_limit: float) -> None:
    key = (strategy.name, "two" if game.binary else "counters" if game.states is None else f"mod {game.states}")
    if key not in _WARM:
        _warm_up(strategy, game, time_limit)
        _WARM.add(key)


def measured_child(spec: tuple, game: PressSystem, board, time_limit: float, memory_gib: float | None,
                   margin: float = MEASURE_MARGIN_SECONDS) -> dict:
    """The run's process (:func:`run_measured`): the strategy ``spec`` (name, backend, options, summary; no
    registration needed), a warm-up (not counted), the clock-start stamp on standard error, and the measured
    solve under the watchdog."""
    strategy = Strategy(*spec)
    _warm_up(strategy, game, time_limit)
    with open(os.devnull, "w") as sink:
        print(f"{START_STAMP} {time.monotonic()!r} {_cpu()!r}", file=sys.stderr, flush=True)
        faulthandler.dump_traceback_later(time_limit + margin, exit=True, file=sink)
        try:
            return _measured_call(strategy, game, board, time_limit, memory_gib)
        finally:
            faulthandler.cancel_dump_traceback_later()

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
import signal
import sys
import threading
import time
from dataclasses import dataclass

from flipgame.backends.external import is_program
from flipgame.backends.result import Solution, Status
from flipgame.backends.strategies import Strategy
from flipgame.core import cgroup_run
from flipgame.core.errors import RefusedError
from flipgame.core.limits import (
    BENCHEXEC_CHECK_SECONDS,
    MEASURE_MARGIN_SECONDS,
    START_ALLOWANCE_SECONDS,
    WALL_SAFETY_FACTOR,
)
from flipgame.core.workers import run_function
from flipgame.model.grid import Game
from flipgame.model.system import PressSystem
from flipgame.pipeline.gate import solve_strategy, solve_strategy_checked

CPU_STAMP = "flipgame-cpu-limit"
"""The line a run's CPU watchdog writes on standard error before it kills the run."""
CPU_POLL_SECONDS = 0.01
"""How often the CPU watchdog reads the process's CPU time."""
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
    termination: str | None = None
    measured_by: str = "rusage"


@dataclass(frozen=True)
class Limits:
    """A run's limits: ``time_limit`` seconds on ``clock`` (``cpu`` or ``wall``), ``wall`` seconds of wall-clock
    time (the limit itself on the wall clock, the safety net on the CPU clock), ``margin`` seconds past either
    before the run is stopped."""

    time_limit: float
    clock: str
    wall: float
    margin: float


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
                 *, isolate: bool = True, margin: float = MEASURE_MARGIN_SECONDS, clock: str = "wall",
                 wall_limit: float | None = None) -> Outcome:
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
    clock : {"wall", "cpu"}
        The clock of ``time_limit``.  ``cpu``: the run is stopped at ``time_limit + margin`` seconds of its
        CPU time (a watchdog thread of its process; a solver program's own by BenchExec), and at
        ``wall_limit + margin`` of wall-clock time as the safety net (default :data:`WALL_SAFETY_FACTOR` x the
        limit); the backends get ``wall_limit`` as their own limit, a program its CPU limit.

    Returns
    -------
    Outcome
        Never raises for a faulty strategy: an exception is an ERROR outcome naming it.  A killed run
        records ``time_limit + margin`` as its wall time, the moment its watchdog ended it.

    Running time: the solve's, plus (isolated) a process start, the solver's import and a 3x3 warm-up.
    """
    limits = Limits(time_limit, clock, wall_limit or (time_limit if clock == "wall" else
                                                      WALL_SAFETY_FACTOR * time_limit), margin)
    if not isolate:
        _warm_up_once(strategy, game, time_limit)
        return _outcome(_measured_call(strategy, game, board, limits, memory_gib), "in-process")
    spec = (strategy.name, strategy.backend, dict(strategy.options), strategy.summary)
    got = run_function("flipgame.study.runner:measured_child", (spec, game, board, limits, memory_gib),
                       START_ALLOWANCE_SECONDS + limits.wall + margin + BENCHEXEC_CHECK_SECONDS,
                       memory_limit=None if memory_gib is None or is_program(strategy.method) else
                       int(memory_gib * 2**30))
    end = time.monotonic()
    if got.ok:
        return _outcome(got.value, "child")
    return _no_value(got, end, limits)


def _no_value(got, end: float, limits: Limits) -> Outcome:
    """The outcome of a run's process that returned nothing: stopped by its CPU watchdog or its wall-clock
    watchdog, never started (no clock stamp), or died (how, and its last words)."""
    stamp = _stamp(got.run.stderr_tail)
    if stamp is None:
        return Outcome("ERROR", None, f"the run's process {got.error}", Measure(where="child"))
    started, cpu_before = stamp
    wall, kill_at, margin = end - started, limits.wall + limits.margin, limits.margin
    cpu = max(got.run.cpu - cpu_before, 0.0)
    if CPU_STAMP.encode() in got.run.stderr_tail:
        at = limits.time_limit + margin
        why = f"stopped at {at:g} s of CPU time (limit {limits.time_limit:g} s + {margin:g} s margin)"
        return Outcome("UNKNOWN", None, why, Measure(wall, max(cpu, at), got.run.peak_rss, where="child", killed=True,
                                                     termination="cputime"))
    if got.run.timed_out:  # the parent's backstop, past the start allowance: the watchdog did not fire
        return Outcome("UNKNOWN", None, f"killed by the parent at {wall:.3g} s", Measure(
            wall, cpu, got.run.peak_rss, where="child", killed=True, termination="walltime"))
    if wall >= kill_at - KILL_SLACK_SECONDS:
        what = "time limit" if limits.clock == "wall" else "wall-clock safety net"
        return Outcome("UNKNOWN", None, f"killed at {kill_at:g} s ({what} {limits.wall:g} s + {margin:g} s margin)",
                       Measure(kill_at, cpu, got.run.peak_rss, where="child", killed=True, termination="walltime"))
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
    """An :class:`Outcome` from what :func:`_measured_call` returned (in this process or a child's); a solver
    program measured by BenchExec is measured as the program's own tree (its CPU, wall and peak memory)."""
    m = Measure(value["wall"], value["cpu"], value["peak_rss"], where=where)
    kind = value["kind"]
    if kind != "solution":
        return Outcome("refused" if kind == "refused" else "ERROR", None, value["note"], m)
    backend, status, moves, presses, target, seconds, stats, certificates = value["solution"]
    sol = Solution(backend, Status(status), moves, presses, target, seconds, stats, certificates)
    wall, cpu, peak, by = m.wall, m.cpu, m.peak_rss, stats.get("measured_by", "rusage")
    if by == "benchexec":
        wall, cpu, peak = stats["wall"], stats["cpu"], stats["peak_rss"]
    m = Measure(wall, cpu, peak, _seconds(stats, "build_seconds"), _seconds(stats, "export_seconds"),
                seconds, where, termination=stats.get("termination"), measured_by=by)
    if sol.status is Status.UNKNOWN:
        return Outcome("UNKNOWN", sol, str(stats.get("error") or f"no proof within {value['time_limit']:g} s"), m)
    if sol.status is Status.ERROR:
        return Outcome("ERROR", sol, _error_note(str(stats.get("error", "")), value.get("memory_gib")), m)
    return Outcome(sol.status.name, sol, "", m, value.get("problem"))


def _error_note(error: str, memory_gib: float | None) -> str:
    """A run's ERROR message; a library that could not be loaded under the address-space limit ("failed to map
    segment", "cannot allocate memory") says so, with the flag that gives more."""
    if memory_gib and error.startswith("ImportError") and ("map segment" in error or "allocate memory" in error):
        return (f"the memory limit of {memory_gib:g} GiB of address space is too small to load the solver "
                f"(give more with --memory-limit): {error}")
    return error


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


def _call_options(strategy: Strategy, memory_gib: float | None, limits: Limits) -> tuple[float, dict]:
    """The limit the backend gets and its other options: ``memory_limit`` where it declares one (and a limit is
    set); on the CPU clock a solver program gets its CPU limit (``clock``, ``wall_limit``), a built-in backend
    the wall-clock safety net (its own clock is the wall's; the watchdog keeps the CPU limit)."""
    declared = {o.name for o in strategy.method.all_options}
    extra = {"memory_limit": memory_gib} if memory_gib is not None and "memory_limit" in declared else {}
    if limits.clock == "cpu" and "clock" in declared:
        return limits.time_limit, {**extra, "clock": "cpu", "wall_limit": limits.wall}
    return limits.wall, extra


def _measured_call(strategy: Strategy, game: PressSystem, board, limits: Limits, memory_gib: float | None) -> dict:
    """Solve, measured: ``{"kind": "solution" | "refused" | "error", "solution": fields or None, "note",
    "wall", "cpu", "peak_rss", "time_limit"}`` (plain values, so that it crosses a pipe pickled)."""
    time_limit, extra = _call_options(strategy, memory_gib, limits)
    _reset_peak()
    cpu0, t0 = _cpu(), time.perf_counter()
    out = {"kind": "solution", "solution": None, "note": "", "time_limit": limits.time_limit, "problem": None,
           "memory_gib": memory_gib}
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


def measured_child(spec: tuple, game: PressSystem, board, limits: Limits, memory_gib: float | None) -> dict:
    """The run's process (:func:`run_measured`): the strategy ``spec`` (name, backend, options, summary; no
    registration needed), a warm-up (not counted), the clock-start stamp on standard error, and the measured
    solve under the watchdogs (wall clock; on the CPU clock also its CPU time)."""
    strategy = Strategy(*spec)
    _warm_up(strategy, game, limits.time_limit)
    with open(os.devnull, "w") as sink:
        cpu0 = _cpu()
        print(f"{START_STAMP} {time.monotonic()!r} {cpu0!r}", file=sys.stderr, flush=True)
        slack = BENCHEXEC_CHECK_SECONDS if is_program(strategy.method) else 0.0  # BenchExec reports its own kill
        faulthandler.dump_traceback_later(limits.wall + limits.margin + slack, exit=True, file=sink)
        if limits.clock == "cpu" and not (slack and cgroup_run.unavailable() is None):  # BenchExec keeps a program's
            threading.Thread(target=_cpu_watchdog, args=(cpu0 + limits.time_limit + limits.margin,), daemon=True,
                             name="flipgame-cpu-watchdog").start()
        try:
            return _measured_call(strategy, game, board, limits, memory_gib)
        finally:
            faulthandler.cancel_dump_traceback_later()


def _cpu_watchdog(stop_at: float) -> None:
    """Kill this process once its CPU time (every thread's, and its waited-for children's) passes ``stop_at``,
    after writing :data:`CPU_STAMP` on standard error; polls every :data:`CPU_POLL_SECONDS`."""
    while _cpu() < stop_at:
        time.sleep(CPU_POLL_SECONDS)
    os.write(2, f"\n{CPU_STAMP}\n".encode())
    os.kill(os.getpid(), signal.SIGKILL)

"""``external``: any solver program, run on an exported file, its answer read in the competitions' conventions.

The board is written with :mod:`flipgame.encode.export` in the program's format and the
program runs bounded and measured (:func:`flipgame.core.processes.run_bounded`; one call is
:meth:`flipgame.backends.program.Program.run`, this module the descent over its calls): its own
session, the time limit, an address-space limit (``memory_limit`` GiB), a cap on the output
read, its whole process group killed after every call.  What it prints is read as the
community it comes from prints it (:mod:`flipgame.backends.program_output`):

``cnf`` / ``xcnf`` (SAT)
    ``s SATISFIABLE`` / ``s UNSATISFIABLE`` and ``v`` lines of literals (SAT
    competitions), or MiniSat's result file (``SAT`` then the literals) when the
    command names ``{out}``.  A SAT solver decides; the backend descends over the
    bound: the file without a bound gives a first press set of weight w (or
    Impossible), then the file with "at most w - 1 presses" is solved again until
    it is UNSAT, so the last model is a minimum.
``wcnf`` (MaxSAT), ``opb`` / ``opb-xor`` (PB)
    ``o COST``, ``s OPTIMUM FOUND`` / ``s UNSATISFIABLE`` and a ``v`` line (MaxSAT
    Evaluation 2022: a string of 0/1 or literals; PB competition: ``x1 -x2 ...``).
``mps`` / ``lp`` (MIP)
    CBC's solution file (``Optimal - objective value 4`` / ``Infeasible ...``, then
    one line per non-zero column) when the command names ``{out}``.

The command may also name ``{seconds}`` (the whole seconds left of the limit) and
``{memory_mb}``, for the program's own limit flags.  The answer is the program's
claim, passed on as claimed: a press set that reaches no goal is returned as the
witness it claims to be, for the callers' witness checks to reject (``solve`` exits 3),
and a claimed minimum or Impossible is checked by ``solve`` against gauss or a proof
(:mod:`flipgame.verify.checks.claims`).  Output that is no answer (garbage, a crash, no
``s`` line) is ERROR, its message quoting the output, the exit status and the command
line; a time-out is UNKNOWN.  ``stats`` carries the program, its version, the calls and
their summed ``wall`` and ``cpu`` seconds, the largest ``peak_rss`` (bytes; None when every
call ended before it could be measured, see :class:`~flipgame.core.processes.RunResult`), and the limits
(``time_limit`` seconds, ``memory_limit`` GiB).  A program
that is not installed, or lacks its exec bit, is refused before anything runs.

Running time: the program's, plus a process start and a file per call (about
2-10 ms on 4x4).
Source: SAT competition output rules; MaxSAT Evaluation 2022 rules; PB
competition rules (Roussel & Manquinho 2016); CBC's ``solu`` command; runsolver.
"""

from __future__ import annotations

import time

from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, Backend, Option, default_time_limit, no_canonical
from flipgame.backends.program import ANSWERS, DECISION, FORMATS, Call, Program, version_of
from flipgame.backends.result import Solution, Status
from flipgame.core.errors import RefusedError
from flipgame.core.limits import WALL_SAFETY_FACTOR
from flipgame.model.system import PressSystem

RESULT_STATUSES = {"SATISFIABLE": "sat", "OPTIMUM FOUND": "sat", "UNSATISFIABLE": "unsat", "UNSAT": "unsat",
                   "UNKNOWN": "unknown", "INDET": "unknown"}
"""The ``s`` words a program may answer, and what each means; no ``s`` line at all is no answer (ERROR)."""


class ExternalRefused(RefusedError):
    """The program is not installed, or the command cannot be run."""

    about_the_board = False


def _presses(true, n: int) -> int:
    return sum(1 << (v - 1) for v in true if v <= n)


class _Descent:
    """The calls of one board: their summed measures, and the answer as ``(status, presses, stats)``."""

    def __init__(self, prog: Program, version: str, time_limit: float, memory_gib: float | None, clock: str = "wall"):
        self.prog, self.clock = prog, clock
        self.stats = {"program": prog.program, "format": prog.fmt, "calls": 0, "wall": 0.0, "cpu": 0.0,
                      "peak_rss": None, "export_seconds": 0.0, "time_limit": time_limit, "memory_limit": memory_gib,
                      "clock": clock, "termination": None, "measured_by": "rusage"}
        if version:
            self.stats["version"] = version

    def add(self, call: Call) -> None:
        s, run = self.stats, call.run
        s["calls"] += 1
        s["export_seconds"] += call.export_seconds
        s["wall"] += run.wall
        s["cpu"] += run.cpu
        if run.peak_rss is not None:
            s["peak_rss"] = max(s["peak_rss"] or 0, run.peak_rss)
        s["exit_status"], s["signal"] = run.exit_status, run.signal
        s["termination"], s["measured_by"] = run.termination, run.measured_by

    def no_answer(self, status: Status, why: str) -> tuple[Status, None, dict]:
        return status, None, self.stats | {"error": f"{self.prog.program} {why}"}

    def call(self, game: PressSystem, board: int, deadline: float, bound: int | None, memory_gib: float | None,
             time_limit: float) -> Call | tuple[Status, None, dict]:
        """One call that answered SAT or UNSAT (its ``status`` then a key of :data:`RESULT_STATUSES`), or the
        board's final ``(status, None, stats)`` when it gave no answer."""
        remaining = deadline - time.monotonic()
        cpu_left = time_limit - self.stats["cpu"] if self.clock == "cpu" else None
        late = f"did not finish within {time_limit:g} s of {'CPU' if self.clock == 'cpu' else 'wall-clock'} time"
        if remaining <= 0 or (cpu_left is not None and cpu_left <= 0):
            return self.no_answer(Status.UNKNOWN, late if remaining > 0 else "reached the wall-clock safety net")
        try:
            call = self.prog.run(game, board, remaining, bound, memory_gib, cpu_left)
        except OSError as exc:
            return self.no_answer(Status.ERROR, f"cannot be run: {exc.strerror or exc}")
        self.add(call)
        meaning = RESULT_STATUSES.get(call.status.upper())
        if call.run.termination == "memory":
            return self.no_answer(Status.UNKNOWN, f"ran out of memory (limit {memory_gib:g} GiB of resident memory)")
        if call.run.timed_out or (cpu_left is not None and call.run.cpu > cpu_left):
            return self.no_answer(Status.UNKNOWN, late if call.run.termination != "walltime" else
                                  "reached the wall-clock safety net")
        if call.problem:
            return self.no_answer(Status.ERROR, f"printed no answer: {call.problem} ({call.run.describe()})")
        if call.run.over_cap or meaning is None:
            return self.no_answer(Status.ERROR, f"gave no answer: {call.run.describe()}")
        if meaning == "unknown":
            return self.no_answer(Status.UNKNOWN, f"answered {call.status}: {call.run.describe()}")
        return Call(meaning, call.true, call.run)


def solve_external(prog: Program, game: PressSystem, board: int, time_limit: float, memory_gib: float | None = None,
                   version: str = "", clock: str = "wall", wall_limit: float | None = None
                   ) -> tuple[Status, int | None, dict]:
    """``(status, presses, stats)``: one optimisation call, or the SAT descent over the bound.

    ``clock="cpu"``: ``time_limit`` is CPU time over the calls (BenchExec enforces it where it can be used),
    with ``wall_limit`` seconds of wall-clock time as the safety net (default :data:`WALL_SAFETY_FACTOR` x the
    limit).  A press set that reaches no goal ends the descent and is returned as claimed (OPTIMAL, for the
    witness check to reject); a model over the bound asked for is ERROR; see the module docstring.
    """
    wall = time_limit if clock == "wall" else (wall_limit or WALL_SAFETY_FACTOR * time_limit)
    deadline = time.monotonic() + wall
    d = _Descent(prog, version, time_limit, memory_gib, clock)
    bound, best = None, None
    while True:
        call = d.call(game, board, deadline, bound, memory_gib, time_limit)
        if not isinstance(call, Call):
            return call
        if call.status == "unsat":
            return (Status.INFEASIBLE, None, d.stats) if best is None else (Status.OPTIMAL, best, d.stats)
        best = _presses(call.true, game.m)
        if bound is not None and best.bit_count() > bound:
            return d.no_answer(Status.ERROR, f"answered a model of {best.bit_count()} presses to 'at most {bound} "
                                             f"presses': {call.run.command}")
        if game.apply(board, best) not in game.targets or prog.fmt not in DECISION or best == 0:
            return Status.OPTIMAL, best, d.stats
        bound = best.bit_count() - 1


class External(Backend):
    """A solver program on an exported file; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "external", command="cadical -q {file}").moves  # doctest: +SKIP
    4
    """

    name = "external"
    summary = ("an external solver program on an exported DIMACS/WCNF/OPB/MPS/LP file (SAT: descent over the "
               "bound), bounded and measured")
    parallel = True
    max_cells = 40_000
    by_default = False
    options = (
        TIME_LIMIT,
        MEMORY_LIMIT,
        Option("command", str, "cadical -q {file}", "external program: 'PROGRAM ARGS {file}' ({out}: a result "
               "file it writes; {seconds}, {memory_mb}: its limits)", flag="--solver-cmd"),
        Option("format", str, "cnf", "the format the external program reads", choices=FORMATS,
               flag="--solver-format"),
        Option("answer", str, "auto", "how the external program answers: s/v/o lines, or a minisat or cbc "
               "result file at {out}", choices=ANSWERS, flag="--solver-answer"),
        Option("version", str, "", "a command printing the external program's version (recorded)",
               flag="--solver-version"),
        Option("clock", str, "wall", "the clock of the time limit: wall, or cpu (the program's CPU time, measured "
               "and enforced by BenchExec where cgroups can be used)", choices=("wall", "cpu"), flag=""),
        Option("wall_limit", float, None, "with clock cpu: the wall-clock safety net in seconds (default 3 x the "
               "time limit)", minimum=0, positive=True, flag=""),
    )

    def check_options(self, options: dict) -> dict:
        checked = no_canonical(self.name, super().check_options(options))
        Program(checked["command"], checked["format"], checked["answer"])
        return checked

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        return super().refusal(game, options) or Program(options["command"], options["format"],
                                                         options["answer"]).missing()

    def refusal_error(self, game: PressSystem, options: dict) -> type[Exception]:
        return ExternalRefused if self.supports(game) else super().refusal_error(game, options)

    def solve(self, game: PressSystem, board: int, **options) -> Solution:
        options = self.check_options(options)  # defaults filled when called without the gate
        start = time.perf_counter()
        limit = options.get("time_limit") or default_time_limit(game)
        prog = Program(options["command"], options["format"], options["answer"])
        status, presses, stats = solve_external(prog, game, board, limit, options["memory_limit"],
                                                version_of(options["version"]), options["clock"],
                                                options["wall_limit"])
        seconds = time.perf_counter() - start
        if status is not Status.OPTIMAL:
            return Solution(self.name, status, seconds=seconds, stats=stats)
        after = game.apply(board, presses)
        target = after if after in game.targets else game.targets[0]  # a wrong press set keeps its claim
        return Solution(self.name, status, presses.bit_count(), presses, target, seconds, stats)


def is_program(backend: Backend) -> bool:
    """True if ``backend`` runs an external program (the backend itself, or a strategy over it)."""
    return getattr(getattr(backend, "base", backend), "name", None) == External.name


__all__ = ["External", "ExternalRefused", "is_program", "solve_external"]

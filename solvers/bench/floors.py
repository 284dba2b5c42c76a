"""What a solve costs at least: each solver library's fixed cost per call, each model backend's cost per
board on the 4x4 sweep, and the per-board cost of the strategies on small and judge-size boards.

The figures of docs/bench.md's sections "The per-call floor" and "Per-board cost against ``ilp``",
measured by :mod:`flipgame.bench.measure` (``make bench``), each in a fresh Python
(:func:`flipgame.core.workers.run_function`), so that one library's threads or memory never slow the
next.  Every answer of a sweep is compared with gauss's: a wrong answer is never a time (RuntimeError).

Running time: about a minute for the floors and the sweeps; the strategies' table runs each strategy
on 400 small boards and two judge cases under a 30 s limit (several minutes).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np

from flipgame.backends.cpsat import SMALL_MODEL_PARAMETERS
from flipgame.backends.ilp import new_solver
from flipgame.backends.registry import STRATEGIES as REGISTERED
from flipgame.backends.scip import DIRECT_SMALL_SETTINGS, scip_parameters
from flipgame.core.errors import RefusedError
from flipgame.core.native import quiet_stdout
from flipgame.core.workers import run_function
from flipgame.model.grid import Board, Game
from flipgame.model.puzzles import B18, P14
from flipgame.pipeline.gate import solve, solve_batch, solve_strategy
from flipgame.pipeline.session import Session

LIBRARIES = ("cpsat", "scip_ortools", "scip_pyscipopt", "highs", "cryptominisat", "pysat")
"""The libraries whose per-call floor is measured (:func:`library_floor`)."""
SWEEP_BACKENDS = ("cpsat", "sat", "ilp")
"""The model backends of ``make verify``, whose per-board cost on all 65,536 4x4 boards is measured."""
STRATEGIES = ("ilp-scip", "scip-direct", "ilp-highs", "highs-direct", "cpsat", "cpsat-xor", "exact", "rc2",
              "cryptominisat5", "cadical", "cbc")
"""The strategies of the per-board table (docs/bench.md)."""
COLUMNS = ("random", "solvable", "p14", "b18")
"""Its columns: 300 random 4x4 boards, 100 solvable ones (ms per board), the POJ 1681 14x14 case (89) and
the 18x18 board (176) (seconds)."""
STRATEGY_LIMIT = 30.0
"""Seconds per board of the strategies' table."""
CHILD_MAX_SECONDS = 3600.0
"""Longest a measuring child process may take."""


def _cpsat():
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    x = m.new_bool_var("x")
    m.minimize(x)
    domain = m.proto.variables[x.index].domain
    s = cp_model.CpSolver()
    s.parameters.num_workers, s.parameters.cp_model_presolve = 1, False
    for name, value in SMALL_MODEL_PARAMETERS.items():
        setattr(s.parameters, name, value)

    def call(c: int) -> None:
        domain[0] = c
        s.solve(m)
    return call


def _scip_ortools():

    s = new_solver("SCIP", 1)
    x = s.BoolVar("x")
    row = s.Constraint(0, 1)
    row.SetCoefficient(x, 1)
    s.Minimize(x)

    def call(c: int) -> None:
        row.SetBounds(c, 1)
        s.Solve()
    return call


def _scip_pyscipopt():
    import pyscipopt

    m = pyscipopt.Model()
    m.hideOutput()
    m.setParams({**scip_parameters(1), **DIRECT_SMALL_SETTINGS})
    x = m.addVar("x", vtype="B")
    row = m.addCons(x >= 0)
    m.setObjective(x)

    def call(c: int) -> None:
        m.freeTransform()
        m.chgLhs(row, c)
        m.optimize()
    return call


def _highs():
    import highspy

    with quiet_stdout():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.addVar(0, 1)
    h.changeColIntegrality(0, highspy.HighsVarType.kInteger)
    h.changeColCost(0, 1)
    h.addRow(0, 1, 1, np.array([0], dtype=np.int32), np.array([1.0]))

    def call(c: int) -> None:
        h.changeRowBounds(0, c, 1)
        h.run()
    return call


def _cryptominisat():
    import pycryptosat

    s = pycryptosat.Solver()
    s.add_clause([1, 2])
    s.add_xor_clause([1, 2, 3], True)
    return lambda c: s.solve([1 if c else -1])


def _pysat():
    from pysat.solvers import Solver

    s = Solver(name="minisat22")
    s.add_clause([1, 2])
    s.add_clause([-1, 3])
    return lambda c: s.solve(assumptions=[1 if c else -1])


_FLOORS: dict[str, Callable[[], Callable[[int], object]]] = {
    "cpsat": _cpsat, "scip_ortools": _scip_ortools, "scip_pyscipopt": _scip_pyscipopt, "highs": _highs,
    "cryptominisat": _cryptominisat, "pysat": _pysat}


def library_floor(library: str, calls: int = 2000) -> float:
    """Milliseconds of CPU (all the process's threads) per solve call of ``library`` (one of
    :data:`LIBRARIES`) on a one-variable model, minimise ``x`` subject to ``x >= c``, ``c`` alternating
    between 0 and 1 so that no call can be answered from the last one; SCIP and SAT with the settings
    flipgame's backends give small models.  The least of 3 rounds of ``calls``.  KeyError for another name."""
    call = _FLOORS[library]()
    call(0)
    call(1)
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        for i in range(calls):
            call(i & 1)
        best = min(best, time.process_time() - t0)
    return 1e3 * best / calls


def sweep_per_board(backend: str, chunk: int = 1024) -> float:
    """Milliseconds of CPU per board of ``backend`` on all 65,536 4x4 boards, as a ``verify`` worker solves
    them: one :class:`~flipgame.Session`, chunks of ``chunk`` boards, after one warm-up chunk.  RuntimeError
    if an answer differs from gauss's."""

    game = Game(4, 4)
    boards = np.arange(1 << 16, dtype=np.uint64)
    want = solve_batch(boards, game, "gauss").moves
    with Session(backend) as session:
        session.solve_batch(boards[:chunk], game)
        t0 = time.process_time()
        moves = np.concatenate([session.solve_batch(boards[i:i + chunk], game).moves
                                for i in range(0, len(boards), chunk)])
        seconds = time.process_time() - t0
    if (moves != want).any():
        raise RuntimeError(f"{backend} answered {int((moves != want).sum())} 4x4 boards differently from gauss")
    return 1e3 * seconds / len(boards)


def _judge_cases():

    painter = Board.from_rows([r.replace("w", "b").replace("y", "w") for r in P14]).cells
    return {"p14": (Game(14, 14, "white"), painter, 89),
            "b18": (Game(18, 18, "black"), Board.from_rows(B18).cells, 176)}


def strategy_costs(strategy: str) -> dict[str, float | tuple[float, str]]:
    """One row of the strategies' table: wall milliseconds per board over 300 random 4x4 boards
    (``random.Random(0)``, mostly Impossible) and 100 solvable ones, in one Session with the strategy's
    options and a :data:`STRATEGY_LIMIT` s limit, after one warm-up board; then wall seconds of one solve
    of each judge case.  A judge case not answered is ``(limit, "unknown")``, one the strategy refuses
    ``(0, "refused")``.  RuntimeError for an answer that differs from gauss's."""

    s, game, rng = REGISTERED[strategy], Game(4, 4), random.Random(0)
    samples = {"random": [rng.getrandbits(16) for _ in range(300)],
               "solvable": [game.apply(0, rng.getrandbits(16)) for _ in range(100)]}
    out: dict[str, float | tuple[float, str]] = {}
    with Session(s.backend, **s.call_options(STRATEGY_LIMIT)) as session:
        session.solve(1, game=game)
        for column, boards in samples.items():
            t0 = time.perf_counter()
            answers = [session.solve(b, game=game).answer() for b in boards]
            out[column] = 1e3 * (time.perf_counter() - t0) / len(boards)
            if answers != [solve(b, game=game).answer() for b in boards]:
                raise RuntimeError(f"{strategy} answered a 4x4 board differently from gauss")
    for column, (judge, board, answer) in _judge_cases().items():
        t0 = time.perf_counter()
        try:
            got = solve_strategy(s, board, judge, STRATEGY_LIMIT)
        except RefusedError:
            out[column] = (0.0, "refused")
            continue
        if got.answer() == "Unknown":
            out[column] = (STRATEGY_LIMIT, "unknown")
        elif got.moves != answer:
            raise RuntimeError(f"{strategy} answered {got.answer()} on the {column} case, not {answer}")
        else:
            out[column] = time.perf_counter() - t0
    return out


# --- the Measurements of flipgame.bench.measure: each figure measured in a fresh process ------------------


def _in_child(target: str, *args) -> object:
    """``flipgame.bench.floors:target(*args)`` in a fresh Python (:func:`run_function`); RuntimeError if it fails."""
    got = run_function(f"flipgame.bench.floors:{target}", args, CHILD_MAX_SECONDS)
    if not got.ok:
        raise RuntimeError(f"{target}{args}: {got.error}")
    return got.value


def floor_figures(context: dict) -> dict[str, float]:
    return {f"floor.{lib}": _in_child("library_floor", lib) for lib in LIBRARIES}


def per_board_figures(context: dict) -> dict[str, float]:
    return {f"per_board.{b}": _in_child("sweep_per_board", b) for b in SWEEP_BACKENDS}


def strategy_figures(context: dict) -> dict[str, float | tuple[float, str]]:
    out = {}
    for strategy in STRATEGIES:
        for column, value in _in_child("strategy_costs", strategy).items():
            out[f"cost.{strategy}.{column}"] = value
    return out


COLUMN_WHAT = {"random": ("ms", "wall time per board over 300 random 4x4 boards (random.Random(0), mostly "
                                  "Impossible)"),
                "solvable": ("ms", "wall time per board over 100 solvable 4x4 boards"),
                "p14": ("s", "the POJ 1681 14x14 case (89), wall time of one solve"),
                "b18": ("s", "the 18x18 unique-solution board (176), wall time of one solve")}

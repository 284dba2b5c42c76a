"""The measured figures of docs/bench.md's tables outside the per-call floor: the 18x18 board's exchange
files answered by the programs, CP-SAT's formulations at judge sizes, and every strategy of `verify
--strategies all` on a 4x4 sample.

Each function is the ``run`` of a :class:`flipgame.bench.measure.Measurement`; every answer is compared
with gauss's first, and a wrong one raises RuntimeError.  A figure whose program is not installed is
left out (the table keeps its last measured value).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from flipgame.bench.measure import flipgame_run
from flipgame.bench.proofs import random_solvable
from flipgame.model.grid import Game, format_cells
from flipgame.model.puzzles import B18, P14

JUDGE_LIMIT = 10.0
"""``--time-limit`` of the CP-SAT table (seconds a board)."""


def _program(argv: list[str], seconds: float):
    from flipgame.core.processes import run_bounded

    return run_bounded(argv, seconds, output_cap=1 << 20)


def b18_files(context: dict) -> dict[str, object]:
    """The 18x18 board (176) from its exported files: MPS read back by OR-Tools and solved by SCIP,
    ``at most 176`` as CNF by CaDiCaL (SAT), ``at most 175`` as CNF-XOR by CryptoMiniSat (UNSAT)."""
    import time

    work: Path = context["workdir"]
    board = "\n".join(B18) + "\n"
    rules = ("--size", "18x18", "--goal", "black")
    out: dict[str, object] = {}
    mps = work / "b18.mps"
    flipgame_run("export", *rules, "--format", "mps", "-o", str(mps), stdin=board)
    from ortools.linear_solver.python import model_builder

    model = model_builder.Model()
    model.import_from_mps_file(str(mps))
    start = time.perf_counter()
    solver = model_builder.Solver("scip")
    if solver.solve(model) != model_builder.SolveStatus.OPTIMAL or round(solver.objective_value) != 176:
        raise RuntimeError("SCIP did not find 176 from b18.mps")
    out["b18_files.mps_scip"] = time.perf_counter() - start
    for name, fmt, bound, program, want in (("cnf176_cadical", "cnf", 176, ["cadical", "-q"], "s SATISFIABLE"),
                                            ("xcnf175_cms", "xcnf", 175, ["cryptominisat5", "--verb", "0"],
                                             "s UNSATISFIABLE")):
        if shutil.which(program[0]) is None:
            continue
        path = work / f"b18-{bound}.{fmt}"
        flipgame_run("export", *rules, "--format", fmt, "--bound", str(bound), "-o", str(path), stdin=board)
        run = _program([*program, str(path)], 600.0)
        if want not in run.stdout.decode():
            raise RuntimeError(f"{program[0]} on {path.name} did not print {want!r}")
        out[f"b18_files.{name}"] = run.wall
    return out


def b18_cadical_unsat(context: dict) -> dict[str, object]:
    """``at most 175`` as plain CNF refuted by CaDiCaL: parity cut into clauses (minutes)."""
    if shutil.which("cadical") is None:
        return {}
    path = context["workdir"] / "b18-175.cnf"
    flipgame_run("export", "--size", "18x18", "--goal", "black", "--format", "cnf", "--bound", "175", "-o", str(path),
                  stdin="\n".join(B18) + "\n")
    run = _program(["cadical", "-q", str(path)], 3600.0)
    if "s UNSATISFIABLE" not in run.stdout.decode():
        raise RuntimeError("cadical did not refute b18-175.cnf")
    return {"b18_files.cnf175_cadical": run.wall, "b18_files.cnf175_cadical_cpu": run.cpu}


JUDGE_BOARDS = {
    "b18": (("--size", "18x18", "--goal", "black"), "\n".join(B18) + "\n"),
    "p14": (("--format", "painter"), "1\n14\n" + "\n".join(P14) + "\n"),
}
"""The boards of the CP-SAT table (random ones added by :func:`_judge_boards`)."""


def _judge_boards() -> dict[str, tuple[tuple[str, ...], str]]:
    boards = dict(JUDGE_BOARDS)
    for n in (20, 24, 19, 30):
        game, board = random_solvable(n)
        boards[f"r{n}"] = (("--size", game.size, "--goal", "white"), format_cells(board, n, n) + "\n")
    game = Game(30, 30, "white")
    import random

    boards["any30"] = (("--size", "30x30", "--goal", "white"),
                       format_cells(random.Random(30).getrandbits(game.n), 30, 30) + "\n")
    return boards


def cpsat_judge(context: dict) -> dict[str, object]:
    """Each board of the table under CP-SAT's chase and xor formulations, and gauss's answer."""
    out: dict[str, object] = {}
    for name, (args, board) in _judge_boards().items():
        right = flipgame_run("solve", *args, stdin=board).stdout.decode().strip()
        out[f"cpsat_judge.{name}.gauss"] = {"value": 0, "text": right}
        for strategy in ("cpsat", "cpsat-xor"):
            run = flipgame_run("solve", *args, "--strategy", strategy, "--time-limit", f"{JUDGE_LIMIT:g}", "--stats",
                                stdin=board, check=False)
            answer = run.stdout.decode().strip()
            key = f"cpsat_judge.{name}.{strategy}"
            if answer == "Unknown":
                out[key] = {"value": JUDGE_LIMIT, "outcome": "unknown"}
                continue
            if answer != right:
                raise RuntimeError(f"{strategy} answered {answer!r} on {name}, gauss {right!r}")
            seconds = re.search(r"seconds=([0-9.]+)", run.stderr_tail.decode())
            out[key] = float(seconds[1]) if seconds else run.wall
    return out


def verify_strategies(context: dict) -> dict[str, object]:
    """``flipgame verify --size 4x4 --sample 2000 --seed 0 --strategies all``: the run and each strategy."""
    report = context["workdir"] / "strategies.json"
    run = flipgame_run("verify", "--size", "4x4", "--sample", "2000", "--seed", "0", "--strategies", "all",
                        "--report", str(report))
    data = json.loads(report.read_text())
    return {"verify_strategies.wall": run.wall} | {f"verify_strategies.{b['backend']}": b["seconds"]
                                                    for b in data["backends"] if b["backend"] in STRATEGY_KEYS}


STRATEGY_KEYS = ("cbc", "ilp-highs", "highs-direct", "sat-xor-seqcounter", "cryptominisat5", "cadical", "minisat",
                 "exact", "picosat", "rc2")
"""The strategies whose seconds docs/bench.md quotes."""

B18_FIGURES = {
    "b18_files.mps_scip": ("s", "b18.mps read back by OR-Tools model_builder and solved by SCIP (176)"),
    "b18_files.cnf176_cadical": ("s", "cadical -q on b18-176.cnf (SAT), wall time"),
    "b18_files.xcnf175_cms": ("s", "cryptominisat5 on b18-175.xcnf (UNSAT), wall time"),
}
B18_LONG_FIGURES = {
    "b18_files.cnf175_cadical": ("s", "cadical -q on b18-175.cnf (UNSAT), wall time"),
    "b18_files.cnf175_cadical_cpu": ("s", "its CPU time"),
}
JUDGE_FIGURES = {f"cpsat_judge.{name}.{col}": ("s" if col != "gauss" else "", f"{name}: {what}")
                 for name in ("b18", "p14", "r20", "r24", "r19", "r30", "any30")
                 for col, what in (("cpsat", "the cpsat backend (chase), its solve's seconds, 10 s limit"),
                                   ("cpsat-xor", "the cpsat-xor strategy, its solve's seconds, 10 s limit"),
                                   ("gauss", "gauss's answer"))}
STRATEGY_FIGURES = {"verify_strategies.wall": ("s", "flipgame verify --size 4x4 --sample 2000 --seed 0 --strategies "
                                                    "all, wall time")} | {
    f"verify_strategies.{s}": ("s", f"its {s} share") for s in STRATEGY_KEYS}

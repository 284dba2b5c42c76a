"""Every measurement of ``make bench`` (:mod:`flipgame.bench.measure` runs them): the judge stream, the
main job, the 39x39 all-lit board, the exhaustive runs, the start-up, the solver libraries' floors
(:mod:`flipgame.bench.floors`), the certifications (:mod:`flipgame.bench.proofs`) and the programs'
tables (:mod:`flipgame.bench.programs`)."""

from __future__ import annotations

import json
import re
import sys

import numpy as np

from flipgame.bench import cluster, floors, programs, proofs
from flipgame.bench.measure import Measurement, flipgame, flipgame_full, flipgame_run, stream_seconds
from flipgame.core.processes import run_bounded
from flipgame.model.grid import Game, format_cells
from flipgame.model.puzzles import B18


def _verify_4x4(context: dict) -> dict[str, float]:
    report = context["workdir"] / "verify.json"
    wall, _, _ = flipgame("verify", "--size", "4x4", "--report", str(report))
    data = json.loads(report.read_text())
    return {"verify_4x4.wall": wall} | {f"verify_4x4.{b['backend']}": b["seconds"] for b in data["backends"]}


def _all_lit_39(context: dict) -> dict[str, float]:
    board = "\n".join(["b" * 39] * 39) + "\n"
    flipgame("solve", "--size", "39x39", "--goal", "white", stdin=board)  # numba's first compile, not counted
    wall, out, err = flipgame("solve", "--size", "39x39", "--goal", "white", "--stats", stdin=board)
    if out.split() != ["561"]:
        raise RuntimeError(f"the 39x39 all-lit board answered {out!r}, not 561")
    game = Game(39, 39, "white")
    random = game.apply(0, int.from_bytes(np.random.default_rng(39).bytes(191), "little") & game.full)
    _, out, err2 = flipgame("solve", "--size", "39x39", "--goal", "white", "--stats",
                            stdin=format_cells(random, 39, 39) + "\n")
    seconds = float(re.search(r"seconds=([0-9.]+)", err2)[1])
    return {"solve_39x39.wall": wall, "nullity_32.seconds": float(re.search(r"seconds=([0-9.]+)", err)[1]),
            "coset.rate": 2.0 ** 32 / seconds}


def _verify_5x5(context: dict) -> dict[str, float]:
    report = context["workdir"] / "verify5.json"
    run = flipgame_run("verify", "--size", "5x5", "--exhaustive", "--backends", "gauss,bfs", "--report", str(report))
    return {"verify_5x5.wall": run.wall, "verify_5x5.peak_mib": (run.peak_rss or 0) / 2**20}


def _verify_z3(context: dict) -> dict[str, float]:
    report = context["workdir"] / "verify_z3.json"
    wall, _, _ = flipgame("verify", "--states", "3", "--size", "3x3", "--report", str(report))
    data = json.loads(report.read_text())
    return {"verify_z3_3x3.wall": wall} | {f"verify_z3_3x3.{b['backend']}": b["seconds"] for b in data["backends"]}


def _scaling(context: dict) -> dict[str, float]:
    """The 18x18 unique-solution board (176) on every default backend that takes it."""
    board = "".join(row + "\n" for row in B18)
    out = {}
    for backend in ("gauss", "sat", "ilp", "cpsat"):
        _, answer, err = flipgame("solve", "--size", "18x18", "--goal", "black", "--backend", backend, "--stats",
                                  stdin=board)
        if answer.split() != ["176"]:
            raise RuntimeError(f"{backend} answered {answer!r} on the 18x18 board, not 176")
        out[f"b18.{backend}"] = float(re.search(r"seconds=([0-9.]+)", err)[1])
    return out


BEYOND = [n for n in range(80, 123) if n not in (95, 119)]
"""The terms past the published b-file that take seconds (95 has nullity 62, 119 nullity 46: the long run)."""


def _term_figures(err: str, *, with_check: bool) -> dict[str, object]:
    """Each ``a(n) = v: nullity k, ..., s s[; second check: how]`` line of ``study --all-lit``'s stderr as the
    figures ``a075464.n.value``, ``.nullity``, ``.seconds`` (and ``.check``: its text, its value the nullity)."""
    out: dict[str, object] = {}
    for m in re.finditer(r"a\((\d+)\) = (\d+): nullity (\d+), .*?, ([0-9.]+) s(?:; second check: ([^\n]+))?", err):
        n = int(m[1])
        out[f"a075464.{n}.value"] = {"value": int(m[2]), "text": m[2]}
        out[f"a075464.{n}.nullity"] = {"value": int(m[3]), "text": m[3]}
        out[f"a075464.{n}.seconds"] = float(m[4])
        if with_check:
            out[f"a075464.{n}.check"] = {"value": int(m[3]), "text": m[5]}
    return out


def _all_lit_beyond(context: dict) -> dict[str, object]:
    """OEIS A075464 past the published b-file, n = 80..122 but 95 and 119: each term, its nullity, its seconds
    (the second check included) and how the second check confirmed it."""
    wall, _, err = flipgame_full("study", "--all-lit", "80..94,96..118,120..122")
    out: dict[str, object] = {"a075464_80_122.wall": wall, **_term_figures(err, with_check=True)}
    if len(out) != 1 + 4 * len(BEYOND):
        raise RuntimeError(f"study --all-lit 80..122 printed {(len(out) - 1) // 4} checked terms, not {len(BEYOND)}")
    return out


def _torus_256(context: dict) -> dict[str, object]:
    """gauss (the banded elimination) on a 256x256 torus board per neighbourhood and state count: a solvable
    board (a seeded random press vector applied to the goal board), or where gauss refuses its minimum (the
    king torus over Z_3 has nullity 511) a random board, which is Impossible with a certificate."""
    import random

    out: dict[str, object] = {}
    for nb in ("plus", "king", "cross"):
        for k in (2, 3):
            goal = "white" if k == 2 else "0"
            game = Game(256, 256, goal, wrap=True, neighbourhood=nb, states=k)
            rng = random.Random(256 * k)
            presses = tuple(rng.randrange(k) for _ in range(game.cells))
            solvable = game.apply((0,) * game.cells if k > 2 else 0,
                                  presses if k > 2 else sum(v << i for i, v in enumerate(presses)))
            scrambled = tuple(rng.randrange(k) for _ in range(game.cells)) if k > 2 else rng.getrandbits(game.cells)
            args = ("solve", "--size", "256x256", "--wrap", "--neighbourhood", nb, "--states", str(k), "--goal", goal,
                    "--backend", "gauss")
            run = flipgame_run(*args, stdin=game.format_board(solvable) + "\n", check=False)
            if run.exit_status == 5:  # the minimum refused (nullity): a random board, answered Impossible
                run = flipgame_run(*args, stdin=game.format_board(scrambled) + "\n")
            answer = run.stdout.decode().strip()
            if not (answer.isdigit() or answer == "Impossible"):
                raise RuntimeError(f"gauss answered {answer[:80]!r} on a 256x256 {nb} torus")
            out[f"torus_256.{nb}.{k}"] = {"value": run.wall, "text": f"{run.wall:.1f} s ({answer})"}
    return out


def _all_lit_long(context: dict) -> dict[str, object]:
    """OEIS A075464 for n = 55..78 (the published table's hardest terms, 61 and 65 at nullity 40 and 42):
    each term, its nullity and its seconds, and the whole run."""
    wall, _, err = flipgame_full("study", "--all-lit", "55..78")
    out: dict[str, object] = {"a075464_55_78.wall": wall, **_term_figures(err, with_check=False)}
    if len(out) != 1 + 3 * 24:
        raise RuntimeError(f"study --all-lit 55..78 printed {len(out) // 3} terms, not 24")
    return out


NUMPY_IMPORT = "import os; os.environ['OPENBLAS_NUM_THREADS'] = '1'; import numpy"
"""numpy's import as flipgame does it (one BLAS thread, :mod:`flipgame.core.signals`)."""


def _startup(context: dict) -> dict[str, float]:
    board = "bwwb\nbbwb\nbwwb\nbwww\n"
    flipgame("solve", stdin=board)  # bytecode compiled, files cached
    walls = sorted(flipgame("solve", stdin=board)[0] for _ in range(5))
    python = sorted(run_bounded([sys.executable, "-c", "pass"], 60).wall for _ in range(5))
    numpy = sorted(run_bounded([sys.executable, "-c", NUMPY_IMPORT], 60).wall for _ in range(5))
    return {"startup.one_board": walls[2], "startup.python": python[2], "startup.numpy": numpy[2]}


def _stream(context: dict) -> dict[str, float]:
    row = stream_seconds(Game(4, 4), context.get("reference"))
    out = {"stream_4x4.flipgame": row["flipgame_seconds"]}
    if row.get("times_reference") is not None:
        out |= {"stream_4x4.reference": row["reference_seconds"], "stream_4x4.ratio": row["times_reference"]}
    return out


MEASUREMENTS: dict[str, Measurement] = {m.name: m for m in (
    Measurement("stream_4x4", {
        "stream_4x4.flipgame": ("s", "flipgame solve on all 65,536 4x4 boards as one stdin stream, wall time"),
        "stream_4x4.reference": ("s", "the POJ 1753 reference C++ on the same stream, wall time"),
        "stream_4x4.ratio": ("x", "flipgame's time over the reference's"),
    }, _stream),
    Measurement("verify_4x4", {
        "verify_4x4.wall": ("s", "make verify's job: flipgame verify --size 4x4 (every default backend on all 65,536 "
                                 "boards), wall time"),
        **{f"verify_4x4.{b}": ("s", f"its {b} share (the backend's solve time)")
           for b in ("gauss", "bfs", "cpsat", "sat", "ilp")},
    }, _verify_4x4),
    Measurement("all_lit_39", {
        "solve_39x39.wall": ("s", "flipgame solve --size 39x39 --goal white on the all-lit board (561), wall time"),
        "nullity_32.seconds": ("s", "its minimum over the 2**32 null-space combinations, reduced by the board's 8 "
                                    "symmetries (--stats seconds)"),
        "coset.rate": ("/s", "null-space combinations enumerated per second on a random solvable 39x39 board (no "
                             "symmetry), the rate of every estimate"),
    }, _all_lit_39),
    Measurement("verify_5x5", {
        "verify_5x5.wall": ("s", "flipgame verify --size 5x5 --exhaustive --backends gauss,bfs (all 33,554,432 "
                                 "boards), wall time"),
        "verify_5x5.peak_mib": ("MiB", "its peak resident memory"),
    }, _verify_5x5),
    Measurement("verify_z3_3x3", {
        "verify_z3_3x3.wall": ("s", "flipgame verify --states 3 --size 3x3 (all 19,683 boards, every default backend "
                                    "that takes three states), wall time"),
        **{f"verify_z3_3x3.{b}": ("s", f"its {b} share") for b in ("gauss", "bfs", "cpsat", "ilp")},
    }, _verify_z3),
    Measurement("a075464_80_122", {
        "a075464_80_122.wall": ("s", "flipgame study --all-lit 80..122 without 95 and 119, wall time, second checks "
                                     "included"),
        **{f"a075464.{n}.{col}": (unit, f"a({n}): {what}") for n in BEYOND
           for col, unit, what in (("value", "", "the term"), ("nullity", "", "the nullity"),
                                   ("seconds", "s", "its seconds, elimination and second check included"),
                                   ("check", "", "how the second check confirmed it"))},
    }, _all_lit_beyond),
    Measurement("torus_256", {f"torus_256.{nb}.{k}": ("s", f"flipgame solve --backend gauss on a solvable 256x256 "
                                                        f"{nb} torus board over {k} states, wall time")
                              for nb in ("plus", "king", "cross") for k in (2, 3)}, _torus_256),
    Measurement("b18", {f"b18.{b}": ("s", f"the 18x18 unique-solution board (176 presses, goal black) on {b}, the "
                                          f"solve's seconds") for b in ("gauss", "sat", "ilp", "cpsat")}, _scaling),
    Measurement("floors", {f"floor.{lib}": ("ms", f"one {lib.replace('_', ' through ')} solve call on a one-variable "
                                                  f"model, a bound changed between calls: CPU time (the library's "
                                                  f"fixed cost per call)") for lib in floors.LIBRARIES},
                floors.floor_figures),
    Measurement("per_board", {f"per_board.{b}": ("ms", f"{b} per board on all 65,536 4x4 boards as a verify worker "
                                                       f"solves them (one Session, chunks of 1024): CPU time")
                              for b in floors.SWEEP_BACKENDS}, floors.per_board_figures),
    Measurement("strategy_costs", {f"cost.{st}.{col}": (unit, f"{st}: {what}, 30 s limit")
                                   for st in floors.STRATEGIES for col, (unit, what) in floors.COLUMN_WHAT.items()},
                floors.strategy_figures),
    Measurement("certify", proofs.CERTIFY_FIGURES, proofs.measure_certify),
    Measurement("b18_files", programs.B18_FIGURES, programs.b18_files),
    Measurement("cpsat_judge", programs.JUDGE_FIGURES, programs.cpsat_judge),
    Measurement("verify_strategies", programs.STRATEGY_FIGURES, programs.verify_strategies),
    Measurement("a79", proofs.A79_FIGURES, proofs.measure_a79),
    Measurement("startup", {
        "startup.one_board": ("s", "flipgame solve on one 4x4 board, wall time (median of 5, bytecode cached)"),
        "startup.python": ("s", "python -c pass, wall time (the interpreter's own start)"),
        "startup.numpy": ("s", "python -c 'import numpy' with one BLAS thread (as flipgame loads it), wall time"),
    }, _startup),
)}
"""Every measurement of ``make bench``, in the order it runs."""
LONG_MEASUREMENTS: dict[str, Measurement] = {m.name: m for m in (
    Measurement("certify_long", proofs.CERTIFY_LONG_FIGURES, proofs.measure_certify_long),
    Measurement("certify_tree", proofs.CERTIFY_TREE_FIGURES, proofs.measure_certify_tree),
    Measurement("b18_cadical_unsat", programs.B18_LONG_FIGURES, programs.b18_cadical_unsat),
    Measurement("a075464_65_cluster", cluster.CLUSTER_FIGURES, cluster.measure_cluster),
    Measurement("a075464_55_78", {
        "a075464_55_78.wall": ("s", "flipgame study --all-lit 55..78 (OEIS A075464's terms 55 to 78), wall time"),
        **{f"a075464.{n}.{col}": (unit, f"a({n}): {what}") for n in range(55, 79)
           for col, unit, what in (("value", "", "the term"), ("nullity", "", "the nullity"),
                                   ("seconds", "s", "its seconds, elimination included"))},
    }, _all_lit_long),
)}
"""Measurements taken only when named (``flipgame bench --measure a075464_55_78``): up to an hour."""

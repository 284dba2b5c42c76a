"""``flipgame bench``: every backend over all boards of a size, side by side."""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

from flipgame.backends.registry import BACKENDS, STRATEGIES
from flipgame.bench.measure import (
    REFERENCE_TIMEOUT,
    markdown,
    measure,
    stream_seconds,
    update_docs,
    write,
)
from flipgame.bench.measurements import LONG_MEASUREMENTS, MEASUREMENTS
from flipgame.cli.arguments import count_up_to, positive_seconds
from flipgame.cli.common import (
    ExitCode,
    add_rule_options,
    backend_list,
    fail,
    strategy_names,
    writable_path,
    write_json,
)
from flipgame.cli.rules import game_from_args
from flipgame.core.errors import FlipgameError
from flipgame.core.limits import BENCH_MAX_CELLS, JOBS_MAX, STARTUP_MAX_SECONDS, STARTUP_RUNS_MAX, TIMED_BOARDS_MAX
from flipgame.core.measured import MEASURED_FILE
from flipgame.core.processes import run_bounded
from flipgame.core.tables import format_table
from flipgame.model.boards import random_boards
from flipgame.model.grid import Board, Game
from flipgame.model.puzzles import B18, P14
from flipgame.pipeline.gate import solve_batch, solve_strategy
from flipgame.verify.run.harness import run_agreement


def add_parser(sub) -> None:
    bp = sub.add_parser("bench", description="Benchmark: every backend over all boards of the rules in this process "
                                    f"(per-board solvers in --jobs workers; at most {BENCH_MAX_CELLS} cells of two "
                                    f"states, or 2**{BENCH_MAX_CELLS} boards), boards/s, speed ratios, and the "
                                    "start-up time of `flipgame solve` on one board per backend.")
    bp.add_argument("--backends", type=backend_list, metavar="LIST",
                    help="comma-separated backends (default: those verify runs without being named that take the "
                         "rules; maxsat, pb, mip and external programs only when named)")
    bp.add_argument("--jobs", type=count_up_to(JOBS_MAX), default=os.cpu_count() or 1, metavar="N",
                    help="worker processes for per-board solvers (default: all cores; at most four per core)")
    bp.add_argument("--startup-runs", type=count_up_to(STARTUP_RUNS_MAX), default=3, metavar="N",
                    help=f"process starts timed per backend; the median is reported (default 3, at most "
                         f"{STARTUP_RUNS_MAX})")
    bp.add_argument("--json", default="flipgame-bench.json", metavar="FILE",
                    help="where to save the table as JSON (default flipgame-bench.json)")
    bp.add_argument("--strategies", type=strategy_names, nargs="?", const="all", metavar="all|LIST",
                    help="also time every strategy (or the listed ones) on a 4x4 sample and on the scaling "
                         "inputs: the 18x18 unique-solution board, the POJ 1681 14x14 case, 39x39 all-lit")
    bp.add_argument("--sample", type=count_up_to(TIMED_BOARDS_MAX), default=500, metavar="N",
                    help=f"4x4 boards per strategy for its boards/s (default 500, at most {TIMED_BOARDS_MAX:,})")
    bp.add_argument("--time-limit", type=positive_seconds, default=20.0, metavar="SECONDS",
                    help="per-board limit for the strategies on the scaling inputs (default 20)")
    bp.add_argument("--reference", metavar="PROGRAM",
                    help="also time PROGRAM (e.g. the POJ 1753 C++ reference, compiled; it reads boards of --size) "
                         f"on the same stream of all boards as `flipgame solve --backend gauss`, for at most "
                         f"{REFERENCE_TIMEOUT:g} s, and count the answers that differ")
    bp.add_argument("--measure", nargs="?", const="all", metavar="all|LIST",
                    help="instead: measure the figures the docs and help texts quote (" + ", ".join(MEASUREMENTS)
                         + "), as a user runs the commands, write them to the package's measured.json with the "
                         "date, the machine and its load, and rewrite the docs' markers under --docs")
    bp.add_argument("--docs", default=".", metavar="DIR",
                    help="with --measure: the checkout whose README.md and docs/*.md quote the figures (default .)")
    add_rule_options(bp, backend_options=False)
    bp.set_defaults(run=run)


def scaling_inputs() -> list[tuple[str, Game, int, int]]:
    """(name, rules, board, right value) of the backend-scaling issue's items 1, 2 and 6."""
    painter = Board.from_rows([r.replace("w", "b").replace("y", "w") for r in P14]).cells
    return [("18x18 unique (176)", Game(18, 18, "black"), Board.from_rows(B18).cells, 176),
            ("POJ 1681 n=14 (89)", Game(14, 14, "white"), painter, 89),
            ("39x39 all-lit (561)", Game(39, 39, "white"), (1 << 1521) - 1, 561)]


def _progress(row: dict) -> str:
    """One strategy's row as its progress line: ``4x4 82,401 boards/s, 18x18 0.002 s, ...``."""
    parts = [f"4x4 {row['boards_per_second_4x4']:,.0f} boards/s"] if "boards_per_second_4x4" in row else []
    parts += [f"{k} {v} s" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()
              if k not in ("strategy", "boards_per_second_4x4")]
    return ", ".join(parts)


def bench_strategies(names: list[str], sample: int, time_limit: float) -> list[dict]:
    """Per strategy: boards/s on a seeded 4x4 sample (goal any) and seconds on each scaling input.

    A wrong answer on a scaling input raises RuntimeError: a benchmark never reports a wrong number
    as a time.
    """
    import time

    import numpy as np


    boards = random_boards(Game(4, 4), np.random.default_rng(0), sample)
    inputs = scaling_inputs()
    rows = []
    for name in names:
        st = STRATEGIES[name]
        row: dict = {"strategy": name}
        game = Game(4, 4)
        if st.applies(game):
            t0 = time.perf_counter()
            solve_batch(boards, game, st.backend, **st.call_options(time_limit))
            row["boards_per_second_4x4"] = round(sample / (time.perf_counter() - t0), 1)
        for label, g, board, right in inputs:
            if not st.applies(g):
                row[label] = "refused"
                continue
            t0 = time.perf_counter()
            try:
                s = solve_strategy(st, board, g, time_limit)
            except FlipgameError as exc:
                row[label] = f"refused ({type(exc).__name__})"
                continue
            seconds = time.perf_counter() - t0
            if s.success and s.moves != right:
                raise RuntimeError(f"{name} answered {s.moves} on {label}")
            row[label] = round(seconds, 3) if s.success else f"Unknown ({seconds:.0f} s)"
        print(f"  {name}: {_progress(row)}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def startup_seconds(backend: str, game: Game, runs: int) -> float:
    """Median wall time of `python -m flipgame solve --backend NAME` on one all-white board."""
    import statistics

    board = ("\n".join(["w" * game.cols] * game.rows) + "\n").encode()
    cmd = [sys.executable, "-m", "flipgame", "solve", "--backend", backend, "--size", game.size]
    times = []
    for _ in range(runs):
        run = run_bounded(cmd, STARTUP_MAX_SECONDS, stdin=board)
        if run.exit_status != 0:
            raise RuntimeError(f"`{run.command}` {run.ended}: {run.tail()}")
        times.append(run.wall)
    return statistics.median(times)


def _backend_rows(args: argparse.Namespace, game, report, startup: bool = True) -> list[dict]:
    """One JSON row per backend of the agreement run: speed, relative speed, workers, start-up time."""
    fastest = min(s.seconds for s in report.summaries)
    rows = []
    for s in report.summaries:
        rows.append({
            "backend": s.backend,
            "boards": s.boards,
            "seconds": round(s.seconds, 6),  # the table and progress line round it once, to 3 places
            "boards_per_second": round(s.boards_per_second, 1),
            "times_fastest": round(s.seconds / fastest, 1),
            "workers": args.jobs if BACKENDS[s.backend].parallel else 1,
            "startup_seconds": round(startup_seconds(s.backend, game, args.startup_runs), 3) if startup else None,
        })
    return rows


def _stream_line(args: argparse.Namespace, stream: dict) -> str:
    """The printed line on the stdin stream timing, with the reference program's outcome if any."""
    line = (f"\nStream: `flipgame solve --backend gauss` on all {stream['boards']} boards through stdin: "
            f"{stream['flipgame_seconds']:.2f} s")
    if args.reference and stream["reference_seconds"] is None:
        line += f"; {args.reference} {stream['reference_exit']}"
    elif args.reference and stream["reference_exit"]:
        line += (f"; {args.reference} {stream['reference_exit']} after {stream['reference_seconds']:.2f} s "
                 f"(no speed ratio), {stream['reference_differs']} answers differ from flipgame's")
    elif args.reference:
        line += (f"; {args.reference}: {stream['reference_seconds']:.2f} s ({stream['times_reference']:.1f}x), "
                 f"{stream['reference_differs']} answers differ from flipgame's")
    return line


def _bench_strategies_table(args: argparse.Namespace) -> list[dict]:
    """Benchmark ``args.strategies``, print their table and return its rows."""
    print(f"\nStrategies: {args.sample} random 4x4 boards each, then the scaling inputs under a "
          f"{args.time_limit:g} s limit ...", file=sys.stderr)
    strategy_rows = bench_strategies(args.strategies, args.sample, args.time_limit)
    labels = [label for label, *_ in scaling_inputs()]
    head = ("strategy", "4x4 boards/s", *labels)
    table = [head] + [(r["strategy"], f"{r['boards_per_second_4x4']:,.0f}" if "boards_per_second_4x4" in r
                       else "refused", *(str(r[label]) for label in labels)) for r in strategy_rows]
    print()
    print(format_table(table))
    return strategy_rows


def doc_files(root: str) -> list[Path]:
    """The README and docs/*.md of the checkout ``root`` (those that exist)."""
    base = Path(root)
    return [p for p in [base / "README.md", *sorted((base / "docs").glob("*.md"))] if p.is_file()]


def run_measure(args: argparse.Namespace) -> ExitCode:
    """``--measure``: every figure measured, written to the package's table and into the docs' markers."""
    names = list(MEASUREMENTS) if args.measure == "all" else [n.strip() for n in args.measure.split(",")]
    unknown = [n for n in names if n not in MEASUREMENTS and n not in LONG_MEASUREMENTS]
    if unknown:
        return fail(ExitCode.USAGE, f"--measure: unknown {', '.join(unknown)}; valid: all or "
                                    f"{', '.join([*MEASUREMENTS, *LONG_MEASUREMENTS])}")
    try:
        runs = [MEASUREMENTS.get(n) or LONG_MEASUREMENTS[n] for n in names]
        table = measure(runs, args.reference, progress=lambda n: print(f"  measuring {n} ...", file=sys.stderr,
                                                                        flush=True))
    except RuntimeError as exc:
        return fail(ExitCode.DISAGREEMENT, f"a measured command failed: {exc}")
    table = write(table)
    changed = update_docs(table, doc_files(args.docs))
    if (Path(args.docs) / "docs").is_dir():
        (Path(args.docs) / "docs" / "measured.md").write_text(markdown(table), encoding="utf-8")
    print(f"Measured {len(table['figures'])} figures ({machine_line_of(table)}); written to {MEASURED_FILE}; "
          f"docs rewritten: {', '.join(p.name for p in changed) or 'none'}")
    return ExitCode.OK


def machine_line_of(table: dict) -> str:
    m = table["machine"]
    return f"{m['cpu']}, {m['cores']} cores, load {table['load']['before']} -> {table['load']['after']}"


def _reference(args: argparse.Namespace) -> str | None:
    """``--reference`` as a full path; FlipgameError if it is no executable program."""
    if args.reference is None:
        return None
    import shutil

    found = shutil.which(args.reference)
    if found is None:
        raise FlipgameError(f"--reference {args.reference}: not an executable program (a path, or a name on PATH)")
    return found


def run(args: argparse.Namespace) -> ExitCode:
    try:
        game = game_from_args(args)
        writable_path(args.json, "--json")
        args.reference = _reference(args)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if args.measure is not None:
        return run_measure(args)
    names = args.backends or [n for n, b in BACKENDS.items()
                              if b.by_default and b.refusal(game.normal, b.check_options({})) is None]
    total = (game.states or 0) ** game.n
    if total > 1 << BENCH_MAX_CELLS or any(BACKENDS[n].refusal(game.normal, BACKENDS[n].check_options({}))
                                           for n in names):
        return fail(ExitCode.REFUSED, f"bench solves every board (at most 2**{BENCH_MAX_CELLS}); {game.rules} "
                                      f"is too large, or not taken, for {', '.join(names)}")
    print(f"Benchmark: {', '.join(names)} on all {total:,} boards of {game.rules}, "
          f"{args.jobs} worker(s) for per-board solvers ...", file=sys.stderr)
    report = run_agreement(game, names, jobs=args.jobs,
                           on_backend_done=lambda s: print(f"  {s.backend}: {s.seconds:.3f} s", file=sys.stderr))
    if not report.completed:  # Ctrl-C: the run kept what finished, but a benchmark of part of it is no benchmark
        return fail(ExitCode.INTERRUPTED, f"interrupted: the benchmark did not finish; {args.json} not written")
    grid = args.rules is None and game.binary  # a grid of --size, which `flipgame solve` is timed on
    rows = _backend_rows(args, game, report, startup=grid)
    head = ("backend", "boards", "seconds", "boards/s", "x fastest", "workers", "solve start-up s")
    table = [head] + [(r["backend"], r["boards"], f"{r['seconds']:.3f}", f"{r['boards_per_second']:,.0f}",
                       f"{r['times_fastest']:.1f}", r["workers"],
                       "-" if r["startup_seconds"] is None else f"{r['startup_seconds']:.3f}") for r in rows]
    print(format_table(table))
    result = {"game": game.size, "rules": game.rules, "jobs": args.jobs, "cpus": os.cpu_count(),
              "python": platform.python_version(), "machine": platform.machine(), "agree": report.ok, "backends": rows}
    stream = stream_seconds(game, args.reference) if grid else {"reference_differs": None}
    if grid:  # the judge stream: POJ 1753 text, a two-state grid's format
        result["stream"] = stream
        print(_stream_line(args, stream))
    if args.strategies:
        result["strategies"] = _bench_strategies_table(args)
        result["strategy_time_limit"] = args.time_limit
    if write_json(args.json, result, "benchmark"):
        return ExitCode.USAGE
    reference = (f" (the reference program is not among them: {stream['reference_differs']} of its answers "
                 f"differ)" if args.reference and stream["reference_differs"] else "")
    print(f"\nSaved {args.json}. All backends agree: {'yes' if report.ok else 'NO'}{reference}.")
    return ExitCode.OK if report.ok else ExitCode.DISAGREEMENT

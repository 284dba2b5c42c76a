"""``flipgame study``: the structure of one rule set and, on request, backend timings; with
``--strategies``, named strategies across instance families, every answer cross-checked.

Here: the command's arguments, one function per group, and the runs of its modes; the ``--all-lit``
mode is :mod:`flipgame.cli.study_all_lit`, the ``--strategies`` mode's limits, suite, progress and
files :mod:`flipgame.cli.study_strategies`."""

from __future__ import annotations

import argparse
import json
import os
import sys

from flipgame.backends.registry import STRATEGIES
from flipgame.cli import common
from flipgame.cli.arguments import count_up_to, positive_int, positive_seconds, seed_int
from flipgame.cli.common import ExitCode, fail, name_list, writable_path
from flipgame.cli.rules import game_from_args
from flipgame.cli.study_all_lit import run_all_lit
from flipgame.cli.study_report import run_report
from flipgame.cli.study_strategies import (
    plan_source,
    print_metrics,
    print_progress,
    rules_plan,
    strategy_limits,
    suite_plan_of,
    write_metrics,
)
from flipgame.core import extras
from flipgame.core.errors import FlipgameError, RefusedError, RulesError
from flipgame.core.limits import (
    BOARDS_PER_SIZE_MAX,
    MEASURE_MARGIN_SECONDS,
    MEMORY_LIMIT_GIB,
    REPEAT_MAX,
    STRATEGY_BUDGET,
    STRATEGY_TIME_LIMIT,
    TIMED_BOARDS_MAX,
)
from flipgame.study.compare import StudyInterrupted, compare_strategies
from flipgame.study.families import FAMILIES
from flipgame.study.family_table import table_format
from flipgame.study.figures import TOP_DEFAULT, figure_format, plot_strategies
from flipgame.study.structure import plot, study


def _figure_path(text: str) -> str:
    try:
        figure_format(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _table_path(text: str) -> str:
    try:
        table_format(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _top(text: str) -> int:
    if text.strip() == "all":
        return 10**6
    return positive_int(text)


def _pairs(text: str) -> list[tuple[str, str]]:
    pairs = [tuple(p.strip().split(":")) for p in text.split(",") if p.strip()]
    if not pairs or any(len(p) != 2 or not all(p) for p in pairs):
        raise argparse.ArgumentTypeError(f"expected pairs of strategies A:B, comma-separated, got {text!r}")
    return pairs


def _families(text: str) -> list[str]:
    return name_list(text, list(FAMILIES), "family", allow_all=True)


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        sizes = []
    if not sizes or any(not 1 <= n <= 2000 for n in sizes):
        raise argparse.ArgumentTypeError(f"expected comma-separated board sides from 1 to 2000, e.g. 4,8,12; "
                                         f"got {text!r}")
    return sizes


def add_parser(sub) -> None:
    sp = sub.add_parser(
        "study",
        description="Study one rule set: rank and nullity, quiet patterns, solvable boards, the distribution of "
                    "minimum presses (bfs table up to 24 cells, coset enumeration up to 28, binomial at nullity "
                    "0), and with --backends each backend's time per board on a random sample. With --strategies, "
                    "run named strategies across instance families instead (each board under --time-limit, the "
                    "whole run under --budget), cross-check every answer and print a table per strategy x family.",
        epilog="Strategies: " + "; ".join(f"{n} ({s.backend}: {s.summary})" for n, s in STRATEGIES.items())
               + ". Families: " + "; ".join(f"{n} ({f.summary}; sizes {','.join(map(str, f.sizes))})"
                                           for n, f in FAMILIES.items()) + ".")
    sp.add_argument("action", nargs="?", choices=("report",),
                    help="report RUNS: re-score and redraw a finished study from its --csv or --json file, with the "
                         "output options of --strategies (--html, --cactus, --table, ...); no solver runs")
    sp.add_argument("data", nargs="?", metavar="RUNS", help="with report: the study's CSV or JSON file")
    _add_structure_arguments(sp)
    group = sp.add_argument_group("strategies x families (--strategies)")
    _add_strategy_run_arguments(group)
    _add_strategy_output_arguments(group)
    _add_all_lit_arguments(sp.add_argument_group("the all-lit board, OEIS A075464 (--all-lit)"))
    common.add_rule_options(sp)
    common.add_strategies_file(sp)
    sp.set_defaults(run=run)


def _add_structure_arguments(sp) -> None:
    """The study of one rule set: the backends timed, the sample, the seed, the plot, JSON."""
    sp.add_argument("--backends", type=common.backend_list, metavar="LIST",
                    help="backends to time on a random sample (default: none, structure only)")
    sp.add_argument("--sample", type=count_up_to(TIMED_BOARDS_MAX), default=200, metavar="N",
                    help=f"random boards per backend for the timings (default 200, at most {TIMED_BOARDS_MAX:,})")
    sp.add_argument("--seed", type=seed_int, metavar="S", help="random seed (default 0)")
    sp.add_argument("--plot", type=_figure_path, metavar="FILE",
                    help="draw the distribution and the timings; with --strategies, seconds against size per "
                         "strategy, one panel per family (.png, .pdf or .svg)")
    sp.add_argument("--json", nargs="?", const="-", metavar="FILE",
                    help="write everything as JSON to FILE (the text still prints); without FILE print the JSON "
                         "instead of the text")


def _add_strategy_run_arguments(group) -> None:
    """``--strategies``: what runs (strategies, instances, how) and within which budget."""
    group.add_argument("--strategies", nargs="?", const="all", metavar="all|LIST",
                       help="run these strategies (default all) across the families, or with rule options "
                            "(--rules, --size, --states, ...) on --boards random boards of that one rule set; "
                            "--backends does not apply")
    group.add_argument("--families", type=_families, metavar="all|LIST",
                       help=f"instance families (default all: {', '.join(FAMILIES)})")
    group.add_argument("--sizes", type=_sizes, metavar="N,N,...",
                       help="board sides n (n x n) for every family chosen (default: each family's own)")
    group.add_argument("--boards", type=count_up_to(BOARDS_PER_SIZE_MAX), metavar="K",
                       help=f"random boards per size (default 2, at most {BOARDS_PER_SIZE_MAX:,}; all-lit has one)")
    group.add_argument("--run-all", action="store_true",
                       help="run every strategy on every instance within the budget (default: after a time-out a "
                            "strategy does not run the family's later, no smaller boards; those are scored as "
                            "unsolved for it)")
    group.add_argument("--in-process", action="store_true",
                       help="run the strategies in this process: no process start per run, but only the backends' "
                            "own time limits hold (rc2 has none) and no memory limit (default: a process of its own "
                            f"per run, killed {MEASURE_MARGIN_SECONDS:g} s past --time-limit, its address space "
                            "bounded by --memory-limit)")
    group.add_argument("--clock", choices=("cpu", "wall"),
                       help="the clock of --time-limit and of every score: cpu (default, as runsolver -C and "
                            "BenchExec: a run is stopped at its CPU time, a solver program's measured and stopped by "
                            "BenchExec in cgroups) or wall")
    group.add_argument("--repeat", type=count_up_to(REPEAT_MAX), metavar="N",
                       help=f"run each (instance, strategy) pair N times and record the run of median seconds, with "
                            f"the spread (max - min) in the CSV (default 1, at most {REPEAT_MAX})")
    group.add_argument("--wall-limit", type=positive_seconds, metavar="SECONDS",
                       help="with --clock cpu: the wall-clock safety net per run (default 3 x --time-limit)")
    group.add_argument("--budget", type=positive_seconds, default=STRATEGY_BUDGET, metavar="SECONDS",
                       help=f"seconds for the whole run (default {STRATEGY_BUDGET:g}); the runs left are not run "
                            f"(a note says how many). Per run: --time-limit (default {STRATEGY_TIME_LIMIT:g} s here) "
                            f"and --memory-limit (GiB of address space, default {MEMORY_LIMIT_GIB:g})")
    group.add_argument("--suite", metavar="DIR",
                       help="run on the instances of a suite written by `flipgame export-suite DIR` (its "
                            "manifest and board files) instead of --families/--sizes/--boards/--seed")


def _add_strategy_output_arguments(group) -> None:
    """``--strategies``: the files written after the table, and the strategies the figures draw."""
    group.add_argument("--csv", metavar="FILE",
                       help="per-instance CSV (one row per run): instance, status, solved, answer, wall and CPU "
                            "seconds, peak MiB, build/export/solve seconds, the solver and its version, the limits, "
                            "the machine")
    group.add_argument("--cactus", type=_figure_path, metavar="FILE",
                       help="cactus plot (instances solved against seconds, with the virtual best solver); .png, "
                            ".pdf or .svg, one column wide, no title")
    group.add_argument("--ecdf", type=_figure_path, metavar="FILE",
                       help="empirical distribution of the seconds (share of the instances solved within t); .png, "
                            ".pdf or .svg")
    group.add_argument("--scatter", type=_figure_path, metavar="FILE",
                       help="pairwise scatter plots (log-log, unsolved on the border): the best strategy against "
                            "the next ones, or --pairs; .png, .pdf or .svg")
    group.add_argument("--pairs", type=_pairs, metavar="A:B,...", help="the pairs --scatter draws (A on x, B on y)")
    group.add_argument("--html", metavar="FILE",
                       help="one self-contained HTML report: environment, limits, metrics, figures inline, the "
                            "cross-check, Wilcoxon and Friedman tests with a critical-difference diagram")
    group.add_argument("--benchexec-xml", metavar="DIR",
                       help="BenchExec result XML, one file per strategy, for BenchExec's table-generator")
    group.add_argument("--table", type=_table_path, metavar="FILE",
                       help="per-family table (solved and PAR-2 per strategy, then the VBS): .tex, .md or .csv")
    group.add_argument("--top", type=_top, default=TOP_DEFAULT, metavar="N|all",
                       help=f"strategies drawn in the figures: the N best (default {TOP_DEFAULT}, one colour each)")
    group.add_argument("--width", choices=("one", "two"), help="figure width: one column (3.3 in, default) or two "
                                                                "(7 in)")
    group.add_argument("--panels", choices=("all", "families"),
                       help="cactus and ECDF panels: every instance in one (default), or one more per family")
    group.add_argument("--title", metavar="TEXT", help="a title drawn above each figure (default: none)")
    group.add_argument("--caption", action="store_true",
                       help="draw the caption (limit, clock, instances, machine) under each figure; it is always "
                            "in the file's metadata")


def _add_all_lit_arguments(lit) -> None:
    """``--all-lit`` (:mod:`flipgame.cli.study_all_lit`): the sides, and the b-file, search, bound and witnesses."""
    lit.add_argument("--all-lit", type=_sides, metavar="N|A..B[,...]",
                     help="the fewest presses that turn the all-lit n x n board off (plus, no wrap, goal white) for "
                          "each n; stdout: the b-file lines 'n a(n)', stderr: nullity, symmetries and seconds per n; "
                          "every witness re-applied by the board model, every published term (n <= 54) compared")
    lit.add_argument("--bfile", metavar="FILE", help="with --all-lit: also write the b-file (the proven terms) to FILE")
    lit.add_argument("--search-seconds", type=positive_seconds, metavar="S",
                     help="with --all-lit: for n whose nullity is over 48 (n = 79), search the solutions for S "
                          "seconds for an upper bound (not proven minimal) instead of refusing")
    lit.add_argument("--lower-bound", action="store_true", default=None,
                     help="with --all-lit: also prove a lower bound on a(n) at any nullity, by the covering LP "
                          "(every lit cell needs a press around it) with Chvatal-Gomory cuts on odd sets of cells, "
                          "its dual weights checked in exact arithmetic; stdout: '# a(n) >= L'")
    lit.add_argument("--witness-dir", metavar="DIR",
                     help="with --all-lit: write each n's witness (its press set, x/.) to DIR/a075464-N.txt, and "
                          "with --lower-bound its weights to DIR/a075464-N-lower-bound.txt")
    lit.add_argument("--witness-file", metavar="FILE",
                     help="with --all-lit: write every proven term's witness to FILE, one line 'n a(n) nullity "
                          "BASE64' (the n*n press bits, cell r*n+c at bit r*n+c, little-endian bytes)")
    lit.add_argument("--checkpoint-dir", metavar="DIR",
                     help="with --all-lit: keep each long run's state (nullity over 16) in DIR, so that a run stopped "
                          "by Ctrl-C resumes where it was; with --scheduler, the manifest of finished chunks")
    lit.add_argument("--scheduler", metavar="ADDRESS",
                     help="with --all-lit: split each long run into fixed chunks and run them on a Dask cluster: "
                          "local:N starts N single-thread workers here, or the address of a running scheduler "
                          "(tcp://host:8786); a lost worker's chunks run again")


def _sides(text: str) -> list[int]:
    """``--all-lit``: sides n (1..2000) as ``N``, ``A..B`` or a comma-separated list of them, in order."""
    out = []
    for item in text.split(","):
        a, _, b = item.strip().partition("..")
        if not (a.isdigit() and (b.isdigit() or not _)) or not 1 <= int(a) <= int(b or a) <= 2000:
            raise argparse.ArgumentTypeError(f"expected sides like 61, 1..78 or 55..78,79 (1 to 2000), got {text!r}")
        out.extend(range(int(a), int(b or a) + 1))
    return out


NEEDS = dict.fromkeys(("witness_file", "checkpoint_dir", "scheduler", "bfile", "search_seconds", "witness_dir",
                       "lower_bound"), "all_lit")
"""Flags that only apply with another one."""
STRATEGY_ONLY = ("families", "sizes", "boards", "run_all", "in_process", "csv", "cactus", "ecdf", "scatter", "pairs",
                 "table", "width", "panels", "title", "caption", "clock", "wall_limit", "html", "benchexec_xml",
                 "repeat")
"""Options of ``--strategies`` mode (refused without it)."""


def _misplaced_flag(args: argparse.Namespace) -> str | None:
    """The one line for a flag given without the mode it belongs to, or None."""
    for flag, needs in NEEDS.items():
        if getattr(args, flag) is not None and getattr(args, needs) is None:
            return f"--{flag.replace('_', '-')} needs --{needs.replace('_', '-')}"
    if args.strategies is not None or args.action == "report":
        return None
    if args.data is not None:
        return f"{args.data}: expected a command option; 'flipgame study report RUNS' reads a study's file"
    for flag in (*STRATEGY_ONLY, "suite"):
        if getattr(args, flag) not in (None, False):
            return f"--{flag.replace('_', '-')} needs --strategies"
    return None


FIGURE_FLAGS = ("plot", "cactus", "ecdf", "scatter", "html")
"""The flags that draw a figure (matplotlib, the extra ``study``)."""


def _figures_unavailable(args: argparse.Namespace) -> str | None:
    """The one line for a figure asked for without matplotlib, or None."""
    asked = [f"--{f}" for f in FIGURE_FLAGS if getattr(args, f, None)]
    return extras.missing("matplotlib", asked[0]) if asked and not extras.installed("matplotlib") else None


def run(args: argparse.Namespace) -> ExitCode:
    if args.action == "report":
        return run_report(args)
    if args.all_lit is not None:
        return run_all_lit(args)
    if problem := _misplaced_flag(args) or _figures_unavailable(args):
        return fail(ExitCode.USAGE, problem)
    if args.strategies is not None:
        return run_strategies(args)
    try:
        game = game_from_args(args)
        options = common.backend_options(args.backends or [], args)
        if args.plot:
            writable_path(args.plot, "--plot")

        def progress(name: str, done: int, total: int) -> None:
            print(f"  {name}: {done}/{total} boards", file=sys.stderr, flush=True)

        st = study(game, args.backends, args.sample, 0 if args.seed is None else args.seed, options=options,
                   progress=progress)
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, str(exc))
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    return _write(st, plot, args) or ExitCode.OK


def _write(st, plot, args: argparse.Namespace) -> ExitCode | None:
    """Draw ``st`` with ``plot`` if --plot, then print it as text or --json; an exit code on failure."""
    if args.plot:
        try:
            plot(st, args.plot)
        except OSError as exc:
            return fail(ExitCode.USAGE, f"cannot write {args.plot}: {exc.strerror}")
    if args.json and args.json != "-" and not hasattr(st, "runs") and (
            code := common.write_json(args.json, st.to_json(), "--json")):
        return code
    print(json.dumps(st.to_json(), indent=1) if args.json == "-" else st.text())
    if args.plot and args.json != "-":
        print(f"Plot: {args.plot}")
    return None


def _check_outputs(args: argparse.Namespace, time_limit: float) -> None:
    """Every file the study will write, checked before it runs (RulesError or ArgumentTypeError naming it), and
    the limits that go together."""
    for flag in ("plot", "csv", "cactus", "ecdf", "scatter", "table", "html"):
        if getattr(args, flag):
            writable_path(getattr(args, flag), f"--{flag}")
    if args.json not in (None, "-"):
        writable_path(args.json, "--json")
    if args.benchexec_xml and os.path.exists(args.benchexec_xml) and not os.path.isdir(args.benchexec_xml):
        raise RulesError(f"--benchexec-xml {args.benchexec_xml}: not a folder")
    if args.wall_limit is not None and (args.clock == "wall" or args.wall_limit < time_limit):
        raise RulesError(f"--wall-limit is the safety net of --clock cpu, at least --time-limit ({time_limit:g} s)")
    if args.pairs and not args.scatter:
        raise argparse.ArgumentTypeError("--pairs needs --scatter")


def run_strategies(args: argparse.Namespace) -> ExitCode:
    """``--strategies``: the table per strategy x family; exit 1 (DISAGREEMENT) if any answer was flagged."""
    try:
        time_limit, memory_limit = strategy_limits(args)
        _check_outputs(args, time_limit)
    except (argparse.ArgumentTypeError, RulesError) as exc:
        return fail(ExitCode.USAGE, str(exc))
    try:
        plan = rules_plan(args)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    try:
        plan = plan or suite_plan_of(args)
    except FileNotFoundError as exc:
        return fail(ExitCode.USAGE, f"--suite {args.suite}: no {os.path.basename(exc.filename or 'manifest.json')} "
                                    f"(expected a folder written by `flipgame export-suite DIR`)")
    except (OSError, ValueError) as exc:
        return fail(ExitCode.USAGE, f"--suite: {getattr(exc, 'strerror', None) or exc}"
                                    + (f": {exc.filename}" if getattr(exc, "filename", None) else ""))
    try:
        st = compare_strategies(args.strategies, args.families, sizes=args.sizes, boards=args.boards or 2,
                                time_limit=time_limit, budget=args.budget, seed=args.seed or 0, progress=print_progress,
                                plan=plan, source=plan_source(args, plan), run_all=args.run_all,
                                isolate=not args.in_process, memory_limit=None if args.in_process else memory_limit,
                                clock=args.clock or "cpu", wall_limit=args.wall_limit, repeat=args.repeat or 1)
    except StudyInterrupted as exc:  # what finished is written, as the exit code's meaning promises
        _write_study(exc.study, args)
        return fail(ExitCode.INTERRUPTED, f"interrupted: {exc.study.budget_note[len('Interrupted: '):]}")
    return _write_study(st, args) or _study_exit(st)


def _write_study(st, args: argparse.Namespace) -> ExitCode | None:
    """The study's files (--csv, --json, --plot ...) and table; an ExitCode when one cannot be written."""
    failed = write_metrics(st, args) or _write(st, lambda st, path: plot_strategies(st, path, top=args.top), args)
    if failed:
        return failed
    print_metrics(st, args)
    return None


def _study_exit(st) -> ExitCode:
    """DISAGREEMENT when an answer was flagged, INCOMPLETE when every run that ran failed, else OK."""
    if st.disagreements:
        return fail(ExitCode.DISAGREEMENT, f"{st.disagreements} answer(s) flagged (see the table)")
    ran = [r for r in st.runs if r.status not in ("refused", "not run")]
    if ran and all(r.status == "ERROR" for r in ran):
        return fail(ExitCode.INCOMPLETE, f"every one of the {len(ran)} runs failed (ERROR: see the notes in the "
                                         f"table and --csv)")
    return ExitCode.OK



"""``flipgame study``: the structure of one rule set and, on request, backend timings; with
``--strategies``, named strategies across instance families, every answer cross-checked."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

from flipgame.algebra.minweight import MAX_NULLITY
from flipgame.backends.registry import STRATEGIES
from flipgame.backends.strategies import PROGRAM_KEYS
from flipgame.cli import common
from flipgame.cli.arguments import count_up_to, positive_int, positive_seconds, seed_int
from flipgame.cli.common import ExitCode, fail, name_list, option_flags, strategy_names, writable_path
from flipgame.core.errors import FlipgameError, OptionError, RefusedError, RulesError
from flipgame.core.limits import BOARDS_PER_SIZE_MAX, MEMORY_LIMIT_GIB, TIMED_BOARDS_MAX
from flipgame.model.boards import BoardSet
from flipgame.study import all_lit
from flipgame.study import metrics as study_metrics
from flipgame.study.compare import compare_strategies
from flipgame.study.environment import machine_line
from flipgame.study.families import FAMILIES, RULES_FAMILY
from flipgame.study.family_table import table_format, write_table
from flipgame.study.figures import TOP_DEFAULT, Context, figure_format, plot_cactus, plot_scatter, plot_strategies
from flipgame.study.records import write_csv
from flipgame.study.runner import MEASURE_MARGIN_SECONDS
from flipgame.study.structure import plot, study
from flipgame.study.suite import suite_plan

STRATEGY_TIME_LIMIT = 5.0
"""Seconds per board in ``--strategies`` mode unless ``--time-limit`` is given."""
STRATEGY_BUDGET = 600.0
"""Seconds for a whole ``--strategies`` run unless ``--budget`` is given."""


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
    sp.add_argument("--backends", type=common.backend_list, metavar="LIST",
                    help="backends to time on a random sample (default: none, structure only)")
    sp.add_argument("--sample", type=count_up_to(TIMED_BOARDS_MAX), default=200, metavar="N",
                    help=f"random boards per backend for the timings (default 200, at most {TIMED_BOARDS_MAX:,})")
    sp.add_argument("--seed", type=seed_int, metavar="S", help="random seed (default 0)")
    sp.add_argument("--plot", type=_figure_path, metavar="FILE",
                    help="draw the distribution and the timings; with --strategies, seconds against size per "
                         "strategy, one panel per family (.png, .pdf or .svg)")
    sp.add_argument("--json", action="store_true", help="print everything as JSON instead of text")
    group = sp.add_argument_group("strategies x families (--strategies)")
    group.add_argument("--strategies", type=strategy_names, nargs="?", const="all", metavar="all|LIST",
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
                            "strategy does not run the family's later, no smaller boards, and PAR-2 and SGM are "
                            "taken over the instances every strategy ran)")
    group.add_argument("--in-process", action="store_true",
                       help="run the strategies in this process: no process start per run, but only the backends' "
                            "own time limits hold (rc2 has none) and no memory limit (default: a process of its own "
                            f"per run, killed {MEASURE_MARGIN_SECONDS:g} s past --time-limit, its address space "
                            "bounded by --memory-limit)")
    group.add_argument("--budget", type=positive_seconds, default=STRATEGY_BUDGET, metavar="SECONDS",
                       help=f"seconds for the whole run (default {STRATEGY_BUDGET:g}); the runs left are not run "
                            f"(a note says how many). Per run: --time-limit (default {STRATEGY_TIME_LIMIT:g} s here) "
                            f"and --memory-limit (GiB of address space, default {MEMORY_LIMIT_GIB:g})")
    group.add_argument("--suite", metavar="DIR",
                       help="run on the instances of a suite written by `flipgame export-suite DIR` (its "
                            "manifest and board files) instead of --families/--sizes/--boards/--seed")
    group.add_argument("--csv", metavar="FILE",
                       help="per-instance CSV (one row per run): instance, status, solved, answer, wall and CPU "
                            "seconds, peak MiB, build/export/solve seconds, the solver and its version, the limits, "
                            "the machine")
    group.add_argument("--cactus", type=_figure_path, metavar="FILE",
                       help="cactus plot (instances solved against seconds, with the virtual best solver): all "
                            "families, then each family of at least 3 instances; .png, .pdf or .svg")
    group.add_argument("--scatter", type=_figure_path, metavar="FILE",
                       help="pairwise scatter plots (log-log, unsolved on the border): the best strategy against "
                            "the next ones, or --pairs; .png, .pdf or .svg")
    group.add_argument("--pairs", type=_pairs, metavar="A:B,...", help="the pairs --scatter draws (A on x, B on y)")
    group.add_argument("--table", type=_table_path, metavar="FILE",
                       help="per-family table (solved and PAR-2 per strategy, then the VBS): .tex, .md or .csv")
    group.add_argument("--top", type=_top, default=TOP_DEFAULT, metavar="N|all",
                       help=f"strategies drawn in the figures: the N best (default {TOP_DEFAULT}, one colour each)")
    lit = sp.add_argument_group("the all-lit board, OEIS A075464 (--all-lit)")
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
                          "(every lit cell needs a press around it), its dual weights checked in exact arithmetic; "
                          "stdout: '# a(n) >= L'")
    lit.add_argument("--witness-dir", metavar="DIR",
                     help="with --all-lit: write each n's witness (its press set, x/.) to DIR/a075464-N.txt, and "
                          "with --lower-bound its weights to DIR/a075464-N-lower-bound.txt")
    common.add_rule_options(sp)
    common.add_strategies_file(sp)
    sp.set_defaults(run=run)


def _sides(text: str) -> list[int]:
    """``--all-lit``: sides n (1..2000) as ``N``, ``A..B`` or a comma-separated list of them, in order."""
    out = []
    for item in text.split(","):
        a, _, b = item.strip().partition("..")
        if not (a.isdigit() and (b.isdigit() or not _)) or not 1 <= int(a) <= int(b or a) <= 2000:
            raise argparse.ArgumentTypeError(f"expected sides like 61, 1..78 or 55..78,79 (1 to 2000), got {text!r}")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def run_all_lit(args: argparse.Namespace) -> ExitCode:
    """``--all-lit``: one b-file line per n on stdout (and --bfile); exit 1 if a term differs from OEIS."""
    try:
        if args.bfile:
            writable_path(args.bfile, "--bfile")
        if args.witness_dir:
            common.writable_folder(args.witness_dir, "--witness-dir")
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    done, worst = [], ExitCode.OK
    for n in args.all_lit:
        try:
            if args.lower_bound:
                _lower_bound(args, n)
            worst = max(worst, _all_lit_term(args, n, done))
        except OSError as exc:
            return fail(ExitCode.USAGE, f"cannot write {exc.filename}: {exc.strerror}")
    if args.json:
        print(json.dumps([t.to_json() for t in done], indent=1))
    return worst


def _all_lit_term(args: argparse.Namespace, n: int, done: list) -> ExitCode:
    """a(n), or an upper bound above the enumerable nullity with --search-seconds: printed and written."""
    start = time.perf_counter()
    k = all_lit.nullity(n)
    if k > MAX_NULLITY and args.search_seconds is None:
        if args.lower_bound:
            return ExitCode.OK
        return fail(ExitCode.REFUSED, f"a({n}): nullity {k}, over the {MAX_NULLITY} that can be enumerated; "
                                      f"--search-seconds S finds an upper bound, --lower-bound a lower one")
    t = all_lit.upper_bound(n, args.search_seconds, seed=args.seed, on_better=_improved(n)) \
        if k > MAX_NULLITY else all_lit.term(n)
    t = dataclasses.replace(t, seconds=time.perf_counter() - start)  # the elimination included
    print(all_lit.bfile_line(t) if t.proven else f"# a({n}) <= {t.presses} (upper bound, not proven minimal)",
          flush=True)
    note = "" if t.agrees else f"; DIFFERS from the published a({n}) = {t.published}"
    print(f"a({n}) {'=' if t.proven else '<='} {t.presses}: nullity {t.nullity}, {t.symmetries} symmetries, "
          f"{t.seconds:.2f} s{note}", file=sys.stderr, flush=True)
    done.append(t)
    _write_term(args, t, done)
    return ExitCode.OK if t.agrees else ExitCode.DISAGREEMENT


def _lower_bound(args: argparse.Namespace, n: int) -> None:
    """The covering LP's bound on a(n), its weights checked exactly; printed, and written with --witness-dir."""
    bound = all_lit.lower_bound(n)
    print(f"# a({n}) >= {bound.presses} (covering LP, its dual weights checked in exact arithmetic)", flush=True)
    print(f"a({n}) >= {bound.presses}: nullity {bound.nullity}, {bound.seconds:.2f} s", file=sys.stderr, flush=True)
    if args.witness_dir:
        with open(os.path.join(args.witness_dir, f"a075464-{n}-lower-bound.txt"), "w", encoding="utf-8") as fh:
            fh.write(all_lit.lower_bound_text(bound))


def _improved(n: int):
    """The stderr line of each improvement of the a(n) search (so that a Ctrl-C loses nothing)."""
    def show(found) -> None:
        print(f"  a({n}) <= {found.weight} after {found.seconds:.1f} s ({found.how})", file=sys.stderr, flush=True)
    return show


def _write_term(args: argparse.Namespace, t, done: list) -> None:
    """The witness file of ``t`` (--witness-dir) and the b-file of the terms so far (--bfile); OSError."""
    if args.witness_dir:
        with open(os.path.join(args.witness_dir, f"a075464-{t.n}.txt"), "w", encoding="utf-8") as fh:
            fh.write(all_lit.witness_text(t))
    if args.bfile:
        with open(args.bfile, "w", encoding="utf-8") as fh:
            fh.write("".join(all_lit.bfile_line(d) + "\n" for d in done if d.proven))


NEEDS = {"bfile": "all_lit", "search_seconds": "all_lit", "witness_dir": "all_lit", "lower_bound": "all_lit"}
"""Flags that only apply with another one."""
STRATEGY_ONLY = ("families", "sizes", "boards", "run_all", "in_process", "csv", "cactus", "scatter", "pairs", "table")
"""Options of ``--strategies`` mode (refused without it)."""


def _misplaced_flag(args: argparse.Namespace) -> str | None:
    """The one line for a flag given without the mode it belongs to, or None."""
    for flag, needs in NEEDS.items():
        if getattr(args, flag) is not None and getattr(args, needs) is None:
            return f"--{flag.replace('_', '-')} needs --{needs.replace('_', '-')}"
    if args.strategies is not None:
        return None
    for flag in (*STRATEGY_ONLY, "suite"):
        if getattr(args, flag) not in (None, False):
            return f"--{flag.replace('_', '-')} needs --strategies"
    return None


def run(args: argparse.Namespace) -> ExitCode:
    if args.all_lit is not None:
        return run_all_lit(args)
    if problem := _misplaced_flag(args):
        return fail(ExitCode.USAGE, problem)
    if args.strategies is not None:
        return run_strategies(args)
    try:
        game = common.game_from_args(args)
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
    print(json.dumps(st.to_json(), indent=1) if args.json else st.text())
    if args.plot and not args.json:
        print(f"Plot: {args.plot}")
    return None


def _strategy_limits(args: argparse.Namespace) -> tuple[float, float | None]:
    """``(--time-limit, --memory-limit)`` for ``--strategies`` (defaults :data:`STRATEGY_TIME_LIMIT` and the
    backends' model budget, :data:`~flipgame.core.limits.MEMORY_LIMIT_GIB`).

    Raises
    ------
    argparse.ArgumentTypeError
        A flag that does not apply with ``--strategies`` (each family fixes its rules and each strategy its
        backend options), or a limit that is not a positive number.
    """
    given = ["--backends"] if args.backends is not None else []
    limits = {"time_limit": STRATEGY_TIME_LIMIT, "memory_limit": MEMORY_LIMIT_GIB}
    for flag, owners in option_flags().items():
        value = getattr(args, "opt_" + flag[2:].replace("-", "_"), None)
        name = owners[0][1].name
        if value is not None and name in PROGRAM_KEYS:
            continue  # --solver-cmd and its --solver-* flags: the strategy 'external' (registered by main)
        if value is not None and name in limits:
            try:
                option = owners[0][1]
                limits[name] = positive_seconds(value) if name == "time_limit" else option.validate("study", value)
            except (argparse.ArgumentTypeError, OptionError) as exc:
                raise argparse.ArgumentTypeError(f"{flag}: {exc}") from None
        elif value is not None:
            given.append(flag)
    if given:
        raise argparse.ArgumentTypeError(
            f"{', '.join(given)} do not apply with --strategies: each strategy fixes its backend options (use "
            f"--time-limit, --memory-limit, --budget)")
    return limits["time_limit"], limits["memory_limit"]


def _progress(done: int, total: int, r) -> None:
    """One line on stderr per strategy run of ``--strategies``."""
    what = (f"{r.status} {r.answer() if r.answered else ''} in {r.seconds:.3f} s" if r.seconds is not None
            else f"{r.status}{': ' + r.note if r.note else ''}")
    flag = f"  FLAGGED: {r.flag}" if r.flag else ""
    print(f"[{done}/{total}] {r.family} {r.n}x{r.n} board {r.board}: {r.strategy}: {what}{flag}"[:200],
          file=sys.stderr, flush=True)


def run_strategies(args: argparse.Namespace) -> ExitCode:
    """``--strategies``: the table per strategy x family; exit 1 (DISAGREEMENT) if any answer was flagged."""
    try:
        time_limit, memory_limit = _strategy_limits(args)
        for flag in ("plot", "csv", "cactus", "scatter", "table"):
            if getattr(args, flag):
                writable_path(getattr(args, flag), f"--{flag}")
        if args.pairs and not args.scatter:
            raise argparse.ArgumentTypeError("--pairs needs --scatter")
    except (argparse.ArgumentTypeError, RulesError) as exc:
        return fail(ExitCode.USAGE, str(exc))
    try:
        plan = _rules_plan(args)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    try:
        plan = plan or _suite_plan(args)
    except FileNotFoundError as exc:
        return fail(ExitCode.USAGE, f"--suite {args.suite}: no {os.path.basename(exc.filename or 'manifest.json')} "
                                    f"(expected a folder written by `flipgame export-suite DIR`)")
    except (OSError, ValueError) as exc:
        return fail(ExitCode.USAGE, f"--suite: {getattr(exc, 'strerror', None) or exc}"
                                    + (f": {exc.filename}" if getattr(exc, "filename", None) else ""))
    st = compare_strategies(args.strategies, args.families, sizes=args.sizes, boards=args.boards or 2,
                            time_limit=time_limit, budget=args.budget, seed=args.seed or 0, progress=_progress,
                            plan=plan, source=_source(args, plan), run_all=args.run_all,
                            isolate=not args.in_process, memory_limit=None if args.in_process else memory_limit)
    failed = _write(st, lambda st, path: plot_strategies(st, path, top=args.top), args) or _write_metrics(st, args)
    if failed:
        return failed
    if st.disagreements:
        return fail(ExitCode.DISAGREEMENT, f"{st.disagreements} answer(s) flagged (see the table)")
    return ExitCode.OK


def _suite_plan(args: argparse.Namespace) -> list | None:
    """The plan of ``--suite DIR`` (None without it).

    Raises
    ------
    ValueError
        --suite with --families, --sizes, --boards or --seed, or a damaged suite.
    OSError
        An unreadable manifest or board file.
    """
    if args.suite is None:
        return None
    given = [f"--{f}" for f in ("families", "sizes", "boards", "seed") if getattr(args, f) is not None]
    if given:
        raise ValueError(f"{', '.join(given)} do{'es' if len(given) == 1 else ''} not apply: the suite's manifest "
                         f"lists its instances")
    plan, _ = suite_plan(args.suite)
    if not plan:
        raise ValueError(f"{args.suite} has no instance")
    return plan


RULE_FLAGS = ("rules", "states", "size", "goal", "target", "stencil")
"""The rule options that, with ``--strategies``, choose the one rule set the strategies run on."""


def _rule_flags(args: argparse.Namespace) -> list[str]:
    """The rule options given on the command line."""
    given = [f"--{f}" for f in RULE_FLAGS if getattr(args, f) is not None]
    return given + ["--wrap"] * args.wrap + ["--neighbourhood"] * (args.neighbourhood != "plus")


def _rules_plan(args: argparse.Namespace) -> list | None:
    """With rule options: ``--boards K`` random boards (``--seed``) of that one rule set, as the family
    ``rules``; None without them.

    Raises
    ------
    FlipgameError
        Rule options with --families, --sizes or --suite (which choose their own rules), or bad rules.
    """
    given = _rule_flags(args)
    if not given:
        return None
    clash = [f"--{f}" for f in ("families", "sizes", "suite") if getattr(args, f) is not None]
    if clash:
        raise RulesError(f"{', '.join(given)} give the one rule set the strategies run on; {', '.join(clash)} "
                         f"choose generated ones: give one or the other")
    game = common.game_from_args(args)
    side = game.rows if game.shape and game.rows == game.cols else game.n
    boards = BoardSet.sample(game, args.boards or 2, args.seed or 0)
    return [(RULES_FAMILY, side, game, i, board) for i, board in enumerate(boards)]


def _source(args: argparse.Namespace, plan: list | None) -> str:
    """Where the instances come from, for the report: a suite, the given rules, or the families."""
    if args.suite is not None:
        return f"suite {args.suite}"
    if plan:
        return f"rules {args.rules}" if args.rules else f"rules {plan[0][2].rules}"
    return "families"


def _write_metrics(st, args: argparse.Namespace) -> ExitCode | None:
    """The field's metrics (text unless --json), --csv, --cactus, --scatter and --table; an exit code on failure."""
    env = st.environment
    context = Context(machine_line(env["machine"]) if env else "", env.get("flipgame", ""), st.margin)
    try:
        if args.csv:
            rows = write_csv(st.runs, args.csv, st.time_limit, env)
            print(f"CSV: {args.csv} ({rows} runs)", file=sys.stderr)
        if args.cactus:
            plot_cactus(st.runs, st.time_limit, args.cactus, context=context, top=args.top)
            print(f"Cactus plot: {args.cactus}", file=sys.stderr)
        if args.scatter:
            plot_scatter(st.runs, st.time_limit, args.scatter, context=context, top=args.top, pairs=args.pairs)
            print(f"Scatter plot: {args.scatter}", file=sys.stderr)
        if args.table:
            write_table(st.runs, st.time_limit, args.table, context=context, run_all=st.run_all)
            print(f"Table: {args.table}", file=sys.stderr)
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot write {exc.filename}: {exc.strerror}")
    except ValueError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if not args.json:
        print()
        print(study_metrics.text(st.runs, st.time_limit, st.run_all))
    return None

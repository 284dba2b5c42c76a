"""``flipgame study --strategies``: the pieces of that mode beside its run (:func:`flipgame.cli.study.run_strategies`):
its limits per run, the instances of ``--suite``, its progress line per run, and the metrics and files it
writes after the table (``--csv``, ``--cactus``, ``--scatter``, ``--table``)."""

from __future__ import annotations

import argparse
import sys

from flipgame.backends.strategies import PROGRAM_KEYS
from flipgame.cli.arguments import positive_seconds
from flipgame.cli.common import ExitCode, fail, option_flags, write_json
from flipgame.cli.rules import game_from_args
from flipgame.core import extras
from flipgame.core.errors import OptionError, RulesError
from flipgame.core.limits import MEMORY_LIMIT_GIB, RUN_MEMORY_MIN_GIB, STRATEGY_TIME_LIMIT
from flipgame.model.boards import BoardSet
from flipgame.study import metrics as study_metrics
from flipgame.study.cactus import plot_cactus, plot_ecdf
from flipgame.study.environment import machine_line
from flipgame.study.families import RULES_FAMILY
from flipgame.study.family_table import write_table
from flipgame.study.figures import Context, FigureOptions, plot_scatter
from flipgame.study.records import write_csv
from flipgame.study.suite import suite_plan


def strategy_limits(args: argparse.Namespace) -> tuple[float, float | None]:
    """``(--time-limit, --memory-limit)`` for ``--strategies`` (defaults :data:`STRATEGY_TIME_LIMIT` and the
    backends' model budget, :data:`~flipgame.core.limits.MEMORY_LIMIT_GIB`).

    Raises
    ------
    argparse.ArgumentTypeError
        A flag that does not apply with ``--strategies`` (each strategy fixes its backend options), or a
        limit that is not a positive number.
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
    if limits["memory_limit"] < RUN_MEMORY_MIN_GIB and not args.in_process:
        raise argparse.ArgumentTypeError(
            f"--memory-limit {limits['memory_limit']:g}: a run's process needs at least {RUN_MEMORY_MIN_GIB:g} GiB "
            f"of address space to start (Python, numpy and flipgame's imports); give more, or --in-process")
    return limits["time_limit"], limits["memory_limit"]


def print_progress(done: int, total: int, r) -> None:
    """One line on stderr per strategy run of ``--strategies``."""
    note = f": {r.note}" if r.note and not r.answered else ""
    what = (f"{r.status} {r.answer() if r.answered else ''} in {r.seconds:.3f} s{note}" if r.seconds is not None
            else f"{r.status}{note}")
    flag = f"  FLAGGED: {r.flag}" if r.flag else ""
    print(f"[{done}/{total}] {r.family} {r.n}x{r.n} board {r.board}: {r.strategy}: {what}{flag}"[:200],
          file=sys.stderr, flush=True)


def suite_plan_of(args: argparse.Namespace) -> list | None:
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


def figure_options(args: argparse.Namespace) -> FigureOptions:
    """The layout of the figures from --width, --title, --caption and --panels."""
    return FigureOptions(width=args.width or "one", title=args.title or "", caption=bool(args.caption),
                         panels=args.panels or "all")


def write_figures(runs, limit: float, args: argparse.Namespace, context: Context) -> None:
    """--cactus, --ecdf, --scatter and --table, each named on stderr once written.  Raises OSError, ValueError."""
    options = figure_options(args)
    for flag, plot, what in (("cactus", plot_cactus, "Cactus plot"), ("ecdf", plot_ecdf, "ECDF")):
        if getattr(args, flag):
            plot(runs, limit, getattr(args, flag), context=context, top=args.top, options=options)
            print(f"{what}: {getattr(args, flag)}", file=sys.stderr)
    if args.scatter:
        plot_scatter(runs, limit, args.scatter, context=context, top=args.top, pairs=args.pairs, options=options)
        print(f"Scatter plot: {args.scatter}", file=sys.stderr)
    if args.table:
        write_table(runs, limit, args.table, context=context)
        print(f"Table: {args.table}", file=sys.stderr)


def write_metrics(st, args: argparse.Namespace) -> ExitCode | None:
    """The field's metrics (text unless --json), --csv, --cactus, --scatter and --table; an exit code on failure."""
    env = st.environment
    context = Context(machine_line(env["machine"]) if env else "", env.get("flipgame", ""), st.margin, st.clock)
    try:
        if args.csv:
            rows = write_csv(st.runs, args.csv, st.time_limit, env, st.clock)
            print(f"CSV: {args.csv} ({rows} runs)", file=sys.stderr)
        write_figures(st.runs, st.time_limit, args, context)
        write_reports(st.runs, st.time_limit, args, context, env, st.header())
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot write {exc.filename}: {exc.strerror}")
    except ValueError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if args.json and args.json != "-" and write_json(args.json, st.to_json(), "--json"):
        return ExitCode.USAGE
    return None


def print_metrics(st, args: argparse.Namespace) -> None:
    """The field's metrics under the scoring rule, after the tables (not with --json alone)."""
    if args.json != "-":
        print()
        print(study_metrics.text(st.runs, st.time_limit, st.clock))


def write_reports(runs, time_limit: float, args: argparse.Namespace, context: Context, env: dict,
                  header: list[str]) -> None:
    """--html (with the paired statistics) and --benchexec-xml; OSError, ValueError as the figures'."""
    if getattr(args, "html", None):
        from flipgame.study.html_report import write_html

        extras.require("scipy", "--html (paired statistics)")
        write_html(runs, time_limit, args.html, context=context, header=header, top=args.top)
        print(f"HTML report: {args.html}", file=sys.stderr)
    if getattr(args, "benchexec_xml", None):
        from flipgame.study.benchexec_xml import write_benchexec_xml

        paths = write_benchexec_xml(runs, time_limit, args.benchexec_xml, clock=context.clock, environment=env)
        print(f"BenchExec result XML: {len(paths)} file(s) in {args.benchexec_xml}", file=sys.stderr)


RULE_FLAGS = ("rules", "states", "size", "goal", "target", "stencil")
"""The rule options that, with ``--strategies``, choose the one rule set the strategies run on."""


def _rule_flags(args: argparse.Namespace) -> list[str]:
    """The rule options given on the command line."""
    given = [f"--{f}" for f in RULE_FLAGS if getattr(args, f) is not None]
    return given + ["--wrap"] * args.wrap + ["--neighbourhood"] * (args.neighbourhood != "plus")


def rules_plan(args: argparse.Namespace) -> list | None:
    """With rule options: ``--boards K`` random boards (``--seed``) of that one rule set, as the family
    :data:`~flipgame.study.families.RULES_FAMILY`; None without them.

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
    game = game_from_args(args)
    side = game.rows if game.shape and game.rows == game.cols else game.n
    boards = BoardSet.sample(game, args.boards or 2, args.seed or 0)
    return [(RULES_FAMILY, side, game, i, board) for i, board in enumerate(boards)]


def plan_source(args: argparse.Namespace, plan: list | None) -> str:
    """Where the instances come from, for the report: a suite, the given rules, or the families."""
    if args.suite is not None:
        return f"suite {args.suite}"
    if plan:
        return f"rules {args.rules}" if args.rules else f"rules {plan[0][2].rules}"
    return "families"

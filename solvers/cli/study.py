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
from flipgame.backends.strategies import PROGRAM_KEYS, STRATEGIES
from flipgame.cli import common
from flipgame.cli.common import (
    ExitCode,
    fail,
    name_list,
    option_flags,
    png_path,
    positive_int,
    positive_seconds,
    seed_int,
    strategy_names,
    writable_path,
)
from flipgame.core.errors import FlipgameError, RefusedError, RulesError
from flipgame.study import all_lit
from flipgame.study import metrics as study_metrics
from flipgame.study.compare import FAMILIES, compare_strategies
from flipgame.study.figures import plot_cactus, plot_strategies
from flipgame.study.structure import plot, study, system_structure, system_structure_text
from flipgame.study.suite import suite_plan

STRATEGY_TIME_LIMIT = 5.0
"""Seconds per board in ``--strategies`` mode unless ``--time-limit`` is given."""
STRATEGY_BUDGET = 600.0
"""Seconds for a whole ``--strategies`` run unless ``--budget`` is given."""


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
    sp.add_argument("--sample", type=positive_int, default=200, metavar="N",
                    help="random boards per backend for the timings (default 200)")
    sp.add_argument("--seed", type=seed_int, default=0, metavar="S", help="random seed (default 0)")
    sp.add_argument("--plot", type=png_path, metavar="FILE.png",
                    help="draw the distribution and the timings (PNG); with --strategies, seconds against size "
                         "per strategy, one panel per family")
    sp.add_argument("--json", action="store_true", help="print everything as JSON instead of text")
    group = sp.add_argument_group("strategies x families (--strategies)")
    group.add_argument("--strategies", type=strategy_names, nargs="?", const="all", metavar="all|LIST",
                       help="run these strategies (default all) across the families; the rule options and "
                            "--backends do not apply")
    group.add_argument("--families", type=_families, metavar="all|LIST",
                       help=f"instance families (default all: {', '.join(FAMILIES)})")
    group.add_argument("--sizes", type=_sizes, metavar="N,N,...",
                       help="board sides n (n x n) for every family chosen (default: each family's own)")
    group.add_argument("--boards", type=positive_int, default=2, metavar="K",
                       help="random boards per size (default 2; all-lit has one)")
    group.add_argument("--budget", type=positive_seconds, default=STRATEGY_BUDGET, metavar="SECONDS",
                       help=f"seconds for the whole run (default {STRATEGY_BUDGET:g}); the rest is skipped "
                            f"with a note. Per board: --time-limit (default {STRATEGY_TIME_LIMIT:g} s here)")
    group.add_argument("--suite", metavar="DIR",
                       help="run on the grid instances of a suite written by `flipgame export-suite DIR` (its "
                            "manifest and board files) instead of --families/--sizes/--boards")
    group.add_argument("--csv", metavar="FILE", help="per-instance CSV: instance, strategy, status, seconds, "
                                                     "answer (one row per run)")
    group.add_argument("--cactus", type=png_path, metavar="FILE.png",
                       help="cactus plot per family (instances solved against seconds, with the virtual best solver)")
    lit = sp.add_argument_group("the all-lit board, OEIS A075464 (--all-lit)")
    lit.add_argument("--all-lit", type=_sides, metavar="N|A..B[,...]",
                     help="the fewest presses that turn the all-lit n x n board off (plus, no wrap, goal white) for "
                          "each n; stdout: the b-file lines 'n a(n)', stderr: nullity, symmetries and seconds per n; "
                          "every witness re-applied by the board model, every published term (n <= 54) compared")
    lit.add_argument("--bfile", metavar="FILE", help="with --all-lit: also write the b-file (the proven terms) to FILE")
    lit.add_argument("--search-seconds", type=positive_seconds, metavar="S",
                     help="with --all-lit: for n whose nullity is over 48 (n = 79), search the solutions for S "
                          "seconds for an upper bound (not proven minimal) instead of refusing")
    lit.add_argument("--witness-dir", metavar="DIR",
                     help="with --all-lit: write each n's witness (its press set, x/.) to DIR/a075464-N.txt")
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
        start = time.perf_counter()
        k = all_lit.nullity(n)
        if k > MAX_NULLITY and args.search_seconds is None:
            worst = max(worst, fail(ExitCode.REFUSED, f"a({n}): nullity {k}, over the {MAX_NULLITY} that can be "
                                                     f"enumerated; --search-seconds S finds an upper bound"))
            continue
        t = all_lit.upper_bound(n, args.search_seconds, seed=args.seed, on_better=_improved(n)) \
            if k > MAX_NULLITY else all_lit.term(n)
        t = dataclasses.replace(t, seconds=time.perf_counter() - start)  # the elimination included
        print(all_lit.bfile_line(t) if t.proven else f"# a({n}) <= {t.presses} (upper bound, not proven minimal)",
              flush=True)
        note = "" if t.agrees else f"; DIFFERS from the published a({n}) = {t.published}"
        print(f"a({n}) {'=' if t.proven else '<='} {t.presses}: nullity {t.nullity}, {t.symmetries} symmetries, "
              f"{t.seconds:.2f} s{note}", file=sys.stderr, flush=True)
        worst = max(worst, ExitCode.OK if t.agrees else ExitCode.DISAGREEMENT)
        done.append(t)
        try:
            _write_term(args, t, done)
        except OSError as exc:
            return fail(ExitCode.USAGE, f"cannot write {exc.filename}: {exc.strerror}")
    if args.json:
        print(json.dumps([t.to_json() for t in done], indent=1))
    return worst


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


NEEDS = {"bfile": "all_lit", "search_seconds": "all_lit", "witness_dir": "all_lit", "families": "strategies",
         "sizes": "strategies"}
"""Flags that only apply with another one."""


def run(args: argparse.Namespace) -> ExitCode:
    if args.all_lit is not None:
        return run_all_lit(args)
    for flag, needs in NEEDS.items():
        if getattr(args, flag) is not None and getattr(args, needs) is None:
            return fail(ExitCode.USAGE, f"--{flag.replace('_', '-')} needs --{needs.replace('_', '-')}")
    if args.strategies is not None:
        return run_strategies(args)
    try:
        game = common.game_from_args(args)
        if not game.binary:
            return _system_study(game, args)
        options = common.backend_options(args.backends or [], args)
        if args.plot:
            writable_path(args.plot, "--plot")

        def progress(name: str, done: int, total: int) -> None:
            print(f"  {name}: {done}/{total} boards", file=sys.stderr, flush=True)

        st = study(game, args.backends, args.sample, args.seed, options=options, progress=progress)
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, str(exc))
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    return _write(st, plot, args) or ExitCode.OK


def _system_study(system, args: argparse.Namespace) -> ExitCode:
    """The structure of a k-state press system (kernel over Z_k, solvable boards, distribution)."""
    given = [f for f, v in (("--backends", args.backends), ("--plot", args.plot)) if v]
    if given:
        return fail(ExitCode.USAGE, f"{', '.join(given)}: the structure of a k-state system times no backend and "
                                    f"draws no plot (study --strategies --families mod3 compares strategies)")
    st = system_structure(system)
    print(json.dumps(st, indent=1) if args.json else system_structure_text(st))
    return ExitCode.OK


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


def _strategy_time_limit(args: argparse.Namespace) -> float:
    """``--time-limit`` for ``--strategies`` (default :data:`STRATEGY_TIME_LIMIT`).

    Raises
    ------
    argparse.ArgumentTypeError
        A flag that does not apply with ``--strategies`` (each family fixes its rules and each strategy its
        backend options), or a time limit that is not a positive number of seconds.
    """
    given = [f for f, v in (("--size", args.size), ("--goal", args.goal), ("--target", args.target),
                            ("--stencil", args.stencil), ("--backends", args.backends)) if v is not None]
    given += ["--wrap"] * args.wrap + ["--neighbourhood"] * (args.neighbourhood != "plus")
    time_limit = STRATEGY_TIME_LIMIT
    for flag, owners in option_flags().items():
        value = getattr(args, "opt_" + flag[2:].replace("-", "_"), None)
        if value is not None and owners[0][1].name in PROGRAM_KEYS:
            continue  # --solver-cmd and its --solver-* flags: the strategy 'external' (registered by main)
        if value is not None and owners[0][1].name == "time_limit":
            try:
                time_limit = positive_seconds(value)
            except argparse.ArgumentTypeError as exc:
                raise argparse.ArgumentTypeError(f"--time-limit: {exc}") from None
        elif value is not None:
            given.append(flag)
    if given:
        raise argparse.ArgumentTypeError(
            f"{', '.join(given)} do not apply with --strategies: each family fixes its rules and each strategy its "
            f"backend options (use --families, --sizes, --boards, --time-limit, --budget)")
    return time_limit


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
        time_limit = _strategy_time_limit(args)
        for flag in ("plot", "csv", "cactus"):
            if getattr(args, flag):
                writable_path(getattr(args, flag), f"--{flag}")
    except (argparse.ArgumentTypeError, RulesError) as exc:
        return fail(ExitCode.USAGE, str(exc))
    try:
        plan = _suite_plan(args)
    except (OSError, ValueError) as exc:
        return fail(ExitCode.USAGE, f"--suite: {getattr(exc, 'strerror', None) or exc}"
                                    + (f": {exc.filename}" if getattr(exc, "filename", None) else ""))
    st = compare_strategies(args.strategies, args.families, sizes=args.sizes, boards=args.boards,
                            time_limit=time_limit, budget=args.budget, seed=args.seed, progress=_progress, plan=plan)
    failed = _write(st, plot_strategies, args) or _write_metrics(st, args)
    if failed:
        return failed
    if st.disagreements:
        return fail(ExitCode.DISAGREEMENT, f"{st.disagreements} answer(s) flagged (see the table)")
    return ExitCode.OK


def _suite_plan(args: argparse.Namespace) -> list | None:
    """The plan of ``--suite DIR`` (None without it); the press systems it leaves out are named on stderr.

    Raises
    ------
    ValueError
        --suite with --families, --sizes or --boards, or a damaged suite.
    OSError
        An unreadable manifest or board file.
    """
    if args.suite is None:
        return None
    given = [f"--{f}" for f in ("families", "sizes") if getattr(args, f) is not None]
    if given:
        raise ValueError(f"{', '.join(given)} do not apply: the suite's manifest lists its instances")
    plan, _ = suite_plan(args.suite)
    if not plan:
        raise ValueError(f"{args.suite} has no instance")
    return plan


def _write_metrics(st, args: argparse.Namespace) -> ExitCode | None:
    """The field's metrics (text unless --json), --csv and --cactus; an exit code on failure."""
    try:
        if args.csv:
            rows = study_metrics.write_csv(st.runs, args.csv)
            print(f"CSV: {args.csv} ({rows} runs)", file=sys.stderr)
        if args.cactus:
            plot_cactus(st.runs, st.time_limit, args.cactus)
            print(f"Cactus plot: {args.cactus}", file=sys.stderr)
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot write {exc.filename}: {exc.strerror}")
    if not args.json:
        print()
        print(study_metrics.text(st.runs, st.time_limit))
    return None


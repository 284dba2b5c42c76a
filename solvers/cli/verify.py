"""``flipgame verify``: every backend on every board, witnesses re-applied, answers compared."""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from .. import BACKENDS, prepare
from ..errors import FlipgameError, RefusedError
from .common import (
    ExitCode,
    add_rule_options,
    backend_list,
    backend_options,
    fail,
    game_from_args,
    positive_int,
    seed_int,
    writable_path,
    write_json,
)

EXHAUSTIVE_MAX_CELLS = 20
"""verify checks every board up to 2**20 boards; above, a --sample (or --exhaustive up to 24 cells)."""
EXHAUSTIVE_LIMIT = 24


def add_parser(sub) -> None:
    v = sub.add_parser("verify", help="run every backend on every board and compare",
                       description="Exhaustive agreement check: every backend on every board, witnesses re-applied.")
    v.add_argument("--backends", type=backend_list, metavar="LIST",
                   help=f"comma-separated backends (default: all that fit the size: {','.join(BACKENDS)})")
    v.add_argument("--report", default="flipgame-verify.json", metavar="FILE",
                   help="JSON report with the table and every disagreement (default flipgame-verify.json)")
    v.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                   help="worker processes for per-board solvers (default: all cores)")
    v.add_argument("--checkpoint", metavar="FILE",
                   help="JSON-lines file of finished chunks; rerun the same command to resume after an interruption")
    v.add_argument("--chunk-size", type=positive_int, default=2048, metavar="N",
                   help="boards per unit of work and per checkpoint line (default 2048)")
    v.add_argument("--sample", type=positive_int, metavar="N",
                   help=f"check N random boards instead of all (default for more than {EXHAUSTIVE_MAX_CELLS} cells)")
    v.add_argument("--seed", type=seed_int, default=0, metavar="S", help="random seed for --sample (default 0)")
    v.add_argument("--exhaustive", action="store_true",
                   help=f"check every board even above {EXHAUSTIVE_MAX_CELLS} cells (at most {EXHAUSTIVE_LIMIT})")
    v.add_argument("--canonical", action="store_true",
                   help="ask every backend for the canonical (lexicographically smallest) minimum press set "
                        "and compare press sets too, not only counts")
    add_rule_options(v)
    v.set_defaults(run=run)


def run(args: argparse.Namespace) -> ExitCode:
    from tqdm import tqdm

    from verify.harness import run_agreement

    try:
        game = game_from_args(args)
        writable_path(args.report, "--report")
        if args.checkpoint is not None:
            writable_path(args.checkpoint, "--checkpoint")
            if os.path.abspath(args.checkpoint) == os.path.abspath(args.report):
                raise FlipgameError("--checkpoint and --report must be different files")
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if args.backends:
        names = args.backends
    else:
        names = [n for n, b in BACKENDS.items() if b.supports(game)]
        for n in BACKENDS.keys() - set(names):
            print(f"flipgame: skipping {n}: at most {BACKENDS[n].max_cells} cells", file=sys.stderr)
    try:
        options = backend_options(names, args)
        for n in names:  # every option and size checked before the long run, nothing built
            if args.canonical:
                options[n]["canonical"] = True
            prepare(game, n, options[n])
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, f"{exc}; choose other backends")
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if game.n > 64:
        return fail(ExitCode.REFUSED, f"the agreement check takes boards of at most 64 cells; "
                                      f"{game.size} has {game.n}")
    if args.sample is not None and args.exhaustive:
        return fail(ExitCode.USAGE, "give either --sample or --exhaustive, not both")
    exhaustive = args.sample is None and (game.n <= EXHAUSTIVE_MAX_CELLS or args.exhaustive)
    if args.sample is None and not exhaustive:
        more = ", or all of them with --exhaustive" if game.n <= EXHAUSTIVE_LIMIT else ""
        return fail(ExitCode.USAGE, f"{game.size} has 2**{game.n} boards; check a random sample with "
                                    f"--sample N [--seed S]{more}")
    if exhaustive and game.n > EXHAUSTIVE_LIMIT:
        return fail(ExitCode.REFUSED, f"--exhaustive allows at most {EXHAUSTIVE_LIMIT} cells "
                                      f"(2**{EXHAUSTIVE_LIMIT} boards); use --sample N")
    if exhaustive:
        boards = np.arange(1 << game.n, dtype=np.uint64)
        what = f"all {len(boards)}"
    else:
        rng = np.random.default_rng(args.seed)
        boards = rng.integers(0, 1 << game.n, size=args.sample, dtype=np.uint64, endpoint=False) \
            if game.n < 64 else rng.integers(0, 2**64 - 1, size=args.sample, dtype=np.uint64, endpoint=True)
        what = f"a sample (seed {args.seed}) of {len(boards)}"
    total = len(boards)
    print(f"Checking {', '.join(names)} on {what} {game.rules} boards"
          f"{', comparing canonical witnesses' if args.canonical else ''} ...", file=sys.stderr)
    bars: dict[str, tqdm] = {}

    def progress(name: str, done: int) -> None:
        if name not in bars:
            bars[name] = tqdm(total=total, desc=f"{name:>6}", unit="board", file=sys.stderr,
                              disable=None, leave=False, mininterval=0.5)
        bars[name].update(done)

    def finished(summary) -> None:
        if summary.backend in bars:
            bars.pop(summary.backend).close()
        print(f"  {summary.backend}: {summary.boards} boards in {summary.seconds:.2f} s", file=sys.stderr)

    try:
        report = run_agreement(game, names, boards, jobs=args.jobs, options=options, progress=progress,
                               on_backend_done=finished, checkpoint=args.checkpoint,
                               chunk_size=args.chunk_size, compare_presses=args.canonical)
    except FlipgameError as exc:  # e.g. a checkpoint of another run
        return fail(ExitCode.USAGE, str(exc))
    for bar in bars.values():
        bar.close()
    print(report.table())
    for s in report.summaries:
        for msg in s.error_messages:
            print(f"flipgame: {s.backend} error: {msg}", file=sys.stderr)
    if write_json(args.report, report.to_json(), "report"):
        return ExitCode.USAGE
    n_dis, n_wit = len(report.disagreements), len(report.witness_failures)
    done = len(report.summaries)
    print(f"\n{report.boards} boards, {done} backend{'s' if done != 1 else ''}: {n_dis} disagreements, "
          f"{n_wit} witness failures, {sum(s.unknown for s in report.summaries)} unknown, "
          f"{sum(s.errors for s in report.summaries)} errors; {report.seconds:.1f} s. Report: {args.report}")
    if not report.completed:
        return fail(ExitCode.INTERRUPTED, "interrupted; the report holds the backends that finished")
    if n_dis:
        return ExitCode.DISAGREEMENT
    if n_wit:
        return ExitCode.WITNESS_FAILURE
    if report.incomplete:
        return ExitCode.INCOMPLETE
    if done == 1:
        print(f"Every witness of {names[0]} checks out and every Impossible has a certificate "
              f"(one backend: nothing to compare).")
    else:
        print("All backends agree on every board; every witness checks out.")
    return ExitCode.OK

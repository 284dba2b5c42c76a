"""``flipgame study``: the structure of one rule set and, on request, backend timings."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import FlipgameError, RefusedError
from .common import (
    ExitCode,
    add_rule_options,
    backend_list,
    backend_options,
    fail,
    game_from_args,
    png_path,
    positive_int,
    seed_int,
    writable_path,
)


def add_parser(sub) -> None:
    sp = sub.add_parser("study", help="nullity, quiet patterns, solvable boards, distribution, backend times",
                        description="Study one rule set: rank and nullity, quiet patterns, solvable boards, the "
                                    "distribution of minimum presses (exhaustively up to 24 cells), and with "
                                    "--backends each backend's time per board on a random sample.")
    sp.add_argument("--backends", type=backend_list, metavar="LIST",
                    help="backends to time on a random sample (default: none, structure only)")
    sp.add_argument("--sample", type=positive_int, default=200, metavar="N",
                    help="random boards per backend for the timings (default 200)")
    sp.add_argument("--seed", type=seed_int, default=0, metavar="S", help="random seed (default 0)")
    sp.add_argument("--plot", type=png_path, metavar="FILE.png", help="draw the distribution and the timings (PNG)")
    sp.add_argument("--json", action="store_true", help="print everything as JSON instead of text")
    add_rule_options(sp)
    sp.set_defaults(run=run)


def run(args: argparse.Namespace) -> ExitCode:
    from ..study import plot, study

    try:
        game = game_from_args(args)
        options = backend_options(args.backends or [], args)
        if args.plot:
            writable_path(args.plot, "--plot")

        def progress(name: str, done: int, total: int) -> None:
            print(f"  {name}: {done}/{total} boards", file=sys.stderr, flush=True)

        st = study(game, args.backends, args.sample, args.seed, options=options, progress=progress)
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, str(exc))
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if args.plot:
        try:
            plot(st, args.plot)
        except OSError as exc:
            return fail(ExitCode.USAGE, f"cannot write {args.plot}: {exc.strerror}")
    print(json.dumps(st.to_json(), indent=1) if args.json else st.text())
    if args.plot and not args.json:
        print(f"Plot: {args.plot}")
    return ExitCode.OK

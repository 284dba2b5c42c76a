"""``flipgame export-suite DIR``: a benchmark suite on disk, families x sizes, with a manifest of known answers."""

from __future__ import annotations

import argparse

from flipgame.cli.arguments import count_up_to, seed_int
from flipgame.cli.common import ExitCode, fail
from flipgame.core.limits import BOARDS_PER_SIZE_MAX
from flipgame.encode.export import FORMATS
from flipgame.study.families import FAMILIES
from flipgame.study.suite import GENERAL_FAMILY, SUITE_FORMATS, export_suite


def _names(text: str, valid, what: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(bad) or '(none)'}; valid: {', '.join(valid)}")
    return names


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes like 4,6,8, got {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected positive sizes, got {text!r}")
    return sizes


def add_parser(sub) -> None:
    s = sub.add_parser("export-suite", help="write a benchmark suite: families x sizes, with a manifest",
                       description="Write every family x size (and the 18x18 judge case, and the general game's "
                                   "press systems) in the exchange formats, with manifest.csv and manifest.json of "
                                   "the known answers.")
    s.add_argument("dir", metavar="DIR", help="folder to write (created)")
    s.add_argument("--formats", type=lambda t: _names(t, FORMATS, "format"), default=list(SUITE_FORMATS),
                   metavar="LIST",
                   help=f"formats (default {','.join(SUITE_FORMATS)})")
    s.add_argument("--families", type=lambda t: _names(t, [*FAMILIES, GENERAL_FAMILY], "family"), metavar="LIST",
                   help=f"default all: {', '.join(FAMILIES)} and {GENERAL_FAMILY} (press systems: three states, "
                        "Merlin's square, counters, Z_4, Z_5)")
    s.add_argument("--sizes", type=_sizes, metavar="N,N,...", help="board sides (default: each family's own)")
    s.add_argument("--boards", type=count_up_to(BOARDS_PER_SIZE_MAX), default=1, metavar="K",
                   help=f"boards per size (default 1, at most {BOARDS_PER_SIZE_MAX:,})")
    s.add_argument("--seed", type=seed_int, default=0, metavar="S", help="random seed (default 0)")
    s.set_defaults(run=run_suite)


def run_suite(args: argparse.Namespace) -> ExitCode:
    try:
        entries = export_suite(args.dir, args.families, args.sizes, args.boards, args.seed, args.formats)
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot write {exc.filename or args.dir}: {exc.strerror}")
    print(f"{len(entries)} instances x {len(args.formats)} formats in {args.dir} (manifest.csv, manifest.json)")
    return ExitCode.OK

"""``flipgame study --all-lit``: the fewest presses that turn the all-lit n x n board off (OEIS A075464)
for each n asked, one b-file line per n on standard output, the nullity, symmetries and seconds on
standard error; with ``--search-seconds`` an upper bound above the enumerable nullity, with
``--lower-bound`` the covering LP's bound, with ``--bfile`` and ``--witness-dir`` the files.
The terms come from :mod:`flipgame.study.all_lit`."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

from flipgame.algebra.coset_run import InterruptedRun
from flipgame.algebra.minweight import MAX_NULLITY
from flipgame.cli import common
from flipgame.cli.common import ExitCode, fail, writable_path, write_json
from flipgame.core.errors import FlipgameError, RulesError
from flipgame.core.files import whole_file
from flipgame.study import all_lit


def run_all_lit(args: argparse.Namespace) -> ExitCode:
    """``--all-lit``: one b-file line per n on stdout (and --bfile); exit 1 if a term differs from OEIS.
    The --json file is rewritten after each n, so an interrupted run keeps what it computed."""
    try:
        _check_outputs(args)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    done, bounds, worst = [], [], ExitCode.OK
    try:
        for n in args.all_lit:
            code, stop = _one_n(args, n, done, bounds)
            if args.json and args.json != "-" and write_json(args.json, _json(done, bounds), "--json"):
                return ExitCode.USAGE
            if stop:
                return code
            worst = max(worst, code)
    finally:
        if args.json == "-":  # instead of the b-file lines, and after an interruption too: what was finished
            print(json.dumps(_json(done, bounds), indent=1), flush=True)
    return worst


def _text(args: argparse.Namespace, line: str) -> None:
    """A line of the text on standard output (the b-file's), unless ``--json`` prints JSON there instead."""
    if args.json != "-":
        print(line, flush=True)


def _one_n(args: argparse.Namespace, n: int, done: list, bounds: list) -> tuple[ExitCode, bool]:
    """a(n) (and with --lower-bound its bound) appended to ``done`` (``bounds``): the exit code so far, and
    whether the run stops here (an interruption, a file that cannot be written, a checkpoint of another run)."""
    try:
        if args.lower_bound:
            bounds.append(_lower_bound(args, n))
        return _all_lit_term(args, n, done), False
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot write {exc.filename}: {exc.strerror}"), True
    except InterruptedRun as exc:
        resume = f"; the same --checkpoint-dir {args.checkpoint_dir} resumes it" if exc.checkpoint else \
            "; --checkpoint-dir DIR makes it resumable"
        return fail(ExitCode.INTERRUPTED, f"a({n}) stopped: {exc.bound_text()}{resume}"), True
    except FlipgameError as exc:  # a checkpoint or manifest of another run, a scheduler that is not there
        return fail(ExitCode.USAGE, f"a({n}): {exc}"), True


def _json(done: list, bounds: list) -> dict:
    """The --json document: the terms (or upper bounds) and, with --lower-bound, the proven lower bounds."""
    return {"terms": [t.to_json() for t in done]} | ({"lower_bounds": [b.to_json() for b in bounds]} if bounds else {})


def _check_outputs(args: argparse.Namespace) -> None:
    """Every output file and folder writable before the first term (RulesError naming the option)."""
    json_file = args.json if args.json != "-" else None
    seen: dict[str, str] = {}
    for path, flag in ((args.bfile, "--bfile"), (args.witness_file, "--witness-file"), (json_file, "--json")):
        if path and (other := seen.setdefault(os.path.realpath(path), flag)) != flag:
            raise RulesError(f"{other} and {flag} name the same file {path}: each needs its own")
        if path:
            writable_path(path, flag)
    if args.scheduler is not None and not args.scheduler.strip():
        raise RulesError("--scheduler: expected local:N or a scheduler address such as tcp://127.0.0.1:8786, got ''")
    for folder, flag in ((args.witness_dir, "--witness-dir"), (args.checkpoint_dir, "--checkpoint-dir")):
        if folder:
            common.writable_folder(folder, flag)


def _all_lit_term(args: argparse.Namespace, n: int, done: list) -> ExitCode:
    """a(n), or an upper bound above the enumerable nullity with --search-seconds: printed and written."""
    start = time.perf_counter()
    k = all_lit.nullity(n)
    if k > MAX_NULLITY and args.search_seconds is None:
        if args.lower_bound:
            return ExitCode.OK
        return fail(ExitCode.REFUSED, f"a({n}): nullity {k}, over the {MAX_NULLITY} that can be enumerated; "
                                      f"--search-seconds S finds an upper bound, --lower-bound a lower one")
    t = all_lit.upper_bound(n, args.search_seconds, seed=args.seed, on_better=_improved(args)) \
        if k > MAX_NULLITY else all_lit.term(n, checkpoint=_checkpoint(args, n), scheduler=args.scheduler)
    t = dataclasses.replace(t, seconds=time.perf_counter() - start)  # the elimination included
    note = "" if t.agrees else f"; DIFFERS from the published a({n}) = {t.published}"
    symmetries = f"{t.symmetries} symmetries used, " if t.symmetries > 1 else ""  # the long run's, above nullity 16
    if n > all_lit.PUBLISHED_MAX and t.proven and not any(d.n > all_lit.PUBLISHED_MAX for d in done):
        _text(args, all_lit.BEYOND_NOTE)
    _text(args, all_lit.bfile_line(t) if t.proven else f"# a({n}) <= {t.presses} (upper bound, not proven minimal)")
    checked = f"; second check: {t.check}" if t.check else ""
    print(f"a({n}) {'=' if t.proven else '<='} {t.presses}: nullity {t.nullity}, {symmetries}"
          f"{t.seconds:.2f} s{note}{checked}", file=sys.stderr, flush=True)
    done.append(t)
    _write_term(args, t, done)
    return ExitCode.OK if t.agrees else ExitCode.DISAGREEMENT


def _lower_bound(args: argparse.Namespace, n: int) -> all_lit.LowerBound:
    """The covering LP's bound on a(n), its weights checked exactly; printed, and written with --witness-dir."""
    bound = all_lit.lower_bound(n)
    _text(args, f"# a({n}) >= {bound.presses} (covering LP with parity cuts, its dual weights checked in exact "
                f"arithmetic)")
    print(f"a({n}) >= {bound.presses}: nullity {bound.nullity}, {bound.seconds:.2f} s (the covering LP alone: "
          f"{bound.cover})", file=sys.stderr, flush=True)
    if args.witness_dir:
        with open(os.path.join(args.witness_dir, f"a075464-{n}-lower-bound.txt"), "w", encoding="utf-8") as fh:
            fh.write(all_lit.lower_bound_text(bound))
    return bound


def _improved(args: argparse.Namespace):
    """Each improvement of the search: a stderr line, and with --witness-dir its witness written at once
    (re-applied first), so that a Ctrl-C loses nothing."""
    def show(t, how: str) -> None:
        print(f"  a({t.n}) <= {t.presses} after {t.seconds:.1f} s ({how})", file=sys.stderr, flush=True)
        if args.witness_dir:
            _write_witness(args.witness_dir, t)
    return show


def _write_witness(folder: str, t) -> None:
    """``folder/a075464-N.txt``, written whole or not at all (a Ctrl-C while writing keeps the last one)."""
    path = os.path.join(folder, f"a075464-{t.n}.txt")
    with whole_file(path, encoding="utf-8") as fh:
        fh.write(all_lit.witness_text(t))


def _write_term(args: argparse.Namespace, t, done: list) -> None:
    """The witness file of ``t`` (--witness-dir) and the b-file of the terms so far (--bfile); OSError."""
    if args.witness_dir:
        _write_witness(args.witness_dir, t)
    if args.bfile:
        with open(args.bfile, "w", encoding="utf-8") as fh:
            fh.write(all_lit.bfile_text(done))
    if args.witness_file:
        with open(args.witness_file, "w", encoding="utf-8") as fh:
            fh.write("".join(all_lit.compact_line(d) + "\n" for d in done if d.proven))


def _checkpoint(args: argparse.Namespace, n: int) -> str | None:
    """With --checkpoint-dir: the file that keeps a(n)'s long run (``DIR/a075464-N.checkpoint.json``)."""
    if not args.checkpoint_dir:
        return None
    name = f"a075464-{n}.chunks.jsonl" if args.scheduler else f"a075464-{n}.checkpoint.json"
    return os.path.join(args.checkpoint_dir, name)

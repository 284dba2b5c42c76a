"""The ``flipgame`` command line: ``solve``, ``verify`` and ``bench``.

``flipgame solve`` reads POJ 1753 cases (from a file or standard input) and
prints, per case, exactly what POJ expects: the minimum number of presses or
``Impossible``.  ``flipgame verify`` runs the agreement check; ``flipgame
bench`` times the backends side by side.  Exit statuses
are the named codes of :class:`ExitCode`.
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import json
import os
import re
import sys
from collections.abc import Sequence

import numpy as np

from . import BACKENDS, GOALS, Game, get_backend, read_cases
from .board import NEIGHBOURHOODS, BoardFormatError, format_cells, parse_stencil
from .result import Status

MAX_CELLS = 4_000_000
"""Largest board the command line accepts (gauss by light chasing; the other backends less)."""
EXHAUSTIVE_MAX_CELLS = 20
"""verify checks every board up to 2**20 boards; above, a --sample (or --exhaustive up to 24 cells)."""


class ExitCode(enum.IntEnum):
    """Exit statuses of ``flipgame`` (also listed in the README)."""

    OK = 0
    DISAGREEMENT = 1  # verify: two backends gave different answers on some board
    USAGE = 2  # bad option or malformed input (argparse also uses 2)
    WITNESS_FAILURE = 3  # a backend's press set did not reach the goal it claimed
    INCOMPLETE = 4  # some answer was UNKNOWN (time-out) or ERROR (backend fault)
    INTERRUPTED = 130  # Ctrl-C; what was finished has been written


def board_size(text: str) -> tuple[int, int]:
    """Parse ``RxC`` (positive integers) for ``--size``."""
    m = re.fullmatch(r"\s*([0-9]{1,9})\s*[xX]\s*([0-9]{1,9})\s*", text, flags=re.ASCII)
    if not m or int(m[1]) < 1 or int(m[2]) < 1:
        raise argparse.ArgumentTypeError(f"expected RxC with positive integers, e.g. 4x4; got {text!r}")
    rows, cols = int(m[1]), int(m[2])
    if rows * cols > MAX_CELLS:
        raise argparse.ArgumentTypeError(f"{rows}x{cols} has {rows * cols} cells; flipgame takes at most {MAX_CELLS}")
    return rows, cols


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def seed_int(text: str) -> int:
    if not (text.isascii() and text.strip().isdigit()):
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {text!r}")
    return int(text)


def png_path(text: str) -> str:
    if not text.lower().endswith(".png"):
        raise argparse.ArgumentTypeError(f"expected a file name ending in .png, got {text!r}")
    return text


def positive_int(text: str) -> int:
    if not (text.isascii() and text.strip().isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def backend_list(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"a backend is named twice in {text!r}")
    unknown = [n for n in names if n not in BACKENDS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown backend {', '.join(map(repr, unknown)) or '(none given)'}; valid backends: {', '.join(BACKENDS)}"
        )
    return names


def _rules(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=board_size, metavar="RxC", help="board shape, rows x cols (default 4x4)")
    parser.add_argument("--goal", choices=GOALS[:3],
                        help="any: all white or all black (POJ 1753, default); white/black: that colour")
    parser.add_argument("--target", metavar="FILE",
                        help="goal: this board (rows of b/w in FILE) instead of a uniform colour")
    parser.add_argument("--wrap", action="store_true", help="toroidal board: neighbours wrap around the edges")
    parser.add_argument("--neighbourhood", choices=[*NEIGHBOURHOODS, "stencil"], default="plus",
                        help="cells a press flips: plus (default), cross (diagonals), king (3x3), stencil")
    parser.add_argument("--stencil", metavar="PATTERN",
                        help="with --neighbourhood stencil: rows of x/. separated by '/', centre = the press, "
                             "e.g. 'x.x/.x./x.x'")
    parser.add_argument("--time-limit", type=positive_float, metavar="SECONDS",
                        help="per-board limit for solvers that take one (cpsat, ilp); a time-out answers Unknown")
    parser.add_argument("--sat-solver", metavar="NAME",
                        help="python-sat solver for the sat backend (default cadical195; e.g. minisat22, glucose4)")
    parser.add_argument("--mip-solver", metavar="NAME",
                        help="MIP solver for the ilp backend: SCIP (default) or HIGHS")


def game_from_args(args) -> Game:
    """The rules chosen on the command line.  Raises ValueError naming a bad combination."""
    rows, cols = args.size or (4, 4)
    stencil = None
    if args.stencil is not None:
        if args.neighbourhood != "stencil":
            raise ValueError("--stencil needs --neighbourhood stencil")
        stencil = parse_stencil(args.stencil)
    elif args.neighbourhood == "stencil":
        raise ValueError("--neighbourhood stencil needs --stencil PATTERN (e.g. '.x./xxx/.x.')")
    goal, target = args.goal or "any", None
    if args.target is not None:
        if args.goal is not None:
            raise ValueError("give either --goal or --target, not both")
        try:
            with open(args.target, encoding="utf-8-sig", errors="replace") as fh:
                boards = list(read_cases(fh, rows, cols))
        except OSError as exc:
            raise ValueError(f"cannot read --target {args.target}: {exc.strerror}") from None
        except BoardFormatError as exc:
            raise ValueError(f"--target {args.target}: {exc}") from None
        if len(boards) != 1:
            raise ValueError(f"--target {args.target}: expected one {rows}x{cols} board, found {len(boards)}")
        goal, target = "board", boards[0].cells
    return Game(rows, cols, goal, args.wrap, args.neighbourhood, stencil, target)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("flipgame")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flipgame",
        description="Flip Game (POJ 1753) and Lights Out solver with cross-checked backends.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{solve,verify,study,bench}")

    p = sub.add_parser("solve", help="answer POJ 1753 cases from FILE or standard input",
                       description="Print, per case, the minimum number of presses or Impossible.")
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="input file (default: standard input)")
    p.add_argument("--backend", choices=list(BACKENDS), default="gauss",
                   help="solver backend (default gauss): "
                        + "; ".join(f"{n}: {b.summary}" for n, b in BACKENDS.items()))
    p.add_argument("--presses", action="store_true",
                   help="after each answer, print the press set as a board of x (press) and . (no press)")
    p.add_argument("--explain", action="store_true",
                   help="also print the press set, or for Impossible a certificate per goal colour")
    p.add_argument("--format", choices=["poj1753", "painter", "fliptile"], default="poj1753",
                   help="input/output format: poj1753 (Flip Game, default), painter (POJ 1681), "
                        "fliptile (POJ 3279)")
    p.add_argument("--canonical", action="store_true",
                   help="among minimum press sets, the lexicographically smallest (always on for fliptile)")
    p.add_argument("--stats", action="store_true",
                   help="per case on stderr: rules, status, presses, nullity, seconds and solver statistics")
    _rules(p)

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
                   help=f"check every board even above {EXHAUSTIVE_MAX_CELLS} cells (at most 24)")
    v.add_argument("--canonical", action="store_true",
                   help="ask every backend for the canonical (lexicographically smallest) minimum press set "
                        "and compare press sets too, not only counts")
    _rules(v)
    sp = sub.add_parser("study", help="nullity, quiet patterns, solvable boards, distribution, backend times",
                        description="Study one rule set: rank and nullity, quiet patterns, solvable boards, the "
                                    "distribution of minimum presses (exhaustively up to 24 cells) and each "
                                    "backend's time per board on a random sample.")
    sp.add_argument("--backends", type=backend_list, metavar="LIST", help="backends to time (default all that fit)")
    sp.add_argument("--sample", type=positive_int, default=200, metavar="N",
                    help="random boards per backend for the timings (default 200)")
    sp.add_argument("--seed", type=seed_int, default=0, metavar="S", help="random seed (default 0)")
    sp.add_argument("--plot", type=png_path, metavar="FILE.png", help="draw the distribution and the timings (PNG)")
    sp.add_argument("--json", action="store_true", help="print everything as JSON instead of text")
    _rules(sp)

    bp = sub.add_parser("bench", help="time every backend on all boards and the start-up of `flipgame solve`",
                        description="Benchmark: every backend over all boards of the size in this process "
                                    "(per-board solvers in --jobs workers), boards/s, speed ratios, and the "
                                    "start-up time of `flipgame solve` on one board per backend.")
    bp.add_argument("--backends", type=backend_list, metavar="LIST", help="comma-separated backends (default all)")
    bp.add_argument("--size", type=board_size, default=(4, 4), metavar="RxC", help="board shape (default 4x4)")
    bp.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1, metavar="N",
                    help="worker processes for per-board solvers (default: all cores)")
    bp.add_argument("--startup-runs", type=positive_int, default=3, metavar="N",
                    help="process starts timed per backend; the median is reported (default 3)")
    bp.add_argument("--json", default="flipgame-bench.json", metavar="FILE",
                    help="where to save the table as JSON (default flipgame-bench.json)")
    return parser


def writable_path(path: str, what: str) -> str:
    """Check up front that ``path`` can be written (so a long run is not lost at the end).

    Raises ValueError naming the option and the problem.
    """
    if not path:
        raise ValueError(f"{what}: empty file name")
    if os.path.isdir(path):
        raise ValueError(f"{what} {path}: is a directory")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ValueError(f"{what} {path}: folder {parent} does not exist")
    if os.path.exists(path) and not os.path.isfile(path):
        raise ValueError(f"{what} {path}: not a regular file")
    if not os.access(path if os.path.exists(path) else parent, os.W_OK):
        raise ValueError(f"{what} {path}: not writable")
    return path


def write_json(path: str, data: dict, what: str) -> ExitCode:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
    except OSError as exc:
        return _fail(ExitCode.USAGE, f"cannot write {what} {path}: {exc.strerror}")
    return ExitCode.OK


def _fail(code: ExitCode, message: str) -> ExitCode:
    print(f"flipgame: {message}", file=sys.stderr)
    return code


# Command-line option -> (backends it applies to, keyword option of their solve()).
SOLVER_OPTIONS = {
    "time_limit": (("cpsat", "ilp"), "time_limit"),
    "sat_solver": (("sat",), "solver"),
    "mip_solver": (("ilp",), "solver"),
}


def _backend_options(names: Sequence[str], args) -> dict[str, dict]:
    """Per-backend keyword options from the command line.

    Raises ValueError when an option given applies to none of ``names``.
    """
    options: dict[str, dict] = {n: {} for n in names}
    for attr, (targets, keyword) in SOLVER_OPTIONS.items():
        value = getattr(args, attr)
        if value is None:
            continue
        chosen = [n for n in names if n in targets]
        if not chosen:
            flag = "--" + attr.replace("_", "-")
            raise ValueError(f"{flag} applies to backend {' or '.join(targets)}, not to {', '.join(names)}")
        for n in chosen:
            options[n][keyword] = value
    return options


def explain_impossible(game: Game, board: int) -> str:
    """Text of an Impossible certificate per goal board, each re-checked by the board model.

    Raises RuntimeError if no valid certificate exists (the board is solvable).
    """
    from verify.witness import check_certificate

    from .gauss import DENSE_MAX_CELLS, certificates

    if game.n > DENSE_MAX_CELLS:
        return f"(no certificate: it needs the dense elimination, at most {DENSE_MAX_CELLS} cells)"
    found = certificates(game, board)
    if found is None:
        raise RuntimeError("no certificate: some goal board is reachable")
    out = []
    for target, cert in found.items():
        problem = check_certificate(game, board, target, cert)
        if problem:
            raise RuntimeError(f"certificate rejected by the board model: {problem}")
        overlap = ((board ^ target) & cert).bit_count()
        out.append(f"certificate for {game.describe_target(target)}: every press flips an even number of the "
                   f"cells marked x, but {overlap} of them (odd) must change")
        out.append(format_cells(cert, game.rows, game.cols, "x", "."))
    return "\n".join(out)


def cmd_solve(args) -> ExitCode:
    from verify.witness import check_solution

    from .formats import FORMATS

    reader, writer, size_from_input, canonical = FORMATS[args.format]
    if size_from_input and (args.size or args.goal or args.target):
        return _fail(ExitCode.USAGE, f"the {args.format} format gives the size and goal in its input; "
                                     f"drop --size/--goal/--target")
    backend = get_backend(args.backend)
    try:
        rules = game_from_args(args)
        options = _backend_options([backend.name], args)[backend.name]
        if canonical or args.canonical:
            options["canonical"] = True
        if not size_from_input and not backend.supports(rules):
            raise ValueError(f"backend {backend.name!r} allows at most {backend.max_cells} cells; "
                             f"{rules.size} has {rules.n}")
        backend.solve(Game(1, 1), 0, **options)  # fail on a bad solver name before reading input
    except ValueError as exc:
        return _fail(ExitCode.USAGE, str(exc))
    worst = ExitCode.OK
    try:
        # Undecodable bytes become U+FFFD and are then reported with their line.
        # utf-8-sig drops a byte-order mark (files saved by Windows Notepad).
        if args.file == "-":
            if sys.stdin is None:
                return _fail(ExitCode.USAGE, "standard input is closed")
            sys.stdin.reconfigure(encoding="utf-8-sig", errors="replace")
        stream = (contextlib.nullcontext(sys.stdin) if args.file == "-"
                  else open(args.file, encoding="utf-8-sig", errors="replace"))  # noqa: SIM115 - closed by `with`
    except OSError as exc:
        return _fail(ExitCode.USAGE, f"cannot read {args.file}: {exc.strerror}")
    name = "standard input" if args.file == "-" else args.file
    number = 0
    with stream as stream:
        try:
            for case in reader(stream, rules):
                number, game = case.number, case.game
                if not backend.supports(game):
                    return _fail(ExitCode.USAGE, f"{name}: case {number}: backend {backend.name!r} allows at most "
                                                 f"{backend.max_cells} cells; {game.size} has {game.n}")
                sol = backend.solve(game, case.board, **options)
                problem = check_solution(game, case.board, sol)
                if problem:
                    print("Error", flush=True)
                    _fail(ExitCode.WITNESS_FAILURE, f"case {number}: {backend.name} witness rejected: {problem}")
                    worst = max(worst, ExitCode.WITNESS_FAILURE)
                    continue
                print(writer(case, sol))
                if sol.status in (Status.UNKNOWN, Status.ERROR):
                    worst = max(worst, ExitCode.INCOMPLETE)
                    _fail(ExitCode.INCOMPLETE, f"{name}: case {number}: {backend.name} gave no proven answer "
                                               f"({sol.status.name}, {sol.seconds:.1f} s)")
                if (args.presses or args.explain) and sol.success:
                    print(format_cells(sol.presses, game.rows, game.cols, "x", "."))
                if args.explain and sol.status is Status.INFEASIBLE:
                    print(explain_impossible(game, case.board))
                sys.stdout.flush()
                if args.stats:
                    print(_stats_line(number, game, sol), file=sys.stderr)
        except BoardFormatError as exc:
            return _fail(ExitCode.USAGE, f"{name}: {exc}")
        except ValueError as exc:  # e.g. a nullity too large for gauss
            return _fail(ExitCode.USAGE, f"{name}: case {number + 1 if number == 0 else number}: {exc}")
    return worst


def _stats_line(number: int, game: Game, sol) -> str:
    from .gauss import nullity

    k = sol.stats["nullity"] if "nullity" in sol.stats else nullity(game)
    extra = " ".join(f"{key}={value}" for key, value in sol.stats.items() if key not in ("nullity",))
    moves = "-" if sol.moves is None else sol.moves
    return (f"case {number}: {game.rules}; {sol.status.name} presses={moves} "
            f"nullity={'?' if k is None else k} seconds={sol.seconds:.4f} {extra}").rstrip()


def cmd_verify(args) -> ExitCode:
    from tqdm import tqdm

    from verify.harness import run_agreement

    try:
        game = game_from_args(args)
        writable_path(args.report, "--report")
        if args.checkpoint is not None:
            writable_path(args.checkpoint, "--checkpoint")
            if os.path.abspath(args.checkpoint) == os.path.abspath(args.report):
                raise ValueError("--checkpoint and --report must be different files")
    except ValueError as exc:
        return _fail(ExitCode.USAGE, str(exc))
    if args.backends:
        names = args.backends
        too_small = [n for n in names if not BACKENDS[n].supports(game)]
        if too_small:
            return _fail(ExitCode.USAGE, f"{', '.join(too_small)} cannot take {game.size} "
                                         f"({game.n} cells); choose other backends")
    else:
        names = [n for n, b in BACKENDS.items() if b.supports(game)]
        for n in BACKENDS.keys() - set(names):
            print(f"flipgame: skipping {n}: at most {BACKENDS[n].max_cells} cells", file=sys.stderr)
    if game.n > 64:
        return _fail(ExitCode.USAGE, f"the agreement check takes boards of at most 64 cells; {game.size} has {game.n}")
    if args.sample is not None and args.exhaustive:
        return _fail(ExitCode.USAGE, "give either --sample or --exhaustive, not both")
    exhaustive = args.sample is None and (game.n <= EXHAUSTIVE_MAX_CELLS or args.exhaustive)
    if args.sample is None and not exhaustive:
        return _fail(ExitCode.USAGE, f"{game.size} has 2**{game.n} boards; check a random sample with "
                                     f"--sample N [--seed S], or all of them with --exhaustive")
    if exhaustive and game.n > 24:
        return _fail(ExitCode.USAGE, "--exhaustive allows at most 24 cells (2**24 boards); use --sample N")
    try:
        options = _backend_options(names, args)
        for n in names:  # fail on a bad solver name before the long run
            if args.canonical:
                options[n]["canonical"] = True
            BACKENDS[n].solve(game, 0, **options[n])
    except (ValueError, TypeError) as exc:
        return _fail(ExitCode.USAGE, str(exc))
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
    except ValueError as exc:  # e.g. a checkpoint of another run
        return _fail(ExitCode.USAGE, str(exc))
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
        return _fail(ExitCode.INTERRUPTED, "interrupted; the report holds the backends that finished")
    if n_dis:
        return ExitCode.DISAGREEMENT
    if n_wit:
        return ExitCode.WITNESS_FAILURE
    if report.incomplete:
        return ExitCode.INCOMPLETE
    print("All backends agree on every board; every witness checks out.")
    return ExitCode.OK


def _startup_seconds(backend: str, game: Game, runs: int) -> float:
    """Median wall time of `python -m solvers solve --backend NAME` on one all-white board."""
    import statistics
    import subprocess
    import time

    board = "\n".join(["w" * game.cols] * game.rows) + "\n"
    cmd = [sys.executable, "-m", "solvers", "solve", "--backend", backend, "--size", game.size]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, input=board, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cmd_study(args) -> ExitCode:
    from .study import plot, study

    try:
        game = game_from_args(args)
        options = _backend_options(args.backends or list(BACKENDS), args)
        if any(options.values()):
            raise ValueError("study times every backend with its default options; drop the solver options")
        if args.plot:
            writable_path(args.plot, "--plot")
        st = study(game, args.backends, args.sample, args.seed)
    except ValueError as exc:
        return _fail(ExitCode.USAGE, str(exc))
    if args.plot:
        try:
            plot(st, args.plot)
        except OSError as exc:
            return _fail(ExitCode.USAGE, f"cannot write {args.plot}: {exc.strerror}")
    print(json.dumps(st.to_json(), indent=1) if args.json else st.text())
    if args.plot and not args.json:
        print(f"Plot: {args.plot}")
    return ExitCode.OK


def cmd_bench(args) -> ExitCode:
    import platform

    from verify.harness import run_agreement

    game = Game(*args.size)
    try:
        writable_path(args.json, "--json")
    except ValueError as exc:
        return _fail(ExitCode.USAGE, str(exc))
    names = args.backends or [n for n, b in BACKENDS.items() if b.supports(game)]
    if game.n > 24 or any(not BACKENDS[n].supports(game) for n in names):
        return _fail(ExitCode.USAGE, f"bench solves all 2**n boards; {game.size} is too large for "
                                     f"{', '.join(names)}")
    print(f"Benchmark: {', '.join(names)} on all {1 << game.n} {game.size} boards, "
          f"{args.jobs} worker(s) for per-board solvers ...", file=sys.stderr)
    report = run_agreement(game, names, jobs=args.jobs,
                           on_backend_done=lambda s: print(f"  {s.backend}: {s.seconds:.3f} s", file=sys.stderr))
    fastest = min(s.seconds for s in report.summaries)
    rows = []
    for s in report.summaries:
        rows.append({
            "backend": s.backend,
            "boards": s.boards,
            "seconds": round(s.seconds, 4),
            "boards_per_second": round(s.boards_per_second, 1),
            "times_fastest": round(s.seconds / fastest, 1),
            "workers": args.jobs if BACKENDS[s.backend].parallel else 1,
            "startup_seconds": round(_startup_seconds(s.backend, game, args.startup_runs), 3),
        })
    head = ("backend", "boards", "seconds", "boards/s", "x fastest", "workers", "solve start-up s")
    table = [head] + [(r["backend"], r["boards"], f"{r['seconds']:.3f}", f"{r['boards_per_second']:,.0f}",
                       f"{r['times_fastest']:.1f}", r["workers"], f"{r['startup_seconds']:.3f}") for r in rows]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(head))]
    for k, r in enumerate(table):
        print("  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w)
                        for i, (v, w) in enumerate(zip(r, widths, strict=True))))
        if k == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    result = {
        "game": game.size,
        "jobs": args.jobs,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "agree": report.ok,
        "backends": rows,
    }
    if write_json(args.json, result, "benchmark"):
        return ExitCode.USAGE
    print(f"\nSaved {args.json}. All answers agree: {'yes' if report.ok else 'NO'}.")
    return ExitCode.OK if report.ok else ExitCode.DISAGREEMENT


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``flipgame`` console script; returns an :class:`ExitCode`."""
    if sys.stdout is None:
        print("flipgame: standard output is closed", file=sys.stderr)
        return int(ExitCode.USAGE)
    args = build_parser().parse_args(argv)
    try:
        command = {"solve": cmd_solve, "verify": cmd_verify, "study": cmd_study, "bench": cmd_bench}[args.command]
        return int(command(args))
    except KeyboardInterrupt:
        return int(_fail(ExitCode.INTERRUPTED, "interrupted"))
    except BrokenPipeError:
        # The reader went away (e.g. `| head -1`): stop quietly, as other Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return int(ExitCode.OK)
    except OSError as exc:  # e.g. standard output on a full disk
        return int(_fail(ExitCode.USAGE, f"cannot write output: {exc.strerror or exc}"))


if __name__ == "__main__":
    sys.exit(main())

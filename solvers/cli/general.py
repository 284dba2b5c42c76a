"""The general game on the command line: ``--rules FILE``, ``--states K``, ``--goal D`` and the
formats ``poj1830`` and ``aoc2025-10`` route ``solve``, ``verify`` and ``study`` here.

The grid commands keep their own fast paths; this module reads a
:class:`~flipgame.system.PressSystem` from the arguments, and answers with
the press-system backends of :mod:`flipgame.general`, every witness
re-applied by the model (:func:`flipgame.verify.witness.check_system_solution`).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from flipgame.verify.witness import check_system_batch, check_system_certificate, check_system_solution

from .. import Game
from ..errors import BoardFormatError, FlipgameError, RefusedError, RulesError
from ..general import refusal, solve_system, solve_system_batch, takers
from ..result import Status
from ..system import PressSystem, from_game, from_json, read_boards, read_edge_list
from ..system_bfs import distance_table
from ..system_formats import poj1830_answer, read_aoc2025_10, read_poj1830
from ..zk import diagonal_of
from .common import ExitCode, backend_options, fail

FORMATS = {"poj1830": "POJ 1830: count the press sets reaching the target, or the judge's impossible line",
           "aoc2025-10": "Advent of Code 2025 day 10: one machine per line (--part 2: counters), then the total"}
"""The press-system formats ``solve --format`` takes besides the grid formats."""
VERIFY_BACKENDS = ["gauss", "bfs", "cpsat", "ilp", "sat"]
"""verify's default backends on a press system (ilp with SCIP; --mip-solver HIGHS runs HiGHS instead)."""
EXHAUSTIVE_BOARDS = 1 << 20
"""verify checks every board up to this many; above, --sample N or --exhaustive (up to EXHAUSTIVE_LIMIT)."""
EXHAUSTIVE_LIMIT = 1 << 30
CHUNK = 1 << 19
"""Boards per vectorised batch in verify (about 0.5 GiB of numpy temporaries at 16 cells)."""
STUDY_MAX_BOARDS = 1 << 26
"""study enumerates the distribution of minimum presses up to this many boards (the bfs table)."""


def wanted(args: argparse.Namespace) -> bool:
    """True when the arguments ask for the general game rather than the grid fast path."""
    return (getattr(args, "rules", None) is not None or getattr(args, "states", None) is not None
            or (args.goal is not None and args.goal.isdigit()) or getattr(args, "format", None) in FORMATS
            or getattr(args, "part", None) is not None)


def _read(path: str, what: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read(1 << 24)
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesError(f"cannot read {what} {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _goal(args, k: int | None) -> str:
    goal = args.goal or "any"
    if goal == "white":
        return "0"
    if goal == "black":
        return str((k or 2) - 1)
    return goal


def system_from_args(args: argparse.Namespace) -> PressSystem:
    """The press system of ``--rules`` or of the grid options with ``--states``, and its goal.

    Raises RulesError naming a bad combination or file.
    """
    states = 2 if args.states is None else args.states or None  # --states counters is 0
    if args.rules is not None:
        if args.size or args.wrap or args.neighbourhood != "plus" or args.stencil:
            raise RulesError("--rules gives the cells and buttons; drop --size/--wrap/--neighbourhood/--stencil")
        text = _read(args.rules, "--rules")
        if text.lstrip().startswith("{"):
            system = from_json(text, "file" if args.states is None else states, goal="0")  # goal set below
        else:
            system = read_edge_list(text, states=states, goal="0")
    else:
        rows, cols = args.size or (4, 4)
        system = from_game(Game(rows, cols, "any", args.wrap, args.neighbourhood, args.stencil), states, "any"
                           if states else "0")
    if args.target is not None:
        if args.goal is not None:
            raise RulesError("give either --goal or --target, not both")
        try:
            target = next(iter(read_boards(_read(args.target, "--target").splitlines(), system)), None)
        except BoardFormatError as exc:
            raise RulesError(f"--target {args.target}: {exc}") from None
        if target is None:
            raise RulesError(f"--target {args.target}: expected one board of {system.size}, found none")
        return system.with_goal("board", target)
    return system.with_goal(_goal(args, system.states))


def _options(args, name: str) -> tuple[str, dict]:
    """The press-system backend and options from the backend flags; only --time-limit and --mip-solver apply."""
    given = backend_options([name], args)[name] if name in ("gauss", "bfs", "cpsat", "sat", "ilp", "auto") else {}
    solver = given.pop("solver", "SCIP")
    if name == "ilp" and str(solver).upper() == "HIGHS":
        name = "ilp-highs"
    options = {}
    if "time_limit" in given:
        options["time_limit"] = float(given.pop("time_limit"))
    given.pop("memory_limit", None)
    if given:
        raise RulesError(f"{', '.join(given)}: not taken by {name} on press systems (only --time-limit, "
                         f"--mip-solver)")
    return name, options


def _check(system: PressSystem, board, sol) -> str | None:

    problem = check_system_solution(system, board, sol)
    for target, cert in (sol.certificates or {}).items():
        problem = problem or check_system_certificate(system, board, target, cert)
    return problem


def _presses_text(system: PressSystem, presses) -> str:
    """Press counts as the grid's rows (one button per cell), else ``button x count`` per pressed button."""
    if system.shape and system.m == system.cells:
        return system.format_board(presses)
    return " ".join(f"{j}x{t}" for j, t in enumerate(presses) if t) or "(no press)"


def _check_solve_flags(args: argparse.Namespace) -> None:
    """Raise RulesError for a flag press systems do not take with ``args.format``."""
    if args.part is not None and args.format != "aoc2025-10":
        raise RulesError("--part needs --format aoc2025-10")
    if args.format in FORMATS and (args.rules or args.size or args.goal or args.target
                                   or args.states is not None):
        raise RulesError(f"the {args.format} format gives the rules and goal in its input; drop "
                         f"--rules/--size/--goal/--target/--states")
    if args.format not in FORMATS and args.format != "poj1753":
        raise RulesError(f"--format {args.format} is a grid format; press systems read boards as rows "
                         f"(the default) or the formats {', '.join(FORMATS)}")
    if getattr(args, "strategy", None):
        raise RulesError("--strategy runs on grid boards; press systems take --backend")


def run_solve(args: argparse.Namespace) -> ExitCode:
    """``flipgame solve`` on press systems: one answer per board, or the judge format's lines."""
    try:
        _check_solve_flags(args)
        name, options = _options(args, args.backend or "gauss")
        system = None if args.format in FORMATS else system_from_args(args)
        if system is not None and refusal(name, system):
            raise RefusedError(refusal(name, system))
        if args.format == "poj1830" and name != "gauss":
            raise RefusedError(f"{name}: poj1830 asks for the number of press sets, which gauss counts; "
                               f"use --backend gauss")
        text = sys.stdin.read() if args.file == "-" else _read(args.file, "input")
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, str(exc))
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    lines = text.splitlines()
    if args.format == "poj1830":
        cases = read_poj1830(lines)
    elif args.format == "aoc2025-10":
        cases = read_aoc2025_10(lines, args.part or 1)
    else:
        cases = ((i, system, b) for i, b in enumerate(read_boards(lines, system), start=1))
    return _answer_all(args, cases, name, options)


def _answer_all(args, cases, name: str, options: dict) -> ExitCode:
    worst, total = ExitCode.OK, 0
    try:
        for number, system, board in cases:
            why = refusal(name, system)
            if why:
                return fail(ExitCode.REFUSED, f"case {number}: {why}")
            sol = solve_system(system, board, name, **options)
            problem = _check(system, board, sol)
            if problem:
                print("Error", flush=True)
                fail(ExitCode.WITNESS_FAILURE, f"case {number}: {name} answer rejected by the model: {problem}")
                worst = max(worst, ExitCode.WITNESS_FAILURE)
                continue
            if sol.status in (Status.UNKNOWN, Status.ERROR):
                worst = max(worst, ExitCode.INCOMPLETE)
            _print_answer(args, system, board, sol)
            total += sol.moves or 0
    except BoardFormatError as exc:
        return fail(ExitCode.USAGE, f"{args.file if args.file != '-' else 'standard input'}: {exc}")
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, str(exc))
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if args.format == "aoc2025-10":
        print(f"total {total}")
    return worst


def _print_answer(args, system: PressSystem, board, sol) -> None:
    if args.format == "poj1830":
        print(poj1830_answer(sol.stats.get("solutions") if sol.success else 0))
        return
    print(sol.answer())
    if (args.presses or args.explain) and sol.success:
        print(_presses_text(system, sol.presses))
    if args.explain and sol.certificates:
        for target, cert in sol.certificates.items():
            print(f"certificate for goal {system.format_board(target)!r}: every button adds 0 (mod "
                  f"{system.states}) to the weighted sum of the cells with these weights, but the board must "
                  f"change it:")
            print(system.format_board(cert))
    if args.stats:
        extra = " ".join(f"{k}={v}" for k, v in sol.stats.items())
        print(f"{system.rules}; {sol.status.name} presses={sol.moves} seconds={sol.seconds:.4f} {extra}".rstrip(),
              file=sys.stderr)


def _boards(system: PressSystem, args) -> np.ndarray:
    """Every board (mixed radix, row-major) or a seeded sample, int64 shape (b, n)."""
    k = system.states
    if k is None:
        raise RulesError("verify and study enumerate Z_k boards; counters have no finite board set "
                         "(solve them with cpsat, ilp and bfs)")
    total = k ** system.cells
    if args.sample is not None:
        rng = np.random.default_rng(args.seed or 0)
        return rng.integers(0, k, size=(args.sample, system.cells), dtype=np.int64)
    if total > EXHAUSTIVE_LIMIT or (total > EXHAUSTIVE_BOARDS and not args.exhaustive):
        raise RulesError(f"{k}^{system.cells} = {total:,} boards: give --sample N"
                         + (f" or --exhaustive (up to {EXHAUSTIVE_LIMIT:,})" if total <= EXHAUSTIVE_LIMIT else ""))
    return None  # enumerated in chunks by _chunks


def _chunks(system: PressSystem, boards: np.ndarray | None):
    """Boards in chunks of CHUNK: the sample's, or every board by index (digit i = cell i, cell 0 most significant)."""
    if boards is not None:
        for s in range(0, len(boards), CHUNK):
            yield boards[s:s + CHUNK]
        return
    k, n = system.states, system.cells
    powers = k ** np.arange(n - 1, -1, -1, dtype=np.int64)
    total = k ** n
    for s in range(0, total, CHUNK):
        idx = np.arange(s, min(total, s + CHUNK), dtype=np.int64)
        yield (idx[:, None] // powers[None, :]) % k


CERTIFICATES_CHECKED = 1000
"""verify re-solves at most this many Impossible boards with gauss and checks their certificates."""


def _verify_setup(args: argparse.Namespace):
    """(system, boards or None, [(backend, options)]) for verify; raises FlipgameError."""
    system = system_from_args(args)
    if args.sample is not None and args.exhaustive:
        raise RulesError("give either --sample or --exhaustive, not both")
    boards = _boards(system, args)
    chosen = [_options(args, n) for n in (args.backends or VERIFY_BACKENDS)]
    for name, _ in chosen:
        why = refusal(name, system)
        if why and args.backends:
            raise RefusedError(why)
        if why:
            print(f"flipgame: skipping {why}", file=sys.stderr)
    chosen = [(n, o) for n, o in chosen if n in takers(system, [n])]
    if not chosen:
        raise RefusedError("no backend given takes this system")
    return system, boards, chosen


class _Tally:
    """Counts of one verify run: disagreements (the first few kept), rejected witnesses, seconds."""

    def __init__(self, names):
        self.disagree, self.rejected, self.certified, self.walked = 0, 0, 0, 0
        self.seconds = dict.fromkeys(names, 0.0)
        self.examples: list[str] = []

    def compare(self, system: PressSystem, ref, batch) -> None:
        bad = np.flatnonzero((batch.status != ref.status) | (batch.moves != ref.moves))
        self.disagree += len(bad)
        for i in bad[:max(0, 5 - len(self.examples))]:
            self.examples.append(f"board {' '.join(map(str, ref.boards[i]))}: {ref.backend} {ref[i].answer()}, "
                                 f"{batch.backend} {batch[i].answer()}")

    def certify(self, system: PressSystem, batch) -> None:
        """Re-solve Impossible boards with gauss and check each certificate with the model."""
        for i in np.flatnonzero(batch.status == Status.INFEASIBLE)[:CERTIFICATES_CHECKED - self.certified]:
            board = tuple(int(v) for v in batch.boards[i])
            sol = solve_system(system, board, "gauss")
            self.rejected += _check(system, board, sol) is not None or not sol.certificates
            self.certified += 1


def run_verify(args: argparse.Namespace) -> ExitCode:
    """``flipgame verify`` on a press system: every backend that takes it, answers compared board by board,
    every OPTIMAL witness re-applied by the model (vectorised), the certificates of the first
    :data:`CERTIFICATES_CHECKED` Impossible boards checked."""
    try:
        system, boards, chosen = _verify_setup(args)
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, str(exc))
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    total = len(boards) if boards is not None else system.states ** system.cells
    print(f"verify {system.rules}: {total:,} boards, backends {', '.join(n for n, _ in chosen)}", flush=True)
    tally, start = _Tally(n for n, _ in chosen), time.perf_counter()
    for number, chunk in enumerate(_chunks(system, boards)):
        _verify_chunk(system, chunk, chosen, tally, walk=total <= EXHAUSTIVE_BOARDS or number == 0)
        if total > CHUNK:
            print(f"flipgame: progress: {min(total, (number + 1) * CHUNK):,} of {total:,} boards, "
                  f"{tally.disagree} disagreements, {tally.rejected} rejected so far "
                  f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    for name, _ in chosen:
        print(f"  {name}: {tally.seconds[name]:.1f} s")
    if tally.walked < total and any(n == "bfs" for n, _ in chosen):
        print(f"  bfs: minimum and status on every board; witnesses walked and checked on the first "
              f"{tally.walked:,}")
    print(f"  certificates of {tally.certified:,} Impossible boards checked by the model")
    for line in tally.examples:
        print(f"  disagreement: {line}")
    print(f"{total:,} boards: {tally.disagree} disagreements, {tally.rejected} witnesses rejected "
          f"({time.perf_counter() - start:.1f} s)")
    return ExitCode.DISAGREEMENT if tally.disagree else ExitCode.WITNESS_FAILURE if tally.rejected else ExitCode.OK


def _verify_chunk(system: PressSystem, chunk: np.ndarray, chosen, tally: _Tally, walk: bool) -> None:

    ref = None
    for name, options in chosen:
        t0 = time.perf_counter()
        if name == "bfs":  # the witness walk is per step in Python: every board up to 2**20, else the first chunk
            options = {"witnesses": walk}
            tally.walked += len(chunk) if walk else 0
        batch = solve_system_batch(system, chunk, name, **options)
        tally.seconds[name] += time.perf_counter() - t0
        if options.get("witnesses", True):
            tally.rejected += int(check_system_batch(system, batch).sum())
        if ref is None:
            ref = batch
            tally.certify(system, batch)
        else:
            tally.compare(system, ref, batch)


def run_study(args: argparse.Namespace) -> ExitCode:
    """``flipgame study`` on a press system over Z_k: the kernel (nullity mod k), how many boards are
    solvable, and the distribution of minimum presses (from the bfs table, or gauss on every board)."""

    try:
        system = system_from_args(args)
        if system.states is None:
            raise RulesError("study takes Z_k systems; counters have no finite board set")
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    k, n = system.states, system.cells
    diag = diagonal_of(system.matrix, k)
    print(f"{system.rules}")
    print(f"kernel: {diag.kernel_size:,} press vectors (nullity {diag.nullity} mod {k}; pivots "
          f"{', '.join(map(str, sorted(set(diag.d)))) or 'none'})")
    if k ** n > STUDY_MAX_BOARDS:
        image = k ** system.m // diag.kernel_size
        print(f"solvable boards per goal board: {image:,} of {k ** n:,}; distribution: over {STUDY_MAX_BOARDS:,} "
              f"boards, not enumerated")
        return ExitCode.OK
    table = distance_table(system).reshape(-1)
    inf = np.iinfo(table.dtype).max
    solvable = int((table != inf).sum())
    print(f"solvable boards: {solvable:,} of {k ** n:,}")
    counts = np.bincount(table[table != inf].astype(np.int64))
    print("minimum presses: " + ", ".join(f"{d}: {c:,}" for d, c in enumerate(counts)))
    return ExitCode.OK

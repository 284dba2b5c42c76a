"""The general game on the command line: ``--rules FILE``, ``--states K``, ``--goal D`` and the
formats ``poj1830`` and ``aoc2025-10`` route ``solve``, ``verify`` and ``study`` here.

The grid commands keep their own fast paths; this module reads a
:class:`~flipgame.model.system.PressSystem` from the arguments, and answers with
the press-system backends of :mod:`flipgame.gate.general`, every witness
re-applied by the model (:func:`flipgame.verify.checks.witness.check_system_solution`).
A flag only the grid path takes (``--certify``, ``--checkpoint``, ...) is
refused in one line (exit 2), never ignored.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from flipgame import Game
from flipgame.algebra.zk import diagonal_of
from flipgame.backends.result import Status
from flipgame.backends.system_bfs import distance_table
from flipgame.backends.system_models import ILP_SOLVERS
from flipgame.cli.common import (
    ExitCode,
    backend_options,
    fail,
    option_flags,
    positive_seconds,
    writable_path,
    write_json,
)
from flipgame.core.errors import BoardFormatError, FlipgameError, RefusedError, RulesError
from flipgame.formats.press import poj1830_answer, read_aoc2025_10, read_poj1830
from flipgame.gate.general import refusal, solve_system, solve_system_batch, takers, who_takes
from flipgame.model.system import PressSystem, from_game, from_json, read_boards, read_edge_list
from flipgame.verify.checks.witness import check_system_batch, check_system_certificate, check_system_solution

FORMATS = {"poj1830": "POJ 1830: count the press sets reaching the target, or the judge's impossible line",
           "aoc2025-10": "Advent of Code 2025 day 10: one machine per line (--part 2: counters), then the total"}
"""The press-system formats ``solve --format`` takes besides the grid formats."""
VERIFY_BACKENDS = ["gauss", "bfs", "cpsat", "ilp", "sat"]
"""verify's default backends on a press system (ilp with SCIP; --mip-solver HIGHS runs HiGHS instead)."""
EXHAUSTIVE_BOARDS = 1 << 20
"""verify checks every board up to this many; above, --sample N or --exhaustive (up to EXHAUSTIVE_LIMIT)."""
EXHAUSTIVE_LIMIT = 1 << 30
CHUNK = 1 << 19
"""Boards per vectorised batch in verify (about 0.5 GiB of numpy temporaries at 16 cells); --chunk-size N."""
STUDY_MAX_BOARDS = 1 << 26
"""study enumerates the distribution of minimum presses up to this many boards (the bfs table)."""
GRID_GAME = "the grid game (two states, --size without --states/--rules)"
"""Who takes the flags the press-system path refuses."""
SOLVE_GRID_FLAGS = (("--strategy", "strategy"), ("--canonical", "canonical"), ("--certify", "certify"),
                    ("--certify-time-limit", "certify_time_limit"), ("--proof-dir", "proof_dir"))
VERIFY_GRID_FLAGS = (("--strategies", "strategies"), ("--checkpoint", "checkpoint"), ("--certify", "certify"),
                     ("--canonical", "canonical"), ("--scheduler", "scheduler"))
STUDY_GRID_FLAGS = (("--backends", "backends"), ("--strategies", "strategies"), ("--families", "families"),
                    ("--sizes", "sizes"), ("--plot", "plot"), ("--json", "json"), ("--csv", "csv"),
                    ("--cactus", "cactus"))
"""(flag, attribute) of each command's flags that only the grid path takes: given, they are refused."""
PRESS_OPTIONS = {"time_limit": "--time-limit", "solver": "--mip-solver"}
"""The backend options press systems take (--time-limit for cpsat, ilp, sat; --mip-solver for ilp)."""
RECORDS = 100
"""verify's report keeps the first this many disagreements and rejected witnesses (all are counted)."""
SHOWN = 5
"""verify prints the first this many disagreements."""
CERTIFICATES_CHECKED = 1000
"""verify re-solves at most this many Impossible boards with gauss and checks their certificates."""


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
    """``--goal`` as a PressSystem goal; RulesError naming what the command line takes."""
    goal = args.goal or "any"
    if goal == "white":
        return "0"
    if goal == "black" and k is None:
        raise RulesError("--goal black: counters have no top state; give --goal D or --target FILE")
    if goal == "black":
        return str(k - 1)
    if goal.isdigit() and k is not None and int(goal) >= k:
        raise RulesError(f"--goal {goal}: expected any, white, black or a state 0..{k - 1} ({k} states), "
                         f"or --target FILE")
    return goal


def _rules_file(args, states: int | None) -> PressSystem:
    """The system of ``--rules FILE`` (JSON or an edge list); RulesError naming the file."""
    if args.size or args.wrap or args.neighbourhood != "plus" or args.stencil:
        raise RulesError("--rules gives the cells and buttons; drop --size/--wrap/--neighbourhood/--stencil")
    text = _read(args.rules, "--rules")
    try:
        if text.lstrip().startswith("{"):
            return from_json(text, "file" if args.states is None else states, goal="0")  # goal set below
        return read_edge_list(text, states=states, goal="0")
    except RulesError as exc:
        raise RulesError(f"--rules {args.rules}: {exc}") from None


def system_from_args(args: argparse.Namespace) -> PressSystem:
    """The press system of ``--rules`` or of the grid options with ``--states``, and its goal.

    Raises RulesError naming a bad combination or file.
    """
    states = 2 if args.states is None else args.states or None  # --states counters is 0
    if args.rules is not None:
        system = _rules_file(args, states)
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


def _refuse_grid_flags(args: argparse.Namespace, flags) -> None:
    """RulesError for the first of ``flags`` ((flag, attribute) pairs) given: only the grid path takes them."""
    for flag, attr in flags:
        if getattr(args, attr, None) not in (None, False):
            raise RulesError(f"{flag} is for {GRID_GAME}; press systems do not take it")


def _flag(key: str) -> str:
    """The command-line flag of a backend option name (``memory_limit`` -> ``--memory-limit``)."""
    return next((f for f, owners in option_flags().items() if any(o.name == key for _, o in owners)),
                "--" + key.replace("_", "-"))


def _options(name: str, given: dict) -> tuple[str, dict]:
    """The press-system backend and its options from the flags ``given`` for ``name`` (from
    :func:`~flipgame.cli.common.backend_options`): --time-limit, and --mip-solver SCIP|HIGHS for ilp
    (HIGHS runs ``ilp-highs``).  RulesError for any other flag, or a bad value."""
    given = dict(given)
    options = {}
    if name == "ilp" and "solver" in given:
        solver = str(given.pop("solver")).upper()
        if solver not in ILP_SOLVERS:
            raise RulesError(f"--mip-solver {solver}: press systems take {' or '.join(ILP_SOLVERS)}")
        name = "ilp-highs" if solver == "HIGHS" else "ilp"
    if "time_limit" in given:
        try:
            options["time_limit"] = positive_seconds(str(given.pop("time_limit")))
        except argparse.ArgumentTypeError as exc:
            raise RulesError(f"--time-limit: {exc}") from None
    if given:
        raise RulesError(f"{', '.join(map(_flag, given))}: not taken by {name} on press systems (they take "
                         f"{', '.join(PRESS_OPTIONS.values())})")
    return name, options


def _check(system: PressSystem, board, sol) -> str | None:
    problem = check_system_solution(system, board, sol)
    for target, cert in (sol.certificates or {}).items():
        problem = problem or check_system_certificate(system, board, target, cert)
    return problem


def _presses_text(system: PressSystem, presses, poj: bool = False) -> str:
    """Press counts as the grid's rows (one button per cell); for poj1830 the 1-based switches to press
    (``press 1 3``); else ``button x count`` per pressed button (0-based)."""
    if poj:
        return "press " + (" ".join(str(j + 1) for j, t in enumerate(presses) if t) or "none")
    if system.shape and system.m == system.cells:
        return system.format_board(presses)
    return " ".join(f"{j}x{t}" for j, t in enumerate(presses) if t) or "(no press)"


def _explain_impossible(system: PressSystem, board, certificates) -> str:
    """Each goal board (as rows) and its certificate (as rows of weights), with the gap it proves."""
    k, out = system.states, []
    for target, cert in certificates.items():
        gap = sum(c * (t - b) for c, t, b in zip(cert, target, board, strict=True)) % k
        out += ["certificate for the goal", system.format_board(target),
                f"every button adds 0 (mod {k}) to the sum of the cells weighted as below, but reaching that goal "
                f"changes it by {gap} (mod {k}):", system.format_board(cert)]
    return "\n".join(out)


def _check_solve_flags(args: argparse.Namespace) -> None:
    """Raise RulesError for a flag press systems do not take with ``args.format``."""
    _refuse_grid_flags(args, SOLVE_GRID_FLAGS)
    if args.part is not None and args.format != "aoc2025-10":
        raise RulesError("--part needs --format aoc2025-10")
    if args.format in FORMATS and (args.rules or args.size or args.goal or args.target or args.states is not None
                                   or args.wrap or args.neighbourhood != "plus" or args.stencil):
        raise RulesError(f"the {args.format} format gives the rules and goal in its input; drop "
                         f"--rules/--size/--goal/--target/--states/--wrap/--neighbourhood/--stencil")
    if args.format not in FORMATS and args.format != "poj1753":
        raise RulesError(f"--format {args.format} is a grid format; press systems read boards as rows "
                         f"(the default) or the formats {', '.join(FORMATS)}")


def run_solve(args: argparse.Namespace) -> ExitCode:
    """``flipgame solve`` on press systems: one answer per board, or the judge format's lines."""
    try:
        _check_solve_flags(args)
        cli_name = args.backend or "gauss"
        name, options = _options(cli_name, backend_options([cli_name], args)[cli_name])
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


def _answer_one(args, number: int, system: PressSystem, board, name: str, options: dict):
    """Solve and check one case, print its lines; (exit code of the case, presses to add to the total)."""
    why = refusal(name, system)
    if why:
        raise RefusedError(why)
    sol = solve_system(system, board, name, **options)
    problem = _check(system, board, sol)
    if problem:
        print("Error", flush=True)
        return fail(ExitCode.WITNESS_FAILURE, f"case {number}: {name} answer rejected by the model: {problem}"), 0
    _print_answer(args, number, system, board, sol)
    return (ExitCode.INCOMPLETE if sol.status in (Status.UNKNOWN, Status.ERROR) else ExitCode.OK), sol.moves or 0


def _answer_all(args, cases, name: str, options: dict) -> ExitCode:
    worst, total, number = ExitCode.OK, 0, 0
    try:
        for number, system, board in cases:
            code, moves = _answer_one(args, number, system, board, name, options)
            worst, total = max(worst, code), total + moves
    except BoardFormatError as exc:
        return fail(ExitCode.USAGE, f"{args.file if args.file != '-' else 'standard input'}: {exc}")
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, f"case {number}: {exc}")
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if args.format == "aoc2025-10":
        print(f"total {total}")
    return worst


def _print_answer(args, number: int, system: PressSystem, board, sol) -> None:
    """The answer line (the judge's for poj1830), then --presses/--explain lines; --stats on stderr."""
    poj = args.format == "poj1830"
    print(poj1830_answer(sol.stats.get("solutions") if sol.success else 0) if poj else sol.answer())
    if (args.presses or args.explain) and sol.success:
        print(_presses_text(system, sol.presses, poj))
    if args.explain and sol.certificates:
        print(_explain_impossible(system, board, sol.certificates))
    if args.stats:
        extra = " ".join(f"{k}={v}" for k, v in sol.stats.items())
        print(f"case {number}: {system.rules}; {sol.status.name} presses={sol.moves} seconds={sol.seconds:.4f} "
              f"{extra}".rstrip(), file=sys.stderr)


def _boards(system: PressSystem, args) -> np.ndarray | None:
    """A seeded sample, int64 shape (b, n), or None when every board is checked (see :func:`_chunks`).

    Raises RulesError for counters (no finite board set) or too many boards without --sample."""
    k = system.states
    if k is None:
        raise RulesError(f"verify and study enumerate Z_k boards, and counters have no finite board set; "
                         f"flipgame solve answers them ({who_takes(system)})")
    total = k ** system.cells
    if args.sample is not None:
        rng = np.random.default_rng(args.seed or 0)
        return rng.integers(0, k, size=(args.sample, system.cells), dtype=np.int64)
    if total > EXHAUSTIVE_LIMIT or (total > EXHAUSTIVE_BOARDS and not args.exhaustive):
        raise RulesError(f"{k}^{system.cells} = {total:,} boards: give --sample N"
                         + (f" or --exhaustive (up to {EXHAUSTIVE_LIMIT:,})" if total <= EXHAUSTIVE_LIMIT else ""))
    return None  # enumerated in chunks by _chunks


def _chunks(system: PressSystem, boards: np.ndarray | None, size: int):
    """Boards in chunks of ``size``: the sample's, or every board by index (digit i = cell i, cell 0 most
    significant)."""
    if boards is not None:
        for s in range(0, len(boards), size):
            yield boards[s:s + size]
        return
    k, n = system.states, system.cells
    powers = k ** np.arange(n - 1, -1, -1, dtype=np.int64)
    total = k ** n
    for s in range(0, total, size):
        idx = np.arange(s, min(total, s + size), dtype=np.int64)
        yield (idx[:, None] // powers[None, :]) % k


def _check_verify_flags(args: argparse.Namespace) -> None:
    """RulesError for a verify flag the press-system path does not take, or a bad combination."""
    _refuse_grid_flags(args, VERIFY_GRID_FLAGS)
    if args.jobs is not None:
        raise RulesError(f"--jobs is for {GRID_GAME}; a press-system verify runs in this process")
    if args.sample is not None and args.exhaustive:
        raise RulesError("give either --sample or --exhaustive, not both")
    if args.seed is not None and args.sample is None:
        raise RulesError("--seed chooses the boards of --sample N; give --sample too")
    writable_path(args.report, "--report")


def _chosen(args: argparse.Namespace, system: PressSystem) -> list[tuple[str, dict]]:
    """The backends of the run and their options; each default one that declines the system is named on
    stderr and skipped, an explicit one is refused (RefusedError)."""
    names = args.backends or VERIFY_BACKENDS
    given = backend_options(names, args)  # a flag must apply to one of them (e.g. --mip-solver to ilp)
    chosen = [_options(n, given[n]) for n in names]
    for name, _ in chosen:
        why = refusal(name, system)
        if why and args.backends:
            raise RefusedError(why)
        if why:
            print(f"flipgame: skipping {why}", file=sys.stderr)
    chosen = [(n, o) for n, o in chosen if n in takers(system, [n])]
    if not chosen:
        raise RefusedError(f"no backend given takes this system; {who_takes(system)}")
    return chosen


def _verify_setup(args: argparse.Namespace):
    """(system, boards or None, [(backend, options)]) for verify; raises FlipgameError."""
    _check_verify_flags(args)
    system = system_from_args(args)
    boards = _boards(system, args)
    return system, boards, _chosen(args, system)


def _answer_record(system: PressSystem, sol) -> dict:
    rec = {"backend": sol.backend, "status": sol.status.name, "answer": sol.answer()}
    if sol.success:
        rec |= {"moves": sol.moves, "presses": list(sol.presses), "target": list(sol.target)}
    return rec


def _board_record(system: PressSystem, board) -> dict:
    board = [int(v) for v in board]
    return {"board": board, "text": system.format_board(board).split("\n")}


class _Tally:
    """What one verify run found: per-backend counts and seconds, disagreements and rejected witnesses
    (all counted, the first :data:`RECORDS` kept), certificates checked."""

    def __init__(self, names):
        self.disagree, self.rejected, self.certified, self.walked, self.boards = 0, 0, 0, 0, 0
        self.per = {n: dict.fromkeys(("boards", "solvable", "impossible", "unknown", "disagreements",
                                      "witness_failures"), 0) | {"seconds": 0.0} for n in names}
        self.disagreements: list[dict] = []
        self.rejections: list[dict] = []

    def count(self, batch, seconds: float) -> None:
        per = self.per[batch.backend]
        per["boards"] += len(batch)
        per["solvable"] += int((batch.status == Status.OPTIMAL).sum())
        per["impossible"] += int((batch.status == Status.INFEASIBLE).sum())
        per["unknown"] += int(((batch.status != Status.OPTIMAL) & (batch.status != Status.INFEASIBLE)).sum())
        per["seconds"] += seconds

    def compare(self, system: PressSystem, ref, batch) -> None:
        """Boards both answered (OPTIMAL or Impossible) where status or minimum differ."""
        decided = np.isin(ref.status, (Status.OPTIMAL, Status.INFEASIBLE)) & np.isin(
            batch.status, (Status.OPTIMAL, Status.INFEASIBLE))
        bad = np.flatnonzero(decided & ((batch.status != ref.status) | (batch.moves != ref.moves)))
        self.disagree += len(bad)
        self.per[batch.backend]["disagreements"] += len(bad)
        for i in bad[:max(0, RECORDS - len(self.disagreements))]:
            self.disagreements.append(_board_record(system, ref.boards[i])
                                      | {"answers": [_answer_record(system, ref[i]), _answer_record(system, batch[i])]})

    def check(self, system: PressSystem, batch) -> None:
        """Re-apply every witness of ``batch`` (vectorised); keep the first rejections with the model's reason."""
        bad = np.flatnonzero(check_system_batch(system, batch))
        self.rejected += len(bad)
        self.per[batch.backend]["witness_failures"] += len(bad)
        for i in bad[:max(0, RECORDS - len(self.rejections))]:
            board = tuple(int(v) for v in batch.boards[i])
            self.rejections.append(_board_record(system, board) | {"answer": _answer_record(system, batch[i]),
                                   "problem": check_system_solution(system, board, batch[i]) or "batch check"})

    def certify(self, system: PressSystem, batch) -> None:
        """Re-solve Impossible boards with gauss and check each certificate with the model."""
        for i in np.flatnonzero(batch.status == Status.INFEASIBLE)[:CERTIFICATES_CHECKED - self.certified]:
            board = tuple(int(v) for v in batch.boards[i])
            sol = solve_system(system, board, "gauss")
            problem = _check(system, board, sol) or (None if sol.certificates else "gauss gave no certificate")
            self.certified += 1
            if problem:
                self.rejected += 1
                if len(self.rejections) < RECORDS:
                    self.rejections.append(_board_record(system, board) | {"answer": _answer_record(system, sol),
                                                                           "problem": problem})

    def to_json(self, system: PressSystem, args, chosen, seconds: float, completed: bool) -> dict:
        """The JSON report (``--report FILE``): the system, boards, backends, what was found."""
        rules = system.to_json() | {"goal": system.goal} | ({"target": list(system.target)} if system.target
                                                             else {})
        options = dict(chosen)
        unknown = sum(p["unknown"] for p in self.per.values())
        return {
            "system": rules, "rules": system.rules, "boards": self.boards,
            "selection": {"sample": args.sample, "seed": args.seed or 0} if args.sample is not None else "all",
            "completed": completed, "ok": completed and not (self.disagree or self.rejected or unknown),
            "seconds": round(seconds, 3),
            "backends": [{"backend": n, "options": options[n]} | p | {"seconds": round(p["seconds"], 3)}
                         for n, p in self.per.items()],
            "disagreements": {"count": self.disagree, "first": self.disagreements},
            "witnesses_rejected": {"count": self.rejected, "first": self.rejections},
            "certificates_checked": self.certified,
            "bfs_witnesses_walked": self.walked if "bfs" in options else None,
        }


def run_verify(args: argparse.Namespace) -> ExitCode:
    """``flipgame verify`` on a press system: every backend that takes it, answers compared board by board,
    every OPTIMAL witness re-applied by the model (vectorised), the certificates of the first
    :data:`CERTIFICATES_CHECKED` Impossible boards checked; the JSON report written to ``--report``
    (also after Ctrl-C or a refusal mid-run, with ``completed`` false).  Exit 1 on a disagreement, 3 on a
    rejected witness or certificate, 4 on an unknown answer (a time-out), 5 on a refusal, 130 on Ctrl-C."""
    try:
        system, boards, chosen = _verify_setup(args)
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, str(exc))
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    total = len(boards) if boards is not None else system.states ** system.cells
    print(f"verify {system.rules}: {total:,} boards, backends {', '.join(n for n, _ in chosen)}", flush=True)
    tally, start, stopped = _Tally(n for n, _ in chosen), time.perf_counter(), None
    try:
        _verify_all(args, system, boards, chosen, tally, total)
    except KeyboardInterrupt:
        stopped = (ExitCode.INTERRUPTED, "interrupted")
    except RefusedError as exc:  # e.g. gauss: a coset over its enumeration budget
        stopped = (ExitCode.REFUSED, str(exc))
    seconds = time.perf_counter() - start
    if write_json(args.report, tally.to_json(system, args, chosen, seconds, stopped is None), "report"):
        return ExitCode.USAGE
    _print_verify(tally, chosen, total, seconds, args.report)
    if stopped is not None:
        return fail(stopped[0], f"{stopped[1]}: stopped after {tally.boards:,} of {total:,} boards; the report "
                                f"{args.report} holds everything finished")
    if tally.disagree:
        return ExitCode.DISAGREEMENT
    if tally.rejected:
        return ExitCode.WITNESS_FAILURE
    return ExitCode.INCOMPLETE if any(p["unknown"] for p in tally.per.values()) else ExitCode.OK


def _verify_all(args, system: PressSystem, boards, chosen, tally: _Tally, total: int) -> None:
    """Every chunk of boards on every backend; a progress line at most every --progress-interval seconds."""
    size = args.chunk_size or CHUNK
    start = last = time.perf_counter()
    for number, chunk in enumerate(_chunks(system, boards, size)):
        _verify_chunk(system, chunk, chosen, tally, walk=total <= EXHAUSTIVE_BOARDS or number == 0)
        tally.boards += len(chunk)
        now = time.perf_counter()
        if total > size and now - last >= args.progress_interval:
            last = now
            print(f"flipgame: progress: {tally.boards:,} of {total:,} boards, {tally.disagree} disagreements, "
                  f"{tally.rejected} rejected so far ({now - start:.0f} s)", file=sys.stderr, flush=True)


def _print_verify(tally: _Tally, chosen, total: int, seconds: float, report: str) -> None:
    for name, _ in chosen:
        unknown = tally.per[name]["unknown"]
        print(f"  {name}: {tally.per[name]['seconds']:.1f} s" + (f", {unknown:,} unknown" if unknown else ""))
    if tally.walked < tally.boards and any(n == "bfs" for n, _ in chosen):
        print(f"  bfs: minimum and status on every board; witnesses walked and checked on the first "
              f"{tally.walked:,}")
    print(f"  certificates of {tally.certified:,} Impossible boards checked by the model")
    for rec in tally.disagreements[:SHOWN]:
        first, second = rec["answers"]
        print(f"  disagreement: board {' '.join(map(str, rec['board']))}: {first['backend']} {first['answer']}, "
              f"{second['backend']} {second['answer']}")
    print(f"{tally.boards:,} boards: {tally.disagree} disagreements, {tally.rejected} witnesses rejected "
          f"({seconds:.1f} s). Report: {report}")


def _verify_chunk(system: PressSystem, chunk: np.ndarray, chosen, tally: _Tally, walk: bool) -> None:
    ref = None
    for name, options in chosen:
        t0 = time.perf_counter()
        if name == "bfs":  # the witness walk is per step in Python: every board up to 2**20, else the first chunk
            options = {"witnesses": walk}
            tally.walked += len(chunk) if walk else 0
        batch = solve_system_batch(system, chunk, name, **options)
        tally.count(batch, time.perf_counter() - t0)
        if options.get("witnesses", True):
            tally.check(system, batch)
        if ref is None:
            ref = batch
            tally.certify(system, batch)
        else:
            tally.compare(system, ref, batch)


def _check_study_flags(args: argparse.Namespace) -> None:
    """RulesError for a study flag the press-system path does not take."""
    _refuse_grid_flags(args, STUDY_GRID_FLAGS)
    given = [f for f in option_flags() if getattr(args, "opt_" + f[2:].replace("-", "_"), None) is not None]
    if given:
        raise RulesError(f"{', '.join(given)}: a press-system study times no backend, so it takes no backend "
                         f"options")


def run_study(args: argparse.Namespace) -> ExitCode:
    """``flipgame study`` on a press system over Z_k: the kernel (nullity mod k), how many boards are
    solvable, and the distribution of minimum presses (from the bfs table, or gauss on every board)."""

    try:
        _check_study_flags(args)
        system = system_from_args(args)
        if system.states is None:
            raise RulesError(f"study takes Z_k systems; counters have no finite board set (flipgame solve "
                             f"answers them: {who_takes(system)})")
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

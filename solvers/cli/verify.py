"""``flipgame verify``: every backend on every board, witnesses re-applied, answers compared."""

from __future__ import annotations

import argparse
import os
import sys

from flipgame.backends.registry import BACKENDS, STRATEGIES, get_backend
from flipgame.cli.arguments import count_up_to, positive_int, positive_seconds, seed_int
from flipgame.cli.common import (
    ExitCode,
    add_rule_options,
    add_strategies_file,
    backend_caps,
    backend_list,
    backend_options,
    fail,
    strategy_options,
    writable_path,
    write_json,
)
from flipgame.cli.progress import ProgressLog
from flipgame.cli.rules import game_from_args
from flipgame.core import extras
from flipgame.core.errors import FlipgameError, RefusedError
from flipgame.core.limits import EXHAUSTIVE_DEFAULT_MAX_CELLS, EXHAUSTIVE_MAX_CELLS, JOBS_MAX, SCHEDULER_TIMEOUT
from flipgame.core.measured import quote
from flipgame.core.signals import restore_ctrl_c, second_ctrl_c_ends_at_once
from flipgame.model.boards import BoardSet
from flipgame.pipeline.executors import open_executor
from flipgame.pipeline.gate import prepare
from flipgame.verify.run.harness import run_agreement

NOT_INDEPENDENT = {"auto": "it answers with gauss's own path where gauss applies, so agreement with gauss "
                              "proves nothing"}
"""Backends left out of the default list (name them in --backends to include them), and why."""
PROGRESS_INTERVAL = 10.0
"""Seconds between plain progress lines when stderr is not a terminal (the first after 5 s)."""


def add_parser(sub) -> None:
    v = sub.add_parser("verify",
                       description="Exhaustive agreement check: every backend on every board, witnesses re-applied.")
    v.add_argument("--backends", type=backend_list, metavar="LIST",
                   help=f"comma-separated backends (default: all that fit the size and are independent: "
                        f"{','.join(n for n, b in BACKENDS.items() if b.by_default and n not in NOT_INDEPENDENT)}; "
                        f"{', '.join(f'{n} is not ({why})' for n, why in NOT_INDEPENDENT.items())}; the others "
                        f"only when named; sizes: {backend_caps(list(BACKENDS))})")
    v.add_argument("--strategies", metavar="all|LIST",
                   help="comma-separated registered strategies (or all) instead of --backends, external programs "
                        "included: " + ",".join(STRATEGIES))
    v.add_argument("--report", default="flipgame-verify.json", metavar="FILE",
                   help="JSON report with the table and every disagreement (default flipgame-verify.json)")
    v.add_argument("--jobs", type=count_up_to(JOBS_MAX), metavar="N",
                   help="worker processes of the local pool for per-board solvers (default: all cores; at most four "
                        "per core)")
    v.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the per-board solvers' chunks on a Dask cluster: the address of a running scheduler "
                        "(e.g. tcp://host:8786), or local:N to start a LocalCluster of N single-thread worker "
                        "processes (which die with this command); the checkpoint and report stay here")
    v.add_argument("--scheduler-timeout", type=positive_seconds, default=SCHEDULER_TIMEOUT, metavar="SECONDS",
                   help=f"with --scheduler: stop (exit 4, the report and checkpoint hold what finished) when no "
                        f"worker or scheduler has been alive for this long (default {SCHEDULER_TIMEOUT:g})")
    v.add_argument("--checkpoint", metavar="FILE",
                   help="JSON-lines file of finished chunks; rerun the same command to resume after an interruption")
    v.add_argument("--chunk-size", type=positive_int, metavar="N",
                   help="boards per unit of work and per checkpoint line (default 2048 for the per-board solvers "
                        "cpsat, sat, ilp; 1048576 for the vectorised gauss and bfs)")
    v.add_argument("--progress-interval", type=positive_seconds, default=PROGRESS_INTERVAL, metavar="SECONDS",
                   help=f"seconds between progress lines on stderr when it is not a terminal "
                        f"(default {PROGRESS_INTERVAL:g}; the first after 5 s)")
    v.add_argument("--sample", type=positive_int, metavar="N",
                   help=f"check N random boards instead of all (default for more than "
                        f"{EXHAUSTIVE_DEFAULT_MAX_CELLS} cells; at most 2**{EXHAUSTIVE_MAX_CELLS} boards a run; "
                        f"boards of any size: above 64 cells each board is solved on its own)")
    v.add_argument("--seed", type=seed_int, default=None, metavar="S", help="random seed for --sample (default 0)")
    v.add_argument("--exhaustive", action="store_true",
                   help=f"check every board even above {EXHAUSTIVE_DEFAULT_MAX_CELLS} cells "
                        f"(at most {EXHAUSTIVE_MAX_CELLS}; 5x5 with gauss,bfs: {quote('verify_5x5.wall')} on the "
                        f"reference machine, docs/measured.md)")
    v.add_argument("--certify", action="store_true",
                   help="also prove every answer: each minimum by a DRAT proof checked by dratify, each Impossible "
                        "by its parity certificate; failures exit 6")
    v.add_argument("--canonical", action="store_true",
                   help="ask every backend for the canonical (lexicographically smallest) minimum press set "
                        "and compare press sets too, not only counts")
    add_rule_options(v)
    add_strategies_file(v)
    v.set_defaults(run=run)


def _exhaustive_hint(game) -> str:
    """The --exhaustive suggestion, naming only backends that take every board of ``game`` in reasonable time."""
    if game.n > EXHAUSTIVE_MAX_CELLS:
        return ""
    fast = []
    for n, b in BACKENDS.items():
        if b.parallel:
            continue  # per-board solvers: about a millisecond a board, days for 2**25 boards
        try:
            prepare(game, n, {})
        except FlipgameError:
            continue
        fast.append(n)
    return f", or all of them with --exhaustive --backends {','.join(fast)}" if fast else ""


COUNTERS_REFUSED = ("verify enumerates boards, and counters have no finite board set; flipgame solve answers them "
                    "(auto, cpsat, ilp, bfs)")
"""Why verify takes no counters, said before anything else about them (their goal, say)."""


def run(args: argparse.Namespace) -> ExitCode:
    """``flipgame verify`` on any press system (a grid, ``--states``, ``--rules``)."""
    if args.states == 0:  # --states counters: said before anything else about them (their goal, say)
        return fail(ExitCode.USAGE, COUNTERS_REFUSED)
    return _run_grid(args)


def _check_files(args: argparse.Namespace) -> None:
    """Raise FlipgameError unless --report (and --checkpoint, a different file) can be written."""
    writable_path(args.report, "--report")
    if args.checkpoint is not None:
        writable_path(args.checkpoint, "--checkpoint")
        if os.path.abspath(args.checkpoint) == os.path.abspath(args.report):
            raise FlipgameError("--checkpoint and --report must be different files")


def _default_names(game) -> list[str]:
    """The default backends for ``game``: the independent ones that take it, each one skipped named on
    stderr with its reason (its cells cap, or the kind of system it does not model)."""
    names = []
    for n, b in BACKENDS.items():
        if not b.by_default or n in NOT_INDEPENDENT:
            continue
        why = b.refusal(game.normal, b.check_options({}))
        if why is None and b.default_max_cells is not None and game.n > b.default_max_cells:
            why = (f"it runs unnamed up to {b.default_max_cells} cells (its table of every state doubles with each "
                   f"cell: 45 s at 30); name it in --backends to run it")
        if why is None:
            names.append(n)
        else:
            print(f"flipgame: skipping {n}: {why.removeprefix(n + ': ')}", file=sys.stderr)
    return names


def _prepared_options(args: argparse.Namespace, game, names: list[str]) -> dict:
    """Every backend's options, each option and size checked before the long run, nothing built."""
    options = strategy_options(names, args) if args.strategies else backend_options(names, args)
    for n in names:
        if args.canonical:
            options[n]["canonical"] = True
        prepare(game, n, options[n])
    return options


def _boards_to_check(args: argparse.Namespace, game) -> BoardSet:
    """The boards of the run (:meth:`BoardSet.chosen <flipgame.model.boards.BoardSet.chosen>`); FlipgameError
    for a bad --sample/--seed/--exhaustive, naming the backends that take every board when there are too many."""
    too_many = game.binary and game.n > EXHAUSTIVE_DEFAULT_MAX_CELLS and args.sample is None and not args.exhaustive
    hint = _exhaustive_hint(game) if too_many else ""
    return BoardSet.chosen(game, sample=args.sample, seed=args.seed, exhaustive=args.exhaustive, hint=hint)


def _run_grid(args: argparse.Namespace) -> ExitCode:
    try:
        game = game_from_args(args)
        _check_files(args)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if args.backends and args.strategies:
        return fail(ExitCode.USAGE, "give either --backends or --strategies, not both")
    if game.states is None:  # counters from a --rules file
        return fail(ExitCode.USAGE, COUNTERS_REFUSED)
    if args.certify and not extras.installed("dratify"):
        return fail(ExitCode.USAGE, extras.missing("dratify", "--certify (checked DRAT proofs)"))
    if args.scheduler and not extras.installed("distributed"):
        return fail(ExitCode.USAGE, extras.missing("distributed", "--scheduler"))
    if args.certify and not game.binary:
        return fail(ExitCode.USAGE, f"--certify proves two-state minima; {game.size} is {game.kind} (every answer is "
                                    f"still checked: each witness re-applied, each Impossible against its "
                                    f"certificate)")
    names = args.backends or args.strategies or _default_names(game)
    try:
        options = _prepared_options(args, game, names)
    except RefusedError as exc:
        return fail(ExitCode.REFUSED, f"{exc}; choose other backends")
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    try:
        boards = _boards_to_check(args, game)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    print(f"Checking {', '.join(names)} on {boards.description} {game.rules} boards"
          f"{', comparing canonical witnesses' if args.canonical else ''} ...", file=sys.stderr)
    previous = second_ctrl_c_ends_at_once()
    try:
        return _run_and_report(args, game, names, options, boards)
    finally:
        restore_ctrl_c(previous)


def _backend_done_printer(log, names: list[str], where: dict[str, str], total: int):
    """The ``on_backend_done`` callback: close the backend's bar and print its one summary line."""

    def finished(summary) -> None:
        log.close_bar(summary.backend)
        if summary.backend == names[-1]:
            log.set_phase(f"checking the witnesses, Impossible certificates and agreement of {total:,} boards")
        if summary.resumed:
            print(f"  {summary.backend}: {summary.boards} boards: {summary.resumed} from the checkpoint, "
                  f"{summary.solved} solved in {summary.seconds:.2f} s "
                  f"({summary.boards_per_second:,.0f} boards/s)", file=sys.stderr)
        else:
            print(f"  {summary.backend}: {summary.boards} boards in {summary.seconds:.2f} s "
                  f"({summary.boards_per_second:,.0f} boards/s, {where[summary.backend]})", file=sys.stderr)

    return finished


def _resumed(found: int, chunks: int, path: str) -> None:
    """The ``on_resume`` callback: one stderr line on the chunks taken from the checkpoint."""
    print(f"flipgame: resumed: {found} of {chunks} chunks from {path}", file=sys.stderr)


def _run_on_executor(args, game, names, options, boards):
    """The agreement run on its executor with live progress; FlipgameError passes through."""
    total = len(boards)
    jobs = args.jobs or os.cpu_count() or 1
    with open_executor(args.scheduler, jobs) as (executor, label):
        where = {n: label if get_backend(n).parallel and (executor is not None or jobs > 1)
                 else "in this process" for n in names}
        log = ProgressLog(total, where, args.progress_interval, sys.stderr.isatty())
        log.start()
        try:
            return run_agreement(game, names, boards, jobs=jobs, executor=executor, options=options,
                                 progress=log, on_backend_done=_backend_done_printer(log, names, where, total),
                                 checkpoint=args.checkpoint, on_resume=_resumed, chunk_size=args.chunk_size,
                                 compare_presses=args.canonical, certify=args.certify,
                                 scheduler_timeout=args.scheduler_timeout,
                                 on_certify=lambda done, total: log.set_phase(
                                     f"certifying: {done:,} of {total:,} boards"))
        finally:
            log.close()


def _print_certification(cert: dict) -> None:
    """The certification summary line, and the first five failures on stderr."""
    print(f"Certified {cert['certified']} of {cert['boards']} boards ({cert['proofs']} minima by checked DRAT "
          f"proofs, median {cert['proof_lines_median']} and at most {cert['proof_lines_max']} lines; every "
          f"Impossible by its parity certificate); {cert['failed']} certification failures, {cert['unknown']} "
          f"not certified; {cert['seconds']:.1f} s.")
    for f in cert["failures"][:5]:
        print(f"flipgame: certification failed for board {f['board']} (claimed {f['claimed']}): {f['message']}",
              file=sys.stderr)


def _print_summary(args, report, names: list[str]) -> None:
    """The totals line after the table (an interrupted run says how far each backend got), then the
    certification summary if any."""
    finished = [s for s in report.summaries if s.boards == report.boards]
    if report.completed or len(finished) == len(names):
        done = len(report.summaries)
        what = f"{report.boards} boards, {done} backend{'s' if done != 1 else ''}"
    else:
        partial = "".join(f"; {s.backend} stopped after {s.boards} of them" for s in report.summaries
                          if s.boards < report.boards)
        what = f"{report.boards} boards, {len(finished)} of {len(names)} backends finished{partial}"
    print(f"\n{what}: {len(report.disagreements)} "
          f"disagreements, {len(report.witness_failures)} witness failures, "
          f"{sum(s.unknown for s in report.summaries)} unknown, "
          f"{sum(s.errors for s in report.summaries)} errors; {report.seconds:.1f} s. Report: {args.report}")
    if report.certification is not None:
        _print_certification(report.certification)


def _exit_code(args, report, names) -> ExitCode:
    """The exit code of a finished run, with its last line (stopped, interrupted or all well)."""
    cert = report.certification
    for note in report.notes:
        print(f"flipgame: note: {note}", file=sys.stderr)
    if report.stopped and report.stopped != "interrupted":  # the executor failed: one line, exit 4
        resume = ", and rerunning with the same --checkpoint resumes" if args.checkpoint else ""
        return fail(ExitCode.INCOMPLETE, f"stopped: {report.stopped}; the report {args.report} holds everything "
                                         f"finished{resume}")
    if not report.completed:
        undone = f" (not done: {', '.join(report.unchecked)})" if report.unchecked else ""
        return fail(ExitCode.INTERRUPTED, f"interrupted; the report {args.report} holds everything finished{undone}")
    if len(report.disagreements):
        return ExitCode.DISAGREEMENT
    if len(report.witness_failures):
        return ExitCode.WITNESS_FAILURE
    if cert is not None and cert["failed"]:
        return ExitCode.CERTIFICATION_FAILURE
    if report.incomplete or (cert is not None and cert["unknown"]):
        return ExitCode.INCOMPLETE
    certified = "" if report.notes else " and every Impossible has a certificate"
    if len(report.summaries) == 1:
        print(f"Every witness of {names[0]} checks out{certified} (one backend: nothing to compare).")
    else:
        print("All backends agree on every board; every witness checks out.")
    return ExitCode.OK


def _run_and_report(args, game, names, options, boards) -> ExitCode:
    """The agreement run on its executor, then the table, the report and the exit code."""
    try:
        report = _run_on_executor(args, game, names, options, boards)
    except FlipgameError as exc:  # e.g. a checkpoint of another run, a scheduler out of reach
        return fail(ExitCode.USAGE, str(exc))
    if report.total_chunks and report.resumed_chunks == report.total_chunks:
        print(f"flipgame: every answer came from the checkpoint {args.checkpoint}: nothing was solved in this run",
              file=sys.stderr)
    print(report.table())
    for s in report.summaries:
        for msg in s.error_messages:
            print(f"flipgame: {s.backend} error: {msg}", file=sys.stderr)
    if write_json(args.report, report.to_json(), "report"):
        return ExitCode.USAGE
    _print_summary(args, report, names)
    return _exit_code(args, report, names)

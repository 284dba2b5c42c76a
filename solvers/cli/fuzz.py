"""``flipgame fuzz``: differential fuzzing of the backends on random press systems and random solver settings."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from flipgame.backends.registry import BACKENDS, get_backend, is_builtin
from flipgame.cli.arguments import count_up_to, positive_int, positive_seconds, seed_int
from flipgame.cli.common import ExitCode, add_strategies_file, backend_list, fail, writable_path, write_json
from flipgame.core.errors import FlipgameError
from flipgame.core.limits import FUZZ_TIME_LIMIT, JOBS_MAX
from flipgame.core.signals import restore_ctrl_c, second_ctrl_c_ends_at_once
from flipgame.pipeline.executors import ExecutorLost
from flipgame.verify.fuzz.campaign import Config, replay, report, resume, run_campaign
from flipgame.verify.fuzz.settings import settings_text

NOT_FUZZED = ("external",)
"""Built-in backends left out by default: ``external`` needs a program (name it in --backends with a strategy
file's program instead)."""
SHOWN_UNSHRUNK = 10
"""Findings listed by seed and instance when none was shrunk (--no-shrink); all are in the report."""
PROGRESS_SECONDS = 10.0
"""Seconds between progress lines."""


def add_parser(sub) -> None:
    p = sub.add_parser("fuzz", description="Differential fuzzing: random press systems (grids, graphs, button sets; "
                                           "2..7 states and counters), every backend with randomly drawn solver "
                                           "settings, each answer checked by the referee, an exhaustive oracle and "
                                           "the agreement policy; findings shrunk into reproducer folders.")
    p.add_argument("--seed", type=seed_int, default=0, metavar="S", help="campaign seed (default 0); instance I of "
                   "seed S is the same on every machine")
    p.add_argument("--count", type=positive_int, metavar="N", help="instances to run (default 200 unless --seconds)")
    p.add_argument("--seconds", type=positive_seconds, metavar="T", help="stop starting rounds after T seconds")
    p.add_argument("--backends", type=backend_list, metavar="LIST",
                   help="comma-separated backends (default: every built-in backend whose library is installed, "
                        f"except {', '.join(NOT_FUZZED)})")
    p.add_argument("--strategies", metavar="all|LIST",
                   help="comma-separated registered strategies to fuzz as well (solver programs of "
                        "--strategies-file included; their fixed options are never varied)")
    add_strategies_file(p)
    p.add_argument("--time-limit", type=positive_seconds, default=FUZZ_TIME_LIMIT, metavar="SECONDS",
                   help=f"seconds per backend call (default {FUZZ_TIME_LIMIT:g})")
    p.add_argument("--jobs", type=count_up_to(JOBS_MAX), default=1, metavar="N",
                   help="worker processes (default 1: in this process, plug-in backends included)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the instances on a Dask cluster: local:N or a "
                   "scheduler's address (tcp://host:8786)")
    p.add_argument("--out", default="flipgame-fuzz", metavar="DIR",
                   help="folder of the reproducers (default flipgame-fuzz)")
    p.add_argument("--report", metavar="FILE", help="JSON report (default DIR/report.json)")
    p.add_argument("--checkpoint", metavar="FILE", help="resume file, written after every round; run the same "
                   "command again to go on")
    p.add_argument("--no-shrink", action="store_true", help="write no reproducers (count findings only)")
    p.add_argument("--replay", metavar="DIR", help="call a reproducer's backend again: exit 1 while it still fails")
    p.set_defaults(run=run)


def default_backends() -> list[str]:
    """Every built-in backend whose library is installed, but :data:`NOT_FUZZED`."""
    return [n for n, b in BACKENDS.items() if is_builtin(b) and n not in NOT_FUZZED and b.missing_library({}) is None]


def run(args: argparse.Namespace) -> ExitCode:
    if args.replay:
        return _replay(Path(args.replay))
    try:
        cfg = _config(args)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    try:
        tally = resume(cfg)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    print(f"Fuzzing {', '.join(cfg.backends)} (seed {cfg.seed}, {cfg.time_limit:g} s per call) ..."
          + (f" resuming after {tally.next_index:,} instances of {cfg.checkpoint}" if tally.next_index else ""),
          file=sys.stderr)
    previous = second_ctrl_c_ends_at_once()
    interrupted = False
    try:
        run_campaign(cfg, tally, progress=_progress())
    except KeyboardInterrupt:
        interrupted = True
    except (FlipgameError, ExecutorLost) as exc:
        return fail(ExitCode.INCOMPLETE if isinstance(exc, ExecutorLost) else ExitCode.USAGE, str(exc))
    finally:
        restore_ctrl_c(previous)
    data = report(cfg, tally, interrupted=interrupted)
    code = write_json(args.report or str(cfg.out / "report.json"), data, "--report")
    try:
        _summary(data)
    except BrokenPipeError:  # the reader went away (| head): the exit status still says what was found
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if interrupted:
        return fail(ExitCode.INTERRUPTED, f"interrupted after {tally.next_index} instances; "
                                          f"{'--checkpoint resumes' if cfg.checkpoint else 'the report holds them'}")
    if code != ExitCode.OK:
        return code
    return ExitCode.DISAGREEMENT if data["findings_by_kind"] else ExitCode.OK


def _config(args: argparse.Namespace) -> Config:
    names = list(dict.fromkeys([*(args.backends or ([] if args.strategies else default_backends())),
                                *(args.strategies or [])]))  # a strategy named as a backend is one caller
    for n in names:
        missing = get_backend(n).missing_library({})
        if missing:
            raise FlipgameError(f"backend {n} needs {missing}, which is not installed")
    out = Path(args.out)
    report_path = args.report or str(out / "report.json")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FlipgameError(f"--out {args.out}: cannot make the folder ({exc.strerror})") from None
    writable_path(report_path, "--report")
    if args.checkpoint:
        writable_path(args.checkpoint, "--checkpoint")
    count = args.count if args.count is not None or args.seconds is not None else 200
    return Config(seed=args.seed, backends=names, count=count, seconds=args.seconds, time_limit=args.time_limit,
                  jobs=args.jobs, scheduler=args.scheduler, out=out,
                  checkpoint=Path(args.checkpoint) if args.checkpoint else None, shrink=not args.no_shrink,
                  strategies_files=tuple(args.strategies_file or ()))


def _progress():
    last = [time.perf_counter()]

    def show(tally) -> None:
        now = time.perf_counter()
        if now - last[0] < PROGRESS_SECONDS:
            return
        last[0] = now
        found = sum(tally.kinds.values())
        print(f"flipgame: progress: {tally.next_index:,} instances in {tally.seconds:.0f} s "
              f"({tally.next_index / max(tally.seconds, 1e-9):.1f}/s), {found} finding{'s' * (found != 1)}",
              file=sys.stderr)

    return show


def _summary(data: dict) -> None:
    print(f"{data['instances']:,} instances in {data['seconds']:.1f} s ({data['instances_per_second']:.1f}/s), "
          f"{data['with_oracle']:,} with the exhaustive oracle; families: "
          + ", ".join(f"{k} {v}" for k, v in data["families"].items()))
    for name, calls in data["calls"].items():
        counts = ", ".join(f"{k} {v}" for k, v in calls.items() if k != "seconds")
        print(f"  {name}: {counts}; {calls['seconds']:.1f} s")
    if not data["findings_by_kind"]:
        print("no findings")
        return
    for kind, backends in data["findings_by_kind"].items():
        print(f"FINDING {kind}: " + ", ".join(f"{b} x{n}" for b, n in backends.items()))
    shown = [f for f in data["findings"] if f["reproducer"]] or data["findings"][:SHOWN_UNSHRUNK]
    for f in shown:
        where = f"; reproducer {f['reproducer']}" if f["reproducer"] else ""
        expected = f", expected {f['expected']}" if f["expected"] else ""
        print(f"  {f['kind']} by {f['backend']} ({settings_text(f['settings'])}), seed {f['seed']} instance "
              f"{f['index']}: got {f['got']}{expected}{where}")


def _replay(folder: Path) -> ExitCode:
    try:
        recorded, now = replay(folder)
    except FlipgameError as exc:
        return fail(ExitCode.USAGE, str(exc))
    same = [f for f in now if f.kind == recorded.kind]
    if same:
        f = same[0]
        print(f"still fails: {f.kind} by {f.backend}: got {f.got}, expected {f.expected or '?'} ({f.detail})")
        return ExitCode.DISAGREEMENT
    print(f"not reproduced: {recorded.backend} no longer gives the {recorded.kind} recorded in {folder}"
          + (f" (other findings: {', '.join(f.kind for f in now)})" if now else ""))
    return ExitCode.OK

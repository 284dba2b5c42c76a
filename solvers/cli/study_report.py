"""``flipgame study report RUNS``: a finished study re-scored and redrawn from its CSV or JSON file, with the
output options of ``--strategies`` (the metrics under the one scoring rule, --table, the figures, --html,
--benchexec-xml, --json), without running a solver."""

from __future__ import annotations

import argparse
import json

from flipgame.cli.common import ExitCode, fail
from flipgame.cli.study_strategies import write_figures, write_reports
from flipgame.study import metrics as study_metrics
from flipgame.study.compare import Run
from flipgame.study.environment import machine_line
from flipgame.study.figures import Context
from flipgame.study.records import csv_clock, read_csv

RUN_ONLY = ("strategies", "backends", "families", "sizes", "boards", "run_all", "in_process", "suite",
            "opt_time_limit", "opt_memory_limit", "wall_limit", "repeat", "csv")
"""Options that choose what a study runs: refused by ``study report``, which runs nothing."""


def load_runs(path: str) -> tuple[list, float, str, dict]:
    """``(runs, time limit, clock, environment)`` of a study's ``--csv`` or ``--json`` file.

    Raises OSError (unreadable), ValueError (not such a file, naming what is wrong)."""
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as f:
            try:
                data = json.load(f)
                fields = set(Run.__dataclass_fields__)
                runs = [Run(**{k: v for k, v in r.items() if k in fields}) for r in data["runs"]]
                return runs, float(data["time_limit"]), data.get("metrics", {}).get("clock", "wall"), \
                    data.get("environment", {})
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
                raise ValueError(f"{path}: not a flipgame study JSON ({type(exc).__name__}: {exc})") from None
    try:
        clock, limit = csv_clock(path)
        if limit is None:
            raise ValueError(f"{path}: no time_limit column (expected a CSV written by flipgame study --csv)")
        return read_csv(path), limit, clock, {}
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (expected a CSV written by flipgame study --csv)") from None


def run_report(args: argparse.Namespace) -> ExitCode:
    """Re-score and redraw; exit 1 (DISAGREEMENT) when the study had flagged answers, as the study did."""
    if not args.data:
        return fail(ExitCode.USAGE, "study report needs the study's file: flipgame study report RUNS.csv")
    given = [f"--{f.removeprefix('opt_').replace('_', '-')}" for f in RUN_ONLY if getattr(args, f, None) not in
             (None, False)]
    if given:
        return fail(ExitCode.USAGE, f"{given[0]} applies to a study that runs; study report re-scores {args.data} as "
                                    f"it was run (its outputs: --json, --html, --benchexec-xml, --table, the figures)")
    try:
        runs, limit, clock, env = load_runs(args.data)
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot read {args.data}: {exc.strerror}")
    except ValueError as exc:
        return fail(ExitCode.USAGE, str(exc))
    if not runs:
        return fail(ExitCode.USAGE, f"{args.data}: no runs")
    context = Context(machine_line(env["machine"]) if env.get("machine") else "", env.get("flipgame", ""), 0.0,
                      args.clock or clock)
    head = [f"Re-scored from {args.data}: {len(runs)} runs, time limit {limit:g} s of "
            f"{study_metrics.clock_name(context.clock)} (no solver was run)."]
    try:
        write_figures(runs, limit, args, context)
        write_reports(runs, limit, args, context, env, head)
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot write {exc.filename}: {exc.strerror}")
    except ValueError as exc:
        return fail(ExitCode.USAGE, str(exc))
    rows = study_metrics.metrics(runs, limit, context.clock)
    if args.json and args.json != "-":
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"time_limit": limit, "clock": context.clock, "rule": study_metrics.rule(limit, context.clock),
                       "rows": rows}, f, indent=1)
    if args.json == "-":
        print(json.dumps(rows, indent=1))
    else:
        print("\n".join(head))
        print(study_metrics.text(runs, limit, context.clock))
    return ExitCode.DISAGREEMENT if any(r.flag for r in runs) else ExitCode.OK

"""One measured run: every figure the docs and the help texts quote, measured on this machine as a user
runs the commands, written to :data:`flipgame.core.measured.MEASURED_FILE` and into the docs' markers.

Each :class:`Measurement` runs the command line (``python -m flipgame ...`` in a child process, timed by
wall clock, the machine's load recorded before and after) and returns its figures.  The docs quote a
figure as ``<!-- measured: key -->VALUE<!-- /measured -->``; :func:`update_docs` rewrites every marker from
the table, and :func:`stale_markers` (run by a test) lists those that differ from it.

Running time: the sum of the commands measured (a few minutes; ``make bench``).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import platform
import re
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import numpy as np

from flipgame.core.measured import MEASURED_FILE, format_entry
from flipgame.core.processes import RunResult, run_bounded
from flipgame.model.grid import format_cells
from flipgame.pipeline.gate import solve_batch

MARKER = re.compile(r"<!-- measured: ([a-z0-9_.\-]+) -->(.*?)<!-- /measured -->")
"""A quoted figure in a doc: its key and the text the last run wrote."""


@dataclass(frozen=True)
class Measurement:
    """A command measured: its figures' keys (with units and what they are) and how to run it.

    ``run(context)`` returns ``{key: value}`` for the keys of :attr:`figures`: a number in the figure's
    unit, or a dict with ``value`` and either ``unknown: True`` (a time-out at ``value``) or ``text`` (an
    answer such as ``Impossible``); ``context["workdir"]`` is a folder for temporary files,
    ``context["reference"]`` the reference program (or None).
    """

    name: str
    figures: dict[str, tuple[str, str]]
    run: Callable[[dict], dict[str, float]]


RUN_MAX_SECONDS = 3600.0
"""Longest command a measurement waits for (the A075464 terms 55..78 are the longest)."""
RUN_STDERR_MAX_BYTES = 1 << 20
"""Bytes of a measured command's standard error kept whole (its per-term lines are the figures)."""


def flipgame(*args: str, stdin: str | bytes | None = None, check: bool = True) -> tuple[float, str, str]:
    """``python -m flipgame args`` in a child process: (wall seconds, stdout, stderr)."""
    run = flipgame_run(*args, stdin=stdin, check=check)
    return run.wall, run.stdout.decode(), run.stderr_tail.decode()


def flipgame_full(*args: str) -> tuple[float, str, str]:
    """``python -m flipgame args`` with its whole standard error kept: (wall seconds, stdout, stderr)."""
    run = run_bounded([sys.executable, "-m", "flipgame", *args], RUN_MAX_SECONDS, output_cap=None,
                      stderr_keep=RUN_STDERR_MAX_BYTES)
    if run.exit_status != 0:
        raise RuntimeError(f"flipgame {' '.join(args)} {run.ended}: {run.stderr_tail.decode()[-500:]}")
    return run.wall, run.stdout.decode(), run.stderr_tail.decode()


def flipgame_run(*args: str, stdin: str | bytes | None = None, check: bool = True) -> RunResult:
    """``python -m flipgame args`` measured by :func:`flipgame.core.processes.run_bounded` (wall, CPU, peak
    memory); RuntimeError if it fails and ``check``."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    run = run_bounded([sys.executable, "-m", "flipgame", *args], RUN_MAX_SECONDS, output_cap=None, stdin=data)
    if check and run.exit_status != 0:
        raise RuntimeError(f"flipgame {' '.join(args)} {run.ended}: {run.stderr_tail.decode()[-500:]}")
    return run


REFERENCE_TIMEOUT = 60.0
"""Seconds the reference program may take on the stream; past that it is stopped and reported."""


STREAM_RUNS = 3
"""Timed runs of each program on the stream, alternated, after one run of flipgame that compiles its bytecode
and checks its answers; their medians are reported."""


@contextlib.contextmanager
def bytecode_written():
    """Child Pythons inside the block write their bytecode (``PYTHONDONTWRITEBYTECODE`` unset), as a user's
    Python does: the first run of a command compiles flipgame's modules and later runs read them, so a start-up
    time is measured with its bytecode cached, not with every module compiled again."""
    saved = os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["PYTHONDONTWRITEBYTECODE"] = saved


def stream_seconds(game, reference: str | None) -> dict:
    """Wall time of `flipgame solve --backend gauss` on all boards of ``game`` as one stdin stream
    (the POJ format, one board after another), and of ``reference`` on the same bytes, side by side:
    the medians of :data:`STREAM_RUNS` alternated runs each, after a first run of flipgame not timed.

    The CLI's answers must equal gauss's in-process answers line for line in every run (RuntimeError if
    not: a benchmark never reports a wrong answer as a time); the reference's are only counted where
    they differ, and it is stopped after :data:`REFERENCE_TIMEOUT`.  Running time: the runs' starts and
    streams.
    """
    boards = np.arange(1 << game.n, dtype=np.uint64)
    want = solve_batch(boards, game, "gauss")
    expected = [want[i].answer() for i in range(len(boards))]

    def run(cmd: list[str], timeout: float | None) -> tuple[float, int, int, bool]:
        """(seconds, exit status or minus the signal, answers differing from ``expected``, timed out) of ``cmd``
        on the stream (a file, as a judge gives it)."""
        stream.seek(0)
        out = run_bounded(cmd, RUN_MAX_SECONDS if timeout is None else timeout, output_cap=None, stdin=stream)
        answers = out.stdout.decode(errors="replace").split()
        differ = sum(a != b for a, b in zip(answers, expected, strict=False)) + abs(len(answers) - len(expected))
        code = out.exit_status if out.exit_status is not None else -(out.signal or 0)
        return round(out.wall, 3), code, differ, out.timed_out

    def mine() -> float:
        seconds, code, differ, _ = run([sys.executable, "-m", "flipgame", "solve", "--backend", "gauss",
                                        "--size", game.size], None)
        if code or differ:
            raise RuntimeError(f"flipgame solve answered {differ} of {len(expected)} boards differently "
                               f"from gauss in this process (exit {code})")
        return seconds

    with tempfile.TemporaryFile("w+b") as stream, bytecode_written():
        stream.write(("\n".join(format_cells(int(b), game.rows, game.cols) for b in boards) + "\n").encode())
        mine()
        ours, theirs = [], []
        for _ in range(STREAM_RUNS):
            ours.append(mine())
            if reference is None:
                continue
            seconds, code, differ, timed_out = run([reference], REFERENCE_TIMEOUT)
            if timed_out:
                return {"boards": len(boards), "flipgame_seconds": statistics.median(ours),
                        "reference_seconds": None, "reference_differs": None,
                        "reference_exit": f"did not finish within {REFERENCE_TIMEOUT:g} s"}
            theirs.append(seconds)
    row: dict = {"boards": len(boards), "flipgame_seconds": statistics.median(ours)}
    if reference is None:
        return row
    row |= {"reference_seconds": statistics.median(theirs), "reference_differs": differ,
            "reference_exit": 0 if code == 0 else f"killed by signal {-code}" if code < 0
            else f"exited with status {code}"}
    if code == 0:  # a speed ratio only for a run that finished normally
        row["times_reference"] = round(row["flipgame_seconds"] / max(row["reference_seconds"], 1e-9), 2)
    return row


def machine() -> dict:
    """The CPU model, cores and memory of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu)
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30 if hasattr(os, "sysconf") else 0
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(memory, 1), "python": platform.python_version()}


def measure(runs: Iterable[Measurement], reference: str | None = None, progress=None) -> dict:
    """Run the measurements ``runs`` (:data:`flipgame.bench.measurements.MEASUREMENTS` holds them by name),
    with the reference program ``reference`` (a compiled POJ 1753 solver) beside the stream, and return the
    table (not written).

    Raises RuntimeError when a command fails or answers wrongly: a wrong answer is never a time.
    """
    figures = {}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="flipgame-measure-") as tmp, bytecode_written():
        context = {"workdir": Path(tmp), "reference": reference}
        for m in runs:
            if progress:
                progress(m.name)
            for key, value in m.run(context).items():
                unit, what = m.figures[key]
                if isinstance(value, tuple):  # a run that gave no answer: "unknown" at its limit, or "refused"
                    value = {"value": value[0], "outcome": value[1]} if value[1] is not None else value[0]
                extra = value if isinstance(value, dict) else {"value": value}
                number = extra.get("value", 0.0)  # None: a figure the run did not reach (its text says so)
                figures[key] = {**extra, "value": None if number is None else round(number, 6), "unit": unit,
                                "what": what}
    load = {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)}
    today = datetime.date.today().isoformat()
    for entry in figures.values():
        entry["run"] = {"measured": today, "load": load}
    return {"measured": today, "flipgame": version("flipgame"), "machine": machine(), "load": load, "figures": figures}


def write(new: dict, path: Path = MEASURED_FILE) -> dict:
    """Merge ``new`` into the table at ``path`` (figures not measured now keep their old values) and write it."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = {"figures": {}}
    kept = {key: {"run": {"measured": old.get("measured", "?"), "load": old.get("load", {})}, **entry}
            for key, entry in old.get("figures", {}).items()}  # each figure keeps the date and load of its run
    merged = {**new, "figures": {**kept, **new["figures"]}}
    path.write_text(json.dumps(merged, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return merged


def _replacement(table: dict):
    def replace(match: re.Match) -> str:
        entry = table["figures"].get(match[1])
        if entry is None:
            return match[0]
        return f"<!-- measured: {match[1]} -->{format_entry(entry)}<!-- /measured -->"
    return replace


def update_docs(table: dict, paths: Iterable[Path]) -> list[Path]:
    """Rewrite every marker of the docs ``paths`` from ``table``; the files changed."""
    changed = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        new = MARKER.sub(_replacement(table), text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def stale_markers(table: dict, paths: Iterable[Path]) -> list[str]:
    """``file: key`` for every marker whose text is not the table's value (or whose key it lacks)."""
    out = []
    for path in paths:
        for match in MARKER.finditer(path.read_text(encoding="utf-8")):
            entry = table["figures"].get(match[1])
            if entry is None or match[2] != format_entry(entry):
                out.append(f"{path.name}: {match[1]}")
    return out


def markdown(table: dict) -> str:
    """docs/measured.md: every figure of the table with what it measures, the date, the machine and its load."""
    m, load = table.get("machine", {}), table.get("load", {})
    lines = ["# Measured figures", "",
             "Every time and rate the README, the other docs and the help texts quote comes from this table, written",
             "by `make bench` (`flipgame bench --measure`); the docs quote a figure between markers that the same",
             "run rewrites, and a test fails when they drift.", "",
             f"Last run on {table.get('measured', '?')} with flipgame {table.get('flipgame', '?')}: "
             f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores, {m.get('memory_gib', '?')} GiB, "
             f"Python {m.get('python', '?')}; load average {load.get('before', '?')} before the run and "
             f"{load.get('after', '?')} after. A run of some measurements (`--measure NAME`) keeps the others: "
             "each row gives the date and load average (before -> after) of the run that measured it.", "",
             "| figure | value | what was measured | measured |", "|---|---|---|---|"]
    for key, entry in table.get("figures", {}).items():
        run = entry.get("run", {"measured": table.get("measured", "?"), "load": load})
        when = f"{run['measured']}, load {run['load'].get('before', '?')} -> {run['load'].get('after', '?')}"
        lines.append(f"| `{key}` | {format_entry(entry)} | {entry['what']} | {when} |")
    return "\n".join(lines) + "\n"

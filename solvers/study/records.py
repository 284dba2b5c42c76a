"""The study's runs as a flat table: one CSV row per (instance, strategy), every measure and the
environment in columns that ``pandas.read_csv`` loads as they are (numbers as numbers, empty for
none, booleans as ``True``/``False``), and read back to redraw or re-rate a study without rerunning it.

>>> import pandas  # doctest: +SKIP
>>> pandas.read_csv("runs.csv").groupby("strategy").wall_seconds.median()  # doctest: +SKIP
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass

from flipgame.study.metrics import NOT_RUN, instance_name, solved

RUN_FIELDS = ("instance", "family", "n", "nullity", "board", "strategy", "status", "solved", "answer",
              "wall_seconds", "cpu_seconds", "peak_rss_mib", "build_seconds", "export_seconds", "solve_seconds",
              "measured", "note", "flag", "clock", "termination", "measured_by", "instance_hash", "repeats",
              "spread_seconds")
"""Columns of each run: its instance, status, whether it is solved (:func:`flipgame.study.metrics.solved`),
its answer, the measures (seconds, MiB), how it was measured (``child`` or ``in-process``), why there
is no answer, why the answer is flagged, the clock of the limit and scores (``cpu`` or ``wall``), the limit
that stopped the run (``cputime``, ``walltime``, ``memory``), what measured it (``rusage`` or ``benchexec``),
and the instance's content hash (:func:`flipgame.study.compare.instance_hash`: two studies join on it)."""
ENVIRONMENT_FIELDS = ("solver", "solver_version", "time_limit", "margin", "memory_limit_gib", "flipgame_version",
                      "cpu_model", "cores", "memory_gib")
"""Columns recorded once per study and repeated on every row (so that CSVs of several machines concatenate):
the strategy's solver and its version, the limits, flipgame's version and the machine."""
CSV_FIELDS = RUN_FIELDS + ENVIRONMENT_FIELDS
"""Columns of the per-instance CSV."""


def _num(v, digits: int = 6) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def write_csv(runs: Iterable, path: str, time_limit: float, environment: dict | None = None,
              clock: str = "wall") -> int:
    """One row per (instance, strategy): :data:`CSV_FIELDS`.  Returns the rows written.  Raises OSError."""
    env = environment or {}
    count = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for r in runs:
            w.writerow(_run_cells(r, time_limit, clock) + _environment_cells(r.strategy, time_limit, env))
            count += 1
    return count


def _run_cells(r, time_limit: float, clock: str) -> list:
    """The :data:`RUN_FIELDS` of one run."""
    def get(name, default=None):
        return getattr(r, name, default)

    peak = get("peak_rss")
    return [instance_name(r), r.family, r.n, "" if r.nullity is None else r.nullity, r.board, r.strategy, r.status,
            solved(r, time_limit, clock), r.answer() if r.answered else "", _num(r.seconds), _num(get("cpu_seconds")),
            _num(None if peak is None else peak / 2**20, 1), _num(get("build_seconds")), _num(get("export_seconds")),
            _num(get("solve_seconds")), get("measured", ""), get("note", ""), r.flag, clock, get("termination", ""),
            get("measured_by", ""), get("instance_hash", ""), get("repeats", 1), _num(get("spread_seconds"))]


def _environment_cells(strategy: str, time_limit: float, env: dict) -> list:
    """The :data:`ENVIRONMENT_FIELDS` of a run of ``strategy``."""
    machine, limits, s = env.get("machine", {}), env.get("limits", {}), env.get("solvers", {}).get(strategy, {})
    return [s.get("solver", ""), s.get("version", ""), time_limit, limits.get("margin", ""),
            "" if limits.get("memory_limit_gib") is None else limits["memory_limit_gib"], env.get("flipgame", ""),
            machine.get("cpu", ""), machine.get("cores", ""), machine.get("memory_gib", "")]


@dataclass
class CsvRun:
    """A run read back from the per-instance CSV (enough for the metrics, the tables and the figures)."""

    family: str
    n: int
    nullity: int | None
    board: int
    strategy: str
    status: str
    seconds: float | None
    moves: int | None
    flag: str
    cpu_seconds: float | None = None
    peak_rss: int | None = None
    note: str = ""
    termination: str = ""
    measured_by: str = ""
    instance_hash: str = ""

    @property
    def answered(self) -> bool:
        return self.status in ("OPTIMAL", "INFEASIBLE")

    def answer(self) -> str:
        return str(self.moves) if self.status == "OPTIMAL" else "Impossible"


def _float(text: str | None) -> float | None:
    return float(text) if text not in (None, "") else None


def csv_clock(path: str) -> tuple[str, float | None]:
    """The clock and time limit a study CSV was scored on (``wall`` for a CSV older than the column), read
    from its first row; OSError, ValueError as :func:`read_csv`."""
    with open(path, newline="") as f:
        first = next(csv.DictReader(f), None)
    if first is None:
        raise ValueError(f"{path}: no runs")
    return first.get("clock") or "wall", _float(first.get("time_limit"))


def read_csv(path: str) -> list[CsvRun]:
    """The runs of a CSV written by :func:`write_csv` (an older one too: ``seconds`` for ``wall_seconds``,
    ``skipped`` for ``not run``).

    Raises
    ------
    OSError
        An unreadable file.
    ValueError
        A file that is not such a CSV (a column missing or a number that is not one), naming the row.
    """
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for i, r in enumerate(rows, start=2):
        try:
            peak, answer = _float(r.get("peak_rss_mib")), r["answer"]
            board = int(r["board"]) if r.get("board") else int(r["instance"].rsplit("/", 1)[1])
            status = NOT_RUN if r["status"] == "skipped" else r["status"]
            out.append(CsvRun(r["family"], int(r["n"]), int(r["nullity"]) if r.get("nullity") else None, board,
                              r["strategy"], status, _float(r.get("wall_seconds", r.get("seconds"))),
                              int(answer) if answer.isdigit() else None, r["flag"] or "", _float(r.get("cpu_seconds")),
                              None if peak is None else int(peak * 2**20), r.get("note") or "",
                              r.get("termination") or "", r.get("measured_by") or "", r.get("instance_hash") or ""))
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}, row {i}: not a flipgame study CSV ({type(exc).__name__}: {exc})") from None
    return out

"""A strategy study as BenchExec result XML: one file per strategy, one ``<run>`` per instance, so that
BenchExec's own ``table-generator`` builds its HTML and CSV tables from a flipgame study.

Each run carries BenchExec's columns: ``status`` (the answer, ``TIMEOUT (cputime)``, ``OUT OF MEMORY``,
``ERROR``, ``refused``, ``not run``), ``cputime`` and ``walltime`` (``1.25s``), ``memory`` (bytes, ``123B``),
and the hidden ``category``: ``correct`` (solved, cross-checked), ``wrong`` (flagged), ``unknown``
(unsolved, refused) or ``missing`` (not run).  The result's attributes give the tool, the limits and the
machine.

Source: BenchExec's result format (``result-3.0.dtd``, doc/run-results.md: columns and categories).
"""

from __future__ import annotations

import datetime
import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from flipgame.study.metrics import NOT_RUN, REFUSED, instance_name, solved

DOCTYPE = ('<!DOCTYPE result PUBLIC "+//IDN sosy-lab.org//DTD BenchExec result 3.0//EN" '
           '"https://www.sosy-lab.org/benchexec/result-3.0.dtd">')


def write_benchexec_xml(runs: Sequence, time_limit: float, folder: str, *, clock: str = "wall",
                        environment: dict | None = None) -> list[str]:
    """One ``flipgame.STRATEGY.results.xml`` per strategy in ``folder`` (created); the paths written.
    Raises OSError."""
    os.makedirs(folder, exist_ok=True)
    env = environment or {}
    machine, limits = env.get("machine", {}), env.get("limits", {})
    paths = []
    stamp = env.get("date") or datetime.datetime.now(datetime.timezone.utc).astimezone().isoformat(timespec="seconds")
    for strategy in dict.fromkeys(r.strategy for r in runs):
        root = ET.Element("result", {
            "benchmarkname": "flipgame", "name": f"flipgame.{strategy}", "tool": strategy,
            "version": env.get("solvers", {}).get(strategy, {}).get("version", env.get("flipgame", "")),
            "timelimit": f"{time_limit:g}s", "generator": "flipgame study", "options": f"clock={clock}",
            "memlimit": f"{int(limits['memory_limit_gib'] * 2**30)}B" if limits.get("memory_limit_gib") else "-",
            "cpuCores": "1", "date": stamp, "starttime": stamp})
        ET.SubElement(root, "columns")
        for title in ("status", "cputime", "walltime"):
            ET.SubElement(root.find("columns"), "column", {"title": title})
        info = ET.SubElement(root, "systeminfo", {"hostname": machine.get("hostname", "localhost")})
        ET.SubElement(info, "os", {"name": machine.get("os", "Linux")})
        ET.SubElement(info, "cpu", {"cores": str(machine.get("cores", "")), "model": machine.get("cpu", "")})
        ET.SubElement(info, "ram", {"size": f"{int(float(machine.get('memory_gib') or 0) * 2**30)}B"})
        for r in (r for r in runs if r.strategy == strategy):
            _run(root, r, time_limit, clock)
        path = os.path.join(folder, f"flipgame.{strategy}.results.xml")
        ET.indent(root)
        with open(path, "w", encoding="utf-8") as f:
            f.write('<?xml version="1.0" ?>\n' + DOCTYPE + "\n" + ET.tostring(root, encoding="unicode") + "\n")
        paths.append(path)
    return paths


def _run(root, r, time_limit: float, clock: str) -> None:
    run = ET.SubElement(root, "run", {"name": instance_name(r)})
    status, category = _status(r, time_limit, clock)
    columns = [("status", status), ("category", category)]
    if getattr(r, "cpu_seconds", None) is not None:
        columns.append(("cputime", f"{r.cpu_seconds:.6f}s"))
    if r.seconds is not None:
        columns.append(("walltime", f"{r.seconds:.6f}s"))
    if getattr(r, "peak_rss", None):
        columns.append(("memory", f"{int(r.peak_rss)}B"))
    for title, value in columns:
        attrs = {"title": title, "value": value}
        if title == "category":
            attrs["hidden"] = "true"
        ET.SubElement(run, "column", attrs)


def _status(r, time_limit: float, clock: str) -> tuple[str, str]:
    """BenchExec's status and category of a run (see the module docstring)."""
    if r.status == NOT_RUN:
        return "not run", "missing"
    if r.status == REFUSED:
        return "refused", "unknown"
    if r.flag:
        return f"{r.answer() if r.answered else r.status} (flagged)", "wrong"
    if solved(r, time_limit, clock):
        return r.answer(), "correct"
    termination = getattr(r, "termination", "")
    if termination == "memory":
        return "OUT OF MEMORY", "unknown"
    if r.status == "ERROR":
        return "ERROR", "error"
    return f"TIMEOUT ({termination or ('cputime' if clock == 'cpu' else 'walltime')})", "unknown"

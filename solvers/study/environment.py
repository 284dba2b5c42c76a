"""What a measured study records once: the machine, the versions, the limits; and which solver (and
version) each strategy runs.

BenchExec and runsolver record the machine (CPU model, cores, memory), the tool's version and the
limits beside every result; :func:`environment` gives the same for ``flipgame study``, read from
``/proc`` and the installed distributions' metadata (no solver library is imported).
"""

from __future__ import annotations

import os
import platform
from importlib import metadata

from flipgame.backends.program import version_of
from flipgame.backends.sat import DEFAULT_SOLVER
from flipgame.backends.strategies import Strategy

SOLVER_LIBRARIES: dict[tuple[str, str | None], tuple[str, str]] = {
    ("gauss", None): ("flipgame gauss (GF(2) / Z_k elimination)", "flipgame"),
    ("bfs", None): ("flipgame bfs (distance table)", "flipgame"),
    ("auto", None): ("flipgame auto (portfolio)", "flipgame"),
    ("cpsat", None): ("OR-Tools CP-SAT", "ortools"),
    ("ilp", "SCIP"): ("SCIP through OR-Tools", "ortools"),
    ("ilp", "HIGHS"): ("HiGHS through OR-Tools", "ortools"),
    ("sat", "xor"): ("CryptoMiniSat (pycryptosat)", "pycryptosat"),
    ("sat", "cnf"): ("python-sat", "python-sat"),
    ("maxsat", None): ("RC2 (python-sat)", "python-sat"),
    ("pb", None): ("Exact", "exact"),
    ("mip", "scip"): ("SCIP (PySCIPOpt)", "pyscipopt"),
    ("mip", "highs"): ("HiGHS (highspy)", "highspy"),
}
"""(backend, the option that picks its solver) -> (the solver, the distribution whose version is recorded)."""
VARIANT_OPTION = {"ilp": "solver", "mip": "solver", "sat": "engine"}
"""The option that picks a backend's solver, where it has several."""


def _distribution(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def solver_of(strategy: Strategy) -> tuple[str, str]:
    """``(solver, version)`` a strategy runs, e.g. ``("OR-Tools CP-SAT", "ortools 9.15.6755")``.  A program
    (backend ``external``) is named by its command's first word, its version by what the strategy's ``version``
    command prints (:func:`~flipgame.backends.program.version_of`), ``unknown (no version command)`` without
    one.  O(1), or one program call (cached)."""
    if strategy.backend == "external":
        command = str(strategy.options.get("command", ""))
        program = command.split()[0] if command.split() else "external"
        return program, version_of(str(strategy.options.get("version", "") or "")) or "unknown (no version command)"
    variant = VARIANT_OPTION.get(strategy.backend)
    value = strategy.options.get(variant) if variant else None
    if strategy.backend == "sat" and value is None:
        value = "xor"
    solver, dist = SOLVER_LIBRARIES.get((strategy.backend, value), (strategy.backend, "flipgame"))
    if strategy.backend == "sat" and value == "cnf":
        solver = f"{strategy.options.get('solver', DEFAULT_SOLVER)} (python-sat)"
    return solver, f"{dist} {_distribution(dist)}"


def _proc_field(path: str, key: str) -> str | None:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine() -> dict:
    """``cpu`` (model name), ``cores`` (usable by this process), ``memory_gib`` (total), ``os``, ``python``,
    and ``load`` (the 1-minute load average when asked).  Linux ``/proc``; elsewhere what ``platform`` gives."""
    mem_kb = _proc_field("/proc/meminfo", "MemTotal")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": _proc_field("/proc/cpuinfo", "model name") or platform.processor() or platform.machine(),
            "cores": cores, "memory_gib": round(int(mem_kb.split()[0]) / 2**20, 1) if mem_kb else None,
            "os": platform.platform(terse=True), "python": platform.python_version(),
            "load": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None}


def machine_line(m: dict) -> str:
    """``AMD EPYC, 2 cores, 23.5 GiB`` (for a caption)."""
    memory = f", {m['memory_gib']:g} GiB" if m.get("memory_gib") else ""
    return f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores{memory}"


def environment(strategies: list[Strategy], limits: dict) -> dict:
    """Everything recorded once per study: ``flipgame`` (its version), ``machine``, ``limits`` (as given) and
    ``solvers`` (strategy -> ``{"solver", "version"}``)."""
    return {"flipgame": _distribution("flipgame"), "machine": machine(), "limits": dict(limits),
            "solvers": {s.name: dict(zip(("solver", "version"), solver_of(s), strict=True)) for s in strategies}}

"""A solver program measured and limited by BenchExec's ``RunExecutor`` (Linux cgroups), as the competitions do.

The kernel counts the CPU time, the wall time and the peak memory of the program's whole process tree and
enforces the limits: a CPU-time limit (``hardtimelimit``, as runsolver ``-C``), a wall-clock safety net
(``walltimelimit``) and a memory limit (``memlimit``, the tree's resident memory, not its address space);
the termination reason (``cputime``, ``walltime``, ``memory``) is recorded.  No container is used
(``use_namespaces=False``), which works as root or with delegated cgroups.  :func:`unavailable` says why
not where it cannot be used; the caller then measures with :func:`flipgame.core.processes.run_bounded`
and says so.  The program runs behind ``setpriv --pdeathsig KILL`` (:func:`flipgame.core.processes.launcher`),
so it dies with flipgame.

Source: Beyer, Löwe, Wendler, "Reliable benchmarking: requirements and solutions", STTT 21 (2019);
BenchExec's ``runexecutor`` API (``execute_run``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile

from flipgame.core import extras
from flipgame.core.limits import OUTPUT_MAX_BYTES
from flipgame.core.pipes import TAIL_BYTES
from flipgame.core.processes import RunResult, launcher

_STATE: dict = {}
"""The one ``RunExecutor`` of this process, or why there is none (``reason``)."""


def unavailable() -> str | None:
    """Why BenchExec cannot measure here (not installed, or no usable cgroups), or None; checked once."""
    if "executor" in _STATE or "reason" in _STATE:
        return _STATE.get("reason")
    if not extras.installed("benchexec"):
        _STATE["reason"] = "BenchExec is not installed (pip install 'flipgame[study]')"
        return _STATE["reason"]
    logging.getLogger().setLevel(max(logging.getLogger().level, logging.ERROR))  # BenchExec logs to the root
    try:
        from benchexec.runexecutor import RunExecutor

        _STATE["executor"] = RunExecutor(use_namespaces=False)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - BenchExec exits or raises when cgroups are unusable
        _STATE["reason"] = f"BenchExec cannot use cgroups here ({type(exc).__name__}: {str(exc)[:120] or 'no reason'})"
    return _STATE.get("reason")


def run_cgroup(argv: list[str], cpu_limit: float | None, wall_limit: float, memory_limit: int | None = None,
               output_cap: int = OUTPUT_MAX_BYTES) -> RunResult:
    """Run ``argv`` under BenchExec; its measures and how it ended as a :class:`RunResult` whose
    ``termination`` is BenchExec's reason (``cputime``, ``walltime``, ``memory`` or None) and
    ``measured_by`` is ``benchexec``.  ``timed_out`` is True at either time limit; ``peak_rss`` is the
    tree's peak memory (cgroup ``memory.max_usage_in_bytes`` or ``memory.peak``).

    Raises RuntimeError when :func:`unavailable` gives a reason; FileNotFoundError or PermissionError for a
    program that cannot be run.
    """
    why = unavailable()
    if why:
        raise RuntimeError(why)
    argv = launcher(argv)
    with tempfile.TemporaryDirectory(prefix="flipgame-bx-") as tmp:
        out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        result = _STATE["executor"].execute_run(
            argv, output_filename=out, error_filename=err, write_header=False, hardtimelimit=cpu_limit,
            walltimelimit=max(wall_limit, 0.01), memlimit=memory_limit, maxLogfileSize=output_cap)
        stdout, stderr = _read(out, output_cap), _read(err, TAIL_BYTES)
    code = result.get("exitcode")
    reason = result.get("terminationreason")
    return RunResult(tuple(argv), float(result.get("walltime") or 0.0), float(result.get("cputime") or 0.0),
                     result.get("memory"), getattr(code, "value", None), getattr(code, "signal", None),
                     reason in ("cputime", "walltime"), False, stdout, stdout[-TAIL_BYTES:], stderr[-TAIL_BYTES:],
                     termination=reason, measured_by="benchexec")


def _read(path: str, cap: int) -> bytes:
    with contextlib.suppress(OSError), open(path, "rb") as f:
        return f.read(cap)
    return b""

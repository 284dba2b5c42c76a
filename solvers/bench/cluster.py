"""The measurement of the long run on a cluster: a(65) in chunks on ``--scheduler local:2`` with one Dask worker
killed, against the run in one process, and what a(95) and a(79) would cost from the measured rate per core."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from flipgame.bench.measure import flipgame_full

KILL_AFTER_SECONDS = 60.0
"""Seconds into the chunked run when one of its two Dask workers is killed (SIGKILL)."""
SECONDS_PER_YEAR = 365.25 * 86400
CORES = (100, 1000, 10000)
SYMMETRIES = 8
"""The all-lit boards' symmetry group: the long run enumerates 2**k / 8 solutions (about)."""


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _kill_a_worker(pid: int) -> bool:
    """SIGKILL one Dask worker process (a child of the study that runs ``multiprocessing.spawn``)."""
    for child in _children(pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in cmdline:
            os.kill(child, signal.SIGKILL)
            return True
    return False


def _duration(seconds: float) -> str:
    days = seconds / 86400
    return f"{days:.1f} days" if days >= 2 else f"{seconds / 3600:.0f} hours"


def measure_cluster(context: dict) -> dict[str, object]:
    """a(65) on two Dask workers, one killed at :data:`KILL_AFTER_SECONDS`; the run in one process; the same
    witness (RuntimeError otherwise); the rate per core over the manifest; the cost of a(95) and a(79)."""
    work = Path(context["workdir"])
    chunked, single, manifest = work / "chunked", work / "single", work / "manifest"
    for folder in (chunked, single, manifest):
        folder.mkdir()
    cmd = [sys.executable, "-m", "flipgame", "study", "--all-lit", "65", "--scheduler", "local:2",
           "--checkpoint-dir", str(manifest), "--witness-dir", str(chunked)]
    start = time.perf_counter()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        time.sleep(KILL_AFTER_SECONDS)
        killed = _kill_a_worker(proc.pid)
        out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode or out.decode().split() != ["65", "1867"] or not killed:
        raise RuntimeError(f"the chunked a(65) answered {out.decode()!r} (exit {proc.returncode}, worker killed: "
                           f"{killed}): {err.decode()[-300:]}")
    single_wall, _, _ = flipgame_full("study", "--all-lit", "65", "--witness-dir", str(single))
    if (chunked / "a075464-65.txt").read_text() != (single / "a075464-65.txt").read_text():
        raise RuntimeError("the chunked a(65) found another witness than the run in one process")
    lines = [json.loads(line) for line in (manifest / "a075464-65.chunks.jsonl").read_text().splitlines()[1:]]
    rate = sum(x["enumerated"] for x in lines) / sum(x["seconds"] for x in lines)
    out_figures: dict[str, object] = {"cluster.a65.wall": wall, "cluster.a65.single_wall": single_wall,
                                      "cluster.a65.chunks": {"value": len(lines), "text": f"{len(lines)}"},
                                      "cluster.rate": rate}
    for n, k in ((95, 62), (79, 64)):
        core_seconds = 2 ** k / SYMMETRIES / rate
        out_figures[f"cluster.a{n}.core_years"] = core_seconds / SECONDS_PER_YEAR
        for cores in CORES:
            out_figures[f"cluster.a{n}.{cores}"] = {"value": core_seconds / cores,
                                                    "text": _duration(core_seconds / cores)}
    return out_figures


CLUSTER_FIGURES = {
    "cluster.a65.wall": ("s", "flipgame study --all-lit 65 --scheduler local:2, one of its two Dask workers killed "
                              "60 s in, wall time"),
    "cluster.a65.single_wall": ("s", "flipgame study --all-lit 65 in one process, wall time (the same witness)"),
    "cluster.a65.chunks": ("", "the chunks in the manifest"),
    "cluster.rate": ("/s", "solutions enumerated per core-second over the manifest's chunks (one thread each)"),
    **{f"cluster.a{n}.core_years": ("", f"a({n}): core-years at that rate, 2**{k} / 8 solutions")
       for n, k in ((95, 62), (79, 64))},
    **{f"cluster.a{n}.{cores}": ("s", f"a({n}) on {cores:,} cores at that rate") for n in (95, 79) for cores in CORES},
}

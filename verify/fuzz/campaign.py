"""A fuzzing campaign: instances in rounds on a pool or a Dask cluster, findings shrunk, a checkpoint, a report.

Each instance is one task (:func:`fuzz_instance`): the worker draws it from (seed, index), draws a setting
per backend, calls every backend through the gate and the referee (:func:`flipgame.verify.fuzz.run.attempt`),
asks the oracle, and judges.  Rounds of ``jobs x`` :data:`ROUND_PER_JOB` instances run on the executor of
:func:`flipgame.pipeline.executors.open_executor` (the local pool, ``local:N`` or a scheduler's address);
after each round the checkpoint is written, so a stopped campaign resumes at the next round with its
tallies.  Then each new kind of finding per backend (at most :data:`SHRINK_PER_PAIR` findings each) is
shrunk in a worker (:func:`flipgame.verify.fuzz.shrink.shrink`) and written as a reproducer folder.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from flipgame.backends.base import Backend
from flipgame.backends.registry import get_backend
from flipgame.core.errors import FlipgameError
from flipgame.core.files import whole_file
from flipgame.core.workers import kill_pool, local_pool
from flipgame.pipeline.executors import open_executor, run_on
from flipgame.verify.fuzz import reproducer
from flipgame.verify.fuzz.instances import FAMILIES, Instance, draw
from flipgame.verify.fuzz.oracle import exhaustive
from flipgame.verify.fuzz.run import KINDS, Finding, Outcome, attempt_confirmed, judge
from flipgame.verify.fuzz.settings import draw_settings
from flipgame.verify.fuzz.shrink import shrink

ROUND_PER_JOB = 8
"""Instances per worker in one round (the checkpoint is written between rounds)."""
SHRINK_PER_PAIR = 2
"""Findings shrunk and written as reproducers per (kind, backend); the others are counted and listed."""
FINDINGS_LISTED = 200
"""Findings kept in the report and the checkpoint (all are counted)."""


@dataclass
class Config:
    """What a campaign runs: ``count`` instances or for ``seconds`` (whichever ends first; one must be given)."""

    seed: int
    backends: list[str]
    count: int | None = None
    seconds: float | None = None
    time_limit: float = 5.0
    jobs: int = 1
    scheduler: str | None = None
    out: Path = Path("flipgame-fuzz")
    checkpoint: Path | None = None
    shrink: bool = True
    strategies_files: tuple[str, ...] = ()


@dataclass
class Tally:
    """What a campaign found so far (the checkpoint's and the report's content)."""

    next_index: int = 0
    seconds: float = 0.0
    families: Counter = field(default_factory=Counter)
    oracle: int = 0
    calls: dict = field(default_factory=dict)  # backend -> {status: count, "seconds": total}
    kinds: Counter = field(default_factory=Counter)  # "kind|backend" -> count
    findings: list = field(default_factory=list)

    def add(self, family: str, outcomes: list[Outcome], findings: list[Finding], has_oracle: bool) -> None:
        self.families[family] += 1
        self.oracle += has_oracle
        for o in outcomes:
            c = self.calls.setdefault(o.backend, {"seconds": 0.0})
            c[o.status] = c.get(o.status, 0) + 1
            c["seconds"] = round(c["seconds"] + o.seconds, 3)
        for f in findings:
            self.kinds[f"{f.kind}|{f.backend}"] += 1
            if len(self.findings) < FINDINGS_LISTED:
                self.findings.append(f.to_json())

    def to_json(self) -> dict:
        return {"next_index": self.next_index, "seconds": round(self.seconds, 3), "families": dict(self.families),
                "oracle": self.oracle, "calls": self.calls, "kinds": dict(self.kinds), "findings": self.findings}

    @classmethod
    def from_json(cls, data: dict) -> Tally:
        """The tally of a checkpoint; ValueError naming the field of a hand-edited one that is not a tally's."""
        fields = {"next_index": int, "seconds": (int, float), "families": dict, "oracle": int, "calls": dict,
                  "kinds": dict, "findings": list}
        for name, kind in fields.items():
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, kind) or (kind is int and value < 0):
                raise ValueError(f"{name} is {value!r:.40}")
        keys = {"kind", "backend", "seed", "index"}
        if data["next_index"] > 10**12 or not all(isinstance(f, dict) and set(f) >= keys for f in data["findings"]):
            raise ValueError("next_index or findings out of shape")
        return cls(data["next_index"], float(data["seconds"]), Counter(data["families"]), data["oracle"], data["calls"],
                   Counter(data["kinds"]), data["findings"])


def fuzz_instance(seed: int, index: int, backends: list[Backend], time_limit: float) -> tuple:
    """One instance, every backend called with a drawn setting, judged: (family, outcomes, findings, oracle?).

    Runs in a worker; returns plain data.  The settings are drawn from ``default_rng([seed, index, 1])``.
    """
    inst = draw(seed, index)
    rng = np.random.default_rng([seed, index, 1])
    outcomes = [attempt_confirmed(inst.system, inst.board, b, draw_settings(b, rng), time_limit) for b in backends]
    exact = exhaustive(inst.system, inst.board)
    return inst.family, outcomes, judge(inst, outcomes, exact, time_limit), exact is not None


def shrink_finding(finding: Finding, backend: Backend, time_limit: float) -> tuple[Instance, dict, int]:
    """The finding's instance, drawn again and shrunk (in a worker; the backend travels as an object, so a
    strategy of a strategies file needs no registration there)."""
    return shrink(draw(finding.seed, finding.index), finding.kind, backend, finding.settings, time_limit)


def run_campaign(cfg: Config, tally: Tally | None = None, progress=None) -> Tally:
    """Run the campaign of ``cfg`` on from ``tally`` (default: :func:`resume`), which it updates; the tally.

    ``progress(tally)`` is called after each round.  KeyboardInterrupt (Ctrl-C, SIGTERM) stops the run; the
    checkpoint and ``tally`` then hold the rounds finished, and the caller writes the report.
    Raises FlipgameError for a checkpoint of another campaign, ExecutorLost for a lost executor.
    """
    tally = resume(cfg) if tally is None else tally
    start = time.perf_counter() - tally.seconds
    with open_executor(cfg.scheduler, cfg.jobs) as (ex, _label):
        pool = local_pool(cfg.jobs) if ex is None and cfg.jobs > 1 else None
        try:
            while not _done(cfg, tally, start):
                _round(pool or ex, cfg, tally, start)
                tally.seconds = time.perf_counter() - start
                _save(cfg, tally)
                if progress:
                    progress(tally)
            if cfg.shrink:
                _shrink_all(pool or ex, cfg, tally)
        except BaseException:
            tally.seconds = time.perf_counter() - start  # the rounds finished are in the tally; their time too
            if pool is not None:
                kill_pool(pool)
                pool = None
            raise
        finally:
            if pool is not None:
                pool.shutdown()
    tally.seconds = time.perf_counter() - start
    return tally


def _done(cfg: Config, tally: Tally, start: float) -> bool:
    if cfg.count is not None and tally.next_index >= cfg.count:
        return True
    return cfg.seconds is not None and time.perf_counter() - start >= cfg.seconds


def _round(ex, cfg: Config, tally: Tally, start: float) -> None:
    size = max(1, cfg.jobs) * ROUND_PER_JOB
    if cfg.count is not None:
        size = min(size, cfg.count - tally.next_index)
    backends = [get_backend(n) for n in cfg.backends]
    tasks = [(cfg.seed, tally.next_index + i, backends, cfg.time_limit) for i in range(size)]
    results: dict[int, tuple] = {}
    _map(ex, fuzz_instance, tasks, lambda i, value: results.__setitem__(i, value), cfg.jobs)
    for i in range(size):
        family, outcomes, findings, has_oracle = results[i]
        tally.add(family, outcomes, findings, has_oracle)
    tally.next_index += size


def _map(ex, fn, tasks: list[tuple], finish, jobs: int) -> None:
    """``finish(i, fn(*tasks[i]))`` for every task: on the executor, or in this process when there is none (one
    job: a backend registered only here, e.g. a plug-in, is fuzzed too)."""
    if ex is None:
        for i, task in enumerate(tasks):
            finish(i, fn(*task))
        return
    run_on(ex, fn, tasks, finish, window=2 * max(1, jobs))


def _shrink_all(ex, cfg: Config, tally: Tally) -> None:
    """Shrink the first findings of each (kind, backend) and write their reproducers (``reproducer`` set)."""
    chosen, per_pair = [], Counter()
    for i, f in enumerate(tally.findings):
        pair = (f["kind"], f["backend"])
        if not f["reproducer"] and per_pair[pair] < SHRINK_PER_PAIR:
            per_pair[pair] += 1
            chosen.append(i)
    if not chosen:
        return
    findings = [Finding(**tally.findings[i]) for i in chosen]
    tasks = [(f, get_backend(f.backend), cfg.time_limit) for f in findings]

    def finish(k: int, value) -> None:
        inst, settings, tried = value
        f = findings[k]
        folder = cfg.out / f"{f.kind.replace(' ', '-')}-{f.backend}-{f.seed}-{f.index}"
        f.reproducer, f.shrunk = str(folder), {"tried": tried, "cells": inst.system.cells, "buttons": inst.system.m,
                                               "states": inst.system.states, "settings": settings}
        reproducer.write(folder, f, inst, settings, cfg.time_limit, cfg.strategies_files)
        tally.findings[chosen[k]].update(reproducer=f.reproducer, shrunk=f.shrunk)

    _map(ex, shrink_finding, tasks, finish, cfg.jobs)
    _save(cfg, tally)


def resume(cfg: Config) -> Tally:
    """The tally of ``cfg``'s checkpoint (empty without one); FlipgameError for another campaign's."""
    if cfg.checkpoint is None or not cfg.checkpoint.exists():
        return Tally()
    try:
        data = json.loads(cfg.checkpoint.read_text(encoding="utf-8"))
        same = (data["seed"], data["backends"], data["time_limit"]) == (cfg.seed, cfg.backends, cfg.time_limit)
        tally = Tally.from_json(data["tally"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise FlipgameError(f"{cfg.checkpoint}: not a flipgame fuzz checkpoint ({exc})") from None
    if not same:
        raise FlipgameError(f"{cfg.checkpoint} is the checkpoint of another campaign (seed {data['seed']}, backends "
                            f"{','.join(data['backends'])}, time limit {data['time_limit']:g} s); give the same "
                            f"options, or another --checkpoint file")
    return tally


def _save(cfg: Config, tally: Tally) -> None:
    if cfg.checkpoint is None:
        return
    record = {"seed": cfg.seed, "backends": cfg.backends, "time_limit": cfg.time_limit, "tally": tally.to_json()}
    with whole_file(cfg.checkpoint, encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


def report(cfg: Config, tally: Tally, *, interrupted: bool = False) -> dict:
    """The campaign's JSON report: the configuration, the tally, rates and findings by kind and backend."""
    by_kind: dict[str, dict[str, int]] = {}
    for key, n in tally.kinds.items():
        kind, backend = key.split("|", 1)
        by_kind.setdefault(kind, {})[backend] = n
    rate = tally.next_index / tally.seconds if tally.seconds else 0.0
    return {"seed": cfg.seed, "backends": cfg.backends, "time_limit": cfg.time_limit, "jobs": cfg.jobs,
            "scheduler": cfg.scheduler, "interrupted": interrupted, "instances": tally.next_index,
            "seconds": round(tally.seconds, 3), "instances_per_second": round(rate, 2),
            "families": {f: tally.families.get(f, 0) for f in FAMILIES}, "with_oracle": tally.oracle,
            "calls": tally.calls, "findings_by_kind": {k: by_kind[k] for k in KINDS if k in by_kind},
            "findings": tally.findings, "versions": reproducer.versions()}


def replay(folder: Path) -> tuple[Finding, list[Finding]]:
    """Call a reproducer's backend again on its instance and judge it: (the finding recorded, findings now)."""
    inst, finding, settings, time_limit = reproducer.read(folder)
    try:
        backend = get_backend(finding.backend)
    except KeyError:
        raise FlipgameError(f"{folder}: backend {finding.backend} is not registered here (a strategy of a strategies "
                            f"file: give that --strategies-file)") from None
    outcomes = [attempt_confirmed(inst.system, inst.board, backend, settings, time_limit)]
    exact = exhaustive(inst.system, inst.board)
    if exact is None and finding.backend != "gauss":
        outcomes.append(attempt_confirmed(inst.system, inst.board, "gauss", {}, time_limit))
    now = [f for f in judge(inst, outcomes, exact, time_limit) if f.backend == finding.backend]
    return finding, now

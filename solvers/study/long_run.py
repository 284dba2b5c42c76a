"""The long run of one board in chunks, on this machine or a Dask cluster: the cluster form of
:func:`flipgame.algebra.coset_run.minimum`.

The run's plan is cut into the fixed chunks of :mod:`flipgame.algebra.coset_chunks`; the chunks not yet in
the manifest are sent to the executor of :func:`flipgame.pipeline.executors.open_executor` (``local:N``
starts N single-thread Dask workers here; an address uses a running scheduler), each chunk's kernel on one
thread, or run in this process on every core when no scheduler is given.  Each finished chunk is appended
to the manifest at once.  Dask runs a lost worker's chunks again elsewhere (a chunk is idempotent), and a
run stopped by Ctrl-C or a lost scheduler resumes from the manifest; the minimum and the witness are those
of the run in one process (:func:`flipgame.algebra.coset_chunks.combine`).

Running time: as :func:`flipgame.algebra.coset_run.minimum`, divided among the workers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from flipgame.algebra import coset_chunks, coset_run
from flipgame.algebra.coset_checkpoint import Best
from flipgame.algebra.coset_chunks import Chunk, ChunkResult, Manifest
from flipgame.core.errors import CheckpointError, FlipgameError
from flipgame.core.limits import CHUNK_BLOCKS
from flipgame.model.system import PressSystem
from flipgame.pipeline.executors import ExecutorLost, live_workers, open_executor, run_on


@dataclass(frozen=True)
class ChunkedRun:
    """A finished chunked run: the lightest solution, the symmetry order, the chunks (and how many of them
    came from the manifest), the assignments enumerated, the seconds taken and where the chunks ran."""

    best: Best
    symmetries: int
    chunks: int
    resumed: int
    enumerated: int
    seconds: float
    where: str


def chunked_minimum(game: PressSystem, board: int, parts: Sequence[tuple[int, int]], quiet: Sequence[int], *,
                    scheduler: str | None = None, manifest: str | None = None,
                    progress: bool | None = None, blocks: int = CHUNK_BLOCKS) -> ChunkedRun:
    """The lightest press set over every coset of ``board``, enumerated in chunks (module notes).

    Parameters are those of :func:`flipgame.algebra.coset_run.minimum`, with ``scheduler`` (None: this
    process; ``local:N`` or a Dask scheduler's address) and ``manifest`` (a JSON-lines file that keeps the
    finished chunks; a run given it again resumes) and ``blocks`` (blocks per chunk).

    Raises
    ------
    InterruptedRun
        On Ctrl-C, with the lightest solution of the chunks finished so far.
    FlipgameError
        A scheduler that cannot be reached or is lost (the manifest keeps what finished), or a manifest of
        another run (CheckpointError).
    """
    start = time.perf_counter()
    k = len(quiet)
    laid = coset_run.plan(game, board, parts, quiet)
    order = coset_chunks.chunks(laid, blocks)
    store = Manifest.open(manifest, game, board, laid, blocks) if manifest else None
    done: dict[str, ChunkResult] = dict(store.done) if store else {}
    resumed = sum(c.id in done for c in order)
    todo = [c for c in order if c.id not in done]
    total = sum(p.assignments for p in laid)
    bar = coset_run.Progress(total, min(total, sum(r.enumerated for r in done.values())),
                             f"nullity {k}, chunks", progress)

    def finish(_: int, result: ChunkResult) -> None:
        if store:
            store.record(result)
        done[result.id] = result
        bar.update(result.enumerated, _lightest(done.values()))

    try:
        where = _run(laid, k, todo, scheduler, finish)
    except KeyboardInterrupt:
        raise coset_run.InterruptedRun(_lightest(done.values()), manifest) from None
    except ExecutorLost as exc:
        kept = f"; {manifest} keeps the {len(done)} chunks done" if manifest else ""
        raise FlipgameError(f"the chunked run stopped: {exc}{kept}") from None
    finally:
        bar.close()
    best = coset_chunks.combine(order, done)
    if best is None:  # a solvable board has a solution in some chunk: the manifest was written by something else
        raise CheckpointError(f"{manifest}: no chunk of the manifest holds a solution; remove it to start over")
    return ChunkedRun(best, max(p.action.order for p in laid), len(order), resumed,
                      sum(done[c.id].enumerated for c in order), time.perf_counter() - start, where)


def _lightest(results) -> Best | None:
    found = [r.best for r in results if r.best is not None]
    return min(found, key=lambda b: b.weight) if found else None


def _run(laid: list, k: int, todo: list[Chunk], scheduler: str | None, finish) -> str:
    """Run the chunks ``todo`` here (every core) or on the scheduler's workers (one thread each); returns
    where they ran."""
    if scheduler is None:
        for i, c in enumerate(todo):
            finish(i, coset_chunks.run_chunk(laid[c.part], k, c))
        return "this process"
    with open_executor(scheduler, 1) as (ex, label):
        window = 2 * max(1, live_workers(ex) or 1)
        run_on(ex, coset_chunks.run_chunk, [(laid[c.part], k, c, 1) for c in todo], finish, window)
        return label


__all__ = ["ChunkedRun", "chunked_minimum"]

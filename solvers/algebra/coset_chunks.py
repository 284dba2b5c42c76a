"""The long run of :mod:`flipgame.algebra.coset_run` cut into fixed, idempotent chunks, and their manifest.

A *chunk* is a range of consecutive blocks of one coset of the run's plan
(:func:`flipgame.algebra.coset_run.plan`): its id ``"part:first-stop"`` names it for good, and
:func:`run_chunk` gives the same result wherever and however often it runs (the lightest solution in
its blocks, the first met in block order).  :func:`combine` takes, over the chunks in their order, the
lightest, the earliest chunk on a tie: the minimum and the witness of the run in one process
(:func:`flipgame.algebra.coset_run.minimum` keeps the first lightest in the same order).

The *manifest* (:class:`Manifest`) is a JSON-lines file: a header (the layout hash of the plan, the
hash of the code that enumerates, the chunk size), then one line per finished chunk (its id, lightest
weight and press set, assignments, seconds, and a digest of the header and the line).  A run given its
manifest again skips the chunks in it; a line whose digest fails or whose witness does not solve the
board is refused.  Lines are appended and flushed as chunks finish, so a lost driver loses nothing done.

Running time: as the run itself, O(2**k / |G|) assignments over all chunks.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from flipgame.algebra import coset_run, minweight, symmetry, wht_blocked
from flipgame.algebra.coset_checkpoint import Best, layout_hash
from flipgame.core.errors import CheckpointError
from flipgame.core.limits import CHUNK_BLOCKS
from flipgame.model.system import PressSystem

FORMAT = "flipgame coset-run chunk manifest"
VERSION = 1


@dataclass(frozen=True)
class Chunk:
    """Blocks ``first`` to ``stop - 1`` of coset ``part``."""

    part: int
    first: int
    stop: int

    @property
    def id(self) -> str:
        return f"{self.part}:{self.first}-{self.stop}"


@dataclass(frozen=True)
class ChunkResult:
    """A finished chunk: its id, the lightest solution in it (None when it transformed no group), the
    assignments it enumerated and the seconds it took."""

    id: str
    best: Best | None
    enumerated: int
    seconds: float

    def to_json(self) -> dict:
        best = None if self.best is None else {"weight": self.best.weight, "presses": hex(self.best.presses),
                                               "target": hex(self.best.target)}
        return {"chunk": self.id, "best": best, "enumerated": self.enumerated, "seconds": round(self.seconds, 3)}

    @staticmethod
    def from_json(data: dict) -> ChunkResult:
        best = data["best"]
        return ChunkResult(data["chunk"], None if best is None else Best(
            int(best["weight"]), int(best["presses"], 16), int(best["target"], 16)), int(data["enumerated"]),
            float(data["seconds"]))


def chunks(parts: Sequence[coset_run.Part], blocks: int = CHUNK_BLOCKS) -> list[Chunk]:
    """The chunks of a plan, in the run's order: ``blocks`` blocks each (the last of a coset shorter)."""
    return [Chunk(i, b, min(b + blocks, p.blocks)) for i, p in enumerate(parts) for b in range(0, p.blocks, blocks)]


def run_chunk(part: coset_run.Part, k: int, chunk: Chunk, threads: int | None = None) -> ChunkResult:
    """Enumerate ``chunk`` of ``part`` (nullity ``k``): the same result on any machine, any number of times.
    ``threads`` caps the compiled kernel's threads (1 on a Dask worker of one thread).  O(chunk's assignments)."""
    start = time.perf_counter()
    if threads is not None:
        import numba

        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    best, enumerated = None, 0
    for block in range(chunk.first, chunk.stop):
        best, groups = coset_run.enumerate_block(part, k, block, best)
        enumerated += groups << part.action.inner
    return ChunkResult(chunk.id, best, enumerated, time.perf_counter() - start)


def combine(order: Iterable[Chunk], results: dict[str, ChunkResult]) -> Best | None:
    """The lightest over the chunks, the earliest in ``order`` on a tie (KeyError if one is missing)."""
    best = None
    for c in order:
        found = results[c.id].best
        if found is not None and (best is None or found.weight < best.weight):
            best = found
    return best


def code_hash() -> str:
    """SHA-256 of the source of the modules that enumerate (a manifest of other code is refused)."""
    h = hashlib.sha256()
    for module in (coset_run, wht_blocked, minweight, symmetry):
        h.update(Path(module.__file__).read_bytes())
    return h.hexdigest()


def _digest(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


class Manifest:
    """The JSON-lines manifest of a chunked run, bound to one plan (module notes)."""

    def __init__(self, path: str, header: dict, done: dict[str, ChunkResult]):
        self.path, self.header, self.done = path, header, done

    @classmethod
    def open(cls, path: str, game: PressSystem, board: int, parts, blocks: int = CHUNK_BLOCKS) -> Manifest:
        """Resume from ``path`` or start it (the header written at once).  Raises CheckpointError (one line)."""
        header = {"format": FORMAT, "version": VERSION, "rules_text": game.rules, "board": hex(board),
                  "layout": layout_hash(parts, coset_run.BLOCK_GROUPS), "code": code_hash(), "chunk_blocks": blocks}
        if not (os.path.isfile(path) and os.path.getsize(path) > 0):
            _append(path, {**header, "check": _digest(header)})
            return cls(path, header, {})
        return cls(path, header, _read(path, header, game, board))

    def record(self, result: ChunkResult) -> None:
        """Append a finished chunk (flushed and synced).  Raises CheckpointError naming the file."""
        line = result.to_json()
        _append(self.path, {**line, "check": _digest([self.header, line])})
        self.done[result.id] = result


def _append(path: str, data: dict) -> None:
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(data) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise CheckpointError(f"cannot write the chunk manifest {path}: {exc.strerror or exc}") from None


def _read(path: str, header: dict, game: PressSystem, board: int) -> dict[str, ChunkResult]:
    try:
        with open(path, encoding="utf-8") as fh:
            lines = [json.loads(line) for line in fh if line.strip()]
    except OSError as exc:
        raise CheckpointError(f"cannot read the chunk manifest {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CheckpointError(f"{path}: not a flipgame chunk manifest (a line is not JSON); remove it") from None
    head = lines[0] if lines and isinstance(lines[0], dict) else {}
    if head.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a flipgame chunk manifest")
    if {k: v for k, v in head.items() if k != "check"} != header:
        raise CheckpointError(f"{path} belongs to another run (another board, layout, chunk size or version of "
                              f"the enumerating code: {head.get('rules_text')}); remove it to start over")
    done = {}
    for number, data in enumerate(lines[1:], 2):
        if not isinstance(data, dict):
            raise CheckpointError(f"{path} line {number}: not a chunk's result; remove the line")
        line = {k: v for k, v in data.items() if k != "check"}
        if data.get("check") != _digest([header, line]):
            raise CheckpointError(f"{path} line {number} is damaged (its digest does not match); remove the line")
        try:
            result = ChunkResult.from_json(line)
        except (KeyError, TypeError, ValueError, AttributeError):
            raise CheckpointError(f"{path} line {number}: not a chunk's result; remove the line") from None
        if result.best is not None and (game.apply(board, result.best.presses) != result.best.target
                                        or result.best.presses.bit_count() != result.best.weight):
            raise CheckpointError(f"{path} line {number}: its press set does not solve the board")
        done[result.id] = result
    return done


__all__ = ["Chunk", "ChunkResult", "Manifest", "chunks", "code_hash", "combine", "run_chunk"]

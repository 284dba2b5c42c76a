"""One backend's answers on a run's boards, with the referee's verdicts, kept small enough for 2**25 boards.

A :class:`~flipgame.backends.result.BatchSolution` holds 29 bytes a board (the boards, status, moves,
witnesses and goal boards); two backends on every 5x5 board held 3.4 GB.  :class:`Answers` keeps the
status and the minimum of every board in full (the comparison's keys; int16 in a long run of at most
64 cells), the boards once (the run's own array, shared), and the witnesses and goal boards of each
finished chunk zlib-compressed
(level 1: most boards are Impossible, their witnesses 0); a chunk is unpacked when a check or a
record needs it.  For the checks it reads like a BatchSolution (``len``, ``[i]``, ``status``,
``moves``, ``boards``, ``presses``); ``rejected`` marks the answers the referee rejected (as they came in),
``unchecked`` counts the Impossible answers no certificate could be looked for, ``unchecked_why`` says why.
Small runs (at most :data:`PACK_MIN_BOARDS` boards) keep their chunks as they are.

Running time: one compression of each chunk's witnesses and goal boards (about a tenth of a second per
2**20 boards), one decompression per chunk a check reads.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import numpy as np

from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.verify.checks.referee import BatchVerdict

PACK_MIN_BOARDS = 1 << 20
"""Runs of more boards (two states, at most 64 cells) keep their witnesses compressed."""


class Answers:
    """The answers of backend ``backend`` on ``boards``, chunk ``i`` being ``boards[i * size:(i + 1) * size]``;
    filled by :meth:`add` as chunks finish (in any order)."""

    def __init__(self, backend: str, boards: np.ndarray, size: int):
        self.backend, self.boards, self.size = backend, boards, size
        self.packed = len(boards) > PACK_MIN_BOARDS and boards.dtype == np.uint64 and boards.ndim == 1
        self.status = np.full(len(boards), Status.UNKNOWN, dtype=np.uint8)
        self.moves = np.full(len(boards), -1, dtype=np.int16 if self.packed else np.int32)
        self.chunks: list[BatchSolution | tuple[bytes, bytes] | None] = [None] * -(-len(boards) // size)
        self.errors: list[str] = []
        self.seconds = 0.0
        self.rejected = np.zeros(len(boards), dtype=bool)
        self.unchecked, self.unchecked_why = 0, None
        self.done = 0  # boards answered so far
        self._last: tuple[int, BatchSolution] | None = None

    def __len__(self) -> int:
        return len(self.boards)

    def add(self, i: int, batch: BatchSolution, verdict: BatchVerdict) -> None:
        """Keep chunk ``i``'s answers (compressed in a long run) and the referee's verdict on them."""
        lo = i * self.size
        self.rejected[lo:lo + len(batch)] = verdict.bad
        self.unchecked += verdict.unchecked
        self.unchecked_why = self.unchecked_why or verdict.why
        self.done += len(batch)
        if len(batch) and self.moves.dtype == np.int16 and not -1 <= int(batch.moves.min()) <= int(batch.moves.max()) \
                <= np.iinfo(np.int16).max:
            self.moves = self.moves.astype(np.int32)  # a (faulty) minimum past int16: kept as it was, for the report
        self.status[lo:lo + len(batch)] = batch.status
        self.moves[lo:lo + len(batch)] = batch.moves
        self.errors.extend(batch.stats.get("errors", []))
        self.seconds += batch.seconds
        if not self.packed or batch.presses.dtype == object:  # Python ints (over 64 buttons) stay as they are
            self.chunks[i] = batch
            return
        self.chunks[i] = tuple(zlib.compress(np.ascontiguousarray(a, dtype="<u8").tobytes(), 1)
                               for a in (batch.presses, batch.target))

    def chunk(self, i: int) -> BatchSolution:
        """Chunk ``i`` as a BatchSolution (unpacked; the last one read is kept).  KeyError if it never finished."""
        if self._last is not None and self._last[0] == i:
            return self._last[1]
        got = self.chunks[i]
        if got is None:
            raise KeyError(f"{self.backend}: chunk {i} has no answers")
        if isinstance(got, tuple):
            lo = i * self.size
            hi = min(lo + self.size, len(self.boards))
            presses, target = (np.frombuffer(zlib.decompress(b), dtype="<u8").astype(np.uint64) for b in got)
            got = BatchSolution(self.backend, self.boards[lo:hi], self.status[lo:hi],
                                self.moves[lo:hi].astype(np.int32), presses, target)
        self._last = (i, got)
        return got

    def each_chunk(self) -> Iterator[tuple[int, BatchSolution]]:
        """``(first board's index, chunk)`` for every finished chunk, in order."""
        for i, got in enumerate(self.chunks):
            if got is not None:
                yield i * self.size, self.chunk(i)

    def __getitem__(self, j: int) -> Solution:
        return self.chunk(int(j) // self.size)[int(j) % self.size]

    @property
    def presses(self) -> np.ndarray:
        """Every witness, unpacked (for the comparison of press sets, a canonical run's)."""
        return np.concatenate([c.presses for _, c in self.each_chunk()])

    def batch(self) -> BatchSolution:
        """All the answers as one BatchSolution (for the certification)."""
        return BatchSolution.concat([c for _, c in self.each_chunk()])

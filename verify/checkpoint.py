"""Resumable agreement runs: finished chunks as JSON lines.

The first line is a header naming the run (game, backends, options, chunk
size and a SHA-256 of the boards); each further line is one finished chunk of
one backend with its answers.  Lines are appended and flushed as chunks
finish, so after any interruption (Ctrl-C, ``kill -9``, a crash) the file
holds every chunk finished before it; a torn last line is dropped on resume.
Resuming with a different run's file is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from solvers.board import Game
from solvers.errors import CheckpointError
from solvers.result import BatchSolution

FORMAT = "flipgame-checkpoint/1"


def run_header(game: Game, names: list[str], options: dict, chunk_size: int, boards: np.ndarray) -> dict:
    return {
        "format": FORMAT,
        "game": game.to_json(),
        "backends": names,
        "options": {n: options.get(n, {}) for n in names},
        "chunk_size": chunk_size,
        "boards_sha256": hashlib.sha256(np.ascontiguousarray(boards, dtype="<u8").tobytes()).hexdigest(),
    }


class Checkpoint:
    """Append-only store of finished chunks, keyed by (backend, chunk index).

    Parameters
    ----------
    path : str or Path
    header : dict
        From :func:`run_header`; an existing file must carry the same header.

    Raises
    ------
    CheckpointError
        If the file exists but belongs to another run or is not a checkpoint.
    """

    def __init__(self, path: str | Path, header: dict):
        self.path = Path(path)
        self.done: dict[tuple[str, int], BatchSolution] = {}
        good_lines = []
        if self.path.exists() and self.path.stat().st_size:
            try:
                with self.path.open(encoding="utf-8") as fh:
                    lines = fh.read().split("\n")
            except UnicodeDecodeError:
                raise CheckpointError(f"checkpoint {self.path} is not a flipgame checkpoint (not UTF-8 text)") from None
            try:
                first = json.loads(lines[0])
            except json.JSONDecodeError:
                first = None
            if first != json.loads(json.dumps(header)):
                raise CheckpointError(f"checkpoint {self.path} belongs to another run "
                                 f"(different size, goal, backends, options or boards); remove it or pick another file")
            good_lines.append(lines[0])
            for line in lines[1:]:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    break  # a line torn by an interruption, and nothing after it counts
                self.done[(rec["backend"], rec["chunk"])] = _from_record(rec)
                good_lines.append(line)
        else:
            good_lines.append(json.dumps(header))
        # Rewrite without any torn tail, then keep appending.
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text("\n".join(good_lines) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)
        self._fh = self.path.open("a", encoding="utf-8")

    def get(self, backend: str, chunk: int) -> BatchSolution | None:
        return self.done.get((backend, chunk))

    def add(self, chunk: int, batch: BatchSolution) -> None:
        """Record a finished chunk and flush it to the file."""
        self.done[(batch.backend, chunk)] = batch
        rec = {
            "backend": batch.backend,
            "chunk": chunk,
            "boards": batch.boards.tolist(),
            "status": batch.status.tolist(),
            "moves": batch.moves.tolist(),
            "presses": batch.presses.tolist(),
            "target": batch.target.tolist(),
            "seconds": batch.seconds,
            "errors": list(batch.stats.get("errors", [])),
        }
        self._fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def _from_record(rec: dict) -> BatchSolution:
    stats = {"errors": rec["errors"]} if rec.get("errors") else {}
    return BatchSolution(
        backend=rec["backend"],
        boards=np.array(rec["boards"], dtype=np.uint64),
        status=np.array(rec["status"], dtype=np.uint8),
        moves=np.array(rec["moves"], dtype=np.int16),
        presses=np.array(rec["presses"], dtype=np.uint64),
        target=np.array(rec["target"], dtype=np.uint64),
        seconds=rec["seconds"],
        stats=stats,
    )

"""Resumable agreement runs: finished chunks as JSON lines.

The first line is a header naming the run (game, backends, options, chunk
sizes and a SHA-256 of the boards); each further line is one finished chunk of
one backend with its answers.  Lines are appended and flushed as chunks
finish, so after any interruption (Ctrl-C, ``kill -9``, a crash) the file
holds every chunk finished before it; a torn last line is dropped on resume.
Resuming with a different run's file is refused, naming the field that differs.

Encoding (format 3, :data:`FORMAT`).  A chunk line holds no boards (they are the run's boards
``[chunk * size, (chunk + 1) * size)``, pinned by the header's digest and
re-checked by a digest of the chunk's boards) and stores each answer array as
base64 of its zlib-compressed little-endian bytes, presses and goal boards in
the narrowest unsigned type that holds ``n`` cells.  Measured for 5x5
(2**25 boards, chunks of 2**20): 100 MB for gauss and bfs together (0.8 bytes
per board for gauss, 2.2 for bfs, whose witnesses vary more), where JSON lists
of numbers take about 45 bytes per board.  Boards of more than 64 cells
(object arrays of Python ints) are stored as lists of hexadecimal strings.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import zlib
from pathlib import Path

import numpy as np

from flipgame.backends.result import BatchSolution
from flipgame.core.errors import CheckpointError
from flipgame.core.files import whole_file
from flipgame.model.system import PressSystem

FORMAT = "flipgame-checkpoint/4"
"""4: every chunk record carries its run's digest (``run``), so a line of another run is refused."""
RUN_DIGEST_CHARS = 16
"""Hex digits of the SHA-256 of the header kept in each chunk record (64 bits)."""
FIELD_NAMES = {
    "format": "checkpoint format",
    "game": "game (size, goal, wrap, neighbourhood, target)",
    "backends": "backends",
    "options": "backend options",
    "chunk_size": "chunk size",
    "boards_sha256": "boards digest (a different board list, sample size or seed)",
}
"""Header field -> how a mismatch is named to the user."""


def boards_digest(boards: np.ndarray) -> str:
    """SHA-256 (hex) of a board array: uint64 little-endian bytes, or the hex of Python ints."""
    if boards.dtype == object:
        return hashlib.sha256(",".join(format(int(b), "x") for b in boards).encode()).hexdigest()
    if boards.ndim == 2:  # rows of states, whatever their integer type
        return hashlib.sha256(np.ascontiguousarray(boards, dtype="<i8").tobytes()).hexdigest()
    return hashlib.sha256(np.ascontiguousarray(boards, dtype="<u8").tobytes()).hexdigest()


def run_header(game: PressSystem, names: list[str], options: dict, chunk_size: int | dict[str, int],
               boards: np.ndarray) -> dict:
    """The header naming a run; ``chunk_size`` is one size or a size per backend."""
    sizes = chunk_size if isinstance(chunk_size, dict) else dict.fromkeys(names, chunk_size)
    return {
        "format": FORMAT,
        "game": game.to_json(),
        "backends": names,
        "options": {n: options.get(n, {}) for n in names},
        "chunk_size": {n: sizes[n] for n in names},
        "boards_sha256": boards_digest(boards),
    }


def run_digest(header: dict) -> str:
    """The digest every chunk record of a run carries: SHA-256 of its header as canonical JSON
    (size, rules, backends, options, chunk sizes and the boards' digest), first :data:`RUN_DIGEST_CHARS` hex digits."""
    text = json.dumps(header, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:RUN_DIGEST_CHARS]


def header_difference(found: object, expected: dict) -> str | None:
    """The first header field of ``expected`` that ``found`` does not match, named for the user, or None."""
    if not isinstance(found, dict):
        return "header (the first line is not a flipgame checkpoint header)"
    for key, what in FIELD_NAMES.items():
        if found.get(key) != expected.get(key):
            return what
    return None


def _pack(a: np.ndarray, dtype: str) -> str:
    return base64.b64encode(zlib.compress(np.ascontiguousarray(a, dtype=dtype).tobytes(), 6)).decode("ascii")


def _unpack(text: str, dtype: str, k: int, cols: int | None = None) -> np.ndarray:
    """The array of :func:`_pack`: ``k`` values, or ``k`` rows of ``cols`` values."""
    a = np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype=dtype)
    if len(a) != k * (cols or 1):
        raise ValueError(f"expected {k * (cols or 1)} values, found {len(a)}")
    return a if cols is None else a.reshape(k, cols)


def _cell_dtype(n: int) -> str:
    """Narrowest little-endian unsigned type holding an n-cell bitmask."""
    return "<u1" if n <= 8 else "<u2" if n <= 16 else "<u4" if n <= 32 else "<u8"


class Checkpoint:
    """Append-only store of finished chunks, keyed by (backend, chunk index).

    Parameters
    ----------
    path : str or Path
    header : dict
        From :func:`run_header`; an existing file must carry the same header.
    game : Game, optional
        Sets the width of stored bitmasks (default 64 bits).

    Raises
    ------
    CheckpointError
        If the file exists but belongs to another run (the message names the
        field that differs: game, backends, options, chunk size, boards digest)
        or is not a checkpoint.

    Only the driver process writes the file; workers return their chunks to it.
    """

    def __init__(self, path: str | Path, header: dict, game: PressSystem | None = None):
        self.path = Path(path)
        self.n = game.n if game is not None else 64
        self.run = run_digest(json.loads(json.dumps(header)))
        self.records: dict[tuple[str, int], dict] = {}
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
            if not isinstance(first, dict):
                raise CheckpointError(f"checkpoint {self.path} is not a flipgame checkpoint (its first line is not "
                                      f"a checkpoint header); remove it or pick another file")
            differs = header_difference(first, json.loads(json.dumps(header)))
            if differs:
                raise CheckpointError(f"checkpoint {self.path} belongs to another run (different {differs} from "
                                      f"this run's); remove it or pick another file")
            good_lines.append(lines[0])
            good_lines += self._read_records(lines)
        else:
            good_lines.append(json.dumps(header))
        # Rewrite without any torn tail, then keep appending.
        try:
            with whole_file(self.path, encoding="utf-8") as fh:
                fh.write("\n".join(good_lines) + "\n")
            self._fh = self.path.open("a", encoding="utf-8")
        except OSError as exc:
            raise self._write_error(exc) from None

    def _write_error(self, exc: OSError) -> CheckpointError:
        """A failed write (e.g. a full disk) as one line naming the checkpoint."""
        return CheckpointError(f"cannot write checkpoint {self.path}: {exc.strerror or exc}; the chunks already "
                               f"in it are kept, and rerunning the command resumes from them")

    def _read_records(self, lines: list[str]) -> list[str]:
        """Check the chunk lines (from the second) and keep their records; returns the good lines.

        Only the last line may be torn (an interruption while writing it): it is dropped.  A torn
        line with lines after it, a line that is not a chunk record, or a record of another run
        (its ``run`` digest differs) is refused, naming the line.
        """
        good = []
        last = max((k for k, line in enumerate(lines) if line.strip()), default=0)
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip() and number - 1 > last:
                break
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                if number - 1 == last:
                    break  # a line torn by an interruption: the chunk is solved again
                raise CheckpointError(f"checkpoint {self.path}: line {number} is torn (not JSON) and lines follow "
                                      f"it; remove that line to resume, or the file to start again") from None
            if not (isinstance(rec, dict) and isinstance(rec.get("backend"), str)
                    and type(rec.get("chunk")) is int and rec["chunk"] >= 0):
                raise CheckpointError(f"checkpoint {self.path}: line {number} is damaged (not a chunk record "
                                      f"with a backend and a chunk number); remove the file to start again")
            if rec.get("run") != self.run:
                raise CheckpointError(f"checkpoint {self.path}: line {number} is a chunk of another run (run digest "
                                      f"{rec.get('run')!r}, this run's {self.run!r}); remove that line to resume")
            self.records[(rec["backend"], rec["chunk"])] = rec
            good.append(line)
        return good

    def __len__(self) -> int:
        return len(self.records)

    def get(self, backend: str, chunk: int, boards: np.ndarray) -> BatchSolution | None:
        """The stored answers of ``backend`` on chunk ``chunk`` (whose boards are ``boards``), or None.

        Raises CheckpointError if the stored chunk does not fit ``boards``.
        """
        rec = self.records.get((backend, chunk))
        if rec is None:
            return None
        try:
            return self._decode(rec, boards)
        except KeyError as exc:
            raise CheckpointError(f"checkpoint {self.path}: chunk {chunk} of {backend} is damaged (no field "
                                  f"{exc}); remove the file to start again") from None
        except (ValueError, TypeError, AttributeError, OverflowError, zlib.error) as exc:
            raise CheckpointError(f"checkpoint {self.path}: chunk {chunk} of {backend} is damaged ({exc}); "
                                  f"remove the file to start again") from None

    def add(self, chunk: int, batch: BatchSolution, backend: str | None = None) -> None:
        """Record a finished chunk of ``backend`` (default: the batch's own name) and flush it to the file."""
        k = len(batch)
        backend = backend or batch.backend
        rec = {"run": self.run, "backend": backend, "chunk": chunk, "k": k,
               "boards_sha256": boards_digest(batch.boards)[:16]}
        if batch.boards.dtype == object or batch.presses.dtype == object:  # Python ints: hex lists
            rec |= {"presses": [format(int(p), "x") for p in batch.presses],
                    "target": [format(int(t), "x") for t in batch.target]}
        elif batch.boards.ndim == 2:  # rows of states and press counts
            rec |= {"cells": "<i8", "columns": [batch.presses.shape[1], batch.target.shape[1]],
                    "presses": _pack(batch.presses, "<i8"), "target": _pack(batch.target, "<i8")}
        else:
            cells = _cell_dtype(self.n)
            if k and max(int(batch.presses.max()), int(batch.target.max())) >= 1 << (8 * int(cells[-1])):
                cells = "<u8"  # a faulty backend's out-of-range bitmask is kept as it was, for the report
            rec |= {"cells": cells, "presses": _pack(batch.presses, cells), "target": _pack(batch.target, cells)}
        rec |= {"status": _pack(batch.status, "u1"), "moves": _pack(batch.moves, "<i4"),
                "seconds": batch.seconds, "errors": list(batch.stats.get("errors", []))}
        self.records[(backend, chunk)] = rec
        try:
            self._fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
            self._fh.flush()
        except OSError as exc:
            raise self._write_error(exc) from None

    def close(self) -> None:
        with contextlib.suppress(OSError):  # a full disk was reported by add
            self._fh.close()

    def _decode(self, rec: dict, boards: np.ndarray) -> BatchSolution:
        k = len(boards)
        if rec["k"] != k or rec["boards_sha256"] != boards_digest(boards)[:16]:
            raise ValueError("its boards are not this chunk's boards")
        if isinstance(rec["presses"], list):  # Python ints (over 64 cells or buttons), in hex
            presses = np.array([int(p, 16) for p in rec["presses"]] or [], dtype=object)
            target = np.array([int(t, 16) for t in rec["target"]] or [],
                              dtype=object if boards.dtype == object else np.uint64)
            if len(presses) != k or len(target) != k:
                raise ValueError(f"expected {k} answers")
        elif boards.ndim == 2:
            m, n = rec["columns"]
            presses = _unpack(rec["presses"], "<i8", k, m).astype(np.int64)
            target = _unpack(rec["target"], "<i8", k, n).astype(np.int64)
        else:
            cells = rec["cells"]
            if cells not in ("<u1", "<u2", "<u4", "<u8"):
                raise ValueError(f"unknown cell type {cells!r}")
            presses = _unpack(rec["presses"], cells, k).astype(np.uint64)
            target = _unpack(rec["target"], cells, k).astype(np.uint64)
        errors, seconds = rec.get("errors", []), rec["seconds"]
        if not (isinstance(errors, list) and all(isinstance(e, str) for e in errors)):
            raise ValueError("its errors are not a list of messages")
        if type(seconds) not in (int, float) or not 0 <= seconds < float("inf"):
            raise ValueError("its seconds are not a time")
        stats = {"errors": errors} if errors else {}
        return BatchSolution(
            backend=rec["backend"],
            boards=boards,
            status=_unpack(rec["status"], "u1", k).astype(np.uint8),
            moves=_unpack(rec["moves"], "<i4", k).astype(np.int32),
            presses=presses,
            target=target,
            seconds=float(seconds),
            stats=stats,
        )

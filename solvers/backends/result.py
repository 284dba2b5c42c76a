"""The one result type every backend returns: :class:`Solution` (one board) and
:class:`BatchSolution` (many boards of one game, as numpy arrays).

Modelled on scipy's ``OptimizeResult``, but frozen and with every field always
present: a field that has no value for a status is ``None`` (single) or a
sentinel (batch), never missing.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np


class Status(enum.IntEnum):
    """Outcome of one solve.

    OPTIMAL     a minimum-weight press set was found and proved minimum;
    INFEASIBLE  no press set reaches any goal board (``Impossible``);
    UNKNOWN     the solver stopped (time limit) before proving either: never a number;
    ERROR       the backend raised on this board; the message is in ``stats["error"]``.
    """

    OPTIMAL = 0
    INFEASIBLE = 1
    UNKNOWN = 2
    ERROR = 3

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name


NO_MOVES = -1
"""Sentinel in :attr:`BatchSolution.moves` for boards without a number (not OPTIMAL)."""


ANSWER_WORDS = {Status.INFEASIBLE: "Impossible", Status.UNKNOWN: "Unknown", Status.ERROR: "Error"}
"""The answer line of each status without a number (POJ 1753's words)."""


@dataclass(frozen=True)
class Solution:
    """One backend's answer for one board of a press system (a grid or any other).

    A board, a press set and a goal board are written as the system writes them
    (:mod:`flipgame.model.system`): int bitmasks on two states, tuples of ints on k >= 3
    states and on counters.

    Attributes
    ----------
    backend : str
        Registry name of the backend that produced it.
    status : Status
    moves : int or None
        Minimum number of presses (the total press count); ``None`` unless OPTIMAL.
    presses : int, tuple of int, or None
        The witness: on two states the bitmask of buttons pressed (bit ``j``; on a grid bit
        ``r*cols+c``), with ``presses.bit_count() == moves``; otherwise how many times each button
        is pressed, summing to ``moves``.  ``None`` unless OPTIMAL.
    target : int, tuple of int, or None
        The goal board the witness reaches (two states: 0 = all white, ``2**n-1`` = all
        black); ``None`` unless OPTIMAL.
    seconds : float
        Wall time of the solve, in seconds (model building included).
    stats : Mapping
        Backend statistics (e.g. ``nullity``, ``conflicts``, ``branches``, ``solutions``).
    certificates : Mapping or None
        For INFEASIBLE through the gate: goal board -> a vector ``c`` with ``c^T A = 0`` while
        ``c . (goal - board) != 0`` (mod k); on two states ``c`` is the bitmask of a set of cells
        that every press flips an even number of times while the board differs from that goal in
        an odd number of them.  Check one with :func:`flipgame.verify.checks.witness.check_certificate`.
        None otherwise.
    """

    backend: str
    status: Status
    moves: int | None = None
    presses: int | tuple[int, ...] | None = None
    target: int | tuple[int, ...] | None = None
    seconds: float = 0.0
    stats: Mapping[str, object] = field(default_factory=dict)
    certificates: Mapping | None = None

    def __repr__(self) -> str:
        return (f"Solution(backend={self.backend!r}, status={self.status!r}, moves={self.moves}, "
                f"presses={self.presses}, target={self.target}, ...)")

    def __post_init__(self):
        object.__setattr__(self, "stats", MappingProxyType(dict(self.stats)))
        if self.certificates is not None:
            object.__setattr__(self, "certificates", MappingProxyType(dict(self.certificates)))
        has_number = self.status is Status.OPTIMAL
        if has_number != (self.moves is not None) or has_number != (self.presses is not None):
            raise ValueError(f"{self.status.name} solution must {'' if has_number else 'not '}carry moves and presses")

    def __reduce__(self):
        """Pickled with its mappings as plain dicts (a ``mappingproxy`` does not pickle), frozen again on load:
        an answer can come back from a worker process (:func:`flipgame.core.workers.run_function`)."""
        values = tuple(dict(v) if isinstance(v, MappingProxyType) else v
                       for v in (getattr(self, f.name) for f in dataclasses.fields(self)))
        return type(self), values

    @property
    def success(self) -> bool:
        return self.status is Status.OPTIMAL

    def answer(self) -> str:
        """The answer line: the number of presses, ``Impossible``, ``Unknown`` or ``Error``."""
        return str(self.moves) if self.status is Status.OPTIMAL else ANSWER_WORDS[self.status]


@dataclass(frozen=True)
class BatchSolution:
    """One backend's answers for ``k`` boards of one press system.

    Two-state systems of at most 64 cells hold boards, witnesses and goals as uint64 bitmasks of shape
    (k,); k-state systems as int64 arrays of shape (k, n) (boards, goals) and (k, m) (press counts).

    Attributes
    ----------
    backend : str
    boards : ndarray, uint64 shape (k,) or int64 shape (k, n)
        The boards solved.
    status : ndarray of uint8, shape (k,)
        :class:`Status` values.
    moves : ndarray of int32, shape (k,)
        Minimum presses, or ``NO_MOVES`` (-1) when not OPTIMAL.
    presses : ndarray, uint64 shape (k,) or int64 shape (k, m)
        Witnesses; 0 when not OPTIMAL.
    target : ndarray, like ``boards``
        Goal board reached; 0 when not OPTIMAL.
    seconds : float
        Wall time for the whole batch, in seconds (summed over parts when concatenated).
    stats : Mapping
    """

    backend: str
    boards: np.ndarray
    status: np.ndarray
    moves: np.ndarray
    presses: np.ndarray
    target: np.ndarray
    seconds: float = 0.0
    stats: Mapping[str, object] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.boards)

    def __getitem__(self, i: int) -> Solution:
        status = Status(int(self.status[i]))
        if status is not Status.OPTIMAL:
            return Solution(self.backend, status)
        return Solution(self.backend, status, int(self.moves[i]), _board(self.presses[i]), _board(self.target[i]))

    @property
    def bitmasks(self) -> bool:
        """True when boards are uint64 bitmasks (two states), False for rows of states."""
        return self.boards.ndim == 1

    @classmethod
    def empty(cls, backend: str, boards: np.ndarray, m: int | None = None) -> BatchSolution:
        """All-UNKNOWN arrays for ``boards`` (uint64 shape (k,), an object array of Python ints above 64 cells,
        or int64 shape (k, n) with ``m`` buttons), to be filled in by a backend.  Press sets are uint64 up to 64
        buttons, Python ints (an object array) for more ``m`` or cells."""
        boards = np.asarray(boards)
        k = len(boards)
        if boards.dtype == object:  # Python ints above 64 cells
            presses, target = np.zeros(k, dtype=object), np.zeros(k, dtype=object)
        elif boards.ndim == 1:
            boards = boards.astype(np.uint64, copy=False)
            wide = m is not None and m > 64
            presses, target = np.zeros(k, dtype=object if wide else np.uint64), np.zeros(k, dtype=np.uint64)
        else:
            boards = boards.astype(np.int64, copy=False)
            presses, target = np.zeros((k, m), dtype=np.int64), np.zeros_like(boards)
        return cls(backend, boards, np.full(k, Status.UNKNOWN, dtype=np.uint8), np.full(k, NO_MOVES, dtype=np.int32),
                   presses, target)

    @classmethod
    def from_solutions(cls, backend: str, boards: np.ndarray, solutions: Sequence[Solution],
                       seconds: float, m: int | None = None) -> BatchSolution:
        """Pack single-board solutions (same order as ``boards``; ``m`` buttons for rows of states) into arrays."""
        out = cls.empty(backend, boards, m)
        for i, s in enumerate(solutions):
            out.status[i] = s.status
            if s.status is Status.OPTIMAL:
                out.moves[i], out.presses[i], out.target[i] = s.moves, s.presses, s.target
        errors = [s.stats.get("error", "no message") for s in solutions if s.status is Status.ERROR]
        stats = {"errors": errors[:10]} if errors else {}
        return out.with_time(seconds, **stats)

    @classmethod
    def concat(cls, parts: Sequence[BatchSolution]) -> BatchSolution:
        """Join batches of one backend, in order; seconds are summed (CPU-side time)."""
        if not parts:
            raise ValueError("nothing to concatenate")
        names = {p.backend for p in parts}
        if len(names) != 1:
            raise ValueError(f"cannot join batches of different backends {sorted(names)}")
        return cls(
            backend=parts[0].backend,
            boards=np.concatenate([p.boards for p in parts]),
            status=np.concatenate([p.status for p in parts]),
            moves=np.concatenate([p.moves for p in parts]),
            presses=np.concatenate([p.presses for p in parts]),
            target=np.concatenate([p.target for p in parts]),
            seconds=sum(p.seconds for p in parts),
        )

    def with_time(self, seconds: float, **stats) -> BatchSolution:
        """The same answers with ``seconds`` and ``stats`` added to the statistics."""
        return BatchSolution(self.backend, self.boards, self.status, self.moves, self.presses,
                             self.target, seconds, {**self.stats, **stats})


def _board(value):
    """One entry of a batch array as a solution holds it: an int (a bitmask) or a tuple of ints."""
    return int(value) if np.ndim(value) == 0 else tuple(int(v) for v in value)


def board_at(boards: np.ndarray, i: int):
    """Board ``i`` of a run's board array as a backend takes it: an int (bitmasks, uint64 or Python ints)
    or a tuple of states (a row of an int array shape (b, n))."""
    return _board(boards[i])

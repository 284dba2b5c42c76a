"""The one result type every backend returns: :class:`Solution` (one board) and
:class:`BatchSolution` (many boards of one game, as numpy arrays).

Modelled on scipy's ``OptimizeResult``, but frozen and with every field always
present: a field that has no value for a status is ``None`` (single) or a
sentinel (batch), never missing.
"""

from __future__ import annotations

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


NO_MOVES = -1
"""Sentinel in :attr:`BatchSolution.moves` for boards without a number (not OPTIMAL)."""


class Answered:
    """What one board's answer shares, on the grid (:class:`Solution`) and on a press system
    (:class:`flipgame.backends.system_result.SystemSolution`): frozen mappings, a number exactly when
    OPTIMAL, :attr:`success` and the answer line."""

    def _freeze(self) -> None:
        object.__setattr__(self, "stats", MappingProxyType(dict(self.stats)))
        if self.certificates is not None:
            object.__setattr__(self, "certificates", MappingProxyType(dict(self.certificates)))
        has_number = self.status is Status.OPTIMAL
        if has_number != (self.moves is not None) or has_number != (self.presses is not None):
            raise ValueError(f"{self.status.name} solution must {'' if has_number else 'not '}carry moves and presses")

    @property
    def success(self) -> bool:
        return self.status is Status.OPTIMAL

    def answer(self) -> str:
        """The answer line: the number of presses, ``Impossible``, ``Unknown`` or ``Error``."""
        return str(self.moves) if self.status is Status.OPTIMAL else ANSWER_WORDS[self.status]


ANSWER_WORDS = {Status.INFEASIBLE: "Impossible", Status.UNKNOWN: "Unknown", Status.ERROR: "Error"}
"""The answer line of each status without a number (POJ 1753's words)."""


@dataclass(frozen=True)
class Solution(Answered):
    """One backend's answer for one board.

    Attributes
    ----------
    backend : str
        Registry name of the backend that produced it.
    status : Status
    moves : int or None
        Minimum number of presses; ``None`` unless OPTIMAL.
    presses : int or None
        The witness: bitmask of pressed cells (bit ``r*cols+c``), with
        ``presses.bit_count() == moves``; ``None`` unless OPTIMAL.
    target : int or None
        The goal board the witness reaches (0 = all white, ``2**n-1`` = all
        black); ``None`` unless OPTIMAL.
    seconds : float
        Wall time of the solve, in seconds (model building included).
    stats : Mapping
        Backend statistics (e.g. ``nullity``, ``conflicts``, ``branches``).
    certificates : Mapping[int, int] or None
        For INFEASIBLE through the gate: goal board -> a set of cells that
        every press flips an even number of times while the board differs
        from that goal in an odd number of them (check one with
        :func:`flipgame.verify.checks.witness.check_certificate`); None otherwise.
    """

    backend: str
    status: Status
    moves: int | None = None
    presses: int | None = None
    target: int | None = None
    seconds: float = 0.0
    stats: Mapping[str, object] = field(default_factory=dict)
    certificates: Mapping[int, int] | None = None

    def __repr__(self) -> str:
        return (f"Solution(backend={self.backend!r}, status={self.status!r}, moves={self.moves}, "
                f"presses={self.presses}, target={self.target}, ...)")

    def __post_init__(self):
        self._freeze()


@dataclass(frozen=True)
class BatchSolution:
    """One backend's answers for ``k`` boards of one game.

    Attributes
    ----------
    backend : str
    boards : ndarray of uint64, shape (k,)
        The boards solved, as bitmasks.
    status : ndarray of uint8, shape (k,)
        :class:`Status` values.
    moves : ndarray of int32, shape (k,)
        Minimum presses, or ``NO_MOVES`` (-1) when not OPTIMAL.
    presses : ndarray of uint64, shape (k,)
        Witness bitmasks; 0 when not OPTIMAL.
    target : ndarray of uint64, shape (k,)
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
        ok = status is Status.OPTIMAL
        return Solution(
            backend=self.backend,
            status=status,
            moves=int(self.moves[i]) if ok else None,
            presses=int(self.presses[i]) if ok else None,
            target=int(self.target[i]) if ok else None,
            stats={},
        )

    @classmethod
    def empty(cls, backend: str, boards: np.ndarray) -> BatchSolution:
        """All-UNKNOWN arrays for ``boards``, to be filled in by a backend."""
        k = len(boards)
        return cls(
            backend=backend,
            boards=np.asarray(boards, dtype=np.uint64),
            status=np.full(k, Status.UNKNOWN, dtype=np.uint8),
            moves=np.full(k, NO_MOVES, dtype=np.int32),
            presses=np.zeros(k, dtype=np.uint64),
            target=np.zeros(k, dtype=np.uint64),
        )

    @classmethod
    def from_solutions(cls, backend: str, boards: np.ndarray, solutions: Sequence[Solution],
                       seconds: float) -> BatchSolution:
        """Pack single-board solutions (same order as ``boards``) into arrays."""
        out = cls.empty(backend, boards)
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
        return BatchSolution(self.backend, self.boards, self.status, self.moves, self.presses,
                             self.target, seconds, {**self.stats, **stats})

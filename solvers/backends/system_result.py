"""The answer of a press-system backend: :class:`SystemSolution` (one board) and
:class:`SystemBatch` (many boards as numpy arrays).  The general game's twin of
:mod:`flipgame.backends.result`, with press *counts* instead of a press bitmask.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from flipgame.backends.result import NO_MOVES, Answered, Status


@dataclass(frozen=True)
class SystemSolution(Answered):
    """One backend's answer for one board of a :class:`~flipgame.model.system.PressSystem`.

    Attributes
    ----------
    backend : str
    status : Status
    moves : int or None
        Minimum total presses (sum of ``presses``); None unless OPTIMAL.
    presses : tuple of int or None
        The witness: how many times each button is pressed; None unless OPTIMAL.
    target : tuple of int or None
        The goal board the witness reaches; None unless OPTIMAL.
    seconds : float
    stats : Mapping
        E.g. ``nullity``, ``kernel_size``, ``solutions`` (press vectors reaching a goal).
    certificates : Mapping or None
        For INFEASIBLE from gauss: goal board (tuple) -> vector c (tuple) with
        ``c^T A = 0`` and ``c . (target - board) != 0`` (mod k).
    """

    backend: str
    status: Status
    moves: int | None = None
    presses: tuple[int, ...] | None = None
    target: tuple[int, ...] | None = None
    seconds: float = 0.0
    stats: Mapping[str, object] = field(default_factory=dict)
    certificates: Mapping[tuple[int, ...], tuple[int, ...]] | None = None

    def __post_init__(self):
        self._freeze()


@dataclass(frozen=True)
class SystemBatch:
    """Answers for ``b`` boards: boards int64 (b, n), status uint8 (b,), moves int32 (b,)
    (``NO_MOVES`` unless OPTIMAL), presses int64 (b, m), target int64 (b, n)."""

    backend: str
    boards: np.ndarray
    status: np.ndarray
    moves: np.ndarray
    presses: np.ndarray
    target: np.ndarray
    seconds: float = 0.0

    @classmethod
    def empty(cls, backend: str, boards: np.ndarray, m: int) -> SystemBatch:
        b = len(boards)
        return cls(backend, np.asarray(boards, dtype=np.int64), np.full(b, Status.UNKNOWN, dtype=np.uint8),
                   np.full(b, NO_MOVES, dtype=np.int32), np.zeros((b, m), dtype=np.int64),
                   np.zeros_like(np.asarray(boards, dtype=np.int64)))

    def __len__(self) -> int:
        return len(self.boards)

    def __getitem__(self, i: int) -> SystemSolution:
        status = Status(int(self.status[i]))
        if status is not Status.OPTIMAL:
            return SystemSolution(self.backend, status)
        return SystemSolution(self.backend, status, int(self.moves[i]), tuple(int(v) for v in self.presses[i]),
                              tuple(int(v) for v in self.target[i]))

    def with_time(self, seconds: float) -> SystemBatch:
        return SystemBatch(self.backend, self.boards, self.status, self.moves, self.presses, self.target, seconds)

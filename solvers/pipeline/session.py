"""A :class:`Session`: many solves by one backend with one set of options, through the gate, models kept open.

The options are validated once, when the session starts; whether the backend takes a rule set is asked once per
distinct system; a model backend (cpsat, sat, ilp) keeps one open :class:`~flipgame.backends.models.Model` per
distinct normalised system.  Every answer goes through the same gate and referee as :func:`flipgame.solve`
(:mod:`flipgame.pipeline.gate`): the ``*_checked`` methods give the answer with the referee's verdict, the
others the answer a caller may report.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from flipgame.backends.base import Backend
from flipgame.backends.models import ModelBackend
from flipgame.backends.registry import get_backend
from flipgame.backends.result import BatchSolution, Solution
from flipgame.core.errors import OptionError
from flipgame.model.boards import BoardSet, one_board
from flipgame.model.system import PressSystem
from flipgame.pipeline.gate import batch_boards, normal_taken, solve_many, solve_one
from flipgame.verify.checks.referee import Checked, CheckedBatch


class _Slot:
    """One open model of a :class:`Session`: the lock that serialises its solves, the model (built on
    first use, under the lock) and how many threads are using or waiting for it (never evicted then)."""

    __slots__ = ("lock", "model", "users")

    def __init__(self):
        self.lock, self.model, self.users = threading.Lock(), None, 0


class Session:
    """Many solves by one backend with one set of options, through the gate.

    The options are validated once, when the session starts; whether the
    backend takes a rule set is asked once per distinct press system; a model
    backend (cpsat, sat, ilp) keeps one open :class:`~flipgame.backends.models.Model`
    per distinct normalised game, so a stream of same-size boards builds one
    model instead of one per board.  Validation, goal-board normalisation and
    certificates and the referee are those of :func:`~flipgame.pipeline.gate.solve`
    and :func:`~flipgame.pipeline.gate.solve_batch` (the same code), and so are the answers.  Models are
    closed by :meth:`close`, at the end of a ``with`` block.

    Threads: a session may be shared by threads.  Each open model has a lock,
    so solves on one model run one at a time (a native solver's model is
    changed by every board, and OR-Tools and CryptoMiniSat abort or crash when
    two threads use one model at once), while solves on models of different
    games, and every solve of a backend without a model (gauss, bfs), run side
    by side.  A model in use is never closed by the least-recently-used
    eviction; :meth:`close` waits for the solves running on each model.  For
    parallel solves of one game, give each thread its own session.

    Parameters
    ----------
    backend : str or Backend
        A key of :data:`~flipgame.backends.registry.BACKENDS` (or a strategy's name).
    max_models : int
        Open models kept at most; past it the least recently used idle one is closed
        (each may hold up to ``memory_limit`` GiB).
    **options
        The backend's declared options, as for :func:`solve`.

    Raises
    ------
    UnknownBackendError, OptionError
        At construction, naming the valid backends or options.

    >>> from flipgame import Game
    >>> with Session("cpsat") as session:
    ...     [session.solve(b, game=Game(3, 3, "white")).moves for b in (0, 3, 11)]
    ...     session.models_built
    [0, 5, 1]
    1
    """

    def __init__(self, backend: str | Backend = "gauss", *, max_models: int = 8, **options):
        self.backend = backend if isinstance(backend, Backend) else get_backend(backend)
        self.options = self.backend.check_options(options)
        if not isinstance(max_models, int) or isinstance(max_models, bool) or max_models < 1:
            raise OptionError(f"max_models must be a positive integer, got {max_models!r:.40}")
        self.max_models = max_models
        self._taken: dict[PressSystem, PressSystem] = {}
        self._models: OrderedDict[PressSystem, _Slot] = OrderedDict()
        self._lock = threading.Lock()  # guards _models, the slots' users and models_built
        self.models_built = 0
        """Models built so far (at most one per distinct normalised game while it stays open)."""

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Session {self.backend.name}: {len(self._models)} open model(s)>"

    def close(self) -> None:
        """Close every open model (frees the solvers' native memory), each once the solve running on it
        has finished; the session stays usable."""
        with self._lock:
            slots = list(self._models.values())
            self._models.clear()
        for slot in slots:
            with slot.lock:
                _close(slot)

    def prepare(self, game: PressSystem) -> PressSystem:
        """The normalised ``game``, once the backend takes it; cached per game.  O(1) after the first call.

        Raises
        ------
        RefusedError
            The backend declines ``game``; the message names what takes it.
        """
        normal = self._taken.get(game)
        if normal is None:
            normal = self._taken[game] = normal_taken(self.backend, game, self.options)
        return normal

    def _checkout(self, normal: PressSystem) -> _Slot | None:
        """The slot of ``normal``'s model, counted as in use (None for a backend without models); the
        caller takes its lock in its own frame and gives it back with :meth:`_checkin`.

        Not a generator context manager: a Ctrl-C raised between its ``yield`` under the lock and the
        caller's ``with`` would leave the lock held by a suspended generator, and :meth:`close` would wait
        on it for good.  A ``with lock:`` in the caller's frame always releases it."""
        if not isinstance(self.backend, ModelBackend):
            return None
        with self._lock:
            slot = self._models.get(normal)
            if slot is None:
                slot = self._models[normal] = _Slot()
            self._models.move_to_end(normal)
            slot.users += 1
        return slot

    def _open(self, slot: _Slot | None, normal: PressSystem):
        """The open model of ``slot`` (built on first use; the caller holds its lock), or None."""
        if slot is None:
            return None
        if slot.model is None:
            slot.model = self.backend.open(normal, **self.options)
            with self._lock:
                self.models_built += 1
        return slot.model

    def _on_model(self, normal: PressSystem, run):
        """``run(model)`` on the open model of ``normal`` (None for a backend without models), under its lock."""
        slot = self._checkout(normal)
        try:
            with slot.lock if slot is not None else contextlib.nullcontext():
                return run(self._open(slot, normal))
        finally:
            self._checkin(slot)

    def _checkin(self, slot: _Slot | None) -> None:
        """``slot`` is no longer used by the caller: idle models past :attr:`max_models` are closed."""
        if slot is None:
            return
        with self._lock:
            slot.users -= 1
            idle = self._evict()
        for old in idle:
            _close(old)

    def _evict(self) -> list[_Slot]:
        """The least recently used idle slots past :attr:`max_models`, taken out of the session (the
        caller holds the session lock, and closes them after releasing it)."""
        out = []
        for key in list(self._models):
            if len(self._models) <= self.max_models:
                break
            if self._models[key].users == 0:
                out.append(self._models.pop(key))
        return out

    def solve_checked(self, board, *, game: PressSystem | None = None) -> Checked:
        """One board, as :func:`~flipgame.pipeline.gate.solve` with this session's backend and options (same
        arguments, errors), with the referee's verdict."""
        cells, game = one_board(board, game)
        normal = self.prepare(game)
        return self._on_model(normal, lambda model: solve_one(self.backend, game, normal, cells, self.options, model))

    def solve(self, board, *, game: PressSystem | None = None) -> Solution:
        """One board's answer as :func:`~flipgame.pipeline.gate.solve` gives it (a rejected one as ERROR)."""
        return self.solve_checked(board, game=game).answer

    def solve_batch_checked(self, boards: Sequence[int] | np.ndarray | BoardSet, game: PressSystem, *,
                            check: bool = True, contain: bool = True) -> CheckedBatch:
        """Many boards of one game (at most 64 cells on two states), every answer with the referee's verdict
        (None with ``check`` False: for a worker, whose driver checks).  A backend's exception is every
        board's ERROR, or with ``contain`` False raised (a run's chunk is then solved board by board)."""
        board_set = batch_boards(boards, game)
        normal = self.prepare(game)
        return self._on_model(normal, lambda model: solve_many(self.backend, game, normal, board_set, self.options,
                                                               model, check, contain))

    def solve_batch(self, boards: Sequence[int] | np.ndarray | BoardSet, game: PressSystem) -> BatchSolution:
        """Many boards of one game, as :func:`~flipgame.pipeline.gate.solve_batch` (rejected answers as ERROR)."""
        return self.solve_batch_checked(boards, game).answers


def _close(slot: _Slot) -> None:
    """Close the model of ``slot``, if it was built (the caller holds its lock or it is idle)."""
    if slot.model is not None:
        slot.model.close()
        slot.model = None

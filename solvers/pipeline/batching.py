"""The one batching policy: which boards are solved together, and how many at a time.

A batch is one call into a backend for many boards of one press system
(:meth:`~flipgame.backends.base.Backend.solve_batch`): one vectorised call for gauss and bfs, one open
model for the model backends.  The same rules serve ``solve`` (a stream of judge cases), ``verify``
(every board, in chunks on an executor) and the Python API:

* a batch holds boards of one system in uint64, so two states of at most 64 cells, or rows of states;
* a backend that answers a batch in one vectorised call (``parallel`` False) takes up to
  :data:`BATCH_CHUNK_SIZE` boards a call; a per-board backend (``parallel`` True) takes
  :data:`CHUNK_SIZE` or fewer, so that the boards of a run make at least :data:`MIN_CHUNKS` chunks for
  the workers (:func:`chunk_size`);
* a stream batches a case only when the batch gives it the output the one-board path gives
  (:func:`streamable`), and at most :data:`STREAM_CHUNK` cases at a time.
"""

from __future__ import annotations

from flipgame.algebra.gf2 import nullity
from flipgame.backends.base import Backend
from flipgame.model.system import PressSystem

CHUNK_SIZE = 2048
"""Most boards per unit of work for per-board (``parallel``) backends."""
BATCH_CHUNK_SIZE = 1 << 20
"""Boards per unit of work for vectorised backends (gauss, bfs): 2**20 boards, about 20 MiB per answer array."""
MIN_CHUNKS = 64
"""A run of a per-board backend is cut into at least this many chunks (of at least 16 boards) for its workers."""
STREAM_CHUNK = 1 << 16
"""Most cases of a stream answered by one batch: every 4x4 board in one gauss batch (whose memory is bounded
per step, whatever the batch) and one write."""


def chunk_size(backend: Backend, boards: int, given: int | None = None) -> int:
    """Boards per unit of work for ``backend`` in a run of ``boards`` boards: ``given`` if set, else
    :data:`BATCH_CHUNK_SIZE` for a vectorised backend and, for a per-board one, :data:`CHUNK_SIZE` or less so
    that the run makes at least :data:`MIN_CHUNKS` chunks of at least 16 boards.  O(1).

    >>> from flipgame.backends.registry import BACKENDS
    >>> chunk_size(BACKENDS["gauss"], 65536), chunk_size(BACKENDS["cpsat"], 65536)
    (1048576, 1024)
    """
    if given is not None:
        return given
    if not backend.parallel:
        return BATCH_CHUNK_SIZE
    return max(16, min(CHUNK_SIZE, -(-boards // MIN_CHUNKS)))


def batchable(system: PressSystem) -> bool:
    """True when boards of ``system`` can share a batch: two states of at most 64 cells (uint64 bitmasks),
    or rows of states."""
    return system.n <= 64 if system.binary else True


def streamable(system: PressSystem, backend: Backend, options: dict, *, per_board: bool) -> bool:
    """True if a batch gives a stream's cases of ``system`` the output the per-board path gives.

    Needs: two states of at most 64 cells, a backend whose batch is one vectorised call (``parallel``
    False: gauss, bfs), no output that needs one solve per board (``per_board``: ``--stats`` with its
    seconds and solver statistics, a format answering from one solve's statistics), and no
    ``max_nullity`` below the system's nullity (the per-board path refuses a solvable board there; a
    batch would answer it).  O(1) after the cached elimination.
    """
    ok = system.binary and system.n <= 64 and not backend.parallel and not per_board
    limit = options.get("max_nullity")
    if ok and limit is not None:
        k = nullity(system)
        ok = k is not None and k <= limit
    return ok

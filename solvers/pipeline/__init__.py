"""The one pipeline every board takes, whoever asks (``solve``, ``verify``, the study, the Python API).

read (:mod:`flipgame.model.boards`: one board, a :class:`~flipgame.model.boards.BoardSet`) -> validate once
and solve through a backend (:mod:`~flipgame.pipeline.gate`, :mod:`~flipgame.pipeline.session`) in batches of
one policy (:mod:`~flipgame.pipeline.batching`), locally, on a pool or on Dask, checkpointed
(:mod:`~flipgame.pipeline.executors`, :mod:`~flipgame.pipeline.checkpoint`, :mod:`~flipgame.pipeline.chunks`)
-> the referee on every answer (:mod:`flipgame.verify.checks.referee`) -> one agreement policy
(:mod:`~flipgame.pipeline.decide`) -> the writers (formats, reports, figures).  Only re-exports.
"""

from flipgame.pipeline.gate import prepare, solve, solve_batch, solve_strategy
from flipgame.pipeline.session import Session

__all__ = ["Session", "prepare", "solve", "solve_batch", "solve_strategy"]

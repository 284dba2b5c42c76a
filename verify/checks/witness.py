"""Independent witness checks: no backend is trusted on its own word.

A backend's OPTIMAL answer is accepted only if re-applying its press set with
the model's plain simulation (:meth:`flipgame.model.system.PressSystem.apply`
and its vectorised twin ``apply_many``) reaches the goal board it names, that
board is a goal of the game, and the press set has exactly the claimed number
of presses.  A non-OPTIMAL answer must carry no number.  ``Impossible`` answers
are checked by their certificates (:mod:`flipgame.verify.checks.certificates`),
both together by the referee (:mod:`flipgame.verify.checks.referee`).
Minimality is checked by agreement between independent backends
(:mod:`flipgame.pipeline.decide`) and by proofs (:mod:`flipgame.verify.proofs.certify`).

One set of checks serves every press system: two states with bitmasks, k
states and counters with tuples (:mod:`flipgame.model.system`).

Source: the same idea as scipy's ``_check_result`` and networkx's
``validate_flows``.
"""

from __future__ import annotations

import numpy as np

from flipgame.backends.result import NO_MOVES, BatchSolution, Solution, Status
from flipgame.model.system import PressSystem


def check_solution(game: PressSystem, board, solution: Solution) -> str | None:
    """Why ``solution`` is not a valid answer for ``board``, or ``None`` if it is.  O(entries)."""
    if solution.status is not Status.OPTIMAL:
        return None if solution.moves is None else "a non-OPTIMAL answer carries a number"
    presses, moves, target = solution.presses, solution.moves, solution.target
    if game.binary:
        if not isinstance(presses, int) or not 0 <= presses < 1 << game.m:
            return f"press set {presses} is not a bitmask of {game.m} buttons"
        cost = presses.bit_count()
    else:
        top = game.states if game.states else float("inf")
        if not isinstance(presses, tuple) or len(presses) != game.m or any(not 0 <= p < top for p in presses):
            return f"press counts {presses} are not {game.m} counts {f'0..{top - 1}' if game.states else '>= 0'}"
        cost = sum(presses)
    if cost != moves:
        return f"claims {moves} presses but the press set has {cost}"
    if target not in game.targets:
        return f"target {target} is not a goal board of goal {game.goal!r}"
    after = game.apply(board, presses)
    if after != target:
        return f"pressing the witness gives board {after}, not the claimed target {target}"
    return None


def check_batch(game: PressSystem, batch: BatchSolution) -> np.ndarray:
    """Vectorised :func:`check_solution`.

    Returns
    -------
    ndarray of bool, shape (k,)
        True where the answer fails a check.  O(k n) on two states, O(k n m) beyond.
    """
    if not game.binary:
        return _check_rows(game, batch)
    if batch.boards.dtype == object or batch.presses.dtype == object:  # Python ints (over 64 cells or buttons)
        return np.array([check_solution(game, int(batch.boards[i]), batch[i]) is not None
                         or (batch.status[i] != Status.OPTIMAL and batch.moves[i] != NO_MOVES)
                         for i in range(len(batch))], dtype=bool).reshape(len(batch))
    ok_status = batch.status == Status.OPTIMAL
    presses = batch.presses.astype(np.uint64)
    after = game.apply_many(batch.boards, presses)
    is_goal = np.isin(batch.target, np.array(game.targets, dtype=np.uint64))
    fits = presses < np.uint64(1 << game.m) if game.m < 64 else np.ones(len(presses), dtype=bool)
    good_optimal = fits & is_goal & (after == batch.target) & (
        np.bitwise_count(presses).astype(np.int16) == batch.moves
    )
    good_other = batch.moves == NO_MOVES
    return np.where(ok_status, ~good_optimal, ~good_other)


def _check_rows(system: PressSystem, batch: BatchSolution) -> np.ndarray:
    """:func:`check_batch` beyond two states: bool array shape (b,), True where an answer fails.

    The boards after the presses come from the model (:meth:`~flipgame.model.system.PressSystem.apply_many`,
    its press matrix built from the buttons' (cell, amount) lists, not taken from a solver).  An OPTIMAL answer
    must have counts in range summing to its moves and reach its target, which must be a goal; any other
    answer must carry no number.  O(b n m).
    """
    presses = np.asarray(batch.presses, dtype=np.int64)
    after = system.apply_many(batch.boards, presses)
    top = system.states if system.states else np.iinfo(np.int64).max
    goals = np.array(system.targets, dtype=np.int64)
    target = np.asarray(batch.target, dtype=np.int64)
    is_goal = (target[:, None, :] == goals[None, :, :]).all(axis=2).any(axis=1)
    good = ((presses >= 0) & (presses < top)).all(axis=1) & (presses.sum(axis=1) == batch.moves) & is_goal & (
        after == target).all(axis=1)
    optimal = batch.status == Status.OPTIMAL
    return np.where(optimal, ~good, batch.moves != NO_MOVES)

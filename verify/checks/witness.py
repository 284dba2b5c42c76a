"""Independent witness checks: no backend is trusted on its own word.

A backend's OPTIMAL answer is accepted only if re-applying its press set with
the board model's plain simulation (:meth:`flipgame.model.grid.Game.apply`, or its
vectorised twin ``apply_many``) reaches the goal board it names, that board is
a goal of the game, and the press set has exactly the claimed number of
presses.  A non-OPTIMAL answer must carry no number.  An ``Impossible`` answer
is accepted only with a parity certificate per goal board
(:func:`check_impossible`).  Minimality is checked by agreement between
independent backends (:mod:`flipgame.verify.run.harness`) and by proofs
(:mod:`flipgame.verify.proofs.certify`).

Source: the same idea as scipy's ``_check_result`` and networkx's
``validate_flows``.
"""

from __future__ import annotations

import numpy as np

from flipgame.algebra.gf2 import certificates, consistency_rows
from flipgame.backends.result import NO_MOVES, BatchSolution, Solution, Status
from flipgame.backends.system_result import SystemBatch, SystemSolution
from flipgame.core.errors import BoardTooLargeError
from flipgame.model.grid import Game
from flipgame.model.system import PressSystem


def check_solution(game: Game, board: int, solution: Solution) -> str | None:
    """Why ``solution`` is not a valid answer for ``board``, or ``None`` if it is. O(n)."""
    if solution.status is not Status.OPTIMAL:
        return None
    presses, moves, target = solution.presses, solution.moves, solution.target
    if not 0 <= presses <= game.full:
        return f"press set {presses} is not a {game.size} bitmask"
    if presses.bit_count() != moves:
        return f"claims {moves} presses but the press set has {presses.bit_count()}"
    if target not in game.targets:
        return f"target {target} is not a goal board of goal {game.goal!r}"
    after = game.apply(board, presses)
    if after != target:
        return f"pressing the witness gives board {after}, not the claimed target {target}"
    return None


def check_certificate(game: Game, board: int, target: int, certificate: int) -> str | None:
    """Why ``certificate`` does not prove ``target`` unreachable from ``board``, or ``None``.

    A valid certificate is a set of cells ``c`` such that every press flips an
    even number of cells of ``c`` (checked against each press mask of the board
    model), while ``board ^ target`` has an odd number of cells in ``c``: every
    press set then changes an even number of ``c``'s cells, never an odd number.
    O(n^2 / w).
    """
    if not 0 < certificate <= game.full:
        return f"certificate {certificate} is not a non-empty {game.size} bitmask"
    odd = [j for j, m in enumerate(game.press_masks) if (m & certificate).bit_count() & 1]
    if odd:
        return f"press {odd[0]} flips an odd number of the certificate's cells"
    if not ((board ^ target) & certificate).bit_count() & 1:
        return "the certificate overlaps the cells to change in an even number"
    return None


def check_impossible(game: Game, board: int, solution: Solution) -> str | None:
    """Why an Impossible answer is not proved, or ``None`` (also for any other status).

    Each goal board's certificate must pass :func:`check_certificate`.  An
    answer without certificates is looked up in the algebra
    (:func:`flipgame.algebra.gf2.certificates`), which finds none exactly when a
    goal board is reachable: then the answer is wrong.  Boards the algebra does
    not take (no plus rules and over its dense limit) pass unproved.  O(n^2 / w)
    per goal board.
    """
    if solution.status is not Status.INFEASIBLE:
        return None
    found = solution.certificates
    if found is None:
        try:
            found = certificates(game, board)
        except BoardTooLargeError:
            return None
        if found is None:
            return "says Impossible, but a goal board is reachable (no parity certificate exists)"
    for target, cert in found.items():
        if problem := check_certificate(game, board, target, cert):
            return f"its certificate for goal board {target} is wrong: {problem}"
    return None


def check_batch_impossible(game: Game, batch: BatchSolution) -> np.ndarray:
    """Vectorised :func:`check_impossible` (boards of at most 64 cells).

    Returns
    -------
    ndarray of bool, shape (k,)
        True where an Impossible answer has no proof: for some goal board no
        consistency row of the algebra (each re-checked against every press mask)
        meets ``board ^ goal`` in an odd number of cells.  O(k * nullity * goals).
    """
    infeasible = batch.status == Status.INFEASIBLE
    if not infeasible.any():
        return np.zeros(len(batch), dtype=bool)
    try:
        rows = consistency_rows(game)
    except BoardTooLargeError:
        return np.zeros(len(batch), dtype=bool)
    rows = [c for c in rows if not any((m & c).bit_count() & 1 for m in game.press_masks)]
    proved = np.ones(len(batch), dtype=bool)
    for target in game.targets:
        diff = batch.boards.astype(np.uint64) ^ np.uint64(target)
        odd = np.zeros(len(batch), dtype=bool)
        for c in rows:
            odd |= (np.bitwise_count(diff & np.uint64(c)) & 1).astype(bool)
        proved &= odd
    return infeasible & ~proved


def check_batch(game: Game, batch: BatchSolution) -> np.ndarray:
    """Vectorised :func:`check_solution`.

    Returns
    -------
    ndarray of bool, shape (k,)
        True where the answer fails a check.  O(k n).
    """
    ok_status = batch.status == Status.OPTIMAL
    presses = batch.presses.astype(np.uint64)
    after = game.apply_many(batch.boards, presses)
    is_goal = np.isin(batch.target, np.array(game.targets, dtype=np.uint64))
    fits = presses <= np.uint64(game.full) if game.n < 64 else np.ones(len(presses), dtype=bool)
    good_optimal = fits & is_goal & (after == batch.target) & (
        np.bitwise_count(presses).astype(np.int16) == batch.moves
    )
    good_other = batch.moves == NO_MOVES
    return np.where(ok_status, ~good_optimal, ~good_other)


def check_system_solution(system: PressSystem, board, solution: SystemSolution) -> str | None:
    """Why a press-system answer is not valid for ``board``, or None: the press counts are
    re-applied by :meth:`flipgame.model.system.PressSystem.apply` (over Z_k or the integers), must
    reach the goal board claimed, which must be a goal, and must sum to the claimed moves.
    O(sum of button sizes)."""
    if solution.status is not Status.OPTIMAL:
        return None if solution.moves is None else "a non-OPTIMAL answer carries a number"
    presses = solution.presses
    if len(presses) != system.m or any(p < 0 or (system.states and p >= system.states) for p in presses):
        top = f"0..{system.states - 1}" if system.states else ">= 0"
        return f"press counts {presses} are not {system.m} counts {top}"
    if sum(presses) != solution.moves:
        return f"claims {solution.moves} presses but the counts sum to {sum(presses)}"
    if tuple(solution.target) not in system.targets(board):
        return f"target {solution.target} is not a goal board of goal {system.goal!r}"
    after = system.apply(board, presses)
    if after != tuple(solution.target):
        return f"pressing the witness gives {after}, not the claimed target {solution.target}"
    return None


def check_system_certificate(system: PressSystem, board, target, certificate) -> str | None:
    """Why ``certificate`` (n integers c) does not prove ``target`` unreachable from ``board`` over
    Z_k, or None: every button must satisfy ``sum_i c_i A[i, j] = 0 (mod k)`` -- checked from the
    buttons' (cell, amount) lists, not a solver's matrix -- while ``c . (target - board) != 0``.
    Then every press vector changes ``c . board`` by 0 mod k, so no press vector closes the gap."""
    k = system.states
    if k is None:
        return "counters have no modular certificate"
    if len(certificate) != system.cells:
        return f"certificate has {len(certificate)} entries, the system {system.cells} cells"
    for j, button in enumerate(system.buttons):
        if sum(certificate[c] * a for c, a in button) % k:
            return f"button {j} changes the certificate's sum (mod {k})"
    if not sum(c * (t - b) for c, t, b in zip(certificate, target, board, strict=False)) % k:
        return "the certificate's sum of (target - board) is 0 mod k"
    return None


def check_system_batch(system: PressSystem, batch: SystemBatch) -> np.ndarray:
    """Vectorised :func:`check_system_solution`: bool array shape (b,), True where an answer fails.

    The matrix is rebuilt here from the buttons' (cell, amount) lists, not taken from a solver.
    An OPTIMAL answer must have counts in range summing to its moves and reach its target, which
    must be a goal; any other answer must carry no number.  O(b n m).
    """
    a = np.zeros((system.cells, system.m), dtype=np.int64)
    for j, button in enumerate(system.buttons):
        for cell, amount in button:
            a[cell, j] += amount
    presses = np.asarray(batch.presses, dtype=np.int64)
    after = np.asarray(batch.boards, dtype=np.int64) + presses @ a.T
    top = system.states if system.states else np.iinfo(np.int64).max
    if system.states:
        after %= system.states
    goals = np.array(system.targets(), dtype=np.int64)
    target = np.asarray(batch.target, dtype=np.int64)
    is_goal = (target[:, None, :] == goals[None, :, :]).all(axis=2).any(axis=1)
    good = ((presses >= 0) & (presses < top)).all(axis=1) & (presses.sum(axis=1) == batch.moves) & is_goal & (
        after == target).all(axis=1)
    optimal = batch.status == Status.OPTIMAL
    return np.where(optimal, ~good, batch.moves != NO_MOVES)

"""Independent witness and certificate checks: no backend is trusted on its own word.

A backend's OPTIMAL answer is accepted only if re-applying its press set with
the model's plain simulation (:meth:`flipgame.model.system.PressSystem.apply`,
on a grid :meth:`flipgame.model.grid.Game.apply` or its vectorised twin
``apply_many``) reaches the goal board it names, that board is a goal of the
game, and the press set has exactly the claimed number of presses.  A
non-OPTIMAL answer must carry no number.  An ``Impossible`` answer is accepted
only with a certificate per goal board (:func:`check_impossible`): a vector
``c`` with ``c^T A = 0`` and ``c . (goal - board) != 0`` (mod k), checked from
the buttons themselves.  Counters have no such certificate: their Impossible
stays the backends' word, checked by agreement.  Minimality is checked by
agreement between independent backends (:mod:`flipgame.verify.run.harness`)
and by proofs (:mod:`flipgame.verify.proofs.certify`).

One set of checks serves every press system: two states with bitmasks, k
states and counters with tuples (:mod:`flipgame.model.system`).

Source: the same idea as scipy's ``_check_result`` and networkx's
``validate_flows``.
"""

from __future__ import annotations

import numpy as np

from flipgame.algebra.gf2 import certificates, consistency_rows
from flipgame.algebra.zk import certificates as zk_certificates
from flipgame.backends.result import NO_MOVES, BatchSolution, Solution, Status
from flipgame.core.errors import BoardTooLargeError
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


def check_certificate(game: PressSystem, board, target, certificate) -> str | None:
    """Why ``certificate`` does not prove ``target`` unreachable from ``board``, or ``None``.

    Two states: a set of cells ``c`` (a bitmask) such that every press flips an even number of
    cells of ``c`` (checked against each press mask of the model), while ``board ^ target`` has an
    odd number of cells in ``c``: every press set then changes an even number of ``c``'s cells,
    never an odd number.  O(m n / w).  Over Z_k: n integers ``c`` with ``sum_i c_i A[i, j] = 0
    (mod k)`` for every button j (from its (cell, amount) list, not a solver's matrix) while
    ``c . (target - board) != 0``: every press vector changes ``c . board`` by 0 mod k, so none
    closes the gap.  O(entries).
    """
    if game.binary:
        if not isinstance(certificate, int) or not 0 < certificate <= game.full:
            return f"certificate {certificate} is not a non-empty {game.size} bitmask"
        odd = [j for j, m in enumerate(game.press_masks) if (m & certificate).bit_count() & 1]
        if odd:
            return f"press {odd[0]} flips an odd number of the certificate's cells"
        if not ((board ^ target) & certificate).bit_count() & 1:
            return "the certificate overlaps the cells to change in an even number"
        return None
    k = game.states
    if k is None:
        return "counters have no modular certificate"
    if len(certificate) != game.cells:
        return f"certificate has {len(certificate)} entries, the system {game.cells} cells"
    for j, button in enumerate(game.buttons):
        if sum(certificate[c] * a for c, a in button) % k:
            return f"button {j} changes the certificate's sum (mod {k})"
    if not sum(c * (t - b) for c, t, b in zip(certificate, target, board, strict=True)) % k:
        return f"the certificate's sum of (target - board) is 0 mod {k}"
    return None


def check_impossible(game: PressSystem, board, solution: Solution) -> str | None:
    """Why an Impossible answer is not proved, or ``None`` (also for any other status).

    Each goal board's certificate must pass :func:`check_certificate`.  An answer without
    certificates is looked up in the algebra (:func:`flipgame.algebra.gf2.certificates`,
    :func:`flipgame.algebra.zk.certificates`), which finds none exactly when a goal board is
    reachable: then the answer is wrong.  Boards the algebra does not take (no plus rules and over
    its dense limit) and counters pass unproved.  O(n^2 / w) per goal board on two states.
    """
    if solution.status is not Status.INFEASIBLE or game.states is None:
        return None
    found = solution.certificates
    if found is None:
        try:
            found = certificates(game, board) if game.binary else zk_certificates(game, board)
        except BoardTooLargeError:
            return None
        if found is None:
            return (f"says Impossible, but a goal board is reachable (no {'parity ' if game.binary else ''}"
                    f"certificate exists)")
    for target, cert in found.items():
        if problem := check_certificate(game, board, target, cert):
            return f"its certificate for goal board {target} is wrong: {problem}"
    return None


def check_batch_impossible(game: PressSystem, batch: BatchSolution) -> np.ndarray:
    """Vectorised :func:`check_impossible` (two states, at most 64 cells; per board otherwise).

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
    if not game.binary:
        return np.array([bool(infeasible[i] and check_impossible(game, _row(batch.boards[i]), batch[i]))
                         for i in range(len(batch))], dtype=bool)
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


def check_batch(game: PressSystem, batch: BatchSolution) -> np.ndarray:
    """Vectorised :func:`check_solution`.

    Returns
    -------
    ndarray of bool, shape (k,)
        True where the answer fails a check.  O(k n) on two states, O(k n m) beyond.
    """
    if not game.binary:
        return _check_rows(game, batch)
    ok_status = batch.status == Status.OPTIMAL
    presses = batch.presses.astype(np.uint64)
    after = _apply_masks(game, batch.boards, presses)
    is_goal = np.isin(batch.target, np.array(game.targets, dtype=np.uint64))
    fits = presses < np.uint64(1 << game.m) if game.m < 64 else np.ones(len(presses), dtype=bool)
    good_optimal = fits & is_goal & (after == batch.target) & (
        np.bitwise_count(presses).astype(np.int16) == batch.moves
    )
    good_other = batch.moves == NO_MOVES
    return np.where(ok_status, ~good_optimal, ~good_other)


def _apply_masks(game: PressSystem, boards: np.ndarray, presses: np.ndarray) -> np.ndarray:
    """The boards after the press sets (uint64 arrays), from the model's press masks.  O(k m)."""
    out = np.asarray(boards, dtype=np.uint64).copy()
    for j, mask in enumerate(game.press_masks):
        out ^= ((presses >> np.uint64(j)) & np.uint64(1)) * np.uint64(mask)
    return out


def _row(values) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def _check_rows(system: PressSystem, batch: BatchSolution) -> np.ndarray:
    """:func:`check_batch` beyond two states: bool array shape (b,), True where an answer fails.

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
    goals = np.array(system.targets, dtype=np.int64)
    target = np.asarray(batch.target, dtype=np.int64)
    is_goal = (target[:, None, :] == goals[None, :, :]).all(axis=2).any(axis=1)
    good = ((presses >= 0) & (presses < top)).all(axis=1) & (presses.sum(axis=1) == batch.moves) & is_goal & (
        after == target).all(axis=1)
    optimal = batch.status == Status.OPTIMAL
    return np.where(optimal, ~good, batch.moves != NO_MOVES)

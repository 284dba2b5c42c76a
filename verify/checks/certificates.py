"""Independent checks of ``Impossible``: every such answer needs a certificate, checked from the buttons.

A certificate for goal board ``t`` is a vector ``c`` with ``c^T A = 0`` and ``c . (t - board) != 0``
(mod k): every press changes ``c . board`` by 0, so no press set closes the gap.  On two states ``c``
is a set of cells (a bitmask) that every press flips an even number of times while ``board ^ t`` meets
it in an odd number.  :func:`check_certificate` checks one against the press masks themselves (over
Z_k against the buttons' (cell, amount) lists), never against a solver's data.

:func:`uncertified` is the one search for certificates, for one board or a whole batch: two states
from the consistency rows of the algebra (each re-checked against every press mask first; vectorised
up to 64 cells), k states from the diagonal form over Z_k (each certificate checked by
:func:`check_certificate`).  An answer without a certificate is wrong exactly when the algebra finds
none, since the algebra finds one whenever every goal board is unreachable.  Counters have no such
certificate (their Impossible is the backends' word, checked by agreement), and neither do systems the
algebra does not take: those answers are *unchecked*, and the reason says why.

Source: the parity argument of Anderson & Feil, "Turning Lights Out with Linear Algebra", Math.
Magazine 71(4), 1998 (a vector of the left null space of the press matrix); the check-the-proof idea
of scipy's ``_check_result`` and networkx's ``validate_flows``.
"""

from __future__ import annotations

import numpy as np

from flipgame.algebra.gf2 import consistency_rows
from flipgame.algebra.zk import certificates as zk_certificates
from flipgame.core.errors import BoardTooLargeError
from flipgame.model.system import PressSystem
from flipgame.verify.checks.words import certificate_problem


def check_certificate(game: PressSystem, board, target, certificate) -> str | None:
    """Why ``certificate`` does not prove ``target`` unreachable from ``board``, or ``None``.

    Two states: a set of cells ``c`` (a bitmask) such that every press flips an even number of
    cells of ``c`` (checked against each press mask of the model), while ``board ^ target`` has an
    odd number of cells in ``c``.  O(m n / w).  Over Z_k: n integers ``c`` with ``sum_i c_i A[i, j] = 0
    (mod k)`` for every button j (from its (cell, amount) list) while ``c . (target - board) != 0``.
    O(entries).
    """
    if game.binary:
        if not isinstance(certificate, int) or not 0 < certificate <= game.full:
            return f"certificate {certificate} is not a non-empty {game.size} bitmask"
        if problem := certificate_problem(game.press_masks, certificate):
            return problem
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


def attached_problem(game: PressSystem, board, certificates) -> str | None:
    """Why the certificates an answer carries (goal board -> certificate) do not prove it, or None."""
    missing = [t for t in game.targets if t not in certificates]
    if missing:
        return f"it carries no certificate for goal board {missing[0]}"
    for target, cert in certificates.items():
        if problem := check_certificate(game, board, target, cert):
            return f"its certificate for goal board {target} is wrong: {problem}"
    return None


def _parity_rows(game: PressSystem) -> list[int]:
    """The algebra's consistency rows of a two-state ``game``, each kept only if every press mask meets it
    in an even number of cells (so the elimination is not trusted either).  Raises BoardTooLargeError."""
    return [c for c in consistency_rows(game) if not any((m & c).bit_count() & 1 for m in game.press_masks)]


def _proved_bitmasks(game: PressSystem, boards: np.ndarray) -> np.ndarray:
    """bool shape (k,): True where every goal board has a parity row meeting ``board ^ goal`` oddly."""
    rows = _parity_rows(game)
    if boards.dtype == object:  # Python ints above 64 cells: per board
        return np.array([all(any(((int(b) ^ t) & c).bit_count() & 1 for c in rows) for t in game.targets)
                         for b in boards], dtype=bool).reshape(len(boards))
    proved = np.ones(len(boards), dtype=bool)
    for target in game.targets:
        diff = boards.astype(np.uint64) ^ np.uint64(target)
        odd = np.zeros(len(boards), dtype=bool)
        for c in rows:
            odd |= (np.bitwise_count(diff & np.uint64(c)) & 1).astype(bool)
        proved &= odd
    return proved


def _proved_states(game: PressSystem, boards: np.ndarray) -> np.ndarray:
    """bool shape (k,): True where the diagonal form over Z_k gives a certificate per goal that
    :func:`check_certificate` accepts.  O(n^2) per board."""
    out = np.zeros(len(boards), dtype=bool)
    for i, row in enumerate(boards):
        board = tuple(int(v) for v in row)
        certs = zk_certificates(game, board)
        out[i] = certs is not None and all(check_certificate(game, board, t, c) is None for t, c in certs.items())
    return out


def uncertified(game: PressSystem, boards: np.ndarray, infeasible: np.ndarray) -> tuple[np.ndarray, str | None]:
    """Which Impossible answers have no certificate: the one search for single boards and batches.

    Parameters
    ----------
    game : PressSystem
    boards : ndarray
        uint64 shape (k,), an object array of Python ints, or rows of states shape (k, n).
    infeasible : ndarray of bool, shape (k,)
        The boards answered Impossible (the others are not looked at).

    Returns
    -------
    (ndarray of bool shape (k,), str or None)
        True where an Impossible answer has no certificate (a goal board is reachable: the answer is
        wrong), and, when no certificate can be looked for (counters, or rules the algebra does not
        take at this size), None in the mask for those boards and the reason.

    Running time: O(k * nullity * goals) on two states after the cached elimination; O(n^2) per
    Impossible board over Z_k.
    """
    bad = np.zeros(len(boards), dtype=bool)
    if not infeasible.any():
        return bad, None
    if game.states is None:
        return bad, "counters have no modular certificate"
    idx = np.flatnonzero(infeasible)
    try:
        proved = _proved_bitmasks(game, boards[idx]) if game.binary else _proved_states(game, boards[idx])
    except BoardTooLargeError as exc:
        return bad, f"no certificate is built ({exc})"
    bad[idx] = ~proved
    return bad, None

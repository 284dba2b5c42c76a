"""The clauses alive after a range of proof steps: what one piece of a proof check carries to the next.

:func:`alive_guess` works them out vectorised, matching clauses by a 64-bit hash: only a guess,
which the checker must accept clause by clause (:mod:`flipgame.verify.proofs.proof_check`).
:func:`alive_exact` works them out step by step, additions counted and each deletion removing one
present copy: the sets a verdict falls back on when a guess fails.
"""

from __future__ import annotations

import numpy as np

from flipgame.verify.proofs.drat import Proof
from flipgame.verify.proofs.engine import Steps, internal


def alive_guess(base: list[list[int]], proof: Proof, ends: np.ndarray, first: int, last: int) -> list[list[int]]:
    """The clauses alive after steps ``first .. last - 1`` (``base`` alive before them), matched by a
    64-bit hash of each sorted clause: vectorised, and only a guess (the checker must accept each
    clause of it)."""
    import itertools

    lo = int(ends[first - 1]) + 1 if first else 0
    step_flat = internal(proof.lits[lo:int(ends[last - 1]) + 1])
    base_len = np.fromiter(map(len, base), dtype=np.int64, count=len(base))
    base_flat = np.fromiter(itertools.chain.from_iterable(base), dtype=np.int64, count=int(base_len.sum()))
    flat = np.concatenate((base_flat, step_flat))
    step_starts = np.concatenate(([0], ends[first:last - 1] - lo + 1))
    starts = np.concatenate((np.cumsum(base_len) - base_len, step_starts + len(base_flat)))
    lengths = np.concatenate((base_len, ends[first:last] - lo - step_starts))
    weights = np.concatenate((np.ones(len(base), np.int64), np.where(proof.deletions[first:last], -1, 1)))
    hashes = np.empty(len(lengths), dtype=np.uint64)
    group = np.empty(len(lengths), dtype=np.int64)
    row = np.empty(len(lengths), dtype=np.int64)
    mats = []
    for g, length in enumerate(np.unique(lengths).tolist()):
        idx = np.flatnonzero(lengths == length)
        mat = np.sort(flat[starts[idx, None] + np.arange(length)], axis=1)
        if length > 1:  # a clause with a repeated literal or a tautology is left out of the guess
            odd = np.any((mat[:, 1:] == mat[:, :-1]) | ((mat[:, 1:] == mat[:, :-1] + 1) & (mat[:, :-1] % 2 == 0)), 1)
            weights[idx[odd]] = 0
        hashes[idx], group[idx], row[idx] = _row_hash(mat), g, np.arange(len(idx))
        mats.append(mat)
    uniq, inverse = np.unique(hashes, return_inverse=True)
    net = np.bincount(inverse, weights=weights, minlength=len(uniq)).astype(np.int64)
    witness = np.full(len(uniq), -1, dtype=np.int64)  # per hash, an addition of a clause with it
    added = np.flatnonzero(weights > 0)
    witness[inverse[added]] = added
    alive = np.flatnonzero((net > 0) & (witness >= 0))
    items, copies = witness[alive], net[alive]
    out: list[list[int]] = []
    for g, mat in enumerate(mats):
        mine = group[items] == g
        for clause, k in zip(mat[row[items[mine]]].tolist(), copies[mine].tolist(), strict=True):
            out.extend([clause] * k)
    return out


def _row_hash(mat: np.ndarray) -> np.ndarray:
    """A 64-bit hash per row of ``mat`` (FNV-1a over the literals, seeded with the length)."""
    with np.errstate(over="ignore"):
        h = np.full(len(mat), 14695981039346656037 ^ mat.shape[1], dtype=np.uint64)
        for col in mat.T:
            h = (h ^ col.astype(np.uint64)) * np.uint64(1099511628211)
    return h


def alive_exact(base: list[list[int]], proof: Proof, ends: np.ndarray, first: int, last: int) -> list[list[int]]:
    """The clauses alive after steps ``first .. last - 1``, step by step (additions counted,
    deletions removing one present copy each)."""
    counts: dict[tuple[int, ...], int] = {}
    for c in base:
        key = tuple(c)
        counts[key] = counts.get(key, 0) + 1
    for deletion, lits in Steps(proof, ends, first, last):
        key = tuple(sorted(set(lits)))
        if not deletion:
            counts[key] = counts.get(key, 0) + 1
        elif counts.get(key):
            counts[key] -= 1
    return [list(c) for c, k in counts.items() for _ in range(k)]

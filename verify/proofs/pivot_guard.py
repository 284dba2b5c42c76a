"""Which steps of a piece dratify's RAT check may not see whole, and how they are checked instead.

dratify 0.1.10 keeps the root literal a deleted clause propagated while its RAT check no longer sees the
clause (:mod:`flipgame.verify.proofs.engine`).  A RAT step on pivot ``p`` can meet that only when a clause
holding ``-p`` was deleted before it in the piece (each piece's checker starts afresh).  Such an addition
(its first literal *exposed*) is checked as ``z C`` instead of ``C``, with a fresh ``z`` made false by a step
``-z`` at the head of the piece: ``z C`` is RUP, or RAT on ``z`` against the unit ``-z`` alone, exactly when
``C`` is RUP, and it acts as ``C`` once stored.  Deletions of such a clause are rewritten the same way (found by
an order-free hash of the literal set; a miss only keeps a clause alive, which is sound).  RAT on a pivot that no
deleted clause held stays as it was: the definitions of fresh variables in a parity proof are never exposed.
Sound for any proof; a proof that needed RAT on an exposed pivot is rejected (none of flipgame's).

Source: Rebola-Pardo and Biere, "Two flavors of DRAT", Pragmatics of SAT 2018 (the unit-deletion problem).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flipgame.verify.proofs.drat import Proof

HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
"""Fibonacci hashing of one internal literal; a clause's key is the sum over its literals (order-free)."""


@dataclass(frozen=True)
class Guard:
    """Per step of a piece (``first .. last - 1``): ``wrapped[i]`` for step ``first + i`` checked as ``z C``; ``z``
    the internal literal of the fresh variable (``z ^ 1`` is ``-z``)."""

    wrapped: np.ndarray
    z: int


def internal(lits: np.ndarray) -> np.ndarray:
    """DIMACS literals -> dratify's internal literals ``2 (v - 1) + sign`` (a 0 stays a 0 marker: -1)."""
    lits = lits.astype(np.int64)
    return np.where(lits != 0, 2 * (np.abs(lits) - 1) + (lits < 0), -1)


def guard(proof: Proof, ends: np.ndarray, first: int, last: int, top: int, chunk: int) -> Guard:
    """The :class:`Guard` of steps ``first .. last - 1`` whose variables are at most ``top``; one pass over the
    literals, ``chunk`` steps at a time.  O(literals) time, O(2 top + steps) memory."""
    first_deleted = np.full(2 * top + 2, np.iinfo(np.int64).max)  # per internal literal: the first deletion holding it
    exposed, keys = np.zeros(last - first, dtype=bool), np.zeros(last - first, dtype=np.uint64)
    for a in range(first, last, chunk):
        b = min(last, a + chunk)
        lo = int(ends[a - 1]) + 1 if a else 0
        lits = internal(proof.lits[lo:int(ends[b - 1]) + 1])
        sizes = np.diff(np.concatenate(([lo - 1], ends[a:b]))).astype(np.int64)
        step = np.repeat(np.arange(a, b), sizes)
        deletion = proof.deletions[a:b]
        held = lits >= 0
        gone = held & deletion[step - a]
        np.minimum.at(first_deleted, lits[gone], step[gone])
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        additions = np.flatnonzero(~deletion & (sizes > 1))
        pivots = lits[starts[additions]]
        exposed[additions + a - first] = first_deleted[pivots ^ 1] < additions + a
        hashed = np.where(held, (lits + 1).astype(np.uint64) * HASH_MULTIPLIER, np.uint64(0))
        keys[a - first:b - first] = np.add.reduceat(hashed, starts)
    return Guard(exposed | _deleting_wrapped(keys, proof.deletions[first:last], exposed), 2 * top)  # z: top + 1


def _deleting_wrapped(keys: np.ndarray, deletions: np.ndarray, exposed: np.ndarray) -> np.ndarray:
    """Per step: a deletion whose clause (by ``keys``) was last added, before it, as an exposed addition, so it must
    be deleted as ``z C`` too.  One sort of the steps by (key, step), O(steps log steps)."""
    order = np.lexsort((np.arange(len(keys)), keys))
    sorted_keys, added = keys[order], ~deletions[order]
    last_added = np.maximum.accumulate(np.where(added, np.arange(len(keys)), -1))
    group_start = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    starts = group_start[np.searchsorted(group_start, np.arange(len(keys)), side="right") - 1]
    hit = ~added & (last_added >= starts) & exposed[order][np.maximum(last_added, 0)]
    out = np.zeros(len(keys), dtype=bool)
    out[order[hit]] = True
    return out


def wrap_chunk(flat: np.ndarray, starts: np.ndarray, stops: np.ndarray, wrapped: np.ndarray, z: int):
    """``flat`` (internal literals, -1 markers) with ``z`` put before every wrapped step, and the steps'
    new ``starts`` and ``stops``."""
    before = np.cumsum(wrapped) - wrapped
    flat = np.insert(flat, starts[wrapped], z)
    return flat, starts + before, stops + before + wrapped

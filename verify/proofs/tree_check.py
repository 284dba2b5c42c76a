"""The check of a branch-and-bound certificate of a lower bound: exact, no SAT checker, no flipgame code.

Claim: every press set ``x`` with ``A x = diff`` (``A``: the press masks, over GF(2)) has at least ``L``
presses.  Certificate: a press set ``x0``, press sets ``n_0 .. n_{d-1}``, and the closed nodes of a
binary tree over ``f`` in GF(2)^d, a node ``(t, alpha)`` standing for the ``f`` whose first ``t``
coordinates are the bits of ``alpha``.  Press ``j`` of ``x0 ^ sum f_i n_i`` is ``c_j xor K_j . f``, with
``c_j`` bit ``j`` of ``x0`` and ``K_j`` (its *key*) the bits ``j`` of the ``n_i``.  Checked here:

1. ``A x0 = diff`` and ``A n_i = 0``, by XOR of the press masks;
2. the ``n_i`` are independent and ``d`` is the nullity of ``A`` (this module's own elimination, rows
   packed 64 columns to a word), so ``x0 + span(n_i)`` is every solution;
3. the closed nodes tile GF(2)^d: read as intervals of the integers whose leading bits are ``f``'s first
   coordinates, they follow one another from 0 to ``2**d`` with no gap and no overlap;
4. at every closed node, with ``f``'s first ``t`` coordinates fixed, the presses whose keys agree on the
   other ``d - t`` coordinates take one unknown value ``e`` (the key's product with them) plus a known
   constant, so a class of ``h1`` presses whose constant is 1 and ``h0`` whose constant is 0 holds at least
   ``min(h0, h1)`` presses (exactly ``h1`` when its keys are 0 there); the sum over the classes is at
   least ``L``.

Every solution lies under exactly one closed node (2, 3) and holds at least that node's sum (4).
This module imports nothing from flipgame; the certificate comes from :mod:`flipgame.encode.bnb`.

Sources: the one-dimensional coset-leader bound (MacWilliams and Sloane, *The Theory of
Error-Correcting Codes*, 1977, ch. 1); checking a certificate rather than trusting the search,
as in R. M. McConnell, K. Mehlhorn, S. Naher and P. Schweitzer, "Certifying algorithms",
Computer Science Review 5(2), 2011.
"""

from __future__ import annotations

import json
import operator
import os
import sys
from collections.abc import Sequence

import numpy as np

MAX_NULLITY = 62
"""The largest ``d`` taken: keys and interval ends are 64-bit words."""
MAX_CELLS = 1 << 16
"""The most cells, and presses, taken: the rank's packed rows need ``cells * presses / 8`` bytes (512 MiB here)."""
BATCH_NODES = 256
"""Closed nodes whose class sums one array operation computes (memory: this times the presses, bytes)."""


def _apply(masks: Sequence[int], presses: int) -> int:
    """The cells a press set changes: XOR of its presses' masks."""
    out, j = 0, 0
    while presses:
        if presses & 1:
            out ^= masks[j]
        presses >>= 1
        j += 1
    return out


def _rank(vectors: Sequence[int], width: int) -> int:
    """Rank over GF(2) of ``vectors`` (ints below ``2**width``): Gaussian elimination on rows packed 64
    bits to a word, O(width * rows * width / 64) word operations."""
    if not vectors:
        return 0
    words = max(1, (width + 63) // 64)
    low = (1 << width) - 1  # bits past the last column are no column: the rank ignores them
    rows = np.array([np.frombuffer((v & low).to_bytes(words * 8, "little"), dtype=np.uint64) for v in vectors],
                    dtype=np.uint64).reshape(len(vectors), words)
    rank, one = 0, np.uint64(1)
    for col in range(width):
        w, bit = col // 64, np.uint64(col % 64)
        hits = np.flatnonzero((rows[rank:, w] >> bit) & one)
        if len(hits) == 0:
            continue
        if hits[0]:
            rows[[rank, rank + hits[0]]] = rows[[rank + hits[0], rank]]
        below = np.flatnonzero((rows[rank + 1:, w] >> bit) & one) + rank + 1
        rows[below] ^= rows[rank]
        rank += 1
        if rank == len(vectors):
            break
    return rank


def _tiling_problem(closed: Sequence[tuple[int, int]], d: int) -> str | None:
    """Why the closed nodes do not tile GF(2)^d (check 3), or None."""
    starts, sizes = [], []
    for t, alpha in closed:
        if not 0 <= t <= d or not 0 <= alpha < 1 << t:
            return f"closed node ({t}, {alpha}) is not a node of a tree over {d} coordinates"
        reversed_alpha = int(format(alpha, f"0{t}b")[::-1], 2) if t else 0
        starts.append(reversed_alpha << (d - t))
        sizes.append(1 << (d - t))
    order = sorted(range(len(starts)), key=starts.__getitem__)
    at = 0
    for i in order:
        if starts[i] != at:
            return (f"the closed nodes leave out part of the tree (the node at {at:#x} of 2**{d})" if starts[i] > at
                    else "two closed nodes overlap")
        at += sizes[i]
    return None if at == 1 << d else f"the closed nodes leave out part of the tree (they cover {at} of 2**{d})"


def _keys(null_vectors: Sequence[int], m: int) -> np.ndarray:
    """Press ``j``'s key: bit ``i`` is bit ``j`` of ``null_vectors[i]``."""
    keys = np.zeros(m, dtype=np.uint64)
    for i, v in enumerate(null_vectors):
        bits = np.unpackbits(np.frombuffer(v.to_bytes((m + 7) // 8, "little"), dtype=np.uint8), bitorder="little")
        keys |= bits[:m].astype(np.uint64) << np.uint64(i)
    return keys


def _weak_node(keys: np.ndarray, const: np.ndarray, t: int, alphas: list[int], at_least: int) -> int | None:
    """The first of the closed nodes ``alphas`` of depth ``t`` whose class sum (check 4) is below
    ``at_least``, or None."""
    prefixes, inverse = np.unique(keys >> np.uint64(t), return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(len(prefixes)))
    sizes = np.bincount(inverse, minlength=len(prefixes))
    zero, keys, const = prefixes == 0, keys[order], const[order]
    for b in range(0, len(alphas), BATCH_NODES):
        batch = np.array(alphas[b:b + BATCH_NODES], dtype=np.uint64)
        parity = np.bitwise_count(keys[None, :] & batch[:, None]) & np.uint8(1)
        values = (const[None, :] ^ parity).astype(np.int32)
        ones = np.add.reduceat(values, starts, axis=1)
        least = np.where(zero[None, :], ones, np.minimum(ones, sizes[None, :] - ones)).sum(axis=1)
        if (least < at_least).any():
            return int(batch[np.flatnonzero(least < at_least)[0]])
    return None


def _coset_problem(press_masks: Sequence[int], cells: int, diff: int, x0: int,
                   null_vectors: Sequence[int]) -> str | None:
    """Why ``x0 + span(null_vectors)`` is not every press set changing exactly ``diff`` (checks 1 and 2),
    or None."""
    m, d = len(press_masks), len(null_vectors)
    if d > MAX_NULLITY:
        return f"{d} null vectors: at most {MAX_NULLITY} are taken"
    if any(not 0 <= v < 1 << m for v in (x0, *null_vectors)):
        return f"a press set of the certificate does not fit {m} presses"
    if _apply(press_masks, x0) != diff:
        return "x0 does not change exactly the cells to change"
    if any(_apply(press_masks, v) for v in null_vectors):
        return "a null vector changes some cell"
    if _rank(null_vectors, m) != d:
        return "the null vectors are not independent"
    nullity = m - _rank(press_masks, cells)
    if nullity != d:
        return f"the press masks have nullity {nullity}, not {d}: the certificate misses solutions"
    return None


def _plain(press_masks, cells, diff, at_least, x0, null_vectors, closed) -> tuple:
    """Every argument as Python ints, lists and pairs (an iterator read once, numpy scalars of mixed types made
    exact, a float or NaN refused).  Raises TypeError or ValueError naming what is wrong."""
    def integer(value, what: str) -> int:
        try:
            if isinstance(value, bool):  # true is no bound of 1
                raise TypeError
            return operator.index(value)
        except TypeError:
            raise TypeError(f"{what} is not an integer: {value!r:.40}") from None

    masks = [integer(v, "a press mask") for v in press_masks]
    cells = integer(cells, "the number of cells")
    if not 1 <= cells <= MAX_CELLS or len(masks) > MAX_CELLS:
        raise ValueError(f"{cells} cells and {len(masks)} presses: 1 to {MAX_CELLS} of each are taken")
    if any(v < 0 for v in masks):
        raise ValueError("a press mask is negative")
    if any(v.bit_length() > cells for v in masks):
        raise ValueError(f"a press mask changes a cell past the board's {cells}")
    nodes = []
    for node in closed:
        if len(node) != 2:
            raise ValueError(f"a closed node is not a pair (t, alpha): {node!r}")
        nodes.append((integer(node[0], "a closed node's depth"), integer(node[1], "a closed node's alpha")))
    return (masks, cells, integer(diff, "diff"), integer(at_least, "the bound"), integer(x0, "x0"),
            [integer(v, "a null vector") for v in null_vectors], nodes)


def check_tree(press_masks: Sequence[int], cells: int, diff: int, at_least: int, x0: int,
               null_vectors: Sequence[int], closed: Sequence[tuple[int, int]]) -> str | None:
    """Check that every press set changing exactly the cells ``diff`` has at least ``at_least`` presses.

    Parameters
    ----------
    press_masks : sequence of int
        ``press_masks[j]``: the cells press ``j`` changes (ints below ``2**cells``).
    cells : int
        Number of cells.
    diff : int
        ``board ^ goal``.
    at_least : int
        The lower bound ``L`` claimed.
    x0, null_vectors, closed
        The certificate (module notes): press sets as ints, closed nodes as ``(t, alpha)``.

    Returns
    -------
    str or None
        None when the certificate proves the bound, else the first failed check in one line.

    Running time O(m * cells**2 / 64) word operations for the rank, then O(closed nodes * m) for
    the class sums (numpy), on ``m`` presses.
    """
    try:
        press_masks, cells, diff, at_least, x0, null_vectors, closed = _plain(
            press_masks, cells, diff, at_least, x0, null_vectors, closed)
    except (TypeError, ValueError) as exc:
        return f"a malformed certificate: {exc}"
    m, d = len(press_masks), len(null_vectors)
    if problem := _coset_problem(press_masks, cells, diff, x0, null_vectors):
        return problem
    if problem := _tiling_problem(closed, d):
        return problem
    keys = _keys(null_vectors, m)
    const = np.unpackbits(np.frombuffer(x0.to_bytes((m + 7) // 8, "little"), dtype=np.uint8),
                          bitorder="little")[:m]
    by_depth: dict[int, list[int]] = {}
    for t, alpha in closed:
        by_depth.setdefault(t, []).append(alpha)
    for t, alphas in sorted(by_depth.items()):
        if (weak := _weak_node(keys, const, t, alphas, at_least)) is not None:
            return f"the closed node ({t}, {weak}) holds solutions of fewer than {at_least} presses by its class bound"
    return None


def write_tree_file(path, claim: str, press_masks: Sequence[int], cells: int, diff: int, at_least: int, x0: int,
                    null_vectors: Sequence[int], closed: Sequence[tuple[int, int]]) -> None:
    """Write a certificate as JSON for :func:`check_tree_file`: press sets and masks in hexadecimal, the closed
    nodes' alphas grouped by depth.  Raises OSError."""
    by_depth: dict[str, list[str]] = {}
    for t, alpha in closed:
        by_depth.setdefault(str(t), []).append(format(alpha, "x"))
    data = {"claim": claim, "cells": cells, "diff": format(diff, "x"), "at_least": at_least,
            "press_masks": [format(v, "x") for v in press_masks], "x0": format(x0, "x"),
            "null_vectors": [format(v, "x") for v in null_vectors], "closed": by_depth}
    part = f"{path}.part"  # whole or not at all: a killed writer leaves no truncated certificate under its name
    with open(part, "w", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"))
    os.replace(part, path)


def check_tree_file(path) -> str | None:
    """:func:`check_tree` on a file of :func:`write_tree_file`: None when it proves its bound, and its ``claim``
    says that bound (``at least L presses``), else why not.  Raises OSError (unreadable)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        closed = [(int(t), int(a, 16)) for t, alphas in data["closed"].items() for a in alphas]
        why = check_tree([int(v, 16) for v in data["press_masks"]], data["cells"], int(data["diff"], 16),
                         data["at_least"], int(data["x0"], 16), [int(v, 16) for v in data["null_vectors"]], closed)
        bound = f"at least {data['at_least']} presses"
        if why is None and not str(data["claim"]).endswith(bound):
            return f"the claim {str(data['claim'])[-60:]!r} is not the bound proved: {bound}"
        return why
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return f"not a tree certificate file: {type(exc).__name__}: {str(exc)[:200]}"


def main(argv: list[str]) -> int:
    """``python -m flipgame.verify.proofs.tree_check FILE...``: one line per file; exit 0 when every bound holds,
    1 when one does not (or a file cannot be read), 2 without a file."""
    if not argv:
        print("usage: python -m flipgame.verify.proofs.tree_check FILE.tree.json...", file=sys.stderr)
        return 2
    failed = 0
    for name in argv:
        try:
            why = check_tree_file(name)
        except OSError as exc:
            why = f"cannot read it: {exc.strerror or exc}"
        print(f"{name}: {'the bound holds' if why is None else why}")
        failed += why is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The lower-bound formula of a minimality certificate, built from the press masks alone.

A claim "board ``b`` needs ``k`` presses" is proved minimal by refuting, for
every goal board ``t``, the CNF

    for every cell i:  XOR_{j : cell i in press_masks[j]} x_j  =  bit i of (b ^ t)
    AND  at most k - 1 of x_1 .. x_n are true

This module builds that CNF from ``press_masks`` alone.  It imports no solver
and no proof generator (:mod:`flipgame.encode.parity_proofs` and CaDiCaL are the
generators), so a bug in a generator can only make a proof fail, never make a
wrong claim pass.  :mod:`flipgame.verify.proofs.proof_check` checks the proofs.

The encoding
------------
* Press ``j`` (cell ``r * cols + c``) is DIMACS variable ``j + 1``.
* **Parity**: the XOR of cell ``i``'s flippers ``a_1 < ... < a_m`` (sorted
  press indices) is a *prefix chain* of Tseitin variables: ``P_1 = x_{a_1}``
  and ``P_j <-> P_{j-1} XOR x_{a_j}`` (four clauses of three literals, a fresh
  variable per ``j >= 2``, numbered cell by cell after the presses), then a
  unit clause fixing ``P_m`` to bit ``i`` of ``b ^ t``.  A cell no press flips
  gives the empty clause when its bit is 1.
* **At most k - 1**: Sinz's sequential counter (``seqcounter``: O(n k)
  clauses) while ``n * k`` is at most :data:`SEQ_COUNTER_MAX`, else a binary
  adder tree (``adder``: O(n) full adders, then one clause per zero bit of
  the bound).  Both fail by unit propagation once every press is fixed to a
  set of too many presses, which is what the parity proofs of
  :mod:`flipgame.encode.parity_proofs` end with.

Sources
-------
* Tseitin, "On the complexity of derivation in propositional calculus", 1968.
* Sinz, "Towards an optimal CNF encoding of Boolean cardinality constraints", CP 2005.
* Warners, "A linear-time transformation of linear inequalities into
  conjunctive normal form", IPL 68(2), 1998 (the adder encoding).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from flipgame.core.files import whole_file
from flipgame.verify.proofs.card_network import network_atmost

SEQ_COUNTER_MAX = 20_000
"""Largest ``n * bound`` encoded by the sequential counter; above it the adder tree (O(n) clauses)."""

@dataclass
class Formula:
    """The lower-bound CNF of one goal board, with the layout the proof generators need.

    Attributes
    ----------
    clauses : list of list of int
        DIMACS clauses.
    nvars : int
        Highest variable.
    n : int
        Press variables are ``1 .. n``.
    chains : list of (list of int, list of int, int)
        Per cell: its flippers (sorted press indices), the chain's prefix
        variables (``prefix[0]`` is the first flipper's press variable), and
        the bit the XOR must equal.
    encoding : str
        ``seqcounter``, ``adder``, ``network`` or ``none`` (bound of at least n).
    network : dict
        With ``network``: per trie node ``(level, prefix)`` its output variables
        (:func:`flipgame.verify.proofs.card_network.network_atmost`).
    """

    clauses: list[list[int]]
    nvars: int
    n: int
    chains: list[tuple[list[int], list[int], int]] = field(default_factory=list)
    encoding: str = "none"
    network: dict = field(default_factory=dict)


def xor_clauses(lits: list[int], parity: int) -> list[list[int]]:
    """Clauses of ``XOR(lits) == parity``: one per assignment of the wrong parity (2**(m-1))."""
    m = len(lits)
    out = []
    for a in range(1 << m):
        if a.bit_count() % 2 != parity:
            out.append([-lit if a >> i & 1 else lit for i, lit in enumerate(lits)])
    return out


def _chain(flippers: list[int], bit: int, top: int) -> tuple[list[list[int]], list[int], int]:
    """(clauses, prefix variables, new top) of cell's ``XOR(x_f for f in flippers) == bit``."""
    if not flippers:
        return ([[]] if bit else []), [], top
    prefix = [flippers[0] + 1]
    clauses: list[list[int]] = []
    for f in flippers[1:]:
        top += 1
        clauses += xor_clauses([top, prefix[-1], f + 1], 0)
        prefix.append(top)
    clauses.append([prefix[-1] if bit else -prefix[-1]])
    return clauses, prefix, top


def seq_counter(lits: list[int], bound: int, top: int) -> tuple[list[list[int]], int]:
    """Sinz's sequential counter for "at most ``bound`` of ``lits``": (clauses, new top).

    ``s(i, j)`` (i < m - 1, 1 <= j <= bound) means "at least j of lits[0..i]"; O(m * bound) clauses.
    """
    m = len(lits)
    if bound >= m:
        return [], top
    if bound == 0:
        return [[-x] for x in lits], top
    s = [[top + i * bound + j + 1 for j in range(bound)] for i in range(m - 1)]
    top += (m - 1) * bound
    out = [[-lits[0], s[0][0]]] + [[-s[0][j]] for j in range(1, bound)]
    for i in range(1, m - 1):
        x = lits[i]
        out += [[-x, s[i][0]], [-s[i - 1][0], s[i][0]]]
        for j in range(1, bound):
            out += [[-x, -s[i - 1][j - 1], s[i][j]], [-s[i - 1][j], s[i][j]]]
        out.append([-x, -s[i - 1][bound - 1]])
    out.append([-lits[m - 1], -s[m - 2][bound - 1]])
    return out, top


def _add_numbers(a: list[int], b: list[int], top: int, out: list[list[int]]) -> tuple[list[int], int]:
    """Binary sum (LSB first) of two numbers given as bit literals; adder clauses go to ``out``."""
    result = []
    carry = None
    for i in range(max(len(a), len(b))):
        bits = [v for v in (a[i] if i < len(a) else None, b[i] if i < len(b) else None, carry) if v is not None]
        if len(bits) == 1:
            result.append(bits[0])
            carry = None
            continue
        s, c = top + 1, top + 2
        top += 2
        out += xor_clauses(bits + [s], 0)
        if len(bits) == 2:  # half adder: c = a and b
            p, q = bits
            out += [[-p, -q, c], [p, -c], [q, -c]]
        else:  # full adder: c = majority
            p, q, r = bits
            out += [[-p, -q, c], [-p, -r, c], [-q, -r, c], [p, q, -c], [p, r, -c], [q, r, -c]]
        result.append(s)
        carry = c
    if carry is not None:
        result.append(carry)
    return result, top


def adder_atmost(lits: list[int], bound: int, top: int) -> tuple[list[list[int]], int]:
    """"At most ``bound`` of ``lits``" as a balanced tree of ripple-carry adders and a comparison
    with the constant: (clauses, new top).  O(m) adders; unit propagation computes the sum once
    every input is fixed."""
    if bound >= len(lits):
        return [], top
    out: list[list[int]] = []
    numbers = [[x] for x in lits]
    while len(numbers) > 1:
        paired = []
        for i in range(0, len(numbers) - 1, 2):
            total, top = _add_numbers(numbers[i], numbers[i + 1], top, out)
            paired.append(total)
        if len(numbers) % 2:
            paired.append(numbers[-1])
        numbers = paired
    bits = numbers[0]
    for i, s in enumerate(bits):  # sum > bound iff some bit i is 1 where bound's is 0 and the higher bits agree
        if not bound >> i & 1:
            out.append([-s] + [-bits[j] for j in range(i + 1, len(bits)) if bound >> j & 1])
    return out, top


def card_encoding(n: int, bound: int) -> str:
    """The counter used for "at most ``bound`` of ``n`` presses" (see the module notes)."""
    if bound >= n:
        return "none"
    return "seqcounter" if n * bound <= SEQ_COUNTER_MAX else "adder"


def _counter(encoding: str, n: int, bound: int, top: int, keys, key_bits: int):
    """(clauses, new top, network outputs) of "at most ``bound`` of the presses ``1 .. n``"."""
    presses = list(range(1, n + 1))
    if encoding == "seqcounter":
        return (*seq_counter(presses, bound, top), {})
    if encoding == "adder":
        return (*adder_atmost(presses, bound, top), {})
    if encoding == "network":
        return network_atmost(list(keys), key_bits, bound, top)
    return [], top, {}


def build_formula(n: int, masks, diff: int, bound: int, encoding: str | None = None, *,
                  cells: int | None = None, keys: tuple[int, ...] | None = None, key_bits: int = 0) -> Formula:
    """The lower-bound CNF "at most ``bound`` presses x with A x = ``diff``" from the press masks.

    Parameters
    ----------
    n : int
        Number of presses (buttons; on a grid, one per cell).
    masks : sequence of int
        ``masks[j]``: the cells press ``j`` flips (bitmasks), for ``j < n``.
    diff : int
        ``board ^ target``.
    bound : int
        At least 0.
    encoding : {"seqcounter", "adder", "network"}, optional
        Default :func:`card_encoding`, or ``network`` when ``keys`` are given.
    cells : int, optional
        Number of cells (parity rows), default ``n``: a press system may have more or fewer cells than
        buttons.
    keys, key_bits : optional
        The tree of the ``network`` counter (:func:`flipgame.verify.proofs.card_network.network_atmost`):
        one key of ``key_bits`` bits per press.  Any keys give a correct formula.

    Returns
    -------
    Formula
        Running time O(n * max flippers + size of the counter).

    Raises
    ------
    ValueError
        A negative bound or an unknown encoding.
    """
    if bound < 0:
        raise ValueError(f"bound must be at least 0, got {bound}")
    encoding = encoding or ("network" if keys is not None else card_encoding(n, bound))
    if encoding == "network" and (keys is None or len(keys) != n):
        raise ValueError(f"the network counter needs one key per press ({n})")
    if encoding not in ("seqcounter", "adder", "network", "none"):
        raise ValueError(f"unknown cardinality encoding {encoding!r}")
    cells = n if cells is None else cells
    if len(masks) != n or any(m >> cells for m in masks) or diff >> cells:
        raise ValueError(f"expected {n} press masks and a difference within {cells} cells")
    flippers: list[list[int]] = [[] for _ in range(cells)]
    for j in range(n):
        m = masks[j]
        while m:
            low = m & -m
            flippers[low.bit_length() - 1].append(j)
            m ^= low
    top = n
    clauses: list[list[int]] = []
    chains = []
    for i in range(cells):
        bit = diff >> i & 1
        cl, prefix, top = _chain(flippers[i], bit, top)
        clauses += cl
        chains.append((flippers[i], prefix, bit))
    if bound >= n:
        encoding = "none"
    cl, top, network = _counter(encoding, n, bound, top, keys, key_bits)
    clauses += cl
    return Formula(clauses, top, n, chains, encoding, network)


def write_cnf(path: str | os.PathLike, formula: Formula, comments: list[str]) -> None:
    """DIMACS with ``c`` comment lines first, written whole or not at all (:func:`flipgame.core.files.whole_file`).
    Raises OSError."""
    with whole_file(path) as fh:
        fh.write("".join(f"c {line}\n" for line in comments))
        fh.write(f"p cnf {formula.nvars} {len(formula.clauses)}\n")
        for c in formula.clauses:
            fh.write(" ".join(map(str, c)) + " 0\n" if c else "0\n")

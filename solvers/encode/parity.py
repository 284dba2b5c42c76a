"""Parity constraints as CNF: the one home of the XOR encodings the sat backend and the exporters share.

A cell's row of the press system over GF(2) is one XOR of the buttons that flip it.  A SAT solver
without native XOR takes it cut into pieces of at most :data:`XOR_PIECE` literals linked by
auxiliaries; each piece of ``k`` literals is the ``2**(k-1)`` clauses forbidding its wrong-parity
assignments (Tseitin's chaining of XOR; e.g. Li, "Equivalent literal propagation in the DLL
procedure", Discrete Applied Mathematics 130(2), 2003, for the cut).

>>> xor_chain([1, 2, 3, 4, 5], iter(range(6, 9)).__next__, piece=3)[:2]
[[1, 2, -6], [1, -2, 6]]
"""

from __future__ import annotations

import itertools

XOR_PIECE = 4
"""Longest XOR piece written as clauses: 8 clauses of 4 literals (a piece of 5 costs 16)."""


def xor_clauses(lits: list[int], rhs: int = 0) -> list[list[int]]:
    """CNF of ``XOR(lits) = rhs`` without auxiliaries: the 2**(k-1) clauses that forbid
    every assignment of the wrong parity.  ``lits``: non-zero DIMACS literals.

    >>> xor_clauses([1, 2])
    [[1, -2], [-1, 2]]
    """
    clauses = []
    for signs in itertools.product((0, 1), repeat=len(lits)):
        if sum(signs) % 2 != rhs:  # assignment with wrong parity: forbid it
            clauses.append([-lit if s else lit for lit, s in zip(lits, signs, strict=True)])
    return clauses


def xor_chain(lits: list[int], new_var, piece: int = XOR_PIECE) -> list[list[int]]:
    """CNF of ``XOR(lits) = 0``, cut into pieces of at most ``piece`` literals.

    ``new_var()`` returns a fresh variable for each link.  ``len(lits) - piece``
    over ``piece - 2`` links (rounded up); each piece costs ``2**(piece-1)`` clauses.
    """
    if piece < 3:
        raise ValueError("XOR pieces need at least 3 literals")
    clauses = []
    lits = list(lits)
    while len(lits) > piece:
        link = new_var()
        head, lits = lits[: piece - 1], lits[piece - 1:]
        clauses += xor_clauses([*head, link], 0)  # link = XOR(head)
        lits.insert(0, link)
    return clauses + xor_clauses(lits, 0)

"""Bitmasks, the one home of their small operations: the positions of the set bits, and a bitmask as an array.

A two-state board, press set or press mask is a Python int (bit ``i`` = cell or button ``i``); these are the
loops every layer would otherwise write again.

>>> set_bits(0b101001), bit_array(0b101, 4).tolist()
([0, 3, 5], [1, 0, 1, 0])
"""

from __future__ import annotations

import numpy as np


def set_bits(mask: int) -> list[int]:
    """The positions of the set bits of ``mask``, increasing.  O(popcount) big-int steps."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def bit_array(v: int, n: int) -> np.ndarray:
    """uint8 array of shape (n,): bit ``c`` of ``v``.  O(n)."""
    raw = np.frombuffer(v.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n]


def xor_of(values, mask: int) -> int:
    """The XOR of ``values[j]`` over the set bits ``j`` of ``mask`` (a press set applied to its press masks,
    a vector of GF(2) combined from columns).  O(popcount) XORs."""
    out = 0
    for j in set_bits(mask):
        out ^= values[j]
    return out

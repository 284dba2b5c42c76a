"""Bitmasks, the one home of their small operations: the positions of the set bits, a bitmask as an array, and
many bitmasks of one word packed in one int (SWAR: one big-int operation acts on all of them).

A two-state board, press set or press mask is a Python int (bit ``i`` = cell or button ``i``); these are the
loops every layer would otherwise write again.

>>> set_bits(0b101001), bit_array(0b101, 4).tolist()
([0, 3, 5], [1, 0, 1, 0])
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time of the judge's lane)
if TYPE_CHECKING:
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
    import numpy as np  # only here: the judge's lane runs without numpy

    raw = np.frombuffer(v.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n]


def xor_of(values, mask: int) -> int:
    """The XOR of ``values[j]`` over the set bits ``j`` of ``mask`` (a press set applied to its press masks,
    a vector of GF(2) combined from columns).  O(popcount) XORs."""
    out = 0
    for j in set_bits(mask):
        out ^= values[j]
    return out


WORD = 64
"""Bits of a slot of :func:`pack_words` (one machine word: bitmasks of at most 64 cells or buttons)."""


def pack_words(values: Sequence[int]) -> int:
    """The values (each below ``2**64``) as one int, value ``k`` in bits ``64k .. 64k + 63``: a big int's bitwise
    operations then act on every value at once (SWAR).  O(len(values)), in C."""
    words = array("Q", values)
    if sys.byteorder == "big":
        words.byteswap()
    return int.from_bytes(words.tobytes(), "little")


def unpack_words(packed: int, count: int, width: int = WORD) -> list[int]:
    """The ``count`` values of ``width`` bits (8, 16, 32 or 64) laid end to end in ``packed``, value 0 lowest (the
    inverse of :func:`pack_words` for width 64).  O(count), in C."""
    words = array(_TYPECODES[width])
    words.frombytes(packed.to_bytes(width // 8 * count, "little"))
    if sys.byteorder == "big":
        words.byteswap()
    return words.tolist()


_TYPECODES = {array(code).itemsize * 8: code for code in "BHILQ"}  # the array type of each word width


def word_parities(packed: int, count: int) -> int:
    """Bit 0 of each of the ``count`` slots of ``packed``: the parity of that slot's 64 bits; the other bits 0.
    Six shifts over the whole int (Warren, "Hacker's Delight", 2nd ed., section 5-2)."""
    for shift in (32, 16, 8, 4, 2, 1):
        packed ^= packed >> shift
    return packed & word_ones(count)


def word_ones(count: int) -> int:
    """:func:`pack_words` of ``count`` ones: multiplied by a word, it puts that word in every slot."""
    return int.from_bytes((b"\x01" + bytes(7)) * count, "little")

"""Plain POJ 1753 input read whole, without numpy: every line exactly ``cols`` cells of ``b``/``w`` ending in LF,
the lines a whole number of ``rows``-line boards.  Anything else (CR, spaces, blank lines, other letters, a BOM, a
partial board) is not plain: :func:`plain_boards` says None and the caller reads the input with
:func:`flipgame.formats.rows.read_cell_texts`, which takes every form and names the line of an error.

>>> plain_boards(b"bw\\nwb\\nww\\nwb\\n", 2, 2), plain_boards(b"bw\\nwb\\nww\\n", 2, 2)
([9, 8], None)
"""

from __future__ import annotations

from flipgame.core.bits import WORD, unpack_words

_CELLS = bytes.maketrans(b"bw", b"10")


def plain_boards(data: bytes, rows: int, cols: int) -> list[int] | None:
    """The boards of ``data`` as bitmasks (bit ``r * cols + c`` = row r, column c black), in input order, or None
    when ``data`` is not plain (module docstring) or holds no board.  A last line without its LF is taken.  Boards
    of at most 64 cells.  O(len(data)), in C but for one ``int`` call per board (none when a board is a whole
    word: 8, 16, 32 or 64 cells)."""
    if data.endswith(b"\n"):
        data = data[:-1]
    n = rows * cols
    lines = data.count(b"\n") + 1
    if not data or n > WORD or lines % rows or len(data) != lines * (cols + 1) - 1:
        return None
    if data[cols::cols + 1] != b"\n" * (lines - 1) or data.translate(None, b"bw\n"):
        return None
    # Reversed, the digits of board k are cells n-1..0 of board count-1-k: int(..., 2) reads them as bitmasks.
    digits = data.translate(_CELLS, b"\n")[::-1]
    count = lines // rows
    if n in (8, 16, 32, 64):
        return unpack_words(int(digits, 2), count, n)
    boards = [int(digits[i:i + n], 2) for i in range(0, len(digits), n)]
    boards.reverse()
    return boards

"""POJ 1753's boards: rows of ``b``/``w`` cells, a case every ``rows`` lines, read line by line or a read at a
time in numpy.

The input rules are the reference's ``scanf("%s")``: CRLF line ends, leading and trailing white space,
blank lines anywhere, and cells separated by spaces or tabs are taken; anything else is a
:class:`~flipgame.model.grid.BoardFormatError` naming the 1-based case and line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from flipgame.formats.lines import LineSource
from flipgame.model.boards import parse_state_row
from flipgame.model.grid import Board, BoardFormatError, cells_of, parse_row
from flipgame.model.system import PressSystem


def read_cases(lines: Iterable[str] | str, rows: int = 4, cols: int = 4) -> Iterator[Board]:
    """Stream the boards of a POJ 1753 input (its lines, or its whole text), one case per ``rows`` lines,
    until end of input.

    Tolerates CRLF line ends, leading and trailing white space, blank lines
    (between cases or anywhere else, as the reference's ``scanf("%s")`` does),
    and cells separated by spaces or tabs (``b w w b``).
    Runs in constant memory: each board is yielded as soon as its last row is read.

    Raises
    ------
    BoardFormatError
        Naming the 1-based case and line: a row of the wrong length, a
        character other than ``b``/``w``, or an incomplete case at the end.
    """
    for cells in read_cells(lines, rows, cols):
        yield Board(rows, cols, cells)


def read_cells(lines: Iterable[str] | str, rows: int = 4, cols: int = 4) -> Iterator[int]:
    """:func:`read_cases` yielding each board as its bitmask only (no :class:`Board`), for streams
    of many cases.  Same input rules and errors.  O(rows * cols) per case, about 1 us per 4x4 case.

    >>> list(read_cells(["bw", "wb", "", "ww", "wb"], 2, 2))
    [9, 8]
    """
    if isinstance(lines, str):
        lines = lines.splitlines()
    elif isinstance(lines, (bytes, bytearray)):
        raise BoardFormatError("expected text (str, or an iterable of lines), got bytes: decode them first")
    state = _CaseRows(rows, cols)
    for raw in lines:
        if not isinstance(raw, str):
            raise BoardFormatError(f"expected a line of text, got {type(raw).__name__}", case=state.case,
                                   line=state.line + 1)
        cells = state.take(raw)
        if cells is not None:
            yield cells
    state.end()


class _CaseRows:
    """The case being read by :func:`read_cells` and :func:`read_cell_blocks`: its rows so far, its number,
    the line number, and the errors that name them."""

    __slots__ = ("case", "cols", "current", "first_line", "line", "rows")

    def __init__(self, rows: int, cols: int):
        self.rows, self.cols = rows, cols
        self.case, self.line, self.current, self.first_line = 1, 0, [], 0

    def take(self, raw: str) -> int | None:
        """Read the next line: the board's bitmask when it ends a case, else None.  Raises BoardFormatError."""
        self.line += 1
        row = parse_row(raw, self.cols, self.case, self.line)
        if row is None:
            return None
        if not self.current:
            self.first_line = self.line
        self.current.append(row)
        if len(self.current) < self.rows:
            return None
        cells, self.current = cells_of(self.current), []
        self.case += 1
        return cells

    def end(self) -> None:
        """At the end of input: BoardFormatError if a case was begun and not finished."""
        if self.current:
            raise BoardFormatError(f"incomplete case at end of input: {len(self.current)} of {self.rows} rows "
                                   f"(case starts on line {self.first_line})", case=self.case, line=self.line)


def read_cell_texts(source: LineSource, rows: int, cols: int) -> Iterator[int | np.ndarray]:
    """:func:`read_cells` a read at a time (:meth:`~flipgame.formats.lines.LineSource.texts`), for boards
    of at most 64 cells: the whole cases of a read of plain rows (every line exactly ``cols`` cells of
    ``b``/``w``, nothing else) come as one uint64 array of bitmasks, shape (k,), parsed in numpy; any
    other read goes line by line, each case an int.  The same boards in the same order, the same input
    rules and errors.  O(characters) per read.

    >>> import io
    >>> source = LineSource(io.BytesIO(b"bw\\nwb\\nww\\nwb\\n\\nbb\\nbb"), 8, block=9)
    >>> [b.tolist() if hasattr(b, "tolist") else b for b in read_cell_texts(source, 2, 2)]
    [[9], 8, 15]
    """
    state = _CaseRows(rows, cols)
    weights = np.left_shift(np.uint64(1), np.arange(rows * cols, dtype=np.uint64))
    for text in source.texts():
        if not text.endswith("\n"):  # the input's last line
            text += "\n"
        grid = _plain_rows(text, cols)
        if grid is None:  # blank lines, spaces, CR, a wrong row: line by line, as read_cells
            lines, error = source.split(text)
            yield from _taken(state, lines)
            if error is not None:
                raise error
        else:
            source.lines_read += len(grid)
            yield from _plain_cases(state, text, grid, weights)
    state.end()


def _taken(state: _CaseRows, lines: list[str]) -> Iterator[int]:
    """The boards that ``lines`` end, read one by one; a first row of another width names the ``--size`` that
    reads this input."""
    for k, raw in enumerate(lines):
        try:
            cells = state.take(raw)
        except BoardFormatError as exc:
            raise _with_size_hint(exc, state, lines[k:]) from None
        if cells is not None:
            yield cells


def _with_size_hint(exc: BoardFormatError, state: _CaseRows, rest: list[str]) -> BoardFormatError:
    """``exc`` with the ``--size RxC`` that reads the input, when its first row has another width: R counted
    as the rows of that width from there, up to a row of another width, a blank line or the end of the lines read
    (never guessed: a square was claimed for one line of 16 cells); rows of that width followed by a row of
    another width get no size (``--size 1x5`` was offered for one long row of a 4x4 board); one line of as many
    cells as the board says how the board is written."""
    width = getattr(exc, "cells", None)
    if width is None or state.case != 1 or state.current:
        return exc
    rows = 0
    for raw in rest:
        row = "".join(raw.split())
        if row and len(row) != width and not row.strip("bwBW01"):
            where = "the next line" if exc.line is None else f"line {exc.line + rows}"
            return BoardFormatError(f"{exc.reason}; then {len(row)} cells on {where}: the rows differ in width",
                                    case=exc.case, line=exc.line)
        if len(row) != width or row.strip("bwBW01"):
            break
        rows += 1
    if rows == 1 and state.rows > 1 and width == state.rows * state.cols:
        return BoardFormatError(f"{exc.reason}; a {state.rows}x{state.cols} board takes {state.rows} lines of "
                                f"{state.cols} cells (or --size 1x{width} reads this line as one row)",
                                case=exc.case, line=exc.line)
    return BoardFormatError(f"{exc.reason}; the input's first board is {rows} row{'s' * (rows != 1)} of {width} cells: "
                            f"--size {rows}x{width} reads it", case=exc.case, line=exc.line)


def _plain_cases(state: _CaseRows, text: str, grid: np.ndarray, weights: np.ndarray) -> Iterator[int | np.ndarray]:
    """The boards of plain rows (``grid``: their cells, ``text``: their lines): the case begun before them
    finished line by line, then every whole case at once, then the rows that begin the next case."""
    width, rows = grid.shape[1] + 1, state.rows

    def line(j: int) -> str:
        return text[j * width:(j + 1) * width - 1]

    i = 0
    while state.current and i < len(grid):
        i += 1
        yield from _taken(state, [line(i - 1)])
    whole = (len(grid) - i) // rows * rows
    if whole:
        yield (grid[i:i + whole].reshape(-1, len(weights)) == ord("b")).astype(np.uint64) @ weights
        state.case += whole // rows
        state.line += whole
    for j in range(i + whole, len(grid)):
        state.take(line(j))


def _plain_rows(text: str, cols: int) -> np.ndarray | None:
    """The cells of ``text`` as uint8 characters shape (lines, cols) when every line of it is exactly
    ``cols`` of ``b``/``w`` and ends with ``\\n``; else None.  O(len(text)) in numpy."""
    width = cols + 1
    if len(text) % width or not text.isascii():
        return None
    chars = np.frombuffer(text.encode("ascii"), dtype=np.uint8).reshape(-1, width)
    cells = chars[:, :cols]
    if not (chars[:, cols] == ord("\n")).all() or not ((cells == ord("b")) | (cells == ord("w"))).all():
        return None
    return cells


def read_state_boards(lines: Iterable[str], system: PressSystem) -> Iterator[tuple[int, object]]:
    """Boards of ``system`` from text, with the line each ends on: a grid's boards as ``rows`` lines
    each, other systems' as one line each, blank lines skipped; each board in the system's board
    form (a bitmask for two states).  Streams: O(cells) memory.

    Raises BoardFormatError naming case and line.
    """
    rows, cols = system.shape or (1, system.cells)
    current: list[int] = []
    case, number = 1, 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            values = parse_state_row(raw, system.states, cols)
        except BoardFormatError as exc:
            raise BoardFormatError(exc.reason, case=case, line=number) from None
        if len(values) != cols:
            raise BoardFormatError(f"expected a row of {cols} cells, got {len(values)}", case=case, line=number)
        current.extend(values)
        if len(current) == rows * cols:
            yield number, system.board_of(current)
            current, case = [], case + 1
    if current:
        raise BoardFormatError(f"incomplete case at end of input: {len(current) // cols} of {rows} rows",
                               case=case, line=number)

"""The board model shared by every backend: rules, press masks, the POJ text format.

A board of ``rows x cols`` cells is an integer bitmask: cell ``(r, c)`` is bit
``r * cols + c`` (row-major, top-left = bit 0), black (``b``) = 1 and white
(``w``) = 0.  Pressing cell ``j`` flips ``j`` and its neighbourhood; presses
commute and pressing twice cancels, so a solution is a *set* of presses (a
bitmask ``x``) and the board after it is ``board ^ (A x)`` over GF(2), where
column ``j`` of the press matrix ``A`` is the press mask ``m_j``.

Nothing here imports a solver.  The simulation in :meth:`Game.apply` is the
independent referee that re-checks every backend's witness.

Source: the Flip Game statement (POJ 1753); the linear-algebra view of
Lights Out is Anderson & Feil, "Turning Lights Out with Linear Algebra",
Mathematics Magazine 71(4), 1998.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

GOALS = ("any", "white", "black")
"""``any``: all white or all black (POJ 1753); ``white`` / ``black``: one fixed colour."""

CELL_CHARS = {"w": 0, "b": 1}


class BoardFormatError(ValueError):
    """Malformed board text.  ``str()`` names the case, the line and what was expected."""

    def __init__(self, message: str, *, case: int | None = None, line: int | None = None):
        self.case, self.line, self.reason = case, line, message
        where = []
        if case is not None:
            where.append(f"case {case}")
        if line is not None:
            where.append(f"line {line}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


@dataclass(frozen=True)
class Game:
    """The rules: board shape, wrap-around and goal.

    Parameters
    ----------
    rows, cols : int
        Board shape, each at least 1.
    goal : {"any", "white", "black"}
        ``any`` accepts an all-white or all-black board (Flip Game, POJ 1753);
        ``white`` / ``black`` fix the colour (Lights Out, Painter's Problem).
    wrap : bool
        Toroidal board: neighbours wrap around both edges.  A press never
        toggles a cell twice, even on boards one or two cells wide.

    Raises
    ------
    ValueError
        On a non-positive size or an unknown goal.
    """

    rows: int = 4
    cols: int = 4
    goal: str = "any"
    wrap: bool = False

    def __post_init__(self):
        if not (isinstance(self.rows, int) and isinstance(self.cols, int)) or self.rows < 1 or self.cols < 1:
            raise ValueError(f"board size must be positive integers, got {self.rows}x{self.cols}")
        if self.goal not in GOALS:
            raise ValueError(f"unknown goal {self.goal!r}; expected one of {', '.join(GOALS)}")

    @property
    def n(self) -> int:
        """Number of cells (= number of possible presses)."""
        return self.rows * self.cols

    @property
    def full(self) -> int:
        """The all-black board, ``2**n - 1``."""
        return (1 << self.n) - 1

    @property
    def size(self) -> str:
        return f"{self.rows}x{self.cols}"

    def neighbourhood(self, cell: int) -> tuple[int, ...]:
        """Cells flipped by pressing ``cell``: itself, up, down, left, right (sorted, distinct)."""
        r, c = divmod(cell, self.cols)
        out = {cell}
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if self.wrap:
                rr, cc = rr % self.rows, cc % self.cols
            if 0 <= rr < self.rows and 0 <= cc < self.cols:
                out.add(rr * self.cols + cc)
        return tuple(sorted(out))

    @cached_property
    def press_masks(self) -> tuple[int, ...]:
        """``press_masks[j]`` is the bitmask of cells flipped by press ``j`` (column j of A)."""
        return tuple(sum(1 << k for k in self.neighbourhood(j)) for j in range(self.n))

    @cached_property
    def targets(self) -> tuple[int, ...]:
        """Goal boards as bitmasks, in order of preference on ties: white (0) before black."""
        return {"any": (0, self.full), "white": (0,), "black": (self.full,)}[self.goal]

    def target_name(self, target: int) -> str:
        """``"white"`` for 0, ``"black"`` for the full board, else ``"custom"``."""
        return "white" if target == 0 else "black" if target == self.full else "custom"

    def apply(self, board: int, presses: int) -> int:
        """The board after pressing every cell in the bitmask ``presses``.  O(n)."""
        for j in range(self.n):
            if presses >> j & 1:
                board ^= self.press_masks[j]
        return board

    def apply_many(self, boards: np.ndarray, presses: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`apply`: uint64 arrays of shape (k,) in and out.  O(k n), n <= 64."""
        out = np.asarray(boards, dtype=np.uint64).copy()
        presses = np.asarray(presses, dtype=np.uint64)
        for j, mask in enumerate(self.press_masks):
            hit = (presses >> np.uint64(j)) & np.uint64(1)
            out ^= hit * np.uint64(mask)
        return out

    def reached(self, board: int) -> int | None:
        """The goal board that ``board`` equals, or ``None``."""
        return board if board in self.targets else None

    def check_fits(self, board: int) -> None:
        """Raise ValueError unless ``board`` is a bitmask of this game's cells."""
        if not 0 <= board <= self.full:
            raise ValueError(f"board {board} is not a {self.size} bitmask (0..{self.full})")


@dataclass(frozen=True)
class Board:
    """A board: its shape and its cells as a bitmask (``b`` = 1, cell (r, c) = bit r*cols+c)."""

    rows: int
    cols: int
    cells: int

    def __post_init__(self):
        Game(self.rows, self.cols)  # validates the shape
        if not 0 <= self.cells < 1 << (self.rows * self.cols):
            raise ValueError(f"cells {self.cells} do not fit a {self.rows}x{self.cols} board")

    @classmethod
    def from_rows(cls, lines: Iterable[str]) -> Board:
        """Board from ``rows`` strings of ``b``/``w``; e.g. ``["bwwb", "bbwb", ...]``.

        Raises BoardFormatError on ragged rows or other characters.
        """
        lines = [ln.strip() for ln in lines]
        if not lines:
            raise BoardFormatError("no rows")
        cases = list(read_cases(lines, rows=len(lines), cols=len(lines[0])))
        return cases[0]

    def text(self, on: str = "b", off: str = "w") -> str:
        """The board as ``rows`` lines (no trailing newline)."""
        return format_cells(self.cells, self.rows, self.cols, on, off)

    def __str__(self) -> str:
        return self.text()


def format_cells(cells: int, rows: int, cols: int, on: str = "b", off: str = "w") -> str:
    """A bitmask as ``rows`` lines of ``cols`` characters; ``on`` for set bits."""
    return "\n".join(
        "".join(on if cells >> (r * cols + c) & 1 else off for c in range(cols)) for r in range(rows)
    )


def read_cases(lines: Iterable[str], rows: int = 4, cols: int = 4) -> Iterator[Board]:
    """Stream the boards of a POJ 1753 input, one case per ``rows`` lines, until end of input.

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
    case, current, first_line = 1, [], None
    line_no = 0
    for line_no, raw in enumerate(lines, start=1):
        row = "".join(raw.split())  # drop CR, tabs, spaces around and between cells
        if not row:
            continue
        if len(row) != cols:
            raise BoardFormatError(
                f"expected a row of {cols} cells 'b'/'w', got {len(row)} characters {row[:40]!r}",
                case=case, line=line_no,
            )
        bad = next((ch for ch in row if ch not in CELL_CHARS), None)
        if bad is not None:
            raise BoardFormatError(
                f"expected only 'b' or 'w', got {bad!r} in {row[:40]!r}", case=case, line=line_no
            )
        if not current:
            first_line = line_no
        current.append(row)
        if len(current) == rows:
            cells = sum(CELL_CHARS[ch] << i for i, ch in enumerate("".join(current)))
            yield Board(rows, cols, cells)
            case, current = case + 1, []
    if current:
        raise BoardFormatError(
            f"incomplete case at end of input: {len(current)} of {rows} rows "
            f"(case starts on line {first_line})",
            case=case, line=line_no,
        )

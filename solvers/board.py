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

from .errors import BoardFormatError, RulesError

GOALS = ("any", "white", "black", "board")
"""``any``: all white or all black (POJ 1753); ``white`` / ``black``: one fixed colour;
``board``: an explicit target board (``Game.target``)."""

NEIGHBOURHOODS: dict[str, tuple[tuple[int, int], ...]] = {
    "plus": ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)),
    "cross": ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)),
    "king": tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)),
}
"""Offsets (row, col) flipped by a press: ``plus`` (Lights Out), ``cross`` (the
diagonals), ``king`` (the 3x3 block).  ``stencil`` takes ``Game.stencil``."""

CELL_CHARS = {"w": 0, "b": 1}
_TO_BITS = str.maketrans("wb", "01")


@dataclass(frozen=True)
class Game:
    """The rules: board shape, wrap-around and goal.

    Parameters
    ----------
    rows, cols : int
        Board shape, each at least 1.
    goal : {"any", "white", "black", "board"}
        ``any`` accepts an all-white or all-black board (Flip Game, POJ 1753);
        ``white`` / ``black`` fix the colour (Lights Out, Painter's Problem);
        ``board`` asks for the board ``target``.
    wrap : bool
        Toroidal board: neighbours wrap around both edges.  A press never
        toggles a cell twice, even on boards one or two cells wide.
    neighbourhood : {"plus", "cross", "king", "stencil"}
        Cells a press flips, as offsets from the pressed cell (see
        :data:`NEIGHBOURHOODS`); ``stencil`` uses ``stencil``.
    stencil : tuple of (int, int) or str, optional
        Offsets (row, col) for ``neighbourhood="stencil"``, or the same drawn
        as text (``"x.x/.x./x.x"``, see :func:`parse_stencil`).
    target : int, Board or sequence of str, optional
        Goal board for ``goal="board"``: a bitmask, a :class:`Board` or its rows.

    Raises
    ------
    RulesError
        On a non-positive size, an unknown goal or neighbourhood, a stencil
        without ``neighbourhood="stencil"`` (or the reverse), or a target
        that does not fit.

    >>> Game(3, 3, neighbourhood="stencil", stencil="x.x/.x./x.x").offsets
    ((-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1))
    >>> Game(2, 2, goal="board", target=["bw", "wb"]).target
    9
    """

    rows: int = 4
    cols: int = 4
    goal: str = "any"
    wrap: bool = False
    neighbourhood: str = "plus"
    stencil: tuple[tuple[int, int], ...] | None = None
    target: int | None = None

    def __post_init__(self):
        if not (isinstance(self.rows, int) and isinstance(self.cols, int)) or self.rows < 1 or self.cols < 1:
            raise RulesError(f"board size must be positive integers, got {self.rows}x{self.cols}")
        if self.goal not in GOALS:
            raise RulesError(f"unknown goal {self.goal!r}; expected one of {', '.join(GOALS)}")
        if (self.goal == "board") != (self.target is not None):
            raise RulesError("goal 'board' needs a target board, and only it takes one")
        if isinstance(self.target, (list, tuple, str)):
            object.__setattr__(self, "target", Board.from_rows(
                self.target.split() if isinstance(self.target, str) else self.target))
        if isinstance(self.target, Board):
            if (self.target.rows, self.target.cols) != (self.rows, self.cols):
                raise RulesError(f"target board is {self.target.rows}x{self.target.cols}, the game {self.size}")
            object.__setattr__(self, "target", self.target.cells)
        if self.target is not None and not (isinstance(self.target, int) and 0 <= self.target <= self.full):
            raise RulesError(f"target board does not fit {self.size}: expected a bitmask 0..{self.full}, a Board "
                             f"or rows of text, got {self.target!r:.60}")
        names = (*NEIGHBOURHOODS, "stencil")
        if self.neighbourhood not in names:
            raise RulesError(f"unknown neighbourhood {self.neighbourhood!r}; expected one of {', '.join(names)}")
        if (self.neighbourhood == "stencil") != (self.stencil is not None):
            raise RulesError("neighbourhood 'stencil' needs stencil offsets, and only it takes them")
        if isinstance(self.stencil, str):
            object.__setattr__(self, "stencil", parse_stencil(self.stencil))
        if self.stencil is not None:
            try:
                offsets = {(int(r), int(c)) for r, c in self.stencil}
            except (TypeError, ValueError):
                raise RulesError(f"a stencil is offsets (row, col) or text like 'x.x/.x./x.x', "
                                 f"got {self.stencil!r:.60}") from None
            object.__setattr__(self, "stencil", tuple(sorted(offsets)))
            if not self.stencil:
                raise RulesError("a stencil needs at least one offset")

    @property
    def offsets(self) -> tuple[tuple[int, int], ...]:
        """(row, col) offsets flipped by a press."""
        return self.stencil if self.stencil is not None else NEIGHBOURHOODS[self.neighbourhood]

    @property
    def rules(self) -> str:
        """Short description, e.g. ``4x4 plus, goal any`` or ``5x5 king toroidal, goal board``."""
        return (f"{self.size} {self.neighbourhood}{' toroidal' if self.wrap else ''}, goal {self.goal}")

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

    def flipped_by(self, cell: int) -> tuple[int, ...]:
        """Cells flipped by pressing ``cell`` (sorted, distinct: on a small torus two
        offsets may land on one cell, which is still flipped once)."""
        r, c = divmod(cell, self.cols)
        out = set()
        for dr, dc in self.offsets:
            rr, cc = r + dr, c + dc
            if self.wrap:
                rr, cc = rr % self.rows, cc % self.cols
            if 0 <= rr < self.rows and 0 <= cc < self.cols:
                out.add(rr * self.cols + cc)
        return tuple(sorted(out))

    @cached_property
    def press_masks(self) -> tuple[int, ...]:
        """``press_masks[j]`` is the bitmask of cells flipped by press ``j`` (column j of A)."""
        return tuple(sum(1 << k for k in self.flipped_by(j)) for j in range(self.n))

    @cached_property
    def flippers(self) -> tuple[tuple[int, ...], ...]:
        """``flippers[i]``: the presses that flip cell ``i`` (row i of the press matrix).  O(n)."""
        out: list[list[int]] = [[] for _ in range(self.n)]
        for j in range(self.n):
            for k in self.flipped_by(j):
                out[k].append(j)
        return tuple(tuple(p) for p in out)

    def to_json(self) -> dict:
        """The rules as JSON-ready data (enough to rebuild the game)."""
        return {"rows": self.rows, "cols": self.cols, "goal": self.goal, "wrap": self.wrap,
                "neighbourhood": self.neighbourhood,
                "stencil": [list(o) for o in self.stencil] if self.stencil else None,
                "target": self.target}

    def describe_target(self, target: int) -> str:
        """``all white``, ``all black`` or ``the target board``."""
        name = self.target_name(target)
        return name if name == "the target board" else f"all {name}"

    @cached_property
    def targets(self) -> tuple[int, ...]:
        """Goal boards as bitmasks, in order of preference on ties: white (0) before black."""
        if self.goal == "board":
            return (self.target,)
        return {"any": (0, self.full), "white": (0,), "black": (self.full,)}[self.goal]

    def target_name(self, target: int) -> str:
        """``"white"`` for 0, ``"black"`` for the full board, else ``"the target board"``."""
        return "white" if target == 0 else "black" if target == self.full else "the target board"

    def apply(self, board: int, presses: int) -> int:
        """The board after pressing every cell in the bitmask ``presses``.

        A plain simulation, cell by cell, that never builds a press matrix:
        O(n + presses * |offsets|) on one byte per cell, so a 1x1000000 board
        is as fast as a 1000x1000 one (flips on row bitmasks cost O(cols) each).
        """
        cells = bytearray(to_bits(board, self.n), "ascii")  # b"0"/b"1" per cell; XOR 1 swaps them
        bits = to_bits(presses, self.n)
        pressed = (i for i, ch in enumerate(bits) if ch == "1")
        if self.wrap:  # on a small torus two offsets may meet: flipped_by flips such a cell once
            for j in pressed:
                for k in self.flipped_by(j):
                    cells[k] ^= 1
        else:
            rows, cols, offsets = self.rows, self.cols, self.offsets
            for j in pressed:
                r, c = divmod(j, cols)
                for dr, dc in offsets:
                    if 0 <= r + dr < rows and 0 <= c + dc < cols:
                        cells[j + dr * cols + dc] ^= 1
        return int(cells[::-1].decode("ascii") or "0", 2)

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
        """Raise RulesError unless ``board`` is a bitmask of this game's cells."""
        if not 0 <= board <= self.full:
            raise RulesError(f"board {board} is not a {self.size} bitmask (0..{self.full})")


@dataclass(frozen=True)
class Board:
    """A board: its shape and its cells as a bitmask (``b`` = 1, cell (r, c) = bit r*cols+c)."""

    rows: int
    cols: int
    cells: int

    def __post_init__(self):
        Game(self.rows, self.cols)  # validates the shape
        if not 0 <= self.cells < 1 << (self.rows * self.cols):
            raise RulesError(f"cells {self.cells} do not fit a {self.rows}x{self.cols} board")

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


def to_bits(cells: int, n: int) -> str:
    """Cell ``i`` of a bitmask as character ``i`` of a '0'/'1' string of length n.  O(n)."""
    return format(cells, f"0{n}b")[::-1] if n else ""


def to_rows(cells: int, rows: int, cols: int) -> list[int]:
    """A bitmask as ``rows`` row bitmasks (bit c = cell (r, c)).  O(n)."""
    bits = to_bits(cells, rows * cols)
    return [int(bits[r * cols:(r + 1) * cols][::-1], 2) for r in range(rows)]


def from_rows(row_masks: list[int], cols: int) -> int:
    """Inverse of :func:`to_rows`.  O(n)."""
    return int("".join(format(m, f"0{cols}b") for m in reversed(row_masks)) or "0", 2)


def format_cells(cells: int, rows: int, cols: int, on: str = "b", off: str = "w", sep: str = "") -> str:
    """A bitmask as ``rows`` lines of ``cols`` characters; ``on`` for set bits.  O(n)."""
    bits = to_bits(cells, rows * cols).translate(str.maketrans("10", on + off))
    return "\n".join(sep.join(bits[r * cols:(r + 1) * cols]) for r in range(rows))


def _shown(line: str, limit: int = 40) -> str:
    """A line for an error message: trimmed, quoted, cut with an ellipsis."""
    text = line.strip()
    return ascii(text if len(text) <= limit else text[:limit] + "...")


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
    for cells in read_cells(lines, rows, cols):
        yield Board(rows, cols, cells)


def read_cells(lines: Iterable[str], rows: int = 4, cols: int = 4) -> Iterator[int]:
    """:func:`read_cases` yielding each board as its bitmask only (no :class:`Board`), for streams
    of many cases.  Same input rules and errors.  O(rows * cols) per case, about 1 us per 4x4 case.

    >>> list(read_cells(["bw", "wb", "", "ww", "wb"], 2, 2))
    [9, 8]
    """
    case, current, first_line = 1, [], None
    line_no = 0
    for line_no, raw in enumerate(lines, start=1):
        if len(raw) == cols and not raw.strip("bw"):  # the common case: exactly one row, nothing else
            row = raw
        else:
            row = "".join(raw.split())  # drop CR, LF, tabs, spaces around and between cells
            if not row:
                continue
            if row.strip("bw"):  # some character other than b/w: name the first one
                bad = next(ch for ch in row if ch not in CELL_CHARS)
                hint = " (the input is not UTF-8 text)" if bad == "\ufffd" else ""
                raise BoardFormatError(f"expected only 'b' or 'w', got {ascii(bad)} in {_shown(raw)}{hint}",
                                       case=case, line=line_no)
            if len(row) != cols:
                raise BoardFormatError(
                    f"expected a row of {cols} cells 'b'/'w', got {len(row)} cell{'s' if len(row) != 1 else ''} "
                    f"in {_shown(raw)}", case=case, line=line_no)
        if not current:
            first_line = line_no
        current.append(row)
        if len(current) == rows:
            yield int("".join(current)[::-1].translate(_TO_BITS), 2)
            case, current = case + 1, []
    if current:
        raise BoardFormatError(
            f"incomplete case at end of input: {len(current)} of {rows} rows "
            f"(case starts on line {first_line})",
            case=case, line=line_no,
        )


def refine_lexicographic(n: int, presses: int, solve_fixed) -> int:
    """The lexicographically smallest minimum-weight press set (POJ 3279's rule).

    ``presses`` is one minimum-weight solution; ``solve_fixed(fixed)`` must return a
    minimum-weight solution (same weight) agreeing with ``fixed`` (cell -> 0/1), or
    None.  Cells are decided in reading order, preferring 0: a cell already 0 in
    the current solution needs no call, so at most ``weight`` solver calls are made
    per 1 met, O(n) calls in all.
    """
    fixed: dict[int, int] = {}
    for i in range(n):
        fixed[i] = 0
        if presses >> i & 1:
            other = solve_fixed(fixed)
            if other is None:
                fixed[i] = 1
            else:
                presses = other
    return presses


def parse_stencil(text: str) -> tuple[tuple[int, int], ...]:
    """Offsets from a stencil drawn as rows separated by ``/``, ``x`` = flipped, ``.`` = not;
    odd height and width, the centre is the pressed cell.  E.g. ``.x./xxx/.x.`` is ``plus``.

    Raises RulesError naming what is wrong.
    """
    rows = [r.strip() for r in text.strip().split("/")]
    height, width = len(rows), len(rows[0])
    if any(len(r) != width for r in rows) or height % 2 == 0 or width % 2 == 0:
        raise RulesError(f"stencil {text!r}: expected rows of one odd length, an odd number of rows, "
                         f"separated by '/' (e.g. .x./xxx/.x.)")
    if any(ch not in "x." for r in rows for ch in r):
        raise RulesError(f"stencil {text!r}: expected only 'x' (flipped) and '.' (not)")
    offsets = tuple((r - height // 2, c - width // 2) for r in range(height) for c in range(width)
                    if rows[r][c] == "x")
    if not offsets:
        raise RulesError(f"stencil {text!r} flips no cell")
    return offsets

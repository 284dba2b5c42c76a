"""The board model shared by every backend: rules, press masks, the plain simulation, one row of text.

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from flipgame.core.errors import BoardFormatError, RulesError

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
TO_BITS = str.maketrans("wb", "01")


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
        self._normalise_target()
        self._normalise_stencil()

    def _normalise_target(self) -> None:
        """``target`` as a bitmask of this game (from a Board or rows of text); RulesError if it does not fit."""
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

    def _normalise_stencil(self) -> None:
        """``stencil`` as sorted distinct offsets (from text or pairs); RulesError on a bad neighbourhood."""
        names = (*NEIGHBOURHOODS, "stencil")
        if self.neighbourhood not in names:
            raise RulesError(f"unknown neighbourhood {self.neighbourhood!r}; expected one of {', '.join(names)}")
        if (self.neighbourhood == "stencil") != (self.stencil is not None):
            raise RulesError("neighbourhood 'stencil' needs stencil offsets, and only it takes them")
        if self.stencil is None:
            return
        if isinstance(self.stencil, str):
            object.__setattr__(self, "stencil", parse_stencil(self.stencil))
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
    def m(self) -> int:
        """Number of buttons (one per cell on a grid): the bits of a press set."""
        return self.rows * self.cols

    @property
    def full(self) -> int:
        """The all-black board, ``2**n - 1``."""
        return (1 << self.n) - 1

    @property
    def size(self) -> str:
        return f"{self.rows}x{self.cols}"

    def with_goal(self, goal: str, target: int | None = None) -> Game:
        """The same press system with another goal, e.g. ``game.with_goal("white")``.  O(1).

        >>> Game(3, 3, "any", wrap=True).with_goal("white").rules
        '3x3 plus toroidal, goal white'
        """
        return replace(self, goal=goal, target=target)

    @property
    def normal(self) -> Game:
        """The rules a backend sees: an explicit goal board becomes ``white`` (the gate then solves
        ``board ^ target``); any other goal is kept.  O(1)."""
        return self.with_goal("white") if self.goal == "board" else self

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

    def random_boards(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """``count`` uniformly random boards of this game, drawn from ``rng``: uint64, shape (count,),
        up to 64 cells; above, an object array of Python ints.  O(count * n / 64).

        >>> Game(4, 4).random_boards(np.random.default_rng(0), 3).tolist()
        [55746, 41743, 33497]
        """
        if self.n < 64:
            return rng.integers(0, 1 << self.n, size=count, dtype=np.uint64, endpoint=False)
        words = rng.integers(0, 2**64 - 1, size=(count, -(-self.n // 64)), dtype=np.uint64, endpoint=True)
        if self.n == 64:
            return words[:, 0]
        return np.array([sum(int(w) << (64 * i) for i, w in enumerate(row)) & self.full for row in words],
                        dtype=object)



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
        lines = list(lines)
        if not lines:
            raise BoardFormatError("no rows")
        cols = len("".join(lines[0].split()))
        rows = [row for line, raw in enumerate(lines, start=1) if (row := parse_row(raw, cols, 1, line)) is not None]
        return cls(len(rows), cols, cells_of(rows))

    def text(self, on: str = "b", off: str = "w") -> str:
        """The board as ``rows`` lines (no trailing newline)."""
        return format_cells(self.cells, self.rows, self.cols, on, off)

    def __str__(self) -> str:
        return self.text()


def _shown(line: str, limit: int = 40) -> str:
    """A line for an error message: trimmed, quoted, cut with an ellipsis."""
    text = line.strip()
    return ascii(text if len(text) <= limit else text[:limit] + "...")


def parse_row(raw: str, cols: int, case: int, line: int) -> str | None:
    """One row of ``cols`` cells as ``b``/``w`` text, or None for a blank line: the one row reader
    of :meth:`Board.from_rows` and the judge formats.  Drops CR, LF, tabs and spaces around and
    between cells.  O(len(raw)).

    Raises
    ------
    BoardFormatError
        Naming ``case`` and ``line`` (1-based): a character other than ``b``/``w``, or a row of
        the wrong length.

    >>> parse_row(" b w w b\\r\\n", 4, 1, 1)
    'bwwb'
    """
    if len(raw) == cols and not raw.strip("bw"):  # the common case: exactly one row, nothing else
        return raw
    row = "".join(raw.split())
    if not row:
        return None
    if row.strip("bw"):  # some character other than b/w: name the first one
        bad = next(ch for ch in row if ch not in CELL_CHARS)
        hint = " (the input is not UTF-8 text)" if bad == "\ufffd" else ""
        raise BoardFormatError(f"expected only 'b' or 'w', got {ascii(bad)} in {_shown(raw)}{hint}",
                               case=case, line=line)
    if len(row) != cols:
        raise BoardFormatError(
            f"expected a row of {cols} cells 'b'/'w', got {len(row)} cell{'s' if len(row) != 1 else ''} "
            f"in {_shown(raw)}", case=case, line=line)
    return row


def cells_of(rows: Sequence[str]) -> int:
    """The bitmask of rows of ``b``/``w`` text (cell (r, c) = bit r*cols + c).  O(n).

    >>> cells_of(["wb", "bb"])
    14
    """
    return int("".join(rows)[::-1].translate(TO_BITS), 2)


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

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
from dataclasses import dataclass
from functools import cached_property

from flipgame.core.errors import BoardFormatError, BoardTooLargeError, RulesError
from flipgame.core.limits import BOARD_MAX_CELLS
from flipgame.model.system import PressSystem, check_states, plus_cells, set_fields

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
OTHER_CELL_CHARS = str.maketrans("BW10", "bwbw")
"""The other ways a two-state cell is written: upper case, and the digits (1 = black)."""
TO_BITS = str.maketrans("wb", "01")


class Game(PressSystem):
    """A grid: board shape, neighbourhood, wrap-around, states and goal; a generator of press systems.

    Button ``j`` is the press of cell ``j``: it adds 1 to the cell and to its neighbourhood.  The
    grid keeps its shape and neighbourhood for the judge formats and for the fast paths (light
    chasing on plus boards without wrap, press masks built from offsets, a 4,000,000-cell board
    without a press matrix); everything else is :class:`~flipgame.model.system.PressSystem`'s.

    Parameters
    ----------
    rows, cols : int
        Board shape, each at least 1.
    goal : str
        ``any`` accepts a uniform board (Flip Game, POJ 1753: all white or all black);
        ``white`` / ``black`` fix the colour (Lights Out, Painter's Problem), a number ``D`` the
        state (k states); ``board`` asks for the board ``target``.
    wrap : bool
        Toroidal board: neighbours wrap around both edges.  A press never
        toggles a cell twice, even on boards one or two cells wide.
    neighbourhood : {"plus", "cross", "king", "stencil"}
        Cells a press flips, as offsets from the pressed cell (see
        :data:`NEIGHBOURHOODS`); ``stencil`` uses ``stencil``.
    stencil : tuple of (int, int) or str, optional
        Offsets (row, col) for ``neighbourhood="stencil"``, or the same drawn
        as text (``"x.x/.x./x.x"``, see :func:`parse_stencil`).
    target : int, Board, sequence of str, or tuple of int, optional
        Goal board for ``goal="board"``: a bitmask, a :class:`Board` or its rows (two states), or a
        tuple of cell states (k states).
    states : int or None
        2 (default: the Flip Game and Lights Out), k states (Lights Out 2000 is 3), or None (counters).

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

    def __init__(self, rows: int = 4, cols: int = 4, goal: str = "any", wrap: bool = False,
                 neighbourhood: str = "plus", stencil=None, target=None, states: int | None = 2):
        if not (isinstance(rows, int) and isinstance(cols, int)) or rows < 1 or cols < 1:
            raise RulesError(f"board size must be positive integers, got {rows!r:.20}x{cols!r:.20}")
        if rows * cols > BOARD_MAX_CELLS:  # before anything of the size (2**cells - 1, ...) is computed
            raise BoardTooLargeError(f"a grid has at most {BOARD_MAX_CELLS:,} cells; {rows}x{cols} has "
                                     f"{rows * cols:,}")
        set_fields(self, wrap=bool(wrap), cells=rows * cols, shape=(rows, cols))
        set_fields(self, states=check_states(states))
        self._normalise_stencil(neighbourhood, stencil)
        if isinstance(target, str):
            target = target.split()
        if isinstance(target, (list, tuple)) and target and isinstance(target[0], str):
            target = Board.from_rows(target)
        if isinstance(target, Board):
            if (target.rows, target.cols) != (rows, cols):
                raise RulesError(f"target board is {target.rows}x{target.cols}, the game {self.size}")
            target = target.cells
        if self.binary and goal not in (*GOALS, "0", "1"):
            raise RulesError(f"unknown goal {goal!r:.40} for two states; expected any, white or black (or 0 or 1), "
                             f"or an explicit target board; a state D above 1 needs more states (--states K)")
        self._set_goal(goal, target)

    def _normalise_stencil(self, neighbourhood: str, stencil) -> None:
        """``stencil`` as sorted distinct offsets (from text or pairs); RulesError on a bad neighbourhood."""
        names = (*NEIGHBOURHOODS, "stencil")
        if neighbourhood not in names:
            raise RulesError(f"unknown neighbourhood {neighbourhood!r}; expected one of {', '.join(names)}")
        if (neighbourhood == "stencil") != (stencil is not None):
            raise RulesError("neighbourhood 'stencil' needs stencil offsets, and only it takes them")
        if isinstance(stencil, str):
            stencil = parse_stencil(stencil)
        if stencil is not None:
            try:
                stencil = tuple(sorted({(int(r), int(c)) for r, c in stencil}))
            except (TypeError, ValueError):
                raise RulesError(f"a stencil is offsets (row, col) or text like 'x.x/.x./x.x', "
                                 f"got {stencil!r:.60}") from None
            if not stencil:
                raise RulesError("a stencil needs at least one offset")
        set_fields(self, neighbourhood=neighbourhood, stencil=stencil)

    def _key(self) -> tuple:
        return (self.rows, self.cols, self.goal, self.wrap, self.neighbourhood, self.stencil, self.target,
                self.states)

    def _fields(self) -> tuple[str, ...]:
        return ("goal", "wrap", "neighbourhood", "stencil", "target", "states", "cells", "shape")

    def __repr__(self) -> str:
        extra = "" if self.binary else f", states={self.states}"
        return (f"Game({self.rows}, {self.cols}, {self.goal!r}, wrap={self.wrap}, "
                f"neighbourhood={self.neighbourhood!r}{extra})")

    def replace(self, **changes) -> Game:
        """This grid with some parameters changed (``rows``, ``goal``, ``target``, ...).  O(1)."""
        params = {k: getattr(self, k) for k in ("rows", "cols", "goal", "wrap", "neighbourhood", "stencil",
                                                 "target", "states")}
        return Game(**(params | changes))

    @property
    def offsets(self) -> tuple[tuple[int, int], ...]:
        """(row, col) offsets flipped by a press."""
        return self.stencil if self.stencil is not None else NEIGHBOURHOODS[self.neighbourhood]

    @property
    def rules(self) -> str:
        """Short description, e.g. ``4x4 plus, goal any`` or ``5x5 king toroidal, Z_3, goal 0``."""
        kind = "" if self.binary else f", {self.kind}"
        return f"{self.size} {self.neighbourhood}{' toroidal' if self.wrap else ''}{kind}, goal {self.goal}"

    @property
    def m(self) -> int:
        """Number of buttons (one per cell on a grid): the bits of a press set."""
        return self.rows * self.cols

    @cached_property
    def chaseable(self) -> bool:
        """True if light chasing applies: the press of every cell flips what a plus grid without wrap flips
        (:attr:`PressSystem.chaseable`, read from the buttons).  Without wrap-around, O(|offsets|): the
        presses agree exactly when the offsets that land on some cell are the plus offsets that do; with
        it, the buttons one by one until one differs."""
        if not self.binary:
            return False
        if not self.wrap:
            plus = {(dr, dc) for dr, dc in NEIGHBOURHOODS["plus"] if abs(dr) < self.rows and abs(dc) < self.cols}
            return {(dr, dc) for dr, dc in self.offsets if abs(dr) < self.rows and abs(dc) < self.cols} == plus
        return all(self.flipped_by(j) == plus_cells(self.shape, j) for j in range(self.m))

    @property
    def buttons_on_cells(self) -> bool:
        """Always True: button ``j`` of a grid is the press of cell ``j`` (a stencil without its centre leaves
        the cell itself unchanged, but the press is still that cell's)."""
        return True

    def flipped_cells(self, j: int) -> tuple[int, ...]:
        """The cells pressing cell ``j`` flips (:meth:`flipped_by`)."""
        return self.flipped_by(j)

    @property
    def entries(self) -> int:
        """Non-zero entries of the press matrix, without building it.

        Without wrap-around, offset (dr, dc) lands on a cell for ``(rows - |dr|) * (cols - |dc|)``
        presses; with it, for every press (an upper bound: on a small torus two offsets may meet).
        O(|offsets|).

        >>> Game(4, 4).entries  # 16 centres, 2 * 12 vertical and 2 * 12 horizontal neighbours
        64
        """
        if self.wrap:
            return self.n * len(self.offsets)
        return sum(max(self.rows - abs(dr), 0) * max(self.cols - abs(dc), 0) for dr, dc in self.offsets)

    def with_goal(self, goal: str, target=None) -> Game:
        """The same grid with another goal, e.g. ``game.with_goal("white")``.  O(1).

        >>> Game(3, 3, "any", wrap=True).with_goal("white").rules
        '3x3 plus toroidal, goal white'
        """
        return self.replace(goal=goal, target=target)

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
    def buttons(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Button ``j`` as ``((cell, 1), ...)`` over the cells pressing ``j`` changes.  O(n |offsets|)."""
        return tuple(tuple((c, 1) for c in self.flipped_by(j)) for j in range(self.n))

    @cached_property
    def press_masks(self) -> tuple[int, ...]:
        """``press_masks[j]`` is the bitmask of cells flipped by press ``j`` (column j of A)."""
        self._need_binary("press masks")
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
        out = {"rows": self.rows, "cols": self.cols, "goal": self.goal, "wrap": self.wrap,
               "neighbourhood": self.neighbourhood,
               "stencil": [list(o) for o in self.stencil] if self.stencil else None,
               "target": self.target if self.binary or self.target is None else list(self.target)}
        return out if self.binary else out | {"states": self.states if self.states else "counters"}

    def apply(self, board, presses):
        """The board after the presses.  Two states: a plain simulation, cell by cell, that never
        builds a press matrix: O(n + presses * |offsets|) on one byte per cell, so a 1x1000000 board
        is as fast as a 1000x1000 one.  Other states: :meth:`PressSystem.apply`."""
        if not self.binary:
            return super().apply(board, presses)
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
    of :meth:`Board.from_rows` and the judge formats.  Takes ``B``/``W`` and the digits ``1``/``0``
    too (as boards of a press system are written); drops CR, LF, tabs and spaces around and
    between cells.  O(len(raw)).

    Raises
    ------
    BoardFormatError
        Naming ``case`` and ``line`` (1-based): a character other than ``b``/``w``, or a row of
        the wrong length.

    >>> parse_row(" b w w b\\r\\n", 4, 1, 1), parse_row("1001", 4, 1, 1), parse_row("BWWB", 4, 1, 1)
    ('bwwb', 'bwwb', 'bwwb')
    """
    if len(raw) == cols and not raw.strip("bw"):  # the common case: exactly one row, nothing else
        return raw
    row = "".join(raw.split())
    if not row:
        return None
    if row.strip("bw"):  # upper case or digits, or some other character: name the first one
        if row.strip("bwBW01"):
            bad = next(ch for ch in row if ch not in "bwBW01")
            hint = " (the input is not UTF-8 text)" if bad == "\ufffd" else ""
            raise BoardFormatError(f"expected only 'b' or 'w' (or 1 and 0), got {ascii(bad)} in {_shown(raw)}{hint}",
                                   case=case, line=line)
        row = row.translate(OTHER_CELL_CHARS)
    if len(row) != cols:
        error = BoardFormatError(f"expected a row of {cols} cells 'b'/'w', got {len(row)} "
                                 f"cell{'s' if len(row) != 1 else ''} in {_shown(raw)}", case=case, line=line)
        error.cells = len(row)
        raise error
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

"""Boards as the pipeline takes them: one board (:func:`one_board`) and one board-set type (:class:`BoardSet`).

Every board a command or the Python API hands over is read, checked against its press system and
put into the system's board form here, once: an int bitmask on two states (bit ``i`` = cell ``i``),
a tuple of states beyond.  A :class:`BoardSet` is many boards of one system, checked once, as a
numpy array: uint64 bitmasks of shape (k,) up to 64 cells, an object array of Python ints above, and
rows of states of shape (k, n) beyond two states (uint8 for k states, int64 for counters).  It is made
from given boards (:meth:`BoardSet.of`), every board (:meth:`BoardSet.every`) or a seeded sample
(:meth:`BoardSet.sample`), and cut into chunks that need no second check.

A board is written as

* a bitmask (two states), or a sequence of ``n`` states (any system; 0/1 on two states);
* rows of text on a system with a grid shape: ``b``/``w`` or ``0``/``1`` on two states, one symbol per
  cell (``0-9a-z``) or numbers separated by spaces beyond (:func:`parse_state_row`); one string with
  the rows separated by white space, or a list of row strings; with no system given, ``b``/``w`` rows
  make a Flip Game grid of their shape;
* a :class:`~flipgame.model.grid.Board`.

>>> from flipgame.model.grid import Game
>>> one_board(["bw", "wb"], None)[0], one_board((1, 0, 0, 1), Game(2, 2))[0]
(9, 9)
>>> len(BoardSet.every(Game(2, 2))), BoardSet.sample(Game(3, 3, states=3), 4, seed=1).boards.shape
(16, (4, 9))
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from flipgame.core.errors import BoardFormatError, RulesError
from flipgame.core.limits import COUNTER_MAX, EXHAUSTIVE_DEFAULT_MAX_CELLS, EXHAUSTIVE_MAX_CELLS, NUMBER_DIGITS
from flipgame.model.grid import Board, Game
from flipgame.model.parts import is_number
from flipgame.model.system import SYMBOLS, PressSystem

DTYPE_WORDS = {"f": "floats", "c": "complex numbers", "b": "booleans", "U": "text", "S": "bytes"}
"""How a batch error names an array's kind of values (numpy's ``dtype.kind``)."""


def parse_state_row(text: str, states: int | None, cells: int | None = None) -> list[int]:
    """One row of cell states: one character per cell (``0..9a..z`` for K <= 36, lower case; ``b``/``w`` for
    two states), or decimal numbers separated by spaces or commas (counters, or any K).  A row of ``cells`` 1
    with more than one digit is one number (``18``: nothing to separate).  O(len(text)).

    Raises BoardFormatError naming the bad cell.

    >>> parse_state_row("0 12 3", None), parse_state_row("bwb", 2), parse_state_row("20a", 11)
    ([0, 12, 3], [1, 0, 1], [2, 0, 10])
    """
    text = text.strip()
    if states == 2 and text and not "".join(text.split()).strip("bw"):  # b/w cells, spaces between them allowed
        return [1 if ch == "b" else 0 for ch in text if ch in "bw"]
    if " " in text or "\t" in text or "," in text or (cells == 1 and len(text) > 1 and text.isdecimal()):
        words = text.replace(",", " ").split()
        bad = next((w for w in words if not is_number(w) or len(w) > NUMBER_DIGITS), None)
        if bad is not None:
            raise BoardFormatError(f"expected numbers separated by spaces, got {bad!r:.20} in {text!r:.40}")
        values = [int(w) for w in words]
    else:
        if states != 2 and text and not text.strip("bw"):
            raise BoardFormatError(f"b/w cells are for two states; with {states or 'counter'} states write each cell "
                                   f"as a digit 0..{(states or 10) - 1} (got {text!r:.40})")
        bad = next((ch for ch in text if ch not in SYMBOLS), None)
        if bad is not None:
            raise BoardFormatError(f"expected states 0..{(states or 10) - 1} (one character each, 0-9 then a-z), "
                                   f"got {ascii(bad)} in {text!r:.40}")
        values = [SYMBOLS.index(ch) for ch in text]
    top = states if states else COUNTER_MAX + 1
    bad = next((v for v in values if v >= top), None)
    if bad is not None:
        raise BoardFormatError(f"state {bad} is not below {top} (states 0..{top - 1}) in {text!r:.40}")
    return values


def one_board(board, system: PressSystem | None):
    """``board`` in ``system``'s board form, and the system (a Flip Game grid of the board's shape when
    ``system`` is None and the board is ``b``/``w`` rows or a :class:`~flipgame.model.grid.Board`).

    Raises
    ------
    RulesError, BoardFormatError
        Both :class:`~flipgame.core.errors.FlipgameError` s: a board that does not fit the system, text
        that is not a board, or a value of another type; the message says what was expected.

    Running time O(n).
    """
    if system is not None:
        rules_of(system)
    if isinstance(board, str):
        board = board.split()
    if isinstance(board, np.ndarray) and board.ndim == 0:  # numpy's scalar array: the number it holds
        board = board.item()
    if isinstance(board, np.ndarray) and board.ndim == 2 and system is not None and board.shape == system.shape:
        board = board.reshape(-1)  # a grid's cells as a rows x cols array
    if isinstance(board, (list, tuple)) and board and all(isinstance(r, str) for r in board):
        return _rows_board(list(board), system)
    if isinstance(board, Board):
        return _grid_board(board, system)
    if not isinstance(board, (int, np.integer, list, tuple, np.ndarray)) or isinstance(board, bool):
        raise RulesError(f"expected a Board, rows of text, an int bitmask or a sequence of cell states, got "
                         f"{_kind(board)}")
    if system is None:
        raise RulesError(f"a board given as {_kind(board)} needs its rules: game=Game(rows, cols, ...) or a "
                         f"PressSystem")
    return system.board_of(board), system


def _kind(value) -> str:
    if isinstance(value, bool):
        return f"the bool {value}"
    return "a bitmask" if isinstance(value, (int, np.integer)) else type(value).__name__


def rules_of(system) -> PressSystem:
    """``system`` if it is a press system (a :class:`~flipgame.model.grid.Game` is one); RulesError otherwise."""
    if not isinstance(system, PressSystem):
        raise RulesError(f"the rules (game=) must be a PressSystem such as Game(4, 4) or from_json(...), got "
                         f"{type(system).__name__} {str(system)[:40]!r}")
    return system


def _grid_board(board: Board, system: PressSystem | None):
    """A :class:`Board` (``b``/``w`` cells of a shape) on ``system``, or on the Flip Game grid of its shape."""
    system = system or Game(board.rows, board.cols)
    if system.shape != (board.rows, board.cols):
        raise RulesError(f"board is {board.rows}x{board.cols} but the rules are {system.size}")
    if not system.binary:
        raise RulesError(f"a board of b/w cells is for two states; the rules are {system.kind}")
    return board.cells, system


def _rows_board(rows: list[str], system: PressSystem | None):
    """Rows of text on ``system`` (a grid shape needed), or ``b``/``w`` rows making a Flip Game grid."""
    if system is None or (system.binary and system.shape is not None and all(not r.strip("bw") for r in rows)
                          and sum(1 for r in rows if r.strip()) == system.shape[0]):
        try:
            return _grid_board(Board.from_rows(rows), system)
        except BoardFormatError:
            if system is None:
                raise
    if system.shape is None:
        raise RulesError(f"rows of text need rules with a grid shape; {system.size} has none: give the board as "
                         f"a sequence of {system.n} cell states")
    lines = [r for r in rows if r.strip()]
    if len(lines) != system.shape[0]:
        raise RulesError(f"expected {system.shape[0]} rows of {system.shape[1]} cells for {system.size}, got "
                         f"{len(lines)} rows")
    cells: list[int] = []
    for number, line in enumerate(lines, start=1):
        values = (_digit_row(line, system.states) if system.binary else
                  parse_state_row(line, system.states, system.shape[1]))
        if len(values) != system.shape[1]:
            raise BoardFormatError(f"expected a row of {system.shape[1]} cells, got {len(values)}", line=number)
        cells.extend(values)
    return system.board_of(cells), system


def _digit_row(text: str, states: int) -> list[int]:
    """A two-state row: ``b``/``w`` or ``0``/``1`` per cell (spaces between cells allowed)."""
    row = "".join(text.split())
    if row.strip("bw") and row.strip("01"):
        bad = next(ch for ch in row if ch not in "bw01")
        raise BoardFormatError(f"expected only 'b'/'w' or '0'/'1', got {ascii(bad)} in {text.strip()!r:.40}")
    return [1 if ch in "b1" else 0 for ch in row]


def random_boards(system: PressSystem, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` uniformly random boards of ``system`` drawn from ``rng``: two states up to 64 cells uint64 shape
    (count,) (an object array of ints above); k states int64 shape (count, n).  O(count n).

    Raises RulesError for counters (no finite set of boards)."""
    if not system.binary:
        if system.states is None:
            raise RulesError("counters have no finite set of boards to draw from")
        return rng.integers(0, system.states, size=(count, system.cells), dtype=np.int64)
    if system.cells < 64:
        return rng.integers(0, 1 << system.cells, size=count, dtype=np.uint64, endpoint=False)
    words = rng.integers(0, 2**64 - 1, size=(count, -(-system.cells // 64)), dtype=np.uint64, endpoint=True)
    if system.cells == 64:
        return words[:, 0]
    return np.array([sum(int(w) << (64 * i) for i, w in enumerate(row)) & system.full for row in words],
                    dtype=object)


def integers(values, what: str) -> np.ndarray:
    """``values`` as an array of integers (an integer dtype, or Python ints in an object array), never
    parsed from text nor cut from a float (1.5 is not read as 1).  Raises RulesError(``what``, and the
    kind of value found)."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise RulesError(f"{what}: {exc}") from None
    if arr.dtype.kind in "iu":
        return arr
    if not arr.size:
        return arr.astype(np.int64)
    if arr.dtype.kind == "O":
        bad = [v for v in arr.flat if not isinstance(v, (int, np.integer)) or isinstance(v, bool)][:1]
        if not bad:
            return arr
        raise RulesError(f"{what}, got {type(bad[0]).__name__} {str(bad[0])[:20]!r}")
    raise RulesError(f"{what}, got {DTYPE_WORDS.get(arr.dtype.kind, 'values')} ({arr.dtype})")


def _out_of_range(values: np.ndarray, top: int) -> int | None:
    """A value of ``values`` (an integer or object array) outside ``0..top-1``, or None.  O(size)."""
    if not values.size:
        return None
    low, high = values.min(), values.max()
    if low < 0:
        return int(low)
    return int(high) if high >= top else None


def _checked(system: PressSystem, boards) -> np.ndarray:
    """``boards`` checked against ``system``, in a :class:`BoardSet`'s array form; RulesError naming what
    does not fit."""
    if not system.binary:
        rows = integers(boards, f"boards of {system.size} are rows of {system.n} integer states")
        if rows.ndim != 2 or rows.shape[1] != system.n:
            raise RulesError(f"boards of {system.size} are an array of shape (b, {system.n}), got {rows.shape}")
        top = system.states if system.states else COUNTER_MAX + 1
        bad = _out_of_range(rows, top)
        if bad is not None:
            raise RulesError(f"a board cell is {bad}, not a state 0..{top - 1}")
        return rows.astype(np.uint8 if system.states else np.int64)
    values = integers(boards, f"boards of {system.size} are integer bitmasks")
    if values.ndim != 1:
        raise RulesError(f"boards must be a one-dimensional array of bitmasks, got shape {values.shape}")
    bad = _out_of_range(values, system.full + 1)
    if bad is not None:
        raise RulesError(f"board {bad} is not a {system.size} bitmask (0..{system.full})")
    if system.n > 64:
        return np.array([int(b) for b in values.tolist()], dtype=object).reshape(len(values))
    return values.astype(np.uint64)


@dataclass(frozen=True, eq=False)
class BoardSet:
    """Many boards of one press system, each checked once.

    Attributes
    ----------
    system : PressSystem
    boards : ndarray
        uint64 shape (k,) on two states up to 64 cells; object array of Python ints shape (k,) above;
        uint8 shape (k, n) on k states; int64 shape (k, n) for counters.
    description : str
        What the boards are, for messages: ``all 65536``, ``a sample (seed 0) of 100``.

    Make one with :meth:`of`, :meth:`every` or :meth:`sample`; the constructor itself checks nothing.
    """

    system: PressSystem
    boards: np.ndarray
    description: str = ""

    @classmethod
    def of(cls, system: PressSystem, boards, description: str = "") -> BoardSet:
        """``boards`` (an array or sequence in any integer form) checked against ``system``.  O(k n).

        Raises
        ------
        RulesError
            A board that does not fit, a value that is not an integer, or a wrong shape.
        """
        rules_of(system)
        if isinstance(boards, BoardSet):
            if boards.system is system or boards.system == system:
                return boards
            raise RulesError(f"the board set is of {boards.system.rules}, not of {system.rules}")
        checked = _checked(system, boards)
        return cls(system, checked, description or f"{len(checked)} given")

    @classmethod
    def every(cls, system: PressSystem, max_cells: int = EXHAUSTIVE_MAX_CELLS) -> BoardSet:
        """Every board of ``system``: ``2**n`` bitmasks, or ``k**n`` rows of states (digit i = cell i, cell 0
        most significant), at most ``2**max_cells`` of them.  O(k n) memory.

        Raises
        ------
        RulesError
            Too many boards (naming ``--sample``), or counters (no finite board set).
        """
        if rules_of(system).states is None:
            raise RulesError("counters have no finite set of boards to check; give boards, or solve them one by one")
        total = system.states ** system.n
        if total > 1 << max_cells:
            words = f"2**{system.n}" if system.binary else f"{system.states}^{system.n} = {total:,}"
            raise RulesError(f"{system.size} has {words} boards; pass a sample of boards")
        if system.binary:
            return cls(system, np.arange(total, dtype=np.uint64), f"all {total}")
        powers = system.states ** np.arange(system.n - 1, -1, -1, dtype=np.int64)
        idx = np.arange(total, dtype=np.int64)
        return cls(system, ((idx[:, None] // powers[None, :]) % system.states).astype(np.uint8), f"all {total}")

    @classmethod
    def sample(cls, system: PressSystem, count: int, seed: int = 0) -> BoardSet:
        """``count`` boards drawn uniformly at random (numpy's ``default_rng(seed)``), with replacement, except
        that on two states ``count >= 2**n`` (n up to :data:`~flipgame.core.limits.EXHAUSTIVE_MAX_CELLS`)
        gives every board once, in order.  O(count n).

        Raises RulesError for a count that is not a non-negative integer, or counters."""
        rules_of(system)
        if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or count < 0:
            raise RulesError(f"a sample is a number of boards (0 or more), got {str(count)[:40]!r}")
        if system.binary and system.n <= EXHAUSTIVE_MAX_CELLS and count >= 1 << system.n:
            every = cls.every(system)
            what = f"a sample (seed {seed}) of {count}" if len(every) == count else \
                f"--sample {count}: every one of the {len(every)}"
            return cls(system, every.boards, what)
        boards = random_boards(system, np.random.default_rng(seed), count)
        return cls(system, boards if system.binary else boards.astype(np.uint8),
                   f"a sample (seed {seed}) of {count}")

    @classmethod
    def chosen(cls, system: PressSystem, *, sample: int | None = None, seed: int | None = None,
               exhaustive: bool = False, hint: str = "") -> BoardSet:
        """The boards an agreement run checks (``verify``'s ``--sample``, ``--seed`` and ``--exhaustive``):
        every board up to :data:`~flipgame.core.limits.EXHAUSTIVE_DEFAULT_MAX_CELLS` cells' worth (``2**20``
        boards), or with ``exhaustive`` up to :data:`~flipgame.core.limits.EXHAUSTIVE_MAX_CELLS`; else a
        seeded sample of ``sample`` boards.

        Raises
        ------
        RulesError
            A bad combination, or too many boards without ``sample`` (the message ends with ``hint``).
        """
        if sample is not None and exhaustive:
            raise RulesError("give either --sample or --exhaustive, not both")
        if seed is not None and sample is None:
            raise RulesError("--seed chooses the boards of --sample N; give --sample too")
        if system.states is None:
            raise RulesError("verify enumerates boards, and counters have no finite board set; flipgame solve "
                             "answers them (auto, cpsat, ilp, bfs)")
        if sample is not None:
            if system.binary and sample > 1 << EXHAUSTIVE_MAX_CELLS:
                raise RulesError(f"--sample {sample}: at most 2**{EXHAUSTIVE_MAX_CELLS} boards a run (as "
                                 f"--exhaustive); run several seeds for more")
            return cls.sample(system, sample, 0 if seed is None else seed)
        return cls._every_checked(system, exhaustive, hint)

    @classmethod
    def _every_checked(cls, system: PressSystem, exhaustive: bool, hint: str) -> BoardSet:
        """:meth:`every`, within the default or ``--exhaustive`` cap of :meth:`chosen`."""
        total = system.states ** system.n
        if total <= 1 << EXHAUSTIVE_DEFAULT_MAX_CELLS or (exhaustive and total <= 1 << EXHAUSTIVE_MAX_CELLS):
            return cls.every(system)
        if system.binary:
            if exhaustive:
                raise RulesError(f"--exhaustive allows at most {EXHAUSTIVE_MAX_CELLS} cells "
                                 f"(2**{EXHAUSTIVE_MAX_CELLS} boards); use --sample N")
            raise RulesError(f"{system.size} has 2**{system.n} boards; check a random sample with --sample N "
                             f"[--seed S]{hint}")
        more = f" or --exhaustive (up to 2**{EXHAUSTIVE_MAX_CELLS} boards)" if total <= 1 << EXHAUSTIVE_MAX_CELLS \
            else ""
        raise RulesError(f"{system.states}^{system.n} = {total:,} boards: give --sample N{more}")

    def __len__(self) -> int:
        return len(self.boards)

    def __getitem__(self, i: int):
        """Board ``i`` in the system's board form: an int, or a tuple of states."""
        value = self.boards[i]
        return int(value) if np.ndim(value) == 0 else tuple(int(v) for v in value)

    def __iter__(self) -> Iterator:
        return (self[i] for i in range(len(self)))

    def part(self, lo: int, hi: int) -> BoardSet:
        """Boards ``lo..hi-1``, already checked (a view of the array).  O(1)."""
        return BoardSet(self.system, self.boards[lo:hi], self.description)

    def chunks(self, size: int) -> list[BoardSet]:
        """The boards in consecutive parts of ``size`` (the last one shorter).  O(k / size)."""
        return [self.part(lo, lo + size) for lo in range(0, len(self), size)]


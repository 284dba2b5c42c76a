"""The one model of the game: a press system of cells, buttons, states and a goal.

A press system has ``n`` cells and ``m`` buttons; button ``j`` adds ``A[i, j]`` to cell ``i`` (the press matrix,
shape (n, m)).  With ``states = k`` a cell holds ``0..k-1``, everything mod k, so a press count is ``0 <= t < k``;
with ``states = None`` (counters) cells are integers, presses only add, a count is any ``t >= 0``.  A press
vector costs its total count.  Boards and press vectors are written in one of two ways, chosen by the states:

* **two states** (the Flip Game, Lights Out, POJ 1830, Advent of Code 2025 day 10 part 1): a board is an int
  bitmask (bit ``i`` = cell ``i`` in state 1, "black"), a press set an int bitmask of buttons (bit ``j`` =
  button ``j`` pressed once), and :attr:`PressSystem.press_masks` holds each button as the bitmask of the
  cells it flips (an odd amount flips, an even one does not);
* **k >= 3 states or counters**: a board is a tuple of ``n`` ints, a press vector a tuple of ``m`` counts.

The grid (:class:`~flipgame.model.grid.Game`), graphs, edge lists and JSON rules (:mod:`flipgame.model.rules`)
generate press systems; every fast path reads the structure from the buttons (:attr:`PressSystem.chaseable`).
The model loads numpy only where it makes arrays (:attr:`~PressSystem.matrix`, :meth:`~PressSystem.apply_many`).

The goal is ``any`` (a uniform board: all cells equal), a state (``white`` = 0, ``black`` = k - 1, or a number
``D``), or ``board`` (an explicit target).  Counters have no uniform goal ``any``.  :meth:`PressSystem.apply`
is the plain simulation the referee (:mod:`flipgame.verify.checks`) re-applies: it shares no code with a solver.

Source: the linear-algebra view of Lights Out over Z_k (Anderson & Feil, "Turning Lights Out with Linear
Algebra", Math. Magazine 71(4), 1998; Lights Out 2000's three-state variant is the k = 3 case).

>>> s = PressSystem(3, (((0, 1), (1, 1)), ((1, 1), (2, 1))), goal="white")
>>> s.press_masks, s.apply(0b101, 0b11)
((3, 6), 0)
"""

from __future__ import annotations

from functools import cached_property

from flipgame.core.bits import set_bits
from flipgame.core.errors import RulesError
from flipgame.core.limits import COUNTER_MAX
from flipgame.model.parts import (
    canonical_goal,
    check_buttons,
    check_cells,
    check_shape,
    check_states,
    is_int,
    plus_cells,
    sequence_types,
    short,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time of the judge's lane)
if TYPE_CHECKING:
    import numpy as np

SYMBOLS = "0123456789abcdefghijklmnopqrstuvwxyz"
"""A state written as one character (K <= 36); larger states are written as numbers separated by spaces."""
UNIFORM = ("any", "white", "black")
"""The goals of a two-state system a backend sees once the gate has normalised an explicit goal board."""


class PressSystem:
    """Cells, buttons, states and goal: the game every backend solves.

    Parameters
    ----------
    cells : int
        Number of cells n, 1..:data:`~flipgame.core.limits.SYSTEM_MAX_CELLS`.
    buttons : sequence of sequence of (int, int)
        Button j as ``((cell, amount), ...)``: pressing it adds ``amount`` to ``cell``; a cell
        listed twice adds twice.  At most :data:`~flipgame.core.limits.SYSTEM_MAX_BUTTONS` buttons.
    states : int or None
        k in 2..:data:`~flipgame.core.limits.STATES_MAX` (cells mod k), or None for counters.
    goal : str
        ``any``, ``white`` (state 0), ``black`` (state k - 1), a state ``D`` (decimal) or ``board``.
        Two-state goals are kept as ``any``/``white``/``black``/``board``; others as ``any``, ``D``
        or ``board``.
    target : int or sequence of int, optional
        The goal board for ``goal="board"``, in the system's board form (a bitmask for two states).
    shape : (int, int), optional
        Rows and columns for display and for reading boards as rows (rows * cols = cells).

    Raises
    ------
    RulesError
        A bad size, state count, button cell or amount, goal or target, naming it.

    Instances are immutable and hashable (they key the caches of eliminations and models).
    """

    def __init__(self, cells: int, buttons, states: int | None = 2, goal: str = "any", target=None,
                 shape: tuple[int, int] | None = None):
        set_fields(self, cells=check_cells(cells), states=check_states(states), shape=check_shape(shape, cells))
        set_fields(self, buttons=check_buttons(buttons, cells, states))
        self._set_goal(goal, target)

    # --- identity -------------------------------------------------------------------------------
    def _key(self) -> tuple:
        return (self.cells, self.buttons, self.states, self.goal, self.target, self.shape)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable; use with_goal() or build a new one")

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((type(self).__name__, self._key()))
            set_fields(self, _hash=h)
        return h

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.rules}>"

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k in self._fields()}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def _fields(self) -> tuple[str, ...]:
        return ("cells", "buttons", "states", "goal", "target", "shape")

    # --- the goal -------------------------------------------------------------------------------
    def _set_goal(self, goal: str, target) -> None:
        """Store ``goal`` in its canonical spelling and ``target`` in board form; RulesError if wrong."""
        goal = canonical_goal(goal, self.states)
        if (goal == "board") != (target is not None):
            raise RulesError("goal 'board' needs a target board, and only it takes one")
        set_fields(self, goal=goal, target=None if target is None else self.board_of(target, "target"))

    @property
    def goal_state(self) -> int | None:
        """The state every cell must reach (0 for ``white``), or None for ``any`` and ``board``."""
        if self.goal in ("any", "board"):
            return None
        return {"white": 0, "black": 1}.get(self.goal) if self.binary else int(self.goal)

    # --- sizes ----------------------------------------------------------------------------------
    @property
    def n(self) -> int:
        """Number of cells."""
        return self.cells

    @property
    def m(self) -> int:
        """Number of buttons: the bits of a two-state press set."""
        return len(self.buttons)

    @property
    def binary(self) -> bool:
        """True for two states: boards and press sets are bitmasks."""
        return self.states == 2

    @property
    def full(self) -> int:
        """The all-ones board of a two-state system, ``2**n - 1``."""
        return (1 << self.cells) - 1

    @property
    def entries(self) -> int:
        """Non-zero entries of the press matrix (pairs button, cell it changes): a model's size.  O(m)."""
        return sum(len(b) for b in self.buttons)

    @property
    def rows(self) -> int | None:
        """Rows of the grid shape, or None for a system without one."""
        return self.shape[0] if self.shape else None

    @property
    def cols(self) -> int | None:
        """Columns of the grid shape, or None for a system without one."""
        return self.shape[1] if self.shape else None

    @cached_property
    def chaseable(self) -> bool:
        """True when light chasing applies: two states, a grid shape, and button ``j`` flips exactly cell
        ``j`` and its up, down, left and right neighbours inside the grid (the plus neighbourhood without
        wrap-around), whatever file or class the rules came from.  Read from the buttons: O(entries), the
        first button that differs ends the test; cached."""
        if not self.binary or self.shape is None or self.m != self.cells:
            return False
        return all(self.flipped_cells(j) == plus_cells(self.shape, j) for j in range(self.m))

    @cached_property
    def buttons_on_cells(self) -> bool:
        """True when button ``j`` is the press of cell ``j`` of the grid shape (one button per cell, each changing
        its own cell), so that a press set is drawn on the grid, as a board of presses.  O(entries); cached."""
        return self.shape is not None and self.m == self.cells and all(
            any(c == j for c, _ in button) for j, button in enumerate(self.buttons))

    def flipped_cells(self, j: int) -> tuple[int, ...]:
        """The cells button ``j`` changes (an odd amount on two states), sorted.  O(|button|)."""
        return tuple(c for c, a in self.buttons[j] if a % 2 or not self.binary)

    @property
    def max_press(self) -> int | None:
        """The largest useful count of one button: k - 1, or None (unbounded) for counters."""
        return None if self.states is None else self.states - 1

    @property
    def size(self) -> str:
        """``RxC`` for a grid, else ``N cells``."""
        return f"{self.shape[0]}x{self.shape[1]}" if self.shape else f"{self.cells} cells"

    @property
    def kind(self) -> str:
        """``Z_k`` or ``counters``."""
        return "counters" if self.states is None else f"Z_{self.states}"

    @property
    def rules(self) -> str:
        """Short description, e.g. ``9 cells, 9 buttons, Z_2, goal any``."""
        return f"{self.size}, {self.m} buttons, {self.kind}, goal {self.goal}"

    # --- the press matrix -----------------------------------------------------------------------
    @cached_property
    def press_masks(self) -> tuple[int, ...]:
        """Two states: ``press_masks[j]`` is the bitmask of the cells button ``j`` flips (an odd amount)."""
        self._need_binary("press masks")
        out = []
        for button in self.buttons:
            mask = 0
            for cell, amount in button:
                if amount & 1:
                    mask ^= 1 << cell
            out.append(mask)
        return tuple(out)

    @cached_property
    def flippers(self) -> tuple[tuple[int, ...], ...]:
        """Two states: ``flippers[i]`` are the buttons that flip cell ``i`` (row i of A over GF(2)).  O(entries)."""
        rows: list[list[int]] = [[] for _ in range(self.cells)]
        for j, mask in enumerate(self.press_masks):
            for i in set_bits(mask):
                rows[i].append(j)
        return tuple(tuple(r) for r in rows)

    @cached_property
    def matrix(self) -> np.ndarray:
        """The press matrix A, int64 array of shape (n, m): ``A[i, j]`` is what button j adds to cell i
        (reduced mod k when there are k states).  O(n m) memory: for the algebra over Z_k only."""
        import numpy as np
        a = np.zeros((self.cells, self.m), dtype=np.int64)
        for j, button in enumerate(self.buttons):
            for cell, amount in button:
                a[cell, j] += amount
        return a % self.states if self.states else a

    def _need_binary(self, what: str) -> None:
        if not self.binary:
            raise RulesError(f"{what} are for two-state systems; this one is {self.kind}")

    # --- boards ---------------------------------------------------------------------------------
    @cached_property
    def targets(self) -> tuple:
        """Goal boards in board form, in order of preference on ties (white before black; ``any`` over
        k states gives all-D for D = 0..k-1)."""
        if self.goal == "board":
            return (self.target,)
        if self.binary:
            return {"any": (0, self.full), "white": (0,), "black": (self.full,)}[self.goal]
        values = range(self.states) if self.goal == "any" else (int(self.goal),)
        return tuple((d,) * self.cells for d in values)

    def target_name(self, target) -> str:
        """``white`` / ``black`` for a uniform two-state board, ``all D`` for another, else ``the target board``."""
        if self.binary and target in (0, self.full):
            return "white" if target == 0 else "black"
        if not self.binary and len(set(target)) == 1:
            return f"all {target[0]}"
        return "the target board"

    def board_of(self, board, what: str = "board"):
        """``board`` in this system's board form, checked: a bitmask below ``2**n`` for two states, else a
        tuple of n states (0..k-1, or 0..:data:`~flipgame.core.limits.COUNTER_MAX` for counters).

        Raises RulesError naming ``what``.
        """
        if self.binary:
            if is_int(board) and 0 <= board <= self.full:
                return int(board)
            if isinstance(board, sequence_types()) and len(board) == self.cells and (
                    all(type(v) is int and 0 <= v <= 1 for v in board)
                    or all(is_int(v) and v in (0, 1) for v in board)):
                return sum(1 << i for i, v in enumerate(board) if v)
            raise RulesError(f"{what} is not a board of {self.size}: expected a bitmask 0..2**{self.cells}-1 or "
                             f"{self.cells} states 0/1, got {short(board)}")
        if not isinstance(board, sequence_types()) or len(board) != self.cells:
            got = f"the bitmask {short(board)} (a board of two states only)" if is_int(board) else short(board)
            raise RulesError(f"{what} is not a board of {self.size}: expected a sequence of {self.cells} cell "
                             f"states, got {got}")
        top = self.states if self.states else COUNTER_MAX + 1
        bad = next((i for i, v in enumerate(board) if not is_int(v) or not 0 <= v < top), None)
        if bad is not None:
            raise RulesError(f"{what} cell {bad} holds {short(board[bad])}, not a state 0..{top - 1}")
        return tuple(int(v) for v in board)

    def apply(self, board, presses):
        """The board after the presses: a plain loop over the buttons' (cell, amount) lists, never a
        solver's data.  Two states: bitmasks in and out, O(entries); else tuples, O(entries).

        Raises RulesError on a press vector of the wrong length.
        """
        if self.binary:
            cells = board
            for j, mask in enumerate(self.press_masks):
                if presses >> j & 1:
                    cells ^= mask
            return cells
        if len(presses) != self.m:
            raise RulesError(f"expected {self.m} press counts, got {len(presses)}")
        out = list(board)
        for count, button in zip(presses, self.buttons, strict=True):
            for cell, amount in button:
                out[cell] += count * amount
        return tuple(v % self.states for v in out) if self.states else tuple(out)

    def apply_many(self, boards: np.ndarray, presses: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`apply`: on two states up to 64 cells uint64 arrays of shape (k,) in and out, from
        the press masks, O(k m); beyond, int64 rows of states (k, n) and of counts (k, m), through the press
        matrix (mod k), O(k n m)."""
        import numpy as np
        if not self.binary:
            after = np.asarray(boards, dtype=np.int64) + np.asarray(presses, dtype=np.int64) @ self.matrix.T
            return after % self.states if self.states else after
        out = np.asarray(boards, dtype=np.uint64).copy()
        presses = np.asarray(presses, dtype=np.uint64)
        for j, mask in enumerate(self.press_masks):
            out ^= ((presses >> np.uint64(j)) & np.uint64(1)) * np.uint64(mask)
        return out

    def cost(self, presses) -> int:
        """Total presses of a press set (bitmask) or vector (counts)."""
        return presses.bit_count() if self.binary else sum(presses)

    def counts(self, presses) -> tuple[int, ...]:
        """Press counts per button (a tuple of m ints) for either form of a press set."""
        if self.binary:
            return tuple(presses >> j & 1 for j in range(self.m))
        return tuple(presses)

    # --- variants -------------------------------------------------------------------------------
    def with_goal(self, goal: str, target=None) -> PressSystem:
        """The same press system with another goal, e.g. ``system.with_goal("white")``: the buttons, already
        checked, and what is derived from them alone (press masks, flippers) are shared; only the goal is
        checked.  O(1) plus the target's size."""
        other = object.__new__(PressSystem)
        set_fields(other, cells=self.cells, states=self.states, shape=self.shape, buttons=self.buttons)
        set_fields(other, **{name: self.__dict__[name] for name in _BUTTONS_ONLY if name in self.__dict__})
        other._set_goal(goal, target)
        return other

    @property
    def normal(self) -> PressSystem:
        """The rules a backend sees: on two states an explicit goal board becomes ``white`` (the gate
        then solves ``board ^ target``); anything else is kept.  O(1)."""
        return self.with_goal("white") if self.binary and self.goal == "board" else self

    def to_json(self) -> dict:
        """The system as the JSON press-system format (docs/general-game.md), goal and target included."""
        out: dict = {"grid": self.size} if self.shape else {"cells": self.cells}
        out["states"] = self.states if self.states else "counters"
        out["buttons"] = [[c for c, _ in b] for b in self.buttons]
        if any(a != 1 for b in self.buttons for _, a in b):
            out["amounts"] = [[a for _, a in b] for b in self.buttons]
        out["goal"] = self.goal
        if self.target is not None:
            out["target"] = self.cells_of(self.target)
        return out

    # --- text -----------------------------------------------------------------------------------
    def cells_of(self, board) -> list[int]:
        """A board (either form) as a list of n cell states."""
        return [board >> i & 1 for i in range(self.cells)] if self.binary else [int(v) for v in board]

    def format_board(self, board) -> str:
        """A board as rows of symbols (a grid) or one line; numbers with spaces above 36 states."""
        cells = self.cells_of(board)
        wide = self.states is None or self.states > len(SYMBOLS)
        text = [str(v) if wide else SYMBOLS[v] for v in cells]
        sep = " " if wide else ""
        if not self.shape:
            return sep.join(text)
        cols = self.shape[1]
        return "\n".join(sep.join(text[r * cols:(r + 1) * cols]) for r in range(self.shape[0]))

    def format_presses(self, presses) -> str:
        """The pressed buttons numbered from 0 in the rules' order, a count after a repeat (``0, 3 (x2)``)."""
        return ", ".join(f"{j} (x{t})" if t > 1 else str(j) for j, t in enumerate(self.counts(presses)) if t) \
            or "(no press)"


_BUTTONS_ONLY = ("press_masks", "flippers", "chaseable", "buttons_on_cells")
"""Cached properties of a :class:`PressSystem` that depend on its buttons alone (shared by :meth:`with_goal`)."""


def set_fields(obj, **values) -> None:
    for name, value in values.items():
        object.__setattr__(obj, name, value)

"""The parts of a press system, each checked: its size, states, shape, buttons and goal, one function each.

:class:`~flipgame.model.system.PressSystem` and its generators (the grid, JSON rules, the judge formats) build a
system only from parts these functions have accepted; each raises
:class:`~flipgame.core.errors.RulesError` naming the part and what is taken.  :func:`plus_cells` is the
geometry of the plus grid without wrap-around, against which light chasing's structure is read.
"""

from __future__ import annotations

import sys
from numbers import Integral

from flipgame.core.errors import RulesError
from flipgame.core.limits import COUNTER_MAX, STATES_MAX, SYSTEM_MAX_BUTTONS, SYSTEM_MAX_CELLS


def is_number(text: str) -> bool:
    """True for a plain ASCII decimal number (no sign, no ``²`` or other Unicode digits)."""
    return text.isascii() and text.isdecimal()


def plus_cells(shape: tuple[int, int], j: int) -> tuple[int, ...]:
    """The cells a press of cell ``j`` flips on a ``rows x cols`` plus grid without wrap-around, sorted.  O(1).

    >>> plus_cells((3, 3), 4), plus_cells((3, 3), 0)
    ((1, 3, 4, 5, 7), (0, 1, 3))
    """
    rows, cols = shape
    r, c = divmod(j, cols)
    near = ((r - 1, c), (r, c - 1), (r, c), (r, c + 1), (r + 1, c))
    return tuple(rr * cols + cc for rr, cc in near if 0 <= rr < rows and 0 <= cc < cols)


def is_int(v) -> bool:
    """An integer that is not a bool: a Python int or a numpy integer (registered as ``numbers.Integral``)."""
    return isinstance(v, (int, Integral)) and not isinstance(v, bool)


def sequence_types() -> tuple[type, ...]:
    """The types a board given as cell states may have: list, tuple, and numpy's array once numpy is loaded
    (an array cannot exist before; the model never loads numpy itself, so the judge's lane runs without it)."""
    np = sys.modules.get("numpy")
    return (list, tuple) if np is None else (list, tuple, np.ndarray)


def short(value) -> str:
    """``repr(value)`` on one line (a numpy array's rows joined), at most 60 characters."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."


def check_cells(cells) -> int:
    if not is_int(cells) or not 1 <= cells <= SYSTEM_MAX_CELLS:
        raise RulesError(f"a press system has 1..{SYSTEM_MAX_CELLS:,} cells, got {short(cells)}")
    return int(cells)


def check_states(states) -> int | None:
    if states is not None and (not is_int(states) or not 2 <= states <= STATES_MAX):
        raise RulesError(f"states must be an integer 2..{STATES_MAX}, or None for counters, got {short(states)}")
    return None if states is None else int(states)


def check_shape(shape, cells: int) -> tuple[int, int] | None:
    if shape is None:
        return None
    rows, cols = shape
    if rows * cols != cells:
        raise RulesError(f"grid {rows}x{cols} has {rows * cols} cells, not {cells}")
    return int(rows), int(cols)


def check_buttons(buttons, cells: int, states: int | None) -> tuple:
    """Buttons as sorted ``((cell, amount), ...)`` tuples, a cell listed twice merged, amounts reduced mod
    k; RulesError naming a bad button."""
    if not isinstance(buttons, (list, tuple)) or not buttons:
        raise RulesError("a press system needs at least one button")
    if len(buttons) > SYSTEM_MAX_BUTTONS:
        raise RulesError(f"a press system has at most {SYSTEM_MAX_BUTTONS:,} buttons, got {len(buttons):,}")
    top = COUNTER_MAX if states is None else states - 1
    low = 1 if states is None else 0
    out = []
    for j, button in enumerate(buttons):
        acc: dict[int, int] = {}
        if not isinstance(button, (list, tuple)):
            raise RulesError(f"button {j} is {short(button)}; a button is a list of cells or of (cell, amount) pairs")
        for entry in button:
            cell, amount = entry if isinstance(entry, (list, tuple)) and len(entry) == 2 else (entry, None)
            if type(cell) is not int or type(amount) is not int or not 0 <= cell < cells or not \
                    low <= amount <= COUNTER_MAX:  # the rare case first checked in full
                cell, amount = check_entry(j, entry, cells, low)
            acc[cell] = acc.get(cell, 0) + amount
        if states is not None:
            out.append(tuple(sorted((c, r) for c, a in acc.items() if (r := a % states))))
            continue
        if any(a > top for a in acc.values()):
            raise RulesError(f"button {j} adds over {COUNTER_MAX} to one cell")
        out.append(tuple(sorted(acc.items())))  # counters: every amount is at least 1
    return tuple(out)


def check_entry(j: int, entry, cells: int, low: int) -> tuple[int, int]:
    """Button ``j``'s entry as ``(cell, amount)`` ints: a pair, or a plain cell (amount 1, as the JSON format
    writes a button); RulesError naming what is wrong."""
    if is_int(entry):
        cell, amount = entry, 1
    elif isinstance(entry, (list, tuple)) and len(entry) == 2:
        cell, amount = entry
    else:
        raise RulesError(f"button {j} has the entry {short(entry)}; expected a cell or a (cell, amount) pair")
    if not (is_int(cell) and 0 <= cell < cells):
        raise RulesError(f"button {j} names cell {short(cell)}; cells are 0..{cells - 1}")
    if not is_int(amount) or not low <= amount <= COUNTER_MAX:
        raise RulesError(f"button {j} adds {short(amount)} to cell {cell}; amounts are {low}..{COUNTER_MAX}")
    return int(cell), int(amount)

def canonical_goal(goal, states: int | None) -> str:
    """``goal`` spelt canonically (see :class:`PressSystem`); RulesError naming what is taken."""
    if not isinstance(goal, str):
        raise RulesError(f"goal must be text: any, white, black, a state or board; got {short(goal)}")
    top = None if states is None else states - 1
    if goal in ("any", "board"):
        if goal == "any" and states is None:
            raise RulesError("counters need a target board or a value D (--goal D), not 'any'")
        return goal
    if goal == "black" and top is None:
        raise RulesError("goal black: counters have no top state; give a value D or a target board")
    value = {"white": 0, "black": top}.get(goal)
    if value is None and is_number(goal) and len(goal) <= 12:
        value = int(goal)
    if value is None or (top is not None and value > top) or value > COUNTER_MAX:
        states_text = f"a state 0..{top}" if top is not None else f"a value 0..{COUNTER_MAX}"
        raise RulesError(f"goal must be any, white, black, {states_text} or board; got {short(goal)}")
    if states == 2:
        return "white" if value == 0 else "black"
    return str(value)

"""The general game: a press system over Z_k, or over the non-negative integers (counters).

A press system has ``n`` cells and ``m`` buttons.  Button ``j`` adds
``A[i, j]`` to cell ``i`` (an integer matrix, shape (n, m)).  With ``states =
k`` (k >= 2) a cell holds a state ``0..k-1`` and everything is taken mod k;
pressing button j ``t`` times adds ``t * A[:, j]``, and pressing it k times is
no press at all, so a press count is ``0 <= t < k`` and costs ``t``.  With
``states = None`` (counters) cells are integers, presses only add, and a press
count is any ``t >= 0``.

The grid game of :mod:`flipgame.model.grid` is one generator of a press system
(:func:`from_game`); the others are a JSON file (:func:`from_json`), a graph
(:func:`from_edges`) and the judge formats of :mod:`flipgame.formats.press`.

A board is a tuple of ``n`` integers; a press vector a tuple of ``m``
counts.  :meth:`PressSystem.apply` is the plain simulation the witness and
certificate checks (:mod:`flipgame.verify.checks.witness`) re-apply: it shares no
code with any solver.

The goal is ``any`` (any uniform board: all cells equal), a state ``D``
(every cell ``D``), or an explicit target board.  For counters only an
explicit target (or ``D``) makes sense: ``any`` is refused.

Source: the linear-algebra view of Lights Out over Z_k (Anderson & Feil,
Math. Magazine 71(4), 1998; Lights Out 2000's three-state variant is the
k = 3 case).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from flipgame.core.errors import BoardFormatError, RulesError
from flipgame.model.grid import Game

MAX_STATES = 255
"""Largest number of states per cell (LightsOutWeb's domain goes to 255)."""
MAX_CELLS = 10_000
"""Largest press system read from a file (the dense matrices are n x m Python integers)."""
SYMBOLS = "0123456789abcdefghijklmnopqrstuvwxyz"
"""A state written as one character (K <= 36); larger states are written as numbers separated by spaces."""


@dataclass(frozen=True)
class PressSystem:
    """Cells, buttons, states and goal of a general press game.

    Parameters
    ----------
    cells : int
        Number of cells n >= 1.
    buttons : tuple of tuple of (int, int)
        Button j as ``((cell, amount), ...)``: pressing it adds ``amount`` to ``cell``.
    states : int or None
        k >= 2 (cells mod k), or None for counters (integers, presses only add).
    goal : str
        ``"any"`` (a uniform board), ``"D"`` (every cell D, a decimal number) or ``"board"``.
    target : tuple of int, optional
        The goal board for ``goal="board"``.
    shape : (int, int), optional
        Rows and columns for display and for reading boards as rows (rows * cols = cells).

    Raises
    ------
    RulesError
        A bad size, state count, button cell or amount, goal or target.

    >>> s = PressSystem(3, (((0, 1), (1, 1)), ((1, 1), (2, 1))), states=2, goal="0")
    >>> s.apply((1, 0, 1), (1, 1))
    (0, 0, 0)
    """

    cells: int
    buttons: tuple[tuple[tuple[int, int], ...], ...]
    states: int | None = 2
    goal: str = "any"
    target: tuple[int, ...] | None = None
    shape: tuple[int, int] | None = None

    def __post_init__(self):
        if not isinstance(self.cells, int) or not 1 <= self.cells <= MAX_CELLS:
            raise RulesError(f"a press system has 1..{MAX_CELLS} cells, got {self.cells!r}")
        if self.states is not None and (not isinstance(self.states, int) or not 2 <= self.states <= MAX_STATES):
            raise RulesError(f"states must be an integer 2..{MAX_STATES} (or counters), got {self.states!r}")
        if self.shape is not None and self.shape[0] * self.shape[1] != self.cells:
            raise RulesError(f"grid {self.shape[0]}x{self.shape[1]} has {self.shape[0] * self.shape[1]} cells, "
                             f"not {self.cells}")
        if not self.buttons:
            raise RulesError("a press system needs at least one button")
        for j, button in enumerate(self.buttons):
            for cell, amount in button:
                if not 0 <= cell < self.cells:
                    raise RulesError(f"button {j} names cell {cell}; cells are 0..{self.cells - 1}")
                if amount < 0 or (self.states is None and amount == 0):
                    raise RulesError(f"button {j} adds {amount} to cell {cell}; amounts must be positive")
        self._check_goal()

    def _check_goal(self) -> None:
        if self.goal == "board":
            if self.target is None or len(self.target) != self.cells:
                raise RulesError(f"goal 'board' needs a target of {self.cells} cells")
            self.check_board(self.target, "target")
        elif self.target is not None:
            raise RulesError("only goal 'board' takes a target")
        elif self.goal == "any":
            if self.states is None:
                raise RulesError("counters need a target (--target FILE) or a value D (--goal D), not 'any'")
        elif not self.goal.isdigit() or (self.states is not None and int(self.goal) >= self.states):
            top = "" if self.states is None else f" 0..{self.states - 1}"
            raise RulesError(f"goal must be 'any', a state{top} or 'board', got {self.goal!r}")

    @property
    def m(self) -> int:
        """Number of buttons."""
        return len(self.buttons)

    @property
    def n(self) -> int:
        return self.cells

    @cached_property
    def matrix(self) -> np.ndarray:
        """The press matrix A, int64 array of shape (n, m): ``A[i, j]`` is what button j adds to cell i
        (reduced mod k when there are k states)."""
        a = np.zeros((self.cells, self.m), dtype=np.int64)
        for j, button in enumerate(self.buttons):
            for cell, amount in button:
                a[cell, j] += amount
        return a % self.states if self.states else a

    @property
    def size(self) -> str:
        """``RxC`` for a grid, else ``N cells``."""
        return f"{self.shape[0]}x{self.shape[1]}" if self.shape else f"{self.cells} cells"

    @property
    def rules(self) -> str:
        k = "counters" if self.states is None else f"Z_{self.states}"
        return f"{self.size}, {self.m} buttons, {k}, goal {self.goal}"

    @property
    def max_press(self) -> int | None:
        """The largest useful count of one button: k - 1, or None (unbounded) for counters."""
        return None if self.states is None else self.states - 1

    def targets(self, board: Sequence[int] | None = None) -> tuple[tuple[int, ...], ...]:
        """Goal boards, in order of preference on ties: ``any`` gives all-D for D = 0..k-1."""
        if self.goal == "board":
            return (tuple(self.target),)
        if self.goal == "any":
            return tuple((d,) * self.cells for d in range(self.states))
        return ((int(self.goal),) * self.cells,)

    def apply(self, board: Sequence[int], presses: Sequence[int]) -> tuple[int, ...]:
        """The board after pressing button j ``presses[j]`` times: a plain loop over the buttons'
        (cell, amount) lists, never the matrix.  O(sum of button sizes)."""
        if len(presses) != self.m:
            raise RulesError(f"expected {self.m} press counts, got {len(presses)}")
        out = list(board)
        for count, button in zip(presses, self.buttons, strict=False):
            for cell, amount in button:
                out[cell] += count * amount
        return tuple(v % self.states for v in out) if self.states else tuple(out)

    def check_board(self, board: Sequence[int], what: str = "board") -> None:
        """Raise RulesError unless ``board`` has n cells of allowed states."""
        if len(board) != self.cells:
            raise RulesError(f"{what} has {len(board)} cells, the system {self.cells}")
        top = self.states if self.states else None
        for v in board:
            if not isinstance(v, (int, np.integer)) or v < 0 or (top and v >= top):
                raise RulesError(f"{what} cell {v!r} is not a state 0..{(top or 0) - 1 if top else 'inf'}")

    def with_goal(self, goal: str, target: Sequence[int] | None = None) -> PressSystem:
        return PressSystem(self.cells, self.buttons, self.states, goal,
                           None if target is None else tuple(int(v) for v in target), self.shape)

    def to_json(self) -> dict:
        """The system as the JSON press-system format (see docs/general-game.md)."""
        out: dict = {"grid": self.size} if self.shape else {"cells": self.cells}
        out["states"] = self.states if self.states else "counters"
        out["buttons"] = [[c for c, _ in b] for b in self.buttons]
        if any(a != 1 for b in self.buttons for _, a in b):
            out["amounts"] = [[a for _, a in b] for b in self.buttons]
        return out

    def format_board(self, board: Sequence[int]) -> str:
        """A board as rows of symbols (a grid) or one line; numbers with spaces above 36 states."""
        wide = self.states is None or self.states > len(SYMBOLS)
        cells = [str(v) if wide else SYMBOLS[v] for v in board]
        sep = " " if wide else ""
        if not self.shape:
            return sep.join(cells)
        cols = self.shape[1]
        return "\n".join(sep.join(cells[r * cols:(r + 1) * cols]) for r in range(self.shape[0]))


def from_game(game: Game, states: int | None = 2, goal: str | None = None) -> PressSystem:
    """The grid game's press system: one button per cell, adding 1 to the cells it flips.

    ``goal`` defaults to the game's: ``white`` -> ``0``, ``black`` -> ``k - 1``
    (1 for k = 2), ``any`` -> ``any``, ``board`` -> its target.

    >>> from_game(Game(1, 3, goal="white")).buttons[1]
    ((0, 1), (1, 1), (2, 1))
    """
    buttons = tuple(tuple((c, 1) for c in game.flipped_by(j)) for j in range(game.n))
    target = None
    if goal is None:
        top = (states or 2) - 1
        goal = {"white": "0", "black": str(top), "any": "any", "board": "board"}[game.goal]
        if goal == "board":
            target = tuple(game.target >> i & 1 for i in range(game.n))
    return PressSystem(game.n, buttons, states, goal, target, (game.rows, game.cols))


def from_edges(cells: int, edges: Iterable[tuple[int, int]], *, closed: bool = True, directed: bool = False,
               states: int | None = 2, goal: str = "any") -> PressSystem:
    """A graph game: button v changes v's neighbours, and v itself when ``closed``.

    With ``directed``, an edge (u, v) means pressing u changes v only (POJ 1830).

    >>> from_edges(3, [(0, 1), (1, 2)], closed=False).buttons
    (((1, 1),), ((0, 1), (2, 1)), ((1, 1),))
    """
    out: list[set[int]] = [({v} if closed else set()) for v in range(cells)]
    for u, v in edges:
        if not (0 <= u < cells and 0 <= v < cells):
            raise RulesError(f"edge ({u}, {v}) names a vertex outside 0..{cells - 1}")
        out[u].add(v)
        if not directed:
            out[v].add(u)
    for v, s in enumerate(out):
        if not s:
            raise RulesError(f"vertex {v} changes no cell (an isolated vertex in the open neighbourhood)")
    buttons = tuple(tuple((c, 1) for c in sorted(s)) for s in out)
    return PressSystem(cells, buttons, states, goal)


def _shape(data: dict) -> tuple[int, tuple[int, int] | None]:
    if ("grid" in data) == ("cells" in data):
        raise RulesError('a press-system file gives either "grid": "RxC" or "cells": N')
    if "grid" in data:
        m = re.fullmatch(r"\s*([0-9]{1,5})\s*[xX]\s*([0-9]{1,5})\s*", str(data["grid"]))
        if not m:
            raise RulesError(f'"grid" must be "RxC", got {data["grid"]!r:.40}')
        rows, cols = int(m[1]), int(m[2])
        return rows * cols, (rows, cols)
    if not isinstance(data["cells"], int) or isinstance(data["cells"], bool):
        raise RulesError(f'"cells" must be an integer, got {data["cells"]!r:.40}')
    return data["cells"], None


def _int_list(value, what: str) -> list[int]:
    if not isinstance(value, list) or any(not isinstance(v, int) or isinstance(v, bool) for v in value):
        raise RulesError(f"{what} must be a list of integers, got {value!r:.60}")
    return value


def _states(value) -> int | None:
    if value in ("counters", None):
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise RulesError(f'"states" must be an integer 2..{MAX_STATES} or "counters", got {value!r:.40}')
    return value


def from_json(data: dict | str, states: int | None | str = "file", goal: str = "any",
              target: Sequence[int] | None = None) -> PressSystem:
    """A press system from the JSON format (a dict or its text).

    Keys: ``grid`` ("RxC") or ``cells`` (N); ``states`` (K, default 2, or
    ``"counters"``); ``buttons`` (a list of lists of 0-based cell indices,
    row-major) with optional ``amounts`` (the same shape: what each button adds
    to each of its cells, default 1), or instead ``edges`` (pairs of vertices)
    with ``neighbourhood`` (``closed``, default, or ``open``) and ``directed``.
    ``states`` given here (not ``"file"``) overrides the file's.

    Raises
    ------
    RulesError
        Naming the key at fault.

    >>> from_json('{"cells": 2, "states": 3, "buttons": [[0, 1]]}').matrix.tolist()
    [[1], [1]]
    """
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise RulesError(f"press-system file is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RulesError("a press-system file is a JSON object")
    known = {"grid", "cells", "states", "buttons", "amounts", "edges", "neighbourhood", "directed", "comment"}
    extra = sorted(set(data) - known)
    if extra:
        raise RulesError(f"unknown key {', '.join(map(repr, extra))} in the press-system file "
                         f"(keys: {', '.join(sorted(known))})")
    cells, shape = _shape(data)
    k = _states(data.get("states", 2)) if states == "file" else states
    buttons = _edge_buttons(data, cells, k) if "edges" in data else _listed_buttons(data)
    return PressSystem(cells, buttons, k, goal, _tuple(target), shape)


def _edge_buttons(data: dict, cells: int, k: int | None) -> tuple:
    """The buttons of the ``edges`` form of the JSON format."""
    if "buttons" in data:
        raise RulesError('give either "buttons" or "edges", not both')
    hood = data.get("neighbourhood", "closed")
    if hood not in ("closed", "open"):
        raise RulesError(f'"neighbourhood" must be "closed" or "open", got {hood!r:.40}')
    edges = [tuple(_int_list(e, "an edge")) for e in data["edges"]]
    if any(len(e) != 2 for e in edges):
        raise RulesError("an edge is a pair [u, v]")
    return from_edges(cells, edges, closed=hood == "closed", directed=bool(data.get("directed")), states=k,
                      goal="0").buttons


def _listed_buttons(data: dict) -> tuple:
    """The buttons of the ``buttons`` (and ``amounts``) form; a cell listed twice adds twice."""
    if not isinstance(data.get("buttons"), list):
        raise RulesError('a press-system file needs "buttons": a list of lists of cell indices')
    buttons = [_int_list(b, f"button {j}") for j, b in enumerate(data["buttons"])]
    amounts = data.get("amounts", [[1] * len(b) for b in buttons])
    if not isinstance(amounts, list) or len(amounts) != len(buttons) or any(
            len(_int_list(a, "amounts")) != len(b) for a, b in zip(amounts, buttons, strict=False)):
        raise RulesError('"amounts" must have the shape of "buttons" (one amount per listed cell)')
    merged = []
    for b, a in zip(buttons, amounts, strict=True):
        acc: dict[int, int] = {}
        for c, v in zip(b, a, strict=True):
            acc[c] = acc.get(c, 0) + v
        merged.append(tuple(sorted(acc.items())))
    return tuple(merged)


def _tuple(target: Sequence[int] | None) -> tuple[int, ...] | None:
    return None if target is None else tuple(int(v) for v in target)


def read_edge_list(text: str, states: int | None = 2, goal: str = "any") -> PressSystem:
    """A graph from text: optional first line ``closed`` or ``open``, optional ``cells N``, then
    one ``u v`` pair per line (``#`` starts a comment).  Vertices are 0-based; without
    ``cells N`` the count is the largest vertex plus one.

    >>> read_edge_list("open\\n0 1\\n1 2").buttons[0]
    ((1, 1),)
    """
    closed, cells, edges = True, None, []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if words in (["closed"], ["open"]):
            closed = words[0] == "closed"
        elif len(words) == 2 and words[0] == "cells" and words[1].isdigit():
            cells = int(words[1])
        elif len(words) == 2 and all(w.isdigit() for w in words):
            edges.append((int(words[0]), int(words[1])))
        else:
            raise RulesError(f"edge list line {number}: expected 'u v', 'cells N', 'closed' or 'open', "
                             f"got {raw.strip()!r:.40}")
    if cells is None:
        if not edges:
            raise RulesError("edge list: no edges and no 'cells N'")
        cells = 1 + max(max(e) for e in edges)
    return from_edges(cells, edges, closed=closed, states=states, goal=goal)


def parse_row(text: str, states: int | None) -> list[int]:
    """One row of states: digits/letters (``0..K-1``, K <= 36; ``b``/``w`` for K = 2), or numbers
    separated by spaces (counters, or any K).

    Raises BoardFormatError naming the bad cell.
    """
    text = text.strip()
    if " " in text or "\t" in text or "," in text:
        words = text.replace(",", " ").split()
        if not all(w.isdigit() for w in words):
            raise BoardFormatError(f"expected numbers separated by spaces, got {text!r:.40}")
        values = [int(w) for w in words]
    else:
        if states == 2 and text and not text.strip("bw"):
            return [1 if ch == "b" else 0 for ch in text]
        try:
            values = [SYMBOLS.index(ch) for ch in text.lower()]
        except ValueError:
            bad = next(ch for ch in text.lower() if ch not in SYMBOLS)
            raise BoardFormatError(f"expected states 0..{(states or 10) - 1}, got {ascii(bad)} in {text!r:.40}") \
                from None
    top = states if states else None
    bad = next((v for v in values if top is not None and v >= top), None)
    if bad is not None:
        raise BoardFormatError(f"state {bad} is not below {states} (states 0..{states - 1}) in {text!r:.40}")
    return values


def read_boards(lines: Iterable[str], system: PressSystem) -> Iterable[tuple[int, ...]]:
    """Boards of ``system`` from text: a grid's boards as ``rows`` lines each, other systems' as
    one line each; blank lines are skipped.  Raises BoardFormatError naming case and line."""
    rows, cols = system.shape or (1, system.cells)
    current: list[int] = []
    case = 1
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            values = parse_row(raw, system.states)
        except BoardFormatError as exc:
            raise BoardFormatError(exc.reason, case=case, line=number) from None
        if len(values) != cols:
            raise BoardFormatError(f"expected a row of {cols} cells, got {len(values)}", case=case, line=number)
        current.extend(values)
        if len(current) == rows * cols:
            yield tuple(current)
            current, case = [], case + 1
    if current:
        raise BoardFormatError(f"incomplete case at end of input: {len(current) // cols} of {rows} rows",
                               case=case)

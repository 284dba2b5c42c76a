"""The fuzzer's instances: random press systems and boards, each reproducible from (seed, index).

Families (:data:`FAMILIES`, drawn in turn by ``index``):

``grid``
    A grid of 1..5 x 1..5 cells (one in seven up to 9 x 9) with the ``plus``, ``cross`` or ``king``
    neighbourhood or a random stencil (offsets in -2..2), with or without wrap (toroidal).
``graph``
    A random graph on 1..12 vertices (edge probability 0.15..0.6), closed or open neighbourhoods,
    sometimes directed (POJ 1830).
``buttons``
    1..12 random buttons on 1..10 cells, each changing a random set of cells by random amounts.

Every instance draws k (2 states half the time, else 3..7) or integer counters (one instance in ten, buttons
adding 1..3), a goal (any, white, black, a state D, or a target board) and a board: half the boards are a goal
board with random presses undone, so solvable; the others uniform, so mostly Impossible where the nullity
allows.  The draws use numpy's ``default_rng([seed, index])`` (PCG64), so a finding names its instance in
two numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flipgame.core.errors import RulesError
from flipgame.model.grid import NEIGHBOURHOODS, Game
from flipgame.model.rules import from_edges
from flipgame.model.system import PressSystem

FAMILIES = ("grid", "graph", "buttons")
"""Instance families, drawn in turn: instance ``index`` is of family ``FAMILIES[index % 3]``."""
STATES = (2, 2, 2, 2, 2, 3, 4, 5, 6, 7)
"""The state counts drawn (two states half the time: most backends take only those); counters are drawn apart
(:data:`COUNTERS_ODDS`)."""
COUNTERS_ODDS = 0.1
"""The share of instances with integer counters."""
LARGE_GRID_ODDS = 0.15
"""The share of grids drawn up to :data:`LARGE_GRID_SIDE` a side (else up to 5): past the oracle's reach,
judged by the referee and the agreement policy (gauss the reference)."""
LARGE_GRID_SIDE = 9


@dataclass(frozen=True)
class Instance:
    """One drawn instance: the press system, the board (in the system's board form) and where it came from.

    Attributes
    ----------
    seed, index : int
        ``draw(seed, index)`` gives this instance again.
    family : str
        One of :data:`FAMILIES`, or ``shrunk`` / ``replayed`` for an instance not drawn.
    system : PressSystem
    board : int or tuple of int
        A bitmask for two states, else a tuple of n cell values.
    """

    seed: int
    index: int
    family: str
    system: PressSystem
    board: object


def draw(seed: int, index: int) -> Instance:
    """Instance ``index`` of the campaign of ``seed``; the same pair gives the same instance on every machine.

    Running time: O(cells x buttons) on these sizes (at most 81 cells, 81 buttons).
    """
    rng = np.random.default_rng([seed, index])
    family = FAMILIES[index % len(FAMILIES)]
    states = None if rng.random() < COUNTERS_ODDS else int(rng.choice(STATES))
    goal = _goal(rng, states)
    for _ in range(100):  # a draw the model refuses (a button changing nothing mod k) is drawn again
        try:
            system = {"grid": _grid, "graph": _graph, "buttons": _buttons}[family](rng, states)
        except RulesError:
            continue
        if system.m and any(system.buttons):
            break
    else:  # pragma: no cover - 100 refusals in a row would be a bug of this module
        raise RuntimeError(f"fuzz instance ({seed}, {index}) could not be drawn")
    system, board = _with_board(rng, system, goal)
    return Instance(seed, index, family, system, board)


def _goal(rng, states: int | None) -> str:
    if states is None:
        return str(rng.choice(["board", "board", "2", "3"]))
    choices = ["any", "white", "black", "board"] + ([str(rng.integers(states))] if states > 2 else [])
    return str(rng.choice(choices))


def _grid(rng, states: int | None) -> PressSystem:
    side = LARGE_GRID_SIDE if rng.random() < LARGE_GRID_ODDS else 5
    rows, cols = (int(x) for x in rng.integers(1, side + 1, size=2))
    kind = str(rng.choice([*NEIGHBOURHOODS, "stencil"]))
    stencil = None
    if kind == "stencil":
        offsets = {(int(r), int(c)) for r, c in rng.integers(-2, 3, size=(int(rng.integers(1, 6)), 2))}
        stencil = tuple(sorted(offsets))
    game = Game(rows, cols, wrap=bool(rng.random() < 0.4), neighbourhood=kind, stencil=stencil)
    buttons = [[(c, _amount(rng, states)) for c in game.flipped_cells(j)] for j in range(game.m)]
    return PressSystem(game.cells, buttons, states, _placeholder(states), shape=game.shape)


def _graph(rng, states: int | None) -> PressSystem:
    n = int(rng.integers(1, 13))
    p = float(rng.uniform(0.15, 0.6))
    directed = bool(rng.random() < 0.2)
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v and (directed or u < v)]
    edges = [e for e in pairs if rng.random() < p]
    graph = from_edges(n, edges, closed=True if directed else bool(rng.random() < 0.8), directed=directed)
    buttons = [[(c, _amount(rng, states)) for c, _ in b] for b in graph.buttons]
    return PressSystem(n, buttons, states, _placeholder(states))


def _buttons(rng, states: int | None) -> PressSystem:
    n, m = int(rng.integers(1, 11)), int(rng.integers(1, 13))
    buttons = []
    for _ in range(m):
        cells = rng.choice(n, size=int(rng.integers(1, min(n, 4) + 1)), replace=False)
        buttons.append([(int(c), _amount(rng, states)) for c in cells])
    return PressSystem(n, buttons, states, _placeholder(states))


def _amount(rng, states: int | None) -> int:
    """An amount a press adds: 1 mostly, else 1..k-1 (1..3 for counters)."""
    if rng.random() < 0.6:
        return 1
    return int(rng.integers(1, 4)) if states is None else int(rng.integers(1, states))


def _placeholder(states: int | None) -> str:
    """A goal every kind takes, replaced by the drawn one in :func:`_with_board`."""
    return "0" if states is None else "any"


def _with_board(rng, system: PressSystem, goal: str) -> tuple[PressSystem, object]:
    """The system with the drawn goal (and target), and a board: solvable half the time."""
    n, k = system.cells, system.states
    top = 4 if k is None else k
    target = None
    if goal == "board":
        target = tuple(int(v) for v in rng.integers(0, top, size=n))
    system = system.with_goal(goal, target if k != 2 or target is None else _mask(target))
    if rng.random() < 0.5 and k is not None:  # a goal board with random presses undone
        goal_board = system.targets[int(rng.integers(len(system.targets)))]
        presses = [int(x) for x in rng.integers(0, k, size=system.m)]
        back = [(-p) % k for p in presses]
        after = system.apply(goal_board, _mask(back) if k == 2 else tuple(back))
        return system, after
    if k is None:  # counters: at or below the goal, so that presses can reach it
        goal_board = system.targets[0]
        board = tuple(int(rng.integers(0, v + 1)) for v in goal_board)
        return system, board
    cells = [int(v) for v in rng.integers(0, top, size=n)]
    return system, _mask(cells) if k == 2 else tuple(cells)


def _mask(cells) -> int:
    return sum(1 << i for i, v in enumerate(cells) if v)

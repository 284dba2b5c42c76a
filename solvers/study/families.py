"""The instance families of the strategy study: press systems by size and how their boards are drawn.

Grids of several rules (random solvable boards, the all-lit board, the torus, the king's move, a
nullity sweep), Lights Out 2000 over Z_3, Lights Out on random graphs and counter machines
(Advent of Code 2025 day 10); :func:`flipgame.study.compare.compare_strategies` runs strategies
across them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flipgame.model.grid import Game
from flipgame.model.rules import from_edges
from flipgame.model.system import PressSystem


@dataclass(frozen=True)
class Family:
    """An instance family: press systems for a size ``n`` and how their boards are drawn.

    Attributes
    ----------
    name : str
        Key of :data:`FAMILIES`, e.g. ``torus``.
    summary : str
        One line for ``--help`` and the output.
    sizes : tuple of int
        Default sizes ``n`` (an ``n x n`` grid, or n cells of a graph or machine), in the order they are run.
    wrap, neighbourhood : rules of a grid family's games (goal white).
    all_lit : bool
        True: the one board is all black (all lit); False: random solvable boards.
    axis : str
        What the plot's x axis shows: ``side`` (n) or ``nullity``.
    kind : str
        ``grid`` (two states), ``mod3`` (Lights Out 2000: an n x n grid over Z_3, goal 0), ``graph``
        (Lights Out on a random graph of n vertices, closed neighbourhoods, goal white) or ``counters``
        (a machine of n counters and n + 2 buttons that each add 1 to two or three counters, goal every
        counter at 2 times its number of buttons).  Graphs and machines are drawn from a generator seeded
        by n, so each size is one fixed system.
    """

    name: str
    summary: str
    sizes: tuple[int, ...]
    wrap: bool = False
    neighbourhood: str = "plus"
    all_lit: bool = False
    axis: str = "side"
    kind: str = "grid"

    def game(self, n: int) -> PressSystem:
        """The press system of size ``n``.  O(n) to O(n^2)."""
        if self.kind == "mod3":
            return Game(n, n, "0", states=3)
        if self.kind == "graph":
            return random_graph(n)
        if self.kind == "counters":
            return counter_machine(n)
        return Game(n, n, "white", self.wrap, self.neighbourhood)

    def boards(self, game: PressSystem, rng: np.random.Generator, count: int) -> list:
        """``count`` boards of ``game``: all lit once, or boards from which uniformly random press sets ``x``
        reach the goal (``A x`` away from it: every board has a number to cross-check)."""
        if self.all_lit:
            return [game.full]
        out = []
        for _ in range(count):
            if game.binary:
                x = int.from_bytes(rng.bytes((game.m + 7) // 8), "little") & ((1 << game.m) - 1)
                out.append(game.apply(game.targets[0], x))
            elif game.states is not None:
                out.append(game.apply(game.targets[0], tuple(int(v) for v in rng.integers(0, game.states, game.m))))
            else:
                added = game.apply((0,) * game.n, tuple(int(v) for v in rng.integers(0, 3, game.m)))
                out.append(tuple(t - a for t, a in zip(game.targets[0], added, strict=True)))
        return out


def random_graph(n: int) -> PressSystem:
    """Lights Out on a random graph of ``n`` vertices (about 3 edges per vertex, from a generator seeded by n;
    closed neighbourhoods), goal white.  O(n)."""
    rng = np.random.default_rng(n)
    edges = {tuple(sorted(map(int, rng.choice(n, 2, replace=False)))) for _ in range(3 * n // 2)} if n > 1 else set()
    return from_edges(n, sorted(edges), closed=True, goal="white")


def counter_machine(n: int) -> PressSystem:
    """A counter machine (Advent of Code 2025 day 10, part 2): ``n`` counters, ``n + 2`` buttons each adding 1
    to two or three counters (seeded by n), goal: every counter at twice the number of buttons touching it.
    O(n)."""
    rng = np.random.default_rng(n)
    buttons = [tuple((int(c), 1) for c in sorted(rng.choice(n, min(n, int(rng.integers(2, 4))), replace=False)))
               for _ in range(n + 2)]
    degree = [sum(1 for b in buttons for c, _ in b if c == i) for i in range(n)]
    system = PressSystem(n, tuple(buttons), None, "0")
    return system.with_goal("board", tuple(2 * max(1, d) for d in degree))


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("random", "random solvable n x n Lights Out boards, goal white", (4, 6, 8, 10, 12, 14, 16, 18, 20)),
    Family("all-lit", "the all-lit n x n board, goal white (OEIS A075464)", (4, 6, 8, 10, 12, 14, 16, 18, 20),
           all_lit=True),
    Family("torus", "random solvable boards on the n x n torus (--wrap), goal white", (4, 6, 8, 10, 12, 14, 16),
           wrap=True),
    Family("king", "random solvable boards, king (3x3) neighbourhood, goal white", (4, 6, 8, 10, 12, 14, 16),
           neighbourhood="king"),
    Family("nullity", "random solvable n x n boards with n chosen by nullity (0, 2, 4, 6, 8, 16, 20, 32)",
           (6, 5, 4, 11, 9, 19, 30, 39), axis="nullity"),
    Family("mod3", "Lights Out 2000: random solvable n x n boards over Z_3, goal all 0", (3, 4, 5, 6, 8),
           kind="mod3"),
    Family("graph", "Lights Out on a random graph of n vertices (closed neighbourhoods), goal white",
           (8, 16, 24, 32, 48), kind="graph"),
    Family("counters", "counter machines (Advent of Code 2025 day 10, part 2) of n counters", (3, 4, 6, 8),
           kind="counters"),
)}
"""The instance families of ``flipgame study --strategies``, in the order they are run."""


RULES_FAMILY = "rules"
"""The family of ``study --strategies`` with rule options: random boards of the one rule set given."""


def family(name: str) -> Family:
    """The family ``name``: one of :data:`FAMILIES`, or (an exported suite's own, e.g. ``judge``) a plain
    family of that name with no default sizes."""
    if name == RULES_FAMILY:
        return Family(name, "random boards of the rules given on the command line", ())
    return FAMILIES.get(name) or Family(name, f"{name} instances of an exported suite", ())


"""A backend to start from (as CPMpy's ``solvers/TEMPLATE.py``): copy this module, rename the class, replace the
method, and add one instance to :data:`flipgame.backends.registry.BUILTIN_BACKENDS` (or call
:func:`flipgame.backends.registry.register` at run time).

What a backend owes the rest of flipgame, and what it is spared:

* **It declares**: a ``name`` (the registry key), a one-line ``summary``, what it ``takes`` (``two`` states,
  ``mod k``, ``counters``), its ``max_cells`` and its keyword ``options``: the gate checks the options and
  the CLI builds its flags from them, so a backend never re-validates.
* **It refuses before building**: :meth:`~flipgame.backends.base.Backend.refusal` names in one line what it
  cannot take; the gate turns the line into a :class:`~flipgame.core.errors.RefusedError` with the backends
  that do take the board.
* **It answers**: :meth:`solve` returns a :class:`~flipgame.backends.result.Solution`: OPTIMAL with the minimum,
  the witness and the goal board it reaches, INFEASIBLE, or UNKNOWN at its time limit (never a number it did
  not prove).  ``solve_batch`` defaults to :meth:`solve` per board.
* **It is spared**: parsing boards, the goal board (the gate hands over goal ``any``, ``white`` or ``black`` and
  ``board ^ target``), certificates of Impossible, and every check: the pipeline's referee re-applies the
  witness and certifies the Impossible, and the agreement policy compares it with the others.

This one enumerates press sets by weight (all of weight 0, then 1, ...), the plainest correct method: fine for
a handful of buttons, and an independent witness for the tests (``tests/test_registry_gate.py`` registers it and
runs it through solve and verify).

>>> from flipgame import Game, solve
>>> from flipgame.backends import registry
>>> backend = registry.register(Template())
>>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "template").moves
4
>>> _ = registry.BACKENDS.pop("template")
"""

from __future__ import annotations

import time
from itertools import combinations

from flipgame.backends.base import Backend, Option, no_canonical
from flipgame.backends.result import Solution, Status
from flipgame.model.system import PressSystem

TEMPLATE_MAX_BUTTONS = 20
"""Most buttons the enumeration takes: 2**20 press sets, about a second in Python."""


class Template(Backend):
    """Press sets by increasing weight, the first that reaches a goal board being a minimum.  O(2**m m)."""

    name = "template"
    summary = "press sets enumerated by weight (a backend to start from; small systems only)"
    takes = frozenset({"two"})
    max_cells = None
    by_default = False  # opt-in: verify and bench run it only when named
    options = (Option("max_weight", int, None, "stop after press sets of this weight (default: every weight)",
                      minimum=0),)

    def check_options(self, options: dict) -> dict:
        """The declared options checked (by :class:`~flipgame.backends.base.Backend`); the canonical press set
        is refused: this enumeration's first minimum is not POJ 3279's smallest reading."""
        return no_canonical(self.name, super().check_options(options))

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        why = super().refusal(game, options)
        if why is None and game.m > TEMPLATE_MAX_BUTTONS:
            why = f"{self.name} enumerates 2**m press sets and takes at most {TEMPLATE_MAX_BUTTONS} buttons; " \
                  f"{game.size} has {game.m}"
        return why

    def solve(self, game: PressSystem, board: int, *, max_weight: int | None = None,
              canonical: bool = False) -> Solution:
        """The lightest press set taking ``board`` to a goal of ``game`` (goal ``any``, ``white`` or ``black``),
        the first of that weight in ``itertools.combinations`` order; UNKNOWN past ``max_weight``."""
        start = time.perf_counter()
        masks, targets = game.press_masks, game.targets
        top = game.m if max_weight is None else min(max_weight, game.m)
        for weight in range(top + 1):
            for chosen in combinations(range(game.m), weight):
                after = board
                for j in chosen:
                    after ^= masks[j]
                if after in targets:
                    presses = sum(1 << j for j in chosen)
                    return Solution(self.name, Status.OPTIMAL, weight, presses, after, time.perf_counter() - start)
        status = Status.INFEASIBLE if top == game.m else Status.UNKNOWN
        return Solution(self.name, status, seconds=time.perf_counter() - start)

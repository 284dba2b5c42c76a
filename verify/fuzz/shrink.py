"""Shrinking a finding: the smallest instance and the plainest setting that still fail the same way.

Greedy delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input", IEEE
TSE 2002, the ``ddmin`` of halves, then quarters, ... then single elements), over these reductions, each
tried while it keeps the finding, until none does or :data:`FUZZ_SHRINK_TRIES` candidates were tried:

1. solver settings reset to their defaults one at a time (a parameter list loses one parameter at a time);
2. buttons dropped, in chunks;
3. cells dropped (from every button, the board and the target; the grid shape goes);
4. k lowered one state at a time down to 2 (cells, amounts and goal reduced mod the new k);
5. board cells set to their goal value.

A candidate "still fails" when the backend, called again with the candidate's setting, gives a finding of
the same kind (:func:`flipgame.verify.fuzz.run.judge`) against the oracle, or against gauss where the
oracle does not reach.  Hangs and slow answers are timing findings and are not shrunk.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from flipgame.backends.base import Backend
from flipgame.core.errors import FlipgameError
from flipgame.core.limits import FUZZ_SHRINK_TRIES
from flipgame.model.system import PressSystem
from flipgame.verify.fuzz.instances import Instance
from flipgame.verify.fuzz.oracle import exhaustive
from flipgame.verify.fuzz.run import attempt_confirmed, judge
from flipgame.verify.fuzz.settings import as_backend

NOT_SHRUNK = ("hang", "limit not honoured")
"""Kinds of finding the shrinker leaves as found (each try would cost a whole time limit or more)."""


@dataclass(frozen=True)
class Case:
    """An instance as plain cell lists, easy to cut: the system's fields and the board as n values."""

    cells: int
    buttons: tuple
    states: int | None
    goal: str
    target: tuple | None
    board: tuple
    shape: tuple | None = None

    @classmethod
    def of(cls, system: PressSystem, board) -> Case:
        values = tuple(system.cells_of(board))
        target = None if system.target is None else tuple(system.cells_of(system.target))
        return cls(system.cells, system.buttons, system.states, system.goal, target, values, system.shape)

    def build(self) -> tuple[PressSystem, object]:
        """The press system and the board in its form; RulesError (a FlipgameError) if the cut is not a system."""
        binary = self.states == 2
        target = None if self.target is None else (_mask(self.target) if binary else self.target)
        system = PressSystem(self.cells, self.buttons, self.states, self.goal, target, self.shape)
        return system, _mask(self.board) if binary else self.board

    @property
    def size(self) -> tuple[int, int, int]:
        """What shrinking lowers: (buttons, cells, states)."""
        return len(self.buttons), self.cells, self.states or 0


def shrink(instance: Instance, kind: str, backend: str | Backend, settings: dict, time_limit: float,
           tries: int = FUZZ_SHRINK_TRIES) -> tuple[Instance, dict, int]:
    """The smallest instance and setting found that still give a finding of ``kind`` by ``backend``.

    Returns (instance, settings, candidates tried); the instance's family is ``shrunk``.  Running time: up to
    ``tries`` calls of the backend (each within ``time_limit``) and of the oracle.
    """
    if kind in NOT_SHRUNK:
        return instance, settings, 0
    backend = as_backend(backend)
    state = {"tried": 0}

    def fails(case: Case, setting: dict) -> bool:
        if state["tried"] >= tries:
            return False
        state["tried"] += 1
        try:
            system, board = case.build()
        except FlipgameError:
            return False
        return _still_fails(system, board, kind, backend, setting, time_limit)

    case, setting = Case.of(instance.system, instance.board), dict(settings)
    changed = True
    while changed and state["tried"] < tries:
        changed = False
        for candidates in (_setting_cuts, _button_cuts, _cell_cuts, _state_cuts, _board_cuts):
            for new_case, new_setting in candidates(case, setting):
                if fails(new_case, new_setting):
                    case, setting, changed = new_case, new_setting, True
                    break
    system, board = case.build()
    return Instance(instance.seed, instance.index, "shrunk", system, board), setting, state["tried"]


def _still_fails(system, board, kind: str, backend: Backend, settings: dict, time_limit: float) -> bool:
    outcomes = [attempt_confirmed(system, board, backend, settings, time_limit)]
    exact = exhaustive(system, board)
    if exact is None and backend.name != "gauss":
        outcomes.append(attempt_confirmed(system, board, "gauss", {}, time_limit))
    probe = Instance(0, 0, "shrunk", system, board)
    return any(f.kind == kind and f.backend == backend.name for f in judge(probe, outcomes, exact, time_limit))


def _setting_cuts(case: Case, setting: dict) -> Iterator[tuple[Case, dict]]:
    for name, value in setting.items():
        yield case, {k: v for k, v in setting.items() if k != name}
        words = str(value).split()
        if len(words) > 1:
            for i in range(len(words)):
                yield case, {**setting, name: " ".join(words[:i] + words[i + 1:])}


def _chunks(count: int) -> Iterator[tuple[int, int]]:
    """ddmin's chunks of ``range(count)``: halves, quarters, ... single elements, as (start, stop)."""
    size = max(1, count // 2)
    while True:
        for lo in range(0, count, size):
            yield lo, min(count, lo + size)
        if size == 1:
            return
        size = max(1, size // 2)


def _button_cuts(case: Case, setting: dict) -> Iterator[tuple[Case, dict]]:
    m = len(case.buttons)
    for lo, hi in _chunks(m):
        if hi - lo < m:
            yield replace(case, buttons=case.buttons[:lo] + case.buttons[hi:]), setting


def _cell_cuts(case: Case, setting: dict) -> Iterator[tuple[Case, dict]]:
    for lo, hi in _chunks(case.cells):
        if hi - lo < case.cells:
            yield _without_cells(case, range(lo, hi)), setting


def _without_cells(case: Case, gone: range) -> Case:
    keep = [i for i in range(case.cells) if i not in gone]
    new = {old: i for i, old in enumerate(keep)}
    buttons = tuple(tuple((new[c], a) for c, a in b if c in new) for b in case.buttons)
    target = None if case.target is None else tuple(case.target[i] for i in keep)
    return replace(case, cells=len(keep), buttons=buttons, target=target, board=tuple(case.board[i] for i in keep),
                   shape=None)


def _state_cuts(case: Case, setting: dict) -> Iterator[tuple[Case, dict]]:
    k = case.states
    if k is None or k <= 2:
        return
    lower = k - 1
    goal = case.goal
    if goal not in ("any", "board"):
        goal = str(int(goal) % lower)
    buttons = tuple(tuple((c, a % lower) for c, a in b if a % lower) for b in case.buttons)
    target = None if case.target is None else tuple(v % lower for v in case.target)
    if lower == 2 and goal not in ("any", "board"):
        goal = "white" if goal == "0" else "black"
    yield replace(case, states=lower, goal=goal, buttons=buttons, target=target,
                  board=tuple(v % lower for v in case.board)), setting


def _board_cuts(case: Case, setting: dict) -> Iterator[tuple[Case, dict]]:
    plain = _plain_value(case)
    for i, v in enumerate(case.board):
        goal_value = case.target[i] if case.target is not None else plain
        if v != goal_value:
            yield replace(case, board=case.board[:i] + (goal_value,) + case.board[i + 1:]), setting


def _plain_value(case: Case) -> int:
    """The value a board cell is simplified to: the goal's state (0 for ``any``)."""
    return {"any": 0, "white": 0, "black": 1}.get(case.goal, 0) if not case.goal.isdigit() else int(case.goal)


def _mask(cells) -> int:
    return sum(1 << i for i, v in enumerate(cells) if v)


"""``poj1830`` (POJ 1830, switch problem): a count K of cases; per case N, N initial states, N target states
(0/1), then pairs ``I J`` (1-based: pressing switch I also toggles J; every switch toggles itself) ending with
``0 0``.  The answer is the *number* of press sets that reach the target, or ``Oh,it's impossible~!!``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from flipgame.backends.result import Solution, Status
from flipgame.core.errors import BoardFormatError
from flipgame.formats.cases import Case, int_token, tokens
from flipgame.model.rules import from_edges
from flipgame.model.system import PressSystem

POJ1830_IMPOSSIBLE = "Oh,it's impossible~!!"
POJ1830_MAX_SWITCHES = 28
"""The statement's bound (0 < N < 29)."""


def read_poj1830(lines: Iterable[str]) -> Iterator[tuple[int, PressSystem, int]]:
    """POJ 1830 cases as (number, two-state system with the target as goal, initial board bitmask).

    >>> [(n, s.m, s.target, b) for n, s, b in read_poj1830(["1", "2", "0 0", "1 1", "1 2", "0 0"])]
    [(1, 2, 3, 0)]
    """
    words = tokens(lines)
    cases = int_token(words, 1, "the number of cases")
    for case in range(1, cases + 1):
        n = int_token(words, case, "N, the number of switches")
        if not 1 <= n <= POJ1830_MAX_SWITCHES:
            raise BoardFormatError(f"N must be 1..{POJ1830_MAX_SWITCHES}, got {n}", case=case)
        start = tuple(_bit(words, case, "an initial state 0/1") for _ in range(n))
        goal = tuple(_bit(words, case, "a target state 0/1") for _ in range(n))
        edges = []
        while True:
            i, j = int_token(words, case, "I of a pair I J"), int_token(words, case, "J of a pair I J")
            if (i, j) == (0, 0):
                break
            if not (1 <= i <= n and 1 <= j <= n):
                raise BoardFormatError(f"pair {i} {j} names a switch outside 1..{n}", case=case)
            edges.append((i - 1, j - 1))
        system = from_edges(n, edges, closed=True, directed=True, states=2, goal="board", target=goal)
        yield case, system, system.board_of(start)


def _bit(tokens, case: int, what: str) -> int:
    v = int_token(tokens, case, what)
    if v > 1:
        raise BoardFormatError(f"expected {what}, got {v}", case=case)
    return v


def poj1830_answer(solutions: int | None) -> str:
    """The judge's line: the number of press sets, or its impossible line (``None`` or 0)."""
    return str(solutions) if solutions else POJ1830_IMPOSSIBLE


def read_poj1830_cases(lines: Iterable[str], rules: PressSystem) -> Iterator[Case]:
    for number, system, board in read_poj1830(lines):
        yield Case(number, system, board)


def answer_poj1830(case: Case, s: Solution) -> str:
    if s.status in (Status.OPTIMAL, Status.INFEASIBLE):
        return poj1830_answer(s.stats.get("solutions") if s.success else 0)
    return s.answer()

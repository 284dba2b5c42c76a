"""``fliptile`` (POJ 3279, Fliptile): ``M N``, then M lines of N numbers 0/1 (1 = black), until end of input;
every cell must become 0; the answer is the press pattern as M lines of N numbers, the fewest presses and among
those the lexicographically smallest reading, or ``IMPOSSIBLE``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from flipgame.backends.result import Solution, Status
from flipgame.formats.cases import Case, positive_ints, read_grid, sized_grids, text_lines
from flipgame.model.grid import Game, format_cells


def read_fliptile(lines: Iterable[str], rules: Game) -> Iterator[Case]:
    source = text_lines(lines)
    sized = sized_grids(rules)
    for case, (line, text) in enumerate(source, start=1):
        rows, cols = positive_ints(text, 2, case, line, "'M N', two positive integers")
        game = sized(rows, cols, case)
        yield Case(case, game, read_grid(source, case, rows, cols, {"0": "0", "1": "1"}, "0 or 1", line))


def answer_fliptile(case: Case, s: Solution) -> str:
    if s.status is Status.INFEASIBLE:
        return "IMPOSSIBLE"
    if s.status is not Status.OPTIMAL:
        return s.answer()
    return format_cells(s.presses, case.game.rows, case.game.cols, "1", "0", sep=" ")

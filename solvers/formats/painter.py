"""``painter`` (POJ 1681, Painter's Problem): a count of cases, then per case ``n`` and ``n`` lines of
``y``/``w``; every cell must become ``y``; the answer is the minimum or ``inf``.  (``w`` is stored as 1, the
goal is all 0.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from flipgame.backends.result import Solution, Status
from flipgame.core.errors import BoardFormatError
from flipgame.formats.cases import Case, answer_table, positive_ints, read_grid, sized_grids, text_lines, tracked
from flipgame.model.grid import Game


def read_painter(lines: Iterable[str], rules: Game) -> Iterator[Case]:
    sized = sized_grids(rules)
    seen = [0]
    source = tracked(text_lines(lines), seen)
    try:
        line, text = next(source)
    except StopIteration:
        return
    (count,) = positive_ints(text, 1, 1, line, "the number of cases (a positive integer)")
    for case in range(1, count + 1):
        try:
            line, text = next(source)
        except StopIteration:
            raise BoardFormatError(f"expected {count} cases, input ended after {case - 1}", case=case,
                                   line=seen[0]) from None
        (n,) = positive_ints(text, 1, case, line, "the board size n (a positive integer)")
        game = sized(n, n, case)
        yield Case(case, game, read_grid(source, case, n, n, {"y": "0", "w": "1"}, "'y' or 'w'", line))
    extra = next(source, None)
    if extra is not None:
        raise BoardFormatError(f"the file declares {count} cases but goes on: {ascii(extra[1][:40])}",
                               case=count + 1, line=extra[0])


def answer_painter(case: Case, s: Solution) -> str:
    return "inf" if s.status is Status.INFEASIBLE else s.answer()


answers_painter = answer_table("inf")
"""The batch writer of the Painter's Problem's answers (a number or ``inf`` per case)."""

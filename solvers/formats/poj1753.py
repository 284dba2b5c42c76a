"""``poj1753`` (Flip Game, POJ 1753): cases of ``rows`` lines of ``b``/``w`` until end of input; the answer
is the minimum number of presses or ``Impossible``.

With rules other than a two-state grid (``--states K``, ``--rules FILE``) each board is read as rows of cell
states (:func:`flipgame.formats.rows.read_state_boards`) and answered as POJ 1753 does.  On a grid of at
most 64 cells a block of lines is read at a time (:func:`read_poj1753_blocks`), every whole case of a read of
plain rows in one step.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from flipgame.backends.result import Solution
from flipgame.formats.cases import Case, CaseBatch, answer_table
from flipgame.formats.lines import LineSource
from flipgame.formats.rows import read_cell_texts, read_cells, read_state_boards
from flipgame.model.grid import Game
from flipgame.model.system import PressSystem


def read_poj1753(lines: Iterable[str], rules: PressSystem) -> Iterator[Case]:
    if isinstance(rules, Game) and rules.binary:
        for number, cells in enumerate(read_cells(lines, rules.rows, rules.cols), start=1):
            yield Case(number, rules, cells)
        return
    for number, (_, board) in enumerate(read_state_boards(lines, rules), start=1):
        yield Case(number, rules, board)


def read_poj1753_blocks(source: LineSource, rules: PressSystem) -> Iterator[Case | CaseBatch]:
    """:func:`read_poj1753` a read at a time on a two-state grid of at most 64 cells (the whole cases of a
    read of plain rows as one :class:`CaseBatch`, :func:`read_cell_texts`); other rules case by case.  The
    same cases, numbers and errors."""
    if not (isinstance(rules, Game) and rules.binary and rules.n <= 64):
        yield from read_poj1753(source, rules)
        return
    number = 1
    for got in read_cell_texts(source, rules.rows, rules.cols):
        if isinstance(got, int):
            yield Case(number, rules, got)
            number += 1
        else:
            yield CaseBatch(number, rules, got)
            number += len(got)


def answer_poj1753(case: Case, s: Solution) -> str:
    return s.answer()


answers_poj1753 = answer_table("Impossible")
"""The batch writer of POJ 1753's answers (a number or ``Impossible`` per case)."""

"""Input and output formats of the Lights Out family's judge problems.

* ``poj1753`` (Flip Game): cases of ``rows`` lines of ``b``/``w`` until end of
  input; answer the minimum number of presses or ``Impossible``.
* ``painter`` (POJ 1681, Painter's Problem): a count of cases, then per case
  ``n`` and ``n`` lines of ``y``/``w``; every cell must become ``y``; answer
  the minimum or ``inf``.  (``w`` is stored as 1, the goal is all 0.)
* ``fliptile`` (POJ 3279, Fliptile): ``M N``, then M lines of N numbers 0/1
  (1 = black), until end of input; every cell must become 0; answer the press
  pattern as M lines of N numbers, the fewest presses and among those the
  lexicographically smallest reading, or ``IMPOSSIBLE``.

Every reader streams: a case is yielded as soon as its last line is read.
Errors are :class:`~solvers.board.BoardFormatError` naming case and line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .board import BoardFormatError, Game, format_cells, read_cases
from .result import Solution, Status


@dataclass(frozen=True)
class Case:
    """One problem instance read from the input: its rules and its board (bitmask)."""

    number: int
    game: Game
    board: int


def _lines(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers, white space trimmed."""
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if text:
            yield number, text


def read_poj1753(lines: Iterable[str], rules: Game) -> Iterator[Case]:
    for number, board in enumerate(read_cases(lines, rules.rows, rules.cols), start=1):
        yield Case(number, rules, board.cells)


def _grid(source, case: int, rows: int, cols: int, alphabet: dict[str, str], what: str) -> int:
    """Read ``rows`` lines of ``cols`` cells from ``source`` as a bitmask."""
    bits = []
    last = None
    for _ in range(rows):
        try:
            last, text = next(source)
        except StopIteration:
            raise BoardFormatError(f"incomplete case at end of input: expected {rows} rows of {what}",
                                   case=case, line=last) from None
        cells = "".join(text.split())
        bad = next((ch for ch in cells if ch not in alphabet), None)
        if bad is not None:
            hint = " (the input is not UTF-8 text)" if bad == "\ufffd" else ""
            raise BoardFormatError(f"expected only {what}, got {ascii(bad)}{hint}", case=case, line=last)
        if len(cells) != cols:
            raise BoardFormatError(f"expected a row of {cols} cells of {what}, got {len(cells)}",
                                   case=case, line=last)
        bits.append(cells.translate(str.maketrans(alphabet)))
    return int("".join(bits)[::-1], 2)


def _positive_ints(text: str, count: int, case: int, line: int, what: str) -> list[int]:
    parts = text.split()
    if len(parts) != count or not all(p.isascii() and p.isdigit() and int(p) > 0 for p in parts):
        raise BoardFormatError(f"expected {what}, got {ascii(text[:40])}", case=case, line=line)
    return [int(p) for p in parts]


def read_painter(lines: Iterable[str], rules: Game) -> Iterator[Case]:
    source = _lines(lines)
    try:
        line, text = next(source)
    except StopIteration:
        return
    (count,) = _positive_ints(text, 1, 1, line, "the number of cases (a positive integer)")
    for case in range(1, count + 1):
        try:
            line, text = next(source)
        except StopIteration:
            raise BoardFormatError(f"expected {count} cases, input ended after {case - 1}", case=case) from None
        (n,) = _positive_ints(text, 1, case, line, "the board size n (a positive integer)")
        game = dataclasses.replace(rules, rows=n, cols=n, goal="white", target=None)
        yield Case(case, game, _grid(source, case, n, n, {"y": "0", "w": "1"}, "'y' or 'w'"))
    extra = next(source, None)
    if extra is not None:
        raise BoardFormatError(f"the file declares {count} cases but goes on: {ascii(extra[1][:40])}",
                               case=count + 1, line=extra[0])


def read_fliptile(lines: Iterable[str], rules: Game) -> Iterator[Case]:
    source = _lines(lines)
    for case, (line, text) in enumerate(source, start=1):
        rows, cols = _positive_ints(text, 2, case, line, "'M N', two positive integers")
        game = dataclasses.replace(rules, rows=rows, cols=cols, goal="white", target=None)
        yield Case(case, game, _grid(source, case, rows, cols, {"0": "0", "1": "1"}, "0 or 1"))


def answer_poj1753(case: Case, s: Solution) -> str:
    return s.answer()


def answer_painter(case: Case, s: Solution) -> str:
    return "inf" if s.status is Status.INFEASIBLE else s.answer()


def answer_fliptile(case: Case, s: Solution) -> str:
    if s.status is Status.INFEASIBLE:
        return "IMPOSSIBLE"
    if s.status is not Status.OPTIMAL:
        return s.answer()
    return format_cells(s.presses, case.game.rows, case.game.cols, "1", "0", sep=" ")


@dataclass(frozen=True)
class Format:
    """One judge format: how cases are read and answers written.

    Attributes
    ----------
    name : str
    reader : callable(lines, rules) -> iterator of Case
    writer : callable(Case, Solution) -> str
    size_from_input : bool
        The input gives each case's size and goal (``--size``/``--goal`` refused).
    canonical : bool
        The judge wants the canonical (lexicographically smallest) minimum press set.
    colours : (str, str)
        How the format writes a white (0) and a black (1) cell, for messages.
    summary : str
    """

    name: str
    reader: Callable[[Iterable[str], Game], Iterator[Case]]
    writer: Callable[[Case, Solution], str]
    size_from_input: bool
    canonical: bool
    colours: tuple[str, str]
    summary: str

    def goal_name(self, game: Game, target: int) -> str:
        """The goal board in the format's own words: ``all y`` (painter), ``all 0`` (fliptile)."""
        if target == 0:
            return f"all {self.colours[0]}" if self.colours != ("w", "b") else "all white"
        if target == game.full:
            return f"all {self.colours[1]}" if self.colours != ("w", "b") else "all black"
        return "the target board"


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("poj1753", read_poj1753, answer_poj1753, False, False, ("w", "b"), "Flip Game, POJ 1753"),
    Format("painter", read_painter, answer_painter, True, False, ("y", "w"), "Painter's Problem, POJ 1681"),
    Format("fliptile", read_fliptile, answer_fliptile, True, True, ("0", "1"), "Fliptile, POJ 3279"),
)}
"""The one registry of formats; the CLI's ``--format`` choices come from it."""

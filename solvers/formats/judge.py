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
* ``poj1830`` (POJ 1830, switch problem) and ``aoc2025-10`` (Advent of Code
  2025 day 10): press systems given case by case (:mod:`flipgame.formats.press`);
  POJ 1830 answers the number of press sets, Advent of Code the fewest presses
  per machine and then their total.

With rules other than a two-state grid (``--states K``, ``--rules FILE``),
``poj1753`` reads each board as rows of cell states
(:func:`flipgame.formats.press.read_state_boards`) and answers as POJ 1753 does.

Every reader streams: a case is yielded as soon as its last line is read.
Errors are :class:`~flipgame.model.grid.BoardFormatError` naming case and line.

:class:`~flipgame.formats.lines.LineSource` reads a byte stream (a file, a pipe, a terminal) as the
readers' lines, in bounded pieces; ``poj1753`` on a grid of at most 64 cells also reads a block of
lines at a time (:func:`read_poj1753_blocks`), every whole case of a read of plain rows in one step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.limits import BOARD_MAX_CELLS, NUMBER_DIGITS
from flipgame.formats.lines import LineSource
from flipgame.formats.press import poj1830_answer, read_aoc2025_10, read_poj1830, read_state_boards
from flipgame.formats.rows import read_cell_texts, read_cells
from flipgame.model.grid import BoardFormatError, Game, format_cells
from flipgame.model.parts import is_number
from flipgame.model.system import PressSystem


class Case(NamedTuple):
    """One problem instance read from the input: its rules and its board (in the system's board form:
    a bitmask for two states).  A named tuple: streams create one per case, and a tuple is made
    several times faster than a frozen dataclass."""

    number: int
    game: PressSystem
    board: object


class CaseBatch(NamedTuple):
    """Consecutive cases of one game read at once (:func:`read_poj1753_blocks`): the first one's number and
    the boards, uint64 bitmasks shape (k,)."""

    first: int
    game: PressSystem
    boards: np.ndarray


def _lines(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers, white space trimmed."""
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if text:
            yield number, text


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


def read_poj1830_cases(lines: Iterable[str], rules: PressSystem) -> Iterator[Case]:
    for number, system, board in read_poj1830(lines):
        yield Case(number, system, board)


def aoc_reader(part: int) -> Callable[[Iterable[str], PressSystem], Iterator[Case]]:
    """The ``aoc2025-10`` reader of ``part`` 1 (lights, two states) or 2 (joltage counters)."""
    def read(lines: Iterable[str], rules: PressSystem) -> Iterator[Case]:
        for number, system, board in read_aoc2025_10(lines, part):
            yield Case(number, system, board)

    return read


def _grid(source, case: int, rows: int, cols: int, alphabet: dict[str, str], what: str, header: int) -> int:
    """Read ``rows`` lines of ``cols`` cells from ``source`` as a bitmask; ``header``: the case's first line
    (an input that ends early is named by its last line read, at least that one)."""
    bits = []
    last = header
    for got in range(rows):
        try:
            last, text = next(source)
        except StopIteration:
            raise BoardFormatError(f"incomplete case at end of input: expected {rows} rows of {what} after the "
                                   f"case's line {header}, found {got}", case=case, line=last) from None
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
    if len(parts) != count or not all(is_number(p) and len(p) <= NUMBER_DIGITS and int(p) > 0 for p in parts):
        raise BoardFormatError(f"expected {what}, got {ascii(text[:40])}", case=case, line=line)
    return [int(p) for p in parts]


def _tracked(source: Iterator[tuple[int, str]], seen: list[int]) -> Iterator[tuple[int, str]]:
    """``source``, noting in ``seen[0]`` the number of the last line it gave."""
    for number, text in source:
        seen[0] = number
        yield number, text


def _sized(rules: Game) -> Callable[[int, int], Game]:
    """``rules`` at ``rows x cols``, goal white: the grid of the last case again when the size repeats, so that
    a stream of same-size cases builds one grid (and the batches compare it by identity)."""
    last: list = [None, None]

    def sized(rows: int, cols: int) -> Game:
        if last[0] != (rows, cols):
            last[:] = (rows, cols), rules.replace(rows=rows, cols=cols, goal="white", target=None)
        return last[1]

    return sized


def read_painter(lines: Iterable[str], rules: Game) -> Iterator[Case]:
    sized = _sized(rules)
    seen = [0]
    source = _tracked(_lines(lines), seen)
    try:
        line, text = next(source)
    except StopIteration:
        return
    (count,) = _positive_ints(text, 1, 1, line, "the number of cases (a positive integer)")
    for case in range(1, count + 1):
        try:
            line, text = next(source)
        except StopIteration:
            raise BoardFormatError(f"expected {count} cases, input ended after {case - 1}", case=case,
                                   line=seen[0]) from None
        (n,) = _positive_ints(text, 1, case, line, "the board size n (a positive integer)")
        game = sized(n, n)
        yield Case(case, game, _grid(source, case, n, n, {"y": "0", "w": "1"}, "'y' or 'w'", line))
    extra = next(source, None)
    if extra is not None:
        raise BoardFormatError(f"the file declares {count} cases but goes on: {ascii(extra[1][:40])}",
                               case=count + 1, line=extra[0])


def read_fliptile(lines: Iterable[str], rules: Game) -> Iterator[Case]:
    source = _lines(lines)
    sized = _sized(rules)
    for case, (line, text) in enumerate(source, start=1):
        rows, cols = _positive_ints(text, 2, case, line, "'M N', two positive integers")
        game = sized(rows, cols)
        yield Case(case, game, _grid(source, case, rows, cols, {"0": "0", "1": "1"}, "0 or 1", line))


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


def answer_poj1830(case: Case, s: Solution) -> str:
    if s.status in (Status.OPTIMAL, Status.INFEASIBLE):
        return poj1830_answer(s.stats.get("solutions") if s.success else 0)
    return s.answer()


def _answer_table(infeasible: str) -> Callable[[Sequence[Case], BatchSolution], list[str]]:
    """A batch writer for formats whose answer is the number of presses or a word per status."""
    words = {int(st): Solution("", st).answer() for st in Status if st is not Status.OPTIMAL}
    words[int(Status.INFEASIBLE)] = infeasible
    statuses = max(words) + 1

    def answers(cases: Sequence[Case], batch: BatchSolution) -> list[str]:
        """O(k) in numpy: each answer is looked up in a table of the numbers and the words."""
        top = int(batch.moves.max(initial=0)) + 1
        table = np.array([str(m) for m in range(top)] + [words.get(st, "") for st in range(statuses)], dtype=object)
        optimal = batch.status == Status.OPTIMAL
        return table[np.where(optimal, batch.moves, top + batch.status.astype(np.int64))].tolist()

    return answers


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
    batch_writer : callable(cases, BatchSolution) -> list of str, optional
        The answer lines of many cases of one game at once, equal to ``writer``
        per case; default: ``writer`` per case.
    footer : callable(total presses) -> str, optional
        A last line after every case (Advent of Code's total).
    backends : tuple of str, optional
        The only backends that give the format's answer (POJ 1830's count of press sets: gauss).
    block_reader : callable(LineSource, rules) -> iterator of Case or CaseBatch, optional
        Reads many cases at once where it can; the same cases as ``reader``.
    per_case : bool
        The answer needs one solve's statistics (POJ 1830's count), so cases are never batched.
    """

    name: str
    reader: Callable[[Iterable[str], Game], Iterator[Case]]
    writer: Callable[[Case, Solution], str]
    size_from_input: bool
    canonical: bool
    colours: tuple[str, str]
    summary: str
    batch_writer: Callable[[Sequence[Case], BatchSolution], list[str]] | None = None
    footer: Callable[[int], str] | None = None
    backends: tuple[str, ...] | None = None
    per_case: bool = False
    block_reader: Callable[[LineSource, PressSystem], Iterator[Case | CaseBatch]] | None = None

    def answers(self, cases: Sequence[Case], batch: BatchSolution) -> list[str]:
        """Answer lines (without line ends) for ``cases``, answered by ``batch`` in the same order.  O(k)."""
        if self.batch_writer is not None:
            return self.batch_writer(cases, batch)
        return [self.writer(case, batch[i]) for i, case in enumerate(cases)]

    def line_limit(self, rules: Game) -> int:
        """Longest input line accepted, in characters: a row of as many cells as a case may
        have, each followed by a space or tab, plus 64 for indentation and a CR.  The row is
        ``rules.cols`` cells for poj1753 (``--size``); for formats that give the size in their
        input, the largest board flipgame takes in one row (:data:`flipgame.core.limits.BOARD_MAX_CELLS`
        cells: 8,000,064 characters).

        >>> FORMATS["poj1753"].line_limit(Game(4, 4))
        72
        """
        if self.size_from_input:
            return 2 * BOARD_MAX_CELLS + 64
        cols = rules.shape[1] if rules.shape else rules.n
        wide = rules.states is None or rules.states > 36
        return (NUMBER_DIGITS + 1 if wide else 2) * cols + 64

    def goal_name(self, game: PressSystem, target) -> str:
        """The goal board in the format's own words: ``all y`` (painter), ``all 0`` (fliptile)."""
        if not game.binary:
            return game.target_name(target)
        if target == 0:
            return f"all {self.colours[0]}" if self.colours != ("w", "b") else "all white"
        if target == game.full:
            return f"all {self.colours[1]}" if self.colours != ("w", "b") else "all black"
        return "the target board"


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("poj1753", read_poj1753, answer_poj1753, False, False, ("w", "b"), "Flip Game, POJ 1753",
           _answer_table("Impossible"), block_reader=read_poj1753_blocks),
    Format("painter", read_painter, answer_painter, True, False, ("y", "w"), "Painter's Problem, POJ 1681",
           _answer_table("inf")),
    Format("fliptile", read_fliptile, answer_fliptile, True, True, ("0", "1"), "Fliptile, POJ 3279"),
    Format("poj1830", read_poj1830_cases, answer_poj1830, True, False, ("0", "1"),
           "POJ 1830: the number of press sets reaching the target, or the judge's impossible line",
           backends=("gauss",), per_case=True),
    Format("aoc2025-10", aoc_reader(1), answer_poj1753, True, False, ("0", "1"),
           "Advent of Code 2025 day 10: one machine per line (--part 2: counters), then the total",
           footer=lambda total: f"total {total}"),
)}
"""The one registry of formats; the CLI's ``--format`` choices come from it."""

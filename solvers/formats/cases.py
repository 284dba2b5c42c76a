"""What every judge format shares: a case (:class:`Case`, :class:`CaseBatch`), the reading of its lines,
grids of cells and numbers, and the batch writer of formats whose answer is a number or a word.

Every reader streams: a case is yielded as soon as its last line is read.  Errors are
:class:`~flipgame.core.errors.BoardFormatError` naming case and line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

import numpy as np

from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.errors import BoardFormatError, RefusedError
from flipgame.core.limits import NUMBER_DIGITS
from flipgame.model.grid import Game
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


def text_lines(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers, white space trimmed."""
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if text:
            yield number, text


def read_grid(source, case: int, rows: int, cols: int, alphabet: dict[str, str], what: str, header: int) -> int:
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


def positive_ints(text: str, count: int, case: int, line: int, what: str) -> list[int]:
    parts = text.split()
    if len(parts) != count or not all(is_number(p) and len(p) <= NUMBER_DIGITS and int(p) > 0 for p in parts):
        raise BoardFormatError(f"expected {what}, got {ascii(text[:40])}", case=case, line=line)
    return [int(p) for p in parts]


def tracked(source: Iterator[tuple[int, str]], seen: list[int]) -> Iterator[tuple[int, str]]:
    """``source``, noting in ``seen[0]`` the number of the last line it gave."""
    for number, text in source:
        seen[0] = number
        yield number, text


def sized_grids(rules: Game) -> Callable[[int, int, int], Game]:
    """``rules`` at ``rows x cols``, goal white, for case ``case``: the grid of the last case again when the size
    repeats, so that a stream of same-size cases builds one grid (and the batches compare it by identity).  A
    size refused (RefusedError: too many cells) carries ``case``, which the refusal names (it said case 0: the
    last case answered)."""
    last: list = [None, None]

    def sized(rows: int, cols: int, case: int) -> Game:
        if last[0] != (rows, cols):
            try:
                last[:] = (rows, cols), rules.replace(rows=rows, cols=cols, goal="white", target=None)
            except RefusedError as exc:
                exc.case = case
                raise
        return last[1]

    return sized


def tokens(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    for number, raw in enumerate(lines, start=1):
        for word in raw.split():
            yield number, word


def int_token(tokens: Iterator[tuple[int, str]], case: int, what: str) -> int:
    try:
        line, word = next(tokens)
    except StopIteration:
        raise BoardFormatError(f"input ends where {what} was expected", case=case) from None
    if not is_number(word) or len(word) > NUMBER_DIGITS:
        raise BoardFormatError(f"expected {what} (a non-negative integer), got {word!r:.20}", case=case, line=line)
    return int(word)


def answer_table(infeasible: str) -> Callable[[Sequence[Case], BatchSolution], list[str]]:
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

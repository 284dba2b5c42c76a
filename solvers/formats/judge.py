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

:class:`LineSource` reads a byte stream (a file, a pipe, a terminal) as the
readers' lines, in bounded pieces: a line longer than :meth:`Format.line_limit`
is refused after at most one 64 KiB read past the limit, and a hook runs
before any read that could block, so answers already due can be written
first (interactive streams).
"""

from __future__ import annotations

import select
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.core.limits import BOARD_MAX_CELLS as MAX_CELLS
from flipgame.formats.press import poj1830_answer, read_aoc2025_10, read_poj1830, read_state_boards
from flipgame.model.grid import Board, BoardFormatError, Game, cells_of, format_cells, parse_row
from flipgame.model.rules import NUMBER_DIGITS
from flipgame.model.system import PressSystem, is_number


def read_cases(lines: Iterable[str] | str, rows: int = 4, cols: int = 4) -> Iterator[Board]:
    """Stream the boards of a POJ 1753 input (its lines, or its whole text), one case per ``rows`` lines,
    until end of input.

    Tolerates CRLF line ends, leading and trailing white space, blank lines
    (between cases or anywhere else, as the reference's ``scanf("%s")`` does),
    and cells separated by spaces or tabs (``b w w b``).
    Runs in constant memory: each board is yielded as soon as its last row is read.

    Raises
    ------
    BoardFormatError
        Naming the 1-based case and line: a row of the wrong length, a
        character other than ``b``/``w``, or an incomplete case at the end.
    """
    for cells in read_cells(lines, rows, cols):
        yield Board(rows, cols, cells)


def read_cells(lines: Iterable[str], rows: int = 4, cols: int = 4) -> Iterator[int]:
    """:func:`read_cases` yielding each board as its bitmask only (no :class:`Board`), for streams
    of many cases.  Same input rules and errors.  O(rows * cols) per case, about 1 us per 4x4 case.

    >>> list(read_cells(["bw", "wb", "", "ww", "wb"], 2, 2))
    [9, 8]
    """
    if isinstance(lines, str):
        lines = lines.splitlines()
    elif isinstance(lines, (bytes, bytearray)):
        raise BoardFormatError("expected text (str, or an iterable of lines), got bytes: decode them first")
    case, current, first_line = 1, [], None
    line_no = 0
    for line_no, raw in enumerate(lines, start=1):
        if not isinstance(raw, str):
            raise BoardFormatError(f"expected a line of text, got {type(raw).__name__}", case=case, line=line_no)
        row = parse_row(raw, cols, case, line_no)
        if row is None:
            continue
        if not current:
            first_line = line_no
        current.append(row)
        if len(current) == rows:
            yield cells_of(current)
            case, current = case + 1, []
    if current:
        raise BoardFormatError(
            f"incomplete case at end of input: {len(current)} of {rows} rows "
            f"(case starts on line {first_line})",
            case=case, line=line_no,
        )


class Case(NamedTuple):
    """One problem instance read from the input: its rules and its board (in the system's board form:
    a bitmask for two states).  A named tuple: streams create one per case, and a tuple is made
    several times faster than a frozen dataclass."""

    number: int
    game: PressSystem
    board: object


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


def read_painter(lines: Iterable[str], rules: Game) -> Iterator[Case]:
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
        game = rules.replace(rows=n, cols=n, goal="white", target=None)
        yield Case(case, game, _grid(source, case, n, n, {"y": "0", "w": "1"}, "'y' or 'w'", line))
    extra = next(source, None)
    if extra is not None:
        raise BoardFormatError(f"the file declares {count} cases but goes on: {ascii(extra[1][:40])}",
                               case=count + 1, line=extra[0])


def read_fliptile(lines: Iterable[str], rules: Game) -> Iterator[Case]:
    source = _lines(lines)
    for case, (line, text) in enumerate(source, start=1):
        rows, cols = _positive_ints(text, 2, case, line, "'M N', two positive integers")
        game = rules.replace(rows=rows, cols=cols, goal="white", target=None)
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
    optimal = int(Status.OPTIMAL)

    def answers(cases: Sequence[Case], batch: BatchSolution) -> list[str]:
        return [str(m) if st == optimal else words[st]
                for st, m in zip(batch.status.tolist(), batch.moves.tolist(), strict=True)]

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
            return 2 * MAX_CELLS + 64
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
           _answer_table("Impossible")),
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


class LineSource:
    """The lines of a byte stream, read in bounded pieces, for the format readers.

    Bytes are decoded as UTF-8 (a leading byte-order mark dropped, undecodable
    bytes as U+FFFD, which the readers then report with their line).  Lines
    end at ``\\n``, or with ``universal`` also at ``\\r\\n`` and ``\\r``
    (what :func:`open` does for a named file; standard input splits at
    ``\\n`` only).  Lines are yielded without their end.

    Parameters
    ----------
    raw : binary file
        Unbuffered (``open(..., "rb", buffering=0)``): ``read(n)`` returns what
        is available, at most ``n`` bytes.
    limit : int
        Longest line accepted, in characters (see :meth:`Format.line_limit`).
    universal : bool
        Universal line ends.
    before_block : callable() -> None, optional
        Called before a read that may wait for more input (nothing is ready
        on the file descriptor by ``select``), so answers already due can be
        written first: an interactive writer gets each answer before it must
        send the next case.
    block : int
        Bytes per read (64 KiB).

    Raises (while iterating)
    ------------------------
    BoardFormatError
        A line longer than ``limit`` characters, naming the line (not the
        case: the caller knows which case was being read).  At most ``limit``
        plus ``block`` bytes are held: ``/dev/zero`` is refused at once.
    OSError
        From the read.

    >>> import io
    >>> list(LineSource(io.BytesIO(b"\\xef\\xbb\\xbfbw\\r\\nwb\\rww"), 8, universal=True))
    ['bw', 'wb', 'ww']
    """

    def __init__(self, raw, limit: int, *, universal: bool = False,
                 before_block: Callable[[], None] | None = None, block: int = 1 << 16):
        self.raw, self.limit, self.universal, self.before_block, self.block = raw, limit, universal, before_block, block
        try:
            self._fd = raw.fileno()
        except (AttributeError, OSError, ValueError):
            self._fd = None  # e.g. io.BytesIO: never blocks
        self.lines_read = 0

    def _ready(self) -> bool:
        """True if a read will not wait (data or end of input ready, or not a selectable descriptor)."""
        if self._fd is None:
            return True
        try:
            return bool(select.select([self._fd], [], [], 0)[0])
        except (OSError, ValueError):
            return False  # cannot tell: treat as possibly blocking

    def _too_long(self) -> BoardFormatError:
        return BoardFormatError(f"line longer than {self.limit} characters", line=self.lines_read + 1)

    def __iter__(self) -> Iterator[str]:
        pending = bytearray()  # the unfinished line (and, in universal mode, a CR that may start CR LF)
        tail = 0  # characters of ``pending``: its bytes that start a UTF-8 character
        first, eof = True, False
        while not eof:
            if self.before_block is not None and not self._ready():
                self.before_block()
            data = self.raw.read(self.block)
            eof = not data
            lo = max(0, len(pending) - 1)
            pending += data
            cut = self._last_line_end(pending, lo, eof)
            if cut < 0:
                tail += len(data.translate(None, _CONTINUATION))
            else:
                text = pending[:cut + 1].decode("utf-8", "replace")
                del pending[:cut + 1]
                tail = len(pending.translate(None, _CONTINUATION))
                lines = self._split_lines(text, first)
                first = False
                for line in lines:
                    if len(line) > self.limit:
                        raise self._too_long()
                    self.lines_read += 1
                    yield line
            # The unfinished line is refused once over the limit, after the complete lines before
            # it: more than ``limit`` characters, or more bytes than that many characters can take.
            if tail > self.limit or len(pending) > 4 * self.limit + 4:
                raise self._too_long()

    def _last_line_end(self, pending: bytearray, lo: int, eof: bool) -> int:
        """Index in ``pending`` of the last line end at or after ``lo`` (at end of input, its last byte),
        or -1 if the new bytes end no line."""
        end = len(pending)
        if eof:
            return end - 1
        if self.universal and pending.endswith(b"\r"):
            end -= 1  # a CR at the end of a read may be the first half of CR LF
        cut = pending.rfind(b"\n", lo, end)
        if self.universal:
            cut = max(cut, pending.rfind(b"\r", lo, end))
        return cut

    def _split_lines(self, text: str, first: bool) -> list[str]:
        """The complete lines of decoded ``text`` (a leading BOM dropped from the ``first`` block)."""
        if first and text.startswith("\ufeff"):
            text = text[1:]
        if self.universal and "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # the text ended with a line end
        return lines


_CONTINUATION = bytes(range(0x80, 0xC0))
"""UTF-8 continuation bytes: a byte string has as many characters as bytes outside this range."""

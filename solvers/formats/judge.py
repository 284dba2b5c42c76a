"""The one registry of judge formats (:data:`FORMATS`): how each reads its cases and writes its answers.

One module per format: :mod:`~flipgame.formats.poj1753` (Flip Game), :mod:`~flipgame.formats.painter` (POJ 1681),
:mod:`~flipgame.formats.fliptile` (POJ 3279), :mod:`~flipgame.formats.poj1830` (the switch problem) and
:mod:`~flipgame.formats.aoc2025_10` (Advent of Code 2025 day 10); what they share is in
:mod:`~flipgame.formats.cases`.  :class:`~flipgame.formats.lines.LineSource` reads a byte stream (a file, a
pipe, a terminal) as the readers' lines, in bounded pieces.  The CLI's ``--format`` choices come from
:data:`FORMATS`; a new format is one module and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from flipgame.backends.result import BatchSolution, Solution
from flipgame.core.limits import BOARD_MAX_CELLS, NUMBER_DIGITS
from flipgame.formats.aoc2025_10 import aoc_reader
from flipgame.formats.cases import Case, CaseBatch
from flipgame.formats.fliptile import answer_fliptile, read_fliptile
from flipgame.formats.lines import LineSource
from flipgame.formats.painter import answer_painter, answers_painter, read_painter
from flipgame.formats.poj1753 import answer_poj1753, answers_poj1753, read_poj1753, read_poj1753_blocks
from flipgame.formats.poj1830 import answer_poj1830, read_poj1830_cases
from flipgame.model.grid import Game
from flipgame.model.system import PressSystem


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
           answers_poj1753, block_reader=read_poj1753_blocks),
    Format("painter", read_painter, answer_painter, True, False, ("y", "w"), "Painter's Problem, POJ 1681",
           answers_painter),
    Format("fliptile", read_fliptile, answer_fliptile, True, True, ("0", "1"), "Fliptile, POJ 3279"),
    Format("poj1830", read_poj1830_cases, answer_poj1830, True, False, ("0", "1"),
           "POJ 1830: the number of press sets reaching the target, or the judge's impossible line",
           backends=("gauss",), per_case=True),
    Format("aoc2025-10", aoc_reader(1), answer_poj1753, True, False, ("0", "1"),
           "Advent of Code 2025 day 10: one machine per line (--part 2: counters), then the total",
           footer=lambda total: f"total {total}"),
)}
"""The one registry of formats; the CLI's ``--format`` choices come from it."""

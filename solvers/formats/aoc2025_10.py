"""``aoc2025-10`` (Advent of Code 2025, day 10): one machine per line, ``[.##.] (3) (1,3) ... {3,5,4,7}``: the
lights' goal pattern, the buttons (0-based lights each one toggles) and the joltage counters.  Part 1: fewest
presses from all off to the pattern (two states).  Part 2: fewest presses from all zero counters to the
joltages (counters: a press adds 1, no modulus).  The answer is one line per machine, then ``total T``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from flipgame.core.errors import BoardFormatError, RulesError
from flipgame.core.limits import SYSTEM_MAX_BUTTONS
from flipgame.formats.cases import Case
from flipgame.model.system import PressSystem

_AOC = re.compile(r"^\[([.#]+)\]\s*((?:\(\s*[0-9]{1,12}(?:\s*,\s*[0-9]{1,12})*\s*\)\s*)+)"
                  r"\{\s*([0-9]{1,12}(?:\s*,\s*[0-9]{1,12})*)\s*\}$")


def read_aoc2025_10(lines: Iterable[str], part: int = 1) -> Iterator[tuple[int, PressSystem, object]]:
    """Advent of Code 2025 day 10 machines as (number, system with its goal, all-zero board: 0 for part 1's
    two states, a tuple of zeros for part 2's counters).

    >>> [(s.states, s.target) for _, s, _ in read_aoc2025_10(["[.#] (1) (0,1) {3,5}"], part=2)]
    [(None, (3, 5))]
    """
    case = 0
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        case += 1
        if text.count("(") > SYSTEM_MAX_BUTTONS:
            raise BoardFormatError(f"over {SYSTEM_MAX_BUTTONS:,} buttons in one machine", case=case, line=number)
        m = _AOC.match(text)
        if not m:
            raise BoardFormatError("expected '[.#...] (i,j) (k) ... {a,b,...}'", case=case, line=number)
        lights = tuple(1 if ch == "#" else 0 for ch in m[1])
        buttons = [tuple(int(v) for v in b.split(",")) for b in re.findall(r"\(([^)]*)\)", m[2])]
        counters = tuple(int(v) for v in m[3].split(","))
        n = len(lights)
        if len(counters) != n:
            raise BoardFormatError(f"{n} lights but {len(counters)} joltage counters", case=case, line=number)
        try:
            system = PressSystem(n, tuple(tuple((c, 1) for c in sorted(set(b))) for b in buttons),
                                 2 if part == 1 else None, "board", lights if part == 1 else counters)
        except RulesError as exc:
            raise BoardFormatError(str(exc), case=case, line=number) from None
        yield case, system, 0 if part == 1 else (0,) * n


def aoc_reader(part: int) -> Callable[[Iterable[str], PressSystem], Iterator[Case]]:
    """The ``aoc2025-10`` reader of ``part`` 1 (lights, two states) or 2 (joltage counters)."""
    def read(lines: Iterable[str], rules: PressSystem) -> Iterator[Case]:
        for number, system, board in read_aoc2025_10(lines, part):
            yield Case(number, system, board)

    return read

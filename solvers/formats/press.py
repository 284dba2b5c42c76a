"""Judge formats of the general game, read into press systems.

* ``poj1830`` (POJ 1830, switch problem): a count K of cases; per case N,
  N initial states, N target states (0/1), then pairs ``I J`` (1-based:
  pressing switch I also toggles J; every switch toggles itself) ending with
  ``0 0``.  The answer is the *number* of press sets that reach the target,
  or ``Oh,it's impossible~!!``.
* ``aoc2025-10`` (Advent of Code 2025, day 10): one machine per line,
  ``[.##.] (3) (1,3) ... {3,5,4,7}``: the lights' goal pattern, the buttons
  (0-based lights each one toggles) and the joltage counters.  Part 1: fewest
  presses from all off to the pattern (two states).  Part 2: fewest presses
  from all zero counters to the joltages (counters: a press adds 1, no
  modulus).  The answer is one line per machine, then ``total T``.

Both readers yield ``(case number, PressSystem with its goal, board)`` and
raise :class:`~flipgame.core.errors.BoardFormatError` naming case and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from flipgame.core.errors import BoardFormatError, RulesError
from flipgame.core.limits import NUMBER_DIGITS, SYSTEM_MAX_BUTTONS
from flipgame.model.boards import parse_state_row
from flipgame.model.parts import is_number
from flipgame.model.rules import from_edges
from flipgame.model.system import PressSystem

POJ1830_IMPOSSIBLE = "Oh,it's impossible~!!"
POJ1830_MAX_SWITCHES = 28
"""The statement's bound (0 < N < 29)."""


def _tokens(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    for number, raw in enumerate(lines, start=1):
        for word in raw.split():
            yield number, word


def _int(tokens: Iterator[tuple[int, str]], case: int, what: str) -> int:
    try:
        line, word = next(tokens)
    except StopIteration:
        raise BoardFormatError(f"input ends where {what} was expected", case=case) from None
    if not is_number(word) or len(word) > NUMBER_DIGITS:
        raise BoardFormatError(f"expected {what} (a non-negative integer), got {word!r:.20}", case=case, line=line)
    return int(word)


def read_poj1830(lines: Iterable[str]) -> Iterator[tuple[int, PressSystem, int]]:
    """POJ 1830 cases as (number, two-state system with the target as goal, initial board bitmask).

    >>> [(n, s.m, s.target, b) for n, s, b in read_poj1830(["1", "2", "0 0", "1 1", "1 2", "0 0"])]
    [(1, 2, 3, 0)]
    """
    tokens = _tokens(lines)
    cases = _int(tokens, 1, "the number of cases")
    for case in range(1, cases + 1):
        n = _int(tokens, case, "N, the number of switches")
        if not 1 <= n <= POJ1830_MAX_SWITCHES:
            raise BoardFormatError(f"N must be 1..{POJ1830_MAX_SWITCHES}, got {n}", case=case)
        start = tuple(_bit(tokens, case, "an initial state 0/1") for _ in range(n))
        goal = tuple(_bit(tokens, case, "a target state 0/1") for _ in range(n))
        edges = []
        while True:
            i, j = _int(tokens, case, "I of a pair I J"), _int(tokens, case, "J of a pair I J")
            if (i, j) == (0, 0):
                break
            if not (1 <= i <= n and 1 <= j <= n):
                raise BoardFormatError(f"pair {i} {j} names a switch outside 1..{n}", case=case)
            edges.append((i - 1, j - 1))
        system = from_edges(n, edges, closed=True, directed=True, states=2, goal="board", target=goal)
        yield case, system, system.board_of(start)


def _bit(tokens, case: int, what: str) -> int:
    v = _int(tokens, case, what)
    if v > 1:
        raise BoardFormatError(f"expected {what}, got {v}", case=case)
    return v


def poj1830_answer(solutions: int | None) -> str:
    """The judge's line: the number of press sets, or its impossible line (``None`` or 0)."""
    return str(solutions) if solutions else POJ1830_IMPOSSIBLE


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


def read_state_boards(lines: Iterable[str], system: PressSystem) -> Iterator[tuple[int, object]]:
    """Boards of ``system`` from text, with the line each ends on: a grid's boards as ``rows`` lines
    each, other systems' as one line each, blank lines skipped; each board in the system's board
    form (a bitmask for two states).  Streams: O(cells) memory.

    Raises BoardFormatError naming case and line.
    """
    rows, cols = system.shape or (1, system.cells)
    current: list[int] = []
    case, number = 1, 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            values = parse_state_row(raw, system.states)
        except BoardFormatError as exc:
            raise BoardFormatError(exc.reason, case=case, line=number) from None
        if len(values) != cols:
            raise BoardFormatError(f"expected a row of {cols} cells, got {len(values)}", case=case, line=number)
        current.extend(values)
        if len(current) == rows * cols:
            yield number, system.board_of(current)
            current, case = [], case + 1
    if current:
        raise BoardFormatError(f"incomplete case at end of input: {len(current) // cols} of {rows} rows",
                               case=case, line=number)

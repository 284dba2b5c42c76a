"""Reference puzzles with known answers, in one place: the benchmark suite, ``flipgame bench``, the docs
and the tests all read them from here.

* :data:`B18`: an 18x18 board with a unique solution of 176 presses (goal black), hard for search:
  CP-SAT with XOR rows found nothing in 20 s, the chase formulation proves it in 0.2 s.
* :data:`P14`: a POJ 1681 (Painter's Problem) case, n = 14, ``y`` = painted, minimum 89.
* :data:`MERLIN`: Merlin's Magic Square (Parker Brothers' Merlin, 1978): a corner flips its 2x2 block,
  an edge cell its edge line of 3, the centre its plus; ``examples/merlin.json`` is this system.
* :data:`AOC2025_10`: the Advent of Code 2025 day 10 example machines (part 1: 2, 3, 2; part 2 as
  counters: 10, 12, 11).

>>> from flipgame.model.rules import from_json
>>> from_json(MERLIN).press_masks[4]
186
"""

from __future__ import annotations

B18 = (
    "bwbwbwbwbbbbbwwwbb", "wwbwwbbbbbbwwwwwbb", "wbbwbwbwbbbwwbwbbw", "bwwbwwwwwbwbwbwbbb", "wwwbbwbwwwwbwbbbbw",
    "wbwbbbbwbwwwwbbwbb", "bwwbwwbwwwwbwbbwbw", "wwwbbwbbbbwbbbwwbb", "bwbwwbbbwwwwbbwbbb", "bwwwbwwwbbbwwwwbbw",
    "wbbwbwbwwbwwbwwwww", "bbbwbbbwbwwwbbbbwb", "wwbbwwwwwwbwwwbwwb", "wwbbbbwbwbbwwbwwbb", "bbbwwwwbwwwwwbbbww",
    "bwbbwbbwwwbbwbbwww", "bbwbbbwwbwwwwwbwwb", "wwwwwwwbbbbwbwwbbw",
)
"""18x18, goal black: a unique solution of 176 presses."""
P14 = (
    "ywwyyywywwwwyy", "wyyywwywwywyww", "wwwyywwwwywyyy", "ywwwywwwywywyy", "wywywyywyywwyy",
    "wywwwyywywywww", "wwywwywwywywyw", "wyywyywwwwwyww", "yyywwyyyywwyyw", "wwwyyywwwwwyyy",
    "wwwwyywwywwyyw", "wyywywwywyywwy", "ywyywyyyyywwww", "yywywwywwywwww",
)
"""A POJ 1681 case (y = painted = white), n = 14, minimum 89."""
MERLIN = {
    "comment": "Merlin's Magic Square (Parker Brothers' Merlin, 1978): a corner flips its 2x2 block, an edge cell "
               "its edge line of 3, the centre its plus",
    "grid": "3x3",
    "states": 2,
    "buttons": [[0, 1, 3, 4], [0, 1, 2], [1, 2, 4, 5], [0, 3, 6], [1, 3, 4, 5, 7], [2, 5, 8], [3, 4, 6, 7],
                [6, 7, 8], [4, 5, 7, 8]],
}
"""Merlin's Magic Square as the JSON press-system format (docs/general-game.md)."""
MERLIN_RING = (1, 1, 1, 1, 0, 1, 1, 1, 1)
"""Merlin's usual goal: every cell lit but the centre (8 presses from all off, 4 from ``bww/www/www``)."""
AOC2025_10 = (
    "[.##.] (3) (1,3) (2) (2,3) (0,2) (0,1) {3,5,4,7}",
    "[...#.] (0,2,3,4) (2,3) (0,4) (0,1,2) (1,2,3,4) {7,5,12,7,2}",
    "[.###.#] (0,1,2,3,4) (0,3,4) (0,1,2,4,5) (1,2) {10,11,11,5,10,5}",
)
"""The Advent of Code 2025 day 10 example: part 1 optima 2, 3, 2; part 2 (counters) 10, 12, 11."""

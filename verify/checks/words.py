"""The referee's checks of many answers of one two-state system of at most 64 cells, without numpy: the judge's
lane of ``flipgame solve`` (:mod:`flipgame.cli.lane`) writes no answer these have not passed.

Every press set is re-applied through the model's press masks and must turn its board into the goal board it
names, one of the system's goals, with as many presses as claimed; every ``Impossible`` carries one certificate per
goal board, a set of cells that each press mask meets in an even number (checked once per certificate) while the
board and that goal differ on an odd number of them.  All boards are checked at once: each board, press set and
certificate is a 64-bit slot of one int (:func:`~flipgame.core.bits.pack_words`), and a press or a parity is a few
big-int operations over all the slots.  Nothing here is taken from the solver but the answers.

Source: the parity argument of Anderson & Feil, Math. Magazine 71(4), 1998; SWAR parity: Warren, "Hacker's
Delight", 2nd ed., section 5-2.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import compress, repeat

from flipgame.core.bits import pack_words, unpack_words, word_ones, word_parities
from flipgame.model.system import PressSystem

Answer = tuple
"""``(presses, press set, goal board)`` of a solved board, or ``(None, c_0, c_1, ...)``: one certificate per goal
board, in the order of :attr:`~flipgame.model.system.PressSystem.targets`."""


def certificate_problem(masks: Sequence[int], certificate: int) -> str | None:
    """Why ``certificate`` (a set of cells) is not changed in parity by every press, or None.  O(m)."""
    odd = next((j for j, m in enumerate(masks) if (m & certificate).bit_count() & 1), None)
    return None if odd is None else f"press {odd} flips an odd number of the certificate's cells"


def words_problem(game: PressSystem, boards: Sequence[int], answers: Sequence[Answer]) -> str | None:
    """The first problem of the answers to ``boards`` (bitmasks of a two-state system of at most 64 cells and
    buttons), or None when every answer holds.  O(len(boards) * (m + len(targets))) word operations, done a whole
    int at a time; the per-board passes are C loops (``map``, ``compress``)."""
    impossible = list(map(operator.is_, map(operator.itemgetter(0), answers), repeat(None)))
    solved = list(map(operator.not_, impossible))
    return (_witness_problem(game, list(compress(boards, solved)), list(compress(answers, solved)))
            or _certificate_problem(game, list(compress(boards, impossible)), list(compress(answers, impossible))))


def _witness_problem(game: PressSystem, boards: list[int], answers: list[Answer]) -> str | None:
    """The press sets of ``answers`` re-applied to ``boards`` through the model's press masks, all at once."""
    if not answers:
        return None
    presses, press_sets, wanted = (list(column) for column in zip(*answers, strict=True))
    if not set(wanted) <= set(game.targets) or max(press_sets) >> game.m or min(press_sets) < 0 or any(
            map(operator.ne, map(int.bit_count, press_sets), presses)):
        return "a press set is not one of the system's buttons, counts other presses or names no goal board"
    packed = pack_words(press_sets)
    after = pack_words(boards)
    ones = word_ones(len(boards))
    for j, mask in enumerate(game.press_masks):
        after ^= (packed >> j & ones) * mask
    if after == pack_words(wanted):
        return None
    k = next(k for k, (got, want) in enumerate(zip(unpack_words(after, len(boards)), wanted, strict=True))
             if got != want)
    return f"the press set of {presses[k]} presses does not turn board {boards[k]} into the goal board it names"


def _certificate_problem(game: PressSystem, boards: list[int], answers: list[Answer]) -> str | None:
    """The certificates of ``answers`` checked against every press mask (each distinct one once), then against
    ``boards``, all at once."""
    if not answers:
        return None
    targets = game.targets
    if set(map(len, answers)) != {1 + len(targets)}:
        return "an Impossible answer does not carry one certificate per goal board"
    packed = pack_words(boards)
    ones = word_ones(len(boards))
    for q, target in enumerate(targets):
        column = list(map(operator.itemgetter(1 + q), answers))
        for certificate in set(column):
            if not 0 < certificate <= game.full:
                return f"certificate {certificate} is not a non-empty set of the {game.cells} cells"
            if problem := certificate_problem(game.press_masks, certificate):
                return problem
        if word_parities((packed ^ target * ones) & pack_words(column), len(boards)) != ones:
            return f"an Impossible answer's certificate for {game.target_name(target)} meets its board evenly"
    return None

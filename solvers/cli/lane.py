"""The judge's lane of ``flipgame solve``: plain POJ 1753 input answered without numpy and without the backends.

A judge runs ``flipgame solve < cases`` once per submission, and most of the command's time was its start:
numpy's import alone is most of the seed's C++ run on all 65,536 4x4 boards.  So when the command line asks only
for what the lane gives (the minimum or ``Impossible`` per board of a two-state grid of at most
:data:`~flipgame.core.limits.LANE_MAX_CELLS` cells, gauss's answer) and the input is a regular file of plain rows
(:func:`flipgame.formats.plain.plain_boards`) of at most :data:`~flipgame.core.limits.LANE_MAX_BYTES`, the grid is
eliminated once on machine words (:class:`flipgame.algebra.packed.Packed`), every board answered by table
look-ups, and every answer checked by the referee (:func:`flipgame.verify.checks.words.words_problem`) before
anything is written.  Anything else, including an answer that fails a check, leaves the input where it was and
goes through the pipeline (:mod:`flipgame.cli.solve`), whose output is the same: the tests compare the two.

Flags the lane takes: ``FILE``, ``--size RxC``, ``--goal any|white|black``, ``--wrap``, ``--neighbourhood
plus|king|cross``, ``--backend gauss`` and ``--format poj1753``, each written out in full.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Sequence

from flipgame.algebra.packed import Packed
from flipgame.core.errors import FlipgameError
from flipgame.core.limits import LANE_MAX_BYTES, LANE_MAX_CELLS, LANE_MAX_NULLITY
from flipgame.formats.plain import plain_boards
from flipgame.model.grid import Game
from flipgame.verify.checks.words import words_problem

CHOICES = {"--goal": ("any", "white", "black"), "--backend": ("gauss",), "--format": ("poj1753",),
           "--neighbourhood": ("plus", "king", "cross")}
"""The lane's flags with a value, and the values it takes (any other value goes to the pipeline)."""


def rules_of(argv: Sequence[str]) -> tuple[Game, str] | None:
    """The grid and input file (``-``: standard input) of a ``solve`` command line the lane takes, else None."""
    if not argv or argv[0] != "solve":
        return None
    flags = {"--size": "4x4", "--goal": "any", "--neighbourhood": "plus"}
    files, wrap = [], False
    tokens = iter(argv[1:])
    for token in tokens:
        name, eq, value = token.partition("=")
        if token == "--wrap":
            wrap = True
        elif name in ("--size", *CHOICES):
            flags[name] = value if eq else next(tokens, None)
        elif token == "-" or not token.startswith("-"):
            files.append(token)
        else:
            return None
    size = re.fullmatch(r"([1-9][0-9]{0,1})x([1-9][0-9]{0,1})", flags["--size"] or "")
    if len(files) > 1 or not size or any(flags.get(f, v[0]) not in v for f, v in CHOICES.items()):
        return None
    rows, cols = int(size[1]), int(size[2])
    if rows * cols > LANE_MAX_CELLS:
        return None
    try:
        return Game(rows, cols, flags["--goal"], wrap, flags["--neighbourhood"]), (files or ["-"])[0]
    except FlipgameError:
        return None


def answer(argv: Sequence[str]) -> int | None:
    """Answer the command line in the lane and return exit status 0, or None (nothing read, nothing written)
    when the lane does not take it (module docstring)."""
    taken = rules_of(argv)
    if taken is None:
        return None
    game, path = taken
    packed = Packed.of(game.press_masks, game.n)
    if packed.nullity > LANE_MAX_NULLITY:
        return None
    data = read_whole(path)
    boards = None if data is None else plain_boards(data, game.rows, game.cols)
    if boards is None:
        return None
    answers = packed.minima(boards, game.targets)
    if words_problem(game, boards, answers) is not None:
        return None  # the pipeline answers, and its referee names what is wrong
    sys.stdout.write("".join([f"{a[0]}\n" if a[0] is not None else "Impossible\n" for a in answers]))
    if path == "-":
        os.lseek(0, 0, os.SEEK_END)  # the input is read, as the pipeline would leave it
    return 0


def read_whole(path: str) -> bytes | None:
    """The rest of a regular file of at most :data:`LANE_MAX_BYTES` (standard input when ``path`` is ``-``), or
    None.  Read with ``pread``, so the file's offset stays where it was for the pipeline (:func:`answer` moves it
    to the end once it has answered); a pipe or a terminal is read by the pipeline, which answers as cases come."""
    try:
        fd = 0 if path == "-" else os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        start = os.lseek(fd, 0, os.SEEK_CUR) if stat.S_ISREG(info.st_mode) else None
        if start is None or info.st_size - start > LANE_MAX_BYTES:
            return None
        chunks, at = [], start
        while (chunk := os.pread(fd, LANE_MAX_BYTES + 1, at)) and at - start <= LANE_MAX_BYTES:
            chunks.append(chunk)
            at += len(chunk)
        if at - start > LANE_MAX_BYTES:  # the file grew while it was read
            return None
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        if fd != 0:
            os.close(fd)

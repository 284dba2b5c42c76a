"""The judge's lane of ``flipgame solve``: plain POJ 1753 input answered without numpy and without the backends.

A judge runs ``flipgame solve < cases`` once per submission, and most of the command's time was its start:
numpy's import alone is most of the seed's C++ run on all 65,536 4x4 boards.  So when the command line asks only
for what the lane gives (the minimum or ``Impossible`` per board of a two-state grid of at most
:data:`~flipgame.core.limits.LANE_MAX_CELLS` cells and nullity :data:`~flipgame.core.limits.LANE_MAX_NULLITY`,
gauss's answer) and the input is plain rows (:func:`flipgame.formats.plain.plain_boards`) of at most
:data:`~flipgame.core.limits.LANE_MAX_BOARDS` boards, from a regular file or a pipe, the grid is eliminated once
on machine words (:class:`flipgame.algebra.packed.Packed`), every board answered by table look-ups, and every
answer checked by the referee (:func:`flipgame.verify.checks.words.words_problem`) before anything is written.
Anything else, including an answer that fails a check, goes through the pipeline (:mod:`flipgame.cli.solve`) with
the input as it was, whose output is the same: the tests compare the two.

Flags the lane takes: ``FILE``, ``--size RxC``, ``--goal any|white|black``, ``--wrap``, ``--neighbourhood
plus|king|cross``, ``--backend gauss`` and ``--format poj1753``, each written out in full.
"""

from __future__ import annotations

import os
import re
import select
import stat
import sys
import tempfile
import threading
from collections.abc import Sequence

from flipgame.algebra.packed import Packed
from flipgame.core.errors import FlipgameError, NullityTooLargeError
from flipgame.core.limits import LANE_MAX_BOARDS, LANE_MAX_CELLS, LANE_MAX_NULLITY, LANE_WAIT_SECONDS
from flipgame.core.signals import signals_blocked
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
    try:
        packed = Packed.of(game.press_masks, game.n, LANE_MAX_NULLITY)
    except NullityTooLargeError:
        return None
    data = read_whole(path, LANE_MAX_BOARDS * game.rows * (game.cols + 1))
    if data is None:
        return None
    boards = plain_boards(data, game.rows, game.cols)
    answers = None if boards is None else packed.minima(boards, game.targets)
    if answers is None or words_problem(game, boards, answers) is not None:  # the pipeline's referee names it
        if path == "-" and not stat.S_ISREG(os.fstat(0).st_mode):
            give_back(data, more=False)
        return None
    sys.stdout.write("".join([f"{a[0]}\n" if a[0] is not None else "Impossible\n" for a in answers]))
    if path == "-" and stat.S_ISREG(os.fstat(0).st_mode):
        os.lseek(0, 0, os.SEEK_END)  # the input is read, as the pipeline would leave it
    return 0


def read_whole(path: str, limit: int) -> bytes | None:
    """The rest of a regular file, or of standard input from a pipe, of at most ``limit`` bytes, or None.
    A file is read with ``pread``, so its offset stays where it was for the pipeline (:func:`answer` moves it to
    the end once it has answered); what the lane read of a pipe that does not end within
    :data:`~flipgame.core.limits.LANE_WAIT_SECONDS` of its last data (a person typing, a program waiting for
    answers) is put back in front of the rest (:func:`give_back`).  A terminal is the pipeline's."""
    if not hasattr(os, "pread"):
        return None  # not a POSIX system: the pipeline reads the input
    try:
        if path != "-" and not stat.S_ISREG(os.stat(path).st_mode):
            return None  # never opened: opening a FIFO would take its writer from the pipeline
        fd = 0 if path == "-" else os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        mode = os.fstat(fd).st_mode
        if path == "-" and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return _read_pipe(limit)
        return _read_file(fd, limit) if stat.S_ISREG(mode) else None
    except OSError:
        return None
    finally:
        if fd != 0:
            os.close(fd)


def _read_file(fd: int, limit: int) -> bytes | None:
    start = os.lseek(fd, 0, os.SEEK_CUR)
    if os.fstat(fd).st_size - start > limit:
        return None
    chunks, at = [], start
    while (chunk := os.pread(fd, limit + 1, at)) and at - start <= limit:
        chunks.append(chunk)
        at += len(chunk)
    return None if at - start > limit else b"".join(chunks)  # None: the file grew while it was read


def _read_pipe(limit: int) -> bytes | None:
    chunks, size = [], 0
    while select.select([0], [], [], LANE_WAIT_SECONDS)[0]:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            break
    give_back(b"".join(chunks), more=True)
    return None


def give_back(data: bytes, *, more: bool) -> None:
    """Put ``data``, read from standard input, back in front of it for the pipeline: with ``more`` (the input
    goes on) through a pipe fed by a thread, ``data`` first and then the rest as it comes; else as a file."""
    if not data and more:
        return
    if not more:
        with tempfile.TemporaryFile() as file:
            file.write(data)
            file.seek(0)
            os.dup2(file.fileno(), 0)
        return
    rest = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    with signals_blocked():  # the command's thread takes Ctrl-C, never this one
        threading.Thread(target=_pump, args=(data, rest, write_end), name="flipgame-stdin", daemon=True).start()


def _pump(data: bytes, source: int, sink: int) -> None:
    """Write ``data`` then everything read from ``source`` to ``sink``, until the end of ``source`` or until
    ``sink``'s reader has gone; then close both."""
    try:
        while data:
            data = data[os.write(sink, data):]
            if not data:
                data = os.read(source, 1 << 16)
    except OSError:
        pass  # the pipeline stopped reading (an error, a Ctrl-C): nothing more to give it
    finally:
        os.close(sink)
        os.close(source)

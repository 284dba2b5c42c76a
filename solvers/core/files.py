"""Files written whole or not at all: through a temporary file beside the target, renamed over it when
complete (``os.replace``, atomic on one file system), so a kill, Ctrl-C or full disk mid-write leaves no
truncated file under the real name."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import IO

PARTIAL_SUFFIX = ".part"
"""Appended to a file's name while it is written."""


@contextlib.contextmanager
def whole_file(path: str | os.PathLike, mode: str = "w", encoding: str | None = "ascii") -> Iterator[IO]:
    """Open ``path + PARTIAL_SUFFIX`` for writing; on leaving the block, rename it to ``path``, or on an
    exception remove it and re-raise.  A process killed mid-write (SIGKILL) leaves only the ``.part`` file,
    which :func:`remove_partial` clears.  Raises OSError."""
    part = os.fspath(path) + PARTIAL_SUFFIX
    try:
        with open(part, mode, encoding=None if "b" in mode else encoding) as fh:
            yield fh
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise


def remove_partial(folder: str | os.PathLike, stem: str) -> None:
    """Remove the ``stem*`` files of ``folder`` left half-written (their ``.part`` names) by a killed writer."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name.startswith(stem) and entry.name.endswith(PARTIAL_SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)

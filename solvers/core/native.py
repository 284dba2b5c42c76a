"""Native libraries that write to the process's standard output (HiGHS prints a banner when a model
object is made): keep their output away from the answers."""

from __future__ import annotations

import contextlib
import os
import sys


@contextlib.contextmanager
def quiet_stdout():
    """File descriptor 1 points to /dev/null inside: a native library's banner never reaches the answers.

    Python's own ``sys.stdout`` buffer is flushed first, so nothing already printed is lost or reordered.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)

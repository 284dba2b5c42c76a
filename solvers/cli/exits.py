"""How ``flipgame`` ends: the exit statuses (:class:`ExitCode`) and the one-line message of a failure (:func:`fail`).

Kept apart from :mod:`flipgame.cli.common` so that the judge's lane (:mod:`flipgame.cli.lane`) and the entry point
load neither the backends nor numpy.
"""

from __future__ import annotations

import enum
import sys

from flipgame.core.text import one_line


class ExitCode(enum.IntEnum):
    """Exit statuses of ``flipgame`` (listed in docs/cli.md, from :data:`flipgame.cli.docs.EXIT_MEANINGS`)."""

    OK = 0
    DISAGREEMENT = 1  # verify: two backends gave different answers on some board
    USAGE = 2  # bad option or malformed input (argparse also uses 2)
    WITNESS_FAILURE = 3  # a backend's press set did not reach the goal it claimed
    INCOMPLETE = 4  # some answer was UNKNOWN (time-out) or ERROR (backend fault)
    REFUSED = 5  # the backend declines the board: size, nullity or memory over its limit
    CERTIFICATION_FAILURE = 6  # a minimality proof was rejected, or a claimed minimum is wrong
    INTERRUPTED = 130  # Ctrl-C; what was finished has been written
    TERMINATED = 143  # SIGTERM (timeout, a batch scheduler); what was finished has been written


def fail(code: ExitCode, message: str) -> ExitCode:
    """Print ``flipgame: message`` on stderr as one printable line (:func:`~flipgame.core.text.one_line`)
    and return ``code``."""
    print(f"flipgame: {one_line(message)}", file=sys.stderr)
    return code

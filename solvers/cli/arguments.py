"""The types of the command line's arguments: each parses one option's text, or raises
``argparse.ArgumentTypeError`` naming what was expected, with the limits of :mod:`flipgame.core.limits`."""

from __future__ import annotations

import argparse
import re

from flipgame.core.limits import ARGUMENT_MAX_DIGITS, BOARD_MAX_CELLS, NUMBER_DIGITS, STATES_MAX, TIME_LIMIT_MAX_SECONDS
from flipgame.model.parts import is_number


def board_size(text: str) -> tuple[int, int]:
    """Parse ``RxC`` (positive integers) for ``--size``."""
    m = re.fullmatch(r"\s*([0-9]{1,9})\s*[xX]\s*([0-9]{1,9})\s*", text, flags=re.ASCII)
    if not m or int(m[1]) < 1 or int(m[2]) < 1:
        raise argparse.ArgumentTypeError(f"expected RxC with positive integers, e.g. 4x4; got {text!r}")
    rows, cols = int(m[1]), int(m[2])
    if rows * cols > BOARD_MAX_CELLS:
        raise argparse.ArgumentTypeError(f"{rows}x{cols} has {rows * cols} cells; flipgame takes at most "
                                         f"{BOARD_MAX_CELLS}")
    return rows, cols


def _decimal(text: str) -> int | None:
    """``text`` as a plain ASCII decimal of at most :data:`~flipgame.core.limits.ARGUMENT_MAX_DIGITS` digits,
    else None."""
    text = text.strip()
    return int(text) if is_number(text) and len(text) <= ARGUMENT_MAX_DIGITS else None


def seed_int(text: str) -> int:
    if _decimal(text) is None:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed of at most {ARGUMENT_MAX_DIGITS} "
                                         f"digits, got {text!r:.40}")
    return _decimal(text)


def positive_int(text: str) -> int:
    n = _decimal(text)
    if n is None or n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r:.40}")
    return n


def count_up_to(maximum: int):
    """The ``type`` of an option counting 1..``maximum`` (a constant of :mod:`flipgame.core.limits`)."""

    def count(text: str) -> int:
        n = _decimal(text)
        if n is None or not 1 <= n <= maximum:
            raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {maximum:,}, got {text!r:.40}")
        return n

    return count


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= TIME_LIMIT_MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, at most "
                                         f"{TIME_LIMIT_MAX_SECONDS:,.0f}, got {text!r:.40}")
    return value


def states_arg(text: str) -> int:
    """``--states``: an integer 2..255, or ``counters`` (returned as 0)."""
    if text == "counters":
        return 0
    if _decimal(text) is None or not 2 <= int(text) <= STATES_MAX:
        raise argparse.ArgumentTypeError(f"expected a number of states 2..{STATES_MAX} or 'counters', got {text!r:.40}")
    return int(text)


def goal_arg(text: str) -> str:
    """``--goal``: any, white, black (in any case, as boards take ``B``/``W``), or a state D (every cell D)."""
    if text.lower() in ("any", "white", "black"):
        return text.lower()
    if is_number(text) and len(text) <= NUMBER_DIGITS:
        return text
    raise argparse.ArgumentTypeError(f"expected any, white, black or a state number D (at most {NUMBER_DIGITS} "
                                     f"digits), got {text!r:.40}")

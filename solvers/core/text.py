r"""Text for messages: what a program printed or a user typed, made one printable line of bounded words.

>>> print(one_line("cannot read bad\nname"))
cannot read bad\nname
"""

from __future__ import annotations

import re

from flipgame.core.limits import ECHO_MAX_CHARS


def printable(text: str) -> str:
    """``text`` with each character that is not printable written as its escape (``\\n``, ``\\x00``, ``\\x1b``):
    a program's NUL bytes or terminal escapes, or a newline in a file name, never reach the terminal as such."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def one_line(message: str) -> str:
    """``message`` printable (:func:`printable`), each word over :data:`~flipgame.core.limits.ECHO_MAX_CHARS`
    characters cut in its middle around the count of what was left out.

    >>> len(one_line("cannot read " + "x" * 1000)), one_line("x" * 1000)[95:]
    (148, 'xxxxx...(880 more)...xxxxxxxxxxxxxxxxxxxx')
    """
    keep = ECHO_MAX_CHARS // 2
    return re.sub(rf"\S{{{ECHO_MAX_CHARS + 1},}}",
                  lambda m: f"{m[0][:keep]}...({len(m[0]) - keep - 20:,} more)...{m[0][-20:]}", printable(message))


def mib(size: float) -> str:
    """Bytes as MiB for a message: whole MiB from 10 MiB up, three significant digits below (a 1e-9 GiB
    budget is ``1.07e-06 MiB``, not ``0 MiB``).

    >>> mib(3 * 2**30), mib(2**19), mib(1)
    ('3,072 MiB', '0.5 MiB', '9.54e-07 MiB')
    """
    value = size / 2**20
    return f"{value:,.0f} MiB" if value >= 10 else f"{value:.3g} MiB"

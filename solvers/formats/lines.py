"""Reading a byte stream (a file, a pipe, a terminal) as the format readers' lines, in bounded pieces.

A line longer than the format's limit (:meth:`flipgame.formats.judge.Format.line_limit`) is refused
after at most one 64 KiB read past the limit, and a hook runs before any read that could block, so
answers already due can be written first (interactive streams).  :meth:`LineSource.blocks` gives the
lines of each read at once, for a reader that parses many cases in one step.
"""

from __future__ import annotations

import select
from collections.abc import Callable, Iterator

from flipgame.model.grid import BoardFormatError


class LineSource:
    """The lines of a byte stream, read in bounded pieces, for the format readers.

    Bytes are decoded as UTF-8 (a leading byte-order mark dropped, undecodable
    bytes as U+FFFD, which the readers then report with their line).  Lines
    end at ``\\n``, or with ``universal`` also at ``\\r\\n`` and ``\\r``
    (what :func:`open` does for a named file; standard input splits at
    ``\\n`` only).  Lines are yielded without their end.

    Parameters
    ----------
    raw : binary file
        Unbuffered (``open(..., "rb", buffering=0)``): ``read(n)`` returns what
        is available, at most ``n`` bytes.
    limit : int
        Longest line accepted, in characters (see :meth:`Format.line_limit`).
    universal : bool
        Universal line ends.
    before_block : callable() -> None, optional
        Called before a read that may wait for more input (nothing is ready
        on the file descriptor by ``select``), so answers already due can be
        written first: an interactive writer gets each answer before it must
        send the next case.
    block : int
        Bytes per read (64 KiB).

    Raises (while iterating)
    ------------------------
    BoardFormatError
        A line longer than ``limit`` characters, naming the line (not the
        case: the caller knows which case was being read).  At most ``limit``
        plus ``block`` bytes are held: ``/dev/zero`` is refused at once.
    OSError
        From the read.

    >>> import io
    >>> list(LineSource(io.BytesIO(b"\\xef\\xbb\\xbfbw\\r\\nwb\\rww"), 8, universal=True))
    ['bw', 'wb', 'ww']
    """

    def __init__(self, raw, limit: int, *, universal: bool = False,
                 before_block: Callable[[], None] | None = None, block: int = 1 << 16):
        self.raw, self.limit, self.universal, self.before_block, self.block = raw, limit, universal, before_block, block
        try:
            self._fd = raw.fileno()
        except (AttributeError, OSError, ValueError):
            self._fd = None  # e.g. io.BytesIO: never blocks
        self.lines_read = 0

    def _ready(self) -> bool:
        """True if a read will not wait (data or end of input ready, or not a selectable descriptor)."""
        if self._fd is None:
            return True
        try:
            return bool(select.select([self._fd], [], [], 0)[0])
        except (OSError, ValueError):
            return False  # cannot tell: treat as possibly blocking

    def _too_long(self) -> BoardFormatError:
        return BoardFormatError(f"line longer than {self.limit} characters", line=self.lines_read + 1)

    def __iter__(self) -> Iterator[str]:
        for block in self.blocks():
            yield from block

    def blocks(self) -> Iterator[list[str]]:
        """The lines of each read, as one list per read that ends at least one line (the same lines as
        iterating, with the same checks and hook): for readers that take many lines at once."""
        for text in self.texts():
            lines, error = self.split(text)
            if lines:
                yield lines
            if error is not None:
                raise error

    def texts(self) -> Iterator[str]:
        """The text of each read that ends at least one line: whole lines, each ended by ``\\n`` (the last
        line of the input may not be), a leading byte-order mark dropped and, with ``universal``, CR LF
        and CR written as LF.  The lines are not yet checked against the limit: a reader gives each text
        to :meth:`split`, or counts in :attr:`lines_read` the lines it checked itself."""
        pending = bytearray()  # the unfinished line (and, in universal mode, a CR that may start CR LF)
        tail = 0  # characters of ``pending``: its bytes that start a UTF-8 character
        first, eof = True, False
        while not eof:
            if self.before_block is not None and not self._ready():
                self.before_block()
            data = self.raw.read(self.block)
            eof = not data
            lo = max(0, len(pending) - 1)
            pending += data
            cut = self._last_line_end(pending, lo, eof)
            if cut < 0:
                tail += len(data.translate(None, _CONTINUATION))
            else:
                text = pending[:cut + 1].decode("utf-8", "replace")
                del pending[:cut + 1]
                tail = len(pending.translate(None, _CONTINUATION))
                if first and text.startswith("\ufeff"):
                    text = text[1:]
                first = False
                if self.universal and "\r" in text:
                    text = text.replace("\r\n", "\n").replace("\r", "\n")
                if text:
                    yield text
            # The unfinished line is refused once over the limit, after the complete lines before
            # it: more than ``limit`` characters, or more bytes than that many characters can take.
            if tail > self.limit or len(pending) > 4 * self.limit + 4:
                raise self._too_long()

    def split(self, text: str) -> tuple[list[str], BoardFormatError | None]:
        """The lines of a text from :meth:`texts`, counted in :attr:`lines_read`: all of them, or those
        before the first line longer than the limit and the error naming that line (to raise once the
        lines before it are answered).  O(len(text))."""
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # the text ended with a line end
        if lines and max(map(len, lines)) > self.limit:
            bad = next(i for i, line in enumerate(lines) if len(line) > self.limit)
            self.lines_read += bad
            return lines[:bad], self._too_long()
        self.lines_read += len(lines)
        return lines, None

    def _last_line_end(self, pending: bytearray, lo: int, eof: bool) -> int:
        """Index in ``pending`` of the last line end at or after ``lo`` (at end of input, its last byte),
        or -1 if the new bytes end no line."""
        end = len(pending)
        if eof:
            return end - 1
        if self.universal and pending.endswith(b"\r"):
            end -= 1  # a CR at the end of a read may be the first half of CR LF
        cut = pending.rfind(b"\n", lo, end)
        if self.universal:
            cut = max(cut, pending.rfind(b"\r", lo, end))
        return cut


_CONTINUATION = bytes(range(0x80, 0xC0))
"""UTF-8 continuation bytes: a byte string has as many characters as bytes outside this range."""

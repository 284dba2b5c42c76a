"""One exception hierarchy for flipgame, rooted at :class:`FlipgameError`.

Modelled on networkx's ``exception.py``: callers catch one base class, and
each child says which part of the input is at fault.  Every child is also a
builtin (``ValueError``, ``KeyError``, ``TypeError``) so existing ``except``
clauses keep working.

>>> from flipgame.core.errors import FlipgameError, RefusedError
>>> issubclass(RefusedError, FlipgameError)
True
"""

from __future__ import annotations


class FlipgameError(Exception):
    """Base class of every error flipgame raises on purpose."""


class BoardFormatError(FlipgameError, ValueError):
    """Malformed board text.  ``str()`` names the case, the line and what was expected."""

    def __init__(self, message: str, *, case: int | None = None, line: int | None = None):
        self.case, self.line, self.reason = case, line, message
        where = []
        if case is not None:
            where.append(f"case {case}")
        if line is not None:
            where.append(f"line {line}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


class RulesError(FlipgameError, ValueError):
    """Inconsistent rules: a bad size, goal, neighbourhood, stencil or target board."""


class OptionError(FlipgameError, TypeError):
    """An option a backend does not have, or a value it does not accept."""


class UnknownBackendError(OptionError, KeyError):
    """A backend name that is not in the registry; the message lists the valid names."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class RefusedError(FlipgameError, ValueError):
    """A backend declines a board before building anything: too many cells, a null space
    too large to enumerate, a model over the memory budget, or rules it cannot take.
    The message names the limit and a backend or option that does take the board."""

    about_the_board = True
    """False when the refusal is about the backend's own setting (a program that is not installed),
    so the gate names no other backends that take the board."""


class KindNotTakenError(RefusedError):
    """The backend does not model this kind of press system (two states, k states, counters)."""


class BoardTooLargeError(RefusedError):
    """The board has more cells than the backend takes."""


class NullityTooLargeError(RefusedError):
    """The null space is too large to enumerate within ``max_nullity``."""


class MemoryBudgetError(RefusedError):
    """The estimated model size is over the memory budget."""


class ProofFormatError(FlipgameError, ValueError):
    """A DRAT proof or DIMACS CNF file that cannot be read: not a regular file (a device or a pipe, which
    could be read forever), not DRAT or DIMACS, or undecodable.  The message names the file."""


class CheckpointError(FlipgameError, ValueError):
    """A checkpoint file that cannot be resumed: unreadable, or written by another run."""

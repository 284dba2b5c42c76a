"""Readers of a solver program's answer, in the competitions' conventions, strict about what they take.

``s``/``v``/``o`` lines (SAT competition; MaxSAT Evaluation 2022; PB competition), MiniSat's result
file and CBC's solution file.  Anything that is not such an answer (``v foo bar 0``, a variable of
5,001 digits) raises :class:`ProgramOutputError` naming the line, never a bare ``ValueError``; only
the press variables ``1..n`` are kept, so a model over millions of auxiliary variables costs no
more than its press part.  Lines are read one at a time (``re.finditer``), never split into a list.

Source: SAT competition 2009+ output rules; MaxSAT Evaluation 2022 rules (``v`` as a 0/1 string);
PB competition rules (Roussel & Manquinho 2016); CBC's ``solu`` file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from flipgame.core.errors import FlipgameError

VARIABLE_MAX_DIGITS = 12
"""Most digits of a variable in an answer: the largest exported model has far fewer than 10**12 variables,
and a longer number is garbage (Python's int() refuses 4,301 digits and more anyway)."""
SHOWN_CHARS = 60
"""Characters of an offending line quoted in the message."""
LITERAL_MAX_CHARS = 16
"""Characters a literal takes at most in a ``v`` line: ``-x``, :data:`VARIABLE_MAX_DIGITS` digits, a separator."""
STATUS_LINES_MAX = 16
"""Most ``s`` lines an answer may have (one is the rule; a flood of them is no answer)."""
_LITERAL = re.compile(rf"(-?)x?([0-9]{{1,{VARIABLE_MAX_DIGITS}}})", re.ASCII)
_LITERALS = re.compile(rf"(?:\s*-?x?[0-9]{{1,{VARIABLE_MAX_DIGITS}}}(?!\S))*\s*", re.ASCII)
_TOKEN = re.compile(r"\S+")
_PRESS_LINE = re.compile(r"^[ \t]*\S+[ \t]+press_(\S*)[ \t]+(\S+)", re.M)
_SV_LINE = re.compile(r"^[ \t]*([sv])(?:[ \t]+([^\n]*))?$", re.M)


class ProgramOutputError(FlipgameError, ValueError):
    """What a program printed is not an answer in its format; ``str()`` quotes the line."""


def _quote(line: str) -> str:
    line = line.strip()
    return repr(line if len(line) <= SHOWN_CHARS else line[:SHOWN_CHARS] + "...")


def tokens(text: str) -> Iterator[str]:
    """The white-space separated words of ``text``, lazily (a 64 MiB line is no list of 30 million strings)."""
    return (m.group() for m in _TOKEN.finditer(text))


def literals(words: Iterable[str] | str, n: int | None = None, where: str = "", limit: int | None = None) -> set[int]:
    """The true variables (at most ``n`` when given) among DIMACS / OPB literals (``12``, ``-3``, ``x5``,
    ``-x7``), 0 ignored: a string of them, or its words.

    Raises
    ------
    ProgramOutputError
        A word that is no literal, a variable both true and false (``1 -1``), or (with ``limit``) more
        than ``limit`` literals.

    >>> sorted(literals("1 -2 x3 0"))
    [1, 3]
    """
    text = words if isinstance(words, str) else " ".join(words)
    if limit is not None and len(text) > LITERAL_MAX_CHARS * (limit + 1):
        raise ProgramOutputError(f"{where}more literals than the instance has variables")
    if _LITERALS.fullmatch(text) is None:
        bad = next(t for t in tokens(text) if _LITERAL.fullmatch(t) is None)
        raise ProgramOutputError(f"{where}{_quote(bad)} is not a literal (expected 12, -3, x5 or -x7)")
    words = text.split()
    if limit is not None and len(words) > limit + 1:
        raise ProgramOutputError(f"{where}more literals than the instance has variables")
    true, false = set(), set()
    for w in words:
        v = int(w.lstrip("-x"))
        if v and (n is None or v <= n):
            (false if w[0] == "-" else true).add(v)
    if true & false:
        raise ProgramOutputError(f"{where}variable {min(true & false)} is both true and false")
    return true


def read_competition(text: str, n: int | None = None, limit: int | None = None) -> tuple[str, set[int]]:
    """``(status, true variables)`` from ``s``/``v`` lines; status is the ``s`` line's word(s) or ``""``.

    A ``v`` line of only 0/1 characters (MaxSAT Evaluation 2022) gives variable i+1 for each 1.
    Variables above ``n`` (auxiliary ones) are dropped when ``n`` is given.  Only ``s`` and ``v``
    lines are looked at (found by one regular-expression scan), so comment floods cost no Python loop.

    Raises
    ------
    ProgramOutputError
        A ``v`` line with a word that is no literal, naming the line; more than ``limit`` literals in
        all (the instance's variables: more is no model of it); ``s`` lines that differ, or more than
        :data:`STATUS_LINES_MAX` of them; ``SATISFIABLE`` or ``OPTIMUM FOUND`` without a ``v`` line.

    >>> read_competition("c hi\\ns SATISFIABLE\\nv 1 -2\\nv 3 0\\n")
    ('SATISFIABLE', {1, 3})
    >>> read_competition("o 2\\ns OPTIMUM FOUND\\nv 0110\\n")
    ('OPTIMUM FOUND', {2, 3})
    """
    status, true, statuses, left, models = "", set(), 0, limit, 0
    for m in _SV_LINE.finditer(text):
        head, rest = m[1], (m[2] or "").strip()
        if head == "s":
            if statuses and rest != status:
                raise ProgramOutputError(f"its 's' lines disagree: {_quote(status)}, then {_quote(rest)}")
            status, statuses = rest, statuses + 1
            if statuses > STATUS_LINES_MAX:
                raise ProgramOutputError(f"more than {STATUS_LINES_MAX} 's' lines")
            continue
        where = f"line {text.count(chr(10), 0, m.start()) + 1} {_quote(m[0])}: "
        if rest and set(rest) <= {"0", "1"} and len(rest) > 1 or rest in ("0", "1") and not true:
            if left is not None and len(rest) > left:
                raise ProgramOutputError(f"{where}more values than the instance has variables")
            true |= {i + 1 for i, ch in enumerate(rest[:n]) if ch == "1"}
            used = len(rest)
        else:
            true |= literals(rest, n, where, left)
            used = rest.count(" ") + 1
        left = None if left is None else left - used
        models += 1
    if status in ("SATISFIABLE", "OPTIMUM FOUND") and not models:
        raise ProgramOutputError(f"it answered {status} but printed no 'v' line (the model)")
    return status, true


def read_minisat(text: str, n: int | None = None, limit: int | None = None) -> tuple[str, set[int]]:
    """MiniSat's result file: ``SAT`` then the literals, ``UNSAT``, or ``INDET``.

    >>> read_minisat("SAT\\n-1 2 3 0\\n")
    ('SATISFIABLE', {2, 3})
    """
    head, _, rest = text.lstrip().partition("\n")
    status = {"SAT": "SATISFIABLE", "UNSAT": "UNSATISFIABLE"}.get(head.strip(), "")
    if status != "SATISFIABLE":
        return status, set()
    return status, literals(rest, n, "the result file: ", limit)


def read_cbc(text: str, n: int | None = None, limit: int | None = None) -> tuple[str, set[int]]:
    """CBC's solution file: ``Optimal - objective value W`` / ``Infeasible - ...``, then
    ``index name value reduced-cost`` lines; the presses are columns ``press_j`` at 1.

    Raises ProgramOutputError on a ``press_j`` line whose index or value is not a number.  (``limit`` is
    not needed: only ``press_`` lines are looked at, one regular-expression scan.)

    >>> read_cbc("Optimal - objective value 1\\n 0 press_3 1 0\\n")
    ('OPTIMUM FOUND', {4})
    """
    first = text.lstrip().partition("\n")[0].lower()
    status = "OPTIMUM FOUND" if first.startswith("optimal") else "UNSATISFIABLE" if "infeasible" in first else ""
    true = set()
    for m in _PRESS_LINE.finditer(text):
        j, value = m[1], m[2]
        if not j.isascii() or not j.isdigit() or len(j) > VARIABLE_MAX_DIGITS or len(value) > SHOWN_CHARS:
            value = "nan"
        try:
            x = float(value)
        except ValueError:
            x = float("nan")
        if x != x:
            number = text.count("\n", 0, m.start()) + 1
            raise ProgramOutputError(f"solution file line {number} {_quote(m[0])}: expected 'INDEX press_J VALUE'")
        if x > 0.5 and (n is None or int(j) < n):
            true.add(int(j) + 1)
    return status, true

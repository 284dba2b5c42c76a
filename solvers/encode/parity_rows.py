"""The row calculus of the parity proofs: derived GF(2) equations as prefix chains, and their sums as
DRAT steps over extension variables (see :mod:`flipgame.encode.parity_proofs` for the whole method).

A *row* is an equation ``XOR_{v in pos} x_v = parity`` over press variables ``v + 1`` (or any
variable ``v + 1`` above the formula's: an extension variable at position ``v``), written as a
Tseitin prefix chain over the sorted positions and a unit on its last prefix variable.
:func:`add_rows` derives the sum of two rows; every step is replayed by the checker.

Sources: Philipp and Rebola-Pardo, "DRAT proofs for XOR reasoning", JELIA 2016; Sinz and Biere,
"Extended resolution proofs for conjoining BDDs", CSR 2006.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

DELETE_HELPERS = True
"""Delete the split helpers ``C | x``, ``C | -x`` once ``C`` is derived (fewer clauses, more lines)."""

@dataclass
class Row:
    """A derived equation: ``XOR_{v in pos} x_v = parity``, as a prefix chain.

    ``pos``: sorted press indices; ``lit[i]``: the prefix variable after
    ``pos[i]`` (``lit[0]`` is press variable ``pos[0] + 1``); ``owned``: the
    proof added its chain and unit (so it may delete them).
    """

    pos: list[int]
    lit: list[int]
    parity: int
    owned: bool = True


@dataclass
class Log:
    """The proof being written: flat DIMACS literals with a 0 after each step (``array('i')``,
    4 bytes a literal: 1e7-line proofs stay in memory), and a deletion flag per step (bytes)."""

    top: int
    lits: array = field(default_factory=lambda: array("i"))
    dels: bytearray = field(default_factory=bytearray)
    refuted: bool = False
    split_from: int | None = None
    """The first step of the final case split (each a full propagation), if there is one."""
    on_quiet: Callable | None = None
    """Called as ``on_quiet(log, alive)`` at points where ``alive()`` (flat, 0-terminated) names
    lemmas alive that are enough for the rest of the proof: a checker reading the proof while it
    is written may end a piece there (:class:`flipgame.verify.proofs.proof_check.PieceCheck`)."""

    def quiet(self, alive: Callable[[], list[int]]) -> None:
        """A point where ``alive()`` names the lemmas alive (see :attr:`on_quiet`)."""
        if self.on_quiet is not None:
            self.on_quiet(self, alive)

    def add(self, clause) -> None:
        self.lits.extend(clause)
        self.lits.append(0)
        self.dels.append(0)
        if not clause:
            self.refuted = True

    def add_all(self, clauses) -> None:
        """Add several non-empty clauses."""
        extend, append, dels = self.lits.extend, self.lits.append, self.dels
        for c in clauses:
            extend(c)
            append(0)
            dels.append(0)

    def delete_all(self, clauses) -> None:
        extend, append, dels = self.lits.extend, self.lits.append, self.dels
        for c in clauses:
            extend(c)
            append(0)
            dels.append(1)

    def delete(self, clause) -> None:
        self.lits.extend(clause)
        self.lits.append(0)
        self.dels.append(1)

    def arrays(self):
        """(literals as int32 ndarray, deletion flags as bool ndarray), sharing no Python objects."""
        return np.frombuffer(self.lits, dtype=np.int32).copy(), np.frombuffer(bytes(self.dels), dtype=bool).copy()

    def fresh(self) -> int:
        self.top += 1
        return self.top


def xor_zero(lits: list[int]) -> list[list[int]]:
    """Clauses of ``XOR(lits) = 0`` over positive literals, ``lits[0]``'s literal first in each."""
    m = len(lits)
    if m == 3:
        a, b, c = lits
        return [[-a, b, c], [a, -b, c], [a, b, -c], [-a, -b, -c]]
    if m == 2:
        a, b = lits
        return [[-a, b], [a, -b]]
    out = []
    for a in range(1 << m):
        if a.bit_count() & 1:
            out.append([-v if a >> i & 1 else v for i, v in enumerate(lits)])
    return out


def _terms(*ys: int | None) -> list[int]:
    """The invariant's variables: constants (None) dropped, equal pairs cancelled."""
    out: list[int] = []
    for y in ys:
        if y is None:
            continue
        if y in out:
            out.remove(y)
        else:
            out.append(y)
    return out


_ADD = [bytes(k) for k in range(64)]
_DEL = [b"\x01" * k for k in range(64)]


def _flat(clauses) -> list[int]:
    """Clauses as flat DIMACS literals, each ended by 0."""
    out: list[int] = []
    for c in clauses:
        out += c
        out.append(0)
    return out


def _invariant(terms: list[int], x: int, fresh: int | None, cancel: bool) -> tuple[list[int], int, list[int], bytes]:
    """The steps deriving ``XOR(terms) = 0`` at one position: (flat literals, steps, the invariant's
    own clauses as flat literals (deleted at the next position), deletion flags of the steps)."""
    a = b = c = 0
    if len(terms) == 3:
        a, b, c = terms
        own = [-a, b, c, 0, a, -b, c, 0, a, b, -c, 0, -a, -b, -c, 0]
        if fresh is not None and fresh == c:  # RAT on the fresh prefix variable: its literal first
            return [c, -a, b, 0, c, a, -b, 0, -c, a, b, 0, -c, -a, -b, 0], 4, own, _ADD[4]
    else:
        clauses = xor_zero(terms) if terms else []
        own = _flat(clauses)
        if fresh is not None and fresh in terms:
            k = terms.index(fresh)
            return _flat([cl[k]] + cl[:k] + cl[k + 1:] for cl in clauses), len(clauses), own, _ADD[len(clauses)]
    count = len(terms) and 1 << (len(terms) - 1)
    if x in terms or not cancel and fresh is None:  # RUP: x is a term, or the sum's prefix is x itself
        return own, count, own, _ADD[count]
    steps: list[int] = []  # x cancels: split on it
    flags = bytearray()
    for cl in _clauses_of(own):
        steps += [*cl, x, 0, *cl, -x, 0, *cl, 0]
        flags += b"\x00\x00\x00"
        if DELETE_HELPERS:
            steps += [*cl, x, 0, *cl, -x, 0]
            flags += b"\x01\x01"
    return steps, len(flags), own, bytes(flags)


def _clauses_of(flat: list[int]):
    start = 0
    for k, lit in enumerate(flat):
        if lit == 0:
            yield flat[start:k]
            start = k + 1


def _extend(log: Log, y: int | None, x: int) -> int | None:
    """The sum's next prefix variable ``y xor x``: a fresh variable defined by four RAT clauses, or
    None when the sum starts here (its prefix is ``x`` itself)."""
    if y is None:
        return None
    log.top += 1
    f = log.top
    log.lits.extend((-f, y, x, 0, f, -y, x, 0, f, y, -x, 0, -f, -y, -x, 0))
    log.dels.extend(_ADD[4])
    return f


def add_rows(log: Log, r1: Row, r2: Row) -> Row:
    """Derive the row ``r1 xor r2`` (see the module notes); returns it (possibly empty).

    Running time O(|pos1| + |pos2|); about 12 proof lines per position where
    one row has the variable and 24 where both have it.
    """
    p1, l1, p2, l2 = r1.pos, r1.lit, r2.pos, r2.lit
    lits, dels = log.lits, log.dels
    i = j = 0
    y1 = y2 = y3 = None
    inv: list[int] = []  # the invariant's clauses at the previous position, flat
    pos3: list[int] = []
    lit3: list[int] = []
    n1, n2 = len(p1), len(p2)
    while i < n1 or j < n2:
        a = p1[i] if i < n1 else None
        b = p2[j] if j < n2 else None
        v = a if b is None or (a is not None and a <= b) else b
        in1, in2 = a == v, b == v
        x = v + 1
        if in1:
            y1 = l1[i]
            i += 1
        if in2:
            y2 = l2[j]
            j += 1
        fresh = None
        if in1 != in2:
            fresh = _extend(log, y3, x)
            y3 = fresh or x
            pos3.append(v)
            lit3.append(y3)
        if y1 is not None and y2 is not None and y3 is not None and y1 != y2 and y1 != y3 and y2 != y3:
            terms = [y1, y2, y3]
        else:
            terms = _terms(y1, y2, y3)
        steps, count, own, flags = _invariant(terms, x, fresh, in1 and in2)
        lits.extend(steps)
        dels.extend(flags)
        if inv:
            lits.extend(inv)
            dels.extend(_DEL[inv.count(0)])
        inv = own
    parity = r1.parity ^ r2.parity
    if y3 is None:
        if parity:
            log.add([])
    else:
        log.add([y3 if parity else -y3])
    if inv:
        lits.extend(inv)
        dels.extend(_DEL[inv.count(0)])
    return Row(pos3, lit3, parity)


def row_clauses(rows, extra=()) -> list[int]:
    """The lemmas of derived ``rows`` (chain links and unit; the formula's own rows have none) and
    the ``extra`` clauses, as flat 0-terminated DIMACS literals."""
    out: list[int] = []
    for row in rows:
        if row is None or not row.owned or not row.pos:
            continue
        lit, pos = row.lit, row.pos
        for k in range(1, len(lit)):
            f, y, x = lit[k], lit[k - 1], pos[k] + 1
            out += (-f, y, x, 0, f, -y, x, 0, f, y, -x, 0, -f, -y, -x, 0)
        out += (lit[-1] if row.parity else -lit[-1], 0)
    for c in extra:
        out += c
        out.append(0)
    return out


def drop(log: Log, row: Row) -> None:
    """Delete a derived row's chain clauses and unit (no-op for the formula's own rows)."""
    if not row.owned or not row.pos:
        return
    lits, dels, lit, pos = log.lits, log.dels, row.lit, row.pos
    for k in range(1, len(lit)):  # every prefix variable after the first is an extension variable
        f, y, x = lit[k], lit[k - 1], pos[k] + 1
        lits.extend((-f, y, x, 0, f, -y, x, 0, f, y, -x, 0, -f, -y, -x, 0))
        dels.extend(_DEL[4])
    last = lit[-1]
    log.delete([last if row.parity else -last])


def sum_all(log: Log, first: Row, parts) -> Row:
    """``first`` plus every row of ``parts`` that is not None, dropping the intermediate sums."""
    acc = first
    for part in parts:
        if part is None:
            continue
        nxt = add_rows(log, acc, part)
        if acc is not first:
            drop(log, acc)
        acc = nxt
        if log.refuted:
            break
    return acc

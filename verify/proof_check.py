"""The checked half of a minimality certificate: the formula, and the proof checker.

A claim "board ``b`` needs ``k`` presses" is proved minimal by refuting, for
every goal board ``t``, the CNF

    for every cell i:  XOR_{j : cell i in press_masks[j]} x_j  =  bit i of (b ^ t)
    AND  at most k - 1 of x_1 .. x_n are true

This module builds that CNF from ``press_masks`` alone and checks a DRAT
refutation of it with :mod:`dratify`.  It imports no solver and no proof
generator (:mod:`flipgame.proofs` and CaDiCaL are the generators), so a bug in
a generator can only make a proof fail, never make a wrong claim pass.

The encoding
------------
* Press ``j`` (cell ``r * cols + c``) is DIMACS variable ``j + 1``.
* **Parity**: the XOR of cell ``i``'s flippers ``a_1 < ... < a_m`` (sorted
  press indices) is a *prefix chain* of Tseitin variables: ``P_1 = x_{a_1}``
  and ``P_j <-> P_{j-1} XOR x_{a_j}`` (four clauses of three literals, a fresh
  variable per ``j >= 2``, numbered cell by cell after the presses), then a
  unit clause fixing ``P_m`` to bit ``i`` of ``b ^ t``.  A cell no press flips
  gives the empty clause when its bit is 1.
* **At most k - 1**: Sinz's sequential counter (``seqcounter``: O(n k)
  clauses) while ``n * k`` is at most :data:`SEQ_COUNTER_MAX`, else a binary
  adder tree (``adder``: O(n) full adders, then one clause per zero bit of
  the bound).  Both fail by unit propagation once every press is fixed to a
  set of too many presses, which is what the parity proofs of
  :mod:`flipgame.proofs` end with.

Checking
--------
:func:`check_refutation` replays a proof in dratify (its compiled checker when
``cdclkit[native]`` registered one, else its pure-Python checker; the engine
is reported).  Long proofs are checked in consecutive pieces: the clauses
alive after a piece (the formula and the lemmas added and not deleted, as
tracked here from the checked steps) are the formula of the next piece.  That
is the same forward check, cut into pieces: each piece's checker starts from
exactly the clauses the previous piece left, so a RAT step is still checked
against every clause present.

Sources
-------
* Tseitin, "On the complexity of derivation in propositional calculus", 1968.
* Sinz, "Towards an optimal CNF encoding of Boolean cardinality constraints", CP 2005.
* Warners, "A linear-time transformation of linear inequalities into
  conjunctive normal form", IPL 68(2), 1998 (the adder encoding).
* DRAT: Wetzler, Heule and Hunt, "DRAT-trim: Efficient checking and trimming
  using expressive clausal proofs", SAT 2014; binary DRAT as drat-trim reads it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SEQ_COUNTER_MAX = 20_000
"""Largest ``n * bound`` encoded by the sequential counter; above it the adder tree (O(n) clauses)."""

CHECK_ENGINE = "auto"
"""``dratify.check_proof`` engine: the compiled one when registered (``cdclkit[native]``), else Python."""

CHECK_PIECE_STEPS = 4_000_000
"""Proof steps per checked piece: bounds the checker's memory (about 150 bytes per step in dratify's input)."""


@dataclass
class Formula:
    """The lower-bound CNF of one goal board, with the layout the proof generators need.

    Attributes
    ----------
    clauses : list of list of int
        DIMACS clauses.
    nvars : int
        Highest variable.
    n : int
        Press variables are ``1 .. n``.
    chains : list of (list of int, list of int, int)
        Per cell: its flippers (sorted press indices), the chain's prefix
        variables (``prefix[0]`` is the first flipper's press variable), and
        the bit the XOR must equal.
    encoding : str
        ``seqcounter``, ``adder`` or ``none`` (bound of at least n).
    """

    clauses: list[list[int]]
    nvars: int
    n: int
    chains: list[tuple[list[int], list[int], int]] = field(default_factory=list)
    encoding: str = "none"


def xor_clauses(lits: list[int], parity: int) -> list[list[int]]:
    """Clauses of ``XOR(lits) == parity``: one per assignment of the wrong parity (2**(m-1))."""
    m = len(lits)
    out = []
    for a in range(1 << m):
        if a.bit_count() % 2 != parity:
            out.append([-lit if a >> i & 1 else lit for i, lit in enumerate(lits)])
    return out


def _chain(flippers: list[int], bit: int, top: int) -> tuple[list[list[int]], list[int], int]:
    """(clauses, prefix variables, new top) of cell's ``XOR(x_f for f in flippers) == bit``."""
    if not flippers:
        return ([[]] if bit else []), [], top
    prefix = [flippers[0] + 1]
    clauses: list[list[int]] = []
    for f in flippers[1:]:
        top += 1
        clauses += xor_clauses([top, prefix[-1], f + 1], 0)
        prefix.append(top)
    clauses.append([prefix[-1] if bit else -prefix[-1]])
    return clauses, prefix, top


def seq_counter(lits: list[int], bound: int, top: int) -> tuple[list[list[int]], int]:
    """Sinz's sequential counter for "at most ``bound`` of ``lits``": (clauses, new top).

    ``s(i, j)`` (i < m - 1, 1 <= j <= bound) means "at least j of lits[0..i]"; O(m * bound) clauses.
    """
    m = len(lits)
    if bound >= m:
        return [], top
    if bound == 0:
        return [[-x] for x in lits], top
    s = [[top + i * bound + j + 1 for j in range(bound)] for i in range(m - 1)]
    top += (m - 1) * bound
    out = [[-lits[0], s[0][0]]] + [[-s[0][j]] for j in range(1, bound)]
    for i in range(1, m - 1):
        x = lits[i]
        out += [[-x, s[i][0]], [-s[i - 1][0], s[i][0]]]
        for j in range(1, bound):
            out += [[-x, -s[i - 1][j - 1], s[i][j]], [-s[i - 1][j], s[i][j]]]
        out.append([-x, -s[i - 1][bound - 1]])
    out.append([-lits[m - 1], -s[m - 2][bound - 1]])
    return out, top


def _add_numbers(a: list[int], b: list[int], top: int, out: list[list[int]]) -> tuple[list[int], int]:
    """Binary sum (LSB first) of two numbers given as bit literals; adder clauses go to ``out``."""
    result = []
    carry = None
    for i in range(max(len(a), len(b))):
        bits = [v for v in (a[i] if i < len(a) else None, b[i] if i < len(b) else None, carry) if v is not None]
        if len(bits) == 1:
            result.append(bits[0])
            carry = None
            continue
        s, c = top + 1, top + 2
        top += 2
        out += xor_clauses(bits + [s], 0)
        if len(bits) == 2:  # half adder: c = a and b
            p, q = bits
            out += [[-p, -q, c], [p, -c], [q, -c]]
        else:  # full adder: c = majority
            p, q, r = bits
            out += [[-p, -q, c], [-p, -r, c], [-q, -r, c], [p, q, -c], [p, r, -c], [q, r, -c]]
        result.append(s)
        carry = c
    if carry is not None:
        result.append(carry)
    return result, top


def adder_atmost(lits: list[int], bound: int, top: int) -> tuple[list[list[int]], int]:
    """"At most ``bound`` of ``lits``" as a balanced tree of ripple-carry adders and a comparison
    with the constant: (clauses, new top).  O(m) adders; unit propagation computes the sum once
    every input is fixed."""
    if bound >= len(lits):
        return [], top
    out: list[list[int]] = []
    numbers = [[x] for x in lits]
    while len(numbers) > 1:
        paired = []
        for i in range(0, len(numbers) - 1, 2):
            total, top = _add_numbers(numbers[i], numbers[i + 1], top, out)
            paired.append(total)
        if len(numbers) % 2:
            paired.append(numbers[-1])
        numbers = paired
    bits = numbers[0]
    for i, s in enumerate(bits):  # sum > bound iff some bit i is 1 where bound's is 0 and the higher bits agree
        if not bound >> i & 1:
            out.append([-s] + [-bits[j] for j in range(i + 1, len(bits)) if bound >> j & 1])
    return out, top


def card_encoding(n: int, bound: int) -> str:
    """The counter used for "at most ``bound`` of ``n`` presses" (see the module notes)."""
    if bound >= n:
        return "none"
    return "seqcounter" if n * bound <= SEQ_COUNTER_MAX else "adder"


def build_formula(n: int, masks, diff: int, bound: int, encoding: str | None = None) -> Formula:
    """The lower-bound CNF "at most ``bound`` presses x with A x = ``diff``" from the press masks.

    Parameters
    ----------
    n : int
        Number of presses (= cells).
    masks : sequence of int
        ``masks[j]``: the cells press ``j`` flips (bitmasks).
    diff : int
        ``board ^ target``.
    bound : int
        At least 0.
    encoding : {"seqcounter", "adder"}, optional
        Default :func:`card_encoding`.

    Returns
    -------
    Formula
        Running time O(n * max flippers + size of the counter).

    Raises
    ------
    ValueError
        A negative bound or an unknown encoding.
    """
    if bound < 0:
        raise ValueError(f"bound must be at least 0, got {bound}")
    encoding = encoding or card_encoding(n, bound)
    if encoding not in ("seqcounter", "adder", "none"):
        raise ValueError(f"unknown cardinality encoding {encoding!r}")
    flippers: list[list[int]] = [[] for _ in range(n)]
    for j in range(n):
        m = masks[j]
        while m:
            low = m & -m
            flippers[low.bit_length() - 1].append(j)
            m ^= low
    top = n
    clauses: list[list[int]] = []
    chains = []
    for i in range(n):
        bit = diff >> i & 1
        cl, prefix, top = _chain(flippers[i], bit, top)
        clauses += cl
        chains.append((flippers[i], prefix, bit))
    presses = list(range(1, n + 1))
    if bound >= n:
        encoding = "none"
    elif encoding == "seqcounter":
        cl, top = seq_counter(presses, bound, top)
        clauses += cl
    elif encoding == "adder":
        cl, top = adder_atmost(presses, bound, top)
        clauses += cl
    return Formula(clauses, top, n, chains, encoding)


# ---------------------------------------------------------------------------
# proofs: a flat array of DIMACS literals, each step ended by 0, and one kind per step
# ---------------------------------------------------------------------------


@dataclass
class Proof:
    """A DRAT proof as flat arrays (what the generators write and the checker reads).

    Attributes
    ----------
    lits : ndarray of int32, shape (total,)
        DIMACS literals, each step's clause ended by 0.
    deletions : ndarray of bool, shape (steps,)
        True for a deletion step (``d``).
    """

    lits: np.ndarray
    deletions: np.ndarray

    @classmethod
    def from_lines(cls, lines) -> Proof:
        """From text DRAT lines (``"1 -2 0"``, ``"d 1 3 0"``); see :func:`proof_from_text`."""
        return proof_from_text("\n".join(lines))

    def __len__(self) -> int:
        return len(self.deletions)

    def text_lines(self):
        """The proof as text DRAT lines, one step per line (a generator)."""
        ends = np.flatnonzero(self.lits == 0)
        start = 0
        flat = self.lits.tolist()
        for k, end in enumerate(ends.tolist()):
            body = " ".join(map(str, flat[start:end]))
            head = "d " if self.deletions[k] else ""
            yield f"{head}{body} 0" if body else f"{head}0"
            start = end + 1

    def binary(self) -> bytes:
        """Binary DRAT (drat-trim's format): ``a``/``d``, literals as variable-length 2*v+sign, 0."""
        out = bytearray()
        flat = self.lits.tolist()
        ends = np.flatnonzero(self.lits == 0).tolist()
        start = 0
        for k, end in enumerate(ends):
            out.append(0x64 if self.deletions[k] else 0x61)
            for d in flat[start:end]:
                u = 2 * abs(d) + (d < 0)
                while u > 127:
                    out.append(u & 127 | 128)
                    u >>= 7
                out.append(u)
            out.append(0)
            start = end + 1
        return bytes(out)


def proof_from_text(text: str) -> Proof:
    """Parse text DRAT (clauses ended by 0, ``d`` for deletions, ``c`` comment lines).

    Raises ValueError on a malformed proof (dratify's parser, so the same rules as its checker).
    """
    from dratify import parse_proof
    from dratify.lits import to_dimacs

    lits: list[int] = []
    dels = []
    for kind, step in parse_proof(text):
        lits += [to_dimacs(x) for x in step]
        lits.append(0)
        dels.append(kind == "d")
    return Proof(np.array(lits, dtype=np.int32), np.array(dels, dtype=bool))


def proof_from_binary(data: bytes) -> Proof:
    """Parse binary DRAT.  Raises ValueError on a malformed stream."""
    lits: list[int] = []
    dels: list[bool] = []
    i, size = 0, len(data)
    while i < size:
        tag = data[i]
        if tag not in (0x61, 0x64):
            raise ValueError(f"binary DRAT: byte {i} is {tag:#x}, expected 'a' or 'd'")
        dels.append(tag == 0x64)
        i += 1
        while True:
            u, shift = 0, 0
            while True:
                if i >= size:
                    raise ValueError("binary DRAT: truncated clause")
                byte = data[i]
                i += 1
                u |= (byte & 127) << shift
                shift += 7
                if byte < 128:
                    break
            if u == 0:
                lits.append(0)
                break
            lits.append(-(u >> 1) if u & 1 else u >> 1)
    return Proof(np.array(lits, dtype=np.int32), np.array(dels, dtype=bool))


# ---------------------------------------------------------------------------
# checking
# ---------------------------------------------------------------------------


@dataclass
class Verdict:
    """What the checker said.

    ``ok`` (the empty clause was derived and every step checked), ``reason``,
    ``failed_step`` (1-based over the whole proof, 0 if none), ``steps``,
    ``engine`` (``native`` or ``python``) and ``seconds``.
    """

    ok: bool
    reason: str
    failed_step: int
    steps: int
    engine: str
    seconds: float
    reached_empty: bool = False


def engine_name() -> str:
    """``native`` when dratify has a compiled checker registered (``import cdclkit`` registers it), else ``python``."""
    import contextlib

    with contextlib.suppress(ImportError):
        import cdclkit  # noqa: F401  (registers its native checker with dratify)
    import dratify

    return "native" if dratify.native_available() and CHECK_ENGINE != "python" else "python"


def _internal(lits: np.ndarray) -> np.ndarray:
    """DIMACS literals (no zeros) -> dratify's internal literals ``2 (v - 1) + sign``."""
    lits = lits.astype(np.int64)
    return (2 * (np.abs(lits) - 1) + (lits < 0)).astype(np.int64)


def _steps(proof: Proof, first: int, last: int, flat: list[int], ends: list[int]) -> list:
    """Steps ``first .. last - 1`` as dratify's ``(kind, internal literals)`` pairs."""
    import gc

    dels = proof.deletions[first:last].tolist()
    out = []
    start = ends[first - 1] + 1 if first else 0
    enabled = gc.isenabled()
    gc.disable()  # millions of small lists, none cyclic: the collector's passes would dominate
    try:
        for k in range(first, last):
            end = ends[k]
            out.append(("d" if dels[k - first] else "a", flat[start - k:end - k]))
            start = end + 1
    finally:
        if enabled:
            gc.enable()
    return out


def check_refutation(formula: Formula | tuple[list[list[int]], int], proof: Proof,
                     piece: int = CHECK_PIECE_STEPS) -> Verdict:
    """Check that ``proof`` refutes ``formula`` (RUP and RAT, deletions honoured), in pieces.

    Parameters
    ----------
    formula : Formula or (clauses, nvars)
    proof : Proof
    piece : int
        Steps per dratify call; the clauses alive after a piece are the next piece's formula.

    Returns
    -------
    Verdict

    Running time: one unit propagation per step (forward checking) plus, per
    piece, building the checker's clause store from the clauses alive.
    """
    from dratify import CNF

    clauses, nvars = (formula.clauses, formula.nvars) if isinstance(formula, Formula) else formula
    engine = engine_name()
    start = time.perf_counter()
    zero = proof.lits == 0
    ends = np.flatnonzero(zero).tolist()
    flat = _internal(proof.lits[~zero]).tolist()
    steps_total = len(proof.deletions)
    if len(ends) != steps_total:
        return Verdict(False, "malformed proof: steps and terminators differ", 0, 0, engine, 0.0)
    alive: dict[tuple[int, ...], int] = {}
    base = [tuple(sorted(set(c))) for c in (tuple(2 * (abs(d) - 1) + (d < 0) for d in cl) for cl in clauses)]
    top = nvars
    done = 0
    while True:
        last = min(steps_total, done + piece)
        steps = _steps(proof, done, last, flat, ends)
        cnf = CNF(top)
        for c in base:
            cnf.add(c)
        for c, count in alive.items():
            for _ in range(count):
                cnf.add(c)
        result = _check_piece(cnf, steps, engine)
        if not result.ok and (result.failed_step or last == steps_total):
            failed = done + result.failed_step if result.failed_step else 0
            return Verdict(False, result.reason, failed, last, engine, time.perf_counter() - start,
                           bool(result.reached_empty))
        if result.ok:
            return Verdict(True, result.reason, 0, done + result.steps, engine, time.perf_counter() - start, True)
        top = max(top, cnf.nvars)
        base = _carry(base, alive, steps)
        alive = {}
        done = last


def _check_piece(cnf, steps: list, engine: str):
    """dratify's verdict on one piece.  The native engine is called through dratify's registered
    handle directly: the steps are internal literals made here (never negative), so dratify's
    per-literal input validation, a Python loop as slow as the native check itself, is skipped;
    its result is unpacked with dratify's own consistency rule (ok implies the empty clause)."""
    import dratify
    from dratify import CheckResult, check_proof

    if engine != "native":
        return check_proof(cnf, steps, check_rat=True, apply_deletions=True, engine="python")
    native = dratify.native_implementation()
    raw = native.check_proof(cnf.nvars, [list(c) for c in cnf.clauses], [(k == "d", lits) for k, lits in steps],
                             True, True)
    ok, reason, nsteps, _, _, _, _, _, failed_step, reached_empty = tuple(raw)
    if ok and not reached_empty:
        raise RuntimeError("the native checker reported a refutation without the empty clause")
    r = CheckResult()
    r.ok, r.reason, r.steps, r.failed_step, r.reached_empty = ok, reason, nsteps, max(failed_step, 0), reached_empty
    return r


def _carry(base: list[tuple[int, ...]], alive: dict, steps: list) -> list[tuple[int, ...]]:
    """The clauses alive after ``steps`` (checked additions added, deletions removed once each)."""
    counts: dict[tuple[int, ...], int] = {}
    for c in base:
        counts[c] = counts.get(c, 0) + 1
    for kind, lits in steps:
        key = tuple(sorted(set(lits)))
        if kind == "a":
            counts[key] = counts.get(key, 0) + 1
        elif counts.get(key):
            counts[key] -= 1
    return [c for c, k in counts.items() for _ in range(k)]


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------


def write_cnf(path: str | os.PathLike, formula: Formula, comments: list[str]) -> None:
    """DIMACS with ``c`` comment lines first."""
    with open(path, "w", encoding="ascii") as fh:
        fh.write("".join(f"c {line}\n" for line in comments))
        fh.write(f"p cnf {formula.nvars} {len(formula.clauses)}\n")
        for c in formula.clauses:
            fh.write(" ".join(map(str, c)) + " 0\n" if c else "0\n")


def write_proof(path: str | os.PathLike, proof: Proof, binary: bool = False) -> None:
    """Text DRAT (one step per line) or, with ``binary``, binary DRAT."""
    if binary:
        Path(path).write_bytes(proof.binary())
        return
    with open(path, "w", encoding="ascii") as fh:
        for line in proof.text_lines():
            fh.write(line + "\n")


def read_proof(path: str | os.PathLike) -> Proof:
    """A text or binary DRAT file (binary when its first byte is ``a`` (0x61) followed by a byte
    that is no digit, space or minus, or when the file is not ASCII)."""
    data = Path(path).read_bytes()
    if data[:1] in (b"a", b"d") and len(data) > 1 and data[1:2] not in b" -0123456789":
        return proof_from_binary(data)
    return proof_from_text(data.decode("ascii"))


def check_proof_files(cnf_path: str | os.PathLike, proof_path: str | os.PathLike) -> bool:
    """Re-check a written ``.cnf`` / ``.drat`` pair (text or binary DRAT) with dratify.

    True iff the proof derives the empty clause and every addition is RUP or
    RAT.  The same pair can be checked with ``drat-trim file.cnf file.drat``.

    Raises
    ------
    OSError
        If a file cannot be read.
    ValueError
        If either file is malformed.
    """
    from dratify import parse_dimacs_file

    cnf = parse_dimacs_file(os.fspath(cnf_path))
    clauses = [[(lit >> 1) + 1 if not lit & 1 else -((lit >> 1) + 1) for lit in c] for c in cnf.clauses]
    return check_refutation((clauses, cnf.nvars), read_proof(proof_path)).ok

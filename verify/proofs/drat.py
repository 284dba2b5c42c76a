"""DRAT proofs as flat arrays, and their text and binary files.

A proof is what a generator writes (:mod:`flipgame.encode.parity_proofs`, or CaDiCaL's DRUP
log) and what :mod:`flipgame.verify.proofs.proof_check` checks: one clause per step,
each an addition (RUP or RAT) or a deletion (``d``).  Text DRAT has a step per
line; binary DRAT is drat-trim's (``a``/``d``, literals as variable-length
``2 v + sign``, 0).

Source: Wetzler, Heule and Hunt, "DRAT-trim: Efficient checking and trimming
using expressive clausal proofs", SAT 2014 (both formats).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flipgame.core.errors import ProofFormatError
from flipgame.core.files import whole_file


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
    return Proof(_int32(lits), np.array(dels, dtype=bool))


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
    return Proof(_int32(lits), np.array(dels, dtype=bool))


def _int32(lits: list[int]) -> np.ndarray:
    """The literals as int32; ValueError naming the first that does not fit (a variable past 2^31 - 1)."""
    try:
        return np.array(lits, dtype=np.int32)
    except OverflowError:
        big = next(x for x in lits if not -(2**31) < x < 2**31)
        raise ValueError(f"literal {str(big)[:40]} is past the largest variable, 2147483647") from None


def write_proof(path: str | os.PathLike, proof: Proof, binary: bool = False) -> None:
    """Text DRAT (one step per line) or, with ``binary``, binary DRAT; written whole or not at all
    (:func:`flipgame.core.files.whole_file`).  Raises OSError."""
    if binary:
        with whole_file(path, "wb") as fh:
            fh.write(proof.binary())
        return
    with whole_file(path) as fh:
        for line in proof.text_lines():
            fh.write(line + "\n")


def regular_file(path: str | os.PathLike, what: str) -> str:
    """``path`` as a string, once it names a regular file (not a device such as ``/dev/urandom``, nor a
    pipe: a proof is read whole).  Raises OSError if it cannot be looked up, ProofFormatError otherwise."""
    path = os.fspath(path)
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ProofFormatError(f"{what} {path} is not a regular file")
    return path


def dimacs_shape(path: str | os.PathLike) -> tuple[int, int]:
    """``(variables, clauses)`` of a DIMACS CNF file, once its body is what its one ``p cnf V C`` header states:
    exactly C clauses, each ended by ``0`` (the last one too), literals within ``1..V``, no ``-0``.  Comment
    lines (``c``) are skipped.  A reader that drops tautologies or reads ``1 2 0 0`` as an empty clause cannot
    tell; this count is taken before any reading.  O(file size).

    Raises OSError if it cannot be read, ProofFormatError for a file of another shape.
    """
    data = Path(regular_file(path, "CNF")).read_bytes()
    lines = [line for line in data.splitlines() if line.strip() and not line.lstrip().startswith(b"c")]
    headers = [i for i, line in enumerate(lines) if line.lstrip().startswith(b"p")]
    if len(headers) != 1 or headers[0] != 0:
        raise ProofFormatError(f"CNF {path}: expected one 'p cnf V C' header before the clauses, found "
                               f"{len(headers)}" + (" after a clause" if headers and headers[0] else ""))
    head = lines[0].split()
    if len(head) != 4 or head[1] != b"cnf" or not all(t.isdigit() for t in head[2:]):
        raise ProofFormatError(f"CNF {path}: the header is not 'p cnf V C': {lines[0][:60]!r}")
    nvars, nclauses = int(head[2]), int(head[3])
    tokens = b" ".join(lines[1:]).split()
    if b"-0" in tokens or (tokens and tokens[-1] != b"0"):
        raise ProofFormatError(f"CNF {path}: a clause ends in '-0' or the last clause has no ending 0")
    try:
        lits = np.array(tokens, dtype=np.bytes_).astype(np.int64) if tokens else np.zeros(0, dtype=np.int64)
    except (ValueError, OverflowError):
        raise ProofFormatError(f"CNF {path}: a clause holds something that is not an integer literal") from None
    found = int(np.count_nonzero(lits == 0))
    top = int(np.abs(lits).max()) if lits.size else 0
    if found != nclauses or top > nvars:
        raise ProofFormatError(f"CNF {path}: the header says {nvars} variables and {nclauses} clauses; the body "
                               f"has {found} clauses and names variable {top}")
    return nvars, nclauses


def read_proof(path: str | os.PathLike) -> Proof:
    """A text or binary DRAT file (binary when its first byte is ``a`` (0x61) followed by a byte
    that is no digit, space or minus, or when the file is not ASCII).

    Raises OSError if it cannot be read, ProofFormatError if it is no regular file or no DRAT proof.
    """
    data = Path(regular_file(path, "proof")).read_bytes()
    try:
        if (data[:1] in (b"a", b"d") and len(data) > 1 and data[1:2] not in b" -0123456789") or not data.isascii():
            return proof_from_binary(data)
        return proof_from_text(data.decode("ascii"))
    except ValueError as exc:
        raise ProofFormatError(f"proof {os.fspath(path)}: {exc}") from None

"""dratify as the proof checker: its engine, the steps of a piece fed to it a chunk at a time, and its
verdict (:mod:`flipgame.verify.proofs.proof_check` cuts proofs into pieces around it).  Nothing here
imports a solver or a proof generator.

dratify's RAT check with deletions has a gap: a deleted clause that had propagated at the root keeps its literal
on the trail while RAT no longer sees the clause, so ``5 -1 0``, ``d 5 -1 0``, ``-5 0``, ``0`` "refuted" the
satisfiable formula ``1 0`` (dratify 0.1.10, both engines; a break-it run).  Every piece is therefore checked
guarded (:mod:`flipgame.verify.proofs.pivot_guard`: an addition whose pivot a deleted clause could have hidden
must be RUP), or with ``strict`` with no deletion applied, where the clause set only grows.

Source: Wetzler, Heule and Hunt, "DRAT-trim: Efficient checking and trimming using expressive clausal
proofs", SAT 2014 (forward checking of RUP and RAT), as dratify implements it.
"""

from __future__ import annotations

import collections.abc
import contextlib
from dataclasses import dataclass

import numpy as np

from flipgame.verify.proofs.drat import Proof
from flipgame.verify.proofs.pivot_guard import Guard, guard, internal, wrap_chunk

CHECK_ENGINE = "auto"
"""``dratify.check_proof`` engine: the compiled one when registered (``cdclkit[native]``), else Python."""


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
    with contextlib.suppress(ImportError):
        import cdclkit  # noqa: F401  (registers its native checker with dratify)
    import dratify

    return "native" if dratify.native_available() and CHECK_ENGINE != "python" else "python"


def clause_list(clauses) -> list[list[int]]:
    """DIMACS clauses -> internal-literal lists, duplicates merged and tautologies dropped (as
    dratify's ``CNF.add`` does; dropping a clause that is always true changes nothing)."""
    out = []
    for c in clauses:
        lits = sorted({2 * (abs(d) - 1) + (d < 0) for d in c})
        if not any(b == a + 1 and not a & 1 for a, b in zip(lits, lits[1:], strict=False)):
            out.append(lits)
    return out


class Steps(collections.abc.Sequence):
    """Proof steps ``first .. last - 1``, then ``extra`` additions, as the native checker's
    ``(deletion, internal literals)`` pairs.

    The pairs are made a chunk at a time while the checker reads them (it iterates the
    sequence once), so Python holds one chunk's objects, not the proof's: about 180 bytes a step
    in the checker's own store instead of 400 more in Python lists."""

    CHUNK = 1 << 18

    def __init__(self, proof: Proof, ends: np.ndarray, first: int, last: int, extra: list | None = None,
                 guarded: Guard | None = None):
        self.proof, self.ends, self.first, self.last = proof, ends, first, last
        self.extra, self.guarded = extra or [], guarded

    def __len__(self) -> int:
        return self.last - self.first + len(self.extra) + (self.guarded is not None)

    def __getitem__(self, k: int):
        if not 0 <= k < len(self):
            raise IndexError(k)
        if self.guarded is not None:
            if k == 0:
                return False, [self.guarded.z ^ 1]
            k -= 1
        return next(self._chunk(self.first + k, self.first + k + 1)) if k < self.last - self.first \
            else (False, self.extra[k - self.last + self.first])

    def with_guard(self, top: int) -> Steps:
        """These steps with dratify's RAT gap guarded (:mod:`flipgame.verify.proofs.pivot_guard`): a step ``-z``
        first, then each exposed addition as ``z C``; ``top`` is their highest variable (:meth:`scan`)."""
        return Steps(self.proof, self.ends, self.first, self.last, self.extra,
                     guard(self.proof, self.ends, self.first, self.last, top, self.CHUNK))

    def _chunk(self, a: int, b: int):
        ends = self.ends
        lo = int(ends[a - 1]) + 1 if a else 0
        flat = internal(self.proof.lits[lo:int(ends[b - 1]) + 1])
        stops = ends[a:b] - lo
        starts = np.concatenate(([0], stops[:-1] + 1))
        if self.guarded is not None:
            wrapped = self.guarded.wrapped[a - self.first:b - self.first]
            flat, starts, stops = wrap_chunk(flat, starts, stops, wrapped, self.guarded.z)
        flat = flat.tolist()
        # C-level loops only: one slice object and one list per step
        pieces = map(flat.__getitem__, map(slice, starts.tolist(), stops.tolist()))
        return zip(self.proof.deletions[a:b].tolist(), pieces, strict=True)

    def scan(self, nvars: int) -> tuple[int, tuple[int, str] | None]:
        """The highest variable of ``nvars`` and these steps, and (step within these steps, from 1; why) a literal
        of them cannot be checked, or None: a proof introduces only variables it mentions, so none is past
        ``nvars`` plus the steps' literal occurrences (dratify's own bound, which calling its native engine
        directly skips).  O(literals), a chunk at a time."""
        top = nvars
        if self.last <= self.first:
            return top, None
        lo = int(self.ends[self.first - 1]) + 1 if self.first else 0
        hi = int(self.ends[self.last - 1]) + 1
        limit = nvars + (hi - lo) - (self.last - self.first)
        for a in range(lo, hi, self.CHUNK * 64):
            size = np.abs(self.proof.lits[a:min(hi, a + self.CHUNK * 64)].astype(np.int64))
            at = int(size.argmax())
            top = max(top, int(size[at]))
            if size[at] > limit:
                step = int(np.searchsorted(self.ends, a + at)) - self.first + 1
                return top, (step, f"literal {self.proof.lits[a + at]} names variable {size[at]}, but a "
                                   f"{nvars}-variable formula and this proof's literals account for at most {limit}")
        return top, None

    def __iter__(self):
        if self.guarded is not None:
            yield False, [self.guarded.z ^ 1]
        for a in range(self.first, self.last, self.CHUNK):
            yield from self._chunk(a, min(self.last, a + self.CHUNK))
        for c in self.extra:
            yield False, c


def check_piece(nvars: int, clauses: list[list[int]], steps: Steps, engine: str, strict: bool = False):
    """dratify's verdict on one piece: with RAT and deletions applied, guarded against dratify's gap (the module's
    docstring), or with ``strict`` with no deletion applied (slower: the clause set only grows).
    A literal past what the formula and the piece's own literals can name is refused first (one literal asked
    the checker for 10^9 variables)."""
    top, why = steps.scan(nvars)
    if why:
        return _result(False, why[1], 0, why[0], False)
    if strict:
        return _check(nvars, clauses, steps, engine, rat=True, deletions=False)
    r = _check(nvars, clauses, steps.with_guard(top), engine, rat=True, deletions=True)
    r.steps, r.failed_step = max(r.steps - 1, 0), max(r.failed_step - 1, 0)  # the guard's first step -z
    return r


def _check(nvars: int, clauses: list[list[int]], steps: Steps, engine: str, rat: bool, deletions: bool):
    """One run of dratify, with or without RAT, with or without the deletions applied.  The native engine is
    called through dratify's registered handle directly: the literals are internal ones made here (never
    negative, bounded by :meth:`Steps.scan`), so dratify's per-literal input validation, a Python loop
    as slow as the native check itself, is skipped; its result is unpacked with dratify's own consistency rule
    (ok implies the empty clause)."""
    import dratify
    from dratify import CNF, check_proof

    if engine != "native":
        cnf = CNF(nvars)
        for c in clauses:
            cnf.add(c)
        return check_proof(cnf, [("d" if d else "a", lits) for d, lits in steps], check_rat=rat,
                           apply_deletions=deletions, engine="python")
    native = dratify.native_implementation()
    raw = native.check_proof(nvars, clauses, steps, rat, deletions)
    ok, reason, nsteps, _, _, _, _, _, failed_step, reached_empty = tuple(raw)
    if ok and not reached_empty:
        raise RuntimeError("the native checker reported a refutation without the empty clause")
    return _result(ok, reason, nsteps, max(failed_step, 0), reached_empty)


def _result(ok: bool, reason: str, steps: int, failed_step: int, reached_empty: bool):
    from dratify import CheckResult

    r = CheckResult()
    r.ok, r.reason, r.steps, r.failed_step, r.reached_empty = ok, reason, steps, failed_step, reached_empty
    return r

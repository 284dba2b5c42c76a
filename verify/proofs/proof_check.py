"""The proof checker of a minimality certificate: dratify, fed a piece at a time.

:func:`check_refutation` replays a DRAT proof (:mod:`flipgame.verify.proofs.drat`)
of the lower-bound formula (:mod:`flipgame.verify.proofs.lower_bound`) in dratify:
its compiled checker when ``cdclkit[native]`` registered one, else its
pure-Python checker (the engine is reported).  Nothing here imports a solver
or a proof generator.

Long proofs are checked in consecutive pieces.  A piece that does not end the
proof ends with extra additions: the clauses alive at its end (worked out from
the steps, :mod:`flipgame.verify.proofs.alive_sets`, or named by the generator
as a hint).  The checker must accept each of them, and they are the formula of
the next piece.  Accepted additions preserve satisfiability and the next
formula is a subset of the clauses present, so a refutation of it refutes the
formula: a wrong guess or hint can only make a piece fail, and then the proof
is checked again with the exact alive sets, worked out step by step.  As each
piece's formula is known before it is checked, pieces run in parallel
processes (:func:`check_refutation` with ``jobs``; forked by
:mod:`flipgame.verify.proofs.forked_checks`), even while the proof is still
being written (:class:`PieceCheck`).

Source: Wetzler, Heule and Hunt, "DRAT-trim: Efficient checking and trimming
using expressive clausal proofs", SAT 2014 (forward checking of RUP and RAT).
"""

from __future__ import annotations

import gc
import os
import time

import numpy as np

from flipgame.core.errors import ProofFormatError
from flipgame.verify.proofs.alive_sets import alive_exact, alive_guess
from flipgame.verify.proofs.drat import Proof, dimacs_shape, read_proof, regular_file
from flipgame.verify.proofs.engine import Steps, Verdict, check_piece, clause_list, engine_name
from flipgame.verify.proofs.forked_checks import collect_check, fork_check, kill_checks
from flipgame.verify.proofs.lower_bound import Formula

CHECK_PIECE_STEPS = 8_000_000
"""Proof steps per checked piece: bounds the checker's memory (about 180 bytes a step in dratify's
native store: 1.5 GB a piece)."""

PARALLEL_MIN_STEPS = 400_000
"""Proofs shorter than this are checked in one piece in this process (a fork costs more)."""

STREAM_PIECE_STEPS = 1_000_000
"""Steps of a piece checked while the proof is still being written (:class:`PieceCheck`)."""

SPLIT_STEP_COST = 100
"""Estimated cost of a case-split step relative to an ordinary one (balances pieces only): a split
line is a full propagation, about 0.2 ms against 2 microseconds (19x19 all-lit, nullity 16)."""


def check_refutation(formula: Formula | tuple[list[list[int]], int], proof: Proof,
                     piece: int = CHECK_PIECE_STEPS, jobs: int = 1, heavy_from: int | None = None,
                     strict: bool = False) -> Verdict:
    """Check that ``proof`` refutes ``formula`` (RUP and RAT, deletions honoured), in pieces.

    Parameters
    ----------
    formula : Formula or (clauses, nvars)
    proof : Proof
    piece : int
        Most steps per dratify call.  A piece that does not end the proof ends with extra
        additions: the clauses that stay alive (the formula's and the lemmas not deleted, worked
        out here from the steps); the checker must accept each of them, and they are the formula
        of the next piece.  Accepted additions preserve satisfiability and the next formula is a
        subset of the clauses present, so a refutation of it refutes the formula.  The carried
        set is only a guess that the checker verifies: when it fails, or a later piece fails, the
        check is done again with the exact sets worked out step by step, so a verdict never
        depends on the guess.
    jobs : int
        Processes checking pieces at once (forked: they share the proof's arrays).  With more
        than one, a proof of at least :data:`PARALLEL_MIN_STEPS` steps is cut into at least
        ``jobs`` pieces of equal estimated cost; each piece's formula is known before any is
        checked, so the pieces are independent.
    heavy_from : int, optional
        Steps from this index on are a case split (each a full propagation, about
        :data:`SPLIT_STEP_COST` times an ordinary step): a hint that balances the pieces, never
        used for the verdict.
    strict : bool
        A proof with a step that is not RUP is checked with RAT and no deletion applied (about 12 times slower
        on a parity proof) instead of with deletions applied and the guard of
        :mod:`flipgame.verify.proofs.pivot_guard` against dratify's gap (:mod:`flipgame.verify.proofs.engine`).
        Both are sound; a proof of RUP steps only is checked the same either way.

    Returns
    -------
    Verdict

    Running time: one unit propagation per step (forward checking), about 2 microseconds a step
    of a parity proof, divided by ``jobs``; memory about 180 bytes a step of a piece in the checker.
    """
    clauses, nvars = (formula.clauses, formula.nvars) if isinstance(formula, Formula) else formula
    engine = engine_name()
    start = time.perf_counter()
    ends = np.flatnonzero(proof.lits == 0)
    if len(ends) != len(proof.deletions):
        return Verdict(False, "malformed proof: steps and terminators differ", 0, 0, engine, 0.0)
    jobs = jobs if engine == "native" else 1
    enabled = gc.isenabled()
    gc.disable()  # millions of small lists, none cyclic: the collector's passes would dominate
    try:
        cuts = _cuts(len(ends), piece, jobs, heavy_from)
        bases = [clause_list(clauses)]
        for first, last in cuts[:-1]:
            bases.append(alive_guess(bases[-1], proof, ends, first, last))
        tasks = [(_top(nvars, bases[k]), bases[k], first, last, bases[k + 1] if k + 1 < len(cuts) else [])
                 for k, (first, last) in enumerate(cuts)]
        results = _run_pieces(proof, ends, tasks, engine, jobs, strict)
        verdict = _verdict(cuts, results, engine, exact=len(cuts) == 1)
        if verdict is None:  # a guess failed, or a later piece did: the exact sets decide
            verdict = _check_exact(clauses, nvars, proof, ends, cuts, engine, strict)
        verdict.seconds = time.perf_counter() - start
        return verdict
    finally:
        if enabled:
            gc.enable()


def _cuts(total: int, piece: int, jobs: int, heavy_from: int | None) -> list[tuple[int, int]]:
    """``(first, last)`` step ranges: at most ``piece`` steps each, and with ``jobs`` > 1 a multiple
    of ``jobs`` pieces of about equal estimated cost."""
    count = max(1, -(-total // piece))
    if jobs > 1 and total >= PARALLEL_MIN_STEPS:
        count = -(-max(count, jobs) // jobs) * jobs
    if count == 1:
        return [(0, total)]
    light = total if heavy_from is None else min(max(heavy_from, 0), total)
    cost = light + SPLIT_STEP_COST * (total - light)
    marks = [0]
    for k in range(1, count):
        c = cost * k / count
        at = int(c) if c <= light else light + int((c - light) / SPLIT_STEP_COST)
        marks.append(min(max(at, marks[-1] + 1), total - (count - k)))
    marks.append(total)
    out, first = [], 0
    for mark in marks[1:]:  # no piece over ``piece`` steps
        while mark - first > piece:
            out.append((first, first + piece))
            first += piece
        out.append((first, mark))
        first = mark
    return out


def _top(nvars: int, clauses: list[list[int]]) -> int:
    """The highest variable of ``nvars`` and the (sorted, internal-literal) ``clauses``."""
    return max([nvars, *(c[-1] // 2 + 1 for c in clauses if c)])


def _verdict(cuts, results, engine: str, exact: bool) -> Verdict | None:
    """The verdict of the pieces' results, in order; None when it depends on a guessed carry."""
    for k, ((first, last), r) in enumerate(zip(cuts, results, strict=True)):
        if r.ok:
            return Verdict(True, r.reason, 0, first + r.steps, engine, 0.0, True)
        if r.failed_step:
            if not exact and (k > 0 or r.failed_step > last - first):
                return None
            return Verdict(False, r.reason, first + r.failed_step, last, engine, 0.0, bool(r.reached_empty))
    r = results[-1]
    return Verdict(False, r.reason, 0, cuts[-1][1], engine, 0.0, bool(r.reached_empty))


def _check_exact(clauses, nvars: int, proof: Proof, ends, cuts, engine: str, strict: bool) -> Verdict:
    """The pieces in order, each carrying the exact clauses alive (worked out step by step)."""
    base = clause_list(clauses)
    for k, (first, last) in enumerate(cuts):
        carry = alive_exact(base, proof, ends, first, last) if k + 1 < len(cuts) else []
        r = check_piece(_top(nvars, base), base, Steps(proof, ends, first, last, carry), engine, strict)
        v = _verdict([(first, last)], [r], engine, exact=True)
        if r.ok or r.failed_step or k + 1 == len(cuts):
            return v
        base = carry
    raise AssertionError("unreachable")


def _run_pieces(proof: Proof, ends, tasks: list, engine: str, jobs: int, strict: bool) -> list:
    """Check every piece: in this process, or spread over ``jobs`` processes (this one and
    ``jobs - 1`` forked children that die with it); results in the order of ``tasks``."""
    def run(k: int):
        top, base, first, last, carry = tasks[k]
        return check_piece(top, base, Steps(proof, ends, first, last, carry), engine, strict)

    if jobs <= 1 or len(tasks) == 1:
        return [run(k) for k in range(len(tasks))]
    children = [fork_check(lambda w=w: [(k, run(k)) for k in range(w, len(tasks), jobs)])
                for w in range(1, min(jobs, len(tasks)))]
    results: dict[int, object] = {}
    try:
        results.update((k, run(k)) for k in range(0, len(tasks), jobs))
        for child in children:
            results.update(collect_check(*child))
    finally:
        kill_checks(children)
    return [results[k] for k in range(len(tasks))]


def _cost(dels: bytearray, first: int, last: int, heavy_from: int | None) -> int:
    """Estimated cost of steps ``first .. last - 1`` (deletion flags ``dels``) when the case split
    starts at ``heavy_from``: its additions cost :data:`SPLIT_STEP_COST` each, its deletions 1."""
    light = last if heavy_from is None else max(first, min(last, heavy_from))
    return light - first + (SPLIT_STEP_COST - 1) * dels.count(0, light, last) + (last - light)


def _split_steps(flat: list[int]):
    """The clauses of flat 0-terminated literals."""
    start = 0
    for k, lit in enumerate(flat):
        if lit == 0:
            yield flat[start:k]
            start = k + 1


class PieceCheck:
    """Check a proof while it is being written, each finished piece in a forked process.

    The writer calls :meth:`cut` where it can name the lemmas alive.  Once the piece since the
    last cut has at least ``piece`` steps it ends there, with the formula's clauses and the
    named lemmas as its extra additions (see the module notes), and a forked process (that dies
    with this one) checks it while the writer goes on.  :meth:`finish` checks the rest here and
    gives the whole proof's verdict.  With ``jobs`` 1, or without the native engine, nothing is
    cut, and :meth:`finish` is :func:`check_refutation`.  Use it as a context manager: leaving
    it kills any checker still running.

    Parameters
    ----------
    formula : Formula
    jobs : int
        At most ``jobs`` forked checkers run at once (beside the writer); :meth:`cut` waits for
        the oldest before starting one more.
    piece : int
        Fewest steps of a piece cut while the proof is written.
    """

    def __init__(self, formula: Formula, jobs: int = 1, piece: int = STREAM_PIECE_STEPS):
        self.formula, self.piece = formula, piece
        self.engine = engine_name()
        self.jobs = jobs if self.engine == "native" else 1
        self.cuts, self.offsets = [0], [0]  # each piece's first step and first literal
        self.bases: list[list[list[int]]] = []
        self.running: list[tuple[int, int]] = []
        self.results: dict[int, object] = {}
        self.started: float | None = None

    def __enter__(self) -> PieceCheck:
        return self

    def __exit__(self, *exc) -> None:
        kill_checks(self.running)
        self.running = []

    def cut(self, log, alive) -> None:
        """Maybe end a piece here.  ``log`` is the proof so far: ``log.lits`` (flat DIMACS literals,
        a 0 after each step), ``log.dels`` (a deletion flag per step) and ``log.split_from`` (where a
        case split starts, or None: a hint of cost, see :data:`SPLIT_STEP_COST`); ``alive()`` names
        lemmas alive (flat, 0-terminated) and is called only when a piece ends."""
        lits, dels = log.lits, log.dels
        steps = len(dels)
        if self.jobs <= 1 or _cost(dels, self.cuts[-1], steps, log.split_from) < self.piece:
            return
        if self.started is None:
            self.started = time.perf_counter()
            self.bases.append(clause_list(self.formula.clauses))
        carry = self.bases[0] + clause_list(_split_steps(alive()))
        first, lo = self.cuts[-1], self.offsets[-1]
        piece = Proof(np.frombuffer(lits[lo:], dtype=np.int32), np.frombuffer(bytes(dels[first:]), dtype=bool))
        base, k, top = self.bases[-1], len(self.cuts) - 1, _top(self.formula.nvars, self.bases[-1])
        while len(self.running) >= self.jobs:
            self.results.update(collect_check(*self.running.pop(0)))
        ends = np.flatnonzero(piece.lits == 0)
        self.running.append(fork_check(lambda: [(k, check_piece(top, base, Steps(piece, ends, 0, len(ends), carry),
                                                                self.engine))]))
        self.bases.append(carry)
        self.cuts.append(steps)
        self.offsets.append(len(lits))

    def finish(self, proof: Proof, heavy_from: int | None = None) -> Verdict:
        """The verdict on the whole written ``proof`` (the rest is checked in this process;
        ``heavy_from`` as in :func:`check_refutation`, when nothing was cut)."""
        if len(self.cuts) == 1:
            return check_refutation(self.formula, proof, jobs=self.jobs, heavy_from=heavy_from)
        ends = np.flatnonzero(proof.lits == 0)
        last = len(proof.deletions)
        ranges = list(zip(self.cuts, [*self.cuts[1:], last], strict=True))
        first = self.cuts[-1]
        tail = check_piece(_top(self.formula.nvars, self.bases[-1]), self.bases[-1],
                           Steps(proof, ends, first, last), self.engine)
        self.results[len(ranges) - 1] = tail
        while self.running:
            self.results.update(collect_check(*self.running.pop(0)))
        verdict = _verdict(ranges, [self.results[k] for k in range(len(ranges))], self.engine, exact=False)
        if verdict is None:  # a named lemma was not there, or a later piece failed: the exact sets decide
            verdict = check_refutation(self.formula, proof)
        verdict.seconds = time.perf_counter() - self.started
        return verdict


def check_proof_files(cnf_path: str | os.PathLike, proof_path: str | os.PathLike) -> bool:
    """Re-check a written ``.cnf`` / ``.drat`` pair (text or binary DRAT) with dratify.

    True iff the proof derives the empty clause and every addition is RUP or
    RAT; strictly (:func:`check_refutation`'s ``strict``): a proof that needs RAT is checked with no deletion
    applied, a second way past dratify's unit-deletion gap for files from anywhere.  The same pair can be checked
    with ``drat-trim file.cnf file.drat``.

    Raises
    ------
    OSError
        If a file cannot be read.
    ProofFormatError
        If either file is no regular file (a device would be read forever) or is malformed, or the CNF is not
        what its ``p cnf`` header states (:func:`~flipgame.verify.proofs.drat.dimacs_shape`: ``1 2 0 0`` is
        two clauses, the second empty, and a header of one clause says the file is not what was meant).
    """
    from dratify import parse_dimacs_file

    path = regular_file(cnf_path, "CNF")
    dimacs_shape(path)
    try:
        cnf = parse_dimacs_file(path)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProofFormatError(f"CNF {path}: {exc}") from None
    clauses = [[(lit >> 1) + 1 if not lit & 1 else -((lit >> 1) + 1) for lit in c] for c in cnf.clauses]
    return check_refutation((clauses, cnf.nvars), read_proof(proof_path), strict=True).ok

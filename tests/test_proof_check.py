"""The proof checker (flipgame.verify.proofs.proof_check): pieces, carried clause sets, parallel and
streamed checking.  A verdict must never depend on how the proof was cut."""

from __future__ import annotations

import random
from array import array
from types import SimpleNamespace

import numpy as np
import pytest

from flipgame import solve
from flipgame.core.errors import ProofFormatError
from flipgame.encode.parity_proofs import refutation
from flipgame.model.grid import Game
from flipgame.verify.proofs import engine, proof_check
from flipgame.verify.proofs.alive_sets import alive_exact, alive_guess
from flipgame.verify.proofs.drat import Proof
from flipgame.verify.proofs.engine import clause_list
from flipgame.verify.proofs.lower_bound import build_formula
from flipgame.verify.proofs.proof_check import PieceCheck, check_refutation

pytest.importorskip("dratify")
native = pytest.mark.skipif(proof_check.engine_name() != "native", reason="needs dratify's native engine "
                            "(cdclkit[native])")


def case(n: int, seed: int, bound_offset: int = -1):
    """(formula, proof) of a random n x n board, goal white, at bound minimum + ``bound_offset``."""
    game = Game(n, n, "white")
    board = game.apply(0, random.Random(seed).getrandbits(game.n))
    k = solve(board, "gauss", game=game).moves
    formula = build_formula(game.n, game.press_masks, board, k + bound_offset)
    log = refutation(game, formula.chains, formula.nvars)
    return formula, Proof(*log.arrays()), game


def without_step(proof: Proof, k: int) -> Proof:
    ends = np.flatnonzero(proof.lits == 0)
    start = ends[k - 1] + 1 if k else 0
    return Proof(np.concatenate([proof.lits[:start], proof.lits[ends[k] + 1:]]), np.delete(proof.deletions, k))


def broken(formula, proof: Proof, start: int):
    """The proof without its first addition from ``start`` on whose removal it no longer checks,
    and the one-piece verdict on it."""
    for k in range(start, len(proof)):
        if not proof.deletions[k]:
            cut = without_step(proof, k)
            one = check_refutation(formula, cut)
            if not one.ok:
                return cut, one
    raise AssertionError("no line whose removal breaks the proof")


@pytest.fixture(scope="module")
def b12():
    return case(12, 12)


def test_the_hashed_alive_set_is_the_exact_one(b12):
    formula, proof, _ = b12
    ends = np.flatnonzero(proof.lits == 0)
    base = clause_list(formula.clauses)
    for cut in (1, len(proof) // 3, len(proof) // 2 + 7, len(proof) - 1):
        guess = alive_guess(base, proof, ends, 0, cut)
        exact = alive_exact(base, proof, ends, 0, cut)
        assert sorted(map(tuple, guess)) == sorted(map(tuple, exact)), cut
        assert len(exact) > len(base) or cut == 1


def test_cuts_cover_the_proof_and_balance_the_split():
    assert proof_check._cuts(10, 100, 1, None) == [(0, 10)]
    cuts = proof_check._cuts(1_000_000, 300_000, 2, None)
    assert cuts[0][0] == 0 and cuts[-1][1] == 1_000_000 and len(cuts) == 4
    assert all(a[1] == b[0] for a, b in zip(cuts, cuts[1:], strict=False))
    # a split from step 900000 on costs 100 a step: both halves of the cost fall in the split
    cuts = proof_check._cuts(1_000_000, 8_000_000, 2, 900_000)
    assert len(cuts) == 2 and 900_000 < cuts[0][1] < 1_000_000


@native
def test_pieces_in_parallel_agree_with_one_piece(b12):
    formula, proof, _ = b12
    assert check_refutation(formula, proof).ok
    assert check_refutation(formula, proof, piece=20_000, jobs=2).ok
    for start in (len(proof) // 10, len(proof) * 2 // 3):  # a line of the first piece, and of a later one
        cut, one = broken(formula, proof, start)
        many = check_refutation(formula, cut, piece=20_000, jobs=2)
        assert not many.ok and many.failed_step == one.failed_step > start


@native
def test_a_satisfiable_formula_is_rejected_in_pieces():
    formula, proof, _ = case(12, 12, bound_offset=0)
    assert not check_refutation(formula, proof, piece=20_000, jobs=2).ok


def stream(formula, proof, cuts, alive, jobs=2):
    """Feed ``proof`` to a PieceCheck as a writer would, ending pieces at ``cuts``."""
    ends = np.flatnonzero(proof.lits == 0)
    with PieceCheck(formula, jobs=jobs, piece=1) as check:
        for k in cuts:
            log = SimpleNamespace(lits=array("i", proof.lits[:ends[k - 1] + 1].tolist()),
                                  dels=bytearray(proof.deletions[:k].astype(np.uint8).tobytes()), split_from=None)
            check.cut(log, lambda k=k: alive(k))
        return check.finish(proof), len(check.cuts)


def exact_alive(formula, proof):
    """The writer's hint at step k: the exact lemmas alive (DIMACS, flat, 0-terminated)."""
    ends = np.flatnonzero(proof.lits == 0)
    base = clause_list(formula.clauses)

    def alive(k: int) -> list[int]:
        out: list[int] = []
        for c in alive_exact(base, proof, ends, 0, k):
            out += [(lit >> 1) + 1 if not lit & 1 else -((lit >> 1) + 1) for lit in c] + [0]
        return out

    return alive


@native
def test_a_streamed_check_accepts_and_rejects_as_one_piece(b12):
    formula, proof, _ = b12
    cuts = [len(proof) // 4, len(proof) // 2, 3 * len(proof) // 4]
    verdict, pieces = stream(formula, proof, cuts, exact_alive(formula, proof))
    assert verdict.ok and pieces == 4
    cut, one = broken(formula, proof, len(proof) // 2 + 100)
    verdict, _ = stream(formula, cut, cuts, exact_alive(formula, cut))
    assert not verdict.ok and verdict.failed_step == one.failed_step > len(proof) // 2


@native
@pytest.mark.parametrize("hint", ["none", "foreign"])
def test_a_wrong_hint_never_changes_the_verdict(b12, hint):
    """A hint that leaves out the lemmas alive, or names a clause that is not there, makes a piece
    fail; the exact sets then decide, and the proof is still accepted."""
    formula, proof, _ = b12
    exact = exact_alive(formula, proof)
    wrong = (lambda k: []) if hint == "none" else (lambda k: exact(k) + [1, 2, 3, 0, -1, -2, 0])
    verdict, _ = stream(formula, proof, [len(proof) // 3, 2 * len(proof) // 3], wrong)
    assert verdict.ok


@native
def test_the_generator_streams_a_proof_that_checks():
    """The parity generator's own quiet points and hints, pieces of 20000 steps on two processes."""
    game = Game(16, 16, "white")
    board = game.apply(0, random.Random(16).getrandbits(game.n))
    k = solve(board, "gauss", game=game).moves
    formula = build_formula(game.n, game.press_masks, board, k - 1)
    with PieceCheck(formula, jobs=2, piece=20_000) as check:
        log = refutation(game, formula.chains, formula.nvars, on_quiet=check.cut)
        proof = Proof(*log.arrays())
        verdict = check.finish(proof, heavy_from=log.split_from)
        assert len(check.cuts) > 3 and log.split_from is not None  # nullity 8: a split
    assert verdict.ok and verdict.engine == "native"
    # the same proof at one bound higher: the formula is satisfiable, nothing checks
    high = build_formula(game.n, game.press_masks, board, k)
    with PieceCheck(high, jobs=2, piece=20_000) as check:
        log = refutation(game, high.chains, high.nvars, on_quiet=check.cut)
        assert not check.finish(Proof(*log.arrays())).ok


UNIT_DELETION = ([[1]], 5), Proof(np.array([5, -1, 0, 5, -1, 0, -5, 0, 0], dtype=np.int32),
                                  np.array([False, True, False, False]))
"""A break-it run's false refutation of the satisfiable formula ``1 0``: ``5 -1`` (RAT on 5) propagates 5 at the
root, its deletion leaves 5 there while RAT stops seeing the clause, so ``-5`` (RAT on -5) and the empty clause
pass in dratify 0.1.10 with deletions applied."""


def test_the_false_refutation_through_dratifys_unit_deletion_gap_is_rejected_both_ways():
    formula, proof = UNIT_DELETION
    strict = check_refutation(formula, proof, strict=True)  # no deletion applied
    assert not strict.ok and strict.failed_step == 3 and "neither RUP nor RAT" in strict.reason
    guarded = check_refutation(formula, proof)  # -5 is exposed (5 -1, holding 5, was deleted): checked as z -5
    assert not guarded.ok and guarded.failed_step == 3 and "neither RUP nor RAT" in guarded.reason


def test_the_guard_wraps_exposed_additions_and_their_deletions_only(b12):
    """In the parity proof, RAT defines fresh variables (never exposed); an exposed addition and the later deletion
    of the same clause are wrapped, and the guarded proof still checks."""
    formula, proof, _ = b12
    ends = np.flatnonzero(proof.lits == 0)
    steps = engine.Steps(proof, ends, 0, len(ends))
    top, problem = steps.scan(formula.nvars)
    assert problem is None
    guarded = steps.with_guard(top)
    wrapped = guarded.guarded.wrapped
    assert wrapped.any() and not wrapped.all() and (wrapped & proof.deletions).any()
    assert guarded[0] == (False, [guarded.guarded.z ^ 1]) and len(guarded) == len(steps) + 1
    k = int(np.flatnonzero(wrapped)[0])
    assert guarded[k + 1][1] == [guarded.guarded.z, *steps[k][1]]
    assert check_refutation(formula, proof).ok


def test_a_proof_is_checked_once_guarded_or_strictly_without_deletions(b12, monkeypatch):
    runs = []
    check = engine._check
    monkeypatch.setattr(engine, "_check", lambda nvars, clauses, steps, *a, rat, deletions: runs.append(
        (rat, deletions, steps.guarded is not None)) or check(nvars, clauses, steps, *a, rat=rat, deletions=deletions))
    formula, proof, _ = b12  # the parity proof defines its XOR sums by RAT
    assert check_refutation(formula, proof).ok and runs == [(True, True, True)]
    runs.clear()
    assert check_refutation(formula, proof, strict=True).ok and runs == [(True, False, False)]


def test_a_literal_past_the_formula_and_the_proof_is_refused_before_the_checker_sizes_for_it(tmp_path):
    """One literal of 10^9 made the checker allocate 10^9 variables (24 GB, killed); one past 32 bits raised
    OverflowError."""
    (formula, _), _ = UNIT_DELETION
    verdict = check_refutation((formula, 5), Proof(np.array([-1, 0, 1_000_000_000, 0, 0], dtype=np.int32),
                                                   np.array([False, False, False])))
    assert not verdict.ok and verdict.failed_step == 2
    assert verdict.reason == ("literal 1000000000 names variable 1000000000, but a 5-variable formula and this "
                              "proof's literals account for at most 7")
    cnf, drat = tmp_path / "f.cnf", tmp_path / "f.drat"
    cnf.write_text("p cnf 1 1\n1 0\n")
    drat.write_text("99999999999999999999 0\n0\n")
    with pytest.raises(ProofFormatError, match="literal 99999999999999999999 is past the largest variable"):
        proof_check.check_proof_files(cnf, drat)

"""Parity proofs (flipgame.encode.parity_proofs) checked against the formula of flipgame.verify.proofs.lower_bound."""

from __future__ import annotations

import dataclasses
import json
import random
from itertools import combinations

import numpy as np
import pytest
from faulty_backends import FunctionBackend

from flipgame import BACKENDS, solve
from flipgame.algebra.gf2 import eliminate
from flipgame.cli import ExitCode, main
from flipgame.encode.parity_proofs import refutation
from flipgame.model.grid import Board, Game
from flipgame.model.puzzles import B18
from flipgame.verify.proofs.certify import CertStatus, certify_minimum
from flipgame.verify.proofs.drat import Proof, proof_from_binary, read_proof
from flipgame.verify.proofs.lower_bound import build_formula
from flipgame.verify.proofs.proof_check import check_proof_files, check_refutation

dratify = pytest.importorskip("dratify")


def parity_proof(game: Game, board: int, target: int, bound: int, encoding=None):
    formula = build_formula(game.n, game.press_masks, board ^ target, bound, encoding)
    log = refutation(game, formula.chains, formula.nvars)
    return formula, Proof(*log.arrays())


def minimum(game: Game, board: int, target: int) -> int | None:
    """Fewest presses from ``board`` to ``target`` by brute force (small boards)."""
    for k in range(game.n + 1):
        for presses in combinations(range(game.n), k):
            if game.apply(board, sum(1 << j for j in presses)) == target:
                return k
    return None


RULES = [dict(rows=3, cols=3), dict(rows=4, cols=4), dict(rows=2, cols=5), dict(rows=5, cols=2),
         dict(rows=3, cols=4, neighbourhood="king"), dict(rows=3, cols=4, wrap=True),
         dict(rows=3, cols=3, neighbourhood="cross")]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: "-".join(map(str, r.values())))
@pytest.mark.parametrize("encoding", ["seqcounter", "adder"])
def test_parity_proof_checks_exactly_below_the_minimum(rules, encoding):
    """At bound = minimum - 1 the proof checks; at bound = minimum the formula is satisfiable,
    so the same generator's proof is rejected (nullity 0 and > 0, chasing and dense elimination)."""
    game = Game(goal="white", **rules)
    rnd = random.Random(str(rules) + encoding)
    for _ in range(3):
        board = game.apply(0, rnd.getrandbits(game.n))
        k = minimum(game, board, 0)
        if k == 0:
            continue
        formula, proof = parity_proof(game, board, 0, k - 1, encoding)
        assert check_refutation(formula, proof).ok
        formula, proof = parity_proof(game, board, 0, k, encoding)
        assert not check_refutation(formula, proof).ok


def test_impossible_board_is_refuted_by_the_sum_alone():
    """4x4 with one black corner: the sum of the equations in a quiet pattern is 0 = 1, the empty clause."""
    game = Game(4, 4, "white")
    formula, proof = parity_proof(game, 1, 0, 16)
    assert formula.encoding == "none"
    verdict = check_refutation(formula, proof)
    assert verdict.ok and len(proof) > 1


def test_cardinality_encodings_match_popcount():
    """Each counter is satisfiable with exactly the press sets of at most ``bound`` presses."""
    from pysat.solvers import Solver

    n = 6
    for bound in range(n):
        for encoding in ("seqcounter", "adder"):
            formula = build_formula(n, [0] * n, 0, bound, encoding)
            with Solver(name="cadical195", bootstrap_with=formula.clauses) as s:
                for presses in range(1 << n):
                    assumptions = [j + 1 if presses >> j & 1 else -(j + 1) for j in range(n)]
                    assert s.solve(assumptions=assumptions) == (presses.bit_count() <= bound), (encoding, bound)


def test_chunked_checking_agrees_with_one_piece():
    game = Game(6, 6, "white")
    board = game.apply(0, random.Random(3).getrandbits(game.n))
    k = solve(board, "gauss", game=game).moves
    formula, proof = parity_proof(game, board, 0, k - 1)
    whole = check_refutation(formula, proof)
    pieces = check_refutation(formula, proof, piece=997)
    assert whole.ok and pieces.ok
    # an addition in the middle dropped: rejected in pieces as in one
    ends = np.flatnonzero(proof.lits == 0)
    rejected = 0
    for k in range(len(proof) // 2, len(proof) // 2 + 40):
        if proof.deletions[k]:
            continue
        cut = Proof(np.concatenate([proof.lits[:ends[k - 1] + 1], proof.lits[ends[k] + 1:]]),
                    np.delete(proof.deletions, k))
        one = check_refutation(formula, cut)
        assert one.ok == check_refutation(formula, cut, piece=997).ok
        rejected += not one.ok
    assert rejected > 0


def test_binary_drat_round_trip():
    game = Game(5, 5, "white")
    board = game.apply(0, random.Random(5).getrandbits(game.n))
    k = solve(board, "gauss", game=game).moves
    _, proof = parity_proof(game, board, 0, k - 1)
    back = proof_from_binary(proof.binary())
    assert np.array_equal(back.lits, proof.lits) and np.array_equal(back.deletions, proof.deletions)


# ---------------------------------------------------------------------------
# the 18x18 unique-solution board (176, goal black)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def b18():
    game = Game(18, 18, "black")
    board = Board.from_rows(B18).cells
    formula, proof = parity_proof(game, board, game.full, 175)
    return game, board, formula, proof


@pytest.mark.slow
def test_18x18_proof_checks_and_mutations_are_rejected(b18):
    game, board, formula, proof = b18
    assert check_refutation(formula, proof).ok
    # a line removed: the empty clause, and a lemma that later steps need
    ends = np.flatnonzero(proof.lits == 0)

    def without(k: int) -> Proof:
        return Proof(np.concatenate([proof.lits[:ends[k - 1] + 1], proof.lits[ends[k] + 1:]]),
                     np.delete(proof.deletions, k))

    assert not check_refutation(formula, without(len(proof) - 1)).ok
    middle = [k for k in range(len(proof) // 2, len(proof)) if not proof.deletions[k]][:8]
    assert any(not check_refutation(formula, without(k)).ok for k in middle)
    # one press mask flipped: the formula changes and the proof no longer checks
    masks = list(game.press_masks)
    masks[100] ^= 1 << 101
    bad = build_formula(game.n, masks, board ^ game.full, 175)
    assert not check_refutation(bad, proof).ok
    # the claim one too high: "at most 176" is satisfiable, no proof can check
    formula_high, proof_high = parity_proof(game, board, game.full, 176)
    assert not check_refutation(formula_high, proof_high).ok


@pytest.fixture
def b18_file(tmp_path, monkeypatch):
    """The 18x18 board as a file, and certification in this process (so that a test can break the
    proof generator or the formula the way a bug would)."""
    from flipgame.verify.proofs import certify

    monkeypatch.setattr(certify, "run_in_child", lambda job, time_limit: certify.run_job(job))
    path = tmp_path / "b18.txt"
    path.write_text("\n".join(B18) + "\n")
    return ["solve", "--size", "18x18", "--goal", "black", "--certify", str(path)]


def test_18x18_certified_at_the_command_line(b18_file, capsys):
    assert main(b18_file) == ExitCode.OK
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "176" and out[1].startswith("certified: no press set of at most 175 presses reaches all black")
    assert "by parity" in out[1] and "dratify (native)" in out[1]


def test_18x18_proof_with_a_line_missing_exits_6(b18_file, monkeypatch, capsys):
    """A generator that loses one invariant clause at its 5000th sum position (a bug in it)."""
    from flipgame.encode import parity_rows as proofs

    calls = {"n": 0}
    real = proofs._invariant

    def lossy(*args):
        steps, count, own, flags = real(*args)
        calls["n"] += 1
        if calls["n"] == 5000 and count:
            first = steps.index(0) + 1
            return steps[first:], count - 1, own, flags[1:]
        return steps, count, own, flags

    monkeypatch.setattr(proofs, "_invariant", lossy)
    assert main(b18_file) == ExitCode.CERTIFICATION_FAILURE == 6
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("failed: dratify rejected the proof for goal black")


def test_18x18_formula_with_a_press_mask_flipped_exits_6(b18_file, monkeypatch, capsys):
    """The proof is made for the true press masks but checked against a formula where press 100
    also flips cell 101."""
    from flipgame.verify.proofs import provers

    real = provers.build_formula

    def flipped(n, masks, diff, bound, **kw):
        bad = list(masks)
        bad[100] ^= 1 << 101
        formula = real(n, bad, diff, bound, **kw)
        formula.chains = real(n, masks, diff, bound, **kw).chains  # what the generator derives from
        return formula

    monkeypatch.setattr(provers, "build_formula", flipped)
    assert main(b18_file) == ExitCode.CERTIFICATION_FAILURE
    assert capsys.readouterr().out.splitlines()[1].startswith("failed: dratify rejected the proof for goal black")


def test_18x18_minimum_one_too_low_fails():
    """175: "at most 174" is refuted, but "at most 175" is not satisfiable either, so no witness."""
    game = Game(18, 18, "black")
    cert = certify_minimum(game, Board.from_rows(B18).cells, 175, witness=None, time_limit=None)
    assert cert.status is CertStatus.FAILED and "the claimed minimum 175 is too low" in cert.message


def test_18x18_certify_and_proof_dir_recheck(tmp_path):
    game = Game(18, 18, "black")
    board = Board.from_rows(B18).cells
    s = solve(board, "gauss", game=game)
    cert = certify_minimum(game, board, 176, witness=s.presses, time_limit=None, proof_dir=tmp_path, name="b18")
    assert cert.status is CertStatus.CERTIFIED and cert.prover == "parity", cert.line()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b18-black.cnf", "b18-black.drat"]
    cnf, drat = tmp_path / "b18-black.cnf", tmp_path / "b18-black.drat"
    assert check_proof_files(cnf, drat)
    assert len(read_proof(drat)) == cert.proof_lines
    lines = drat.read_text().splitlines()
    drat.write_text("\n".join(lines[:-1]) + "\n")  # without its empty clause
    assert not check_proof_files(cnf, drat)


def heavier(game, board):
    """A minimum-weight witness XOR a quiet pattern: it reaches the same goal with more presses."""
    s = solve(board, "gauss", game=game)
    x = s.presses ^ eliminate(game).null_basis[0]
    return dataclasses.replace(s, backend="heavier", moves=x.bit_count(), presses=x)


@pytest.mark.slow
def test_16x16_minimum_too_high_exits_with_the_certification_failure_code(monkeypatch, tmp_path, capsys):
    """16x16 (nullity 8): a valid witness heavier than the minimum passes the witness check, but
    its parity proof is rejected (the formula is satisfiable) and solve exits 6."""
    monkeypatch.setitem(BACKENDS, "heavier", FunctionBackend("heavier", heavier))
    game = Game(16, 16, "white")
    board = game.apply(0, random.Random(16).getrandbits(game.n))
    path = tmp_path / "b16.txt"
    path.write_text(Board(16, 16, board).text() + "\n")
    args = ["solve", "--size", "16x16", "--goal", "white", "--backend", "heavier", str(path)]
    assert main(args) == ExitCode.OK
    capsys.readouterr()
    code = main([*args, "--certify", "--certify-time-limit", "300"])
    out = capsys.readouterr().out.splitlines()
    assert code == ExitCode.CERTIFICATION_FAILURE == 6, out
    assert out[1].startswith("failed: dratify rejected the proof for goal white")
    assert main(["solve", "--size", "16x16", "--goal", "white", "--certify", "--certify-time-limit", "300",
                 str(path)]) == ExitCode.OK
    assert capsys.readouterr().out.splitlines()[1].startswith("certified: ")


# ---------------------------------------------------------------------------
# Impossible at every size, verify past 2500 cells
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("rows,cols", [(54, 54), (2339, 20)])
def test_explain_impossible_beyond_2500_cells(tmp_path, capsys, rows, cols):
    path = tmp_path / "board.txt"
    path.write_text("w" * (cols - 1) + "b\n" + ("w" * cols + "\n") * (rows - 1))
    code = main(["solve", "--size", f"{rows}x{cols}", "--goal", "white", "--explain", str(path)])
    out = capsys.readouterr().out.splitlines()
    assert code == ExitCode.OK and out[0] == "Impossible"
    assert out[1].startswith("certificate for all white: every press flips an even number")
    assert len(out) == 2 + rows


def test_verify_54x54_gauss_sample_writes_its_report(tmp_path):
    report = tmp_path / "r.json"
    code = main(["verify", "--size", "54x54", "--goal", "white", "--sample", "8", "--seed", "3",
                 "--backends", "gauss", "--report", str(report)])
    assert code == ExitCode.OK
    data = json.loads(report.read_text())
    assert data["boards"] == 8

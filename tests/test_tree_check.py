"""Branch-and-bound certificates (flipgame.encode.bnb.tree_certificate) and their checker
(flipgame.verify.proofs.tree_check): what the checker accepts, every kind of tampering it rejects, and
--certify taking the tree when a DRAT proof would be too large."""

from __future__ import annotations

import ast
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from flipgame.encode import bnb
from flipgame.model.grid import Game
from flipgame.verify.proofs import proof_check, provers, tree_check
from flipgame.verify.proofs.certify import CertStatus, certify_minimum
from flipgame.verify.proofs.tree_check import check_tree

LIT19 = Game(19, 19, "white")
"""The all-lit 19x19 board: nullity 16, minimum 141 (OEIS A075464)."""


def _certificate(game: Game, diff: int, at_least: int):
    plan = bnb.plan(game, diff, "chase")
    return bnb.tree_certificate(plan, bnb.Search(plan, at_least).run())


@pytest.fixture(scope="module")
def lit19():
    return _certificate(LIT19, LIT19.full, 141)


def _check(certificate, at_least=141, masks=None):
    return check_tree(masks or tuple(LIT19.press_masks), LIT19.n, LIT19.full, at_least, *certificate)


def test_the_all_lit_19x19_tree_proves_141_and_not_142(lit19):
    x0, null_vectors, closed = lit19
    assert len(null_vectors) == 16 and LIT19.apply(LIT19.full, x0) == 0
    assert 0 < len(closed) < 1 << 16 and _check(lit19) is None
    assert "fewer than 142 presses" in _check(lit19, 142)


@pytest.mark.parametrize(("tamper", "reason"), [
    (lambda x0, nv, cl: (x0, nv, cl[1:]), "leave out part of the tree"),
    (lambda x0, nv, cl: (x0, nv, [*cl, cl[0]]), "two closed nodes overlap"),
    (lambda x0, nv, cl: (x0, nv, [(cl[0][0], 1 << cl[0][0]), *cl[1:]]), "is not a node of a tree"),
    (lambda x0, nv, cl: (x0 ^ 1, nv, cl), "x0 does not change exactly the cells"),
    (lambda x0, nv, cl: (x0, [nv[0] ^ 1, *nv[1:]], cl), "a null vector changes some cell"),
    (lambda x0, nv, cl: (x0, [nv[1], *nv[1:]], cl), "not independent"),
    (lambda x0, nv, cl: (x0, nv[:-1], [(t, a) for t, a in cl if t < 15] + [(15, a) for a in range(1 << 15)]),
     "nullity 16, not 15"),
])
def test_a_tampered_certificate_is_rejected(lit19, tamper, reason):
    assert reason in _check(tamper(*lit19))


def test_a_flipped_press_mask_is_rejected(lit19):
    masks = list(LIT19.press_masks)
    masks[40] ^= 1 << 41
    assert _check(lit19, masks=masks) is not None


def test_random_systems_agree_with_brute_force():
    """The checker accepts the true minimum's tree and rejects one more, on random boards of three rule sets of
    nullity 4, 3 and 2 whose minimum brute force gives."""
    rng = random.Random(7)
    for _ in range(18):
        rows, cols, wrap = rng.choice([(3, 4, True), (3, 5, False), (2, 6, True)])
        game = Game(rows, cols, "white", wrap=wrap)
        board = game.apply(0, rng.getrandbits(game.n))
        lightest = min(p.bit_count() for p in range(1 << game.n) if game.apply(board, p) == 0)
        plan = bnb.plan(game, board, "dense")
        assert plan.nullity in (2, 3, 4)
        for at_least in (lightest, lightest + 1):
            cert = bnb.tree_certificate(plan, bnb.Search(plan, at_least).run())
            ok = check_tree(tuple(game.press_masks), game.n, board, at_least, *cert) is None
            assert ok == (at_least == lightest)


def test_the_checker_imports_nothing_from_flipgame():
    tree = ast.parse(Path(tree_check.__file__).read_text())
    modules = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    modules += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert modules and not [m for m in modules if m and m.startswith("flipgame")]


@pytest.mark.needs("dratify")
def test_certify_takes_the_tree_above_the_cost_and_writes_it_as_a_file(monkeypatch, tmp_path):
    monkeypatch.setattr(provers, "TREE_MIN_COST", 0)
    cert = certify_minimum(LIT19, LIT19.full, 141, time_limit=None)
    assert cert.ok and cert.engine == "tree_check" and "branch-and-bound certificate" in cert.line()
    assert "checked by tree_check" in cert.line() and cert.proof_lines > 0
    low = certify_minimum(LIT19, LIT19.full, 140, time_limit=None)
    assert not low.ok and low.message.endswith("the claimed minimum 140 is too low")
    high = certify_minimum(LIT19, LIT19.full, 142, time_limit=None)
    assert high.status is CertStatus.FAILED and high.message.startswith("tree_check rejected the proof")
    assert certify_minimum(LIT19, LIT19.full, 141, time_limit=None, proof_dir=tmp_path, name="lit19").ok
    path = tmp_path / "lit19-white.tree.json"
    assert [p.name for p in tmp_path.iterdir()] == [path.name] and tree_check.check_tree_file(path) is None
    data = json.loads(path.read_text())
    assert data["at_least"] == 141 and "at least 141 presses" in data["claim"] and len(data["null_vectors"]) == 16
    run = subprocess.run([sys.executable, "-m", "flipgame.verify.proofs.tree_check", str(path)], capture_output=True,
                         text=True, timeout=120)
    assert (run.returncode, run.stdout) == (0, f"{path}: the bound holds\n")
    depth = next(iter(data["closed"]))
    data["closed"][depth] = data["closed"][depth][1:]  # a dropped node
    path.write_text(json.dumps(data))
    assert "leave out part of the tree" in tree_check.check_tree_file(path)
    path.write_text("{}")
    assert tree_check.check_tree_file(path).startswith("not a tree certificate file: KeyError")


@pytest.mark.needs("dratify")
def test_an_edited_tree_file_and_a_bad_command_line_get_one_line_each(monkeypatch, tmp_path):
    """A break-it run's findings: the claim's text was not compared with the bound, ``true`` was a bound of 1,
    10^13 cells ran out of memory, and a missing file, a folder or no file at all gave a traceback or nothing."""
    monkeypatch.setattr(provers, "TREE_MIN_COST", 0)
    assert certify_minimum(LIT19, LIT19.full, 141, time_limit=None, proof_dir=tmp_path, name="lit19").ok
    path = tmp_path / "lit19-white.tree.json"
    good = json.loads(path.read_text())
    for edit, why in [({"claim": good["claim"].replace("141", "999")}, "is not the bound proved: at least 141 presses"),
                      ({"at_least": True}, "the bound is not an integer: True"),
                      ({"cells": 10**13}, "10000000000000 cells and 361 presses: 1 to 65536 of each are taken")]:
        path.write_text(json.dumps(good | edit))
        assert why in tree_check.check_tree_file(path)
    command = [sys.executable, "-m", "flipgame.verify.proofs.tree_check"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stdout, run.stderr.startswith("usage: python -m")) == (2, "", True)
    run = subprocess.run([*command, str(tmp_path / "none.json"), str(tmp_path)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1 and run.stderr == "" and run.stdout == (
        f"{tmp_path / 'none.json'}: cannot read it: No such file or directory\n"
        f"{tmp_path}: cannot read it: Is a directory\n")


@pytest.mark.needs("dratify")
def test_goal_any_names_both_kinds_when_one_goal_takes_the_tree(monkeypatch):
    """A random 19x19 board, goal any: the minimum 141 is to white (black needs 146); white's split closes
    more nodes, so a cost between the two sends white to the tree and black to DRAT."""
    game = Game(19, 19, "any")
    board = game.apply(0, random.Random(6).getrandbits(361))
    costs = [sum(map(len, bnb.Search(bnb.plan(game, board ^ t, "chase"), 141).run().closed)) * 141
             for t in game.targets]
    assert costs[0] > costs[1]
    monkeypatch.setattr(provers, "TREE_MIN_COST", costs[0])
    cert = certify_minimum(game, board, 141, time_limit=None)
    assert cert.ok and (cert.proofs, cert.trees, cert.engine) == (2, 1, proof_check.engine_name())
    assert cert.tree_lines == costs[0] // 141 and cert.proof_lines > cert.tree_lines
    assert "1 DRAT proof by parity with a pruned split" in cert.line()
    assert f"1 branch-and-bound certificate by parity with a pruned split, {cert.tree_lines} lines" in cert.line()


def test_the_arguments_are_read_as_exact_integers_once():
    """A break-it run's false claims: an iterator of nodes was used up by the tiling check (the bounds then
    checked nothing), mixed numpy depths wrapped or rounded an interval end, a NaN bound passed every node."""
    game = Game(3, 4, "white", wrap=True)  # minimum 4 from the all-lit board
    plan = bnb.plan(game, game.full, "dense")
    x0, null_vectors, closed = bnb.tree_certificate(plan, bnb.Search(plan, 4).run())
    masks = tuple(game.press_masks)
    assert check_tree(masks, game.n, game.full, 4, x0, null_vectors, iter(closed)) is None
    assert "fewer than 5 presses" in check_tree(masks, game.n, game.full, 5, x0, null_vectors, iter(closed))
    mixed = [(np.uint8(2), 1), (np.int64(2), 2), (2, 1), (2, 3)]  # (2, 0) missing
    assert "leave out part of the tree" in check_tree((0,) * 9, 1, 0, 1, 0, [1 << i for i in range(9)], mixed)
    assert check_tree((1,), 1, 1, float("nan"), 1, [], [(0, 0)]) == "a malformed certificate: the bound is not an " \
                                                                    "integer: nan"
    assert check_tree((1, -2), 1, 1, 1, 1, [], [(0, 0)]) == "a malformed certificate: a press mask is negative"
    assert "not a pair" in check_tree((0, 0), 1, 0, 0, 0, [1, 2], [(1, 0, 5)])
    assert check_tree((np.uint64(1),), 1, 1, 1, np.uint64(1), [], [(0, 0)]) is None  # numpy integers are integers

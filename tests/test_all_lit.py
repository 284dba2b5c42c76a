"""flipgame.study.all_lit and ``flipgame study --all-lit``: OEIS A075464 (the all-lit n x n Lights Out board),
the published terms a(1..54), the b-file, and the upper-bound search for a(79) (nullity 64)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import flipgame, started_clean

from flipgame.algebra import coset_search, minweight, symmetry
from flipgame.algebra import gf2 as algebra
from flipgame.cli import main
from flipgame.model.grid import Game
from flipgame.study import all_lit
from flipgame.study.all_lit import A075464

FAST = range(1, 34)
"""Sides whose term takes well under a second (nullity at most 20)."""


@pytest.mark.parametrize("n", FAST)
@pytest.mark.needs("numba")
def test_published_terms(n):
    t = all_lit.term(n)
    assert t.presses == A075464[n - 1] and t.agrees and t.proven
    assert Game(n, n, "white").apply((1 << n * n) - 1, t.witness) == 0


@pytest.mark.slow
def test_published_terms_1_to_54():
    terms = all_lit.terms(range(1, 55))
    assert [t.presses for t in terms] == list(A075464)
    assert [t.nullity for t in terms if t.nullity > 20] == [32, 30]  # n = 39 and 47


def test_a_term_that_differs_from_the_published_one_is_flagged():
    t = all_lit.term(9)
    assert t.agrees and not all_lit.Term(9, 24, 8, 1, 0.0, t.witness).agrees
    assert all_lit.Term(9, 99, 8, 1, 0.0, t.witness, proven=False).agrees  # a bound is not compared


def test_study_writes_the_bfile_and_the_time_per_n(tmp_path):
    bfile = tmp_path / "b075464.txt"
    r = flipgame("study", "--all-lit", "1..12,19", "--bfile", str(bfile), "--witness-dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    lines = [f"{n} {A075464[n - 1]}" for n in [*range(1, 13), 19]]
    assert r.stdout.splitlines() == lines and bfile.read_text().splitlines() == lines
    assert re.search(r"a\(19\) = 141: nullity 16, [0-9.]+ s; ", r.stderr) and "symmetr" not in r.stderr
    assert r.stderr.count(" s; second check: ") == 13  # symmetries are named only when a long run used them
    assert "second check: all 2^16 solutions, second elimination and enumeration" in r.stderr
    witness = (tmp_path / "a075464-19.txt").read_text().splitlines()
    assert witness[0].startswith("# A075464 a(19) minimum: 141 presses") and len(witness) == 20
    assert sum(row.count("x") for row in witness[1:]) == 141


def test_study_refuses_nullity_64_without_a_search_and_bad_ranges(capsys):
    assert main(["study", "--all-lit", "79"]) == 5
    assert "a(79): nullity 64, over the 48 that can be enumerated; --search-seconds" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["study", "--all-lit", "5..3"])
    assert "expected sides like 61, 1..78" in capsys.readouterr().err
    assert main(["study", "--bfile", "x.txt"]) == 2 and "--bfile needs --all-lit" in capsys.readouterr().err


def test_the_fixed_subcoset_of_a_symmetry():
    game = Game(19, 19, "white")
    parts, quiet, _ = algebra.solution_cosets(game, game.full)
    maps = dict(symmetry.rule_symmetries(game))
    x, basis = coset_search.fixed_subcoset(parts[0][0], quiet, maps["rotate 180"])
    assert len(basis) == 8 and symmetry.permute(x, maps["rotate 180"]) == x
    assert all(symmetry.permute(b, maps["rotate 180"]) == b and game.apply(0, b) == 0 for b in basis)
    classes = coset_search._conjugacy_representatives(symmetry.stabiliser(game, game.full))
    assert [name for name, _ in classes] == ["rotate 90", "rotate 180", "flip rows", "transpose"]


@pytest.mark.parametrize("n", [4, 9, 19, 39])
def test_the_half_turn_holds_the_minimum_on_the_family_of_79(n):
    """n = 5 * 2**j - 1 (4, 9, 19, 39, then 79): nullity 4, 8, 16, 32; each published minimum lies in the
    rotate-180 fixed sub-coset (docs/high-nullity.md: why 2629 may be a(79) itself)."""
    game = Game(n, n, "white")
    parts, quiet, _ = algebra.solution_cosets(game, game.full)
    x, basis = coset_search.fixed_subcoset(parts[0][0], quiet, dict(symmetry.rule_symmetries(game))["rotate 180"])
    lightest = minweight.min_weight(x, basis, game.n)[1]
    assert len(quiet) == {4: 4, 9: 8, 19: 16, 39: 32}[n] and len(basis) == len(quiet) // 2
    assert lightest.bit_count() == all_lit.A075464[n - 1] == {4: 4, 9: 25, 19: 141, 39: 561}[n]
    assert game.apply(game.full, lightest) == 0


def _whole_coset(n: int):
    """The all-lit n x n board's solutions, every one, as a uint8 array (2**nullity, n*n), by a matrix product
    over GF(2) of every coordinate vector with the null basis (no transform): a second method."""
    import numpy as np

    game = Game(n, n, "white")
    parts, quiet, _ = algebra.solution_cosets(game, game.full)
    bits = np.array([[q >> c & 1 for c in range(n * n)] for q in [parts[0][0], *quiet]], dtype=np.int64)
    codes = (np.arange(1 << len(quiet))[:, None] >> np.arange(len(quiet))) & 1
    return (bits[0] + codes @ bits[1:]) % 2


@pytest.mark.parametrize(("n", "minima", "fixed"), [(4, 2, 2), (9, 6, 6), (19, 28, 4)])
def test_the_lightest_solutions_of_the_family_of_79_and_those_the_half_turn_fixes(n, minima, fixed):
    """Every solution of the all-lit board weighed: how many are lightest, and how many of those the half turn
    (cell i to n*n - 1 - i) fixes.  At n = 39 (make test-slow) all 4 are fixed; at 19, 4 of 28."""
    solutions = _whole_coset(n)
    weights = solutions.sum(axis=1)
    lightest = solutions[weights == weights.min()]
    assert weights.min() == A075464[n - 1] and len(lightest) == minima
    assert sum((row == row[::-1]).all() for row in lightest) == fixed


@pytest.mark.slow
@pytest.mark.needs("numba")
def test_every_lightest_solution_of_39_is_fixed_by_the_half_turn():
    """All 2**32 solutions of the all-lit 39x39 board by a Gray-code walk (no transform): 4 of weight 561,
    each fixed by the half turn, as on n = 4 and 9 (the family of 79; docs/high-nullity.md)."""
    import numpy as np

    game = Game(39, 39, "white")
    parts, quiet, _ = algebra.solution_cosets(game, game.full)
    words = np.array([[v >> 64 * w & (1 << 64) - 1 for w in range(24)] for v in [parts[0][0], *quiet]],
                     dtype=np.uint64)
    from gray_walk import lightest_per_prefix  # numba, compiled on first use

    weights, counts, codes = lightest_per_prefix(words[0], words[1:], 8)
    top = len(quiet) - 8
    lightest = [parts[0][0] ^ _combination(quiet, int(codes[p, j]) | p << top)
                for p in np.flatnonzero(weights == weights.min()) for j in range(min(counts[p], 8))]
    assert weights.min() == 561 and counts[weights == 561].sum() == len(lightest) == 4
    for x in lightest:
        assert x.bit_count() == 561 and game.apply(game.full, x) == 0
        assert x == int(f"{x:01521b}"[::-1], 2)  # the half turn reverses the cells


def _combination(vectors: list[int], code: int) -> int:
    out = 0
    for t, v in enumerate(vectors):
        if code >> t & 1:
            out ^= v
    return out


def test_the_search_gives_an_upper_bound_with_its_witness():
    better = []
    t = all_lit.upper_bound(19, 0.5, on_better=lambda term, how: better.append((term, how)))
    assert not t.proven and t.presses >= 141 and Game(19, 19, "white").apply((1 << 361) - 1, t.witness) == 0
    assert t.presses == 141  # the rot180-symmetric solutions hold the minimum here
    weights = [term.presses for term, _ in better]
    assert weights == sorted(set(weights), reverse=True) and weights[-1] == 141 and better[-1][0].witness == t.witness
    assert all(Game(19, 19, "white").apply((1 << 361) - 1, term.witness) == 0 and not term.proven for term, _ in better)
    assert better[-1][1] == "the solutions fixed by rotate 180"


def test_the_classes_of_a_symmetry_split_the_coset_lightest_first():
    """y ^ s(y) over the 2**16 solutions of the all-lit 19x19 board (rotate 180): 2**8 values, 2**8 solutions each,
    and coset_classes.lightest ranks the values as the enumeration does."""
    from collections import Counter

    from flipgame.algebra import coset_classes

    game = Game(19, 19, "white")
    parts, quiet, _ = algebra.solution_cosets(game, game.full)
    perm = dict(symmetry.rule_symmetries(game))["rotate 180"]
    sp = coset_classes.split(parts[0][0], quiet, perm)
    assert (len(sp.image), len(sp.fixed)) == (8, 8)
    solutions = [parts[0][0] ^ symmetry.combine(quiet, a) for a in range(1 << 16)]
    values = Counter(y ^ symmetry.permute(y, perm) for y in solutions)
    assert len(values) == 256 and set(values.values()) == {256}
    ranked = sorted(c.bit_count() for c in values if c)
    got = coset_classes.lightest(sp, game.m, 10)
    assert [w for w, _ in got] == ranked[:10]
    for w, around, sub in coset_classes.classes(sp, game.m, 10):
        members = {around ^ symmetry.combine(sub, a) for a in range(1 << len(sub))}
        c, = {y ^ symmetry.permute(y, perm) for y in members}
        assert c.bit_count() == w and len(members) == 256 and all(game.apply(game.full, y) == 0 for y in members)


def test_a_ranking_past_its_deadline_keeps_the_blocks_it_ranked(monkeypatch):
    """A ranking slower than its estimate (a loaded machine) stops at the search's deadline instead of
    overrunning --search-seconds by minutes; the values it gives are still values of c."""
    from flipgame.algebra import coset_classes

    game = Game(19, 19, "white")
    parts, quiet, _ = algebra.solution_cosets(game, game.full)
    sp = coset_classes.split(parts[0][0], quiet, dict(symmetry.rule_symmetries(game))["rotate 180"])
    monkeypatch.setattr(coset_classes, "BLOCK_DIM", 4)  # 16 blocks of 16 values
    whole = coset_classes.lightest(sp, game.m, 300)
    first = coset_classes.lightest(sp, game.m, 300, deadline=0.0)
    assert len(whole) == 255 and 0 < len(first) <= 16 and all(a < 16 for _, a in first)
    assert set(first) <= set(whole)


def test_the_ranking_breaks_ties_by_coordinates_as_an_enumeration_does():
    """Break-it: np.argpartition kept an arbitrary subset of the values tied at the cut (124 of 2,700 random
    checks differed from the enumeration's order)."""
    import random

    from flipgame.algebra import coset_classes

    rng, n = random.Random(5), 14
    for _ in range(60):
        image = [rng.getrandbits(n) for _ in range(rng.randint(1, 6))]
        c0 = rng.getrandbits(n) if rng.random() < 0.5 else 0
        sp = coset_classes.Split(0, c0, image, image, [])
        order = sorted(((c0 ^ symmetry.combine(image, a)).bit_count(), a) for a in range(1 << len(image)))
        order = [v for v in order if v[0]]
        for count in (1, 2, 3, 5, 100):
            assert coset_classes.lightest(sp, n, count) == order[:count]
    assert coset_classes.lightest(sp, n, -1) == [] and coset_classes.lightest(sp, n, 0) == []


def test_the_search_learns_its_pace_from_its_own_large_sub_searches(monkeypatch):
    """Break-it: a neighbourhood of 2**35 estimated at 11.8 s took 30 s at n = 95 (9,025 cells), so
    --search-seconds 20 ran 31 s; the estimate now takes the slowest pace seen on 2**24 or more."""
    from flipgame.algebra import coset_run

    monkeypatch.setattr(coset_run, "seconds_for", lambda work: work / 2e9)
    clock = coset_search._Clock(100.0)
    assert clock.cost(32) == pytest.approx((1 << 32) / 2e9)
    clock.learn(16, 10.0)  # small: the preparation dominates, nothing learnt
    assert clock.cost(32) == pytest.approx((1 << 32) / 2e9)
    clock.learn(32, 3.0)
    assert clock.cost(32) == pytest.approx(3.0) and clock.cost(35) == pytest.approx(24.0)
    assert not clock.fits(40)


def test_a_symmetry_list_without_the_identity_first_loses_no_symmetry():
    """Break-it: the first symmetry given was dropped as if it were the identity."""
    game = Game(19, 19, "white")
    maps = dict(symmetry.rule_symmetries(game))
    kept = coset_search._conjugacy_representatives([("rotate 180", maps["rotate 180"]), ("identity", maps["identity"])])
    assert [name for name, _ in kept] == ["rotate 180"]


@pytest.mark.needs("numba")
@pytest.mark.parametrize(("n", "term", "symmetric"), [(47, 971, 1007), (101, 4927, 5015)])
def test_the_search_finds_a_minimum_no_symmetry_fixes_in_one_of_its_classes(n, term, symmetric):
    """a(47) and a(101) (published; checked by enumeration) are lighter than every symmetric solution; a class
    step finds them before any random neighbourhood."""
    game = all_lit.rules(n)
    parts, quiet, _ = algebra.solution_cosets(game, game.full, "chase")
    group = symmetry.stabiliser(game, game.full)
    starts = coset_search._symmetric_starts(parts[0][0], quiet, group)
    assert min(minweight.min_weight(sx, sub, game.m)[1].bit_count() for _, (sx, sub) in starts) == symmetric
    found = coset_search.search(parts[0][0], quiet, game.m, 2, symmetries=group, dim=12)
    assert found.weight == term and found.how.startswith("class ") and game.apply(game.full, found.presses) == 0


def test_the_search_starts_no_sub_search_its_budget_cannot_hold(monkeypatch):
    """--search-seconds 10 ran for a minute: a symmetric neighbourhood of 2**36 solutions was started at 9 s."""
    from flipgame.algebra import coset_run

    game = Game(79, 79, "white")
    parts, quiet, _ = algebra.solution_cosets(game, game.full, "chase")
    monkeypatch.setattr(coset_run, "seconds_for", lambda work: 0.0 if work <= 1 << 16 else 1e9)
    calls = []

    def run(call):
        calls.append(call)
        return call()

    found = coset_search.search(parts[0][0], quiet, game.m, 3600, symmetries=symmetry.stabiliser(game, game.full),
                                run=run)
    assert (found.weight, found.steps, len(calls)) == (2789, 1, 1)  # the quarter turn's 2**16 only
    assert found.how == "the solutions fixed by rotate 90" and game.apply(game.full, found.presses) == 0


def _presses(rows: list[str]) -> int:
    """A press set from rows of x (press) and . (cell (r, c) = bit r * cols + c)."""
    return int("".join(row[::-1] for row in reversed(rows)).replace("x", "1").replace(".", "0"), 2)


def test_the_recorded_a79_witness_turns_the_all_lit_board_off():
    """docs/a075464-79-upper-bound.txt: the bound's witness, re-applied by the board model."""
    lines = (Path(__file__).parent.parent / "docs" / "a075464-79-upper-bound.txt").read_text().splitlines()
    bound = int(lines[0].split(": ")[1].split()[0])
    presses = _presses(lines[1:])
    assert len(lines) == 80 and presses.bit_count() == bound
    assert Game(79, 79, "white").apply((1 << 79 * 79) - 1, presses) == 0


def test_the_a79_search_without_numba_is_refused_before_any_work(monkeypatch):
    """On the core install the search printed its first bound, then failed at its first sub-search of 2**30."""
    from flipgame.core import extras

    monkeypatch.setattr(extras, "installed", lambda module: module != "numba")
    better = []
    with pytest.raises(extras.ExtraMissingError, match=r"dimension 64 needs numba: pip install 'flipgame\[fast\]'"):
        all_lit.upper_bound(79, 5, on_better=lambda term, how: better.append(term))
    assert better == []


@pytest.mark.needs("numba")
def test_a_ctrl_c_during_the_a79_search_keeps_its_best_witness(tmp_path):
    """The search wrote its witness only at the end: a Ctrl-C an hour in lost every improvement."""
    witness = tmp_path / "a075464-79.txt"
    p = subprocess.Popen([sys.executable, "-m", "flipgame", "study", "--all-lit", "79", "--search-seconds", "3600",
                          "--witness-dir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=started_clean)
    deadline = time.monotonic() + 120  # a hang guard, no timing: the first improvement is the quarter turn's
    while not witness.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130 and err.strip().endswith("interrupted"), err
    lines = witness.read_text().splitlines()
    bound = int(lines[0].split(": ")[1].split()[0])
    assert 2629 <= bound <= 2789 and f"a(79) <= {bound} after" in err
    presses = _presses(lines[1:])
    assert presses.bit_count() == bound and Game(79, 79, "white").apply((1 << 79 * 79) - 1, presses) == 0


def test_an_interrupted_all_lit_run_keeps_the_finished_terms_in_its_json(tmp_path):
    """--json was written only at the end: a Ctrl-C in a(65)'s long run lost a(5) and a(6) from it."""
    report = tmp_path / "terms.json"
    p = subprocess.Popen([sys.executable, "-m", "flipgame", "study", "--all-lit", "5,6,65", "--json", str(report)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=started_clean)
    deadline = time.monotonic() + 120  # a hang guard, no timing
    while not report.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    while '"n": 6' not in report.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130 and "interrupted" in err.splitlines()[-1], err  # or "a(65) stopped: ..."
    assert [(t["n"], t["presses"]) for t in json.loads(report.read_text())["terms"]] == [(5, 15), (6, 28)]
    assert out.splitlines() == ["5 15", "6 28"]


def test_json_on_standard_output_is_json_alone(capsys):
    """``--json`` without a file printed the b-file lines before the JSON: ``json.load`` failed on "Extra data"."""
    assert main(["study", "--all-lit", "5,6,80", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    terms = [(t["n"], t["presses"], t["published"]) for t in doc["terms"]]
    assert terms == [(5, 15, 15), (6, 28, 28), (80, 3264, None)]  # 80: past the published entry


@pytest.mark.needs("highspy")
def test_the_json_of_all_lit_holds_the_lower_bounds(tmp_path):
    assert main(["study", "--all-lit", "5,12", "--lower-bound", "--json", str(tmp_path / "t.json")]) == 0
    doc = json.loads((tmp_path / "t.json").read_text())
    assert [(t["n"], t["presses"]) for t in doc["terms"]] == [(5, 15), (12, 72)]  # the published a(12)
    assert [(b["n"], b["lower_bound"], b["cover"]) for b in doc["lower_bounds"]] == [(5, 7, 7), (12, 33, 32)]


@pytest.mark.slow
def test_a79_upper_bound(tmp_path):
    r = flipgame("study", "--all-lit", "79", "--search-seconds", "120", "--witness-dir", str(tmp_path), timeout=900)
    assert r.returncode == 0, r.stderr
    bound = int(r.stdout.split("<= ")[1].split()[0])
    assert bound <= 2629 and "(upper bound, not proven minimal)" in r.stdout
    presses = _presses((tmp_path / "a075464-79.txt").read_text().splitlines()[1:])
    assert presses.bit_count() == bound and Game(79, 79, "white").apply((1 << 79 * 79) - 1, presses) == 0


@pytest.mark.needs("highspy")
def test_the_covering_lower_bound_is_checked_and_below_every_published_term():
    from fractions import Fraction

    from flipgame.verify.proofs.cover_check import cover_lower_bound, cut_lower_bound

    for n in range(1, 31):
        bound = all_lit.lower_bound(n)
        assert bound.cover <= bound.presses <= all_lit.A075464[n - 1], n
    game = all_lit.rules(12)
    b = all_lit.lower_bound(12)
    assert cut_lower_bound(game.press_masks, game.full, b.weights, list(b.cuts)) == b.presses == 33
    assert b.cover == 32  # the covering LP alone; the parity cuts add one press
    heavier = dict(b.weights)
    cell = next(iter(heavier))
    heavier[cell] += Fraction(1, 2)  # a press around that cell now covers more than weight 1
    with pytest.raises(ValueError, match="weight"):
        cover_lower_bound(game.press_masks, game.full, heavier)


@pytest.mark.needs("highspy")
def test_the_cut_check_refuses_an_even_cut_an_overweight_cut_and_a_cell_outside_the_board():
    from fractions import Fraction

    from flipgame.verify.proofs.cover_check import cut_lower_bound

    game = all_lit.rules(12)
    b = all_lit.lower_bound(12)
    (cells, w), *rest = b.cuts
    for bad, why in (([(cells[:2], w), *rest], "odd set"), ([(cells, w + 1), *rest], "weight"),
                     ([((*cells[:2], 144), w), *rest], "odd set")):
        with pytest.raises(ValueError, match=why):
            cut_lower_bound(game.press_masks, game.full, b.weights, bad)
    assert cut_lower_bound(game.press_masks, game.full, b.weights, [(cells, Fraction(0)), *rest]) <= b.presses


def test_the_cover_check_refuses_float_weights_whose_rounding_overstates_the_bound():
    """Break-it: weights 0.33, 0.56, 0.11 on one press's three cells sum to 1.0000000000000002 in dict order but
    load the press 1.0 in cell order, so the float "proved" 2 presses where one press does."""
    from fractions import Fraction

    from flipgame.verify.proofs.cover_check import cover_lower_bound, cut_lower_bound

    floats = {2: 0.33, 0: 0.56, 1: 0.11}
    with pytest.raises(ValueError, match="cell 2: weight 0.33 is not exact"):
        cover_lower_bound([0b111], 0b111, floats)
    with pytest.raises(ValueError, match="not exact"):
        cut_lower_bound([0b111], 0b111, {}, [((0, 1, 2), 0.5)])
    exact = {c: Fraction(1, 3) for c in range(3)}
    assert cover_lower_bound([0b111], 0b111, exact) == cut_lower_bound([0b111], 0b111, exact, []) == 1


@pytest.mark.slow
def test_a79_lower_bound_from_the_command_line(tmp_path):
    out = flipgame("study", "--all-lit", "79", "--lower-bound", "--witness-dir", str(tmp_path), timeout=300)
    assert out.returncode == 0
    assert out.stdout == ("# a(79) >= 1270 (covering LP with parity cuts, its dual weights checked in exact "
                          "arithmetic)\n")
    assert "(the covering LP alone: 1266)" in out.stderr
    assert (tmp_path / "a075464-79-lower-bound.txt").read_text().startswith("# A075464 a(79) >= 1270")


@pytest.mark.parametrize("args, line", [
    (["--json", "x.json", "--bfile", "./x.json"], "--bfile and --json name the same file x.json: each needs its own"),
    (["--witness-dir", "afile"], "--witness-dir afile: not a folder"),
    (["--witness-dir", "afile/sub"], "--witness-dir afile/sub: cannot make the folder: Not a directory"),
    (["--json", "afile/f.json"], "--json afile/f.json: {tmp}/afile is not a folder"),
])
def test_all_lit_output_paths_are_checked_with_the_right_words(args, line, tmp_path, monkeypatch, capsys):
    """A missing folder was "not a folder", a file as a folder "does not exist", and --json over --bfile passed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    assert main(["study", "--all-lit", "5", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"flipgame: {line.format(tmp=tmp_path)}\n"


def test_a_missing_witness_folder_is_made(tmp_path, capsys):
    folder = tmp_path / "new" / "deep"
    assert main(["study", "--all-lit", "5", "--witness-dir", str(folder)]) == 0
    assert [p.name for p in folder.iterdir()] == ["a075464-5.txt"] and "15" in capsys.readouterr().out

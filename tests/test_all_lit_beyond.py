"""A075464 past the published b-file (n > 78) and its second check (flipgame.verify.proofs.all_lit_check, which
shares no code with the solver): the terms computed and checked twice, the b-file's note, and the check refusing
a claimed minimum one too low, a flipped press, a wrong nullity and a group that is not the solver's."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import flipgame

from flipgame.study import all_lit
from flipgame.verify.proofs import all_lit_check

BEYOND = {80: (3264, 0), 81: (3349, 0), 83: (3363, 6), 84: (3360, 12), 89: (3669, 10), 92: (4042, 20),
          94: (4438, 4), 99: (4653, 16), 101: (4927, 18), 113: (6555, 2), 122: (7604, 0)}
"""a(n) and the nullity past n = 78, from ``flipgame study --all-lit 80..122`` with the second check (docs/
high-nullity.md); an independent script of the issue (no flipgame code) gave a(80), a(83), a(89), a(92), a(94)."""


@pytest.mark.parametrize("n", [80, 83, 89, 94])
@pytest.mark.needs("numba")
def test_terms_past_78_agree_with_their_second_check(n):
    t = all_lit.term(n)
    assert (t.presses, t.nullity) == BEYOND[n] and t.published is None
    assert t.check.startswith("unique solution" if t.nullity == 0 else f"all 2^{t.nullity} solutions")


@pytest.mark.slow
@pytest.mark.parametrize("n", list(BEYOND))
def test_every_listed_term_past_78(n):
    t = all_lit.term(n)
    assert (t.presses, t.nullity) == BEYOND[n]


def test_the_second_elimination_gives_the_nullity_of_light_chasing():
    for n in range(1, 40):
        assert all_lit_check.solutions(n).nullity == all_lit.nullity(n), n


@pytest.mark.needs("numba")
def test_the_second_check_refuses_a_minimum_one_too_low_a_flipped_press_and_a_wrong_nullity():
    t = all_lit.term(19)  # nullity 16
    with pytest.raises(all_lit_check.CheckFailed, match="has 141 presses, not 140"):
        all_lit_check.check_term(19, t.presses - 1, t.witness, t.nullity)
    flipped = t.witness | 1 << next(i for i in range(361) if not t.witness >> i & 1)  # one more press
    with pytest.raises(all_lit_check.CheckFailed, match="cells lit"):
        all_lit_check.check_term(19, t.presses + 1, flipped, t.nullity)
    with pytest.raises(all_lit_check.CheckFailed, match="nullity 16 by the second elimination, not 14"):
        all_lit_check.check_term(19, t.presses, t.witness, 14)
    other = all_lit.Term(19, 143, 16, 1, 0.0, t.witness)
    with pytest.raises(all_lit_check.CheckFailed):
        all_lit_check.check_term(19, other.presses, other.witness, 16)


def test_a_light_solution_not_the_minimum_is_refused():
    coset = all_lit_check.solutions(19)
    heavier = int("".join("1" if b else "0" for b in reversed(coset.x0)), 2)  # a solution, not the lightest
    assert int(coset.x0.sum()) > 141
    with pytest.raises(all_lit_check.CheckFailed, match="finds 141 presses, not"):
        all_lit_check.check_term(19, int(coset.x0.sum()), heavier, 16)


@pytest.mark.needs("numba")
def test_sampled_groups_of_a_long_run_agree_with_their_second_enumeration():
    samples = all_lit.sample_groups(39, 3, seed=39)  # nullity 32: groups of 2^18
    assert len(samples) == 3 and all(s.presses == s.checked >= 561 for s in samples)


def test_a_group_whose_vector_is_not_in_the_null_space_is_refused():
    coset = all_lit_check.solutions(16)
    to_int = lambda bits: int("".join("1" if b else "0" for b in reversed(bits)), 2)  # noqa: E731
    with pytest.raises(all_lit_check.CheckFailed, match="not in the null space"):
        all_lit_check.group_minimum(16, to_int(coset.x0), [to_int(coset.basis[0]) ^ 1])
    with pytest.raises(all_lit_check.CheckFailed, match="offset does not turn"):
        all_lit_check.group_minimum(16, to_int(coset.x0) ^ 1, [to_int(coset.basis[0])])


@pytest.mark.needs("numba")
def test_the_bfile_marks_the_terms_beyond_the_published_entry(tmp_path):
    bfile = tmp_path / "b.txt"
    r = flipgame("study", "--all-lit", "77..80", "--bfile", str(bfile))
    assert r.returncode == 5 and "a(79): nullity 64" in r.stderr  # 79 refused, the others computed
    assert bfile.read_text().splitlines() == ["77 3055", "78 2980", all_lit.BEYOND_NOTE, "80 3264"]
    assert r.stdout.splitlines() == ["77 3055", "78 2980", all_lit.BEYOND_NOTE, "80 3264"]


def test_every_published_witness_past_78_turns_its_board_off():
    lines = (Path(__file__).parent.parent / "docs" / "a075464-beyond-78.txt").read_text().splitlines()
    terms = [all_lit.read_compact(line) for line in lines if not line.startswith("#")]
    assert [n for n, *_ in terms] == [n for n in range(80, 123) if n != 95]
    for n, presses, nullity, witness in terms:
        all_lit_check.check_witness(n, presses, witness)  # its own press function: no code of the solver
        if n == 119:
            assert (presses, nullity) == (6409, 46)  # the long run of docs/a075464-119-run.json
        if n in BEYOND:
            assert (presses, nullity) == BEYOND[n]


def test_a_malformed_compact_witness_line_is_refused_in_one_line():
    with pytest.raises(ValueError, match="expected 'n a\\(n\\) nullity BASE64'"):
        all_lit.read_compact("80 3264 0 not-base64!")


def test_the_bfile_is_in_order_and_once_each_whatever_order_the_terms_came_in():
    terms = [all_lit.Term(n, v, 0, 1, 0.0, 0) for n, v in ((81, 3349), (77, 3055), (78, 2980), (81, 3349))]
    assert all_lit.bfile_text(terms).splitlines() == ["77 3055", "78 2980", all_lit.BEYOND_NOTE, "81 3349"]

"""Branch-and-bound minimality proofs: the counter along the forms' trie (verify.proofs.card_network), the
forms and the pruned search (encode.bnb), and their DRAT proofs (encode.bnb_proofs), checked by dratify."""

from __future__ import annotations

import random

import pytest

from flipgame.algebra.gf2 import min_weight, solution_cosets
from flipgame.encode.bnb import Search, plan
from flipgame.encode.bnb_proofs import refutation_bnb
from flipgame.model.grid import Game
from flipgame.verify.proofs.card_network import Network
from flipgame.verify.proofs.drat import Proof
from flipgame.verify.proofs.lower_bound import build_formula
from flipgame.verify.proofs.proof_check import check_refutation

pysat = pytest.importorskip("pysat")
pytest.importorskip("dratify")


def _evaluate(net: Network, values: dict[int, int]) -> dict[int, int]:
    v = dict(values)
    for a, b, hi, lo in net.comparators:
        v[hi], v[lo] = v[a] | v[b], v[a] & v[b]
    return v


@pytest.mark.parametrize("cap", [1, 2, 3, 7, 50])
def test_odd_even_merge_sorts_every_pair_of_sorted_vectors(cap):
    """The 0/1 principle: a merging network is right iff it merges every pair of sorted 0/1 vectors."""
    for p in range(8):
        for q in range(8):
            for ones_a in range(p + 1):
                for ones_b in range(q + 1):
                    net = Network(cap=cap)
                    a, b = list(range(1, p + 1)), list(range(p + 1, p + q + 1))
                    out = net.merge(a, b)
                    v = _evaluate(net, {a[i]: int(i < ones_a) for i in range(p)} |
                                  {b[i]: int(i < ones_b) for i in range(q)})
                    assert [v[w] for w in out] == ([1] * (ones_a + ones_b) + [0] * (p + q))[:min(cap, p + q)]


def test_the_network_formula_is_exactly_at_most_bound():
    """Every press set of up to 9 presses, random trees (keys) and bounds: satisfiable iff few enough."""
    from pysat.solvers import Solver

    rng = random.Random(1)
    for _ in range(40):
        n, bits = rng.randint(2, 9), rng.randint(0, 4)
        keys = tuple(rng.randrange(1 << bits) for _ in range(n))
        bound = rng.randint(0, n - 1)
        f = build_formula(n, [0] * n, 0, bound, keys=keys, key_bits=bits)
        assert f.encoding == "network" and len(f.network[(0, 0)]) == bound + 1
        with Solver(name="cadical195", bootstrap_with=f.clauses) as s:
            for x in range(1 << n):
                assumptions = [j + 1 if x >> j & 1 else -(j + 1) for j in range(n)]
                assert s.solve(assumptions=assumptions) == (x.bit_count() <= bound), (keys, bound, x)


CASES = [
    (Game(9, 9, "white"), None, 25),                      # all lit: A075464(9) = 25, nullity 8
    (Game(5, 11, "white", neighbourhood="king"), 3, 14),  # dense elimination, nullity 15
    (Game(8, 17, "white", neighbourhood="king"), 3, 43),  # nullity 24: 2**24 leaves unpruned
]


def _board(game: Game, seed: int | None) -> int:
    return game.full if seed is None else game.apply(0, random.Random(seed).getrandbits(game.n))


def _minimum(game: Game, board: int) -> int:
    parts, quiet, _ = solution_cosets(game, board)
    return min(min_weight(x, quiet, game.n).bit_count() for x, _ in parts)


@pytest.mark.parametrize("game,seed,known", CASES, ids=["9x9-all-lit", "5x11-king", "8x17-king"])
def test_every_assignment_of_the_free_presses_is_a_solution(game, seed, known):
    board = _board(game, seed)
    p = plan(game, board, "chase" if game.chaseable else "dense")
    rng = random.Random(0)
    weights = set()
    for _ in range(300):
        a = rng.getrandbits(p.nullity)
        x = sum(1 << j for j in range(game.n) if p.consts[j] ^ ((p.keys[j] & a).bit_count() & 1))
        assert game.apply(board, x) == 0
        weights.add(x.bit_count())
    minimum = _minimum(game, board)
    assert known is None or minimum == known
    assert min(weights) >= minimum


@pytest.mark.parametrize("game,seed,known", CASES, ids=["9x9-all-lit", "5x11-king", "8x17-king"])
def test_the_pruned_search_closes_every_branch_above_the_minimum_and_meets_it_one_above(game, seed, known):
    board = _board(game, seed)
    p, k = plan(game, board, "chase" if game.chaseable else "dense"), _minimum(game, board)
    at = Search(p, k).run()
    assert at.closed[p.nullity] == [] or all(a is not None for a in at.closed[p.nullity])
    assert sum(map(len, at.closed)) < 1 << p.nullity  # pruned
    above = Search(p, k + 1).run()
    leaves = above.closed[p.nullity]
    assert leaves, "a minimum-weight solution is a leaf the bound cannot close"


def _proof(game: Game, board: int, bound: int, masks=None):
    p = plan(game, board, "chase" if game.chaseable else "dense")
    formula = build_formula(game.n, masks or game.press_masks, board, bound, keys=p.keys, key_bits=p.nullity)
    generated_from = build_formula(game.n, game.press_masks, board, bound, keys=p.keys, key_bits=p.nullity)
    log = refutation_bnb(game, generated_from, p, bound)
    return formula, Proof(*log.arrays())


@pytest.mark.parametrize("game,seed,known", CASES, ids=["9x9-all-lit", "5x11-king", "8x17-king"])
def test_the_minimum_is_proved_and_one_more_is_refused(game, seed, known):
    board = _board(game, seed)
    k = _minimum(game, board)
    formula, proof = _proof(game, board, k - 1)
    assert check_refutation(formula, proof).ok
    too_low_formula, too_low = _proof(game, board, k)  # "at most k" holds: no proof of its negation
    assert not check_refutation(too_low_formula, too_low).ok


def test_a_dropped_node_clause_and_a_flipped_press_mask_are_rejected():
    import numpy as np

    game, board = Game(9, 9, "white"), Game(9, 9).full
    formula, proof = _proof(game, board, 24)
    assert check_refutation(formula, proof).ok
    ends = np.flatnonzero(proof.lits == 0)
    starts = np.concatenate(([0], ends[:-1] + 1))
    free = {v + 1 for v in plan(game, board, "chase").free}
    node = next(i for i in range(len(ends)) if not proof.deletions[i] and ends[i] > starts[i] and
                {abs(int(x)) for x in proof.lits[starts[i]:ends[i]]} <= free)  # the first closed node's clause
    keep = np.ones(len(proof.lits), dtype=bool)
    keep[starts[node]:ends[node] + 1] = False
    dropped = Proof(proof.lits[keep], np.delete(proof.deletions, node))
    assert not check_refutation(formula, dropped).ok
    masks = list(game.press_masks)
    masks[40] ^= 1 << 41
    bad_formula, proof2 = _proof(game, board, 24, masks=masks)
    assert not check_refutation(bad_formula, proof2).ok


def test_certify_uses_the_pruned_split_from_its_nullity():
    from flipgame.verify.proofs.certify import certify_minimum

    game = Game(8, 17, "white", neighbourhood="king")
    board = _board(game, 3)
    cert = certify_minimum(game, board, 43, time_limit=None)
    assert cert.ok and "by parity with a pruned split" in cert.line()
    low = certify_minimum(game, board, 42, time_limit=None)
    assert not low.ok and low.message.endswith("the claimed minimum 42 is too low")
    assert not certify_minimum(game, board, 44, time_limit=None).ok  # "at most 43" holds: no proof checks


def test_a_closed_node_cases_hold_no_assignment_and_reuse_their_class_lemmas(monkeypatch):
    """A class's cases ``U | -e | D`` and ``U | e | D`` name the values ``D`` of its members' rows, not the
    node's assignment ``-a`` (whose propagation fixed every press of the zero class in each case: the random
    30x30 proof checked in 120 s so, 54 s this way), and its lemma ``U | D`` serves every node of the
    window with the same ``D`` (then 38 s)."""
    from flipgame.encode import bnb_proofs

    nodes: list[tuple[list[int], list[list[int]], int]] = []  # (-a, clauses added, class count) per node
    closed = bnb_proofs.Writer.closed

    def spy(self, t, alpha, here):
        first, start = len(self.log.dels), len(self.log.lits)
        closed(self, t, alpha, here)
        flat, dels = list(self.log.lits[start:]), list(self.log.dels[first:])
        ends = [i for i, lit in enumerate(flat) if lit == 0]
        clauses = [flat[b:e] for b, e in zip([0, *[e + 1 for e in ends[:-1]]], ends, strict=True)]
        added = [c for c, gone in zip(clauses, dels, strict=True) if not gone]
        nodes.append((self.clause(t, alpha), added, len(self.classes(t, self.search.consts_at(alpha)))))

    monkeypatch.setattr(bnb_proofs.Writer, "closed", spy)
    game = Game(9, 9, "white")
    formula, proof = _proof(game, game.full, 24)
    assert check_refutation(formula, proof).ok
    assert len(nodes) == sum(map(len, Search(plan(game, game.full, "chase"), 25).run().closed))
    lemmas = 0
    for neg, added, classes in nodes:
        new = (len(added) - 1) // 3
        cases, written, node = added[:2 * new], added[2 * new:3 * new], added[-1]
        assert node == neg and new <= classes
        for k, lemma in enumerate(written):
            minus, plus = cases[2 * k], cases[2 * k + 1]
            assert minus[0] == plus[0] == lemma[0] and minus[1] == -plus[1] and minus[2:] == plus[2:] == lemma[1:]
            assert len({abs(x) for x in lemma[1:]}) == len(lemma) - 1 and set(lemma[1:]) != set(neg)
        lemmas += new
    assert lemmas < sum(classes for *_, classes in nodes)  # some nodes used lemmas written before them

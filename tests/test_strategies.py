"""Strategies, the ``auto`` portfolio and ``flipgame study``: which strategy for which rules, the
cross-check that flags a planted wrong strategy, and the study's options."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest
from conftest import POJ_SAMPLE_CELLS, POJ_SAMPLE_TEXT, flipgame, solve_gate
from faulty_backends import FunctionBackend

from flipgame import BACKENDS, Game, NullityTooLargeError, RefusedError, Solution, Status
from flipgame.algebra import gf2 as algebra
from flipgame.backends import bfs
from flipgame.backends.auto import plan
from flipgame.backends.registry import STRATEGIES
from flipgame.backends.strategies import Strategy
from flipgame.cli.common import strategy_names
from flipgame.model.system import PressSystem
from flipgame.pipeline.gate import solve_strategy
from flipgame.study.compare import compare_strategies
from flipgame.study.distribution import coset_distribution, distribution
from flipgame.study.families import FAMILIES
from flipgame.verify.checks.witness import check_solution

# --- the strategy registry -------------------------------------------------------------------------


def test_every_strategy_names_a_backend_and_valid_options():
    for s in STRATEGIES.values():
        assert s.backend in BACKENDS
        BACKENDS[s.backend].check_options(dict(s.options))  # raises on a bad option


@pytest.mark.parametrize("name, game, takes", [
    ("gauss-chase", Game(6, 6, "white"), True),
    ("gauss-chase", Game(6, 6, "white", wrap=True), False),
    ("gauss-chase", Game(6, 6, "white", neighbourhood="king"), False),
    ("gauss", Game(6, 6, "white", neighbourhood="king"), True),
    ("bfs", Game(4, 6, "white"), True),
    ("bfs", Game(5, 6, "white"), True),  # 30 cells: the largest table bfs keeps
    ("bfs", Game(4, 8, "white"), False),
    ("bfs", Game(7, 7, "white"), False),
    ("sat-xor", Game(60, 60, "white"), True),
])
def test_applies_is_the_gates_refusal(name, game, takes):
    assert STRATEGIES[name].applies(game) is takes


def test_strategy_names_are_checked():
    assert strategy_names("all") == list(STRATEGIES)
    assert strategy_names(" sat-xor ,gauss") == ["sat-xor", "gauss"]
    with pytest.raises(argparse.ArgumentTypeError, match="unknown strategy 'nope'; valid: all or gauss, gauss-chase"):
        strategy_names("gauss,nope")
    with pytest.raises(argparse.ArgumentTypeError, match="a strategy is named twice"):
        strategy_names("gauss,gauss")


@pytest.mark.parametrize("name", list(STRATEGIES))
def test_each_strategy_solves_the_poj_sample_through_the_gate(name):
    board = POJ_SAMPLE_CELLS  # bwwb / bbwb / bwwb / bwww: 4 presses
    s = solve_strategy(name, board, Game(4, 4), time_limit=10.0)
    assert (s.status, s.moves) == (Status.OPTIMAL, 4) and check_solution(Game(4, 4), board, s) is None


# --- auto: which strategy, and why -----------------------------------------------------------------


def _shapeless(game: Game) -> PressSystem:
    """The grid's press system without its shape: no light chasing, no banded elimination, only the dense one."""
    return PressSystem(game.cells, game.buttons, states=2, goal=game.goal)


KING_51 = _shapeless(Game(51, 51, "white", neighbourhood="king"))
"""2601 cells without a grid: over the dense elimination's 2500, and no band to read."""


@pytest.mark.parametrize("game, options, strategy, words", [
    (Game(4, 4), {}, "gauss", "dense elimination) and nullity 4 <= max_nullity 32"),
    (Game(39, 39, "white"), {}, "gauss", "light chasing) and nullity 32 <= max_nullity 32"),
    (Game(6, 6, "white", wrap=True), {}, "gauss", "dense elimination"),
    (Game(9, 9, "white"), {"max_nullity": 4}, "sat-xor", "nullity 8 > max_nullity 4"),
    (KING_51, {}, "sat-xor", "the algebra does not take 2601 cells"),
    (KING_51, {"memory_limit": 0.12}, "ilp-scip", "budget (--memory-limit"),
    (Game(51, 51, "white", neighbourhood="king"), {}, "gauss", "banded elimination) and nullity 0"),
])
@pytest.mark.needs("pycryptosat")
def test_auto_plan(game, options, strategy, words):
    p = plan(game, options)
    assert p.strategy == strategy and words in p.why
    assert p.impossible_first == (options.get("max_nullity", 32) < (algebra.nullity(game) or 0))


@pytest.mark.needs("pycryptosat")
def test_auto_says_which_strategy_answered_and_why():
    g = Game(9, 9, "white")  # nullity 8
    solvable = g.apply(0, 0b1011 << 30)
    s = solve_gate("auto", g, solvable, max_nullity=4, time_limit=30.0)
    assert (s.backend, s.stats["strategy"], s.moves) == ("auto", "sat-xor", solve_gate("gauss", g, solvable).moves)
    assert "nullity 8 > max_nullity 4" in s.stats["why"] and check_solution(g, solvable, s) is None
    impossible = 1  # one lit corner: not in the column space of 9x9 Lights Out
    assert solve_gate("gauss", g, impossible).status is Status.INFEASIBLE
    s = solve_gate("auto", g, impossible, max_nullity=4)
    assert (s.status, s.stats["strategy"]) == (Status.INFEASIBLE, "gauss") and "Impossible" in s.stats["why"]
    assert s.certificates  # the gate attaches certificates to auto's Impossible too
    s = solve_gate("auto", g, solvable)
    assert (s.stats["strategy"], s.stats["nullity"]) == ("gauss", 8)


@pytest.mark.needs("pycryptosat")
def test_auto_hands_rules_the_algebra_does_not_take_to_sat():
    g = KING_51  # 2601 cells: over the dense elimination's 2500, and no grid for the banded one
    s = solve_gate("auto", g, 0, time_limit=30.0)
    assert (s.moves, s.stats["strategy"]) == (0, "sat-xor")


def test_auto_refuses_when_no_strategy_takes_the_board():
    with pytest.raises(RefusedError, match="no strategy takes 2601 cells"):
        solve_gate("auto", KING_51, 0, memory_limit=0.001)


def test_auto_batch_is_gauss_relabelled():
    g = Game(4, 4)
    boards = np.arange(0, 1 << 16, 97, dtype=np.uint64)
    out = BACKENDS["auto"].solve_batch(g, boards)
    ref = BACKENDS["gauss"].solve_batch(g, boards)
    assert out.backend == "auto" and out.stats["strategy"] == "gauss"
    assert np.array_equal(out.moves, ref.moves) and np.array_equal(out.status, ref.status)


def test_solve_stats_show_the_strategy():
    r = flipgame("solve", "--backend", "auto", "--stats", stdin=POJ_SAMPLE_TEXT)
    assert r.stdout == "4\n" and "strategy=gauss" in r.stderr and "why=the algebra takes 4x4" in r.stderr


A075464 = [1, 4, 5, 4, 15, 28, 33, 40, 25, 44, 55, 72, 105, 56, 117, 104, 147, 188, 141]


def test_auto_all_lit_small_matches_oeis():
    for n, expected in enumerate(A075464[:12], start=1):
        g = Game(n, n, "white")
        assert solve_gate("auto", g, g.full).moves == expected


@pytest.mark.slow
def test_auto_all_lit_1_to_60_matches_gauss_and_oeis():
    for n in range(1, 61):
        g = Game(n, n, "white")
        s = solve_gate("auto", g, g.full)
        assert s.stats["strategy"] == "gauss" and check_solution(g, g.full, s) is None
        assert s.moves == solve_gate("gauss", g, g.full).moves
        if n <= 19:
            assert s.moves == A075464[n - 1]
    assert solve_gate("auto", Game(39, 39, "white"), Game(39, 39).full).moves == 561


# --- the cross-check flags a planted wrong strategy --------------------------------------------------


def heaviest(game, board, **options):
    """A valid witness that is not minimal: the heaviest press set in the coset (passes the witness check,
    only the cross-check against gauss can catch it)."""
    parts, quiet, _ = algebra.solution_cosets(game, board)
    if not parts:
        return Solution("heaviest", Status.INFEASIBLE)
    x, t = parts[0]
    span = [0]
    for q in quiet:
        span += [v ^ q for v in span]
    y = max((x ^ v for v in span), key=int.bit_count)
    return Solution("heaviest", Status.OPTIMAL, y.bit_count(), y, t)


def plus_one(game, board, **options):
    """Gauss's press set with a count one too high: the witness check catches it."""
    s = solve_gate("gauss", game, board)
    if not s.success:
        return Solution("plus_one", s.status)
    return Solution("plus_one", Status.OPTIMAL, s.moves + 1, s.presses, s.target)


@pytest.mark.parametrize("fault, words", [(heaviest, "disagrees with gauss"), (plus_one, "witness rejected")])
def test_cross_check_flags_a_planted_wrong_strategy(monkeypatch, fault, words):
    name = fault.__name__
    monkeypatch.setitem(BACKENDS, name, FunctionBackend(name, fault))
    monkeypatch.setitem(STRATEGIES, name, Strategy(name, name, {}, "planted fault"))
    st = compare_strategies(["gauss", "sat-xor", name], ["random"], sizes=[4, 5], boards=3, seed=7, isolate=False)
    flagged = [r for r in st.runs if r.flag]
    assert flagged and {r.strategy for r in flagged} == {name}
    assert all(words in r.flag for r in flagged)
    row = next(r for r in st.summary() if r["strategy"] == name)
    assert row["disagreements"] == len(flagged) == st.disagreements
    assert "Disagreements: " + str(len(flagged)) in st.text()


def test_gauss_not_run_is_still_the_reference(monkeypatch):
    monkeypatch.setitem(BACKENDS, "heaviest", FunctionBackend("heaviest", heaviest))
    monkeypatch.setitem(STRATEGIES, "heaviest", Strategy("heaviest", "heaviest", {}, "planted fault"))
    st = compare_strategies(["sat-xor", "cpsat", "heaviest"], ["all-lit"], sizes=[4], time_limit=10.0,
                            isolate=False)
    assert [(r.strategy, r.flag) for r in st.runs if r.flag] == [("heaviest", "disagrees with gauss (4)")]


def refusing_gauss(game, board, **options):
    raise NullityTooLargeError("planted: gauss refuses every board, as above its max_nullity")


@pytest.mark.needs("pycryptosat")
def test_when_gauss_does_not_answer_the_majority_is_the_reference(monkeypatch):
    monkeypatch.setitem(BACKENDS, "gauss", FunctionBackend("gauss", refusing_gauss))
    monkeypatch.setitem(BACKENDS, "heaviest", FunctionBackend("heaviest", heaviest))
    monkeypatch.setitem(STRATEGIES, "heaviest", Strategy("heaviest", "heaviest", {}, "planted fault"))
    st = compare_strategies(["sat-xor", "cpsat", "heaviest"], ["all-lit"], sizes=[4], time_limit=10.0,
                            isolate=False)
    assert [(r.strategy, r.flag) for r in st.runs if r.flag] == [("heaviest", "disagrees with most strategies (4)")]
    # two strategies, two answers: no majority, both are flagged
    st = compare_strategies(["sat-xor", "heaviest"], ["all-lit"], sizes=[4], time_limit=10.0, isolate=False)
    assert {r.strategy: r.flag for r in st.runs} == {
        n: "strategies disagree (12, 4) and gauss does not answer" for n in ("sat-xor", "heaviest")}


def test_time_out_leaves_the_rest_of_the_family_not_run():
    st = compare_strategies(["gauss", "cpsat"], ["random"], sizes=[12, 14], boards=1, time_limit=1e-6,
                            isolate=False)
    statuses = {(r.strategy, r.n): r.status for r in st.runs}
    assert statuses[("cpsat", 12)] == "UNKNOWN" and statuses[("cpsat", 14)] == "not run"
    assert statuses[("gauss", 14)] == "OPTIMAL"
    row = next(r for r in st.summary() if r["strategy"] == "cpsat")
    assert (row["time_outs"], row["not_run"], row["solved"]) == (1, 1, 0)


# --- flipgame study: structure and options -----------------------------------------------------------


def test_study_5x5_distribution_by_cosets():
    r = flipgame("study", "--size", "5x5", "--goal", "white", "--json")
    data = json.loads(r.stdout)
    assert (data["rank"], data["nullity"], data["largest_minimum"]) == (23, 2, 15)
    assert len(data["distribution"]) == 16 and sum(data["distribution"]) == 2**23
    assert data["distribution"][:3] == [1, 25, 300] and data["distribution"][15] == 7350
    assert "cosets" in data["distribution_note"] or "bfs" in data["distribution_note"]
    r = flipgame("study", "--size", "5x5", "--goal", "white", "--wrap")
    assert "Largest minimum: 8" in r.stdout and "nullity 8" in r.stdout and "1920" in r.stdout


@pytest.mark.parametrize("game", [Game(4, 4), Game(3, 5, "black", wrap=True), Game(4, 5, "any", neighbourhood="king"),
                                  Game(2, 7, "white", neighbourhood="stencil", stencil=((0, 0), (0, 2))),
                                  Game(4, 4, "white", wrap=True)], ids=lambda g: g.rules)
def test_coset_enumeration_equals_the_bfs_table(game):
    table = bfs.distance_table(game)
    assert coset_distribution(game) == np.bincount(table[table != bfs.UNREACHABLE]).tolist()


def test_distribution_at_nullity_zero_is_binomial():
    counts, note = distribution(Game(6, 6, "white"))
    assert counts[18] == 9075135300 and sum(counts) == 2**36 and "nullity 0" in note
    counts, note = distribution(Game(7, 7, "any"))  # min of two press sets per board: no closed form
    assert counts is None and "too many to enumerate" in note
    counts, note = distribution(Game(4, 7, "any"))  # nullity 0, 28 cells: enumerated
    assert sum(counts) == 2**28 and "cosets" in note


@pytest.mark.parametrize("n, k", [(19, 16), (39, 32), (59, 22), (60, 0)])
def test_study_gives_the_nullity_of_large_boards(n, k):
    r = flipgame("study", "--size", f"{n}x{n}", "--goal", "white", "--json")
    data = json.loads(r.stdout)
    assert (r.returncode, data["nullity"], data["rank"]) == (0, k, n * n - k)


def test_study_passes_backend_options_and_notes_refusals():
    r = flipgame("study", "--size", "6x6", "--goal", "white", "--backends", "bfs,sat", "--sample", "4",
                 "--time-limit", "2", "--sat-engine", "cnf", "--json")
    data = json.loads(r.stdout)
    assert r.returncode == 0 and set(data["backend_seconds_per_board"]) == {"sat"}
    assert "refused" in data["backend_notes"]["bfs"] and "at most" in data["backend_notes"]["bfs"]
    r = flipgame("study", "--size", "4x4", "--backends", "sat", "--sat-engine", "bogus")
    assert r.returncode == 2 and "engine" in r.stderr and "Traceback" not in r.stderr
    r = flipgame("study", "--size", "4x4", "--backends", "gauss", "--sat-engine", "cnf")
    assert r.returncode == 2 and "applies to backend sat" in r.stderr


@pytest.mark.parametrize("args, words", [
    (["--strategies", "nope"], "unknown strategy 'nope'"),
    (["--strategies", "gauss", "--size", "4x4", "--families", "random"], "choose generated ones: give one or"),
    (["--strategies", "gauss", "--rules", "/nonexistent.json"], "cannot read --rules /nonexistent.json"),
    (["--strategies", "gauss", "--sat-engine", "cnf"], "--sat-engine do not apply"),
    (["--strategies", "gauss", "--families", "random,moon"], "unknown family 'moon'; valid: all or random"),
    (["--strategies", "gauss", "--sizes", "4,x"], "board sides"),
    (["--strategies", "gauss", "--budget", "0"], "positive number of seconds"),
    (["--sizes", "4,5"], "--sizes needs --strategies"),
])
def test_strategies_bad_options_are_one_line(args, words):
    r = flipgame("study", *args)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr


@pytest.mark.needs("matplotlib", "pycryptosat")
def test_small_strategies_run_writes_json_and_png(tmp_path):
    png = tmp_path / "strategies.png"
    r = flipgame("study", "--strategies", "gauss,sat-xor,cpsat", "--families", "random,torus", "--sizes", "3,4",
                 "--boards", "2", "--time-limit", "10", "--in-process", "--json", "--plot", str(png))
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["disagreements"] == 0 and data["time_limit"] == 10.0 and data["budget"] == 600.0
    assert len(data["runs"]) == 2 * 2 * 2 * 3 and all(run["status"] == "OPTIMAL" for run in data["runs"])
    rows = {(row["strategy"], row["family"]): row for row in data["summary"]}
    assert rows[("sat-xor", "torus")]["solved"] == 4 and rows[("cpsat", "random")]["largest_n_solved"] == 4
    assert data["measured"] == "in-process" and data["environment"]["machine"]["cores"] >= 1
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    assert "[24/24] torus 4x4 board 1: cpsat: OPTIMAL" in r.stderr


def test_families_draw_solvable_boards_of_their_rules():
    rng = np.random.default_rng(0)
    for fam in FAMILIES.values():
        g = fam.game(6)
        for b in fam.boards(g, rng, 3):
            assert solve_gate("gauss" if g.states else "bfs", g, b).status is Status.OPTIMAL

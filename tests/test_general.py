"""The general game: press systems over Z_k and counters, on every backend that takes them."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from flipgame.algebra.zk import diagonalise, kernel_elements
from flipgame.backends.result import Status
from flipgame.core.errors import BoardTooLargeError, NullityTooLargeError, RefusedError, RulesError
from flipgame.formats.press import poj1830_answer, read_aoc2025_10, read_poj1830
from flipgame.gate.general import SYSTEM_BACKENDS, refusal, solve_system, solve_system_batch, takers, who_takes
from flipgame.model.grid import Game
from flipgame.model.system import from_edges, from_game, from_json, read_edge_list
from flipgame.verify.checks.witness import check_system_certificate, check_system_solution

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LO2000 = from_game(Game(5, 5), states=3, goal="0")
MODEL_BACKENDS = ("cpsat", "ilp", "ilp-highs")
POJ1830_SAMPLE = """2
3
0 0 0
1 1 1
1 2
1 3
2 1
2 3
3 1
3 2
0 0
3
0 0 0
1 0 1
1 2
2 1
0 0
"""
AOC_EXAMPLE = """[.##.] (3) (1,3) (2) (2,3) (0,2) (0,1) {3,5,4,7}
[...#.] (0,2,3,4) (2,3) (0,4) (0,1,2) (1,2,3,4) {7,5,12,7,2}
[.###.#] (0,1,2,3,4) (0,3,4) (0,1,2,4,5) (1,2) {10,11,11,5,10,5}
"""


@pytest.mark.parametrize("backend", [b for b in SYSTEM_BACKENDS if b not in ("bfs", "sat")])
@pytest.mark.parametrize(("state", "moves"), [(1, 18), (2, 21)])
def test_lights_out_2000(backend, state, moves):
    board = (state,) * 25
    sol = solve_system(LO2000, board, backend)
    assert sol.moves == moves
    assert check_system_solution(LO2000, board, sol) is None


def test_lights_out_2000_nullity_and_bfs_refusal():
    assert diagonalise(LO2000.matrix, 3).nullity == 3
    assert takers(LO2000) == ["gauss", "cpsat", "ilp", "ilp-highs"]
    # the hints are computed from the backends that take the system: gauss, cpsat and ilp, never bfs
    assert refusal("bfs", LO2000) == ("bfs: 3^25 states are over its 1,073,741,824-state table; gauss, cpsat and "
                                      "ilp take it")
    assert refusal("sat", LO2000) == "sat: only two-state games have a sat model, not 3 states; gauss, cpsat and ilp " \
                                     "take it"
    with pytest.raises(RefusedError, match="; gauss, cpsat and ilp take it$"):
        solve_system(LO2000, (1,) * 25, "sat")


def test_poj1830_sample():
    answers = [poj1830_answer(solve_system(s, b, "gauss").stats["solutions"])
               for _, s, b in read_poj1830(POJ1830_SAMPLE.splitlines())]
    assert answers == ["4", "Oh,it's impossible~!!"]


@pytest.mark.parametrize("backend", ["gauss", "bfs", "sat", *MODEL_BACKENDS])
def test_aoc_part1(backend):
    machines = list(read_aoc2025_10(AOC_EXAMPLE.splitlines(), part=1))
    sols = [solve_system(s, b, backend) for _, s, b in machines]
    assert [s.moves for s in sols] == [2, 3, 2]
    assert all(check_system_solution(s, b, sol) is None for (_, s, b), sol in zip(machines, sols, strict=True))


@pytest.mark.parametrize("backend", ["bfs", *MODEL_BACKENDS])
def test_aoc_part2_counters(backend):
    machines = list(read_aoc2025_10(AOC_EXAMPLE.splitlines(), part=2))
    sols = [solve_system(s, b, backend) for _, s, b in machines]
    assert [s.moves for s in sols] == [10, 12, 11]
    assert all(check_system_solution(s, b, sol) is None for (_, s, b), sol in zip(machines, sols, strict=True))


def test_counters_refused_by_gauss():
    _, system, board = next(read_aoc2025_10(AOC_EXAMPLE.splitlines(), part=2))
    with pytest.raises(RefusedError, match="; bfs, cpsat and ilp take it$"):
        solve_system(system, board, "gauss")
    # AoC part 2 (counters): sat's hint names the backends that take counters, and gauss is not one
    assert refusal("sat", system) == "sat: only two-state games have a sat model, not counters; bfs, cpsat and " \
                                     "ilp take it"
    assert refusal("gauss", system) is not None and refusal("cpsat", system) is None


def test_who_takes_is_computed():
    two = from_game(Game(3, 3), states=2, goal="0")
    assert who_takes(two) == "gauss, bfs, cpsat, ilp and sat take it"
    assert who_takes(two, "ilp-highs") == "gauss, bfs, cpsat and sat take it"  # ilp-highs is ilp on the command line
    assert refusal("maxsat", two) == "maxsat: no press-system model; gauss, bfs, cpsat, ilp and sat take it"
    assert refusal("gauss", two) is None and takers(two, ["sat", "maxsat"]) == ["sat"]


def test_board_refusals_get_the_computed_hint():
    # 4x4 plus mod 2: a coset of 16 press vectors x 16 buttons is over a budget of 100 entries
    system = from_game(Game(4, 4), states=2, goal="0")
    with pytest.raises(NullityTooLargeError) as exc:
        solve_system(system, (0,) * 16, "gauss", max_enumerated=100)
    assert str(exc.value) == ("gauss: the solution coset has 16 press vectors (16 buttons), over the 100-entry "
                              "enumeration budget; bfs, cpsat, ilp and sat take it")
    with pytest.raises(NullityTooLargeError, match="; bfs, cpsat, ilp and sat take it$"):
        solve_system_batch(system, np.zeros((2, 16), dtype=np.int64), "gauss", max_enumerated=100)
    counters = from_json({"cells": 2, "states": "counters", "buttons": [[0], [1]]}, goal="board",
                         target=(20_000, 20_000))
    with pytest.raises(BoardTooLargeError) as exc:
        solve_system(counters, (0, 0), "bfs")
    assert str(exc.value) == ("bfs: the counter box has 400,040,001 states, over its 268,435,456-state table; "
                              "cpsat and ilp take it")


@pytest.mark.parametrize("backend", ["gauss", "bfs", "cpsat", "ilp", "sat"])
def test_merlin(backend):
    ring = (1, 1, 1, 1, 0, 1, 1, 1, 1)
    system = from_json((EXAMPLES / "merlin.json").read_text(), goal="board", target=ring)
    assert solve_system(system, (0,) * 9, backend).moves == 8
    assert solve_system(system, (1,) + (0,) * 8, backend).moves == 4


def _all_boards(k: int, n: int) -> np.ndarray:
    return np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64)


def test_study_3x3_mod3_distribution():
    system = from_game(Game(3, 3), states=3, goal="0")
    batch = solve_system_batch(system, _all_boards(3, 9), "gauss")
    assert (batch.status == Status.OPTIMAL).all()  # nullity 0: every board solvable
    assert np.bincount(batch.moves).tolist() == [1, 9, 45, 156, 414, 882, 1554, 2304, 2907, 3139, 2907, 2304,
                                                 1554, 882, 414, 156, 45, 9, 1]


@pytest.mark.parametrize(("k", "goal"), [(3, "any"), (4, "0"), (4, "any"), (6, "0")])
def test_gauss_agrees_with_bfs_on_every_3x3_board(k, goal):
    system = from_game(Game(3, 3), states=k, goal=goal)
    boards = _all_boards(k, 9) if k ** 9 <= 300_000 else np.random.default_rng(0).integers(0, k, (20_000, 9))
    g = solve_system_batch(system, boards, "gauss")
    b = solve_system_batch(system, boards, "bfs", witnesses=False)
    assert (g.status == b.status).all() and (g.moves == b.moves).all()
    for i in range(0, len(boards), 997):
        assert check_system_solution(system, tuple(boards[i]), g[i]) is None


def test_composite_impossible_has_checked_certificate():
    # 4x4 plus over Z_4: kernel of 64 press vectors, so 3/4 of the boards... some boards are unsolvable
    system = from_game(Game(4, 4), states=4, goal="0")
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(200):
        board = tuple(int(v) for v in rng.integers(0, 4, 16))
        g = solve_system(system, board, "gauss")
        if g.status is Status.INFEASIBLE:
            seen += 1
            for t, cert in g.certificates.items():
                assert check_system_certificate(system, board, t, cert) is None
                assert check_system_certificate(system, board, t, (0,) * 16) is not None
    assert seen > 0


def test_diagonal_form_counts_kernel_by_brute_force():
    rng = np.random.default_rng(2)
    for _ in range(100):
        k, n, m = int(rng.integers(2, 10)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        a = rng.integers(0, k, (n, m))
        d = diagonalise(a, k)
        allx = np.array(list(itertools.product(range(k), repeat=m)))
        assert ((allx @ a.T) % k == 0).all(axis=1).sum() == d.kernel_size == len(kernel_elements(d))


def test_grid_k2_matches_the_grid_game():
    from flipgame import solve

    system = from_game(Game(4, 4))  # goal any
    board = (0, 1, 1, 1) + (0,) * 12  # the seed's trap: wbbb / wwww / ...
    assert solve_system(system, board, "gauss").status is Status.INFEASIBLE
    assert solve(["bwwb", "bbwb", "bwwb", "bwww"]).moves == 4
    rows = "bwwb bbwb bwwb bwww".replace(" ", "")
    assert solve_system(system, tuple(int(c == "b") for c in rows), "bfs").moves == 4


def test_graph_readers():
    path = from_edges(3, [(0, 1), (1, 2)], closed=True, states=2, goal="0")
    assert solve_system(path, (1, 1, 0), "gauss").moves == 1  # press vertex 0
    opened = read_edge_list("open\n0 1\n1 2", goal="0")
    assert opened.buttons[1] == ((0, 1), (2, 1))
    with pytest.raises(RulesError, match="outside"):
        from_edges(2, [(0, 5)])


def test_json_errors_name_the_key():
    with pytest.raises(RulesError, match="unknown key"):
        from_json('{"cells": 2, "buttons": [[0]], "colour": 3}')
    with pytest.raises(RulesError, match="amounts"):
        from_json('{"cells": 2, "buttons": [[0, 1]], "amounts": [[1]]}')
    with pytest.raises(RulesError, match="button 0 names cell 5"):
        from_json('{"cells": 2, "buttons": [[5]]}')


def test_witness_check_rejects_a_wrong_answer():
    from flipgame.backends.system_result import SystemSolution

    board = (1,) * 25
    good = solve_system(LO2000, board, "gauss")
    bad = SystemSolution("x", Status.OPTIMAL, good.moves, (0,) * 24 + (good.moves,), good.target)
    assert check_system_solution(LO2000, board, bad) is not None


def test_sat_agrees_with_gauss_on_two_state_systems():
    rng = np.random.default_rng(3)
    for _ in range(30):
        cells, m = int(rng.integers(2, 7)), int(rng.integers(1, 7))
        buttons = [sorted({int(c) for c in rng.integers(0, cells, int(rng.integers(1, cells + 1)))})
                   for _ in range(m)]
        system = from_json({"cells": cells, "buttons": buttons}, goal=str(int(rng.integers(0, 2))))
        board = tuple(int(v) for v in rng.integers(0, 2, cells))
        g, s = solve_system(system, board, "gauss"), solve_system(system, board, "sat")
        assert (g.status, g.moves) == (s.status, s.moves)
        assert check_system_solution(system, board, s) is None


def test_json_edges_directed_is_poj1830_case_one():
    system = from_json({"cells": 3, "edges": [[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]], "directed": True},
                       goal="board", target=(1, 1, 1))
    assert solve_system(system, (0, 0, 0), "gauss").stats["solutions"] == 4
    opened = from_json({"cells": 2, "edges": [[0, 1]], "neighbourhood": "open"})
    assert opened.buttons == (((1, 1),), ((0, 1),))

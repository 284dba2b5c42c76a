"""The general game: press systems over Z_k and counters, through the one gate, on every backend that takes them."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from conftest import missing_library, missing_program

from flipgame import BACKENDS, Solution, solve, solve_batch
from flipgame.algebra.zk import diagonalise, kernel_elements
from flipgame.backends.registry import taken_by
from flipgame.backends.result import Status
from flipgame.core.errors import BoardTooLargeError, RefusedError, RulesError
from flipgame.formats.aoc2025_10 import read_aoc2025_10
from flipgame.formats.poj1830 import poj1830_answer, read_poj1830
from flipgame.model.grid import Game
from flipgame.model.puzzles import AOC2025_10, MERLIN, MERLIN_RING
from flipgame.model.rules import from_edges, from_json, read_edge_list
from flipgame.verify.checks.certificates import check_certificate
from flipgame.verify.checks.referee import check_impossible
from flipgame.verify.checks.witness import check_batch, check_solution

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LO2000 = Game(5, 5, "0", states=3)
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
AOC_EXAMPLE = "".join(line + "\n" for line in AOC2025_10)


def highs(board, game):
    return solve(board, "ilp", game=game, solver="HIGHS")


@pytest.mark.parametrize("backend", ["gauss", "cpsat", "ilp", "auto"])
@pytest.mark.parametrize(("state", "moves"), [(1, 18), (2, 21)])
def test_lights_out_2000(backend, state, moves):
    board = (state,) * 25
    sol = solve(board, backend, game=LO2000)
    assert sol.moves == moves
    assert check_solution(LO2000, board, sol) is None


def test_lights_out_2000_with_highs():
    assert highs((1,) * 25, LO2000).moves == 18


@pytest.mark.needs("numba", "pycryptosat")
def test_lights_out_2000_nullity_and_refusals_name_who_takes_it():
    assert diagonalise(LO2000.matrix, 3).nullity == 3
    assert taken_by(LO2000) == ["gauss", "cpsat", "ilp", "auto"]
    with pytest.raises(RefusedError) as exc:
        solve((1,) * 25, "bfs", game=LO2000)
    assert str(exc.value) == ("bfs: 3^25 states are over its 1,073,741,824-state table; taken by: gauss, cpsat, "
                              "ilp, auto")
    with pytest.raises(RefusedError) as exc:
        solve((1,) * 25, "sat", game=LO2000)
    assert str(exc.value) == ("sat models two states only, not 3 states (Z_3); taken by: gauss, cpsat, ilp, auto")


def test_poj1830_sample():
    answers = [poj1830_answer(solve(b, "gauss", game=s).stats["solutions"])
               for _, s, b in read_poj1830(POJ1830_SAMPLE.splitlines())]
    assert answers == ["4", "Oh,it's impossible~!!"]


@pytest.mark.parametrize("backend", ["gauss", "bfs", "sat", "cpsat", "ilp", "mip", "auto"])
def test_aoc_part1(backend):
    machines = list(read_aoc2025_10(AOC_EXAMPLE.splitlines(), part=1))
    sols = [solve(b, backend, game=s) for _, s, b in machines]
    assert [s.moves for s in sols] == [2, 3, 2]
    assert all(check_solution(s, b, sol) is None for (_, s, b), sol in zip(machines, sols, strict=True))


@pytest.mark.parametrize("backend", ["bfs", "cpsat", "ilp", "auto"])
def test_aoc_part2_counters(backend):
    machines = list(read_aoc2025_10(AOC_EXAMPLE.splitlines(), part=2))
    sols = [solve(b, backend, game=s) for _, s, b in machines]
    assert [s.moves for s in sols] == [10, 12, 11]
    assert all(check_solution(s, b, sol) is None for (_, s, b), sol in zip(machines, sols, strict=True))


@pytest.mark.needs("pycryptosat")
def test_counters_refused_by_gauss_and_sat_naming_who_takes_them():
    _, system, board = next(read_aoc2025_10(AOC_EXAMPLE.splitlines(), part=2))
    with pytest.raises(RefusedError, match="; taken by: bfs, cpsat, ilp, auto$"):
        solve(board, "gauss", game=system)
    with pytest.raises(RefusedError) as exc:
        solve(board, "sat", game=system)
    assert str(exc.value) == ("sat models two states only, not counters (integer programs); taken by: bfs, cpsat, "
                              "ilp, auto")


@pytest.mark.needs("pycryptosat")
def test_a_two_state_system_is_taken_by_every_two_state_backend():
    two = Game(3, 3, "white")
    assert taken_by(two) == ["gauss", "bfs", "cpsat", "sat", "ilp", "auto"]  # the opt-in ones are no hint


def test_a_board_refusal_gets_the_computed_hint():
    counters = from_json({"cells": 2, "states": "counters", "buttons": [[0], [1]], "goal": "board",
                          "target": [20_000, 20_000]})
    with pytest.raises(BoardTooLargeError) as exc:
        solve((0, 0), "bfs", game=counters)
    assert str(exc.value).startswith("bfs: the counter box has 400,040,001 states, over its 268,435,456-state table")


def test_the_merlin_example_file_is_the_reference_puzzle():
    import json

    assert json.loads((EXAMPLES / "merlin.json").read_text()) == MERLIN


@pytest.mark.parametrize("backend", ["gauss", "bfs", "cpsat", "ilp", "sat", "mip", "auto"])
def test_merlin(backend):
    system = from_json(MERLIN).with_goal("board", MERLIN_RING)
    assert solve(0, backend, game=system).moves == 8
    assert solve(1, backend, game=system).moves == 4


def _all_boards(k: int, n: int) -> np.ndarray:
    return np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64)


def test_study_3x3_mod3_distribution():
    system = Game(3, 3, "0", states=3)
    batch = solve_batch(_all_boards(3, 9), system, "gauss")
    assert (batch.status == Status.OPTIMAL).all()  # nullity 0: every board solvable
    assert np.bincount(batch.moves).tolist() == [1, 9, 45, 156, 414, 882, 1554, 2304, 2907, 3139, 2907, 2304,
                                                 1554, 882, 414, 156, 45, 9, 1]


@pytest.mark.parametrize(("k", "goal"), [(3, "any"), (4, "0"), (4, "any"), (6, "0")])
def test_gauss_agrees_with_bfs_on_every_3x3_board(k, goal):
    system = Game(3, 3, goal, states=k)
    boards = _all_boards(k, 9) if k ** 9 <= 300_000 else np.random.default_rng(0).integers(0, k, (20_000, 9))
    g = solve_batch(boards, system, "gauss")
    b = BACKENDS["bfs"].solve_batch(system, boards, witnesses=False)
    assert (g.status == b.status).all() and (g.moves == b.moves).all()
    assert not check_batch(system, g).any()


def test_composite_impossible_has_checked_certificate():
    system = Game(4, 4, "0", states=4)  # over Z_4 some boards are unsolvable
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(200):
        board = tuple(int(v) for v in rng.integers(0, 4, 16))
        g = solve(board, "gauss", game=system)
        if g.status is Status.INFEASIBLE:
            seen += 1
            assert check_impossible(system, board, g) is None
            for t, cert in g.certificates.items():
                assert check_certificate(system, board, t, cert) is None
                assert check_certificate(system, board, t, (0,) * 16) is not None
    assert seen > 0


@pytest.mark.parametrize("backend", ["bfs", "cpsat", "ilp"])
def test_every_impossible_over_z_k_carries_a_certificate_the_model_checks(backend):
    system = Game(1, 2, "0", states=4)  # both buttons add 1 to both cells: unequal cells never meet
    boards = [b for b in itertools.product(range(4), repeat=2)
              if solve(b, "gauss", game=system).status is Status.INFEASIBLE]
    assert len(boards) == 12
    for b in boards:
        s = solve(b, backend, game=system)
        assert s.status is Status.INFEASIBLE and s.certificates
        assert check_impossible(system, b, s) is None


def test_diagonal_form_counts_kernel_by_brute_force():
    rng = np.random.default_rng(2)
    for _ in range(100):
        k, n, m = int(rng.integers(2, 10)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        a = rng.integers(0, k, (n, m))
        d = diagonalise(a, k)
        allx = np.array(list(itertools.product(range(k), repeat=m)))
        assert ((allx @ a.T) % k == 0).all(axis=1).sum() == d.kernel_size == len(kernel_elements(d))


def test_a_grid_is_a_press_system():
    game = Game(4, 4)
    assert game.buttons[0] == ((0, 1), (1, 1), (4, 1)) and game.m == game.n == 16
    assert solve(14, "gauss", game=game).status is Status.INFEASIBLE  # the seed's trap: wbbb / wwww / ...
    explicit = from_json({"grid": "4x4", "buttons": [[c for c, _ in b] for b in game.buttons]})
    assert explicit.press_masks == game.press_masks
    assert solve(0b0001100110111001, "bfs", game=explicit).moves == 4


def test_graph_readers():
    path = from_edges(3, [(0, 1), (1, 2)], closed=True, states=2, goal="white")
    assert solve(0b011, "gauss", game=path).moves == 1  # press vertex 0
    opened = read_edge_list("open\n0 1\n1 2", goal="white")
    assert opened.buttons[1] == ((0, 1), (2, 1))
    with pytest.raises(RulesError, match="outside"):
        from_edges(2, [(0, 5)])


@pytest.mark.parametrize("backend", ["gauss", "bfs", "cpsat", "ilp", "auto"])
def test_an_isolated_vertex_of_the_open_neighbourhood_is_a_button_that_does_nothing(backend):
    """It was refused ("vertex 2 changes no cell"), while the same empty button written as JSON was taken."""
    opened = from_edges(3, [(0, 1)], closed=False, goal="white")
    as_json = from_json('{"cells": 3, "buttons": [[1], [0], []], "goal": "white"}')
    assert opened.buttons == as_json.buttons == (((1, 1),), ((0, 1),), ())
    assert solve(0b011, backend, game=opened).moves == 2  # press 0 and 1; vertex 2 cannot help
    assert solve(0b100, backend, game=opened).answer() == "Impossible"


def test_json_errors_name_the_key():
    with pytest.raises(RulesError, match="unknown key"):
        from_json('{"cells": 2, "buttons": [[0]], "colour": 3}')
    with pytest.raises(RulesError, match="amounts"):
        from_json('{"cells": 2, "buttons": [[0, 1]], "amounts": [[1]]}')
    with pytest.raises(RulesError, match="button 0 names cell 5"):
        from_json('{"cells": 2, "buttons": [[5]]}')


def test_witness_check_rejects_a_wrong_answer():
    board = (1,) * 25
    good = solve(board, "gauss", game=LO2000)
    bad = Solution("x", Status.OPTIMAL, good.moves, (0,) * 24 + (good.moves,), good.target)
    assert check_solution(LO2000, board, bad) is not None


@pytest.mark.needs("pycryptosat")
def test_sat_agrees_with_gauss_on_two_state_systems():
    rng = np.random.default_rng(3)
    for _ in range(30):
        cells, m = int(rng.integers(2, 7)), int(rng.integers(1, 7))
        buttons = [sorted({int(c) for c in rng.integers(0, cells, int(rng.integers(1, cells + 1)))})
                   for _ in range(m)]
        system = from_json({"cells": cells, "buttons": buttons, "goal": str(int(rng.integers(0, 2)))})
        board = int(rng.integers(0, 1 << cells))
        g, s = solve(board, "gauss", game=system), solve(board, "sat", game=system)
        assert (g.status, g.moves) == (s.status, s.moves)
        assert check_solution(system, board, s) is None


def test_json_edges_directed_is_poj1830_case_one():
    system = from_json({"cells": 3, "edges": [[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]], "directed": True,
                        "goal": "board", "target": [1, 1, 1]})
    assert solve(0, "gauss", game=system).stats["solutions"] == 4
    opened = from_json({"cells": 2, "edges": [[0, 1]], "neighbourhood": "open"})
    assert opened.buttons == (((1, 1),), ((0, 1),))


def test_a_cell_no_button_changes_is_written_in_every_format_and_answered_by_every_backend():
    """Cell 1 of ``{cells 2, buttons [[0]]}`` never changes: board 10 (goal white) is Impossible, board 01 needs
    one press.  Every exchange format states the empty row (the empty clause, or ``2 y = 1`` in OPB)."""
    from flipgame.encode.export import FORMATS, export

    system = from_json({"cells": 2, "buttons": [[0]], "goal": "white"})
    stuck = {fmt: [ln for ln in export(fmt, system, 0b10).splitlines() if ln[:1] not in ("c", "*", "\\")]
             for fmt in FORMATS}
    assert stuck["cnf"] == ["p cnf 1 2", "-1 0", "0"] and stuck["xcnf"] == ["p cnf 1 2", "x-1 0", "0"]
    assert "h 0" in [" ".join(ln.split()) for ln in stuck["wcnf"]]
    assert stuck["opb"][-1] == "+2 x2 = 1 ;" and stuck["opb-xor"][-1] == "+2 x2 = 1 ;"
    free = [ln for ln in export("cnf", system, 0b01).splitlines() if not ln.startswith("c")]
    assert free == ["p cnf 1 1", "1 0"]
    for name in BACKENDS:
        if missing_program(name) or missing_library(name):
            continue
        s = solve(0b10, name, game=system)
        assert s.status is Status.INFEASIBLE and check_impossible(system, 0b10, s) is None, name
        assert solve(0b01, name, game=system).moves == 1, name


def test_another_goal_shares_the_checked_buttons_and_the_elimination():
    """A stream of machines with one set of buttons and many targets (aoc2025-10, poj1830) checks the buttons
    once and eliminates once; the goal and target are still checked."""
    from flipgame import PressSystem
    from flipgame.algebra.gf2 import eliminate

    system = from_json(MERLIN)
    masks = system.press_masks
    ring = system.with_goal("board", MERLIN_RING)
    assert ring.buttons is system.buttons and ring.press_masks is masks and ring.target == 0b111101111
    other = system.with_goal("board", (1,) * 9)
    assert eliminate(ring) is eliminate(other) is eliminate(system.with_goal("white"))
    assert eliminate(ring).nullity == 0 and type(ring) is PressSystem
    with pytest.raises(RulesError, match=r"^target is not a board of 3x3: expected a bitmask 0..2\*\*9-1 or 9"):
        system.with_goal("board", (2,) * 9)


def test_buttons_of_numpy_integers_are_taken_and_a_bool_is_no_cell():
    assert PressSystem_of([[(np.int64(1), np.int8(3))]], states=3).buttons == ((),)
    assert PressSystem_of([[(np.int64(1), np.int8(2))]], states=3).buttons == (((1, 2),),)
    with pytest.raises(RulesError, match=r"^button 0 names cell True; cells are 0..1$"):
        PressSystem_of([[(True, 1)]])
    with pytest.raises(RulesError, match=r"^button 0 names cell 5; cells are 0..1$"):
        PressSystem_of([[(5, "a")]])
    with pytest.raises(RulesError, match=r"^button 0 adds 'a' to cell 1; amounts are 0..2147483647$"):
        PressSystem_of([[(1, "a")]])


def PressSystem_of(buttons, states=2):
    from flipgame import PressSystem

    return PressSystem(2, buttons, states)


def test_the_structure_study_takes_every_k_state_press_system():
    """Over Z_4 the 4x4 plus board's kernel has 64 press vectors (two generators of order 4, two of order 2):
    the study lists generators that each change nothing and together make 64 vectors."""
    from flipgame.study.structure import study

    st = study(Game(4, 4, "0", states=4))
    assert (st.rank, st.nullity, st.kernel_size, st.solvable_boards, st.total_boards) == (12, 2, 64, 2**26, 4**16)
    zero = (0,) * 16
    assert len(st.quiet_patterns) == 4 and all(st.game.apply(zero, q) == zero and any(q) for q in st.quiet_patterns)
    group = {zero}
    for q in st.quiet_patterns:
        group = {tuple((a + t * b) % 4 for a, b in zip(g, q, strict=True)) for g in group for t in range(4)}
    assert len(group) == 64
    six = study(PressSystem_of6())
    assert (six.solvable_boards, six.total_boards, six.kernel_size, six.distribution) == (6, 216, 36, [6])
    assert six.to_json()["quiet_patterns"] == [["buttons 0 (x5), 1"], ["buttons 0 (x5), 2"]]
    big = study(Game(30, 30, "0", states=3)).to_json()
    assert (big["total_boards"], big["solvable_boards"], big["distribution"]) == ("3**900", "3**900", None)
    with pytest.raises(RulesError, match="counters have no finite board set"):
        study(from_json({"cells": 2, "states": "counters", "buttons": [[0], [1]], "goal": "1"}))


def PressSystem_of6():
    """The triangle graph over Z_6: every button adds 1 to all three cells."""
    from flipgame import PressSystem

    return PressSystem(3, [[(0, 1), (1, 1), (2, 1)]] * 3, 6)

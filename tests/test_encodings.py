"""The SAT and ILP encodings themselves, and their solver-name options."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import POJ_SAMPLE, board, solve_gate

from flipgame import Game, OptionError, Status, solve, solve_batch
from flipgame.backends import sat
from flipgame.backends.sat import SatModel
from flipgame.encode.parity import xor_chain, xor_clauses


def models_of(clauses, primary):
    """Assignments of the primary variables (1..primary) that extend to a model."""
    from pysat.solvers import Solver

    with Solver(name="minisat22", bootstrap_with=clauses) as s:
        return {
            bits for bits in itertools.product((0, 1), repeat=primary)
            if s.solve(assumptions=[v if b else -v for v, b in zip(range(1, primary + 1), bits, strict=True)])
        }


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("rhs", [0, 1])
def test_direct_xor_has_exactly_the_right_models(k, rhs):
    clauses = xor_clauses(list(range(1, k + 1)), rhs)
    assert len(clauses) == 2 ** (k - 1)
    expected = {bits for bits in itertools.product((0, 1), repeat=k) if sum(bits) % 2 == rhs}
    assert models_of(clauses, k) == expected


@pytest.mark.parametrize("k", [3, 5, 6, 7, 9])
def test_cut_xor_chain_has_exactly_the_even_models(k):
    top = [k]

    def new_var():
        top[0] += 1
        return top[0]

    clauses = xor_chain(list(range(1, k + 1)), new_var)
    expected = {bits for bits in itertools.product((0, 1), repeat=k) if sum(bits) % 2 == 0}
    assert models_of(clauses, k) == expected
    assert all(len(c) <= 4 for c in clauses)


@pytest.mark.parametrize("engine", ["xor", "cnf"])
@pytest.mark.needs("exact", "pycryptosat")
def test_one_cell_parity_of_a_4x4_corner(engine):
    # Corner (0,0): presses 0, 1, 4 flip it.  Its XOR with the cell bit and the colour
    # must hold for exactly the assignments where presses + cell + colour is even.
    # The other cells' board bits are free, so they never block an assignment.
    with SatModel(Game(4, 4), engine=engine) as m:
        corner_vars = [m.press[0], m.press[1], m.press[4], m.cell[0], m.colour]
        allowed = set()
        for bits in itertools.product((0, 1), repeat=5):
            assumptions = [v if b else -v for v, b in zip(corner_vars, bits, strict=True)]
            if m.oracle.solve(assumptions, 10.0) is not None:
                allowed.add(bits)
        assert allowed == {bits for bits in itertools.product((0, 1), repeat=5) if sum(bits) % 2 == 0}


def test_sat_cnf_formula_size_4x4():
    # 16 presses + 16 cells + 1 colour + 20 links; 256 clauses (see solvers/sat.py).
    with SatModel(Game(4, 4), engine="cnf") as m:
        assert (m.pool.top, m.oracle.solver.nof_clauses()) == (53, 256)


@pytest.mark.parametrize("solver", sat.SOLVERS)
def test_sat_solver_choice(solver):
    s = solve(board(POJ_SAMPLE), "sat", engine="cnf", solver=solver)
    assert s.moves == 4 and s.stats["sat_calls"] >= 2


@pytest.mark.parametrize("solver", ["SCIP", "HIGHS", "highs"])
def test_ilp_solver_choice(solver):
    s = solve(board(POJ_SAMPLE), "ilp", solver=solver)
    assert s.moves == 4 and s.stats["nodes"] >= 0


@pytest.mark.parametrize("backend, pattern", [("sat", "is not one of glucose3.*minisat22"),
                                              ("ilp", "not one of SCIP, HIGHS")])
def test_unknown_solver_name_lists_the_valid_ones(backend, pattern):
    with pytest.raises(OptionError, match=pattern):
        solve(board(POJ_SAMPLE), backend, solver="ekki-ekki-ekki")


def test_ilp_time_out_is_unknown_never_a_number():
    g = Game(14, 14, goal="white")
    s = solve_gate("ilp", g, (1 << 196) - 1 - 12345, time_limit=0.001)
    assert s.status is Status.UNKNOWN and s.moves is None


@pytest.mark.parametrize("backend", ["sat", "ilp"])
def test_3x5_known_board_agrees_with_gauss(backend):
    g = Game(3, 5)
    rng = np.random.default_rng(35)
    for b in rng.integers(0, 1 << 15, 25):
        assert solve_gate(backend, g, int(b)).answer() == solve_gate("gauss", g, int(b)).answer()
    # All white except the corner L: one press at (0,0) to white.
    corner = (1 << 0) | (1 << 1) | (1 << 5)
    assert solve_gate(backend, g, corner).moves == 1


@pytest.mark.slow
@pytest.mark.parametrize("cardinality", ["kmtotalizer", "seqcounter"])
def test_one_shot_cardinality_on_one_model_stays_right_over_many_boards(cardinality):
    """CryptoMiniSat answered Impossible for solvable 4x4 board 42804 (minimum 5) after about 600
    boards of selector-guarded one-shot encodings on one solver; found by the cross-check."""
    g = Game(4, 4)
    ref = solve_batch(np.arange(1 << 16, dtype=np.uint64), g, "gauss")
    rng = np.random.default_rng(1)
    boards = rng.choice(np.flatnonzero(ref.moves >= 0), 1000, replace=False).astype(np.uint64)
    got = solve_batch(boards, g, "sat", cardinality=cardinality)
    assert np.array_equal(got.moves, ref.moves[boards.astype(np.int64)])

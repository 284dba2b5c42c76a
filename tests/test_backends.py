"""Every backend and every strategy, the same tests: known answers, the seed's trap, witnesses, options.

As scipy's ``LinprogCommonTests`` runs one suite per method, the common tests here run for
every registered backend and every registered strategy (``strategy:<name>``, through
:func:`flipgame.pipeline.gate.solve_strategy`) whose name is not already a backend's."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import POJ_SAMPLE, REFERENCE_TRAP_BOARDS, batch_gate, board, per_board, solve_gate

from flipgame import BACKENDS, Board, Game, Status, UnknownBackendError, get_backend, solve
from flipgame.backends.registry import STRATEGIES
from flipgame.core.errors import BoardTooLargeError, NullityTooLargeError, OptionError
from flipgame.pipeline.gate import solve_strategy
from flipgame.verify.checks.witness import check_solution

METHODS = [*BACKENDS, *(f"strategy:{name}" for name in STRATEGIES if name not in BACKENDS)]
"""Every registered backend, then every registered strategy that is not a backend's default."""


def solve_by(method: str, cells, game: Game | None = None):
    """One board by a backend or a ``strategy:<name>`` of :data:`METHODS`, through the gate."""
    if method.startswith("strategy:"):
        game = game or Game(cells.rows, cells.cols)
        return solve_strategy(method.removeprefix("strategy:"), cells, game, time_limit=10.0)
    return solve(cells, method, game=game)


def backend_of(method: str) -> str:
    return STRATEGIES[method.removeprefix("strategy:")].backend if method.startswith("strategy:") else method


@pytest.mark.parametrize("backend", METHODS)
def test_poj_sample_is_4(backend):
    s = solve_by(backend, board(POJ_SAMPLE))
    assert (s.status, s.moves, s.backend) == (Status.OPTIMAL, 4, backend_of(backend))
    assert s.answer() == "4"
    assert check_solution(Game(), board(POJ_SAMPLE).cells, s) is None


@pytest.mark.parametrize("backend", METHODS)
@pytest.mark.parametrize("colour, target", [("w", 0), ("b", 0xFFFF)])
def test_uniform_board_needs_zero_presses(backend, colour, target):
    s = solve_by(backend, board([colour * 4] * 4))
    assert (s.status, s.moves, s.presses, s.target) == (Status.OPTIMAL, 0, 0, target)


@pytest.mark.parametrize("backend", METHODS)
@pytest.mark.parametrize("rows", REFERENCE_TRAP_BOARDS, ids=lambda r: "/".join(r))
def test_reference_trap_boards_are_impossible(backend, rows):
    s = solve_by(backend, board(rows))
    assert s.status is Status.INFEASIBLE
    assert s.answer() == "Impossible"
    assert (s.moves, s.presses, s.target) == (None, None, None)


KNOWN = [
    (["bwbw", "wwww", "bbwb", "bwwb"], "Impossible"),  # the statement's example board
    (["wwww", "wwww", "wwww", "wwwb"], "Impossible"),  # one black corner
    (["bbww", "bwww", "wwww", "wwww"], "1"),  # press (0,0) on white
    (["wbww", "bbbw", "wbww", "wwww"], "1"),  # press (1,1) on white
    (["wwbb", "bbww", "bbwb", "bbbb"], "2"),  # black after presses (0,1) and (1,2)
    (["wwbw", "wbbb", "wwbw", "wwww"], "1"),
    (["wwbb", "wbbw", "wwwb", "wwww"], "Impossible"),
]


@pytest.mark.parametrize("backend", METHODS)
@pytest.mark.parametrize("rows, answer", KNOWN, ids=lambda v: "/".join(v) if isinstance(v, list) else v)
def test_known_boards(backend, rows, answer, exhaustive):
    b = board(rows)
    assert solve_by(backend, b).answer() == answer
    assert exhaustive["gauss"][b.cells].answer() == answer


@pytest.mark.parametrize("backend", METHODS)
@pytest.mark.parametrize("goal, answer", [("white", "4"), ("black", "4"), ("any", "4")])
def test_fixed_goal_colour(backend, goal, answer):
    g = Game(goal=goal)
    s = solve_by(backend, board(POJ_SAMPLE).cells, g)
    assert s.answer() == answer
    assert s.target in g.targets
    assert check_solution(g, board(POJ_SAMPLE).cells, s) is None


@pytest.mark.parametrize("backend", METHODS)
def test_one_press_from_white_needs_five_for_black(backend):
    b = board(["bbww", "bwww", "wwww", "wwww"]).cells
    assert solve_by(backend, b, Game(goal="white")).moves == 1
    assert solve_by(backend, b, Game(goal="black")).moves == 5


@pytest.mark.parametrize("backend", per_board(METHODS))
def test_witnesses_on_a_fixed_sample(backend, game4, exhaustive):
    rng = np.random.default_rng(1753)
    sample = np.concatenate([rng.choice(np.flatnonzero(exhaustive["gauss"].status == Status.OPTIMAL), 120),
                             rng.integers(0, 1 << 16, 40)]).astype(np.uint64)
    for b in sample:
        s = solve_by(backend, int(b), game4)
        assert check_solution(game4, int(b), s) is None
        assert s.answer() == exhaustive["gauss"][int(b)].answer()
        if s.success:
            after = game4.apply(int(b), s.presses)
            assert after in (0, 0xFFFF) and s.presses.bit_count() == s.moves


@pytest.mark.parametrize("backend", BACKENDS)
def test_batch_equals_single(backend):
    g = Game(3, 4, goal="any")
    rng = np.random.default_rng(3279)
    boards = rng.integers(0, 1 << 12, 60, dtype=np.uint64)
    batch = batch_gate(backend, g, boards)
    for i, b in enumerate(boards):
        single = solve_gate(backend, g, int(b))
        assert (batch[i].status, batch[i].moves) == (single.status, single.moves)
        if backend in ("gauss", "bfs"):  # the solvers may return any of several optimal press sets
            assert batch[i].presses == single.presses


@pytest.mark.parametrize("backend", per_board(BACKENDS))
@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 5), (3, 5), (2, 7), (5, 3)])
def test_rectangular_boards_agree_with_bfs(backend, rows, cols):
    g = Game(rows, cols)
    boards = np.arange(0, 1 << g.n, max(1, (1 << g.n) // 97), dtype=np.uint64)
    ref = batch_gate("bfs", g, boards)
    got = batch_gate(backend, g, boards)
    assert np.array_equal(got.status, ref.status)
    assert np.array_equal(got.moves, ref.moves)


@pytest.mark.parametrize("backend", per_board(BACKENDS))
def test_toroidal_4x4_agrees_with_bfs(backend):
    g = Game(4, 4, wrap=True)
    boards = np.arange(0, 1 << 16, 331, dtype=np.uint64)
    ref = batch_gate("bfs", g, boards)
    got = batch_gate(backend, g, boards)
    assert np.array_equal(got.moves, ref.moves) and np.array_equal(got.status, ref.status)


def test_unknown_backend_lists_valid_names():
    with pytest.raises(UnknownBackendError) as err:
        get_backend("ekki-ekki-ekki")
    for name in BACKENDS:
        assert name in str(err.value)
    with pytest.raises(UnknownBackendError):
        solve(board(POJ_SAMPLE), "ekki-ekki-ekki")


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_option_is_rejected(backend):
    with pytest.raises(TypeError, match="no option colour_blind"):
        solve(board(POJ_SAMPLE), backend, colour_blind=True)


def test_shape_mismatch_is_rejected():
    with pytest.raises(ValueError, match="3x3"):
        solve(board(POJ_SAMPLE), "gauss", game=Game(3, 3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_board_outside_the_game_is_rejected(backend):
    with pytest.raises(ValueError, match="bitmask"):
        solve_gate(backend, Game(2, 2), 16)


def test_bfs_refuses_more_than_30_cells():
    with pytest.raises(BoardTooLargeError, match="at most 30 cells"):
        solve_gate("bfs", Game(6, 6), 0)


def test_gauss_refuses_huge_nullity_and_names_the_option_that_takes_it():
    # 19x19 has nullity 16; with max_nullity=10 gauss must refuse, not guess.
    with pytest.raises(NullityTooLargeError, match="--max-nullity 16"):
        solve_gate("gauss", Game(19, 19), 0, max_nullity=10)


def test_cpsat_time_out_is_unknown_never_a_number():
    # A 12x12 board with a microsecond limit cannot be proved optimal in time.
    g = Game(12, 12, goal="white")
    s = solve_gate("cpsat", g, (1 << 144) - 1 - 12345, time_limit=1e-6)
    assert s.status is Status.UNKNOWN
    assert (s.moves, s.presses) == (None, None)
    assert s.answer() == "Unknown"


def test_cpsat_rejects_bad_time_limit():
    with pytest.raises(OptionError, match=r"time_limit \(--time-limit\) must be finite and > 0"):
        solve_gate("cpsat", Game(), 0, time_limit=0)


def test_gauss_reports_rank_and_nullity():
    s = solve(board(POJ_SAMPLE), "gauss")
    assert (s.stats["rank"], s.stats["nullity"]) == (12, 4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_independent_state_per_case(backend, game4, exhaustive):
    """One model over a mixed sequence (solvable, Impossible, repeats, 0 presses) answers
    each board exactly as a fresh solve does: nothing carries from board to board."""
    ref = exhaustive["gauss"]
    solvable = np.flatnonzero(ref.status == Status.OPTIMAL)[[5, 900, 4000, 17]]
    impossible = np.flatnonzero(ref.status == Status.INFEASIBLE)[[3, 30000]]
    sequence = np.array([solvable[0], impossible[0], 0, solvable[1], solvable[0], 0xFFFF, impossible[1],
                         solvable[2], impossible[0], solvable[3]], dtype=np.uint64)
    batch = batch_gate(backend, game4, sequence)
    for i, b in enumerate(sequence):
        fresh = solve_gate(backend, game4, int(b))
        assert batch[i].answer() == fresh.answer() == ref[int(b)].answer()


@pytest.mark.parametrize("backend", BACKENDS)
def test_scip_aggregation_bug_board_on_the_3x5_torus(backend):
    """SCIP's presolve aggregation proved 7 presses optimal here; the minimum is 6
    (6 to all black: presses ..xx. / ..xx. / x...x).  Found by the agreement check."""
    g = Game(3, 5, wrap=True)
    board = Board.from_rows(["wwwwb", "wwwwb", "bwbwb"]).cells
    assert board == 22032
    s = solve_gate(backend, g, board)
    assert s.moves == 6 and check_solution(g, board, s) is None
    assert g.apply(board, int("".join(reversed("..xx...xx.x...x".replace("x", "1").replace(".", "0"))), 2)) == g.full

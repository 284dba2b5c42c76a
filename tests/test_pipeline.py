"""The one pipeline: boards read once for any press system, the referee on every path, one agreement policy,
structure read from the buttons (a plus grid written as JSON buttons is chased like ``--size``)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from conftest import POJ_SAMPLE, POJ_SAMPLE_CELLS, flipgame

import flipgame as fg
from flipgame import BoardSet, FlipgameError, Game, PressSystem, Solution, Status, from_json, solve
from flipgame.cli import ExitCode
from flipgame.pipeline.decide import charged, charged_rows
from flipgame.verify.checks.referee import Checked, Verdict, referee

MERLIN = {"grid": "3x3", "states": 2,
          "buttons": [[0, 1, 3, 4], [0, 1, 2], [1, 2, 4, 5], [0, 3, 6], [1, 3, 4, 5, 7], [2, 5, 8],
                      [3, 4, 6, 7], [6, 7, 8], [4, 5, 7, 8]]}


def plus_rules(rows: int, cols: int, goal: str = "any") -> dict:
    """A plus grid without wrap written as explicit JSON buttons, as a user might."""
    game = Game(rows, cols)
    return {"grid": f"{rows}x{cols}", "states": 2, "goal": goal, "buttons": [list(game.flipped_by(j))
                                                                           for j in range(game.n)]}


# --- boards are read once, for any press system ----------------------------------------------------------


def test_rows_of_text_solve_any_press_system_with_a_grid_shape():
    merlin = from_json(json.dumps(MERLIN))
    assert solve(["www", "www", "www"], game=merlin).moves == 0
    assert solve(["bbw", "bbw", "www"], game=merlin).moves == 1  # the corner button flips its 2x2 block
    assert solve("110 110 000", game=merlin).moves == 1  # 0/1 rows too


def test_a_tuple_of_states_is_a_board_of_a_two_state_system():
    merlin = from_json(json.dumps(MERLIN))
    assert solve((1, 1, 0, 1, 1, 0, 0, 0, 0), game=merlin).moves == 1
    assert solve([0] * 16, game=Game(4, 4)).moves == 0
    assert solve(tuple(int(c == "b") for row in POJ_SAMPLE for c in row), game=Game(4, 4)).moves == 4


def test_rows_of_states_solve_a_three_state_grid():
    game = Game(3, 3, "0", states=3)
    assert solve(["120", "001", "000"], game=game).presses == solve((1, 2, 0, 0, 0, 1, 0, 0, 0), game=game).presses
    assert solve(["120", "001", "000"], game=game).moves == 12
    assert solve((1, 2, 0, 0, 0, 1, 0, 0, 0), "bfs", game=game).moves == 12


@pytest.mark.parametrize(("board", "game"), [
    (3.5, Game(2, 2)), ("bx ww", None), ([1, 2, 0, 0], Game(2, 2)), (object(), Game(2, 2)), (1 << 4, Game(2, 2)),
    (["bw"], Game(2, 2)), ("bw wb", PressSystem(4, [[(0, 1)]])), (["ww", "ww"], Game(2, 2, "0", states=3)),
    ((1, 0, 0), Game(2, 2)), (True, Game(2, 2)), ("13 00", Game(2, 2, "0", states=3)),
])
def test_every_bad_board_raises_a_flipgame_error(board, game):
    with pytest.raises(FlipgameError):
        solve(board, game=game)


def test_a_board_set_is_checked_once_and_its_parts_are_not_checked_again():
    boards = BoardSet.of(Game(2, 2), [0, 1, 15])
    assert BoardSet.of(Game(2, 2), boards) is boards
    assert [b for b in boards.part(1, 3)] == [1, 15]
    with pytest.raises(FlipgameError, match="not a 2x2 bitmask"):
        BoardSet.of(Game(2, 2), [16])
    assert len(BoardSet.every(Game(2, 2, "0", states=3))) == 81


# --- the referee on every path ---------------------------------------------------------------------------


def test_the_api_never_returns_a_number_the_referee_rejects(monkeypatch):
    """A backend whose witness is wrong: flipgame.solve gives ERROR naming the referee's finding."""
    gauss = fg.BACKENDS["gauss"]

    class Liar(type(gauss)):
        name = "liar-api"

        def solve(self, game, board, **options):
            s = super().solve(game, board, **options)
            return Solution(self.name, Status.OPTIMAL, s.moves, 0, 0) if s.success and s.moves else s

        def solve_batch(self, game, boards, **options):
            out = super().solve_batch(game, boards, **options)
            out.presses[:] = 0  # every witness dropped: only boards already solved stay right
            return out

    monkeypatch.setitem(fg.BACKENDS, "liar-api", Liar())
    got = solve(POJ_SAMPLE, "liar-api")
    assert got.status is Status.ERROR and got.moves is None
    assert got.stats["error"] == ("rejected by the referee: liar-api answered 4, but claims 4 presses but the press "
                                  "set has 0")
    batch = fg.solve_batch([POJ_SAMPLE_CELLS, 0], Game(4, 4), "liar-api")
    assert batch.status.tolist() == [Status.ERROR, Status.OPTIMAL]


def test_a_backend_that_crashes_answers_error_on_every_path(monkeypatch):
    """A backend's exception is its ERROR answer (naming the exception), never a traceback through the API."""
    gauss = fg.BACKENDS["gauss"]

    class Crash(type(gauss)):
        name = "crash-api"

        def solve(self, game, board, **options):
            raise ZeroDivisionError("boom")

        def solve_batch(self, game, boards, **options):
            raise ZeroDivisionError("boom")

    monkeypatch.setitem(fg.BACKENDS, "crash-api", Crash())
    got = solve(POJ_SAMPLE, "crash-api")
    assert got.status is Status.ERROR and got.stats["error"] == "ZeroDivisionError: boom"
    batch = fg.solve_batch([POJ_SAMPLE_CELLS, 0], Game(4, 4), "crash-api")
    assert batch.status.tolist() == [Status.ERROR, Status.ERROR]
    assert batch.stats["errors"] == ["ZeroDivisionError: boom"] * 2


@pytest.mark.parametrize(("answer", "why"), [
    (lambda out: dataclasses.replace(out, **{f: getattr(out, f)[:1] for f in ("boards", "status", "moves",
                                                                              "presses", "target")}),
     "answered 1 of the 2 boards of a batch"),
    (lambda out: dataclasses.replace(out, boards=out.boards ^ np.uint64(1)), "answered other boards"),
    (lambda out: "no batch", "returned str"),
])
def test_a_batch_answering_other_boards_is_all_error(monkeypatch, answer, why):
    """A batch that answers fewer boards, other boards or no BatchSolution gives no number for any board."""
    gauss = fg.BACKENDS["gauss"]

    class Other(type(gauss)):
        name = "other-api"

        def solve_batch(self, game, boards, **options):
            return answer(super().solve_batch(game, boards, **options))

    monkeypatch.setitem(fg.BACKENDS, "other-api", Other())
    batch = fg.solve_batch([POJ_SAMPLE_CELLS, 0], Game(4, 4), "other-api")
    assert batch.status.tolist() == [Status.ERROR, Status.ERROR]
    assert batch.boards.tolist() == [POJ_SAMPLE_CELLS, 0]
    assert why in batch.stats["errors"][0]


def test_a_false_impossible_is_rejected_by_the_referee():
    game = Game(4, 4)
    lie = Solution("x", Status.INFEASIBLE)
    assert referee(game, POJ_SAMPLE_CELLS, lie).problem == ("says Impossible, but a goal board is reachable (no "
                                                            "parity certificate exists)")
    assert referee(game, 14, lie).ok  # board 14 is truly Impossible: the algebra finds its certificate
    assert Checked(lie, Verdict("wrong", None, "impossible")).answer.status is Status.ERROR


def test_counters_impossible_passes_unchecked_and_says_why():
    system = PressSystem(2, [[(0, 2)], [(1, 2)]], states=None, goal="board", target=(1, 0))
    verdict = referee(system, (0, 0), Solution("x", Status.INFEASIBLE))
    assert verdict.ok and verdict.unchecked == "counters have no modular certificate"


# --- one agreement policy ---------------------------------------------------------------------------------


def test_gauss_is_the_reference_where_it_answers_else_the_plurality():
    assert charged({"gauss": 4, "sat": 6, "cpsat": 6}) == {"sat": "disagrees with gauss (4)",
                                                           "cpsat": "disagrees with gauss (4)"}
    assert charged({"bfs": 4, "sat": 6, "cpsat": 6}) == {"bfs": "disagrees with most answers (6)"}
    assert charged({"gauss": -99, "sat": 4, "cpsat": 4}) == {}  # no answer agrees and disagrees with nothing
    assert charged({"a": -2, "b": 4}) == dict.fromkeys("ab", "answers disagree (4, Impossible) and none is a "
                                                             "reference")


def test_the_batch_policy_charges_what_the_one_board_policy_charges():
    keys = np.array([[4, 4, 6], [4, 4, 4], [-2, 4, 4], [-99, 5, 3]], dtype=np.int32)
    got = charged_rows(keys, ["gauss", "sat", "cpsat"])
    assert got.tolist() == [[False, False, True], [False] * 3, [False, True, True], [False, True, True]]


# --- structure from the buttons ---------------------------------------------------------------------------


def test_a_plus_grid_written_as_json_buttons_is_chaseable():
    rules = from_json(json.dumps(plus_rules(5, 7)))
    assert type(rules) is PressSystem and rules.chaseable and (rules.rows, rules.cols) == (5, 7)
    assert not from_json(json.dumps(MERLIN)).chaseable
    assert Game(2, 2, wrap=True).chaseable and not Game(3, 3, wrap=True).chaseable  # a 2x2 torus is the plus grid
    assert Game(1, 6, neighbourhood="king").chaseable and not Game(2, 6, neighbourhood="king").chaseable


def test_a_json_plus_grid_is_solved_by_cpsat_with_light_chasing(tmp_path, capsys):
    path = tmp_path / "plus.json"
    path.write_text(json.dumps(plus_rules(8, 8, "white")))
    board = "".join(("b" if (r * 3 + c) % 5 == 0 else "w") for r in range(8) for c in range(8))
    stdin = "\n".join(" ".join(board[r * 8:(r + 1) * 8]) for r in range(8)) + "\n"
    grid = flipgame("solve", "--size", "8x8", "--goal", "white", "--backend", "cpsat", "--stats", stdin=stdin)
    rules = flipgame("solve", "--rules", str(path), "--backend", "cpsat", "--stats", stdin=stdin)
    assert grid.returncode == rules.returncode == 0, rules.stderr
    assert grid.stdout == rules.stdout
    assert "formulation=chase" in grid.stderr and "formulation=chase" in rules.stderr


@pytest.mark.needs("dratify", "numba")
def test_a_json_plus_grid_is_certified_by_the_parity_prover(tmp_path):
    path = tmp_path / "plus.json"
    path.write_text(json.dumps(plus_rules(8, 8, "white")))
    stdin = "\n".join(["bwwwwwwb"] + ["wwwwwwww"] * 6 + ["bwwwwwwb"]) + "\n"
    r = flipgame("solve", "--rules", str(path), "--certify", stdin=stdin)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == flipgame("solve", "--size", "8x8", "--goal", "white", stdin=stdin).stdout.strip()
    assert "certified" in r.stdout and "parity" in r.stdout


def test_gauss_answers_many_cells_and_few_buttons():
    """4,095 cells and one button: the dense elimination's work is 4,095, not 4,095 squared."""
    system = PressSystem(4095, [[(i, 1) for i in range(0, 4095, 2)]], goal="white")
    on = sum(1 << i for i in range(0, 4095, 2))
    assert solve(on, game=system).moves == 1
    assert solve(on ^ 2, game=system).answer() == "Impossible"


# --- the commands -----------------------------------------------------------------------------------------


@pytest.mark.needs("dratify")
def test_verify_certify_on_k_states_is_refused_before_any_work(tmp_path):
    r = flipgame("verify", "--states", "3", "--size", "2x2", "--certify", "--report", str(tmp_path / "r.json"))
    assert r.returncode == ExitCode.USAGE and r.stderr.count("\n") == 1 and "Checking" not in r.stderr
    assert "--certify proves two-state minima; 2x2 is Z_3" in r.stderr


def test_study_strategies_run_on_the_rules_given(tmp_path):
    path = tmp_path / "merlin.json"
    path.write_text(json.dumps(MERLIN))
    r = flipgame("study", "--strategies", "gauss,bfs", "--rules", str(path), "--boards", "3", "--in-process", "--json")
    assert r.returncode == 0, r.stderr
    runs = json.loads(r.stdout)["runs"]
    assert {(x["family"], x["strategy"]) for x in runs} == {("rules", "gauss"), ("rules", "bfs")} and len(runs) == 6
    merlin = from_json(json.dumps(MERLIN))
    boards = BoardSet.sample(merlin, 3, 0)
    assert sorted(x["moves"] for x in runs if x["strategy"] == "gauss") == sorted(solve(b, game=merlin).moves
                                                                                  for b in boards)


# --- found by a new user: every error a FlipgameError with a clear line -----------------------------------


@pytest.mark.parametrize(("call", "words"), [
    (lambda: solve(0, game="4x4"), "the rules (game=) must be a PressSystem"),
    (lambda: fg.solve_batch([0, 1], None), "the rules (game=) must be a PressSystem"),
    (lambda: fg.Session("gauss").solve(0, game=4), "the rules (game=) must be a PressSystem"),
    (lambda: PressSystem(3, [[(0, 1, 2)]]), "button 0 has the entry (0, 1, 2); expected a cell or a (cell, amount)"),
    (lambda: BoardSet.sample(Game(4, 4), -1), "a sample is a number of boards (0 or more)"),
    (lambda: BoardSet.sample(Game(4, 4), 2.5), "a sample is a number of boards (0 or more)"),
    (lambda: BoardSet.of(None, [1]), "must be a PressSystem"),
    (lambda: fg.solve_batch(BoardSet.of(Game(3, 3), [5]), Game(4, 4)), "the board set is of 3x3 plus, goal any, not"),
    (lambda: Game(2, 2, states="counters"), "or None for counters"),
    (lambda: solve(5, game=Game(3, 3, "0", states=3)), "got the bitmask 5 (a board of two states only)"),
    (lambda: solve((0, 0, 5, 0, 0, 0, 0, 0, 0), game=Game(3, 3, "0", states=3)), "cell 2 holds 5, not a state 0..2"),
    (lambda: solve(True, game=Game(4, 4)), "got the bool True"),
    (lambda: solve(["bww", "www", "www"], game=Game(3, 3, "0", states=3)), "b/w cells are for two states"),
    (lambda: solve(0, game=Game(3, 3), max_nullity=2.5), "max_nullity (--max-nullity): expected a whole number"),
    (lambda: Game(3, 3, goal="2"), "unknown goal '2' for two states"),
])
def test_a_misuse_of_the_api_is_one_flipgame_error(call, words):
    with pytest.raises(FlipgameError) as caught:
        call()
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_a_button_is_a_list_of_cells_or_of_pairs():
    assert PressSystem(3, [[0, 1], [1, 2]]).buttons == PressSystem(3, [[(0, 1), (1, 1)], [(1, 1), (2, 1)]]).buttons


@pytest.mark.needs("pycryptosat")
def test_a_refusal_of_the_kind_of_system_names_it_in_its_class():
    with pytest.raises(fg.KindNotTakenError, match="sat models two states only, not 3 states"):
        solve((0,) * 9, "sat", game=Game(3, 3, "0", states=3))


def test_a_status_prints_its_name():
    assert f"{solve(POJ_SAMPLE).status}" == "OPTIMAL" and int(Status.INFEASIBLE) == 1

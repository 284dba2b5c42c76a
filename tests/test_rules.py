"""The Lights Out family: other sizes, wrap, neighbourhoods, goal boards, formats, large boards, study."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from conftest import batch_gate, flipgame, per_board, solve_gate

from flipgame import BACKENDS, Board, Game, Status
from flipgame.cli import ExitCode, main
from flipgame.model.grid import parse_stencil
from flipgame.verify.checks.witness import check_solution

# Nullity of the n x n plus board, n = 1..20 (known values).
NULLITY = [0, 0, 0, 4, 2, 0, 0, 0, 8, 0, 6, 0, 0, 4, 0, 8, 2, 0, 16, 0]


@pytest.mark.parametrize("method", ["dense", "chase"])
def test_square_nullities_1_to_20(method):
    assert [solve_gate("gauss", Game(n, n), 0, method=method).stats["nullity"] for n in range(1, 21)] == NULLITY


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 7), (4, 4), (5, 3), (9, 9), (7, 2), (11, 6)])
@pytest.mark.parametrize("goal", ["any", "white", "black"])
def test_light_chasing_agrees_with_dense_elimination(rows, cols, goal):
    g = Game(rows, cols, goal)
    rng = random.Random(rows * 100 + cols)
    for _ in range(25):
        b = rng.getrandbits(g.n)
        dense, chase = solve_gate("gauss", g, b, method="dense"), solve_gate("gauss", g, b, method="chase")
        assert (dense.status, dense.moves) == (chase.status, chase.moves)
        assert check_solution(g, b, chase) is None
        assert solve_gate("gauss", g, b, method="chase", canonical=True).presses == \
            solve_gate("gauss", g, b, method="dense", canonical=True).presses


def test_200x200_board_solves_with_a_checked_witness():
    g = Game(200, 200, "white")
    b = random.Random(200).getrandbits(g.n)
    s = solve_gate("gauss", g, b)
    assert s.status is Status.OPTIMAL and s.stats["method"] == "chase" and s.stats["nullity"] == 0
    assert g.apply(b, s.presses) == 0 and s.presses.bit_count() == s.moves


def test_chase_refuses_rules_it_cannot_handle():
    with pytest.raises(ValueError, match="plus neighbourhood without wrap"):
        solve_gate("gauss", Game(4, 4, wrap=True), 0, method="chase")
    with pytest.raises(ValueError, match=r"over the 6,250,000 the dense elimination takes \((--gauss-method band "
                                         r"takes it|and the banded elimination .* needs numba)"):
        solve_gate("gauss", Game(60, 60, neighbourhood="king"), 0, method="dense")


STENCIL_X = parse_stencil("x.x/.x./x.x")


@pytest.mark.parametrize("backend", per_board(BACKENDS))
@pytest.mark.parametrize("rules", [
    dict(rows=3, cols=4, neighbourhood="cross"),
    dict(rows=3, cols=3, neighbourhood="king", wrap=True),
    dict(rows=4, cols=3, neighbourhood="king"),
    dict(rows=3, cols=4, neighbourhood="stencil", stencil=STENCIL_X),
    dict(rows=2, cols=5, neighbourhood="stencil", stencil=((0, 0), (0, 2)), goal="white"),  # not symmetric
    dict(rows=4, cols=4, wrap=True, goal="black"),
    dict(rows=3, cols=5, wrap=True),
    dict(rows=2, cols=7),
], ids=lambda r: "-".join(f"{k}={v}" for k, v in r.items() if k != "stencil"))
def test_rule_variants_agree_with_bfs(backend, rules):
    g = Game(**rules)
    boards = np.arange(0, 1 << g.n, max(1, (1 << g.n) // 150), dtype=np.uint64)
    ref = batch_gate("bfs", g, boards)
    got = batch_gate(backend, g, boards)
    assert np.array_equal(got.status, ref.status) and np.array_equal(got.moves, ref.moves)
    ok = got.status == Status.OPTIMAL
    assert np.all(g.apply_many(boards[ok], got.presses[ok]) == got.target[ok])


def test_stencil_parsing():
    assert parse_stencil(".x./xxx/.x.") == ((-1, 0), (0, -1), (0, 0), (0, 1), (1, 0))
    for bad in ("xx/xx", "x.x/.x", "abc", "./././", "..."):
        with pytest.raises(ValueError, match="stencil"):
            parse_stencil(bad)


@pytest.mark.parametrize("backend", BACKENDS)
def test_explicit_goal_board(backend):
    target = Board.from_rows(["bwb", "wbw", "bwb"]).cells
    g = Game(3, 3, "board", target=target)
    s = solve_gate(backend, g, 0)
    assert s.success and s.target == target and g.apply(0, s.presses) == target
    assert s.moves == solve_gate("bfs", g, 0).moves
    assert solve_gate(backend, g, target).moves == 0


def test_game_rejects_inconsistent_rules():
    with pytest.raises(ValueError, match="stencil"):
        Game(3, 3, neighbourhood="stencil")
    with pytest.raises(ValueError, match="stencil"):
        Game(3, 3, stencil=((0, 0),))
    with pytest.raises(ValueError, match="target"):
        Game(3, 3, goal="board")
    with pytest.raises(ValueError, match="neighbourhood"):
        Game(3, 3, neighbourhood="hex")


PAINTER_SAMPLE = "2\n3\nyyy\nyyy\nyyy\n5\nwwwww\nwwwww\nwwwww\nwwwww\nwwwww\n"
FLIPTILE_SAMPLE = "4 4\n1 0 0 1\n0 1 1 0\n0 1 1 0\n1 0 0 1\n"
FLIPTILE_ANSWER = "0 0 0 0\n1 0 0 1\n1 0 0 1\n0 0 0 0\n"


@pytest.mark.parametrize("backend", ["gauss", "cpsat", "sat", "ilp"])
def test_painter_sample(backend):
    r = flipgame("solve", "--format", "painter", "--backend", backend, stdin=PAINTER_SAMPLE)
    assert (r.returncode, r.stdout) == (0, "0\n15\n")


def test_painter_inf():
    # 4x4 Lights Out: a single yellow-to-paint corner is unreachable.
    r = flipgame("solve", "--format", "painter", stdin="1\n4\nwyyy\nyyyy\nyyyy\nyyyy\n")
    assert r.stdout == "inf\n"


@pytest.mark.parametrize("backend", [n for n, b in BACKENDS.items() if b.by_default])  # opt-in: no canonical
def test_fliptile_sample_canonical_witness(backend):
    r = flipgame("solve", "--format", "fliptile", "--backend", backend, stdin=FLIPTILE_SAMPLE)
    assert (r.returncode, r.stdout) == (0, FLIPTILE_ANSWER)


def test_fliptile_impossible_and_several_cases():
    r = flipgame("solve", "--format", "fliptile", stdin=FLIPTILE_SAMPLE + "4 4\n1 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n"
                 + "1 3\n1 1 0\n")
    assert r.stdout == FLIPTILE_ANSWER + "IMPOSSIBLE\n1 0 0\n"


def test_painter_and_fliptile_build_one_grid_per_run_of_same_size_cases():
    from flipgame.formats.fliptile import read_fliptile
    from flipgame.formats.painter import read_painter

    cases = list(read_painter((PAINTER_SAMPLE[:1].replace("2", "3") + PAINTER_SAMPLE[1:] + "3\nwww\nwww\nwww\n")
                              .splitlines(), Game()))
    assert [c.game.size for c in cases] == ["3x3", "5x5", "3x3"] and [c.board for c in cases] == [0, 2**25 - 1, 511]
    tiles = list(read_fliptile((FLIPTILE_SAMPLE * 2 + "1 3\n1 1 0\n").splitlines(), Game(wrap=True)))
    assert tiles[0].game is tiles[1].game and tiles[1].game != tiles[2].game
    assert tiles[0].game == Game(4, 4, "white", wrap=True) and tiles[2].game == Game(1, 3, "white", wrap=True)


@pytest.mark.parametrize("fmt, text, where, words", [
    ("painter", "x\n", "case 1, line 1", "number of cases"),
    ("painter", "2\n1\ny\n", "case 2", "input ended after 1"),
    ("painter", "1\n2\nyy\nyq\n", "case 1, line 4", "'y' or 'w'"),
    ("fliptile", "2 2\n1 0\n", "case 1, line 2", "incomplete case"),
    ("fliptile", "2\n", "case 1, line 1", "'M N'"),
    ("fliptile", "1 2\n1 0 1\n", "case 1, line 2", "row of 2 cells"),
])
def test_format_errors_name_case_and_line(fmt, text, where, words):
    r = flipgame("solve", "--format", fmt, stdin=text)
    assert r.returncode == ExitCode.USAGE and where in r.stderr and words in r.stderr
    assert "Traceback" not in r.stderr


def test_painter_format_rejects_size_option():
    r = flipgame("solve", "--format", "painter", "--size", "3x3", stdin=PAINTER_SAMPLE)
    assert r.returncode == ExitCode.USAGE and "gives the size" in r.stderr


@pytest.mark.needs("pycryptosat")
def test_cli_rules_target_and_stats(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("bwb\nwbw\nbwb\n")
    r = flipgame("solve", "--size", "3x3", "--target", str(target), "--stats", "--presses", stdin="www\nwww\nwww\n")
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "9"  # every cell: corners 3, edges 4, centre 5 flips
    assert "nullity=0" in r.stderr and "goal the target board" in r.stderr
    r = flipgame("solve", "--size", "3x3", "--neighbourhood", "stencil", "--stencil", "x.x/.x./x.x",
                 "--backend", "sat", stdin="bwb\nwbw\nbwb\n")
    assert r.stdout == "1\n"
    r = flipgame("solve", "--size", "3x3", "--stencil", "x.x/.x./x.x", stdin="www\nwww\nwww\n")
    assert r.returncode == ExitCode.USAGE and "--neighbourhood stencil" in r.stderr


def test_large_board_from_the_cli(tmp_path):
    rng = random.Random(5)
    f = tmp_path / "big.txt"
    f.write_text("\n".join("".join(rng.choice("bw") for _ in range(120)) for _ in range(120)) + "\n")
    r = flipgame("solve", "--size", "120x120", "--goal", "white", "--stats", str(f))
    assert r.returncode == 0 and r.stdout.strip().isdigit() and "method=chase" in r.stderr


@pytest.mark.needs("pycryptosat")
def test_verify_rule_options_sample_and_canonical(tmp_path, capsys):
    rc = main(["verify", "--size", "3x5", "--wrap", "--backends", "gauss,bfs", "--report",
               str(tmp_path / "r.json"), "--jobs", "1"])
    assert rc == ExitCode.OK
    rc = main(["verify", "--size", "6x7", "--goal", "white", "--sample", "64", "--seed", "7",
               "--backends", "gauss,sat", "--canonical", "--report", str(tmp_path / "s.json"), "--jobs", "1"])
    report = json.loads((tmp_path / "s.json").read_text())
    assert rc == ExitCode.OK and report["boards"] == 64
    assert main(["verify", "--size", "6x7", "--backends", "gauss", "--report", str(tmp_path / "t.json")]) \
        == ExitCode.USAGE
    assert "--sample" in capsys.readouterr().err


def test_canonical_verify_catches_a_different_minimum_press_set(monkeypatch, tmp_path):
    """Counts agree but press sets differ: only --canonical sees it."""
    import dataclasses

    from faulty_backends import _as_backend

    def other_optimum(game, board, *, canonical=False):
        s = solve_gate("gauss", game, board, canonical=False)
        return dataclasses.replace(s, backend="other")

    monkeypatch.setitem(BACKENDS, "other", _as_backend("other", other_optimum))
    args = ["verify", "--backends", "gauss,other", "--jobs", "1", "--report", str(tmp_path / "r.json")]
    assert main(args) == ExitCode.OK
    assert main([*args, "--canonical"]) == ExitCode.DISAGREEMENT


@pytest.mark.needs("matplotlib")
def test_study_4x4_json_and_plot(tmp_path):
    png = tmp_path / "study.png"
    r = flipgame("study", "--json", "--plot", str(png), "--sample", "20", "--backends", "gauss,bfs,sat")
    data = json.loads(r.stdout)
    assert (data["rank"], data["nullity"], data["solvable_boards"]) == (12, 4, 4096)
    assert data["distribution"] == [2, 32, 228, 880, 1562, 1136, 256] and data["largest_minimum"] == 6
    assert len(data["quiet_patterns"]) == 4 and set(data["backend_seconds_per_board"]) == {"gauss", "bfs", "sat"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png.read_bytes()[16:20], "big") == 1210  # two panels, 11 in at 110 dpi


@pytest.mark.needs("matplotlib")
def test_study_plot_without_backends_draws_the_distribution_alone(tmp_path):
    """Without --backends the time panel was drawn empty ("mean of 0", an axis from -0.04 to 0.04)."""
    png = tmp_path / "study.png"
    assert flipgame("study", "--plot", str(png)).returncode == 0
    assert int.from_bytes(png.read_bytes()[16:20], "big") == 638  # one panel, 5.8 in at 110 dpi


def test_study_large_board_says_distribution_not_computed():
    r = flipgame("study", "--size", "7x7", "--sample", "5", "--backends", "gauss")
    assert r.returncode == 0 and "not computed" in r.stdout and "nullity" in r.stdout


@pytest.mark.parametrize("args, words", [
    (["verify", "--size", "4x4", "--backends", "gauss", "--sample", "5", "--seed", "-1"], "non-negative"),
    (["verify", "--size", "4x4", "--backends", "gauss", "--sample", "5", "--exhaustive"], "not both"),
    (["verify", "--size", "4x4", "--backends", "gauss", "--sample", "10000000000000"],
     "--sample 10000000000000: at most 2**30 boards a run"),
    (["study", "--plot", "out.txt"], ".png"),
    (["solve", "a.txt", "b.txt"], "flipgame solve: one input FILE a run, got 2 (a.txt, b.txt): run flipgame solve "
                                  "once per file (see flipgame solve --help)"),
    (["verify", "--size", "1x31", "--backends", "gauss", "--exhaustive"], "--exhaustive allows at most 30 cells"),
    (["verify", "--size", "4x4", "--backends", "gauss", "--seed", "3"], "--seed chooses the boards of --sample N"),
    (["verify", "--bogus"], "flipgame verify: unrecognized arguments: --bogus (see flipgame verify --help)"),
    # it asked for a goal first, and with one given refused counters anyway: a hint that led nowhere
    (["verify", "--size", "3x3", "--states", "counters"], "verify enumerates boards, and counters have no finite"),
    (["solve", "--format", "painter"], "declares 1 cases but goes on"),
])
def test_more_bad_options_are_one_line(args, words, tmp_path):
    f = tmp_path / "painter.txt"
    f.write_text("1\n3\nyyy\nyyy\nyyy\n5\nwwwww\n" if "bfs" not in args else "1\n5\n" + "wwwww\n" * 5)
    extra = [str(f)] if "--format" in args else []
    r = flipgame(*args, *extra)
    assert r.returncode == ExitCode.USAGE and words in r.stderr and "Traceback" not in r.stderr


@pytest.mark.needs("pycryptosat")
def test_a_size_the_backend_refuses_has_its_own_exit_code(tmp_path):
    f = tmp_path / "painter.txt"
    f.write_text("1\n6\n" + "wwwwww\n" * 6)
    r = flipgame("solve", "--format", "painter", "--backend", "bfs", str(f))
    assert r.returncode == ExitCode.REFUSED == 5
    assert r.stderr == (f"flipgame: {f}: case 1: bfs allows at most 30 cells; 6x6 has 36; "
                        f"taken by: gauss, cpsat, sat, ilp, auto\n")


def test_highs_time_out_is_unknown():
    r = flipgame("solve", "--size", "5x5", "--backend", "ilp", "--mip-solver", "HIGHS", "--time-limit", "1e-6",
                 stdin="bwwbw\nbbwbw\nbwwbw\nbwwwb\nbbbbb\n")
    assert (r.returncode, r.stdout) == (ExitCode.INCOMPLETE, "Unknown\n")


def test_wide_boards_chase_the_short_side_for_stats_and_canonical():
    r = flipgame("solve", "--size", "1x30000", "--goal", "white", "--canonical", "--stats", stdin="b" * 30000 + "\n")
    assert r.returncode == 0 and r.stdout == "10000\n" and "nullity=0" in r.stderr  # 30000 = 3 * 10000


def test_checkpoint_and_report_record_the_neighbourhood(tmp_path):
    ck = tmp_path / "ck.jsonl"
    base = ["verify", "--size", "2x3", "--backends", "gauss", "--checkpoint", str(ck),
            "--report", str(tmp_path / "r.json")]
    assert main([*base, "--neighbourhood", "king"]) == ExitCode.OK
    assert json.loads((tmp_path / "r.json").read_text())["game"]["neighbourhood"] == "king"
    assert main(base) == ExitCode.USAGE  # a plus run must not reuse the king checkpoint

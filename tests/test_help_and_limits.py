"""What the help texts and messages state about the limits (caps, measured times, the defaults of verify),
and the values at those limits."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pytest

from flipgame import Game
from flipgame.model.boards import BoardSet
from flipgame.study.structure import json_count


def flipgame(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flipgame", *args], input=stdin, capture_output=True, text=True,
                          timeout=300)


def test_study_json_of_a_board_over_14284_cells():
    """``study --size 120x120 --goal white --json`` crashed on the 4300-digit limit of int -> str."""
    r = flipgame("study", "--size", "120x120", "--goal", "white", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["total_boards"] == "2**14400" and data["solvable_boards"] == "2**14400"
    assert json_count(2**53) == 2**53 and json_count(2**53 + 1) == hex(2**53 + 1)


def test_a_sample_that_covers_every_board_takes_each_once():
    boards = BoardSet.sample(Game(2, 3), 500, 0).boards
    assert boards.tolist() == list(range(64))
    assert len(np.unique(BoardSet.sample(Game(4, 4), 100, 0).boards)) <= 100  # below the count: drawn as before


@pytest.mark.needs("pycryptosat")
def test_auto_is_not_in_verify_default_backends(tmp_path):
    """auto runs gauss's own path: agreement between the two proves nothing."""
    report = str(tmp_path / "r.json")
    r = flipgame("verify", "--size", "2x2", "--report", report)
    assert r.returncode == 0, r.stderr
    assert "Checking gauss, bfs, cpsat, sat, ilp on" in r.stderr and "\nauto " not in r.stdout
    r = flipgame("verify", "--size", "2x2", "--backends", "gauss,auto", "--report", report)
    assert r.returncode == 0 and "\nauto " in r.stdout


def test_help_states_the_caps_its_errors_point_to():
    """``--size 10000x10000`` says "see flipgame solve --help", and that help did not state the cap."""
    r = flipgame("solve", "--size", "10000x10000")
    assert r.returncode == 2 and "at most 4000000 (see flipgame solve --help)" in r.stderr
    helptext = " ".join(flipgame("solve", "--help").stdout.split())
    assert "at most 4,000,000 cells" in helptext
    assert "[cpsat] CP-SAT search workers per board; default 1, at most 64" in helptext
    assert "at most 24 cells" in " ".join(flipgame("bench", "--help").stdout.split())


@pytest.mark.needs("dratify")
def test_help_states_every_backend_cap_and_the_certify_and_sample_caps(tmp_path):
    """bfs (30 cells), maxsat (2,500), cpsat/sat/ilp (40,000), --certify-time-limit (1e6 s) and verify's --sample
    (2**30 boards) were refused past caps that no --help stated."""
    solve_help = " ".join(flipgame("solve", "--help").stdout.split())
    assert "over all 2^n states (at most 30 cells); cpsat:" in solve_help
    assert "pysat's RC2 (at most 2,500 cells); pb:" in solve_help
    assert solve_help.count("minimise presses (at most 40,000 cells)") == 2  # cpsat and ilp
    assert "cardinality bound, descent (at most 40,000 cells); ilp:" in solve_help
    assert "(default 10, at most 1,000,000); past it" in solve_help
    verify_help = " ".join(flipgame("verify", "--help").stdout.split())
    assert ("sizes: bfs: at most 30 cells; maxsat: 2,500; cpsat, sat, ilp, external, pb, mip: 40,000; "
            "gauss: 4,000,000)") in verify_help
    assert "at most 2**30 boards a run" in verify_help
    r = flipgame("verify", "--size", "6x6", "--sample", str(2**30 + 1), "--report", str(tmp_path / "r.json"))
    assert r.returncode == 2 and "at most 2**30 boards a run" in r.stderr
    r = flipgame("solve", "--certify", "--certify-time-limit", "2e6", stdin="bwwb\nbbwb\nbwwb\nbwww\n")
    assert r.returncode == 2 and "at most 1,000,000" in r.stderr


def test_the_gauss_refusal_gives_the_measured_time():
    """It promised "about 9 s" for --max-nullity 33, where 10-15 s was measured (with the kernel of then); the
    estimate now comes from the one measured rate, flipgame.algebra.coset_run.RATE."""
    from flipgame.algebra.coset_run import describe
    from flipgame.backends.gauss import nullity_hint
    from flipgame.core.measured import figure

    when = describe(2**33 / figure("coset.rate"))  # the measured run's 2.9e9 a second: "about 3 s"
    assert when.startswith("about ") and when.endswith(" s")
    assert nullity_hint(33) == (f"--max-nullity 33 enumerates them ({when} on 2 cores, twice that per extra "
                                "nullity; --checkpoint FILE makes the run resumable)")


@pytest.mark.parametrize("fmt, text, where", [
    ("painter", "1\n3\n", "case 1, line 2: incomplete case at end of input: expected 3 rows of 'y' or 'w'"),
    ("painter", "2\n1\ny\n", "case 2, line 3: expected 2 cases, input ended after 1"),
    ("fliptile", "3 3\n", "case 1, line 1: incomplete case at end of input: expected 3 rows of 0 or 1"),
])
def test_painter_and_fliptile_errors_name_the_line(fmt, text, where):
    """An input that ended before its first row named no line."""
    r = flipgame("solve", "--format", fmt, stdin=text)
    assert r.returncode == 2 and where in r.stderr


@pytest.mark.parametrize("backend", ["cpsat", "ilp", "sat"])
def test_the_canonical_refinement_shares_the_boards_time_limit(backend):
    """``--canonical`` on cpsat reported OPTIMAL after 3.08 s at a 2 s limit: each refinement call had it all."""
    from flipgame import BACKENDS

    game = Game(4, 4, goal="white")
    board = game.apply(0, 0b1000_0100_0010_0001)
    with BACKENDS[backend].open(game, time_limit=5.0) as model:
        assert model.solve(board, canonical=True).moves == 4
        model._deadline = time.perf_counter() - 1  # the board's limit spent by the minimisation
        with pytest.raises(TimeoutError):
            model._solve_fixed({0: 1}, 4)

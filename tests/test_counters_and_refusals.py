"""Counters, k states and the refusals at the edges of what each backend takes: the right value or one line
naming the limit."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import textwrap

import pytest

from flipgame.core import extras

MEMORY_CAP = 3 << 30
"""Address space of each child process, in bytes (flipgame with OR-Tools loaded maps about 0.3 GB)."""
HANG = 120
"""Seconds after which a child is taken to hang (a hang detector, far above any bound checked)."""


def _capped() -> None:
    """``preexec_fn``: the memory cap, and SIGINT back to its default (a test run in the background ignores it)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(*args: str, stdin_file: str = "/dev/null") -> subprocess.CompletedProcess:
    """``python -m flipgame *args < stdin_file`` in a child process under the memory cap; text output."""
    with open(stdin_file, "rb") as fh:
        return subprocess.run([sys.executable, "-m", "flipgame", *args], stdin=fh, capture_output=True, text=True,
                              errors="replace", timeout=HANG, preexec_fn=_capped)


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """``flipgame *args`` in this process (``flipgame.cli.main``), ``stdin`` as its standard input (text, or
    a file name with ``stdin_file``): a CompletedProcess of the exit code and the captured output."""
    from flipgame.cli import main

    def call(*args: str, stdin: str = "", stdin_file: str | None = None) -> subprocess.CompletedProcess:
        if stdin_file is None:
            stdin_file = tmp_path / "stdin.txt"
            stdin_file.write_text(stdin)
        capsys.readouterr()
        with open(stdin_file, "rb") as fh:
            monkeypatch.setattr(sys, "stdin", fh)
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code
        out = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out.out, out.err)

    return call


def one_line(r: subprocess.CompletedProcess, code: int, *words: str, longest: int = 400) -> str:
    """Assert that ``r`` exited ``code`` with one short line on stderr (no traceback) holding ``words``."""
    err = r.stderr.strip()
    assert r.returncode == code, (r.returncode, err[-2000:])
    assert "Traceback" not in err and len(err.splitlines()) == 1 and len(err) <= longest, err[-2000:]
    for w in words:
        assert w in err, err
    return err


def python(code: str, timeout: float = HANG) -> subprocess.CompletedProcess:
    """A Python snippet in a child process (a crash there must not take pytest down)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=_capped)


def _rules(tmp_path, text: str, name: str = "rules.json") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_gauss_refuses_a_4_state_game_over_its_memory_budget_and_bands_a_3_state_one(tmp_path):
    """Item 10: ``--states 3 --size 100x100`` gave no answer after 90 s at 4.8 GB and climbing: the diagonal
    form's n x m int64 matrices (3 GiB here) are estimated and refused before anything is built.  Over a prime
    number of states the banded elimination takes the grid instead; 4 states is not a field."""
    board = tmp_path / "b.txt"
    board.write_text("\n".join("1" * 100 for _ in range(100)) + "\n")
    one_line(run("solve", "--states", "4", "--size", "100x100", "--goal", "0", str(board)), 5,
             "gauss: the diagonal form of 10,000 cells x 10,000 buttons over Z_4 needs about 3,",
             "over gauss's 2,048 MiB budget", "taken by: cpsat, ilp, auto")
    r = run("solve", "--states", "3", "--size", "100x100", "--goal", "0", "--backend", "gauss", "--stats", str(board))
    if extras.installed("numba"):
        assert r.returncode == 0 and "method=band" in r.stderr, r.stderr
    else:  # the core install: the band needs numba, and the diagonal form's budget refuses it as before
        one_line(r, 5, "over gauss's 2,048 MiB budget")


def test_gauss_over_z_k_stops_at_its_time_limit():
    """Item 10: the diagonal form's loop checks gauss's time limit: Unknown, never a number, once it has passed."""
    from flipgame import Game, solve

    game = Game(23, 29, "0", states=3)  # a matrix no other test has cached
    s = solve((1,) * game.n, "gauss", game=game, method="dense", time_limit=1e-9)  # auto takes it to the band
    assert s.status.name == "UNKNOWN" and s.moves is None and "diagonal form over Z_3" in s.stats["error"]


def test_cpsat_answers_at_the_largest_counter_and_ilp_refuses_past_its_tolerance(cli):
    """Item 18: cpsat said Unknown at 2^63-1 with no time-out, and near 10^18 ilp's doubles rounded the
    counts (Error, exit 3, read as a witness failure).  cpsat answers 2^31-1; ilp refuses targets over
    100,000 (SCIP's tolerance is relative), naming why and who takes them."""
    r = cli("solve", "--states", "counters", "--size", "1x1", "--goal", "2147483647", "--backend", "cpsat",
            stdin="0\n")
    assert (r.returncode, r.stdout) == (0, "2147483647\n"), r.stderr
    one_line(cli("solve", "--states", "counters", "--size", "1x1", "--goal", "100001", "--backend", "ilp",
                 stdin="0\n"), 5, "ilp takes counter targets up to 100,000", "taken by: bfs, cpsat, auto")
    r = cli("solve", "--states", "counters", "--size", "1x1", "--goal", "100000", "--backend", "ilp", stdin="0\n")
    assert (r.returncode, r.stdout) == (0, "100000\n"), r.stderr


def test_ilp_proves_the_minimum_of_a_counter_system_over_10000_presses():
    """Item 18: ilp reported 14,171 presses as OPTIMAL where 14,170 is the minimum: pywraplp stops at a
    relative MIP gap of 1e-4 by default (a press at 10,000).  cpsat, ilp and bfs agree on 14,170."""
    from flipgame import solve
    from flipgame.model.system import PressSystem

    system = PressSystem(2, (((1, 7),), ((0, 13), (1, 3)), ((0, 5),), ((0, 11),)), None, "board", (55300, 82131))
    for backend in ("cpsat", "ilp"):
        s = solve((0, 0), backend, game=system, time_limit=60)
        assert (s.status.name, s.moves, system.apply((0, 0), s.presses)) == ("OPTIMAL", 14170, (55300, 82131))


def test_cpsat_proves_a_counter_knapsack_with_its_lp():
    """Item 18: without its LP relaxation (the small-model parameters) cpsat was Unknown after 10 s on one
    counter of 76,988 with buttons adding 7, 3, 5 and 1; the minimum is 11,000 (10,998 sevens and two ones:
    10,999 presses would need 6a + 4b + 2c = 65,989, odd)."""
    from flipgame import solve
    from flipgame.model.system import PressSystem

    system = PressSystem(1, (((0, 7),), ((0, 3),), ((0, 5),), ((0, 1),)), None, "board", (76988,))
    s = solve((0,), "cpsat", game=system, time_limit=60)
    assert (s.status.name, s.moves) == ("OPTIMAL", 11000)


@pytest.mark.parametrize("backend", ["cpsat", "ilp", "bfs"])
def test_a_counter_that_no_button_touches_is_impossible(cli, backend, tmp_path):
    """Item 19: cpsat raised ``RuntimeError: a row is not one linear equality`` where ilp and bfs said Impossible."""
    rules = _rules(tmp_path, '{"cells": 2, "states": "counters", "buttons": [[0]]}')
    r = cli("solve", "--rules", rules, "--goal", "1", "--backend", backend, stdin="0 0\n")
    assert (r.returncode, r.stdout) == (0, "Impossible\n"), r.stderr


@pytest.mark.parametrize(("board", "answer"), [("18\n", "1\n"), (" 18 \n", "1\n"), ("12\n", "3\n"), ("5\n", "6\n")])
def test_a_one_cell_counter_reads_a_number_of_two_digits(cli, tmp_path, board, answer):
    """A new user's one-cell system: ``18`` was two cells (nothing to separate); buttons add 3, 1, 3, 1 to reach
    19 (from 5: four 3s and two 1s)."""
    rules = _rules(tmp_path, '{"cells": 1, "states": "counters", "buttons": [[0], [0], [0], [0]], '
                             '"amounts": [[3], [1], [3], [1]], "goal": "board", "target": [19]}')
    for backend in ("cpsat", "bfs"):
        r = cli("solve", "--rules", rules, "--backend", backend, stdin=board)
        assert (r.returncode, r.stdout) == (0, answer), r.stderr


@pytest.mark.needs("pycryptosat")
def test_sat_takes_a_last_button_that_changes_nothing_mod_2(cli, tmp_path):
    """Item 20: sat raised IndexError when the last button changes nothing mod 2 (its variable was in no clause)."""
    rules = _rules(tmp_path, '{"cells": 2, "buttons": [[0, 1], [0]], "amounts": [[1, 1], [2]]}')
    for board in ("1 1\n", "0 1\n"):
        r = cli("solve", "--rules", rules, "--goal", "white", "--backend", "sat", stdin=board)
        assert r.returncode == 0 and r.stdout == ("1\n" if board == "1 1\n" else "Impossible\n"), r.stderr


def test_the_gauss_refusal_of_a_huge_coset_is_one_short_line(cli, tmp_path):
    """Item 21: the refusal formatted the coset's size in full (3^1499: 716 digits; past 4,300 digits a
    ValueError).  It is written as a power now."""
    rules = _rules(tmp_path, json.dumps({"cells": 1, "states": 3, "buttons": [[0]] * 1500}))
    one_line(cli("solve", "--rules", rules, "--goal", "0", stdin="1\n"), 5,
             "the solution coset has 3^1499 press vectors (1,500 buttons)", longest=300)


@pytest.mark.slow
def test_the_gauss_refusal_of_10000_buttons_is_one_line(cli, tmp_path):
    """Item 21 at the button limit: 3^9999 has 4,771 digits, and its text crashed the refusal (and auto's plan)."""
    rules = _rules(tmp_path, json.dumps({"cells": 1, "states": 3, "buttons": [[0]] * 10_000}))
    one_line(cli("solve", "--rules", rules, "--goal", "0", stdin="1\n"), 5, "3^9999 press vectors", longest=300)


def test_the_gauss_refusal_at_nullity_4993_is_one_line_not_an_overflow(cli, tmp_path):
    """Break-it: 2.0 ** 4990 overflowed a float in gauss's estimate and auto's plan (a traceback)."""
    buttons = [[i % 10, (3 * i + 1) % 10] for i in range(5000)]
    rules = _rules(tmp_path, json.dumps({"cells": 10, "buttons": buttons}))
    one_line(cli("solve", "--rules", rules, "--goal", "white", "--backend", "gauss", stdin="1" * 10 + "\n"), 5,
             "nullity 4993: the minimum needs 2**4993", "more than 10**12 years", longest=500)
    r = cli("solve", "--rules", rules, "--goal", "white", "--backend", "auto", stdin="1" * 10 + "\n")
    assert r.returncode == 0 and r.stdout == "5\n", r.stderr


def test_maxsat_refuses_more_buttons_than_its_cap_and_answers_below_it(cli, tmp_path):
    """Break-it: 30 cells with 1,000 buttons ran RC2 past any limit when it could not be interrupted; it was
    refused past 100 buttons.  RC2 now stops at the time limit, and the cap is 2,500 (memory, not time)."""
    rules = _rules(tmp_path, json.dumps({"cells": 30, "buttons": [[i % 30] for i in range(2501)]}))
    one_line(cli("solve", "--rules", rules, "--goal", "white", "--backend", "maxsat", stdin="1" * 30 + "\n"), 5,
             "maxsat allows at most 2500 buttons (soft clauses); 30 cells with 2501 buttons", "taken by: gauss")
    rules = _rules(tmp_path, json.dumps({"cells": 30, "buttons": [[i % 30] for i in range(1000)]}))
    r = cli("solve", "--rules", rules, "--goal", "white", "--backend", "maxsat", stdin="1" * 30 + "\n")
    assert (r.returncode, r.stdout) == (0, "30\n")


def test_maxsat_refuses_more_press_matrix_entries_than_it_builds_in_seconds(cli, tmp_path):
    """Break-it: 2,500 cells with buttons of 800 cells each took maxsat 51 s and 3 GB at --time-limit 5, building
    its parity clauses (not timed).  Past 100,000 entries it is refused before building."""
    rules = _rules(tmp_path, json.dumps({"cells": 500, "buttons": [[(i + d) % 500 for d in range(201)]
                                                                  for i in range(500)]}))
    one_line(cli("solve", "--rules", rules, "--goal", "white", "--backend", "maxsat", stdin="1" * 500 + "\n"), 5,
             "maxsat builds at most 100,000 press-matrix entries", "this system (500 cells) has 100,500")


def test_maxsat_stops_at_its_time_limit():
    """RC2 could not be interrupted, so maxsat took no --time-limit and refused boards above 10x10 (a 16x16
    board ran over 9 min).  Its SAT calls are now interrupted at the limit: Unknown, never a number."""
    import random

    from flipgame import Game, solve

    game = Game(30, 30, "white")
    s = solve(game.apply(0, random.Random(1).getrandbits(game.n)), "maxsat", game=game, time_limit=0.5)
    assert (s.status.name, s.moves, s.presses) == ("UNKNOWN", None, None)


@pytest.mark.parametrize("backend", ["cpsat", "ilp", "bfs"])
def test_explain_prints_the_certificate_of_a_3_state_impossible(cli, backend):
    """Item 26: cpsat, ilp and bfs printed Impossible with no certificate, and --explain printed nothing."""
    r = cli("solve", "--states", "3", "--size", "1x2", "--goal", "0", "--backend", backend, "--explain",
            stdin="10\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "Impossible",
        "certificate for all 0: every button adds 0 (mod 3) to the sum of the cells weighted as below, but "
        "reaching that goal changes it by 1:",
        "21"]


def test_a_counter_impossible_is_marked_unchecked(cli, tmp_path):
    """Item 26: counters have no modular certificate; --explain says the Impossible is unchecked."""
    rules = _rules(tmp_path, '{"cells": 2, "states": "counters", "buttons": [[0, 1]]}')
    r = cli("solve", "--rules", rules, "--goal", "1", "--backend", "cpsat", "--explain", stdin="0 1\n")
    assert r.returncode == 0 and r.stdout.splitlines() == [
        "Impossible", "(no certificate: counters are integer programs; the Impossible is the backend's word, "
                      "unchecked)"], r.stderr


def test_verify_reports_impossible_answers_it_cannot_certify(cli, tmp_path):
    """Item 26: past the size the diagonal form is computed for certificates, verify names the Impossible
    answers it leaves unchecked instead of saying every Impossible has a certificate."""
    rules = _rules(tmp_path, json.dumps({"cells": 2, "states": 3, "buttons": [[0, 1]] * 1700}))
    report = tmp_path / "r.json"
    r = cli("verify", "--rules", rules, "--goal", "0", "--backends", "cpsat", "--report", str(report))
    assert r.returncode == 0, r.stderr[-2000:]
    assert "every Impossible has a certificate" not in r.stdout
    assert "flipgame: note: 6 Impossible answer(s) of cpsat unchecked" in r.stderr
    assert json.loads(report.read_text())["notes"][0].startswith("6 Impossible answer(s) of cpsat unchecked")


@pytest.mark.parametrize("backend", ["bfs", "auto", "cpsat", "ilp"])
def test_press_sets_past_64_buttons_on_few_cells_are_whole(backend):
    """Break-it: 4 cells with 70 buttons gave Error (an OverflowError packing press sets in uint64) in bfs and in
    every batch; now the witness is a Python int, single and batch.  Button 69 alone lights cell 3."""
    import numpy as np

    import flipgame as fg

    game = fg.from_json({"cells": 4, "buttons": [[0, 1]] * 69 + [[3]], "goal": "white"})
    one = fg.solve(0b1000, backend, game=game)
    assert (one.status, one.moves, one.presses) == (fg.Status.OPTIMAL, 1, 1 << 69)
    batch = fg.solve_batch(np.array([0b1000, 0b1011, 0b0100], dtype=np.uint64), game, backend)
    assert batch.status.tolist() == [fg.Status.OPTIMAL, fg.Status.OPTIMAL, fg.Status.INFEASIBLE]
    assert batch.moves.tolist()[:2] == [1, 2]
    assert batch[0].presses == 1 << 69 and batch[1].presses in {1 << 69 | 1 << j for j in range(69)}


def test_auto_answers_few_cells_with_many_buttons_from_the_bfs_table():
    """10 cells, 5,000 buttons (nullity 4,990): sat ran past its time limit; bfs's table answers 6 (checked by a
    plain BFS over the 10 distinct masks, a cell listed twice flipping back)."""
    import flipgame as fg

    buttons = [[i % 10, (3 * i + 1) % 10, (7 * i + 2) % 10] for i in range(5000)]
    s = fg.solve((1 << 10) - 1, "auto", game=fg.from_json({"cells": 10, "buttons": buttons, "goal": "white"}))
    assert s.moves == 6 and s.stats["strategy"] == "bfs"


def test_a_refusals_hint_and_autos_plan_over_z_k_stay_within_the_time_limit(monkeypatch):
    """Break-it: a 40x40 Z_3 torus at --time-limit 1 took 13.6 s before its refusal: the hint asked auto, whose
    plan computed the diagonal form with no limit; auto at --time-limit 2 took 12.8 s.  The hint now gives each
    backend HINT_SECONDS, auto takes Z_k rules gauss takes without the plan, and the plan's diagonal form stops at
    the time limit, leaving the search what is left."""
    from flipgame import Game
    from flipgame.algebra import zk
    from flipgame.backends import auto
    from flipgame.backends.registry import BACKENDS

    def never_done(system, deadline=None):
        assert deadline is not None, "the plan computed the diagonal form without a deadline"
        raise TimeoutError

    monkeypatch.setattr(zk, "quick_diagonal", never_done)
    game = Game(5, 5, "0", wrap=True, states=3).normal  # a system no other test has planned
    assert BACKENDS["auto"].refusal(game, {"time_limit": 1.0}) is None  # no plan: gauss takes the rules
    p = auto.plan(game, {"time_limit": 1.0})
    assert p.strategy != "gauss" and "diagonal form over Z_3 was not done within 1 s" in p.why

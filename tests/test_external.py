"""The exchange formats and the solvers outside the package: external programs, MaxSAT (RC2), PB (Exact).

A test that needs a program skips with a reason naming it and its Debian package.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest
from conftest import POJ_SAMPLE
from conftest import need_program as need

from flipgame import Board, Game, RefusedError, solve
from flipgame.backends.program_output import read_cbc, read_competition, read_minisat
from flipgame.backends.registry import STRATEGIES
from flipgame.backends.strategies import EXTERNAL
from flipgame.encode.export import FORMATS, export
from flipgame.model.puzzles import B18
from flipgame.verify.checks.witness import check_solution

G18 = Game(18, 18, "black")
SIX = Board.from_rows(["bwwbbw", "wbbwbb", "bbwwwb", "wwbbwb", "bwbwbb", "bbwwbw"])


def run(argv: list[str], timeout: float = 120) -> str:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout).stdout


def literal_model(text: str) -> int:
    status, true = read_competition(text)
    return sum(1 << (v - 1) for v in true if v <= 324) if status == "SATISFIABLE" else -1


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_names_the_board_and_rules_in_its_header(fmt):
    text = export(fmt, Game(4, 4), Board.from_rows(POJ_SAMPLE), notes=["optimum 4 (proved by gauss)"])
    assert "4x4 plus, goal any" in text and "bwwb" in text and "optimum 4 (proved by gauss)" in text


def test_bound_is_refused_for_a_format_that_minimises():
    with pytest.raises(ValueError, match="--bound applies to cnf and xcnf"):
        export("wcnf", Game(4, 4), 0, bound=3)


def test_18x18_mps_read_back_by_ortools_and_solved_by_scip_is_176():
    from ortools.linear_solver.python import model_builder as mb

    m = mb.Model()
    assert m.import_from_mps_string(export("mps", G18, Board.from_rows(B18)))
    s = mb.Solver("scip")
    s.set_time_limit_in_seconds(60)
    assert s.solve(m) == mb.SolveStatus.OPTIMAL and round(s.objective_value) == 176


def test_18x18_cnf_with_bound_176_is_sat_and_its_model_is_a_witness(tmp_path):
    need("cadical")
    b = Board.from_rows(B18).cells
    path = tmp_path / "b18-176.cnf"
    path.write_text(export("cnf", G18, b, bound=176))
    presses = literal_model(run(["cadical", "-q", str(path)]))
    assert presses.bit_count() <= 176 and G18.apply(b, presses) == G18.full


@pytest.mark.slow
def test_18x18_cnf_with_bound_175_is_unsat_for_cadical(tmp_path):
    """Measured 4-7 min on the shared 2-core machine: parity in plain CNF is hard for resolution."""
    need("cadical")
    path = tmp_path / "b18-175.cnf"
    path.write_text(export("cnf", G18, Board.from_rows(B18), bound=175))
    assert read_competition(run(["cadical", "-q", str(path)], timeout=1800))[0] == "UNSATISFIABLE"


def test_18x18_cnf_xor_with_bound_175_is_unsat_for_cryptominisat(tmp_path):
    need("cryptominisat5")
    path = tmp_path / "b18-175.xcnf"
    path.write_text(export("xcnf", G18, Board.from_rows(B18), bound=175))
    assert read_competition(run(["cryptominisat5", "--verb", "0", str(path)]))[0] == "UNSATISFIABLE"


@pytest.mark.needs("exact")
def test_6x6_wcnf_with_rc2_and_opb_with_exact_give_the_optimum():
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    game = Game(6, 6, "white")
    optimum = solve(SIX, "gauss", game=game).moves
    assert optimum == 16
    with RC2(WCNF(from_string=export("wcnf", game, SIX))) as rc2:
        assert rc2.compute() is not None and rc2.cost == optimum
    assert solve(SIX, "exact", game=game).moves == optimum


@pytest.mark.parametrize("name", [*EXTERNAL, "rc2", "exact"])
def test_strategy_answers_the_poj_sample_with_a_checked_witness(name):
    if name in EXTERNAL:
        need(STRATEGIES[name].options["command"].split()[0])
    game = Game(4, 4)
    s = solve(POJ_SAMPLE, name, game=game)
    assert s.moves == 4 and check_solution(game, Board.from_rows(POJ_SAMPLE).cells, s) is None


@pytest.mark.parametrize("name", [*EXTERNAL, "rc2", "exact"])
def test_strategy_says_impossible_with_a_certificate(name):
    if name in EXTERNAL:
        need(STRATEGIES[name].options["command"].split()[0])
    s = solve(["wbbb", "wwww", "wwww", "wwww"], name, game=Game(4, 4))
    assert s.answer() == "Impossible" and s.certificates


def test_missing_program_is_refused_in_one_line_naming_the_package():
    with pytest.raises(RefusedError) as refused:
        solve(POJ_SAMPLE, "external", command="nosuchsolver {file}")
    assert str(refused.value) == "nosuchsolver is not installed (install it or give its full path)"
    with pytest.raises(RefusedError, match=r"apt-get install cadical"):
        solve(POJ_SAMPLE, "external", command="/nonexistent/cadical {file}")


def test_solve_cli_strategy_and_solver_cmd_with_a_wrapper_script(tmp_path):
    need("cadical")
    wrapper = tmp_path / "my-solver.sh"
    wrapper.write_text("#!/bin/sh\nexec cadical -q \"$@\"\n")
    wrapper.chmod(0o755)
    sample = "\n".join(POJ_SAMPLE) + "\n"
    for args in (["--strategy", "cadical"], ["--solver-cmd", f"{wrapper} {{file}}", "--solver-format", "cnf"]):
        out = subprocess.run([sys.executable, "-m", "flipgame", "solve", *args], input=sample, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0 and out.stdout == "4\n", out.stderr


def lying_program(tmp_path, output: str) -> str:
    script = tmp_path / "liar.sh"
    script.write_text(f"#!/bin/sh\nprintf '{output}'\n")
    script.chmod(0o755)
    return f"{script} {{file}}"


def test_a_program_that_says_unsat_is_caught_by_the_certificate_check(tmp_path):
    """A solver that answers UNSAT to everything: on the POJ sample (4) and a solved board (0) that is a lie
    about unsatisfiability, a disagreement with gauss naming the program (exit 1, as every false claim of
    a program); board 14 really is Impossible."""
    cases = "\n".join(POJ_SAMPLE) + "\n\nwwww\nwwww\nwwww\nwwww\n\nwbbb\nwwww\nwwww\nwwww\n"
    out = subprocess.run([sys.executable, "-m", "flipgame", "solve", "--solver-cmd",
                          lying_program(tmp_path, "s UNSATISFIABLE\\n")], input=cases, capture_output=True,
                         text=True, timeout=60)
    assert (out.returncode, out.stdout) == (1, "Error\nError\nImpossible\n"), out.stderr
    assert out.stderr.splitlines() == [
        f"flipgame: standard input: case {k}: {tmp_path / 'liar.sh'} claims Impossible, but gauss proves a minimum "
        f"of {moves} presses" for k, moves in ((1, 4), (2, 0))]


def test_a_program_whose_model_reaches_no_goal_is_a_rejected_witness_in_one_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "flipgame", "solve", "--solver-cmd",
                          lying_program(tmp_path, "s SATISFIABLE\\nv 1 0\\n")],
                         input="\n".join(POJ_SAMPLE) + "\n", capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout) == (3, "Error\n")
    assert re.fullmatch(r"flipgame: case 1: external \(\S+liar.sh\) witness rejected: pressing the witness gives "
                        r"board \d+, not the claimed target 0\n", out.stderr), out.stderr


def test_time_limit_kills_the_process_group(tmp_path):
    """A program that never answers (and forks a child) is UNKNOWN at the limit, its group gone."""
    script = tmp_path / "slow.sh"
    pidfile = tmp_path / "child.pid"
    script.write_text(f"#!/bin/sh\nsleep 100 &\necho $! > {pidfile}\nwait\n")
    script.chmod(0o755)
    s = solve(POJ_SAMPLE, "external", command=f"{script} {{file}}", time_limit=0.5)
    assert s.answer() == "Unknown"
    child = int(pidfile.read_text())
    time.sleep(0.2)
    assert not alive(child)


def alive(pid: int) -> bool:
    """True if ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_readers_of_the_competition_outputs():
    assert read_competition("s UNSATISFIABLE\n") == ("UNSATISFIABLE", set())
    assert read_competition("o 3\ns OPTIMUM FOUND\nv x1 -x2 x3\n") == ("OPTIMUM FOUND", {1, 3})
    assert read_minisat("SAT\n-1 2 3 0\n") == ("SATISFIABLE", {2, 3})
    assert read_cbc("Optimal - objective value 2.00000000\n      0 press_0   1   1\n      5 press_5   1  1\n", 16) \
        == ("OPTIMUM FOUND", {1, 6})

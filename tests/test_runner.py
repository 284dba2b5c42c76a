"""Runs measured as the competitions measure them: a process per run, wall, CPU and peak memory, the time
limit enforced on every strategy alike (killed at limit + margin), the environment recorded."""

from __future__ import annotations

import csv
import types

import pytest
from conftest import POJ_SAMPLE_CELLS, need_program

from flipgame import Game
from flipgame.backends.registry import STRATEGIES
from flipgame.backends.strategies import Strategy
from flipgame.cli import main
from flipgame.core.limits import MEASURE_MARGIN_SECONDS
from flipgame.core.workers import run_function
from flipgame.study.environment import environment, machine, solver_of
from flipgame.study.runner import run_measured


def test_a_run_in_a_process_of_its_own_is_measured():
    got = run_measured(STRATEGIES["cpsat"], Game(4, 4), POJ_SAMPLE_CELLS, 30.0)
    assert (got.status, got.solution.moves, got.note) == ("OPTIMAL", 4, "")
    m = got.measure
    assert m.where == "child" and not m.killed
    assert 0 < m.wall < 30 and m.cpu is not None and m.cpu >= 0
    assert m.peak_rss > 20 * 2**20  # the interpreter and OR-Tools are resident
    assert m.build is not None and m.solve is not None and m.build + m.solve <= m.wall  # cpsat builds a model


@pytest.mark.parametrize("name", ["rc2", "exact"])
def test_rc2_and_exact_record_their_model_building_apart(name):
    got = run_measured(STRATEGIES[name], Game(4, 4), POJ_SAMPLE_CELLS, 30.0, isolate=False)
    m = got.measure
    assert (got.status, got.solution.moves) == ("OPTIMAL", 4)
    assert m.build is not None and m.build > 0 and m.solve is not None and m.build + m.solve <= m.wall


@pytest.mark.needs("numba")
def test_a_strategy_past_its_clock_is_killed_at_the_limit_plus_the_margin():
    # gauss checks its clock between blocks of the long run: on the all-white 61x61 board to all black (nullity 40)
    # the first block (a quarter of a second, and loading the compiled kernel) outlasts the 0.05 s at which the
    # run is killed
    long_run = Strategy("gauss-40", "gauss", {"max_nullity": 40}, "gauss up to nullity 40")
    got = run_measured(long_run, Game(61, 61, "black"), 0, 0.02, margin=0.03)
    assert got.status == "UNKNOWN" and got.solution is None and got.measure.killed
    assert got.note == "killed at 0.05 s (time limit 0.02 s + 0.03 s margin)"
    assert got.measure.wall == pytest.approx(0.05)


def test_a_strategy_registered_here_runs_there_and_its_error_is_named():
    broken = Strategy("broken", "sat", {"cardinality": "nonsense"}, "a planted bad option")
    got = run_measured(broken, Game(3, 3), 1, 10.0)
    assert got.status == "ERROR" and "OptionError" in got.note and "cardinality" in got.note
    assert got.measure.where == "child"
    got = run_measured(broken, Game(3, 3), 1, 10.0, isolate=False)
    assert got.status == "ERROR" and "OptionError" in got.note and got.measure.where == "in-process"


def test_run_function_reports_a_child_that_dies():
    got = run_function("os:_exit", (3,), 30)
    assert not got.ok and got.run.exit_status == 3 and "worker exit status 3" in got.error
    got = run_function("time:sleep", (30,), 0.3)
    assert got.run.timed_out and got.error == "not finished within 0.3 s"


def test_the_environment_names_machine_solvers_and_versions():
    m = machine()
    assert m["cores"] >= 1 and m["cpu"] and m["python"].count(".") == 2
    assert solver_of(STRATEGIES["cpsat"])[0] == "OR-Tools CP-SAT" and solver_of(STRATEGIES["cpsat"])[1].startswith(
        "ortools ")
    assert solver_of(STRATEGIES["sat-cnf-glucose"])[0] == "glucose4 (python-sat)"
    assert solver_of(STRATEGIES["rc2"])[1].startswith("python-sat ")
    env = environment([STRATEGIES["gauss"]], {"time_limit": 5.0})
    assert env["limits"] == {"time_limit": 5.0} and env["solvers"]["gauss"]["version"].startswith("flipgame ")


def test_a_program_strategy_records_its_version():
    need_program("cadical")
    name, version = solver_of(STRATEGIES["cadical"])
    assert name == "cadical" and version not in ("", "unknown")


def test_a_program_without_a_version_command_is_never_run_with_a_guessed_version_flag(tmp_path):
    """A wrapper run as ``wrapper.sh --version`` would hand ``--version`` to what it wraps (grep, say) and record
    that tool's version; without a ``version`` command nothing is run and the version is unknown."""
    ran, wrapper = tmp_path / "ran", tmp_path / "wrapper.sh"
    wrapper.write_text(f"#!/bin/sh\ntouch {ran}\necho 'grep (GNU grep) 3.8'\n")
    wrapper.chmod(0o755)
    plain = Strategy("plain", "external", {"command": f"{wrapper} {{file}}", "format": "cnf"})
    assert solver_of(plain) == (str(wrapper), "unknown (no version command)") and not ran.exists()
    told = Strategy("told", "external", {"command": f"{wrapper} {{file}}", "format": "cnf",
                                         "version": "printf 'c warning: none\\nc mine version 2.1.0\\n'"})
    assert solver_of(told) == (str(wrapper), "mine version 2.1.0")  # the versioned line, its comment mark gone


@pytest.mark.slow
def test_no_recorded_wall_time_exceeds_the_limit_plus_the_margin_on_the_4x4_suite(tmp_path, capsys):
    """The done-when of issue 29: the 4x4 suite, a 5 s limit, rc2 and exact included (and bfs, which has no
    clock and is killed on Lights Out 2000's 3**16 states)."""
    suite, table = tmp_path / "suite", tmp_path / "runs.csv"
    assert main(["export-suite", str(suite), "--sizes", "4"]) == 0
    assert main(["study", "--strategies", "gauss,bfs,rc2,exact,cpsat,ilp-highs", "--suite", str(suite),
                 "--time-limit", "5", "--csv", str(table)]) == 0
    capsys.readouterr()
    with open(table) as f:
        runs = list(csv.DictReader(f))
    walls = [float(r["wall_seconds"]) for r in runs if r["wall_seconds"]]
    assert walls and max(walls) <= 5 + MEASURE_MARGIN_SECONDS
    assert {r["measured"] for r in runs if r["status"] != "refused"} == {"child"}
    assert all(r["cpu_seconds"] and r["peak_rss_mib"] for r in runs if r["wall_seconds"])
    assert {r["strategy"] for r in runs if r["status"] in ("OPTIMAL", "INFEASIBLE")} >= {"rc2", "exact"}


@pytest.mark.slow
def test_the_memory_limit_is_the_address_space_of_each_run():
    # bfs's 5x6 distance table alone is 2**30 bytes (uint8), over 300 MiB of address space (5x5's 32 MiB fit)
    got = run_measured(STRATEGIES["bfs"], Game(5, 6, "white"), 1, 60.0, memory_gib=0.3)
    assert (got.status, got.note) == ("ERROR", "out of memory (limit 0.3 GiB of address space)")
    assert got.measure.where == "child" and got.measure.peak_rss < 0.3 * 2**30


def test_a_solver_library_that_cannot_load_under_the_memory_limit_says_so(capsys):
    """Break-it: at --memory-limit 0.25 every cpsat run was 'ERROR in 0.002 s' with no message on the progress
    line; the CSV note held 'ImportError: libortools.so.9: failed to map segment from shared object'."""
    from flipgame.cli.study_strategies import print_progress
    from flipgame.study.runner import _error_note

    error = "ImportError: libortools.so.9: failed to map segment from shared object"
    note = _error_note(error, 0.25)
    assert note == ("the memory limit of 0.25 GiB of address space is too small to load the solver (give more with "
                    f"--memory-limit): {error}")
    assert _error_note(error, None) == error and _error_note("ValueError: x", 0.25) == "ValueError: x"
    run = types.SimpleNamespace(family="random", n=4, board=0, strategy="cpsat", status="ERROR", answered=False,
                                seconds=0.002, note=note, flag=None)
    print_progress(1, 1, run)
    assert capsys.readouterr().err == f"[1/1] random 4x4 board 0: cpsat: ERROR  in 0.002 s: {note}"[:200] + "\n"

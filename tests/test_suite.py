"""`flipgame export` and `export-suite`: files that external programs answer alone, as the manifest says."""

from __future__ import annotations

import csv
import json
import subprocess

import pytest
from conftest import need_program

from flipgame.backends.program_output import read_cbc, read_competition
from flipgame.cli import main


def manifest_rows(suite) -> list[dict]:
    """The rows of the suite's manifest.csv."""
    with open(suite / "manifest.csv") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    root = tmp_path_factory.mktemp("suite")
    assert main(["export-suite", str(root), "--sizes", "4,6", "--families", "random,torus,all-lit"]) == 0
    return root


def test_manifest_lists_every_instance_with_its_known_answer(suite):
    rows = manifest_rows(suite)
    data = json.loads((suite / "manifest.json").read_text())
    assert len(rows) == len(data["instances"]) == 7  # 3 families x 2 sizes + the 18x18 judge case
    judge = [r for r in rows if r["instance"] == "judge-18x18-unique"][0]
    assert judge["optimum"] == "176" and judge["certificate"] == "witness + gauss" and judge["bound"] == "175"
    lit4 = [r for r in rows if r["instance"] == "all-lit-4x4-0"][0]
    assert lit4["optimum"] == "4" and "toroidal" not in lit4["rules"]
    assert all("toroidal" in r["rules"] for r in rows if r["family"] == "torus")


@pytest.mark.slow  # a cbc run per instance; the press-system suite's cbc test below stays in the fast suite
def test_cbc_finds_the_manifest_optima_from_the_mps_files_alone(suite, tmp_path):
    need_program("cbc")
    for row in manifest_rows(suite):
        if row["n"] != "6":
            continue
        sol = tmp_path / (row["instance"] + ".sol")
        subprocess.run(["cbc", str(suite / (row["instance"] + ".mps")), "solve", "solu", str(sol)],
                       capture_output=True, timeout=120, check=False)
        status, presses = read_cbc(sol.read_text(), 36)
        assert status == "OPTIMUM FOUND" and len(presses) == int(row["optimum"]), row["instance"]


def test_cryptominisat_refutes_the_bounded_xcnf_files_alone(suite):
    need_program("cryptominisat5")
    for row in manifest_rows(suite):
        assert row["expected_sat"] == "UNSAT"
        out = subprocess.run(["cryptominisat5", "--verb", "0", str(suite / (row["instance"] + ".xcnf"))],
                             capture_output=True, text=True, timeout=120).stdout
        assert read_competition(out)[0] == "UNSATISFIABLE", row["instance"]


def test_export_cli_writes_the_header_and_refuses_a_bound_for_mps(tmp_path, capsys):
    board = tmp_path / "b.txt"
    board.write_text("bwwb\nbbwb\nbwwb\nbwww\n")
    out = tmp_path / "b.cnf"
    assert main(["export", "--format", "cnf", "--bound", "3", str(board), "-o", str(out)]) == 0
    text = out.read_text()
    assert "known answer: 4 (witness + gauss)" in text and "at most 3 presses" in text
    assert main(["export", "--format", "mps", "--bound", "3", str(board), "-o", str(out)]) == 2
    assert "--bound applies to cnf and xcnf" in capsys.readouterr().err
    lp = tmp_path / "b.lp"
    assert main(["export", "--format", "lp", str(board), "-o", str(lp)]) == 0
    rhs = [line.rsplit("=", 1)[1].strip() for line in lp.read_text().splitlines() if line.startswith(" parity_")]
    assert sorted(set(rhs)) == ["-1", "0"] and len(rhs) == 16  # a white cell's row read "= -0"


@pytest.fixture(scope="module")
def general(tmp_path_factory):
    root = tmp_path_factory.mktemp("general")
    assert main(["export-suite", str(root), "--families", "general", "--formats", "xcnf,wcnf,mps,lp,cpsat"]) == 0
    return root


GENERAL_OPTIMA = {"lo2000-5x5-all1": "18", "lo2000-5x5-all2": "21", "merlin-off-to-ring": "8",
                  "merlin-bww-to-ring": "4", "aoc2025-10-machine1": "10", "aoc2025-10-machine2": "12",
                  "aoc2025-10-machine3": "11"}


def test_the_general_family_lists_the_known_puzzles_with_their_optima(general):
    rows = {r["instance"]: r for r in manifest_rows(general)}
    assert {k: rows[k]["optimum"] for k in GENERAL_OPTIMA} == GENERAL_OPTIMA
    assert rows["aoc2025-10-machine1"]["certificate"] == "witness + bfs"
    assert rows["lo2000-5x5-all1"]["files"].split() == ["lo2000-5x5-all1.mps", "lo2000-5x5-all1.lp",
                                                       "lo2000-5x5-all1.pbtxt"]  # three states: no CNF
    data = {e["instance"]: e for e in json.loads((general / "manifest.json").read_text())["instances"]}
    assert data["merlin-bww-to-ring"]["system"]["target"] == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    assert data["merlin-bww-to-ring"]["system"]["board"] == [1, 0, 0, 0, 0, 0, 0, 0, 0]


def test_cbc_finds_the_press_system_optima_from_the_mps_files_alone(general, tmp_path):
    """Three states (Lights Out 2000) and counters (Advent of Code 2025 day 10, part 2) as MIPs."""
    need_program("cbc")
    for name in ("lo2000-5x5-all1", "lo2000-5x5-all2", "aoc2025-10-machine2"):
        sol = tmp_path / (name + ".sol")
        subprocess.run(["cbc", str(general / (name + ".mps")), "solve", "solu", str(sol)], capture_output=True,
                       timeout=120, check=False)
        first = sol.read_text().splitlines()[0].split()
        assert first[0] == "Optimal" and round(float(first[-1])) == int(GENERAL_OPTIMA[name]), name


def test_cryptominisat_refutes_merlin_one_press_short(general):
    need_program("cryptominisat5")
    for name in ("merlin-off-to-ring", "merlin-bww-to-ring"):
        out = subprocess.run(["cryptominisat5", "--verb", "0", str(general / (name + ".xcnf"))],
                             capture_output=True, text=True, timeout=60).stdout
        assert read_competition(out)[0] == "UNSATISFIABLE", name


def test_export_cli_writes_a_press_system_and_refuses_cnf_for_three_states(tmp_path, capsys):
    board = tmp_path / "b.txt"
    board.write_text("11111\n" * 5)
    out = tmp_path / "lo.lp"
    args = ["export", "--states", "3", "--goal", "0", "--size", "5x5", str(board)]
    assert main([*args, "--format", "lp", "-o", str(out)]) == 0
    assert "known answer: 18 (witness + gauss)" in out.read_text()
    assert main([*args, "--format", "cnf", "-o", str(out)]) == 2
    assert capsys.readouterr().err == "flipgame: cnf states parity (two states); for 3 states use mps, lp, cpsat\n"


@pytest.mark.needs("pycryptosat")
def test_study_runs_on_a_suite_from_its_files(tmp_path, capsys):
    """Every instance of a suite, grids and press systems alike, every answer checked against the manifest
    and gauss (press systems beyond two states: refused by sat, answered by ilp)."""
    root = tmp_path / "suite"
    assert main(["export-suite", str(root), "--families", "random,king,general", "--sizes", "4"]) == 0
    capsys.readouterr()
    table = tmp_path / "runs.csv"
    assert main(["study", "--strategies", "gauss,ilp-scip,sat-xor", "--suite", str(root), "--csv", str(table),
                 "--in-process"]) == 0
    out, err = capsys.readouterr()
    assert "Disagreements: 0" in out and "left out" not in err
    assert f"Strategies x families: suite {root}: 12 instances;" in out and "random board(s)" not in out
    with open(table) as f:
        runs = list(csv.DictReader(f))
    assert len(runs) == 3 * 12  # gauss, ilp-scip, sat-xor on random-4x4, king-4x4, the judge case, 9 press systems
    assert {r["family"] for r in runs} == {"random", "king", "judge", "general"}
    general = [r for r in runs if r["family"] == "general"]
    assert [r["status"] for r in general if r["strategy"] == "ilp-scip"] == ["OPTIMAL"] * 8 + ["INFEASIBLE"]  # z5
    assert sum(r["status"] == "refused" for r in general if r["strategy"] == "sat-xor") == 7  # beyond two states
    assert all(r["status"] == "OPTIMAL" for r in runs if r["family"] != "general")
    for extra, words in ((["--boards", "1"], "--boards does not apply"),
                         (["--boards", "1", "--seed", "3"], "--boards, --seed do not apply")):
        assert main(["study", "--strategies", "gauss", "--suite", str(root), *extra]) == 2
        assert capsys.readouterr().err == f"flipgame: --suite: {words}: the suite's manifest lists its instances\n"
    (root / "random-4x4-0.txt").write_text("wwww\nwwww\nwwww\nwwwb\n")  # a board the manifest does not describe
    assert main(["study", "--strategies", "gauss", "--suite", str(root)]) == 2
    assert "random-4x4-0: the manifest says" in capsys.readouterr().err
    (root / "manifest.json").unlink()
    assert main(["study", "--strategies", "gauss", "--suite", str(root)]) == 2
    assert capsys.readouterr().err == (f"flipgame: --suite {root}: no manifest.json (expected a folder written by "
                                       "`flipgame export-suite DIR`)\n")

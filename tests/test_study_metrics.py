"""The field's metrics of the strategy study: PAR-2, shifted geometric mean, VBS, the instances not run,
the CSV, and the study's report."""

from __future__ import annotations

import math

import pytest

from flipgame.cli import main
from flipgame.study import metrics as m
from flipgame.study.compare import Run, compare_strategies
from flipgame.study.records import CSV_FIELDS, read_csv, write_csv


def runs():
    return [Run("random", 4, 4, 0, "a", "OPTIMAL", 4, 1.0), Run("random", 4, 4, 1, "a", "UNKNOWN", None, 5.0),
            Run("random", 4, 4, 0, "b", "OPTIMAL", 4, 3.0), Run("random", 4, 4, 1, "b", "INFEASIBLE", None, 2.0),
            Run("random", 4, 4, 0, "c", "OPTIMAL", 5, 0.5, flag="disagrees with gauss (4)"),
            Run("random", 4, 4, 1, "c", "OPTIMAL", None, 9.0)]  # c: flagged, then over the limit


def test_par2_sgm_and_the_virtual_best_solver():
    rows = {r["strategy"]: r for r in m.metrics(runs(), time_limit=5.0)}
    assert rows["a"]["solved"] == 1 and rows["a"]["par2"] == pytest.approx((1 + 10) / 2)
    assert rows["a"]["par10"] == pytest.approx((1 + 50) / 2)
    assert rows["b"]["solved"] == 2 and rows["b"]["sgm"] == pytest.approx(math.sqrt(13 * 12) - 10)
    assert rows["c"]["solved"] == 0 and rows["c"]["par2"] == 10
    assert rows["VBS"]["solved"] == 2 and rows["VBS"]["par2"] == pytest.approx((1 + 2) / 2)
    # without b the VBS solves only board 0 (a, 1 s): PAR-2 (1 + 10) / 2 against (1 + 2) / 2 with it
    assert rows["b"]["marginal"] == pytest.approx(5.5 - 1.5) and rows["a"]["marginal"] == pytest.approx(1.0)
    assert rows["c"]["marginal"] == 0.0 and rows["VBS"]["marginal"] is None


def family_with_an_early_time_out():
    """a times out on 4x4 board 0 and so does not run the later boards; b solves all three."""
    return [Run("random", 4, 0, 0, "a", "UNKNOWN", None, 5.0),
            Run("random", 4, 0, 0, "b", "OPTIMAL", 4, 1.0),
            Run("random", 6, 0, 0, "a", m.NOT_RUN, note="after a time-out at 4x4 (nullity 0)"),
            Run("random", 6, 0, 0, "b", "OPTIMAL", 9, 2.0),
            Run("random", 8, 0, 0, "a", m.NOT_RUN, note="after a time-out at 4x4 (nullity 0)"),
            Run("random", 8, 0, 0, "b", "OPTIMAL", 16, 3.0)]


def test_instances_not_run_stay_in_every_metric_as_unsolved_for_that_strategy_only():
    rows = {r["strategy"]: r for r in m.metrics(family_with_an_early_time_out(), time_limit=5.0)}
    assert (rows["a"]["instances"], rows["a"]["solved"], rows["a"]["not_run"], rows["a"]["par2"]) == (3, 0, 2, 10.0)
    assert (rows["b"]["instances"], rows["b"]["solved"], rows["b"]["par2"]) == (3, 3, 2.0)
    assert (rows["VBS"]["instances"], rows["VBS"]["par2"]) == (3, 2.0)
    text = m.text(family_with_an_early_time_out(), 5.0)
    assert "not run after a time-out on a smaller instance or over the budget) = unsolved" in text
    assert "a                        0 of 3      0       2    10.000    50.000" in text


def test_a_refused_instance_is_not_applicable_never_a_time_out():
    # a CNF program ("cnf") meets a mod-3 board: refused; its PAR-2 is over the instances it takes
    rs = [Run("mix", 4, 0, 0, "gauss", "OPTIMAL", 3, 1.0), Run("mix", 4, 0, 0, "cnf", "OPTIMAL", 3, 3.0),
          Run("mix", 4, 0, 1, "gauss", "OPTIMAL", 5, 1.0), Run("mix", 4, 0, 1, "cnf", m.REFUSED)]
    rows = {r["strategy"]: r for r in m.metrics(rs, time_limit=5.0)}
    assert (rows["cnf"]["instances"], rows["cnf"]["na"], rows["cnf"]["solved"], rows["cnf"]["par2"]) == (1, 1, 1, 3.0)
    assert (rows["gauss"]["instances"], rows["VBS"]["instances"], rows["VBS"]["par2"]) == (2, 2, 1.0)


def test_a_strategy_refusing_a_whole_family_reads_n_a_there():
    rs = [Run("mod3", 4, 0, 0, "gauss", "OPTIMAL", 3, 1.0), Run("mod3", 4, 0, 0, "cnf", m.REFUSED)]
    rows = {r["strategy"]: r for r in m.metrics(rs, time_limit=5.0)}
    assert (rows["cnf"]["instances"], rows["cnf"]["na"], rows["cnf"]["par2"]) == (0, 1, None)
    assert [r["strategy"] for r in m.metrics(rs, 5.0)] == ["cnf", "gauss", "VBS"]


def test_the_clock_of_the_scores_is_the_study_s():
    run = Run("random", 4, 0, 0, "a", "OPTIMAL", 4, 6.0, cpu_seconds=1.5)  # 6 s of wall, 1.5 s of CPU
    assert not m.solved(run, 5.0, "wall") and m.solved(run, 5.0, "cpu")
    assert m.metrics([run], 5.0, "cpu")[0]["par2"] == 1.5 and m.metrics([run], 5.0, "wall")[0]["par2"] == 10.0
    assert "within 5 s of CPU time" in m.rule(5.0, "cpu")


def test_a_study_lists_the_later_instances_as_not_run_and_scores_them_as_unsolved():
    # gauss answers; cpsat times out on the first 5x5 board (nullity 2; a limit of 1 microsecond), so the later
    # boards of the family, no smaller and of no lower nullity (9x9: nullity 8), are not run by it
    st = compare_strategies(["gauss", "cpsat"], ["random"], sizes=[5, 9], boards=2, time_limit=1e-6, isolate=False)
    status = {(r.strategy, r.n, r.board): r.status for r in st.runs}
    assert status[("cpsat", 5, 0)] == "UNKNOWN"
    assert [status[("cpsat", n, b)] for n, b in ((5, 1), (9, 0), (9, 1))] == [m.NOT_RUN] * 3
    assert all(status[("gauss", n, b)] == "OPTIMAL" for n in (5, 9) for b in (0, 1))
    row = {r["strategy"]: r for r in st.summary()}["cpsat"]
    assert (row["instances"], row["solved"], row["time_outs"], row["not_run"]) == (4, 0, 1, 3)
    assert "cpsat: random/5x5/1, random/9x9/0, random/9x9/1 (after a time-out at 5x5 (nullity 2)" in st.text()
    rows = {r["strategy"]: r for r in m.metrics(st.runs, st.time_limit)}
    assert (rows["cpsat"]["instances"], rows["cpsat"]["not_run"]) == (4, 3)
    assert rows["cpsat"]["par2"] == pytest.approx(2e-6)  # every one unsolved: 2 x the limit
    assert rows["gauss"]["instances"] == 4 == rows["VBS"]["instances"]


def test_budget_spent_leaves_the_rest_not_run_and_unsolved():
    st = compare_strategies(["gauss"], ["random"], sizes=[4, 5, 6], boards=1, budget=1e-9, isolate=False)
    assert "Budget of 1e-09 s spent: 3 of 3 runs not run" in st.budget_note
    assert {r.status for r in st.runs} == {m.NOT_RUN} and {r.note for r in st.runs} == {"over budget"}
    row = m.metrics(st.runs, st.time_limit)[0]
    assert (row["instances"], row["solved"], row["par2"]) == (3, 0, 2 * st.time_limit)


def test_csv_round_trip_with_measures_and_environment(tmp_path):
    path = tmp_path / "runs.csv"
    rs = runs()
    rs[0].cpu_seconds, rs[0].peak_rss, rs[0].measured = 0.9, 50 * 2**20, "child"
    env = {"flipgame": "0.1.0", "machine": {"cpu": "Test CPU", "cores": 2, "memory_gib": 4.0},
           "limits": {"time_limit": 5.0, "margin": 1.0, "memory_limit_gib": 2.0},
           "solvers": {"a": {"solver": "A solver", "version": "a 1.0"}}}
    assert write_csv(rs, str(path), 5.0, env) == 6
    header, first = path.read_text().splitlines()[:2]
    assert tuple(header.split(",")) == CSV_FIELDS
    row = dict(zip(CSV_FIELDS, first.split(","), strict=True))
    assert (row["solved"], row["wall_seconds"], row["cpu_seconds"], row["peak_rss_mib"]) == \
        ("True", "1.000000", "0.900000", "50.0")
    assert (row["solver"], row["solver_version"], row["cpu_model"], row["memory_limit_gib"]) == \
        ("A solver", "a 1.0", "Test CPU", "2.0")
    back = read_csv(str(path))
    assert m.metrics(back, 5.0) == m.metrics(runs(), 5.0)
    assert back[0].cpu_seconds == 0.9 and back[0].peak_rss == 50 * 2**20


def test_an_old_csv_reads_with_skipped_as_not_run(tmp_path):
    path = tmp_path / "old.csv"
    path.write_text("instance,family,n,nullity,strategy,status,seconds,answer,flag\n"
                    "random/4x4/0,random,4,4,a,OPTIMAL,0.5,3,\nrandom/4x4/0,random,4,4,b,skipped,,,\n")
    back = read_csv(str(path))
    assert [(r.status, r.seconds, r.moves) for r in back] == [("OPTIMAL", 0.5, 3), (m.NOT_RUN, None, None)]
    path.write_text("instance,family\nx,y\n")
    with pytest.raises(ValueError, match="row 2: not a flipgame study CSV"):
        read_csv(str(path))


@pytest.mark.needs("matplotlib", "pycryptosat")
def test_study_cli_writes_csv_cactus_and_metrics(tmp_path, capsys):
    csv_path, png = tmp_path / "s.csv", tmp_path / "c.png"
    assert main(["study", "--strategies", "gauss,sat-xor,rc2", "--families", "random", "--sizes", "4",
                 "--boards", "1", "--in-process", "--csv", str(csv_path), "--cactus", str(png)]) == 0
    out = capsys.readouterr().out
    assert "PAR-2" in out and "shift 10 s" in out and "VBS" in out and "each run in this process" in out
    assert len(csv_path.read_text().splitlines()) == 4 and png.read_bytes()[:4] == b"\x89PNG"


def test_pandas_loads_the_csv_with_its_types(tmp_path):
    pandas = pytest.importorskip("pandas")
    path = tmp_path / "runs.csv"
    rs = runs()
    rs[0].cpu_seconds, rs[0].peak_rss = 0.9, 50 * 2**20
    write_csv(rs, str(path), 5.0, {"machine": {"cpu": "Test CPU", "cores": 2}, "limits": {"margin": 1.0}})
    frame = pandas.read_csv(path)
    assert list(frame.columns) == list(CSV_FIELDS)
    assert frame["solved"].dtype == bool and frame["solved"].tolist() == [True, False, True, True, False, False]
    assert frame["wall_seconds"].dtype == float and frame["cores"].tolist() == [2] * 6
    assert frame.groupby("strategy")["solved"].sum().to_dict() == {"a": 1, "b": 2, "c": 0}

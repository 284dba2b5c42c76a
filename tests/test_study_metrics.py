"""The field's metrics of the strategy study: PAR-2, shifted geometric mean, VBS, CSV, cactus plot."""

from __future__ import annotations

import math

import pytest

from flipgame.cli import main
from flipgame.study import metrics as m
from flipgame.study.compare import Run
from flipgame.study.figures import plot_cactus


def runs():
    return [Run("random", 4, 4, 0, "a", "OPTIMAL", 4, 1.0), Run("random", 4, 4, 1, "a", "UNKNOWN", None, 5.0),
            Run("random", 4, 4, 0, "b", "OPTIMAL", 4, 3.0), Run("random", 4, 4, 1, "b", "INFEASIBLE", None, 2.0),
            Run("random", 4, 4, 0, "c", "OPTIMAL", 5, 0.5, flag="disagrees with gauss (4)"),
            Run("random", 4, 4, 1, "c", "OPTIMAL", None, 9.0)]  # c: flagged, then over the limit


def test_par2_sgm_and_the_virtual_best_solver():
    rows = {r["strategy"]: r for r in m.metrics(runs(), time_limit=5.0)}
    assert rows["a"]["solved"] == 1 and rows["a"]["par2"] == pytest.approx((1 + 10) / 2)
    assert rows["b"]["solved"] == 2 and rows["b"]["sgm"] == pytest.approx(math.sqrt(13 * 12) - 10)
    assert rows["c"]["solved"] == 0 and rows["c"]["par2"] == 10
    assert rows["VBS"]["solved"] == 2 and rows["VBS"]["par2"] == pytest.approx((1 + 2) / 2)


def test_csv_round_trip_and_cactus(tmp_path):
    path = tmp_path / "runs.csv"
    assert m.write_csv(runs(), str(path)) == 6
    back = m.read_csv(str(path))
    assert m.metrics(back, 5.0) == m.metrics(runs(), 5.0)
    plot_cactus(back, 5.0, str(tmp_path / "c.png"))
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


def test_study_cli_writes_csv_cactus_and_metrics(tmp_path, capsys):
    csv_path, png = tmp_path / "s.csv", tmp_path / "c.png"
    assert main(["study", "--strategies", "gauss,sat-xor,rc2", "--families", "random", "--sizes", "4",
                 "--boards", "1", "--csv", str(csv_path), "--cactus", str(png)]) == 0
    out = capsys.readouterr().out
    assert "PAR-2" in out and "shift 10 s" in out and "VBS" in out
    assert len(csv_path.read_text().splitlines()) == 4 and png.exists()

"""A study's reports: one self-contained HTML file with the metrics, figures and paired statistics, BenchExec
result XML that table-generator reads, --json FILE beside the text, and 'study report' re-scoring a finished
study from its CSV or JSON without running a solver."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from flipgame.cli import main
from flipgame.study import statistics

DOC_RUNS = __import__("pathlib").Path(__file__).resolve().parent.parent / "docs" / "study" / "runs.csv"
"""The runs of the study docs/bench.md shows."""
STUDY = ["study", "--strategies", "gauss,cpsat,sat-cnf-minisat", "--families", "random,mod3", "--sizes", "3,4",
         "--boards", "3", "--in-process"]


@pytest.fixture(scope="module")
def study_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("study")
    files = {"csv": d / "runs.csv", "json": d / "runs.json", "xml": d / "bx"}
    code = main([*STUDY, "--csv", str(files["csv"]), "--json", str(files["json"]),
                 "--benchexec-xml", str(files["xml"])])
    assert code == 0
    return files


@pytest.mark.needs("matplotlib", "scipy")
def test_the_html_report_is_one_file_with_metrics_figures_and_paired_statistics(study_files, tmp_path):
    page = tmp_path / "report.html"
    assert main(["study", "report", str(study_files["csv"]), "--html", str(page)]) == 0
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.count("<svg") >= 3  # cactus, ECDF, scatter, CD diagram
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", text)  # nothing fetched to view it
    assert "refused (the strategy cannot express the instance) = n/a" in text
    assert "<td>mod3</td><td>sat-cnf-minisat</td><td>0 of 0</td><td>6</td>" in text  # n/a on every mod-3 board
    assert "Friedman test over the 6 instances every one of the 3 strategies can express" in text
    assert "Wilcoxon signed-rank test" in text and "<td>cpsat</td><td>gauss</td><td>12</td>" in text
    assert "Every answer agrees" in text


@pytest.mark.needs("benchexec")
def test_table_generator_reads_the_benchexec_result_xml(study_files, tmp_path):
    files = sorted(study_files["xml"].iterdir())
    assert [f.name for f in files] == ["flipgame.cpsat.results.xml", "flipgame.gauss.results.xml",
                                       "flipgame.sat-cnf-minisat.results.xml"]
    tool = shutil.which("table-generator") or str(__import__("pathlib").Path(sys.executable).with_name(
        "table-generator"))
    out = subprocess.run([tool, "-o", str(tmp_path), "-q", *map(str, files)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    table = next(tmp_path.glob("*.table.csv")).read_text()
    assert "random/3x3/0" in table and "mod3/4x4/2" in table and "refused" in table


def test_study_report_rescores_the_csv_and_the_json_without_running_a_solver(study_files, tmp_path, monkeypatch,
                                                                            capsys):
    def no_solver(*args, **kwargs):
        raise AssertionError("a solver ran")

    monkeypatch.setattr("flipgame.study.compare.run_measured", no_solver)
    original = json.loads(study_files["json"].read_text())["metrics"]["rows"]
    for source in ("csv", "json"):
        out = tmp_path / f"m-{source}.json"
        assert main(["study", "report", str(study_files[source]), "--json", str(out)]) == 0
        assert json.loads(out.read_text())["rows"] == original
    text = capsys.readouterr().out
    assert "Re-scored from" in text and "no solver was run" in text and "PAR-2 s" in text


def test_json_file_is_written_and_the_text_still_prints(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["study", "--strategies", "gauss", "--families", "random", "--sizes", "3", "--boards", "1",
                 "--in-process", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["metrics"]["clock"] == "cpu" and data["runs"][0]["strategy"] == "gauss"
    assert "Scoring: solved = a proven answer within" in capsys.readouterr().out


@pytest.mark.parametrize("args, words", [
    (["study", "report"], "study report needs the study's file"),
    (["study", "report", "nope.csv"], "cannot read nope.csv"),
    (["study", "report", str(DOC_RUNS), "--time-limit", "1"], "--time-limit applies to a study that runs"),
    (["study", "report", str(DOC_RUNS), "--strategies", "gauss"], "--strategies applies to a study that runs"),
])
def test_study_report_errors_are_one_line(args, words, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


@pytest.mark.needs("scipy")
def test_average_ranks_share_ties_and_the_critical_difference_follows_demsar():
    score = {"a": {"i": 1.0, "j": 1.0}, "b": {"i": 2.0, "j": 1.0}, "c": {"i": 3.0, "j": 5.0}}
    f = statistics.friedman(score)
    assert f["average_ranks"] == {"a": 1.25, "b": 1.75, "c": 3.0}
    assert f["critical_difference"] == pytest.approx(2.343 * (3 * 4 / 12) ** 0.5)


def test_an_exported_file_s_system_header_reads_back_as_the_same_rules(tmp_path, capsys):
    from flipgame import Game, from_json

    board = tmp_path / "b.txt"
    board.write_text("101\n020\n101\n")
    out = tmp_path / "e.lp"
    assert main(["export", "--states", "3", "--size", "3x3", "--wrap", "--format", "lp", "-o", str(out),
                 str(board)]) == 0
    header = next(line for line in out.read_text().splitlines() if "system (JSON):" in line)
    rules = tmp_path / "rules.json"
    rules.write_text(header.split("system (JSON): ", 1)[1])
    assert from_json(rules.read_text()) == Game(3, 3, "any", wrap=True, states=3)
    capsys.readouterr()
    assert main(["solve", "--rules", str(rules), str(board)]) == 0
    assert capsys.readouterr().out.strip() == "6"  # as --states 3 --size 3x3 --wrap answers, gauss and bfs


def test_every_row_carries_the_instance_s_content_hash(study_files):
    import csv

    from flipgame import Game
    from flipgame.study.compare import instance_hash

    with open(study_files["csv"], newline="") as f:
        rows = list(csv.DictReader(f))
    by_instance: dict[str, set[str]] = {}
    for r in rows:
        by_instance.setdefault(r["instance"], set()).add(r["instance_hash"])
    assert all(len(h) == 1 and len(next(iter(h))) == 16 for h in by_instance.values())  # one per instance
    assert len({next(iter(h)) for h in by_instance.values()}) == len(by_instance)  # distinct instances differ
    assert instance_hash(Game(4, 4), 5) == instance_hash(Game(4, 4), 5) != instance_hash(Game(4, 4), 6)


@pytest.mark.parametrize("args, words", [
    (["--html", "/proc/x.html"], "--html"),
    (["--json", "/proc/x.json"], "--json"),
    (["--wall-limit", "1", "--time-limit", "5"], "--wall-limit is the safety net of --clock cpu"),
])
def test_a_study_s_outputs_and_limits_are_checked_before_it_runs(args, words, monkeypatch, capsys):
    def no_solver(*a, **k):
        raise AssertionError("the study ran before refusing")

    monkeypatch.setattr("flipgame.study.compare.run_measured", no_solver)
    assert main(["study", "--strategies", "gauss", "--families", "random", "--sizes", "3", *args]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


@pytest.mark.needs("matplotlib")
def test_study_report_names_every_figure_it_writes(study_files, tmp_path, capsys):
    """--scatter and --table wrote their files without a word, where --cactus said so (new-user finding)."""
    files = {flag: tmp_path / name for flag, name in (("--cactus", "c.pdf"), ("--scatter", "s.png"),
                                                      ("--table", "t.tex"))}
    assert main(["study", "report", str(study_files["csv"]), *[a for f, p in files.items() for a in (f, str(p))]]) == 0
    err = capsys.readouterr().err
    assert all(p.exists() for p in files.values())
    assert f"Cactus plot: {files['--cactus']}" in err and f"Scatter plot: {files['--scatter']}" in err
    assert f"Table: {files['--table']}" in err


def test_an_interrupted_study_writes_the_runs_that_finished(tmp_path, capsys, monkeypatch):
    """A break-it run's Ctrl-C after 10 of 24 runs exited 130 with neither --csv nor --json written, though the
    exit code means "what finished has been written"."""
    import csv

    from flipgame.study import compare

    calls = []
    execute = compare._execute

    def interrupted_at_the_third(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return execute(*args)

    monkeypatch.setattr(compare, "_execute", interrupted_at_the_third)
    table, report = tmp_path / "runs.csv", tmp_path / "study.json"
    code = main(["study", "--strategies", "gauss,bfs", "--families", "random", "--sizes", "4", "--boards", "2",
                 "--in-process", "--csv", str(table), "--json", str(report)])
    err = capsys.readouterr().err
    assert code == 130 and "interrupted: 2 of 4 runs finished; the others were not run." in err
    with open(table) as f:
        runs = list(csv.DictReader(f))
    assert [(r["strategy"], r["status"]) for r in runs] == [("gauss", "OPTIMAL"), ("bfs", "OPTIMAL")]
    assert json.loads(report.read_text())["budget_note"].startswith("Interrupted: 2 of 4 runs finished")

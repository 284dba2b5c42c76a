"""`flipgame bench`: the backend table, and the CLI stream timed beside a reference program."""

from __future__ import annotations

import json
import stat
import sys

import pytest

from flipgame.cli import main


def test_bench_times_the_stream_beside_a_reference_and_counts_its_wrong_answers(tmp_path):
    # A "reference" that answers Impossible to every case: on 2x2 every board is solvable
    # (nullity 0), so it differs from flipgame on all 16.
    fake = tmp_path / "reference"
    fake.write_text(f"#!{sys.executable}\nimport sys\nrows = sys.stdin.read().split()\n"
                    "print('\\n'.join(['Impossible'] * (len(rows) // 2)))\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "bench.json"
    rc = main(["bench", "--size", "2x2", "--backends", "gauss,bfs", "--startup-runs", "1", "--json", str(out),
               "--reference", str(fake)])
    assert rc == 0
    stream = json.loads(out.read_text())["stream"]
    assert (stream["boards"], stream["reference_differs"], stream["reference_exit"]) == (16, 16, 0)
    assert stream["flipgame_seconds"] > 0 and stream["reference_seconds"] > 0


def test_bench_without_a_reference_times_the_stream_alone(tmp_path):
    out = tmp_path / "bench.json"
    assert main(["bench", "--size", "2x2", "--backends", "gauss", "--startup-runs", "1", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert set(result["stream"]) == {"boards", "flipgame_seconds"} and result["stream"]["boards"] == 16
    assert [r["backend"] for r in result["backends"]] == ["gauss"] and result["agree"]


def test_bench_refuses_a_reference_that_is_not_a_program_before_it_runs(tmp_path, capsys):
    text = tmp_path / "notes.txt"
    text.write_text("not a program\n")
    for ref in (str(tmp_path / "missing"), str(text)):
        rc = main(["bench", "--size", "2x2", "--backends", "gauss", "--json", str(tmp_path / "b.json"),
                   "--reference", ref])
        err = capsys.readouterr().err
        assert rc == 2 and f"--reference {ref}: not an executable program" in err and "Benchmark:" not in err
    assert not (tmp_path / "b.json").exists()


def _script(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport os, signal, sys, time\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.parametrize("body, exit_text", [
    ("sys.exit(1)", "exited with status 1"),
    ("os.kill(os.getpid(), signal.SIGSEGV)", "killed by signal 11"),
])
def test_bench_reports_a_reference_that_fails_without_a_speed_ratio(tmp_path, capsys, body, exit_text):
    ref = _script(tmp_path, "ref", body)
    rc = main(["bench", "--size", "2x2", "--backends", "gauss", "--startup-runs", "1", "--json",
               str(tmp_path / "b.json"), "--reference", ref])
    out = capsys.readouterr().out
    assert rc == 0
    assert f"{ref} {exit_text} after " in out and "(no speed ratio), 16 answers differ from flipgame's" in out
    assert "All backends agree: yes (the reference program is not among them: 16 of its answers differ)." in out
    stream = json.loads((tmp_path / "b.json").read_text())["stream"]
    assert stream["reference_exit"] == exit_text and "times_reference" not in stream


def test_bench_stops_a_reference_that_hangs(tmp_path, capsys, monkeypatch):
    from flipgame.bench import measure

    monkeypatch.setattr(measure, "REFERENCE_TIMEOUT", 1.0)
    ref = _script(tmp_path, "hang", "time.sleep(600)")
    rc = main(["bench", "--size", "2x2", "--backends", "gauss", "--startup-runs", "1", "--json",
               str(tmp_path / "b.json"), "--reference", ref])
    assert rc == 0 and f"{ref} did not finish within 1 s" in capsys.readouterr().out
    stream = json.loads((tmp_path / "b.json").read_text())["stream"]
    assert (stream["reference_seconds"], stream["reference_exit"]) == (None, "did not finish within 1 s")


def test_the_table_and_the_progress_line_round_a_backends_seconds_alike(tmp_path, capsys):
    """A new user saw 0.001 on the progress line and 0.002 in the table: the row kept 4 places, then the table
    rounded again to 3."""
    out = tmp_path / "bench.json"
    assert main(["bench", "--size", "3x3", "--backends", "gauss,bfs", "--startup-runs", "1", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    progress = dict(line.strip().removesuffix(" s").split(": ") for line in captured.err.splitlines()
                    if line.startswith("  ") and line.endswith(" s"))
    rows = {r["backend"]: r["seconds"] for r in json.loads(out.read_text())["backends"]}
    cells = [line.split() for line in captured.out.splitlines()]
    table = {row[0]: row[2] for row in cells if row and row[0] in rows}
    assert progress == table == {name: f"{seconds:.3f}" for name, seconds in rows.items()}

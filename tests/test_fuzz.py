"""flipgame fuzz: reproducible instances, the exhaustive oracle, settings that keep the question, findings of
faulty backends caught, shrunk and written as reproducers that replay."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from conftest import started_clean
from faulty_backends import FAULTY

from flipgame import BACKENDS, STRATEGIES, Board, Game, PressSystem
from flipgame.backends.parameters import CPSAT_FUZZ
from flipgame.backends.registry import get_backend
from flipgame.cli import main
from flipgame.core.errors import OptionError
from flipgame.verify.fuzz.campaign import Config, replay, run_campaign
from flipgame.verify.fuzz.instances import FAMILIES, draw
from flipgame.verify.fuzz.oracle import exhaustive
from flipgame.verify.fuzz.settings import draw_settings
from flipgame.verify.fuzz.shrink import shrink


@pytest.fixture(autouse=True)
def no_tables_left_behind():
    """bfs keeps its last two distance tables (up to hundreds of MiB over Z_7): dropped after each test, so the
    test process does not stay large (a large process makes every later fork and measured child slower)."""
    yield
    from flipgame.backends import bfs, bfs_zk

    bfs.distance_table.cache_clear()
    bfs_zk.distance_table.cache_clear()


def test_an_instance_is_the_same_from_the_same_seed_and_index():
    a, b = draw(7, 11), draw(7, 11)
    assert (a.system, a.board, a.family) == (b.system, b.board, b.family)
    assert draw(7, 12).system != a.system or draw(7, 12).board != a.board


def test_instances_cycle_through_the_families_and_draw_every_kind():
    seen = [draw(3, i) for i in range(300)]
    assert [x.family for x in seen[:6]] == [*FAMILIES, *FAMILIES]
    kinds = {x.system.states for x in seen}
    assert {None, 2, 3, 7} <= kinds
    assert {x.system.goal for x in seen} >= {"any", "white", "black", "board"}


def test_the_oracle_gives_the_poj_1753_answer_and_impossible():
    board = Board.from_rows(["bwwb", "bbwb", "bwwb", "bwww"]).cells
    assert exhaustive(Game(4, 4), board).minimum == 4
    two = PressSystem(2, [[0, 1]], goal="white")
    assert exhaustive(two, 0b01).minimum is None  # one cell black, the only button flips both: Impossible


def test_the_oracle_on_z3_and_counters():
    z3 = PressSystem(3, [[(0, 1), (1, 2)], [(1, 1), (2, 1)]], states=3, goal="0")
    assert exhaustive(z3, (1, 1, 2)).minimum == 3
    counters = PressSystem(2, [[(0, 2)], [(0, 1), (1, 1)]], states=None, goal="board", target=(5, 1))
    assert exhaustive(counters, (0, 0)).minimum == 3  # 2 + 2 + 1: two of the first, one of the second
    assert exhaustive(counters, (0, 2)).minimum is None  # cell 1 above its target


def test_the_oracle_declines_more_press_vectors_than_its_limit():
    assert exhaustive(Game(5, 5), 1, max_vectors=1 << 20) is None


def test_drawn_settings_are_always_accepted_together():
    rng = np.random.default_rng(0)
    for name in ("sat", "cpsat", "mip", "ilp", "gauss"):
        for _ in range(50):
            get_backend(name).check_options(draw_settings(name, rng))


def test_drawn_cpsat_parameters_come_from_the_declared_list():
    rng = np.random.default_rng(1)
    drawn = [draw_settings("cpsat", rng).get("params", "") for _ in range(100)]
    words = {w for d in drawn for w in d.split()}
    assert words and words <= set(CPSAT_FUZZ)


def test_a_parameter_that_changes_the_question_is_refused():
    from flipgame import solve

    with pytest.raises(OptionError, match="relative_gap_limit changes the question"):
        solve(["bwwb", "bbwb", "bwwb", "bwww"], "cpsat", params="relative_gap_limit:0.5")
    assert solve(["bwwb", "bbwb", "bwwb", "bwww"], "cpsat", params=" ".join(CPSAT_FUZZ)).moves == 4


def test_a_clean_campaign_has_no_findings():
    cfg = Config(seed=5, backends=["gauss", "bfs", "auto"], count=30, time_limit=5.0)
    tally = run_campaign(cfg)
    assert tally.next_index == 30 and not tally.kinds
    assert sum(tally.families.values()) == 30 and tally.oracle > 15


@pytest.fixture
def no_minimise(monkeypatch):
    monkeypatch.setitem(BACKENDS, "no_minimise", FAULTY["no_minimise"])
    return "no_minimise"


def _first_finding(seed: int, backends: list[str], count: int = 60):
    tally = run_campaign(Config(seed=seed, backends=backends, count=count, shrink=False))
    assert tally.findings, "the faulty backend went unnoticed"
    return tally


def test_a_backend_that_does_not_minimise_is_charged_a_wrong_minimum(no_minimise):
    tally = _first_finding(2, ["gauss", no_minimise])
    kinds = {k.split("|")[0] for k in tally.kinds}
    assert kinds == {"wrong minimum"}
    f = tally.findings[0]
    assert f["backend"] == "no_minimise" and int(f["got"]) > int(f["expected"])


def test_a_finding_is_shrunk_to_a_smaller_instance_that_still_fails(no_minimise):
    f = _first_finding(2, ["gauss", no_minimise]).findings[0]
    original = draw(f["seed"], f["index"])
    small, _, tried = shrink(original, "wrong minimum", no_minimise, {}, 5.0)
    assert tried > 0 and (small.system.m, small.system.cells) <= (original.system.m, original.system.cells)
    assert small.system.m < original.system.m or small.system.cells < original.system.cells
    expected = exhaustive(small.system, small.board).minimum
    assert expected is not None and FAULTY["no_minimise"].solve(small.system, small.board).moves > expected


def test_the_reproducer_folder_replays_the_finding(no_minimise, tmp_path):
    cfg = Config(seed=2, backends=["gauss", no_minimise], count=30, out=tmp_path / "out")
    tally = run_campaign(cfg)
    folders = [f["reproducer"] for f in tally.findings if f["reproducer"]]
    assert folders
    folder = tmp_path / "out" / folders[0].split("/")[-1]
    names = {p.name for p in folder.iterdir()}
    assert {"finding.json", "rules.json", "board.txt", "replay.sh", "README.md"} <= names
    assert any(n.startswith("instance.") for n in names)
    record = json.loads((folder / "finding.json").read_text())
    assert record["finding"]["kind"] == "wrong minimum" and "numpy" in record["versions"]
    recorded, now = replay(folder)
    assert recorded.kind == "wrong minimum" and [f.kind for f in now] == ["wrong minimum"]


def test_fuzz_command_exits_1_on_findings_and_replays(no_minimise, tmp_path, capsys):
    out = tmp_path / "f"
    rc = main(["fuzz", "--backends", f"gauss,{no_minimise}", "--count", "30", "--seed", "2", "--out", str(out)])
    assert rc == 1
    text = capsys.readouterr().out
    assert "FINDING wrong minimum: no_minimise" in text
    report = json.loads((out / "report.json").read_text())
    assert report["instances"] == 30 and report["findings_by_kind"]["wrong minimum"]["no_minimise"] >= 1
    folder = next(p for p in out.iterdir() if p.is_dir())
    assert main(["fuzz", "--replay", str(folder)]) == 1
    assert "still fails: wrong minimum" in capsys.readouterr().out


def test_fuzz_command_resumes_from_its_checkpoint(tmp_path, capsys):
    args = ["fuzz", "--backends", "gauss,bfs", "--seed", "4", "--out", str(tmp_path / "o"),
            "--checkpoint", str(tmp_path / "c.json")]
    assert main([*args, "--count", "16"]) == 0
    assert main([*args, "--count", "32"]) == 0
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    assert report["instances"] == 32 and sum(report["families"].values()) == 32
    assert main([*args[:-4], "--seed", "5", "--out", str(tmp_path / "o"), "--checkpoint", str(tmp_path / "c.json"),
                 "--count", "40"]) == 2
    assert "checkpoint of another campaign" in capsys.readouterr().err


def test_replay_of_a_folder_that_is_not_a_reproducer_is_one_line(tmp_path, capsys):
    assert main(["fuzz", "--replay", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a flipgame fuzz reproducer" in err or "cannot read" in err
    assert err.count("\n") == 1


def test_bfs_answers_unknown_when_its_table_outlasts_the_time_limit():
    from flipgame import solve

    system = PressSystem(10, [[(i, 1), ((i + 1) % 10, 2)] for i in range(10)], states=7, goal="0")
    s = solve((1,) * 10, "bfs", game=system, time_limit=0.05)
    assert s.status.name == "UNKNOWN"


def test_bfs_refuses_a_table_over_the_memory_budget_before_building():
    from flipgame import solve
    from flipgame.core.errors import MemoryBudgetError

    system = PressSystem(10, [[(i, 1)] for i in range(10)], states=7, goal="0")
    with pytest.raises(MemoryBudgetError, match="over the 102 MiB budget"):
        solve((1,) * 10, "bfs", game=system, memory_limit=0.1)


@pytest.fixture
def strategies_restored():
    """The strategies registered now, put back after the test (a strategies file registers its programs)."""
    saved = dict(STRATEGIES)
    yield
    STRATEGIES.clear()
    STRATEGIES.update(saved)


def test_a_solver_program_of_a_strategies_file_is_fuzzed_and_its_lie_replayed(tmp_path, capsys, strategies_restored):
    liar = tmp_path / "unsat-liar.sh"
    liar.write_text("#!/bin/sh\necho 's UNSATISFIABLE'\n")
    liar.chmod(0o755)
    toml = tmp_path / "s.toml"
    toml.write_text(f'[unsat]\ncommand = "{liar} {{file}}"\nformat = "cnf"\n')
    out = tmp_path / "f"
    rc = main(["fuzz", "--strategies-file", str(toml), "--backends", "gauss", "--strategies", "unsat", "--count", "20",
               "--out", str(out)])
    assert rc == 1
    report = json.loads((out / "report.json").read_text())
    assert set(report["findings_by_kind"]) == {"wrong Impossible"}
    folder = next(p for p in out.iterdir() if p.is_dir())
    assert f"--strategies-file {toml} --rules rules.json --strategy unsat" in (folder / "replay.sh").read_text()
    assert (folder / "instance.cnf").exists() and "(the strategy's own command)" in (folder / "README.md").read_text()
    record = json.loads((folder / "finding.json").read_text())
    assert record["drawn"]["family"] in ("grid", "graph", "buttons") and record["finding"]["reproducer"]
    assert record["finding"]["expected"]  # what the oracle or gauss says, never empty for a wrong Impossible
    assert main(["fuzz", "--strategies-file", str(toml), "--replay", str(folder)]) == 1
    assert "still fails: wrong Impossible by unsat" in capsys.readouterr().out


def _interrupted_campaign(tmp_path, backends: str, jobs: str):
    """A campaign stopped by Ctrl-C once its first round is in the checkpoint: (process, stderr, paths)."""
    import signal
    import subprocess
    import sys
    import time

    checkpoint, out = tmp_path / "c.json", tmp_path / "o"
    cmd = [sys.executable, "-m", "flipgame", "fuzz", "--backends", backends, "--count", "100000", "--jobs", jobs,
           "--out", str(out), "--checkpoint", str(checkpoint)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=started_clean)
    deadline = time.monotonic() + 120
    while not checkpoint.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    return proc, err, checkpoint, out


@pytest.mark.needs("exact")
def test_ctrl_c_in_this_process_stops_the_campaign_even_after_exact_took_the_signal_handler(tmp_path):
    # Exact installs its own SIGINT handler as it solves: Ctrl-C ended its calls as crashes, never the campaign
    proc, err, checkpoint, out = _interrupted_campaign(tmp_path, "gauss,pb", "1")
    assert proc.returncode == 130, err
    report = json.loads((out / "report.json").read_text())
    assert report["interrupted"] and not report["findings_by_kind"] and "Traceback" not in err


def test_ctrl_c_stops_a_campaign_with_its_report_and_the_checkpoint_resumes(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    checkpoint, out = tmp_path / "c.json", tmp_path / "o"
    cmd = [sys.executable, "-m", "flipgame", "fuzz", "--backends", "gauss,cpsat", "--count", "100000", "--jobs", "2",
           "--out", str(out), "--checkpoint", str(checkpoint)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=started_clean)
    deadline = time.monotonic() + 120
    while not checkpoint.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    report = json.loads((out / "report.json").read_text())
    done = json.loads(checkpoint.read_text())["tally"]["next_index"]
    assert report["interrupted"] and report["instances"] == done >= 16
    assert f"interrupted after {done} instances; --checkpoint resumes" in err and "Traceback" not in err
    assert main(["fuzz", "--backends", "gauss,cpsat", "--count", str(done + 16), "--out", str(out),
                 "--checkpoint", str(checkpoint)]) == 0
    assert json.loads((out / "report.json").read_text())["instances"] == done + 16


def test_a_hand_edited_reproducer_or_checkpoint_is_refused_in_one_line(no_minimise, tmp_path, capsys):
    out = tmp_path / "f"
    assert main(["fuzz", "--backends", f"gauss,{no_minimise}", "--count", "30", "--seed", "2", "--out", str(out)]) == 1
    folder = next(p for p in out.iterdir() if p.is_dir())
    record = json.loads((folder / "finding.json").read_text())
    for edit in ({"time_limit": -5}, {"time_limit": float("nan")}, {"settings": [1]}, {"settings": {"nope": 1}}):
        (folder / "finding.json").write_text(json.dumps({**record, **edit}))
        capsys.readouterr()
        assert main(["fuzz", "--replay", str(folder)]) == 2, edit
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "finding.json" in err
    checkpoint = tmp_path / "c.json"
    checkpoint.write_text(json.dumps({"seed": 0, "backends": ["gauss"], "time_limit": 5.0, "tally": {
        "next_index": -5, "seconds": 0, "families": {}, "oracle": 0, "calls": {}, "kinds": {}, "findings": []}}))
    assert main(["fuzz", "--backends", "gauss", "--count", "4", "--out", str(tmp_path / "g"),
                 "--checkpoint", str(checkpoint)]) == 2
    assert "not a flipgame fuzz checkpoint (next_index is -5)" in capsys.readouterr().err


def test_limits_that_stop_a_search_early_are_refused_as_solver_parameters():
    from flipgame import solve

    for params in ("max_deterministic_time:0.0001", "max_number_of_conflicts:1"):
        with pytest.raises(OptionError, match="changes the question"):
            solve(["bwwb", "bbwb", "bwwb", "bwww"], "cpsat", params=params)
    from flipgame.backends.parameters import scip_settings

    with pytest.raises(OptionError, match="limits/softtime changes the question"):
        scip_settings("limits/softtime:0.01")


def test_a_hang_must_happen_twice_to_be_a_finding(monkeypatch):
    """New-user: 'hang: gauss ... no answer after 25 s at a 5 s limit' on a 3-cell system, beside other jobs; the
    reproducer answered in a second.  A timing finding is now made again before it is judged."""
    from faulty_backends import FunctionBackend

    from flipgame.pipeline.gate import solve as solve_gate
    from flipgame.verify.fuzz import run

    monkeypatch.setattr(run, "FUZZ_HANG_GRACE", 0.2)  # a hang at 3 x 0.1 + 0.2 = 0.5 s
    calls = []

    def slow_once(game, board):
        calls.append(board)
        if len(calls) == 1:
            time.sleep(1.5)  # the first call only: a kernel compiling, a loaded machine
        return solve_gate(board, "gauss", game=game)

    def always_slow(game, board):
        time.sleep(1.5)
        return solve_gate(board, "gauss", game=game)

    game = Game(3, 3, "white")
    got = run.attempt_confirmed(game, 1, FunctionBackend("slow_once", slow_once), {}, 0.1)
    assert (got.status, got.moves, len(calls)) == ("optimal", 5, 2)
    got = run.attempt_confirmed(game, 1, FunctionBackend("always_slow", always_slow), {}, 0.1)
    assert got.status == "hang" and got.message.endswith("at a 0.1 s limit (the first call too)")

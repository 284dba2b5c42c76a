"""A study measured as the competitions measure: the CPU-time limit by default, solver programs measured and
limited by BenchExec (cgroups: the program's own tree), the termination reason recorded, one scoring rule."""

from __future__ import annotations

import csv

import pytest

from flipgame.cli import main
from flipgame.core import cgroup_run
from flipgame.study import metrics as m
from flipgame.study.compare import compare_strategies

PROGRAMS = {
    "spin": "exec python3 -c 'while True: pass'",
    "sleeper": "exec sleep 100",
    "alloc300": "exec python3 -c 'a = bytearray(300 << 20)\nfor i in range(0, len(a), 4096): a[i] = 1\n"
                "print(\"s UNSATISFIABLE\")'",
    "alloc1g": "exec python3 -c 'a = bytearray(1 << 30)\nfor i in range(0, len(a), 4096): a[i] = 1\n"
               "print(\"s UNSATISFIABLE\")'",
}


@pytest.fixture
def strategies_file(tmp_path):
    """A strategies file of four misbehaving programs; the strategies registered now are put back after."""
    from flipgame import STRATEGIES

    saved = dict(STRATEGIES)
    lines = []
    for name, body in PROGRAMS.items():
        script = tmp_path / f"{name}.sh"
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(0o755)
        lines.append(f'[{name}]\ncommand = "{script} {{file}}"\nformat = "cnf"\n')
    path = tmp_path / "programs.toml"
    path.write_text("\n".join(lines))
    yield str(path)
    STRATEGIES.clear()
    STRATEGIES.update(saved)


def _runs(path) -> dict[str, dict]:
    with open(path, newline="") as f:
        return {r["strategy"]: r for r in csv.DictReader(f)}


@pytest.mark.needs("benchexec")
def test_benchexec_stops_programs_at_cpu_time_the_wall_safety_net_and_memory(tmp_path, strategies_file, capsys):
    if cgroup_run.unavailable():
        pytest.skip(cgroup_run.unavailable())
    out = tmp_path / "runs.csv"
    main(["study", "--strategies-file", strategies_file, "--strategies", "spin,sleeper,alloc300", "--families",
          "random", "--sizes", "3", "--boards", "1", "--time-limit", "1", "--wall-limit", "2", "--csv", str(out)])
    runs = _runs(out)
    spin, sleeper, alloc = runs["spin"], runs["sleeper"], runs["alloc300"]
    assert (spin["termination"], spin["measured_by"], spin["clock"]) == ("cputime", "benchexec", "cpu")
    assert 1.0 <= float(spin["cpu_seconds"]) < 3.0  # stopped on its CPU time (BenchExec checks about every second)
    assert "did not finish within 1 s of CPU time" in spin["note"]
    assert sleeper["termination"] == "walltime" and float(sleeper["cpu_seconds"]) < 0.5
    assert "wall-clock safety net" in sleeper["note"]
    assert float(alloc["peak_rss_mib"]) >= 300 and alloc["measured_by"] == "benchexec"  # the program's own peak
    text = capsys.readouterr().out
    assert "1 s of CPU time per run (wall-clock safety net 2 s)" in text
    assert "solver programs measured and limited by BenchExec" in text
    out2 = tmp_path / "runs2.csv"
    main(["study", "--strategies-file", strategies_file, "--strategies", "alloc1g", "--families", "random", "--sizes",
          "3", "--boards", "1", "--time-limit", "5", "--memory-limit", "0.2", "--csv", str(out2)])
    hog = _runs(out2)["alloc1g"]
    assert hog["termination"] == "memory" and "ran out of memory" in hog["note"] and hog["status"] == "UNKNOWN"


def test_a_two_state_strategy_on_mod3_instances_is_n_a_there_and_scored_over_the_rest():
    st = compare_strategies(["gauss", "sat-cnf-minisat"], ["random", "mod3"], sizes=[3], boards=2, isolate=False)
    assert {r.status for r in st.runs if r.strategy == "sat-cnf-minisat" and r.family == "mod3"} == {m.REFUSED}
    rows = {(r["family"], r["strategy"]): r for r in m.metrics(st.runs, st.time_limit, st.clock)}
    assert (rows[("mod3", "sat-cnf-minisat")]["instances"], rows[("mod3", "sat-cnf-minisat")]["na"]) == (0, 2)
    assert rows[("mod3", "sat-cnf-minisat")]["par2"] is None and rows[("random", "sat-cnf-minisat")]["instances"] == 2
    assert rows[("random", "sat-cnf-minisat")]["solved"] == 2 and st.clock == "cpu"
    assert "refused (the strategy cannot express the instance) = n/a" in m.text(st.runs, st.time_limit, st.clock)


def test_repeat_records_the_run_of_median_seconds_and_the_spread():
    from flipgame.study.compare import median_outcome
    from flipgame.study.runner import Measure, Outcome

    def out(status, cpu):
        return Outcome(status, None, "", Measure(wall=cpu + 1.0, cpu=cpu))

    runs = [out("OPTIMAL", 3.0), out("UNKNOWN", 9.0), out("OPTIMAL", 1.0), out("OPTIMAL", 2.0)]
    assert median_outcome(runs, "cpu").measure.cpu == 2.0  # the lower median; the time-out counts as slowest
    st = compare_strategies(["gauss"], ["random"], sizes=[4], boards=1, isolate=False, repeat=3)
    (run,) = st.runs
    assert run.repeats == 3 and run.spread_seconds is not None and run.spread_seconds >= 0

"""Test the tester: planted faulty backends must make `flipgame verify` fail, replayably."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import POJ_SAMPLE, POJ_SAMPLE_CELLS, flipgame, solve_gate
from faulty_backends import FAULTY, FunctionBackend

from flipgame import BACKENDS, Backend, Board, Game, Solution, Status, solve
from flipgame.cli import ExitCode, main
from flipgame.verify.run.harness import run_agreement


def planted(name: str, corrupt) -> Backend:
    """A backend that answers like gauss, then lets ``corrupt(board, solution)`` lie."""

    def solve(game, board):
        s = corrupt(board, solve_gate("gauss", game, board))
        return Solution(name, s.status, s.moves, s.presses, s.target, s.seconds)

    return FunctionBackend(name, solve, "planted fault")


def zero_for_sample(board, s):
    """Answers 0 presses (with an empty witness) for the POJ sample: wrong count and witness."""
    return Solution(s.backend, Status.OPTIMAL, 0, 0, 0) if board == POJ_SAMPLE_CELLS else s


def impossible_for_sample(board, s):
    """Claims Impossible for the POJ sample: a disagreement only the other backends can catch."""
    return Solution(s.backend, Status.INFEASIBLE) if board == POJ_SAMPLE_CELLS else s


def bad_witness_for_sample(board, s):
    """Right count, wrong press set: only the witness check can catch it."""
    if board == POJ_SAMPLE_CELLS:
        return Solution(s.backend, Status.OPTIMAL, 4, 0b1111, s.target)
    return s


def timeout_for_sample(board, s):
    return Solution(s.backend, Status.UNKNOWN) if board == POJ_SAMPLE_CELLS else s


@pytest.mark.parametrize(
    "corrupt, code, disagreements, witness_failures",
    [
        (zero_for_sample, ExitCode.DISAGREEMENT, 1, 1),
        (impossible_for_sample, ExitCode.DISAGREEMENT, 1, 1),  # and it has no certificate
        (bad_witness_for_sample, ExitCode.WITNESS_FAILURE, 0, 1),
        (timeout_for_sample, ExitCode.INCOMPLETE, 0, 0),
    ],
)
def test_verify_catches_planted_fault(monkeypatch, tmp_path, capsys, corrupt, code, disagreements, witness_failures):
    monkeypatch.setitem(BACKENDS, "liar", planted("liar", corrupt))
    report_path = tmp_path / "report.json"
    rc = main(["verify", "--backends", "gauss,bfs,liar", "--report", str(report_path), "--jobs", "1"])
    assert rc == code != ExitCode.OK
    report = json.loads(report_path.read_text())
    assert report["ok"] is False
    assert len(report["disagreements"]) == disagreements
    assert len(report["witness_failures"]) == witness_failures
    rows = {b["backend"]: b for b in report["backends"]}
    assert rows["liar"]["disagreements"] == disagreements
    assert rows["gauss"]["disagreements"] == rows["bfs"]["disagreements"] == 0
    assert rows["liar"]["witness_failures"] == witness_failures
    for record in report["disagreements"] + report["witness_failures"]:
        # Replayable: the board as text, and every backend's answer.
        assert record["board"] == POJ_SAMPLE_CELLS
        assert record["text"] == POJ_SAMPLE
    if disagreements:
        answers = report["disagreements"][0]["answers"]
        assert answers["gauss"]["answer"] == answers["bfs"]["answer"] == "4"
        assert answers["liar"]["answer"] != "4"
    assert "liar" in capsys.readouterr().out


def test_uncertified_impossible_is_caught_even_without_other_backends(monkeypatch):
    monkeypatch.setitem(BACKENDS, "liar", planted("liar", impossible_for_sample))
    report = run_agreement(Game(), ["liar"], np.array([14, POJ_SAMPLE_CELLS], dtype=np.uint64))
    assert report.summaries[0].witness_failures == 1
    failure = report.witness_failures[0]
    assert failure["board"] == POJ_SAMPLE_CELLS and "no parity certificate exists" in failure["reason"]


def test_a_backend_off_gauss_is_charged_and_gauss_is_not(monkeypatch):
    """Two backends, two answers: gauss is the reference (pipeline.decide), so only the other is charged."""
    monkeypatch.setitem(BACKENDS, "liar", planted("liar", impossible_for_sample))
    report = run_agreement(Game(), ["gauss", "liar"], np.array([0, POJ_SAMPLE_CELLS], dtype=np.uint64))
    assert [s.disagreements for s in report.summaries] == [0, 1]
    assert report.disagreements[0]["board"] == POJ_SAMPLE_CELLS


def test_two_backends_tied_without_gauss_are_both_charged(monkeypatch):
    monkeypatch.setitem(BACKENDS, "liar", planted("liar", impossible_for_sample))
    report = run_agreement(Game(), ["bfs", "liar"], np.array([0, POJ_SAMPLE_CELLS], dtype=np.uint64))
    assert [s.disagreements for s in report.summaries] == [1, 1]
    assert report.disagreements[0]["board"] == POJ_SAMPLE_CELLS


def test_backend_exception_becomes_error_and_the_run_goes_on(monkeypatch):
    def explode(board, s):
        if board == 7:
            raise RuntimeError("solver crashed")
        return s

    monkeypatch.setitem(BACKENDS, "crashy", planted("crashy", explode))
    boards = np.arange(16, dtype=np.uint64)
    report = run_agreement(Game(2, 2), ["gauss", "crashy"], boards, chunk_size=4)
    crashy = report.summaries[1]
    assert crashy.errors == 1  # only board 7: the chunk is re-solved board by board
    assert crashy.solvable + crashy.impossible == 15
    assert "board 7: RuntimeError: solver crashed" in crashy.error_messages[0]
    assert report.incomplete and not report.ok and not report.disagreements


def test_honest_backends_agree_and_report_counts(tmp_path):
    report = run_agreement(Game(3, 3, goal="white"), ["gauss", "bfs"])
    assert report.ok
    assert [(s.boards, s.solvable, s.impossible) for s in report.summaries] == [(512, 512, 0)] * 2
    assert "gauss" in report.table() and "boards/s" in report.table()


def test_parallel_workers_give_the_same_answers():
    boards = np.arange(0, 1 << 12, 7, dtype=np.uint64)
    game = Game(3, 4)
    report = run_agreement(game, ["gauss", "cpsat"], boards, jobs=2, chunk_size=128)
    assert report.ok
    assert report.summaries[1].boards == len(boards)


@pytest.mark.parametrize("fault", sorted(FAULTY))
@pytest.mark.needs("pycryptosat")
def test_verify_reports_every_known_kind_of_fault(monkeypatch, tmp_path, fault):
    """Each faulty backend makes `flipgame verify` exit non-zero with a replayable report."""
    monkeypatch.setitem(BACKENDS, fault, FAULTY[fault])
    report_path = tmp_path / "report.json"
    rc = main(["verify", "--size", "3x3", "--backends", f"gauss,bfs,{fault}", "--report", str(report_path),
               "--jobs", "1"])
    assert rc in (ExitCode.DISAGREEMENT, ExitCode.WITNESS_FAILURE)
    report = json.loads(report_path.read_text())
    rows = {b["backend"]: b for b in report["backends"]}
    assert rows[fault]["disagreements"] + rows[fault]["witness_failures"] > 0
    assert rows["gauss"]["disagreements"] == rows["bfs"]["disagreements"] == 0
    assert rows["gauss"]["witness_failures"] == rows["bfs"]["witness_failures"] == 0
    # Replay the first reported board with the CLI: it gives gauss's recorded answer.
    record = (report["disagreements"] or report["witness_failures"])[0]
    assert record["board"] == Board.from_rows(record["text"]).cells
    truth = solve(record["text"], "bfs").answer()  # the distance table, independent of gauss
    replay = flipgame("solve", "--size", "3x3", stdin="\n".join(record["text"]) + "\n")
    assert (replay.returncode, replay.stdout) == (0, truth + "\n")
    if "answers" in record:  # a disagreement: gauss recorded the truth, the fault did not
        assert record["answers"]["gauss"]["answer"] == truth != record["answers"][fault]["answer"]


@pytest.mark.parametrize("corrupt", [zero_for_sample, impossible_for_sample, bad_witness_for_sample])
def test_a_long_run_keeps_its_answers_packed_and_reports_the_same(monkeypatch, corrupt):
    """Past PACK_MIN_BOARDS boards a run keeps its witnesses compressed and checks a step at a time (5x5 with
    gauss and bfs peaked at 3.4 GB): the same disagreements, witness failures and counts as kept whole."""
    from flipgame.pipeline import answers
    from flipgame.verify.run import agreement

    monkeypatch.setitem(BACKENDS, "liar", planted("liar", corrupt))
    found = []
    for packed in (False, True):
        if packed:
            monkeypatch.setattr(answers, "PACK_MIN_BOARDS", 0)
            monkeypatch.setattr(agreement, "COMPARE_STEP", 5000)
        r = run_agreement(Game(4, 4), ["gauss", "bfs", "liar"], chunk_size=4096)
        rows = [(s.backend, s.solvable, s.impossible, s.disagreements, s.witness_failures) for s in r.summaries]
        found.append((rows, r.disagreements, r.witness_failures))
    assert found[0] == found[1] and (found[0][1] or found[0][2])

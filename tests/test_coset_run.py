"""flipgame.algebra.coset_run: the long enumeration (progress, Ctrl-C, checkpoints, both cores), and gauss,
auto and ``flipgame solve`` on nullity over 22."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import flipgame, lit_coset, sigint_default, wait_until_busy

from flipgame import solve
from flipgame.algebra import coset_checkpoint, coset_run, minweight, wht_blocked
from flipgame.algebra import gf2 as algebra
from flipgame.algebra.coset_run import InterruptedRun
from flipgame.backends import auto
from flipgame.backends.auto import plan
from flipgame.backends.gauss import nullity_hint
from flipgame.core.errors import CheckpointError, NullityTooLargeError, OptionError
from flipgame.core.limits import TIME_LIMIT_DEFAULT_SECONDS
from flipgame.model.grid import Game, format_cells


def _interrupt_after(monkeypatch, blocks: int) -> None:
    """Ctrl-C (a KeyboardInterrupt) as the kernel starts block number ``blocks``."""
    real, calls = wht_blocked.group_maxima, {"n": 0}

    def counting(laid, k, groups, full=False):
        if not full:
            calls["n"] += 1
            if calls["n"] > blocks:
                raise KeyboardInterrupt
        return real(laid, k, groups, full)

    monkeypatch.setattr(wht_blocked, "group_maxima", counting)


@pytest.mark.needs("numba")
def test_interrupt_gives_an_unproven_bound_and_the_checkpoint_resumes_to_the_same_minimum(
        small_blocks, monkeypatch, tmp_path):
    game, board, parts, quiet = lit_coset(19)
    whole = coset_run.minimum(game, board, parts, quiet)
    assert whole.best.weight == 141  # A075464(19)
    path = str(tmp_path / "run.json")
    with monkeypatch.context() as m:
        _interrupt_after(m, 5)
        with pytest.raises(InterruptedRun) as caught:
            coset_run.minimum(game, board, parts, quiet, checkpoint=path)
    best = caught.value.best
    assert best.weight >= 141 and game.apply(board, best.presses) == 0 and caught.value.checkpoint == path
    assert caught.value.bound_text() == f"Unknown (at most {best.weight} presses found, not proven minimal)"
    saved = json.loads(Path(path).read_text())
    assert 5 <= saved["next_block"][0] < 16 and saved["best"]["weight"] == best.weight
    resumed = coset_run.minimum(game, board, parts, quiet, checkpoint=path)
    assert resumed.best == whole.best
    assert resumed.enumerated == whole.enumerated  # the blocks before the interrupt are not done twice
    again = coset_run.minimum(game, board, parts, quiet, checkpoint=path)  # finished: nothing left to enumerate
    assert again.best == whole.best


@pytest.mark.needs("numba")
def test_a_checkpoint_of_another_board_or_a_damaged_one_is_refused_in_one_line(small_blocks, tmp_path):
    game, board, parts, quiet = lit_coset(19)
    path = str(tmp_path / "run.json")
    coset_run.minimum(game, board, parts, quiet, checkpoint=path)
    other = game.apply(0, 1 << 50 | 1 << 70)
    oparts, oquiet, _ = algebra.solution_cosets(game, other)
    with pytest.raises(CheckpointError, match=r"is for another board or rules: another board of the same rules "
                                              r"\(19x19 plus, goal white\); a file keeps one long case") as e:
        coset_run.minimum(game, other, oparts, oquiet, checkpoint=path)
    assert "\n" not in str(e.value)
    data = json.loads(Path(path).read_text())
    data["next_block"] = [0]
    Path(path).write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="is damaged"):
        coset_run.minimum(game, board, parts, quiet, checkpoint=path)
    with pytest.raises(CheckpointError, match="cannot write checkpoint"):
        coset_run.minimum(game, board, parts, quiet, checkpoint=str(tmp_path / "no" / "such" / "file.json"))


@pytest.mark.needs("numba")
@pytest.mark.parametrize(("edit", "why"), [
    ({"next_block": ["a"]}, "'a' is no count"), ({"next_block": 5}, "next_block is no list"),
    ({"enumerated": "zz"}, "'zz' is no count"), ({"best": {"weight": 141, "target": "0"}}, "KeyError: 'presses'"),
    ({"best": {"weight": 141, "presses": "zz", "target": "0"}}, "invalid literal for int"),
    ({"best": {"weight": 140, "presses": hex((1 << 141) - 1), "target": "0"}}, "has 141 presses, not its weight 140"),
])
def test_a_checkpoint_value_of_the_wrong_type_is_damage_not_an_error_of_the_run(small_blocks, tmp_path, edit, why):
    """A break-it run recomputed the checksum after each edit: the run answered Error (exit 4) with a TypeError."""
    game, board, parts, quiet = lit_coset(19)
    path = tmp_path / "run.json"
    coset_run.minimum(game, board, parts, quiet, checkpoint=str(path))
    data = json.loads(path.read_text()) | edit
    data["check"] = coset_checkpoint._digest({k: v for k, v in data.items() if k != "check"})
    path.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="is damaged") as caught:
        coset_run.minimum(game, board, parts, quiet, checkpoint=str(path))
    assert why in str(caught.value) and str(caught.value).endswith("; remove it")


@pytest.mark.needs("numba")
def test_a_checkpoint_whose_witness_fails_the_board_is_refused(small_blocks, tmp_path):
    game, board, parts, quiet = lit_coset(19)
    path = str(tmp_path / "run.json")
    coset_run.minimum(game, board, parts, quiet, checkpoint=path)
    data = json.loads(Path(path).read_text())
    data["best"]["presses"] = hex(int(data["best"]["presses"], 16) ^ 1)
    data["best"]["weight"] = int(data["best"]["presses"], 16).bit_count()
    data["check"] = coset_checkpoint._digest({k: v for k, v in data.items() if k != "check"})
    Path(path).write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="does not solve the board"):
        coset_run.minimum(game, board, parts, quiet, checkpoint=path)


@pytest.mark.needs("numba")
def test_progress_bar_on_stderr(small_blocks, capsys):
    game, board, parts, quiet = lit_coset(19)
    coset_run.minimum(game, board, parts, quiet, progress=True)
    err = capsys.readouterr().err
    assert "nullity 16, 8 symmetries" in err and "sol/s" in err and "lightest 141" in err


@pytest.mark.needs("numba")
def test_long_run_matches_the_transform_on_random_cosets(monkeypatch):
    monkeypatch.setattr(wht_blocked, "LOW_BITS", 3)
    rng = random.Random(4)
    for _ in range(6):
        n, k = rng.randint(40, 120), rng.randint(8, 14)
        basis = [rng.getrandbits(n) | 1 << i for i in range(k)]
        x = rng.getrandbits(n)
        game = Game(1, n)  # no grid symmetry fixes a random board: the identity only
        run = coset_run.minimum(game, 0, [(x, 0)], basis, use_symmetry=False)
        assert run.best.weight == minweight.min_weight(x, basis, n)[1].bit_count()


def test_estimates_name_the_time_and_the_symmetries():
    game, board, parts, quiet = lit_coset(61)
    seconds, order = coset_run.estimate(game, board, parts, quiet)
    assert order == 8 and 2.0 ** 40 / coset_run.RATE / 8 < seconds < 2.0 ** 40 / coset_run.RATE / 6
    with pytest.raises(NullityTooLargeError) as e:
        solve(board, "gauss", game=game)
    assert (f"--max-nullity 40 enumerates them ({coset_run.describe(seconds)} on 2 cores, using 8 symmetries of the "
            f"board, twice that per extra nullity; --checkpoint FILE makes the run resumable)") in str(e.value)
    assert nullity_hint(64, 1e12, 8).startswith("gauss enumerates at most nullity 48 (this board: about 31,688 years")


def test_max_nullity_takes_up_to_48():
    game, board, *_ = lit_coset(19)
    assert solve(board, "gauss", game=game, max_nullity=48).moves == 141
    with pytest.raises(OptionError, match="48"):
        solve(board, "gauss", game=game, max_nullity=49)


@pytest.mark.needs("numba")
def test_gauss_above_22_is_the_symmetric_long_run():
    game, board, *_ = lit_coset(47)  # nullity 30
    s = solve(board, "gauss", game=game)
    assert (s.moves, s.stats["nullity"], s.stats["symmetries"]) == (971, 30, 8)  # A075464(47)


@pytest.mark.needs("pycryptosat")
def test_auto_takes_gauss_where_the_time_limit_allows():
    king = Game(17, 17, "white", neighbourhood="king")  # nullity 33: 2**33 in seconds, within the default limit
    p = plan(king, {})
    assert p.strategy == "gauss" and f"within the time limit {TIME_LIMIT_DEFAULT_SECONDS:g} s by default" in p.why
    assert plan(king, {"max_nullity": 32}).strategy == "sat-xor"  # an explicit cap stays a cap
    assert plan(king, {"time_limit": 1.0}).strategy == "sat-xor"
    lit = Game(61, 61, "white")  # 2**40: over the default limit for the rules
    assert plan(lit, {}).impossible_first


@pytest.mark.needs("numba")
def test_auto_takes_a_symmetric_board_by_gauss(monkeypatch):
    """The rules' estimate is over the limit, the board's (8 symmetries) within: gauss answers."""
    monkeypatch.setattr(coset_run, "RATE", 2.0 ** 30 / 20)  # 2**30 in 20 s: the rules of 47x47 take 20 s
    monkeypatch.setattr(auto, "DEFAULT_MAX_NULLITY", 16)
    game, board, *_ = lit_coset(47)
    s = solve(board, "auto", game=game, time_limit=10.0)
    assert (s.moves, s.stats["strategy"]) == (971, "gauss") and "a symmetric board" in s.stats["why"]


@pytest.mark.needs("numba")
def test_ctrl_c_on_solve_prints_unknown_and_the_unproven_bound(tmp_path):
    g = Game(61, 61, "white")  # nullity 40, a random board: no symmetry, minutes of enumeration
    board = g.apply(0, random.Random(5).getrandbits(g.n))
    (tmp_path / "b.txt").write_text(format_cells(board, 61, 61, "b", "w") + "\n")
    ck = tmp_path / "ck.json"
    with open(tmp_path / "b.txt") as stdin:
        p = subprocess.Popen([sys.executable, "-m", "flipgame", "solve", "--size", "61x61", "--goal", "white",
                              "--max-nullity", "40", "--checkpoint", str(ck)], stdin=stdin, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
        deadline = time.monotonic() + 120  # the checkpoint is first written with the first lightest solution
        while time.monotonic() < deadline and p.poll() is None and not (ck.exists() and ck.stat().st_size and
                                                                        json.loads(ck.read_text())["best"]):
            time.sleep(0.05)
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and out == "Unknown\n" and "Traceback" not in err
    assert "case 1: Unknown (at most " in err and "presses found, not proven minimal); --checkpoint" in err
    bound = int(err.split("at most ")[1].split()[0])
    saved = json.loads(ck.read_text())
    assert saved["best"]["weight"] == bound and g.apply(board, int(saved["best"]["presses"], 16)) == 0


@pytest.mark.needs("numba")
def test_solve_refuses_the_checkpoint_of_another_board(tmp_path):
    ck = tmp_path / "ck.json"
    game, board, parts, quiet = lit_coset(47)
    coset_run.minimum(game, board, parts, quiet, checkpoint=str(ck))
    lit = format_cells(board, 47, 47, "b", "w") + "\n"
    other = Game(47, 47, "white").apply(0, 1 << 100)
    r = flipgame("solve", "--size", "47x47", "--goal", "white", "--checkpoint", str(ck),
                 stdin=format_cells(other, 47, 47, "b", "w") + "\n")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "is for another board or rules" in r.stderr
    r = flipgame("solve", "--backend", "sat", "--checkpoint", str(ck), stdin=lit)
    assert r.returncode == 2 and "--checkpoint applies to backend gauss" in r.stderr


@pytest.mark.slow
def test_the_all_lit_61x61_interrupted_and_resumed_gives_the_uninterrupted_minimum(tmp_path):
    """The issue's acceptance run: Ctrl-C prints an unproven bound and exits 130; resumed, the same minimum."""
    game, board, parts, quiet = lit_coset(61)
    whole = coset_run.minimum(game, board, parts, quiet)
    text = format_cells(board, 61, 61, "b", "w") + "\n"
    ck = tmp_path / "ck.json"
    args = [sys.executable, "-m", "flipgame", "solve", "--size", "61x61", "--goal", "white", "--max-nullity", "40",
            "--checkpoint", str(ck)]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=sigint_default)
    p.stdin.write(text)
    p.stdin.close()
    wait_until_busy(p.pid, cpu_seconds=20.0, timeout=300)
    os.kill(p.pid, signal.SIGINT)
    out, err = p.stdout.read(), p.stderr.read()
    assert p.wait(timeout=60) == 130 and out == "Unknown\n" and "not proven minimal" in err
    r = subprocess.run(args, input=text, capture_output=True, text=True, timeout=3600)
    assert r.returncode == 0 and r.stdout == f"{whole.best.weight}\n"


@pytest.mark.needs("numba")
def test_a_deadline_stops_the_run_with_its_bound_and_the_checkpoint_resumes(small_blocks, monkeypatch, tmp_path):
    game, board, parts, quiet = lit_coset(19)
    with pytest.raises(coset_run.TimedOutRun) as caught:  # a deadline already passed: not one block
        coset_run.minimum(game, board, parts, quiet, deadline=0.0)
    assert (caught.value.best, caught.value.done) == (None, 0.0)
    assert caught.value.found(game, board) == "no solution found yet"
    path = str(tmp_path / "run.json")
    with monkeypatch.context() as m:
        _interrupt_after(m, 5)
        with pytest.raises(InterruptedRun):
            coset_run.minimum(game, board, parts, quiet, checkpoint=path)
    with pytest.raises(coset_run.TimedOutRun) as caught:
        coset_run.minimum(game, board, parts, quiet, checkpoint=path, deadline=0.0)
    stopped = caught.value
    assert 0 < stopped.done < 1 and stopped.checkpoint == path and game.apply(board, stopped.best.presses) == 0
    assert stopped.checked_text(game, board) == (f"Unknown (at most {stopped.best.weight} presses found, not proven "
                                                 f"minimal); --checkpoint {path} resumes the run")
    assert coset_run.minimum(game, board, parts, quiet, checkpoint=path).best.weight == 141


@pytest.mark.needs("numba")
def test_gauss_honours_its_time_limit_in_a_long_run_and_names_the_bound(monkeypatch, tmp_path):
    """gauss refused --time-limit; a long run now answers Unknown at it, never a number, with its bound."""
    game, board, parts, quiet = lit_coset(47)  # nullity 30: a long run of 4 blocks
    ck = str(tmp_path / "ck.json")
    with monkeypatch.context() as m:
        _interrupt_after(m, 2)
        with pytest.raises(InterruptedRun):
            solve(board, "gauss", game=game, checkpoint=ck)
    s = solve(board, "gauss", game=game, checkpoint=ck, time_limit=1e-9)
    assert s.status.name == "UNKNOWN" and s.moves is None and s.presses is None
    bound = json.loads(Path(ck).read_text())["best"]["weight"]
    assert bound >= 971 and s.stats["error"].startswith("the long run reached its time limit of 1e-09 s with ")
    assert s.stats["error"].endswith(f"of the solutions enumerated (at most {bound} presses found, not proven "
                                     f"minimal); --checkpoint {ck} resumes the run")
    assert solve(board, "gauss", game=game, checkpoint=ck).moves == 971  # A075464(47), resumed


def test_the_nullity_refusal_asks_for_the_time_the_run_needs():
    from flipgame.backends.gauss import _long_run_flags

    assert _long_run_flags(40, 59.0, 60.0) == "--max-nullity 40"
    assert _long_run_flags(40, 437.0, 60.0) == "--max-nullity 40 --time-limit 880"  # twice, 2 digits, rounded up
    assert _long_run_flags(40, 1.2, 1.0) == "--max-nullity 40 --time-limit 2.4"
    assert _long_run_flags(48, 1e9, 60.0) == "--max-nullity 48 --time-limit 1000000"  # the option's maximum
    g = Game(61, 61, "white")  # a random board: no symmetry, 2**40 solutions, minutes
    with pytest.raises(NullityTooLargeError, match=r"--max-nullity 40 --time-limit \d+ enumerates them \(about"):
        solve(g.apply(0, random.Random(5).getrandbits(g.n)), "gauss", game=g)


def test_solve_prints_unknown_and_the_bound_at_gauss_time_limit(tmp_path):
    game, board, *_ = lit_coset(47)
    r = flipgame("solve", "--size", "47x47", "--goal", "white", "--time-limit", "1e-9",
                 stdin=format_cells(board, 47, 47, "b", "w") + "\n")
    assert (r.returncode, r.stdout) == (4, "Unknown\n") and r.stderr.count("\n") == 1
    assert "gauss gave no proven answer (UNKNOWN" in r.stderr and "time limit of 1e-09 s" in r.stderr


@pytest.mark.needs("numba")
def test_auto_hands_its_time_limit_to_gauss(monkeypatch):
    """auto sent a board to gauss, which had no limit: 65x65 all-lit at --time-limit 2 ran until Ctrl-C."""
    monkeypatch.setattr(coset_run, "RATE", 1e30)  # every enumeration "fits": auto takes gauss
    game, board, *_ = lit_coset(47)
    s = solve(board, "auto", game=game, time_limit=1e-9)
    assert (s.status.name, s.moves, s.stats["strategy"]) == ("UNKNOWN", None, "gauss")
    assert s.stats["error"].startswith("the long run reached its time limit of ")  # what the plan left of 1e-09 s

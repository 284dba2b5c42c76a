"""flipgame.verify.proofs.certify: checked DRUP proofs that a claimed minimum is minimal."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from itertools import combinations
from pathlib import Path

import pytest
from conftest import POJ_SAMPLE, assert_within, sigint_default

pytest.importorskip("pysat")
dratify = pytest.importorskip("dratify")

from flipgame.model.grid import Board, Game  # noqa: E402
from flipgame.model.system import PressSystem  # noqa: E402
from flipgame.verify.proofs.certify import (  # noqa: E402
    Certification,
    CertStatus,
    _check,
    _cnf,
    certify_minimum,
    check_proof_files,
    lower_bound_cnf,
)

ROOT = Path(__file__).resolve().parent.parent
POJ_WITNESS = (1 << 0) | (1 << 5) | (1 << 7) | (1 << 8)  # (0,0) (1,1) (1,3) (2,0): 4 presses to all white


def gauss_solve(game: Game, board: int):
    """The gauss backend's answer, through the gate."""
    from flipgame import solve

    return solve(board, "gauss", game=game)


def apply(masks, board: int, presses: int) -> int:
    for j, m in enumerate(masks):
        if presses >> j & 1:
            board ^= m
    return board


def refutation(game, board: int, target: int, bound: int):
    """(clauses, top variable, DRUP lines) from CaDiCaL for the lower-bound formula."""
    from pysat.solvers import Solver

    clauses, top = _cnf(game.n, tuple(game.press_masks), board ^ target, bound)
    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
        assert s.solve() is False
        return clauses, top, s.get_proof()


@pytest.fixture(scope="module")
def poj():
    return Game(4, 4), Board.from_rows(POJ_SAMPLE).cells


# ---------------------------------------------------------------------------
# the claim
# ---------------------------------------------------------------------------


def test_poj_sample_certified(poj):
    game, board = poj
    assert apply(game.press_masks, board, POJ_WITNESS) == 0
    cert = certify_minimum(game, board, 4, witness=POJ_WITNESS, time_limit=None)
    assert isinstance(cert, Certification)
    assert cert.status is CertStatus.CERTIFIED and cert.ok
    assert cert.moves == 4 and cert.proof_lines > 0 and cert.formula_clauses > 0 and cert.proofs == 2
    line = cert.line()
    assert line.startswith("certified: no press set of at most 3 presses reaches all white or all black "
                           "(2 DRAT proofs by search")
    assert "checked by dratify (" in line


def test_witness_is_found_when_not_given(poj):
    game, board = poj
    assert certify_minimum(game, board, 4, time_limit=None).status is CertStatus.CERTIFIED


def test_one_too_high_fails_with_counterexample(poj):
    game, board = poj
    cert = certify_minimum(game, board, 5, time_limit=None)
    assert cert.status is CertStatus.FAILED and not cert.ok
    assert "too high" in cert.message and "4 presses" in cert.message and "all white" in cert.message


@pytest.mark.parametrize("witness", [None, POJ_WITNESS, POJ_WITNESS & ~1])
def test_one_too_low_fails(poj, witness):
    """No press set of at most 2 presses works (true), but nothing of 3 presses does either."""
    game, board = poj
    cert = certify_minimum(game, board, 3, witness=witness, time_limit=None)
    assert cert.status is CertStatus.FAILED
    assert "too low" in cert.message or "not 3" in cert.message or "does not reach" in cert.message


def test_witness_reaching_no_goal_fails(poj):
    game, board = poj
    bad = POJ_WITNESS ^ 0b11  # still 4 presses
    assert bad.bit_count() == 4
    cert = certify_minimum(game, board, 4, witness=bad, time_limit=None)
    assert cert.status is CertStatus.FAILED and "does not reach" in cert.message


def test_zero_moves():
    game = Game(4, 4)
    assert certify_minimum(game, 0, 0, time_limit=None).status is CertStatus.TRIVIAL
    assert certify_minimum(game, game.full, 0, witness=0, time_limit=None).status is CertStatus.TRIVIAL
    assert certify_minimum(Game(3, 3, "white"), 1, 0, time_limit=None).status is CertStatus.FAILED


def test_one_press_board():
    """k = 1: the formula "0 presses" is refuted (possibly by unit propagation alone)."""
    game = Game(3, 3, "white")
    board = game.press_masks[4]
    cert = certify_minimum(game, board, 1, witness=1 << 4, time_limit=None)
    assert cert.status is CertStatus.CERTIFIED, cert.message


def test_bad_arguments(poj):
    game, board = poj
    with pytest.raises(ValueError):
        certify_minimum(game, board, -1)
    with pytest.raises(ValueError):
        certify_minimum(game, board, 17)
    with pytest.raises(ValueError):
        certify_minimum(game, 1 << 16, 1)
    with pytest.raises(ValueError):
        lower_bound_cnf(game, board, 0, -1)


@pytest.mark.parametrize("game", [Game(3, 3, "white"), Game(2, 3, "black", wrap=True),
                                  Game(3, 3, "white", neighbourhood="king"), Game(4, 4, "any")],
                         ids=lambda g: g.rules)
def test_matches_exhaustive_minimum(game):
    """Certified minima agree with brute force over every press set, on random boards."""
    rng = random.Random(7)
    weights = {}
    for k in range(game.n + 1):
        for cells in combinations(range(game.n), k):
            x = sum(1 << j for j in cells)
            for t in game.targets:
                weights.setdefault(apply(game.press_masks, t, x), k)  # board = t ^ A x
    boards = sorted(weights)
    for board in rng.sample(boards, min(8, len(boards))):
        k = weights[board]
        assert certify_minimum(game, board, k, time_limit=None).ok
        if k > 0:
            assert certify_minimum(game, board, k - 1, time_limit=None).status is CertStatus.FAILED
        if k < game.n:
            assert certify_minimum(game, board, k + 1, time_limit=None).status is CertStatus.FAILED


# ---------------------------------------------------------------------------
# the encoding, against brute force
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", [Game(2, 3, "white"), Game(3, 3, "white", neighbourhood="king"),
                                  Game(3, 3, "white", wrap=True, neighbourhood="stencil",
                                       stencil=((0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (1, 1)))],
                         ids=lambda g: g.rules)
@pytest.mark.parametrize("bound", [0, 1, 2, 4])
def test_lower_bound_cnf_semantics(game, bound):
    """With the presses fixed to x, the CNF is satisfiable iff |x| <= bound and x reaches the target
    (long XORs are cut into linked pieces: king and this stencil flip up to 9 / 6 cells)."""
    from pysat.solvers import Solver

    rng = random.Random(bound)
    board, target = rng.getrandbits(game.n), rng.getrandbits(game.n)
    clauses, n = lower_bound_cnf(game, board, target, bound)
    assert n == game.n
    assert max(len(c) for c in clauses) <= 4  # XOR pieces and counter clauses are short
    with Solver(name="minisat22", bootstrap_with=clauses) as s:
        for x in range(1 << n):
            expected = x.bit_count() <= bound and apply(game.press_masks, board, x) == target
            assumptions = [j + 1 if x >> j & 1 else -(j + 1) for j in range(n)]
            assert s.solve(assumptions=assumptions) is expected, (x, bound)


# ---------------------------------------------------------------------------
# the checker rejects what it must
# ---------------------------------------------------------------------------


def test_proof_without_empty_clause_is_rejected(poj):
    game, board = poj
    clauses, top, proof = refutation(game, board, 0, 3)
    assert _check(clauses, top, "\n".join(proof)).ok
    assert proof[-1].strip() == "0"
    result = _check(clauses, top, "\n".join(proof[:-1]))
    assert not result.ok and not result.reached_empty


def test_proof_missing_a_needed_lemma_is_rejected(poj):
    game, board = poj
    clauses, top, proof = refutation(game, board, 0, 3)
    lemmas = [i for i, line in enumerate(proof[:-1]) if not line.startswith("d")]
    assert lemmas
    # without any lemma, the empty clause alone is not RUP: the formula is not refuted by propagation
    assert not _check(clauses, top, "0\n").ok
    rejected = [i for i in lemmas if not _check(clauses, top, "\n".join(proof[:i] + proof[i + 1:])).ok]
    assert rejected, "some lemma of the refutation must be needed"
    result = _check(clauses, top, "\n".join(proof[:rejected[0]] + proof[rejected[0] + 1:]))
    assert result.failed_step > 0 and "neither RUP nor RAT" in result.reason


def test_proof_against_a_flipped_press_mask_is_rejected(poj):
    """One bit of one press mask flipped: the formula changes and the original proof no longer
    checks against it (for 133 of the 256 single-bit flips; the first such flip is used)."""
    game, board = poj
    clauses, top, proof = refutation(game, board, 0, 3)
    for j in range(game.n):
        for i in range(game.n):
            masks = list(game.press_masks)
            masks[j] ^= 1 << i
            bad_clauses, bad_top = _cnf(game.n, tuple(masks), board, 3)
            assert bad_clauses != clauses
            result = _check(bad_clauses, max(bad_top, top), "\n".join(proof))
            if not result.ok:
                assert result.failed_step > 0 or not result.reached_empty
                return
    pytest.fail("the proof checked against every mutated formula")


def test_proof_against_a_satisfiable_mutation_is_rejected(poj):
    """Press (0,0) rewired so that 3 presses reach all white: no proof can check (soundness), and
    certifying 4 on the mutated rules fails naming the 3-press set."""
    game, board = poj
    clauses, top, proof = refutation(game, board, 0, 3)
    masks = list(game.press_masks)
    masks[0] = board ^ masks[5] ^ masks[7]  # now {0, 5, 7} reaches white
    bad_clauses, bad_top = _cnf(game.n, tuple(masks), board, 3)
    assert not _check(bad_clauses, max(bad_top, top), "\n".join(proof)).ok
    rewired = PressSystem(game.n, [[(i, 1) for i in range(game.n) if m >> i & 1] for m in masks], goal="white",
                          shape=(4, 4))
    cert = certify_minimum(rewired, board, 4, time_limit=None)
    assert cert.status is CertStatus.FAILED and "too high" in cert.message
    assert "presses {" in cert.message and "reach all white" in cert.message


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------


def test_proof_files_recheck(poj, tmp_path):
    game, board = poj
    cert = certify_minimum(game, board, 4, witness=POJ_WITNESS, time_limit=None, proof_dir=tmp_path, name="poj")
    assert cert.status is CertStatus.CERTIFIED
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["poj-black.cnf", "poj-black.drat", "poj-white.cnf", "poj-white.drat"]
    total = 0
    for goal in ("white", "black"):
        cnf, drat = tmp_path / f"poj-{goal}.cnf", tmp_path / f"poj-{goal}.drat"
        text = cnf.read_text()
        assert text.startswith("c ") and "at most 3 presses" in text
        header = next(line for line in text.splitlines() if line.startswith("p cnf"))
        assert int(header.split()[3]) == sum(1 for line in text.splitlines() if line and line[0] not in "cp")
        lines = drat.read_text().splitlines()
        assert all(line.endswith(" 0") or line == "0" for line in lines)
        total += len(lines)
        assert check_proof_files(cnf, drat)
        # the written pair fails once its empty clause is gone
        drat.write_text("\n".join(lines[:-1]) + "\n")
        assert not check_proof_files(cnf, drat)
    assert total == cert.proof_lines


# ---------------------------------------------------------------------------
# the child process
# ---------------------------------------------------------------------------


def _children_of(pid: int) -> list[int]:
    """Live (non-zombie) certification workers started by ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"flipgame.verify.proofs.provers" in b" ".join(cmd) and str(pid).encode() in cmd and state != "Z":
            out.append(int(entry.name))
    return out


needs_proc = pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs Linux /proc")


def test_child_process_certifies(poj):
    game, board = poj
    cert = certify_minimum(game, board, 4, witness=POJ_WITNESS, time_limit=60)
    assert cert.status is CertStatus.CERTIFIED and cert.proof_lines > 0


HARD = textwrap.dedent("""
    import random, sys
    sys.path.insert(0, {root!r})
    from flipgame.model.grid import Game
    from flipgame.verify.proofs.certify import certify_minimum
    game = Game(70, 70, "white")
    board = game.apply(0, random.Random(1).getrandbits(game.n))
    moves, witness = {moves}, {witness}
    print("start", flush=True)
    print(certify_minimum(game, board, moves, witness=witness, time_limit=60).line(), flush=True)
""")


@pytest.fixture(scope="module")
def hard_case():
    game = Game(70, 70, "white")  # the parity proof takes far longer than the 1 s limit
    board = game.apply(0, random.Random(1).getrandbits(game.n))
    solution = gauss_solve(game, board)
    return game, board, solution.moves, solution.presses


@needs_proc
def test_time_limit_gives_unknown_and_leaves_no_child(hard_case):
    game, board, moves, witness = hard_case
    start = time.monotonic()
    cert = certify_minimum(game, board, moves, witness=witness, time_limit=1)
    elapsed = time.monotonic() - start
    assert cert.status is CertStatus.UNKNOWN and cert.message == "certification not finished within 1 s"
    assert_within(elapsed, 3, "a certification with a 1 s limit")
    assert _children_of(os.getpid()) == []


@needs_proc
@pytest.mark.slow  # the prover must reach its forked checkers within its 4 s limit: not on a loaded machine
def test_time_limit_kills_the_forked_checkers(hard_case):
    """With ``jobs=2`` the prover forks checkers of finished pieces; at the time limit they go with it."""
    import threading

    game, board, moves, witness = hard_case
    seen = []
    done = threading.Event()

    def watch():
        while not done.is_set():
            seen.append(len(_children_of(os.getpid())))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    start = time.monotonic()
    try:
        cert = certify_minimum(game, board, moves, witness=witness, time_limit=4, jobs=2)
    finally:
        done.set()
        watcher.join()
    assert cert.status is CertStatus.UNKNOWN
    assert_within(time.monotonic() - start, 6, "a certification with a 4 s limit")
    assert max(seen) >= 2, "no forked checker ran beside the prover"
    deadline = time.monotonic() + 2
    while _children_of(os.getpid()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _children_of(os.getpid()) == []


def _start_hard_parent(hard_case):
    _, _, moves, witness = hard_case
    code = HARD.format(root=str(ROOT), moves=moves, witness=witness)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=sigint_default)
    assert proc.stdout.readline().strip() == "start"
    deadline = time.monotonic() + 10
    while not (kids := _children_of(proc.pid)):
        assert time.monotonic() < deadline, "the worker never started"
        time.sleep(0.05)
    time.sleep(0.5)  # let it get into the solver
    return proc, kids


def _wait_gone(pids, seconds=5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(pid in _children_of_any() for pid in pids):
            return True
        time.sleep(0.05)
    return False


def _children_of_any() -> set[int]:
    live = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):  # the process ended while we looked
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    live.add(int(entry.name))
    return live


@needs_proc
def test_ctrl_c_kills_child_and_reraises(hard_case):
    proc, kids = _start_hard_parent(hard_case)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    assert _wait_gone(kids)


@needs_proc
def test_child_dies_with_killed_parent(hard_case):
    proc, kids = _start_hard_parent(hard_case)
    proc.kill()
    proc.wait(timeout=10)
    assert _wait_gone(kids)


def test_a_press_system_with_more_buttons_than_cells_is_proved_over_every_button():
    """Two cells, three buttons {0}, {1}, {0, 1}: board 11 (goal white) needs one press, of button 2, so a
    claim of 2 (buttons 0 and 1) is too high; a formula over only as many buttons as cells would prove it."""
    from flipgame import PressSystem

    system = PressSystem(2, [[(0, 1)], [(1, 1)], [(0, 1), (1, 1)]], 2, "white")
    assert certify_minimum(system, 0b11, 1, witness=0b100, time_limit=None).status is CertStatus.CERTIFIED
    cert = certify_minimum(system, 0b11, 2, witness=0b011, time_limit=None)
    assert cert.status is CertStatus.FAILED and "too high" in cert.message
    assert len(lower_bound_cnf(system, 0b11, 0, 0)[0]) > 0 and lower_bound_cnf(system, 0b11, 0, 0)[1] == 3


def test_a_press_system_with_more_cells_than_buttons_is_proved():
    """Three cells, two buttons {0, 1} and {1, 2}, and a cell (3) that no button changes."""
    from flipgame import PressSystem

    system = PressSystem(4, [[(0, 1), (1, 1)], [(1, 1), (2, 1)]], 2, "white")
    cert = certify_minimum(system, 0b0101, 2, time_limit=None)
    assert cert.status is CertStatus.CERTIFIED and cert.proofs == 1, cert.message
    assert certify_minimum(system, 0b0101, 1, time_limit=None).status is CertStatus.FAILED
    with pytest.raises(ValueError):
        certify_minimum(system, 0b0101, 3)  # more presses than buttons


def test_a_certification_killed_at_its_time_limit_leaves_no_half_written_proof_file(tmp_path, monkeypatch):
    """A break-it run found a truncated .drat (8.5 MB and growing) beside its .cnf after 'unknown: certification
    not finished within 10 s'.  Files are written as NAME.part and renamed when whole; a killed child's .part
    files are removed, and a finished file of another case stays."""
    from flipgame.core.files import whole_file
    from flipgame.verify.proofs import certify

    kept = tmp_path / "case1-white.drat"
    with whole_file(kept) as fh:
        fh.write("0\n")
    with pytest.raises(RuntimeError), whole_file(tmp_path / "case1-black.drat") as fh:
        fh.write("1 ")
        raise RuntimeError("a writer that fails mid-file leaves nothing")

    def killed_while_writing(job, time_limit):
        (tmp_path / "case2-white.drat.part").write_text("1 2 0\n-1")
        return None

    monkeypatch.setattr(certify, "run_in_child", killed_while_writing)
    game = Game(4, 4, "any")
    cert = certify_minimum(game, Board.from_rows(POJ_SAMPLE).cells, 4, time_limit=1, proof_dir=tmp_path, name="case2")
    assert cert.status is CertStatus.UNKNOWN and sorted(p.name for p in tmp_path.iterdir()) == [kept.name]

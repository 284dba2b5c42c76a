"""The judge's lane of ``flipgame solve`` (plain POJ 1753 input answered on machine words, without numpy): the same
output as the pipeline on every grid it takes, the pipeline for everything else, and no answer its referee has not
checked."""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
import threading

import pytest

from flipgame.algebra.packed import Packed
from flipgame.cli import lane, main
from flipgame.cli.commands import run_command
from flipgame.core.errors import NullityTooLargeError
from flipgame.core.limits import LANE_MAX_BOARDS, LANE_MAX_NULLITY
from flipgame.formats.plain import plain_boards
from flipgame.model.grid import Game
from flipgame.model.system import PressSystem
from flipgame.verify.checks.words import words_problem

SAMPLE = "bwwb\nbbwb\nbwwb\nbwww\n"
"""POJ 1753's sample: 4 presses."""


def _text(boards: list[int], rows: int, cols: int) -> str:
    return "".join("".join("b" if b >> (r * cols + c) & 1 else "w" for c in range(cols)) + "\n"
                   for b in boards for r in range(rows))


def _both(tmp_path, capsys, text: str, *flags: str) -> tuple[str, str]:
    """The output of the command line through the lane (main) and through the pipeline (the dispatcher)."""
    path = tmp_path / "cases.txt"
    path.write_text(text)
    assert lane.answer(["solve", str(path), *flags]) == 0  # the lane took it
    fast = capsys.readouterr().out
    assert run_command(["solve", str(path), *flags]) == 0
    return fast, capsys.readouterr().out


def test_the_sample_board_takes_four_presses_in_the_lane(tmp_path, capsys):
    fast, slow = _both(tmp_path, capsys, SAMPLE)
    assert fast == slow == "4\n"


@pytest.mark.parametrize(("size", "flags"), [
    ("4x4", ()), ("4x4", ("--goal", "white")), ("4x4", ("--goal=black",)), ("3x3", ()), ("5x5", ()),
    ("2x7", ()), ("8x8", ()), ("4x4", ("--wrap",)), ("3x4", ("--neighbourhood", "king")),
    ("4x4", ("--neighbourhood", "cross", "--backend", "gauss", "--format", "poj1753")), ("1x1", ()),
])
def test_the_lane_answers_as_the_pipeline_does(tmp_path, capsys, size, flags):
    rows, cols = map(int, size.split("x"))
    rng = random.Random(f"{size}{flags}")
    boards = [rng.getrandbits(rows * cols) for _ in range(300)] + [0, (1 << rows * cols) - 1]
    fast, slow = _both(tmp_path, capsys, _text(boards, rows, cols), "--size", size, *flags)
    assert fast == slow
    assert len(fast.splitlines()) == len(boards)


def test_every_4x4_board_gets_the_published_distribution_in_the_lane(tmp_path, capsys):
    path = tmp_path / "all.txt"
    path.write_text(_text(list(range(1 << 16)), 4, 4))
    assert main(["solve", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    counts = [lines.count(str(k)) for k in range(7)]
    assert counts == [2, 32, 228, 880, 1562, 1136, 256]  # docs/results.md: the 4096 solvable boards
    assert lines.count("Impossible") == 65536 - 4096


def test_the_lane_answers_standard_input_without_numpy(tmp_path):
    path = tmp_path / "cases.txt"
    path.write_text(SAMPLE * 3)
    code = ("import sys; from flipgame.cli import main; code = main(['solve']); "
            "sys.stderr.write('numpy' if 'numpy' in sys.modules else 'no numpy'); sys.exit(code)")
    with path.open("rb") as stdin:
        run = subprocess.run([sys.executable, "-c", code], stdin=stdin, capture_output=True, text=True, check=False)
    assert (run.returncode, run.stdout, run.stderr) == (0, "4\n4\n4\n", "no numpy")


def _solve(stdin, code: str = "from flipgame.cli import main; sys.exit(main(['solve']))") -> tuple:
    """(exit status, stdout, stderr) of ``flipgame solve`` in a new process on ``stdin`` (a file or bytes)."""
    run = subprocess.run([sys.executable, "-c", f"import sys; {code}"], capture_output=True, check=False,
                         **({"input": stdin} if isinstance(stdin, bytes) else {"stdin": stdin}))
    return run.returncode, run.stdout, run.stderr


PIPELINE = "from flipgame.cli.commands import run_command; sys.exit(run_command(['solve']))"
"""The command through the pipeline alone (the dispatcher, never the lane)."""


@pytest.mark.parametrize(("text", "why"), [
    (SAMPLE.replace("\n", "\r\n"), "CR LF"), ("\n" + SAMPLE, "a blank line"), (SAMPLE.upper(), "capitals"),
    (SAMPLE + "bw\n", "a partial board"), ("", "no board"), ("\ufeff" + SAMPLE, "a byte-order mark"),
    (SAMPLE + "bwxb\n" * 4, "a bad letter after a good board"), (SAMPLE * 5, "plain"),
])
def test_a_file_or_a_pipe_gets_the_pipelines_output_whatever_its_form(tmp_path, text, why):
    path = tmp_path / "cases.txt"
    path.write_bytes(text.encode())
    with path.open("rb") as stdin:
        from_file = _solve(stdin)
    assert from_file == _solve(text.encode()) == _solve(text.encode(), PIPELINE), why


def test_a_pipe_that_pauses_is_answered_whole(tmp_path):
    code = ("import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-m', 'flipgame', 'solve'], "
            "stdin=subprocess.PIPE, stdout=subprocess.PIPE); p.stdin.write(sys.argv[1].encode()); p.stdin.flush(); "
            "time.sleep(0.3); p.stdin.write(sys.argv[1].encode() * 2); p.stdin.close(); "
            "print(p.stdout.read().decode(), p.wait(), end='')")
    run = subprocess.run([sys.executable, "-c", code, SAMPLE], capture_output=True, text=True, check=True)
    assert run.stdout == "4\n4\n4\n 0"


def test_the_lane_answers_a_pipe_without_numpy():
    code = "from flipgame.cli import main; code = main(['solve']); print('numpy' in sys.modules); sys.exit(code)"
    assert _solve(SAMPLE.encode() * 2, code) == (0, b"4\n4\nFalse\n", b"")


@pytest.mark.parametrize("argv", [
    ["solve", "--presses"], ["solve", "--size", "9x9"], ["solve", "--siz", "4x4"], ["solve", "--size", "04x4"],
    ["solve", "--states", "3"], ["solve", "a", "b"], ["solve", "--backend", "bfs"], ["verify"], [],
    ["solve", "--goal", "2"], ["solve", "--wrap=1"], ["solve", "--size"],
])
def test_command_lines_the_lane_does_not_take(argv):
    assert lane.rules_of(argv) is None


def test_the_lanes_rules_are_the_flags_grid():
    game, path = lane.rules_of(["solve", "x.txt", "--size=3x5", "--wrap", "--goal", "white"])
    assert (game, path) == (Game(3, 5, "white", True), "x.txt")
    assert lane.rules_of(["solve"]) == (Game(4, 4), "-")


def test_a_grid_past_the_lanes_nullity_goes_through_the_pipeline(tmp_path, capsys):
    game = Game(5, 8, "any", False, "king")  # nullity 12
    assert Packed.of(game.press_masks, game.n, 12).nullity == 12
    with pytest.raises(NullityTooLargeError, match="nullity 12 is over 6"):
        Packed.of(game.press_masks, game.n, LANE_MAX_NULLITY)
    path = tmp_path / "cases.txt"
    path.write_text(SAMPLE)
    assert lane.answer(["solve", str(path), "--size", "5x8", "--neighbourhood", "king"]) is None
    assert capsys.readouterr().out == ""


def _brute_minimum(masks: list[int], board: int, targets) -> int | None:
    best = None
    for presses in range(1 << len(masks)):
        after = board
        for j, mask in enumerate(masks):
            if presses >> j & 1:
                after ^= mask
        if after in targets and (best is None or presses.bit_count() < best):
            best = presses.bit_count()
    return best


@pytest.mark.parametrize("seed", range(40))
def test_packed_elimination_finds_the_brute_force_minimum_or_a_certificate(seed):
    rng = random.Random(seed)
    n, m = rng.randint(1, 9), rng.randint(1, 9)
    masks = [rng.getrandbits(n) for _ in range(m)]
    system = PressSystem(n, [[(i, 1) for i in range(n) if mask >> i & 1] for mask in masks], goal="any")
    boards = list(range(1 << n))
    answers = Packed.of(system.press_masks, n, 9).minima(boards, system.targets)
    assert words_problem(system, boards, answers) is None
    for board, got in zip(boards, answers, strict=True):
        assert got[0] == _brute_minimum(list(system.press_masks), board, system.targets)


@pytest.mark.parametrize(("size", "nullity"), [((4, 4), 4), ((5, 5), 2), ((3, 3), 0), ((4, 5), 0), ((5, 4), 0)])
def test_packed_nullity_of_lights_out_grids(size, nullity):
    game = Game(*size)
    assert Packed.of(game.press_masks, game.n, 8).nullity == nullity


@pytest.mark.parametrize("neighbourhood", ["plus", "king", "cross"])
@pytest.mark.parametrize("wrap", [False, True])
def test_packed_nullity_is_the_dense_eliminations_on_every_grid_up_to_8x8(neighbourhood, wrap):
    from flipgame.algebra.gf2 import nullity

    for rows, cols in itertools.product(range(3, 9), repeat=2):
        game = Game(rows, cols, "any", wrap, neighbourhood)
        try:
            assert Packed.of(game.press_masks, game.n, 12).nullity == nullity(game), (rows, cols)
        except NullityTooLargeError:
            assert nullity(game) > 12, (rows, cols)


def _corrupted(kind: str):
    game = Game(4, 4)
    boards = list(range(0, 1 << 16, 7))
    answers = Packed.of(game.press_masks, 16, 4).minima(boards, game.targets)
    solved = next(i for i, a in enumerate(answers) if a[0])  # a board of at least one press
    impossible = next(i for i, a in enumerate(answers) if a[0] is None)
    presses, press_set, target = answers[solved]
    none, first, second = answers[impossible]
    if kind == "even":
        boards[impossible] = 0  # a board its certificates meet in no cell
    swapped = press_set ^ (press_set & -press_set) ^ (~press_set & (press_set + 1))  # one press moved: as many
    answers[solved] = {"press set": (presses, swapped, target), "count": (presses + 1, press_set, target),
                       "goal": (presses, press_set, 0b1)}.get(kind, answers[solved])
    answers[impossible] = {"certificate": (none, first ^ 1, second), "missing": (none, first)}.get(
        kind, answers[impossible])
    return game, boards, answers


@pytest.mark.parametrize(("kind", "says"), [
    ("press set", "does not turn board"), ("count", "counts other presses"), ("goal", "names no goal board"),
    ("certificate", "flips an odd number"), ("even", "meets its board evenly"), ("missing", "one certificate per goal"),
])
def test_the_referee_catches_each_wrong_lane_answer(kind, says):
    assert says in words_problem(*_corrupted(kind))


def test_the_referee_passes_the_lanes_own_answers():
    assert words_problem(*_corrupted("none")) is None


def test_a_lane_answer_failing_its_check_is_answered_by_the_pipeline(tmp_path, capsys, monkeypatch):
    def wrong(self, boards, targets):
        return [(0, 0, 0)] * len(boards)  # "no presses" for every board: the referee refuses it

    monkeypatch.setattr(Packed, "minima", wrong)
    path = tmp_path / "cases.txt"
    path.write_text(SAMPLE)
    assert main(["solve", str(path)]) == 0
    assert capsys.readouterr().out == "4\n"


@pytest.mark.parametrize(("rows", "cols"), [(4, 4), (2, 4), (5, 5), (1, 1), (8, 8), (4, 8), (3, 7)])
def test_plain_boards_read_bitmasks_in_input_order(rows, cols):
    rng = random.Random(rows * 100 + cols)
    boards = [rng.getrandbits(rows * cols) for _ in range(50)]
    text = _text(boards, rows, cols).encode()
    assert plain_boards(text, rows, cols) == boards
    assert plain_boards(text[:-1], rows, cols) == boards  # no LF after the last line


@pytest.mark.parametrize("text", [b"", b"\n", b"bw\nwb\r\n", b"bw\nwx\n", b"bw\nwb\n\n", b"bww\nwb\n", b"bw\nwb\nbw\n"])
def test_plain_boards_refuse_anything_else(text):
    assert plain_boards(text, 2, 2) is None


def test_every_public_name_of_the_package_resolves_when_first_used():
    import flipgame

    names = list(flipgame.__all__)
    assert all(getattr(flipgame, name) is not None for name in names)
    assert set(names) <= set(dir(flipgame))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        flipgame.nope  # noqa: B018


def test_numpy_loaded_after_flipgame_starts_its_blas_threads_with_ctrl_c_blocked():
    code = ("import flipgame, glob, numpy, os\n"
            "tasks = [t for t in glob.glob('/proc/self/task/*/status') if t.split('/')[4] != str(os.getpid())]\n"
            "masks = [open(t).read().split('SigBlk:')[1].split()[0] for t in tasks]\n"
            "print(type(numpy.__loader__).__name__, 'OPENBLAS_NUM_THREADS' in os.environ, len(masks) > 0,"
            " all(int(m, 16) & 0x4002 == 0x4002 for m in masks))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "2"})
    assert run.stdout.split() == ["_NumpyLoader", "True", "True", "True"]


def test_a_grid_of_nullity_44_is_refused_by_the_lane_before_its_null_space_is_built(tmp_path, capsys):
    path = tmp_path / "cases.txt"
    path.write_text("bwb" * 7 + "\n")
    assert lane.answer(["solve", str(path), "--size", "3x21", "--wrap", "--neighbourhood", "king"]) is None
    assert capsys.readouterr().out == ""


def test_the_lane_takes_at_most_its_number_of_boards(tmp_path, capsys):
    path = tmp_path / "cases.txt"
    path.write_text("b\nw\n" * (LANE_MAX_BOARDS // 2))
    assert lane.answer(["solve", str(path), "--size", "1x1"]) == 0
    assert capsys.readouterr().out == "0\n" * LANE_MAX_BOARDS  # one cell is always uniform
    path.write_text("b\nw\n" * (LANE_MAX_BOARDS // 2) + "b\n")
    assert lane.answer(["solve", str(path), "--size", "1x1"]) is None
    assert capsys.readouterr().out == ""


def test_a_fifo_given_as_the_file_is_left_to_the_pipeline(tmp_path):
    fifo = tmp_path / "cases"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=(SAMPLE * 2,))
    writer.start()
    run = subprocess.run([sys.executable, "-m", "flipgame", "solve", str(fifo)], capture_output=True, text=True,
                         timeout=60, check=False)
    writer.join(timeout=10)
    assert (run.returncode, run.stdout, run.stderr) == (0, "4\n4\n", "")

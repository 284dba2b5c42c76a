"""The measured figures of docs/proofs.md and docs/high-nullity.md: ``solve --certify`` per board and per
nullity, as a user runs it (wall, CPU and peak memory of the whole command), and the a(79) bounds.

Each function is the ``run`` of a :class:`flipgame.bench.measure.Measurement`; every answer is compared
with the known one first, and a wrong answer raises RuntimeError (a wrong answer is never a time).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from flipgame.bench.measure import flipgame_run
from flipgame.model.grid import Game, format_cells
from flipgame.model.puzzles import B18, P14

CERTIFY_LIMIT = 600.0
"""``--certify-time-limit`` of the measured certifications (seconds): past it the figure is Unknown."""


def random_solvable(n: int, rows: int | None = None, **rules) -> tuple[Game, int]:
    """The rules of an ``n x n`` (or ``rows x n``) board with goal white, and a solvable board of them:
    a seeded random press set applied to the white board."""
    game = Game(rows or n, n, "white", **rules)
    return game, game.apply(0, random.Random(n * 1000 + (rows or n)).getrandbits(game.n))


def _board_text(game: Game, board: int) -> str:
    return format_cells(board, game.rows, game.cols) + "\n"


def certify_run(name: str, args: list[str], stdin: str) -> dict[str, object]:
    """``flipgame solve --certify ARGS`` measured: its figures under ``certify.NAME.*``."""
    run = flipgame_run("solve", "--certify", "--certify-time-limit", f"{CERTIFY_LIMIT:g}", "--stats", *args,
                       stdin=stdin, check=False)
    out, err = run.stdout.decode(), run.stderr_tail.decode()
    first, _, rest = out.partition("\n")
    key = f"certify.{name}"
    nullity = re.search(r"nullity=([0-9]+)", err)
    common = {f"{key}.cpu": run.cpu, f"{key}.peak_mib": (run.peak_rss or 0) / 2**20,
              f"{key}.minimum": {"value": int(first), "text": first.strip()},
              f"{key}.nullity": {"value": int(nullity[1]) if nullity else 0, "text": nullity[1] if nullity else "?"}}
    if not rest.startswith("certified:"):
        if "not finished within" in rest:  # the minimum is gauss's, unproven; the figures are the run's to the limit
            return common | {f"{key}.wall": {"value": CERTIFY_LIMIT, "outcome": "unknown"},
                             f"{key}.lines": {"value": None, "text": "none (not finished)"}}
        raise RuntimeError(f"solve --certify on {name} did not certify: {out[-300:]!r} {err[-300:]!r}")
    lines = int(re.search(r"([0-9]+) lines", rest)[1])
    return common | {f"{key}.wall": run.wall, f"{key}.lines": {"value": lines, "text": f"{lines:,}"}}


def _grid(name: str, game: Game, board: int) -> dict[str, object]:
    return certify_run(name, ["--size", game.size, "--goal", game.goal] +
                       ([f"--neighbourhood={game.neighbourhood}"] if game.neighbourhood != "plus" else []),
                       _board_text(game, board))


CERTIFY_BOARDS = {
    "p14": lambda: certify_run("p14", ["--format", "painter"], "1\n14\n" + "\n".join(P14) + "\n"),
    "b18": lambda: certify_run("b18", ["--size", "18x18", "--goal", "black"], "\n".join(B18) + "\n"),
    "r20": lambda: _grid("r20", *random_solvable(20)),
    "lit19": lambda: _grid("lit19", Game(19, 19, "white"), (1 << 361) - 1),
    "lit40": lambda: _grid("lit40", Game(40, 40, "white"), (1 << 1600) - 1),
    **{f"r{n}": (lambda n=n: _grid(f"r{n}", *random_solvable(n))) for n in (45, 50, 55, 60)},
}
"""The boards of docs/proofs.md's table that certify in seconds."""
LONG_BOARDS = {
    "r100": lambda: _grid("r100", *random_solvable(100)),
    "r30": lambda: _grid("r30", *random_solvable(30)),
    "king8x17": lambda: _grid("king8x17", *random_solvable(17, rows=8, neighbourhood="king")),
    "lit33": lambda: _grid("lit33", Game(33, 33, "white"), (1 << 1089) - 1),
    "r62": lambda: _grid("r62", *random_solvable(62)),
}
"""The boards that take minutes: nullity 20 (30x30), 24 (8x17 king and 62x62), 16 on 33x33, and 100x100."""
TREE_BOARDS = {
    "lit39": lambda: _grid("lit39", Game(39, 39, "white"), (1 << 1521) - 1),
}
"""Nullity 32, certified by its tree (3.7 million closed nodes): about two minutes."""


def _figures(name: str) -> dict[str, tuple[str, str]]:
    what = {"p14": "the POJ 1681 judge case, 14x14 (--format painter)", "b18": "the 18x18 unique-solution board, "
            "goal black", "lit19": "the all-lit 19x19 board", "lit40": "the all-lit 40x40 board",
            "lit33": "the all-lit 33x33 board", "lit39": "the all-lit 39x39 board",
            "king8x17": "a random solvable 8x17 king board"}
    board = what.get(name, f"a random solvable {name[1:]}x{name[1:]} board")
    return {f"certify.{name}.wall": ("s", f"flipgame solve --certify on {board}, wall time of the command"),
            f"certify.{name}.cpu": ("s", "its CPU time (every process)"),
            f"certify.{name}.peak_mib": ("MiB", "its peak resident memory"),
            f"certify.{name}.lines": ("", "its proof's lines"),
            f"certify.{name}.minimum": ("", "the minimum it certifies"),
            f"certify.{name}.nullity": ("", "the board's nullity")}


def _measure(boards: dict) -> Callable[[dict], dict[str, object]]:
    """The ``run`` of the measurement of ``boards``: every board's figures, in turn."""
    def run(context: dict) -> dict[str, object]:
        out: dict[str, object] = {}
        for board in boards.values():
            out.update(board())
        return out
    return run


measure_certify = _measure(CERTIFY_BOARDS)
measure_certify_long = _measure(LONG_BOARDS)
measure_certify_tree = _measure(TREE_BOARDS)


def measure_a79(context: dict) -> dict[str, object]:
    """The a(79) lower bound by the covering LP with parity cuts (``study --all-lit 79 --lower-bound``), the
    covering LP's alone, and the time."""
    run = flipgame_run("study", "--all-lit", "79", "--lower-bound")
    found = re.search(r"a\(79\) >= ([0-9]+)", run.stdout.decode())
    cover = re.search(r"the covering LP alone: ([0-9]+)", run.stderr_tail.decode())
    if not found or not cover:
        raise RuntimeError(f"study --all-lit 79 --lower-bound printed {run.stdout.decode()!r}")
    return {"a79.lower": {"value": int(found[1]), "text": found[1]}, "a79.cover": {"value": int(cover[1]),
            "text": cover[1]}, "a79.lower_seconds": run.wall}


CERTIFY_FIGURES = {k: v for name in CERTIFY_BOARDS for k, v in _figures(name).items()}
CERTIFY_LONG_FIGURES = {k: v for name in LONG_BOARDS for k, v in _figures(name).items()}
CERTIFY_TREE_FIGURES = {k: v for name in TREE_BOARDS for k, v in _figures(name).items()}
A79_FIGURES = {"a79.lower": ("", "the proven lower bound on A075464(79) (covering LP with Chvatal-Gomory cuts on odd "
                                 "sets of cells, dual weights checked in exact arithmetic)"),
               "a79.cover": ("", "the covering LP's bound alone (no cuts)"),
               "a79.lower_seconds": ("s", "flipgame study --all-lit 79 --lower-bound, wall time")}

"""A benchmark suite on disk: instance families x sizes in the exchange formats, with a manifest.

Each instance is one board under one rule set, written once per format by
:mod:`flipgame.export`, beside its board as text.  The manifest (``manifest.csv``
and ``manifest.json``) lists each instance's family, size, rules, files, known
answer and how that answer is certified:

``witness + gauss``
    gauss's minimum (GF(2) elimination, minimum over the null space), its press set
    re-applied by the board model.
``parity certificate``
    Impossible: a vector c with c^T A = 0 and odd overlap with board XOR goal, re-checked.
``unknown``
    gauss refuses the board (nullity over its limit); no answer is claimed.

The decision formats (``cnf``, ``xcnf``) are written at the bound ``optimum - 1``, so
their expected answer is UNSAT (the hard direction: a proof that no fewer presses do);
an Impossible board's CNF carries no bound and is UNSAT as well.  The other formats
minimise, and their expected optimum is the manifest's.

Running time: gauss per board plus O(n * bound) clauses per CNF.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
from collections.abc import Sequence

import numpy as np

from . import solve
from .board import Board, Game, format_cells
from .errors import RefusedError
from .export import BOUNDED, SUFFIXES, export
from .result import Status
from .study import FAMILIES
from .verify.witness import check_solution

SUITE_FORMATS = ("cnf", "xcnf", "wcnf", "opb", "mps", "lp")
"""Formats written by default."""
MANIFEST_FIELDS = ("instance", "family", "n", "rules", "optimum", "certificate", "bound", "expected_sat", "files")
"""Columns of ``manifest.csv``."""
B18 = ("bwbwbwbwbbbbbwwwbb wwbwwbbbbbbwwwwwbb wbbwbwbwbbbwwbwbbw bwwbwwwwwbwbwbwbbb wwwbbwbwwwwbwbbbbw "
       "wbwbbbbwbwwwwbbwbb bwwbwwbwwwwbwbbwbw wwwbbwbbbbwbbbwwbb bwbwwbbbwwwwbbwbbb bwwwbwwwbbbwwwwbbw "
       "wbbwbwbwwbwwbwwwww bbbwbbbwbwwwbbbbwb wwbbwwwwwwbwwwbwwb wwbbbbwbwbbwwbwwbb bbbwwwwbwwwwwbbbww "
       "bwbbwbbwwwbbwbbwww bbwbbbwwbwwwwwbwwb wwwwwwwbbbbwbwwbbw")
"""The 18x18 unique-solution board of the backend-scaling issue (goal black, optimum 176)."""


@dataclasses.dataclass(frozen=True)
class Entry:
    """One instance of the manifest."""

    instance: str
    family: str
    n: int
    rules: str
    optimum: str  # a number, "Impossible" or "unknown"
    certificate: str
    bound: int | None
    expected_sat: str  # for the decision formats: "UNSAT" or "unknown"
    files: dict[str, str]


def known_answer(game: Game, board: int) -> tuple[str, str]:
    """``(optimum, certificate)`` from gauss with its witness or parity certificate re-checked."""
    try:
        s = solve(board, "gauss", game=game)
    except RefusedError:
        return "unknown", "unknown"
    if check_solution(game, board, s) is not None:  # pragma: no cover - gauss is checked elsewhere
        return "unknown", "unknown"
    if s.status is Status.INFEASIBLE:
        return "Impossible", "parity certificate"
    return str(s.moves), "witness + gauss"


def instances(families: Sequence[str], sizes: Sequence[int] | None, boards: int, seed: int,
              judge: bool = True) -> list[tuple[str, str, int, Game, int]]:
    """``(name, family, n, game, board)`` for every family x size x board, plus the judge case."""
    rng = np.random.default_rng(seed)
    out = []
    for f in families:
        fam = FAMILIES[f]
        for n in sizes or fam.sizes:
            game = fam.game(n)
            for i, b in enumerate(fam.boards(game, rng, boards)):
                out.append((f"{f}-{n}x{n}-{i}", f, n, game, b))
    if judge:
        out.append(("judge-18x18-unique", "judge", 18, Game(18, 18, "black"), Board.from_rows(B18.split()).cells))
    return out


def write_instance(root: str, name: str, family: str, n: int, game: Game, board: int,
                   formats: Sequence[str]) -> Entry:
    """Write one instance's files under ``root``; its manifest entry."""
    optimum, certificate = known_answer(game, board)
    bound = int(optimum) - 1 if optimum.isdigit() and int(optimum) > 0 else None
    expected = "UNSAT" if bound is not None or optimum == "Impossible" else "unknown"
    notes = [f"known answer: {optimum} ({certificate})"]
    files = {}
    with open(os.path.join(root, name + ".txt"), "w") as f:
        f.write(format_cells(board, game.rows, game.cols) + "\n")
    for fmt in formats:
        path = name + ("-" + fmt if fmt == "opb-xor" else "") + SUFFIXES[fmt]
        b = bound if fmt in BOUNDED else None
        extra = [f"expected: {expected} (bound = optimum - 1)"] if fmt in BOUNDED else []
        with open(os.path.join(root, path), "w") as f:
            f.write(export(fmt, game, board, bound=b, notes=notes + extra))
        files[fmt] = path
    return Entry(name, family, n, game.rules, optimum, certificate, bound, expected, files)


def export_suite(root: str, families: Sequence[str] | None = None, sizes: Sequence[int] | None = None,
                 boards: int = 1, seed: int = 0, formats: Sequence[str] = SUITE_FORMATS,
                 judge: bool = True) -> list[Entry]:
    """Write the suite under ``root`` (created) and its manifest; the entries.

    Raises
    ------
    OSError
        ``root`` cannot be written.
    KeyError
        An unknown family.
    """
    os.makedirs(root, exist_ok=True)
    entries = [write_instance(root, *inst, formats)
               for inst in instances(list(families or FAMILIES), sizes, boards, seed, judge)]
    with open(os.path.join(root, "manifest.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(MANIFEST_FIELDS)
        for e in entries:
            row = dataclasses.asdict(e)
            row["files"] = " ".join(e.files.values())
            w.writerow(["" if row[k] is None else row[k] for k in MANIFEST_FIELDS])
    with open(os.path.join(root, "manifest.json"), "w") as f:
        json.dump({"seed": seed, "boards_per_size": boards, "formats": list(formats),
                   "instances": [dataclasses.asdict(e) for e in entries]}, f, indent=1)
    return entries

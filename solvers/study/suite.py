"""A benchmark suite on disk: instance families x sizes in the exchange formats, with a manifest.

Each instance is one board under one rule set, written once per format by
:mod:`flipgame.encode.export`, beside its board as text.  The manifest (``manifest.csv``
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

from flipgame.backends.result import Status
from flipgame.core.errors import RefusedError, RulesError
from flipgame.core.limits import MANIFEST_MAX_BYTES
from flipgame.encode.export import BOUNDED, COUNTS_FORMATS, SUFFIXES, export
from flipgame.formats.aoc2025_10 import read_aoc2025_10
from flipgame.model.grid import Board, Game, format_cells
from flipgame.model.puzzles import AOC2025_10, B18, MERLIN, MERLIN_RING
from flipgame.model.rules import from_json
from flipgame.model.system import PressSystem
from flipgame.pipeline.gate import solve_checked
from flipgame.study.families import FAMILIES

SUITE_FORMATS = ("cnf", "xcnf", "wcnf", "opb", "mps", "lp")
"""Formats written by default."""
MANIFEST_FIELDS = ("instance", "family", "n", "rules", "optimum", "certificate", "bound", "expected_sat", "files")
"""Columns of ``manifest.csv``."""
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
    game: dict | None = None  # the grid rules (rows, cols, goal, wrap, neighbourhood, stencil), to rebuild them
    system: dict | None = None  # a press system: its JSON (docs/general-game.md), goal, target and board


def known_answer(game: PressSystem, board) -> tuple[str, str]:
    """``(optimum, certificate)`` of one board: gauss's answer (bfs's for counters), its witness or its
    Impossible certificate re-checked by the model; ``unknown`` when neither takes it."""
    name = "gauss" if game.states is not None else "bfs"
    try:
        checked = solve_checked(board, name, game=game)
    except RefusedError:
        return "unknown", "unknown"
    if not checked.verdict.ok:
        return "unknown", "unknown"  # pragma: no cover - gauss and bfs are checked elsewhere
    s = checked.solution
    if s.status is Status.INFEASIBLE:
        return "Impossible", "parity certificate" if game.binary else "certificate mod k" if game.states \
            else "bfs: no counter box reaches it"
    if s.status is not Status.OPTIMAL:
        return "unknown", "unknown"
    return str(s.moves), f"witness + {name}"


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
        out.append(("judge-18x18-unique", "judge", 18, Game(18, 18, "black"), Board.from_rows(B18).cells))
    return out


def _write_files(root: str, name: str, board_text: str, formats: Sequence[str], known: tuple[str, str],
                 write) -> tuple[int | None, str, dict[str, str]]:
    """Write ``name``'s board text and one file per format (``write(fmt, bound, notes)`` gives its
    text); the decision formats at the bound ``optimum - 1``.  Returns (bound, expected answer, files)."""
    optimum, certificate = known
    bound = int(optimum) - 1 if optimum.isdigit() and int(optimum) > 0 else None
    expected = "UNSAT" if bound is not None or optimum == "Impossible" else "unknown"
    notes = [f"known answer: {optimum} ({certificate})"]
    with open(os.path.join(root, name + ".txt"), "w") as f:
        f.write(board_text + "\n")
    files = {}
    for fmt in formats:
        path = name + ("-" + fmt if fmt == "opb-xor" else "") + SUFFIXES[fmt]
        extra = [f"expected: {expected} (bound = optimum - 1)"] if fmt in BOUNDED else []
        with open(os.path.join(root, path), "w") as f:
            f.write(write(fmt, bound if fmt in BOUNDED else None, notes + extra))
        files[fmt] = path
    return bound, expected, files


def write_instance(root: str, name: str, family: str, n: int, game: PressSystem, board,
                   formats: Sequence[str]) -> Entry:
    """Write one instance's files (the formats that take it) and its board under ``root``; its manifest entry.
    A grid's entry keeps its rules (``game``); any other press system's its JSON and board (``system``)."""
    known = known_answer(game, board)
    rules = game.to_json()
    generated = "neighbourhood" in rules  # a grid generator's rules (docs/general-game.md), not buttons
    grid = generated and game.binary
    text = format_cells(board, game.rows, game.cols) if grid else game.format_board(board)
    taken = [f for f in formats if game.binary or f in COUNTS_FORMATS]
    bound, expected, files = _write_files(root, name, text, taken, known,
                                          lambda fmt, b, notes: export(fmt, game, board, bound=b, notes=notes))
    if grid:
        kept = {k: rules[k] for k in ("rows", "cols", "goal", "wrap", "neighbourhood", "stencil")}
        return Entry(name, family, n, game.rules, *known, bound, expected, files, game=kept)
    if generated:  # a grid beyond two states: its rules and its board
        return Entry(name, family, n, game.rules, *known, bound, expected, files,
                     game={**rules, "board": game.cells_of(board)})
    described = {**game.to_json(), "board": game.cells_of(board)}
    return Entry(name, family, n, game.rules, *known, bound, expected, files, system=described)


GENERAL_FAMILY = "general"
"""The suite's family of press systems (three states, Merlin's square, counters, Z_4 and Z_5)."""


def general_instances(seed: int) -> list[tuple[str, PressSystem, object]]:
    """``(name, system with its goal, board)`` of the general family: Lights Out 2000 (5x5 mod 3, all 1s
    and all 2s to all 0s: 18 and 21), Merlin's square (to the ring: 8 from all off, 4 from
    ``bww/www/www``), the Advent of Code 2025 day 10 example as counters (10, 12, 11), and random
    boards mod 4 (3x3) and mod 5 (4x4) to all 0s."""
    rng = np.random.default_rng(seed)
    lo = Game(5, 5, "0", states=3)
    ring = from_json({**MERLIN, "goal": "board", "target": list(MERLIN_RING)})
    out = [("lo2000-5x5-all1", lo, (1,) * 25), ("lo2000-5x5-all2", lo, (2,) * 25),
           ("merlin-off-to-ring", ring, 0), ("merlin-bww-to-ring", ring, 1)]
    out += [(f"aoc2025-10-machine{k}", system, board)
            for k, system, board in read_aoc2025_10(AOC2025_10, part=2)]
    for k, (r, c) in ((4, (3, 3)), (5, (4, 4))):
        system = Game(r, c, "0", states=k)
        out.append((f"z{k}-{r}x{c}-0", system, tuple(int(v) for v in rng.integers(0, k, r * c))))
    return out


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
    families = list(families or [*FAMILIES, GENERAL_FAMILY])
    entries = [write_instance(root, *inst, formats)
               for inst in instances([f for f in families if f in FAMILIES], sizes, boards, seed, judge)]
    if GENERAL_FAMILY in families:
        entries += [write_instance(root, name, GENERAL_FAMILY, system.cells, system, board, formats)
                    for name, system, board in general_instances(seed)]
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


def suite_plan(root: str) -> tuple[list[tuple], list[str]]:
    """The instances of the suite written under ``root``, as a plan of
    :func:`flipgame.study.compare.compare_strategies` (family, n, press system, index, board), read from
    the files alone (``manifest.json`` and each grid instance's board text; a press system's board is in
    its manifest entry); and the names of the instances it leaves out (none: every kind runs).

    Raises
    ------
    OSError
        ``root`` has no readable manifest or board file.
    ValueError
        A damaged manifest, or a board whose answer (gauss, re-checked) is not the manifest's.
    """
    manifest = _manifest(os.path.join(root, "manifest.json"))
    plan, index = [], {}
    try:
        for number, e in enumerate(manifest["instances"], start=1):
            if not isinstance(e, dict):
                kind = JSON_TYPES.get(type(e), "value")
                raise ValueError(f"{root}/manifest.json: instance {number} is a JSON {kind}, not an object")
            game, board = _instance(root, e)
            answer = known_answer(game, board)[0]
            if answer != str(e["optimum"]):
                raise ValueError(f"{e['instance']}: the manifest says {e['optimum']!r}, gauss {answer!r}")
            i = index[(e["family"], e["n"])] = index.get((e["family"], e["n"]), -1) + 1
            plan.append((e["family"], e["n"], game, i, board))
    except (KeyError, TypeError, AttributeError, RulesError) as exc:
        raise ValueError(f"{root}/manifest.json is not a flipgame suite manifest ({exc})") from None
    return plan, []


JSON_TYPES = {str: "string", list: "array", int: "number", float: "number", bool: "boolean", type(None): "null"}
"""How a message names the JSON type of a value read by :func:`json.loads`."""


def _manifest(path: str) -> dict:
    """The manifest at ``path``: a JSON object whose ``instances`` is a list, read up to
    :data:`MANIFEST_MAX_BYTES` (a byte-order mark allowed).  Raises OSError, or ValueError naming what
    is wrong (not JSON, nested too deep, not a manifest's shape)."""
    with open(path, "rb") as f:
        data = f.read(MANIFEST_MAX_BYTES + 1)
    if len(data) > MANIFEST_MAX_BYTES:
        raise ValueError(f"{path}: over {MANIFEST_MAX_BYTES >> 20} MiB, not a flipgame suite manifest")
    try:
        manifest = json.loads(data.decode("utf-8-sig"))
    except RecursionError:
        raise ValueError(f"{path} is nested too deep to be a flipgame suite manifest") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, a number of over 4300 digits
        raise ValueError(f"{path} is not a flipgame suite manifest (not JSON: {exc})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("instances"), list):
        raise ValueError(f'{path} is not a flipgame suite manifest: expected an object whose "instances" is a list')
    return manifest


def _instance(root: str, entry: dict) -> tuple[PressSystem, object]:
    """One manifest entry's rules and board: a grid from ``game`` and its board file, or a press system from
    ``system`` (its JSON with goal and target, and its board)."""
    if entry.get("game") is not None:
        rules = dict(entry["game"])
        rules["stencil"] = tuple(map(tuple, rules["stencil"])) if rules.get("stencil") else None
        board = rules.pop("board", None)
        if "states" in rules:
            rules["states"] = None if rules["states"] == "counters" else rules["states"]
            rules["target"] = None if rules.get("target") is None else tuple(rules["target"])
        game = Game(**rules)
        if board is not None:
            return game, game.board_of(board)
        with open(os.path.join(root, entry["instance"] + ".txt")) as f:
            return game, Board.from_rows(f.read(1 << 24).split()).cells
    described = dict(entry["system"])
    board = described.pop("board")
    system = from_json(described)
    return system, system.board_of(board)

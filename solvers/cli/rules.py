"""The rules chosen on the command line: a grid (``--size``, ``--wrap``, ``--neighbourhood``, ``--stencil``,
``--states``) or a press system from ``--rules FILE`` (JSON or an edge list), with its goal (``--goal``,
``--target FILE``).  Every file is read in bounded pieces; every mistake is one :class:`RulesError` line
naming the option."""

from __future__ import annotations

import itertools
import sys

from flipgame.core.errors import BoardFormatError, RulesError
from flipgame.core.limits import RULES_MAX_BYTES
from flipgame.formats.judge import FORMATS
from flipgame.formats.lines import LineSource
from flipgame.model.grid import Game
from flipgame.model.rules import from_json, read_edge_list
from flipgame.model.system import PressSystem


def game_from_args(args) -> PressSystem:
    """The press system chosen on the command line: a grid (``--size``, ``--wrap``, ``--neighbourhood``,
    ``--stencil``, ``--states``) or ``--rules FILE``, with its goal (``--goal``, ``--target``).

    Raises RulesError naming a bad combination or file.
    """
    states = 2 if getattr(args, "states", None) is None else args.states or None  # --states counters is 0
    if getattr(args, "rules", None) is not None:
        system = _rules_file(args, states)
    else:
        rows, cols = args.size or (4, 4)
        if args.stencil is not None and args.neighbourhood != "stencil":
            raise RulesError("--stencil needs --neighbourhood stencil")
        if args.neighbourhood == "stencil" and args.stencil is None:
            raise RulesError("--neighbourhood stencil needs --stencil PATTERN (e.g. '.x./xxx/.x.')")
        goal = "any" if states is not None else "0"  # counters take no 'any'; --goal or --target sets it below
        system = Game(rows, cols, goal, args.wrap, args.neighbourhood, args.stencil, states=states)
    if args.target is not None:
        if args.goal is not None:
            raise RulesError("give either --goal or --target, not both")
        return system.with_goal("board", _target(args.target, system))
    if args.goal is None and getattr(args, "rules", None) is not None:
        return system  # the file's own goal (default any)
    return system.with_goal(args.goal or "any")


def _rules_file(args, states: int | None) -> PressSystem:
    """The system of ``--rules FILE`` (JSON or an edge list), read whole up to :data:`RULES_MAX_BYTES`."""
    if args.size or args.wrap or args.neighbourhood != "plus" or args.stencil:
        raise RulesError("--rules gives the cells and buttons; drop --size/--wrap/--neighbourhood/--stencil")
    text = read_text(args.rules, "--rules", RULES_MAX_BYTES)
    try:
        provisional = None if args.goal is None and args.target is None else "0"  # the command line's, below
        if text.lstrip("\ufeff \t\r\n").startswith(("{", "[")):  # an edge list starts with neither
            return from_json(text, "file" if args.states is None else states, goal=provisional)
        return read_edge_list(text, states=states, goal=provisional or "any")
    except RulesError as exc:
        raise RulesError(f"--rules {args.rules}: {exc}") from None


def read_text(path: str, what: str, limit: int) -> str:
    """The text of file ``path`` (``-``: standard input), read in bounded pieces: RulesError past ``limit``
    bytes, or when it cannot be read or decoded, naming ``what``."""
    try:
        fh = open(sys.stdin.fileno(), "rb", closefd=False) if path == "-" else open(path, "rb")  # noqa: SIM115
        with fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise RulesError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise RulesError(f"{what} {path}: over {limit >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesError(f"{what} {path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _target(path: str, system: PressSystem):
    """The one board of ``--target FILE`` for ``system``, read in bounded pieces (at most two boards)."""
    try:
        with open(path, "rb", buffering=0) as fh:
            lines = LineSource(fh, FORMATS["poj1753"].line_limit(system), universal=True)
            boards = [c.board for c in itertools.islice(FORMATS["poj1753"].reader(lines, system), 2)]
    except OSError as exc:
        raise RulesError(f"cannot read --target {path}: {exc.strerror}") from None
    except BoardFormatError as exc:
        raise RulesError(f"--target {path}: {exc}") from None
    if len(boards) != 1:
        found = "none" if not boards else "more than one"
        raise RulesError(f"--target {path}: expected one {system.size} board, found {found}")
    return boards[0]

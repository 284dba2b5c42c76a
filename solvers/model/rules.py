"""Generators of press systems besides the grid: graphs, edge lists and the JSON rules format.

* :func:`from_edges`: a graph game: button v changes v's neighbours (and v itself, closed);
* :func:`read_edge_list`: the same from text (``u v`` lines, ``cells N``, ``closed``/``open``);
* :func:`from_json`: the JSON press-system format of docs/general-game.md (``grid`` or ``cells``,
  ``states``, ``buttons`` with ``amounts``, or ``edges``; optional ``goal`` and ``target``).

Every size is checked before anything of that size is built: a vertex number,
a ``cells`` count or a ``grid`` shape over
:data:`~flipgame.core.limits.SYSTEM_MAX_CELLS` is refused at once, and a
number's text is read only up to 12 digits.  Errors are one
:class:`~flipgame.core.errors.RulesError` line naming the key or line at fault.

>>> from_edges(3, [(0, 1), (1, 2)], closed=False, goal="white").press_masks
(2, 5, 2)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from flipgame.core.errors import RulesError
from flipgame.core.limits import NUMBER_DIGITS, STATES_MAX, SYSTEM_MAX_CELLS
from flipgame.model.parts import is_number
from flipgame.model.system import PressSystem

JSON_KEYS = ("grid", "cells", "states", "buttons", "amounts", "edges", "neighbourhood", "directed", "goal",
             "target", "comment")
GRID_KEYS = ("rows", "cols", "wrap", "neighbourhood", "stencil", "goal", "target", "states", "comment")
"""The keys of a grid's rules as :meth:`flipgame.model.grid.Game.to_json` writes them (an exported file's
``system (JSON)`` header, a suite's manifest): read back by :func:`from_json` as the same grid."""


def from_edges(cells: int, edges: Iterable[tuple[int, int]], *, closed: bool = True, directed: bool = False,
               states: int | None = 2, goal: str = "any", target=None) -> PressSystem:
    """A graph game: button v changes v's neighbours, and v itself when ``closed``.

    With ``directed``, an edge (u, v) means pressing u changes v only (POJ 1830).
    Running time O(cells + edges).

    An isolated vertex of the open neighbourhood is a button that changes no cell, as an empty button of a
    JSON press system is.

    Raises RulesError: too many cells, or a vertex outside ``0..cells-1``.
    """
    if not isinstance(cells, int) or isinstance(cells, bool) or not 1 <= cells <= SYSTEM_MAX_CELLS:
        raise RulesError(f"a graph has 1..{SYSTEM_MAX_CELLS:,} vertices, got {_shown(cells)}")
    out: list[set[int]] = [({v} if closed else set()) for v in range(cells)]
    for u, v in edges:
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (u, v)):
            raise RulesError(f"edge ({_shown(u, 20)}, {_shown(v, 20)}) names a vertex that is not an integer")
        if not (0 <= u < cells and 0 <= v < cells):
            raise RulesError(f"edge ({u}, {v}) names a vertex outside 0..{cells - 1}")
        out[u].add(v)
        if not directed:
            out[v].add(u)
    buttons = tuple(tuple((c, 1) for c in sorted(s)) for s in out)
    return PressSystem(cells, buttons, states, goal, target)


def read_edge_list(text: str, states: int | None = 2, goal: str = "any") -> PressSystem:
    """A graph from text: optional first line ``closed`` or ``open``, optional ``cells N``, then
    one ``u v`` pair per line (``#`` starts a comment).  Vertices are 0-based; without
    ``cells N`` the count is the largest vertex plus one.  O(len(text)).

    >>> read_edge_list("open\\n0 1\\n1 2").press_masks[0]
    2
    """
    if not isinstance(text, str):
        raise RulesError(f"an edge list is text (str), got {type(text).__name__}")
    closed, cells, edges = True, None, []
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):  # a byte-order mark: no text
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words in (["closed"], ["open"]):
            closed = words[0] == "closed"
        elif len(words) == 2 and words[0] == "cells" and _number(words[1]):
            cells = _vertices(int(words[1]), number)
        elif len(words) == 2 and all(_number(w) for w in words):
            u, v = (int(w) for w in words)
            _vertices(max(u, v) + 1, number)
            edges.append((u, v))
        else:
            raise RulesError(f"edge list line {number}: expected 'u v', 'cells N', 'closed' or 'open' "
                             f"(0-based vertex numbers), got {raw.strip()!r:.40}")
    if cells is None:
        if not edges:
            raise RulesError("edge list: no edges and no 'cells N'")
        cells = 1 + max(max(e) for e in edges)
    return from_edges(cells, edges, closed=closed, states=states, goal=goal)


def _number(word: str) -> bool:
    return is_number(word) and len(word) <= NUMBER_DIGITS


def _vertices(count: int, line: int) -> int:
    if count > SYSTEM_MAX_CELLS:
        raise RulesError(f"edge list line {line}: {count:,} vertices; a press system has at most "
                         f"{SYSTEM_MAX_CELLS:,} cells")
    return count


def from_json(data: dict | str, states: int | None | str = "file", goal: str | None = None) -> PressSystem:
    """A press system from the JSON format (a dict or its text).

    Keys: ``grid`` ("RxC") or ``cells`` (N); ``states`` (K, default 2, or ``"counters"``); ``buttons``
    (lists of 0-based cell indices, row-major) with optional ``amounts`` (the same shape: what each
    button adds to each of its cells, default 1), or instead ``edges`` (pairs of vertices) with
    ``neighbourhood`` (``closed``, default, or ``open``) and ``directed`` (true/false); optional
    ``goal`` (default ``any``, counters need one) and ``target`` (a list of cell states, for goal
    ``board``).  ``states`` and ``goal`` given here (not ``"file"`` / None) override the file's.

    Raises
    ------
    RulesError
        Naming the key at fault, in one line (deep nesting and over-long numbers included).

    >>> from_json('{"cells": 2, "states": 3, "buttons": [[0, 1]], "goal": "0"}').matrix.tolist()
    [[1], [1]]
    """
    data = _parse_json(data) if isinstance(data, str) else data
    if not isinstance(data, dict):
        raise RulesError("a press-system file is a JSON object")
    if "rows" in data or "cols" in data:
        return _grid_rules(data, states, goal)
    extra = sorted(set(data) - set(JSON_KEYS))
    if extra:
        raise RulesError(f"unknown key {', '.join(map(_shown, extra))} in the press-system file "
                         f"(keys: {', '.join(JSON_KEYS)})")
    _only_with(data)
    cells, shape = _shape(data)
    k = _states(data.get("states", 2)) if states == "file" else states
    buttons = _edge_buttons(data, cells, k) if "edges" in data else _listed_buttons(data)
    if goal is None and "target" in data and data.get("goal") != "board":
        raise RulesError('"target" is the goal board of "goal": "board"; give both or neither')
    goal = goal if goal is not None else data.get("goal", "any" if k is not None else None)
    if goal is None:
        raise RulesError('counters need a "goal" value D or a "target" board (or --goal D / --target FILE)')
    target = _int_list(data["target"], '"target"') if goal == "board" and "target" in data else None
    return PressSystem(cells, buttons, k, goal, target, shape)


def _grid_rules(data: dict, states, goal: str | None) -> PressSystem:
    """The grid of :data:`GRID_KEYS` (a game's own JSON); RulesError naming a key at fault."""
    from flipgame.model.grid import Game

    extra = sorted(set(data) - set(GRID_KEYS))
    if extra:
        raise RulesError(f"unknown key {', '.join(map(_shown, extra))} beside \"rows\" and \"cols\" (a grid's keys: "
                         f"{', '.join(GRID_KEYS)})")
    k = _states(data.get("states", 2)) if states == "file" else states
    _grid_types(data)
    stencil = data.get("stencil")
    try:
        return Game(data.get("rows"), data.get("cols"), goal if goal is not None else _or_any(data.get("goal")),
                    wrap=data.get("wrap", False), neighbourhood=data.get("neighbourhood") or "plus",
                    stencil=[tuple(o) for o in stencil] if isinstance(stencil, list) else stencil,
                    target=data.get("target"), states=k)
    except (TypeError, ValueError) as exc:
        raise RulesError(f"a grid's rules: {exc}") from None


def _grid_types(data: dict) -> None:
    """RulesError naming the first key of a grid's rules whose JSON type is wrong (``"wrap": 1`` was read as no
    wrap, ``"rows": true`` as 1 row)."""
    for key in ("rows", "cols"):
        if not _is_int(data.get(key)):
            raise RulesError(f'"{key}" must be a positive integer, got {_shown(data.get(key))}')
    wants = {"wrap": (bool, "true or false"), "neighbourhood": (str, "a string"),
             "goal": (str, 'a string (any, white, black, a state such as "1", or board)'),
             "stencil": ((str, list), 'a list of [row, col] offsets or text like "x.x/.x./x.x"')}
    for key, (kinds, what) in wants.items():
        value = data.get(key)
        if value is not None and (not isinstance(value, kinds) or (key != "wrap" and isinstance(value, bool))):
            raise RulesError(f'"{key}" must be {what}, got {_shown(value)}')
    if isinstance(data.get("stencil"), list) and not all(
            isinstance(o, list) and len(o) == 2 and all(map(_is_int, o)) for o in data["stencil"]):
        raise RulesError(f'"stencil" must be a list of [row, col] offsets (integers), got {_shown(data["stencil"])}')


def _or_any(goal):
    return "any" if goal is None else goal


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value, width: int = 40) -> str:
    """``value`` as JSON (as the user wrote it: ``true``, ``null``, double quotes), cut to ``width`` characters."""
    text = json.dumps(value, default=str)
    return text if len(text) <= width else text[:width - 3] + "..."


ONLY_WITH = {"amounts": "buttons", "neighbourhood": "edges", "directed": "edges"}
"""Keys of the JSON format that mean something only beside another (never ignored: refused)."""


def _only_with(data: dict) -> None:
    for key, needs in ONLY_WITH.items():
        if key in data and needs not in data:
            raise RulesError(f'"{key}" applies to "{needs}", which the press-system file does not give')


class _Object(dict):
    """A JSON object that remembers the first key it was given twice (the last value would win unseen)."""

    twice: str | None = None


def _object(pairs: list) -> _Object:
    out = _Object(pairs)
    if len(out) < len(pairs):
        seen: set = set()
        out.twice = next(k for k, _ in pairs if k in seen or seen.add(k))
    return out


def _parse_json(text: str) -> dict:
    try:
        data = json.loads(text.lstrip("\ufeff"), object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise RulesError(f"press-system file is not JSON: {exc}") from None
    except RecursionError:
        raise RulesError("press-system file is nested too deep to be a press system") from None
    except ValueError as exc:  # a number of over 4300 digits
        raise RulesError(f"press-system file: {exc}") from None
    if getattr(data, "twice", None) is not None:
        raise RulesError(f"press-system file gives the key {_shown(data.twice)} twice")
    return data


def _shape(data: dict) -> tuple[int, tuple[int, int] | None]:
    if ("grid" in data) == ("cells" in data):
        raise RulesError('a press-system file gives either "grid": "RxC" or "cells": N')
    if "grid" in data:
        m = re.fullmatch(r"\s*([0-9]{1,5})\s*[xX]\s*([0-9]{1,5})\s*", str(data["grid"])[:40])
        if not m or not 1 <= int(m[1]) * int(m[2]) <= SYSTEM_MAX_CELLS:
            raise RulesError(f'"grid" must be "RxC" with 1..{SYSTEM_MAX_CELLS:,} cells, got {_shown(data["grid"])}')
        rows, cols = int(m[1]), int(m[2])
        return rows * cols, (rows, cols)
    cells = data["cells"]
    if not isinstance(cells, int) or isinstance(cells, bool) or not 1 <= cells <= SYSTEM_MAX_CELLS:
        raise RulesError(f'"cells" must be an integer 1..{SYSTEM_MAX_CELLS:,}, got {_shown(cells)}')
    return cells, None


def _int_list(value, what: str) -> list[int]:
    if not isinstance(value, list) or any(not isinstance(v, int) or isinstance(v, bool) for v in value):
        raise RulesError(f"{what} must be a list of integers, got {_shown(value, 60)}")
    return value


def _states(value) -> int | None:
    if value == "counters":
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 2 <= value <= STATES_MAX:
        raise RulesError(f'"states" must be an integer 2..{STATES_MAX} or "counters", got {_shown(value)}')
    return value


def _edge_buttons(data: dict, cells: int, k: int | None) -> tuple:
    """The buttons of the ``edges`` form of the JSON format."""
    if "buttons" in data:
        raise RulesError('give either "buttons" or "edges", not both')
    hood, directed = data.get("neighbourhood", "closed"), data.get("directed", False)
    if hood not in ("closed", "open"):
        raise RulesError(f'"neighbourhood" must be "closed" or "open", got {_shown(hood)}')
    if not isinstance(directed, bool):
        raise RulesError(f'"directed" must be true or false, got {_shown(directed)}')
    if not isinstance(data["edges"], list):
        raise RulesError(f'"edges" must be a list of pairs [u, v], got {_shown(data["edges"])}')
    edges = [tuple(_int_list(e, "an edge")) for e in data["edges"]]
    if any(len(e) != 2 for e in edges):
        raise RulesError("an edge is a pair [u, v]")
    return from_edges(cells, edges, closed=hood == "closed", directed=directed, states=k, goal="0").buttons


def _listed_buttons(data: dict) -> tuple:
    """The buttons of the ``buttons`` (and ``amounts``) form as (cell, amount) pairs."""
    if not isinstance(data.get("buttons"), list):
        raise RulesError('a press-system file needs "buttons": a list of lists of cell indices')
    buttons = [_int_list(b, f"button {j}") for j, b in enumerate(data["buttons"])]
    amounts = data.get("amounts", [[1] * len(b) for b in buttons])
    if not isinstance(amounts, list) or len(amounts) != len(buttons) or any(
            len(_int_list(a, "amounts")) != len(b) for a, b in zip(amounts, buttons, strict=False)):
        raise RulesError('"amounts" must have the shape of "buttons" (one amount per listed cell)')
    return tuple(tuple(zip(b, a, strict=True)) for b, a in zip(buttons, amounts, strict=True))

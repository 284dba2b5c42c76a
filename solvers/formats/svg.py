"""Pictures of a puzzle and its answer as SVG, and its boards press by press as text.

A grid (:class:`~flipgame.model.grid.Game`, or a press system with a shape whose button j changes
cell j, as Merlin's square) is drawn as squares, one per cell, filled by state (white
and black on two states, greys with the state written on k states), the pressed cells marked by an
orange ring (with the count when a cell is pressed more than once).  Any other press system is
drawn as a graph: its cells on a circle, relaxed by a few steps of a spring layout when it is a
graph game (each button changes its own cell, as Lights Out on a graph), its buttons joined to the
cells they change; a pressed button is orange.  The picture shows the board with its presses and
the goal reached; with ``steps`` the boards press by press instead (presses commute: they are taken
in button order).  Written with :mod:`xml.etree.ElementTree` (no dependency).

Source: Fruchterman, Reingold, "Graph drawing by force-directed placement" (1991), for the spring
layout; the Okabe-Ito orange for presses, as the study's figures.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np

from flipgame.core.limits import SVG_GRAPH_MAX_CELLS, SVG_GRID_MAX_CELLS, SVG_STEPS_MAX
from flipgame.model.grid import Game, format_cells
from flipgame.model.system import PressSystem

SVG_NS = "http://www.w3.org/2000/svg"
CELL_PX = 26
"""Side of a grid cell, in pixels."""
GRAPH_PX = 240
"""Side of a graph panel, in pixels."""
LABEL_PX = 120
"""Least width of a panel, so that its label fits (``board and presses`` at 11 px)."""
TITLE_CHAR_PX = 8.2
"""Width of one character of the title (14 px bold sans-serif), for the picture's width."""
PRESS_COLOUR = "#E69F00"
"""Okabe-Ito orange: a press."""
PANELS_PER_ROW = 6
"""Panels on one row of a step-by-step picture."""
SPRING_STEPS = 60
"""Iterations of the spring layout (Fruchterman-Reingold) from the circle; the layout is deterministic."""
CELL_LABEL_MAX = 64
"""Most cells of a graph panel whose numbers are written beside them (the steps name buttons by number; with
more, the numbers would cover the drawing)."""


def state_fill(value: int, states: int | None) -> str:
    """Fill colour of a cell of ``value``: white/black on two states, greys on k states, white for counters."""
    if states is None:
        return "#ffffff"
    level = round(255 - 225 * value / max(states - 1, 1))
    return f"#{level:02x}{level:02x}{level:02x}"


def _text_colour(value: int, states: int | None) -> str:
    return "#ffffff" if states is not None and value > (states - 1) / 2 else "#000000"


def steps(game: PressSystem, board, presses) -> list[tuple[str, object, int | None]]:
    """``[(label, board, button pressed or None)]``: the start, then the board after each press (button order,
    a button pressed t times listed t times), at most :data:`SVG_STEPS_MAX` entries."""
    counts = game.counts(presses)
    out: list[tuple[str, object, int | None]] = [("start", board, None)]
    current = board
    for j, t in enumerate(counts):
        for _ in range(t):
            if len(out) >= SVG_STEPS_MAX:
                return out
            one = (1 << j) if game.binary else tuple(int(i == j) for i in range(game.m))
            current = game.apply(current, one)
            out.append((f"press {_button_name(game, j)}", current, j))
    return out


def _button_name(game: PressSystem, j: int) -> str:
    if drawn_as_grid(game):
        return f"({j // game.shape[1]}, {j % game.shape[1]})"
    return f"button {j}"


def board_text(game: PressSystem, board, colours: tuple[str, str] = ("w", "b")) -> str:
    """A board as ``solve`` reads it: rows of the format's two letters on a two-state grid, else the system's
    own text (:meth:`PressSystem.format_board`)."""
    if isinstance(game, Game) and game.binary:
        return format_cells(board, game.rows, game.cols, colours[1], colours[0])
    return game.format_board(board)


def steps_text(game: PressSystem, board, presses, colours: tuple[str, str] = ("w", "b")) -> str:
    """The boards press by press as text (``--steps``): a header per step, then the board."""
    lines = []
    shown = steps(game, board, presses)
    for i, (label, b, _) in enumerate(shown):
        lines += [f"step {i}: {label}", board_text(game, b, colours)]
    total = sum(game.counts(presses))
    if total + 1 > len(shown):
        lines.append(f"(the other {total + 1 - len(shown)} presses are not shown: at most {SVG_STEPS_MAX} boards)")
    return "\n".join(lines)


def _el(parent, tag: str, **attrs) -> ET.Element:
    return ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attrs.items()})


def _label(parent, x: float, y: float, text: str, size: int = 12, **attrs) -> None:
    _el(parent, "text", x=f"{x:.1f}", y=f"{y:.1f}", font_size=size, font_family="sans-serif", **attrs).text = text


def drawn_as_grid(game: PressSystem) -> bool:
    """True for a grid, or a press system with a shape whose button j changes cell j (Merlin's square)."""
    return isinstance(game, Game) or (game.shape is not None and cell_centred(game))


def _grid_panel(parent, game: PressSystem, board, marks: dict[int, int], x0: float, y0: float) -> None:
    """One grid: a square per cell (class ``cell``), an orange ring per pressed cell (class ``press``)."""
    values = game.cells_of(board)
    for i, v in enumerate(values):
        r, c = divmod(i, game.shape[1])
        x, y = x0 + c * CELL_PX, y0 + r * CELL_PX
        _el(parent, "rect", class_="cell", x=x, y=y, width=CELL_PX, height=CELL_PX, fill=state_fill(v, game.states),
            stroke="#777777", stroke_width=1)
        if game.states not in (2, None):
            _label(parent, x + CELL_PX / 2, y + CELL_PX / 2 + 4, str(v), 11, text_anchor="middle",
                   fill=_text_colour(v, game.states), class_="value")
        if marks.get(i):
            _el(parent, "circle", class_="press", cx=x + CELL_PX / 2, cy=y + CELL_PX / 2, r=CELL_PX * 0.32,
                fill="none", stroke=PRESS_COLOUR, stroke_width=3.5)
            if marks[i] > 1:  # the press count, on an orange badge at the corner
                _el(parent, "circle", class_="count", cx=x + CELL_PX - 6, cy=y + 6, r=6, fill=PRESS_COLOUR,
                    stroke="#000000", stroke_width=0.5)
                _label(parent, x + CELL_PX - 6, y + 9, str(marks[i]), 8, text_anchor="middle", fill="#000000",
                       class_="count")


def cell_centred(system: PressSystem) -> bool:
    """True when button j changes cell j for every j (m = n): a graph game, drawn with presses on cells."""
    return system.m == system.n and all(any(c == j for c, _ in b) for j, b in enumerate(system.buttons))


def layout(system: PressSystem) -> np.ndarray:
    """Cell positions in the unit square, float array of shape (n, 2): a circle, then (for a graph game)
    :data:`SPRING_STEPS` steps of Fruchterman-Reingold over the edges cell j - cell k of button j.  O(n^2)
    per step."""
    n = system.n
    angle = 2 * np.pi * np.arange(n) / max(n, 1) - np.pi / 2
    pos = np.stack([np.cos(angle), np.sin(angle)], axis=1) * 0.42 + 0.5
    if n < 3 or not cell_centred(system):
        return pos
    edges = np.array([(j, c) for j, b in enumerate(system.buttons) for c, _ in b if c != j] or [(0, 0)])
    k = math.sqrt(1 / n)
    heat = 0.1
    for _ in range(SPRING_STEPS):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.maximum(np.linalg.norm(delta, axis=2), 1e-3)
        force = (delta / dist[..., None] * (k * k / dist)[..., None]).sum(axis=1)
        d = pos[edges[:, 0]] - pos[edges[:, 1]]
        length = np.maximum(np.linalg.norm(d, axis=1), 1e-3)
        pull = d * (length / k)[:, None]
        np.add.at(force, edges[:, 0], -pull)
        np.add.at(force, edges[:, 1], pull)
        norm = np.maximum(np.linalg.norm(force, axis=1), 1e-9)
        pos += force / norm[:, None] * np.minimum(norm, heat)[:, None]
        heat *= 0.95
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    return (pos - lo) / np.maximum(hi - lo, 1e-9) * 0.84 + 0.08


def button_layout(system: PressSystem, pos: np.ndarray) -> np.ndarray:
    """Button positions, float array of shape (m, 2): evenly on an inner circle, in the order of the angles of
    the cells each changes (their mean position seen from the centre), so that no two coincide.  O(entries)."""
    centre = np.array([0.5, 0.5])
    angles = []
    for j, b in enumerate(system.buttons):
        mean = pos[[c for c, _ in b]].mean(axis=0) - centre if b else np.zeros(2)
        if np.linalg.norm(mean) < 1e-6:  # cells opposite each other: the first cell's angle
            mean = pos[b[0][0]] - centre if b else np.array([np.cos(j), np.sin(j)])
        angles.append(math.atan2(mean[1], mean[0]))
    order = np.argsort(angles, kind="stable")
    start = angles[order[0]] if len(order) else 0.0
    out = np.zeros((system.m, 2))
    for rank, j in enumerate(order):
        a = start + 2 * np.pi * rank / max(system.m, 1)
        out[j] = centre + 0.22 * np.array([np.cos(a), np.sin(a)])
    return out


def _graph_panel(parent, system: PressSystem, pos: np.ndarray, board, counts, x0: float, y0: float) -> None:
    """One press system as a graph: edges (class ``edge``), cells as circles (class ``cell``, value written
    where it is not two-state, its number beside it up to :data:`CELL_LABEL_MAX` cells, class ``cell-label``),
    buttons as squares (class ``button``) unless the game is cell-centred, and pressed buttons or cells orange
    (class ``press``)."""
    values = system.cells_of(board)
    xy = pos * GRAPH_PX + (x0, y0)
    centred = cell_centred(system)
    radius = max(4.0, min(13.0, GRAPH_PX / (2.6 * max(system.n, 1) ** 0.75)))
    buttons = xy[:0] if centred else button_layout(system, pos) * GRAPH_PX + (x0, y0)
    for j, b in enumerate(system.buttons):
        start = xy[j] if centred else buttons[j]
        for c, _ in b:
            if c != j or not centred:
                _el(parent, "line", class_="edge", x1=f"{start[0]:.1f}", y1=f"{start[1]:.1f}", x2=f"{xy[c][0]:.1f}",
                    y2=f"{xy[c][1]:.1f}", stroke="#999999", stroke_width=1)
    for i, v in enumerate(values):
        _el(parent, "circle", class_="cell", cx=f"{xy[i][0]:.1f}", cy=f"{xy[i][1]:.1f}", r=f"{radius:.1f}",
            fill=state_fill(v, system.states), stroke="#444444", stroke_width=1)
        if system.states != 2:
            _label(parent, xy[i][0], xy[i][1] + 4, str(v), 10, text_anchor="middle",
                   fill=_text_colour(v, system.states), class_="value")
        if system.n <= CELL_LABEL_MAX:
            _label(parent, xy[i][0] + radius * 0.75 + 6, xy[i][1] - radius * 0.75 - 3, str(i), 8, fill="#555555",
                   class_="cell-label")
        if centred and counts[i]:
            _el(parent, "circle", class_="press", cx=f"{xy[i][0]:.1f}", cy=f"{xy[i][1]:.1f}", r=f"{radius + 4:.1f}",
                fill="none", stroke=PRESS_COLOUR, stroke_width=3)
    for j, (x, y) in enumerate(buttons):
        pressed = counts[j] > 0
        _el(parent, "rect", class_="button press" if pressed else "button", x=f"{x - 6:.1f}", y=f"{y - 6:.1f}",
            width=12, height=12, fill=PRESS_COLOUR if pressed else "#dddddd", stroke="#444444", stroke_width=1)
        _label(parent, x + 8, y - 5, f"{j}" + (f" \u00d7{counts[j]}" if counts[j] > 1 else ""), 8,
               fill="#000000" if pressed else "#777777", class_="button-label")


def picture(game: PressSystem, board, presses=None, target=None, *, show_steps: bool = False,
            title: str = "") -> str:
    """The SVG text of a puzzle: the board with its presses marked and the goal reached (``target``), or with
    ``show_steps`` the boards press by press; ``presses`` None draws the board alone (Impossible).

    Raises
    ------
    ValueError
        A grid of more than :data:`SVG_GRID_MAX_CELLS` cells, another press system of more than
        :data:`SVG_GRAPH_MAX_CELLS`.
    """
    if why := refusal(game):
        raise ValueError(why)
    grid = drawn_as_grid(game)
    if presses is None:
        panels = [("board (Impossible: no press set reaches the goal)", board, [0] * game.m)]
    elif show_steps:
        panels = [(label, b, [int(i == j) for i in range(game.m)]) for label, b, j in steps(game, board, presses)]
    else:
        panels = [("board and presses", board, list(game.counts(presses))), ("goal reached", target, [0] * game.m)]
    w, h = (game.shape[1] * CELL_PX, game.shape[0] * CELL_PX) if grid else (GRAPH_PX, GRAPH_PX)
    pad, head = 16, 22
    step = max(w, LABEL_PX)
    cols = min(len(panels), PANELS_PER_ROW)
    rows = -(-len(panels) // cols)
    width = max(cols * (step + pad) + pad, round(2 * pad + TITLE_CHAR_PX * len(title)))
    height = rows * (h + head + pad) + pad + (24 if title else 0)
    ET.register_namespace("", SVG_NS)
    svg = ET.Element(f"{{{SVG_NS}}}svg", {"width": str(width), "height": str(height),
                                           "viewBox": f"0 0 {width} {height}", "version": "1.1"})
    _el(svg, "title").text = title or "flipgame puzzle"
    _el(svg, "desc").text = f"{game.rules}; {len(panels)} panel(s)"
    _el(svg, "rect", x=0, y=0, width=width, height=height, fill="#ffffff")
    top = 24 if title else 0
    if title:
        _label(svg, pad, 18, title, 14, font_weight="bold")
    pos = None if grid else layout(game)
    for k, (label, b, counts) in enumerate(panels):
        r, c = divmod(k, cols)
        x0, y0 = pad + c * (step + pad), top + pad + r * (h + head + pad)
        g = _el(svg, "g", class_="panel")
        _label(g, x0, y0 + 12, label, 11)
        if grid:
            _grid_panel(g, game, b, dict(enumerate(counts)), x0, y0 + head)
        else:
            _graph_panel(g, game, pos, b, counts, x0, y0 + head)
    return ET.tostring(svg, encoding="unicode", xml_declaration=True)


def case_path(path: str, number: int) -> str:
    """Where case ``number``'s picture goes: ``path`` for the first case (``{case}`` replaced when present), and
    ``stem-N.svg`` beside it for case N >= 2."""
    if "{case}" in path:
        return path.replace("{case}", str(number))
    if number == 1:
        return path
    stem, dot, suffix = path.rpartition(".")
    return f"{stem}-{number}.{suffix}" if dot else f"{path}-{number}"


def write_picture(path: str, game: PressSystem, board, solution, *, show_steps: bool = False, title: str = "") -> None:
    """:func:`picture` of ``solution`` (a :class:`~flipgame.backends.result.Solution`) written to ``path``.
    Raises OSError, ValueError (as :func:`picture`)."""
    text = picture(game, board, solution.presses, solution.target, show_steps=show_steps, title=title)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def refusal(game: PressSystem) -> str | None:
    """Why ``game`` cannot be drawn (one line: over :data:`SVG_GRID_MAX_CELLS` cells for a grid,
    :data:`SVG_GRAPH_MAX_CELLS` for another press system), or None.  O(cells)."""
    grid = drawn_as_grid(game)
    cap = SVG_GRID_MAX_CELLS if grid else SVG_GRAPH_MAX_CELLS
    if game.n > cap:
        kind = "a grid" if grid else "a press system"
        return f"a picture takes at most {cap:,} cells ({kind}); this one has {game.n:,}"
    return None


def save_case(path: str, number: int, game: PressSystem, board, solution, *, show_steps: bool = False) -> str | None:
    """Case ``number``'s picture written where :func:`case_path` says; None, or why it could not be (one line)."""
    where = case_path(path, number)
    try:
        write_picture(where, game, board, solution, show_steps=show_steps,
                      title=f"case {number}: {game.rules}; answer {solution.answer()}")
    except OSError as exc:
        return f"cannot write {where}: {exc.strerror}"
    except ValueError as exc:
        return str(exc)
    return None

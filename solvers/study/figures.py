"""Figures of the strategy study for a paper: cactus plots (:func:`plot_cactus`), pairwise scatter plots
(:func:`plot_scatter`) and seconds against size (:func:`plot_strategies`).

Every figure of one study draws each strategy in the same style: the strategies are ranked once
(:func:`ranking`: most solved, then lowest PAR-2, over the instances every strategy ran) and the
rank picks the colour from the Okabe-Ito palette (told apart with every common colour-vision
deficiency), then the marker and the dash; the virtual best solver is black.  With more
strategies than ``top`` (default :data:`TOP_DEFAULT`, the palette's size) only the best ``top`` are
drawn, and the caption says so.  Each figure has labelled axes, a labelled time-limit line and a
caption naming the limit, the instance count and the machine, kept in the file's metadata too
(PDF ``Subject``, SVG and PNG ``Description``).  The format follows the file name: PNG, PDF or SVG
(text kept as text).  matplotlib is imported inside each function.

Source: M. Okabe, K. Ito, "Color Universal Design" (2008); cactus plots as in the SAT Competition
reports.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from flipgame.core import extras
from flipgame.study.environment import machine_line
from flipgame.study.families import Family, family
from flipgame.study.metrics import PAR_FACTOR, VBS, instance_name, times

FIGURE_FORMATS = ("png", "pdf", "svg")
"""File formats of the figures (by the file name's suffix)."""
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442")
"""The Okabe-Ito colours without black (kept for the VBS), yellow last (the faintest on white)."""
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "<", ">", "*", "h", "8")
"""Markers (strategies past the palette's colours; families in a scatter plot), the round ones last: a tenth
family drawn as a hexagon was hard to tell from the first's circle."""
DASHES = ("-", "--", "-.", ":")
TOP_DEFAULT = len(OKABE_ITO)
"""Strategies drawn by default: as many as the palette has colours, each its own."""
VBS_STYLE = {"color": "black", "linestyle": (0, (4, 2)), "linewidth": 1.8, "marker": "*", "zorder": 5}
"""The virtual best solver: black dashes drawn over the others, so that a strategy equal to it still shows."""
CACTUS_FAMILY_MIN = 3
"""Fewest scored instances for a family's own cactus panel (with fewer, its line is a point or two)."""
FLOOR_SECONDS = 1e-5
"""Smallest seconds drawn on a log axis (a faster run is drawn there)."""


@dataclass(frozen=True)
class Context:
    """What a caption says besides the runs: the machine (``AMD EPYC, 2 cores, 23.5 GiB``), the flipgame
    version, and the kill margin past the time limit (0: nothing was killed)."""

    machine: str = ""
    flipgame: str = ""
    margin: float = 0.0


def ranking(runs: Sequence, time_limit: float) -> list[str]:
    """The strategies, best first: most instances solved, then lowest PAR-2, over the scored instances of
    every family together (:func:`flipgame.study.metrics.times`).  O(runs)."""
    solved: dict[str, int] = {}
    penalty: dict[str, float] = {}
    for (_, strategy), per in times(runs, time_limit).items():
        if strategy == VBS:
            continue
        solved[strategy] = solved.get(strategy, 0) + sum(s is not None for s in per.values())
        penalty[strategy] = penalty.get(strategy, 0.0) + sum(PAR_FACTOR * time_limit if s is None else s
                                                             for s in per.values())
    return sorted(solved, key=lambda s: (-solved[s], penalty[s], s))


def styles(ranked: Sequence[str]) -> dict[str, dict]:
    """Strategy -> matplotlib line style (``color``, ``linestyle``, ``marker``) by rank, and the VBS's."""
    out = {name: {"color": OKABE_ITO[i % len(OKABE_ITO)], "marker": MARKERS[(i // len(OKABE_ITO)) % len(MARKERS)],
                  "linestyle": DASHES[(i // len(OKABE_ITO)) % len(DASHES)], "linewidth": 1.4}
           for i, name in enumerate(ranked)}
    out[VBS] = dict(VBS_STYLE)
    return out


def figure_format(path: str) -> str:
    """``png``, ``pdf`` or ``svg`` from the file name; ValueError for another."""
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    if suffix not in FIGURE_FORMATS:
        raise ValueError(f"expected a file name ending in {', '.join('.' + f for f in FIGURE_FORMATS)}, got {path!r}")
    return suffix


def _scored(per: dict) -> int:
    return len({i for (f, s), v in per.items() if s == VBS for i in v})


def caption(what: str, runs: Sequence, time_limit: float, context: Context, drawn: int, ranked: int) -> str:
    """The caption: what is drawn, how many strategies of how many, the instances (scored of all), the time
    limit, the machine and the flipgame version."""
    per = times(runs, time_limit)
    everything = {instance_name(r) for r in runs}
    scored = _scored(per)
    chosen = f"the {drawn} best of {ranked} strategies (most solved, then PAR-2)" if drawn < ranked else \
        f"{ranked} strateg{'y' if ranked == 1 else 'ies'}"
    left = f" ({len(everything) - scored} not run by some strategy left out)" if scored < len(everything) else ""
    kill = f", killed at {time_limit + context.margin:g} s" if context.margin else ""
    machine = f" Machine: {context.machine}." if context.machine else ""
    version = f" flipgame {context.flipgame}." if context.flipgame else ""
    return (f"{what}; {chosen} and the virtual best solver (VBS, black dashes). {scored} instances{left}; time "
            f"limit {time_limit:g} s per run{kill}.{machine}{version}")


def _pyplot():
    matplotlib = extras.require("matplotlib", "a figure")

    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.fonttype": "none", "pdf.fonttype": 42})
    import matplotlib.pyplot as plt

    return plt


def _row_major(handles: list, labels: list, cols: int) -> tuple[list, list]:
    """Legend entries reordered so that they read by rows (matplotlib fills a legend by columns), padded
    with blank entries."""
    from matplotlib.lines import Line2D

    rows = -(-len(labels) // cols)
    pad = rows * cols - len(labels)
    handles = handles + [Line2D([], [], linestyle="", marker=None)] * pad
    labels = labels + [""] * pad
    order = [r * cols + c for c in range(cols) for r in range(rows)]
    return [handles[i] for i in order], [labels[i] for i in order]


def _finish(fig, path: str, title: str, text: str, handles: list, labels: list) -> None:
    """Legend (read by rows) and caption under the panels (no empty margin beside them), metadata, the file."""
    width, height = fig.get_size_inches()
    cols = max(1, min(len(labels), int(width // 1.35)))
    legend_rows = -(-len(labels) // cols)
    lines = textwrap.wrap(text, width=int(width * 15))
    bottom = 0.62 + 0.24 * legend_rows + 0.17 * len(lines) + 0.15
    top = 0.62
    total = height + bottom + top
    fig.set_size_inches(width, total)
    fig.subplots_adjust(bottom=bottom / total, top=1 - top / total, left=0.75 / width, right=1 - 0.2 / width,
                        wspace=0.3, hspace=0.55)
    handles, labels = _row_major(handles, labels, cols)
    fig.legend(handles, labels, loc="lower center", ncols=cols, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, (0.17 * len(lines) + 0.12) / total))
    fig.text(0.5, 0.06 / total, "\n".join(lines), ha="center", va="bottom", fontsize=7.5, color="#333333")
    fig.suptitle(title, fontsize=10, y=1 - 0.1 / total, va="top")
    key = {"pdf": "Subject", "svg": "Description", "png": "Description"}[figure_format(path)]
    meta = {"Title": title, key: text}
    if figure_format(path) != "svg":
        meta["Creator"] = "flipgame study"
    fig.savefig(path, dpi=130, metadata=meta)


def _grid(count: int) -> tuple[int, int]:
    """``(rows, cols)`` of small multiples for ``count`` panels: at most 4 a row, rows as even as can be."""
    cols = count if count <= 4 else (3 if count in (5, 6, 9) else 4)
    return -(-count // cols), cols


def _limit_line(ax, time_limit: float, axis: str = "y") -> None:
    """The time limit as a grey line, labelled."""
    line = ax.axhline if axis == "y" else ax.axvline
    line(time_limit, color="#666666", linestyle=":", linewidth=1)
    if axis == "y":
        ax.annotate(f"time limit {time_limit:g} s", (0.01, time_limit), xycoords=("axes fraction", "data"),
                    va="bottom", fontsize=7, color="#444444")
    else:
        ax.annotate(f"time limit {time_limit:g} s", (time_limit, 0.01), xycoords=("data", "axes fraction"),
                    rotation=90, ha="right", va="bottom", fontsize=7, color="#444444")


def cactus_panels(per: dict) -> list[tuple[str, dict[str, dict]]]:
    """The panels of a cactus plot, as ``(title, {strategy: {instance: seconds or None}})``: all instances
    together (when there are several families), then each family of at least :data:`CACTUS_FAMILY_MIN`
    scored instances."""
    families = list(dict.fromkeys(f for f, _ in per))
    merged: dict[str, dict] = {}
    for (_, name), secs in per.items():
        merged.setdefault(name, {}).update(secs)
    panels = [("all families", merged)] if len(families) > 1 else []
    for fam in families:
        if len(families) == 1 or len(per.get((fam, VBS), {})) >= CACTUS_FAMILY_MIN:
            panels.append((fam, {name: secs for (f, name), secs in per.items() if f == fam}))
    return panels


def plot_cactus(runs: Sequence, time_limit: float, path: str, *, context: Context | None = None,
                top: int = TOP_DEFAULT) -> dict[str, str]:
    """Cactus plot: for each of the ``top`` best strategies and the VBS, its solved instances sorted by seconds;
    x = instances solved, y = seconds per instance (log scale), over the instances every strategy ran; a panel
    for all families, then one per family of at least :data:`CACTUS_FAMILY_MIN` instances.  Returns the colour
    of each strategy drawn.  Raises OSError, ValueError (a suffix other than .png/.pdf/.svg)."""
    figure_format(path)
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    per, ranked = times(runs, time_limit), ranking(runs, time_limit)
    drawn, style = ranked[:top], styles(ranked)
    panels = cactus_panels(per)
    rows, cols = _grid(len(panels))
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 3.1 * rows), squeeze=False)
    for ax, (title, secs) in zip(axes.flat, panels, strict=False):
        scored = len(secs.get(VBS, {}))
        for name in [*drawn, VBS]:
            done = sorted(s for s in secs.get(name, {}).values() if s is not None)
            if done:
                ax.plot(range(1, len(done) + 1), [max(s, FLOOR_SECONDS) for s in done], label=name, markersize=3.5,
                        **style[name])
        ax.set_yscale("log")
        ax.set_xlim(0.5, max(scored, 1) + 0.5)
        if scored <= 10:
            ax.set_xticks(range(1, scored + 1))
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        _limit_line(ax, time_limit)
        ax.set_title(f"{title} ({scored} instances)", fontsize=9)
        ax.set_xlabel("instances solved")
        ax.set_ylabel("seconds per instance (log)")
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    handles, labels = _handles([*drawn, VBS], style)
    text = caption("Cactus plot: instances solved against seconds per instance, all families and each family of "
                   f"at least {CACTUS_FAMILY_MIN} instances", runs, time_limit, context or Context(), len(drawn),
                   len(ranked))
    _finish(fig, path, "flipgame study: cactus plot", text, handles, labels)
    plt.close(fig)
    return {n: style[n]["color"] for n in [*drawn, VBS]}


def _handles(names: Sequence[str], style: dict) -> tuple[list, list]:
    from matplotlib.lines import Line2D

    return [Line2D([], [], markersize=4, **style[n]) for n in names], list(names)


def scatter_pairs(ranked: Sequence[str], top: int = TOP_DEFAULT, pairs: Sequence[tuple[str, str]] | None = None
                  ) -> list[tuple[str, str]]:
    """The pairs a scatter plot draws: ``pairs`` as given, else the best strategy against each of the next
    ones among the ``top`` (at most 6 panels).  ValueError with fewer than two strategies or an unknown name."""
    if pairs:
        unknown = [n for p in pairs for n in p if n not in ranked]
        if unknown:
            raise ValueError(f"--pairs: no runs of {', '.join(unknown)}; the study ran {', '.join(ranked)}")
        return list(pairs)
    if len(ranked) < 2:
        raise ValueError("a scatter plot compares two strategies; the study ran one")
    return [(ranked[0], other) for other in ranked[1:min(top, 7)]]


def plot_scatter(runs: Sequence, time_limit: float, path: str, *, context: Context | None = None,
                 top: int = TOP_DEFAULT, pairs: Sequence[tuple[str, str]] | None = None) -> dict[str, str]:
    """Pairwise scatter plots (log-log): per instance every strategy ran, the seconds of strategy A (x) and B
    (y); an unsolved instance sits on the border, at ``2 x`` the time limit; the diagonal, the time limits
    labelled; one marker per family, B's colour.  Returns the colour of each strategy drawn on y.  Raises
    OSError, ValueError (suffix, or the pairs)."""
    figure_format(path)
    plt = _pyplot()
    per, ranked = times(runs, time_limit), ranking(runs, time_limit)
    chosen, style = scatter_pairs(ranked, top, pairs), styles(ranked)
    families = list(dict.fromkeys(r.family for r in runs))
    edge = 2 * time_limit
    solved = [s for (_, n), v in per.items() if n != VBS for s in v.values() if s is not None]
    floor = max(min(solved, default=1e-3) / 2, FLOOR_SECONDS)
    rows, cols = _grid(len(chosen))
    fig, axes = plt.subplots(rows, cols, figsize=(3.5 * cols, 3.0 * rows), squeeze=False)
    for ax, (a, b) in zip(axes.flat, chosen, strict=False):
        for k, fam in enumerate(families):
            xa, yb = per.get((fam, a), {}), per.get((fam, b), {})
            common = [i for i in xa if i in yb]
            xs = [edge if xa[i] is None else max(xa[i], floor) for i in common]
            ys = [edge if yb[i] is None else max(yb[i], floor) for i in common]
            ax.scatter(xs, ys, s=16, marker=MARKERS[k % len(MARKERS)], color=style[b]["color"],
                       edgecolors="black", linewidths=0.3, label=fam, zorder=3)
        _scatter_axes(ax, a, b, floor, edge, time_limit)
    for ax in list(axes.flat)[len(chosen):]:
        ax.set_axis_off()
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], linestyle="", marker=MARKERS[k % len(MARKERS)], color="#888888",
                      markeredgecolor="black", markeredgewidth=0.3) for k in range(len(families))]
    text = caption(f"Scatter plots: seconds per instance of one strategy against another (log-log); unsolved "
                   f"on the border at {edge:g} s; markers by family", runs, time_limit, context or Context(),
                   len({n for p in chosen for n in p}), len(ranked))
    _finish(fig, path, "flipgame study: pairwise comparison", text.replace(" and the virtual best solver (VBS, "
                                                                          "black dashes)", ""), handles, families)
    plt.close(fig)
    return {b: style[b]["color"] for _, b in chosen}


def _scatter_axes(ax, a: str, b: str, floor: float, edge: float, time_limit: float) -> None:
    lo, hi = floor / 1.5, edge * 1.6
    ax.plot([lo, hi], [lo, hi], color="#999999", linewidth=0.8, zorder=1)
    for line in (ax.axhline, ax.axvline):
        line(edge, color="#bbbbbb", linewidth=0.8, zorder=1)
    _limit_line(ax, time_limit, "y")
    _limit_line(ax, time_limit, "x")
    ax.annotate("unsolved", (hi / 1.1, edge / 1.1), ha="right", va="top", fontsize=7, color="#444444")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel(f"{a}: seconds (log)")
    ax.set_ylabel(f"{b}: seconds (log)")
    ax.set_title(f"{b} against {a}", fontsize=9)
    ax.grid(True, which="major", alpha=0.3)


def plot_strategies(st, path: str, *, top: int = TOP_DEFAULT) -> dict[str, str]:
    """Seconds per board against board size (nullity for the nullity family), one panel per family, one line
    per strategy among the ``top`` best (median of the solved boards per size, log scale); time-outs drawn as
    x on the time-limit line.  ``st``: a :class:`flipgame.study.compare.StrategyStudy`.  Returns the colour of
    each strategy drawn.  A family none of whose runs was made (the budget spent) has no panel; the caption
    names it.  Raises OSError, ValueError (suffix, or no run made at all)."""
    figure_format(path)
    plt = _pyplot()
    ranked = ranking(st.runs, st.time_limit)
    drawn, style = ranked[:top], styles(ranked)
    solved = [r.seconds for r in st.runs if r.answered and r.seconds]
    floor = max(min(solved, default=1e-4) / 2, FLOOR_SECONDS)
    reached = [f for f in st.families if any(r.family == f and r.status != "not run" for r in st.runs)]
    if not reached:
        raise ValueError("no run was made (the budget was spent before the first): nothing to draw")
    rows, cols = _grid(len(reached))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    for ax, f in zip(axes.flat, reached, strict=False):
        _size_panel(ax, st, family(f), drawn, style, floor)
    for ax in list(axes.flat)[len(reached):]:
        ax.set_axis_off()
    handles, labels = _handles(drawn, style)
    where = "the suite's instances" if st.source.startswith("suite") else \
        f"median of {st.boards_per_size} board(s) per size, seed {st.seed}"
    context = Context(_machine(st), st.environment.get("flipgame", ""), st.margin)
    unreached = [f for f in st.families if f not in reached]
    skipped = f"; not reached within the budget: {', '.join(unreached)}" if unreached else ""
    text = caption(f"Seconds per board against board size, per family ({where}); x = a time-out{skipped}", st.runs,
                   st.time_limit, context, len(drawn), len(ranked))
    _finish(fig, path, "flipgame study: seconds per board against size",
            text.replace(" and the virtual best solver (VBS, black dashes)", ""), handles, labels)
    plt.close(fig)
    return {n: style[n]["color"] for n in drawn}


def _machine(st) -> str:
    return machine_line(st.environment["machine"]) if st.environment.get("machine") else ""


def _size_panel(ax, st, fam: Family, drawn: Sequence[str], style: dict, floor: float) -> None:
    for name in drawn:
        runs = [r for r in st.runs if r.family == fam.name and r.strategy == name]
        xs = sorted({_x(fam, r) for r in runs if r.answered})
        ys = [max(float(np.median([r.seconds for r in runs if r.answered and _x(fam, r) == x])), floor) for x in xs]
        ax.plot(xs, ys, markersize=3.5, label=name, **style[name])
        outs = sorted({_x(fam, r) for r in runs if r.status == "UNKNOWN"})
        ax.plot(outs, [st.time_limit] * len(outs), "x", color=style[name]["color"], markersize=8, markeredgewidth=2)
    _limit_line(ax, st.time_limit)
    ax.set_yscale("log")
    ax.set_ylim(floor / 1.5, st.time_limit * 3)
    ax.set_title("\n".join(textwrap.wrap(f"{fam.name}: {fam.summary}", 48)), fontsize=7.5)
    if fam.axis == "nullity":
        ticks = sorted({(r.nullity, r.n) for r in st.runs if r.family == fam.name and r.nullity is not None})
        ax.set_xticks([k for k, _ in ticks], [f"{k}\n{n}" for k, n in ticks], fontsize=7)
        ax.set_xlabel("nullity (second line: board side n)")
    else:
        sizes = sorted({r.n for r in st.runs if r.family == fam.name})
        ax.set_xticks(sizes, [str(n) for n in sizes], fontsize=7 if len(sizes) > 8 else 8)
        ax.set_xlabel("size n")
    ax.set_ylabel("seconds per board (log)")
    ax.grid(True, which="major", alpha=0.3)


def _x(fam: Family, r) -> int:
    return r.nullity if fam.axis == "nullity" and r.nullity is not None else r.n

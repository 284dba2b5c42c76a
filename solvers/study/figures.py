"""Figures of the strategy study for a paper: the layout every figure shares, pairwise scatter plots
(:func:`plot_scatter`) and seconds against size (:func:`plot_strategies`); the runtime distributions
(cactus and ECDF) are :mod:`flipgame.study.cactus`'s.

Every figure of one study draws each strategy in the same style: the strategies are ranked once
(:func:`ranking`: most solved, then lowest PAR-2) and the rank picks the colour from the Okabe-Ito
palette (told apart with every common colour-vision deficiency) and a marker of its own, then the dash;
the virtual best solver is a thin grey dashed line drawn under the others, so it hides none.  With more
strategies than ``top`` (default :data:`TOP_DEFAULT`, the palette's size) only the best ``top`` are
drawn.  A figure is one column wide (:data:`WIDTHS`, 3.3 in) unless asked for two; it has no title and
no caption in the image unless asked (:class:`FigureOptions`): the caption, naming the clock, the limit,
the instance count and the machine, is kept in the file's metadata (PDF ``Subject``, SVG and PNG
``Description``) for the paper's own.  The file is cut to what is drawn (nothing clipped), PDF fonts are
embedded as TrueType, SVG text stays text.  matplotlib is imported inside each function.

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
from flipgame.study.metrics import PAR_FACTOR, VBS, clock_name, instance_name, seconds_on, times

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
VBS_STYLE = {"color": "#555555", "linestyle": (0, (3, 2)), "linewidth": 1.0, "marker": "", "zorder": 1}
"""The virtual best solver: a thin grey dashed line under the others, so a strategy equal to it still shows."""
WIDTHS = {"one": 3.3, "two": 7.0}
"""Figure widths in inches: one column of a two-column paper, or the whole text width."""
FLOOR_SECONDS = 1e-5
"""Smallest seconds drawn on a log axis (a faster run is drawn there)."""


@dataclass(frozen=True)
class Context:
    """What a caption says besides the runs: the machine (``AMD EPYC, 2 cores, 23.5 GiB``), the flipgame
    version, the kill margin past the time limit (0: nothing was killed) and the clock of the limit and the
    scores (``cpu`` or ``wall``)."""

    machine: str = ""
    flipgame: str = ""
    margin: float = 0.0
    clock: str = "wall"


@dataclass(frozen=True)
class FigureOptions:
    """How a figure is laid out: ``width`` (``one`` or ``two`` columns, :data:`WIDTHS`), a ``title`` drawn
    above it ("" = none), ``caption`` drawn under it (False: in the metadata only), and ``panels``
    (``all``: one panel of every instance; ``families``: one more per family)."""

    width: str = "one"
    title: str = ""
    caption: bool = False
    panels: str = "all"


def ranking(runs: Sequence, time_limit: float, clock: str = "wall") -> list[str]:
    """The strategies, best first: most instances solved, then lowest PAR-2, over the scored instances of
    every family together (:func:`flipgame.study.metrics.times`).  O(runs)."""
    solved: dict[str, int] = {}
    penalty: dict[str, float] = {}
    for (_, strategy), per in times(runs, time_limit, clock).items():
        if strategy == VBS:
            continue
        solved[strategy] = solved.get(strategy, 0) + sum(s is not None for s in per.values())
        penalty[strategy] = penalty.get(strategy, 0.0) + sum(PAR_FACTOR * time_limit if s is None else s
                                                             for s in per.values())
    named = {r.strategy for r in runs}  # a strategy that refused every instance is still drawn (with no line)
    return sorted(named, key=lambda s: (-solved.get(s, 0), penalty.get(s, float("inf")), s))


def styles(ranked: Sequence[str]) -> dict[str, dict]:
    """Strategy -> matplotlib line style (``color``, ``marker``, ``linestyle``) by rank, and the VBS's."""
    out = {name: {"color": OKABE_ITO[i % len(OKABE_ITO)], "marker": MARKERS[i % len(MARKERS)],
                  "linestyle": DASHES[(i // len(OKABE_ITO)) % len(DASHES)], "linewidth": 1.2, "zorder": 3}
           for i, name in enumerate(ranked)}
    out[VBS] = dict(VBS_STYLE)
    return out


def figure_format(path: str) -> str:
    """``png``, ``pdf`` or ``svg`` from the file name; ValueError for another."""
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    if suffix not in FIGURE_FORMATS:
        raise ValueError(f"expected a file name ending in {', '.join('.' + f for f in FIGURE_FORMATS)}, got {path!r}")
    return suffix


def caption(what: str, runs: Sequence, time_limit: float, context: Context, drawn: int, ranked: int) -> str:
    """The caption: what is drawn, how many strategies of how many, the instances, the limit on its clock,
    the scoring rule's treatment of refusals, the machine and the flipgame version."""
    everything = {instance_name(r) for r in runs}
    chosen = f"the {drawn} best of {ranked} strategies (most solved, then PAR-2)" if drawn < ranked else \
        f"{ranked} strateg{'y' if ranked == 1 else 'ies'}"
    kill = f", stopped at {time_limit + context.margin:g} s" if context.margin else ""
    machine = f" Machine: {context.machine}." if context.machine else ""
    version = f" flipgame {context.flipgame}." if context.flipgame else ""
    return (f"{what}; {chosen} and the virtual best solver (VBS, grey dashes). {len(everything)} instances (a "
            f"strategy's refused ones left out of its line); time limit {time_limit:g} s of "
            f"{clock_name(context.clock)} per run{kill}.{machine}{version}")


def pyplot():
    """matplotlib's pyplot on the Agg backend, PDF fonts embedded as TrueType and SVG text as text."""
    matplotlib = extras.require("matplotlib", "a figure")

    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.fonttype": "none", "pdf.fonttype": 42, "font.size": 8, "axes.titlesize": 8,
                                "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7})
    import matplotlib.pyplot as plt

    return plt


def finish(fig, path: str, text: str, handles: list, labels: list, options: FigureOptions) -> None:
    """Legend under the panels, the title and caption if asked, metadata (the caption always), the file cut
    to what is drawn."""
    width = fig.get_size_inches()[0]
    cols = max(1, min(len(labels), int(width // 0.95)))
    # every label inside the figure (below a title, if any); the legend goes under it
    fig.tight_layout(pad=0.3, h_pad=1.0, w_pad=0.8, rect=(0, 0, 1, 0.93) if options.title else None)
    fig.legend(handles, labels, loc="upper center", ncols=cols, fontsize=7, frameon=False,
               bbox_to_anchor=(0.5, 0.0), handlelength=2.2, columnspacing=1.0)
    if options.title:
        fig.suptitle(options.title, fontsize=9, y=0.99)
    if options.caption:
        rows = -(-len(labels) // cols)
        fig.text(0.5, -0.06 - 0.05 * rows, "\n".join(textwrap.wrap(text, width=int(width * 16))), ha="center",
                 va="top", fontsize=6.5, color="#333333")
    key = {"pdf": "Subject", "svg": "Description", "png": "Description"}[figure_format(path)]
    meta = {"Title": options.title or "flipgame study", key: text}
    if figure_format(path) != "svg":
        meta["Creator"] = "flipgame study"
    fig.savefig(path, dpi=200, metadata=meta, bbox_inches="tight", pad_inches=0.03)


def grid_shape(count: int, options: FigureOptions) -> tuple[int, int, float]:
    """``(rows, cols, panel height in inches)`` of ``count`` small multiples in the figure's width: one column
    wide holds one panel a row, two columns up to three."""
    cols = 1 if options.width == "one" else min(count, 3)
    panel = WIDTHS[options.width] / cols
    return -(-count // cols), cols, panel * 0.78


def limit_line(ax, time_limit: float, axis: str = "y") -> None:
    """The time limit as a grey dotted line, labelled inside the axes."""
    line = ax.axhline if axis == "y" else ax.axvline
    line(time_limit, color="#666666", linestyle=":", linewidth=0.9, zorder=0)
    if axis == "y":
        ax.annotate(f"limit {time_limit:g} s", (0.02, time_limit), xycoords=("axes fraction", "data"),
                    xytext=(0, -2), textcoords="offset points", va="top", fontsize=6.5, color="#444444")
    else:
        ax.annotate(f"limit {time_limit:g} s", (time_limit, 0.02), xycoords=("data", "axes fraction"),
                    xytext=(-2, 0), textcoords="offset points", rotation=90, ha="right", va="bottom", fontsize=6.5,
                    color="#444444")


def handles_of(names: Sequence[str], style: dict) -> tuple[list, list]:
    from matplotlib.lines import Line2D

    return [Line2D([], [], markersize=3.5, **{k: v for k, v in style[n].items() if k != "zorder"}) for n in names], \
        list(names)


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
                 top: int = TOP_DEFAULT, pairs: Sequence[tuple[str, str]] | None = None,
                 options: FigureOptions | None = None) -> dict[str, str]:
    """Pairwise scatter plots (log-log): per instance both strategies can express, the seconds of strategy A (x)
    and B (y); an unsolved instance sits on the border, at ``2 x`` the time limit; the diagonal and the limits
    drawn; one marker per family, B's colour.  Returns the colour of each strategy drawn on y.  Raises
    OSError, ValueError (suffix, or the pairs)."""
    figure_format(path)
    plt, ctx, opts = pyplot(), context or Context(), options or FigureOptions()
    per, ranked = times(runs, time_limit, ctx.clock), ranking(runs, time_limit, ctx.clock)
    chosen, style = scatter_pairs(ranked, top, pairs), styles(ranked)
    families = list(dict.fromkeys(r.family for r in runs))
    edge = 2 * time_limit
    solved = [s for (_, n), v in per.items() if n != VBS for s in v.values() if s is not None]
    floor = max(min(solved, default=1e-3) / 2, FLOOR_SECONDS)
    rows, cols, height = grid_shape(len(chosen), opts)
    fig, axes = plt.subplots(rows, cols, figsize=(WIDTHS[opts.width], height * rows * 1.15), squeeze=False)
    for ax, (a, b) in zip(axes.flat, chosen, strict=False):
        for k, fam in enumerate(families):
            xa, yb = per.get((fam, a), {}), per.get((fam, b), {})
            common = [i for i in xa if i in yb]
            xs = [edge if xa[i] is None else max(xa[i], floor) for i in common]
            ys = [edge if yb[i] is None else max(yb[i], floor) for i in common]
            ax.scatter(xs, ys, s=12, marker=MARKERS[k % len(MARKERS)], color=style[b]["color"],
                       edgecolors="black", linewidths=0.3, label=fam, zorder=3)
        _scatter_axes(ax, a, b, floor, edge, time_limit)
    for ax in list(axes.flat)[len(chosen):]:
        ax.set_axis_off()
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], linestyle="", marker=MARKERS[k % len(MARKERS)], color="#888888",
                      markeredgecolor="black", markeredgewidth=0.3) for k in range(len(families))]
    text = caption(f"Scatter plots: seconds per instance of one strategy against another (log-log); unsolved "
                   f"on the border at {edge:g} s; markers by family", runs, time_limit, ctx,
                   len({n for p in chosen for n in p}), len(ranked))
    finish(fig, path, text.replace(" and the virtual best solver (VBS, grey dashes)", ""), handles, families, opts)
    plt.close(fig)
    return {b: style[b]["color"] for _, b in chosen}


def _scatter_axes(ax, a: str, b: str, floor: float, edge: float, time_limit: float) -> None:
    lo, hi = floor / 1.5, edge * 1.6
    ax.plot([lo, hi], [lo, hi], color="#999999", linewidth=0.8, zorder=1)
    for line in (ax.axhline, ax.axvline):
        line(edge, color="#bbbbbb", linewidth=0.8, zorder=1)
    limit_line(ax, time_limit, "y")
    limit_line(ax, time_limit, "x")
    ax.annotate("unsolved", (hi / 1.1, edge / 1.1), ha="right", va="top", fontsize=6.5, color="#444444")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel(f"{a}: seconds (log)")
    ax.set_ylabel(f"{b}: seconds (log)")
    ax.set_title(f"{b} against {a}")
    ax.grid(True, which="major", alpha=0.3)


def plot_strategies(st, path: str, *, top: int = TOP_DEFAULT, options: FigureOptions | None = None) -> dict[str, str]:
    """Seconds per board against board size (nullity for the nullity family), one panel per family, one line
    per strategy among the ``top`` best (median of the solved boards per size, log scale); time-outs drawn as
    x on the time-limit line.  ``st``: a :class:`flipgame.study.compare.StrategyStudy`.  Returns the colour of
    each strategy drawn.  A family none of whose runs was made (the budget spent) has no panel; the caption
    names it.  Raises OSError, ValueError (suffix, or no run made at all)."""
    figure_format(path)
    plt, opts = pyplot(), options or FigureOptions(width="two")
    ranked = ranking(st.runs, st.time_limit, st.clock)
    drawn, style = ranked[:top], styles(ranked)
    solved = [seconds_on(r, st.clock) for r in st.runs if r.answered and seconds_on(r, st.clock)]
    floor = max(min(solved, default=1e-4) / 2, FLOOR_SECONDS)
    reached = [f for f in st.families if any(r.family == f and r.status != "not run" for r in st.runs)]
    if not reached:
        raise ValueError("no run was made (the budget was spent before the first): nothing to draw")
    rows, cols, height = grid_shape(len(reached), opts)
    fig, axes = plt.subplots(rows, cols, figsize=(WIDTHS[opts.width], height * rows * 1.2), squeeze=False)
    for ax, f in zip(axes.flat, reached, strict=False):
        _size_panel(ax, st, family(f), drawn, style, floor)
    for ax in list(axes.flat)[len(reached):]:
        ax.set_axis_off()
    handles, labels = handles_of(drawn, style)
    where = "the suite's instances" if st.source.startswith("suite") else \
        f"median of {st.boards_per_size} board(s) per size, seed {st.seed}"
    context = Context(_machine(st), st.environment.get("flipgame", ""), st.margin, st.clock)
    unreached = [f for f in st.families if f not in reached]
    skipped = f"; not reached within the budget: {', '.join(unreached)}" if unreached else ""
    text = caption(f"Seconds per board against board size, per family ({where}); x = a time-out{skipped}", st.runs,
                   st.time_limit, context, len(drawn), len(ranked))
    finish(fig, path, text.replace(" and the virtual best solver (VBS, grey dashes)", ""), handles, labels, opts)
    plt.close(fig)
    return {n: style[n]["color"] for n in drawn}


def _machine(st) -> str:
    return machine_line(st.environment["machine"]) if st.environment.get("machine") else ""


def _size_panel(ax, st, fam: Family, drawn: Sequence[str], style: dict, floor: float) -> None:
    for name in drawn:
        runs = [r for r in st.runs if r.family == fam.name and r.strategy == name]
        xs = sorted({_x(fam, r) for r in runs if r.answered})
        ys = [max(float(np.median([seconds_on(r, st.clock) or 0.0 for r in runs if r.answered and _x(fam, r) == x])),
                  floor) for x in xs]
        ax.plot(xs, ys, markersize=3.5, label=name, **style[name])
        outs = sorted({_x(fam, r) for r in runs if r.status == "UNKNOWN"})
        ax.plot(outs, [st.time_limit] * len(outs), "x", color=style[name]["color"], markersize=8, markeredgewidth=2)
    limit_line(ax, st.time_limit)
    ax.set_yscale("log")
    ax.set_ylim(floor / 1.5, st.time_limit * 3)
    ax.set_title("\n".join(textwrap.wrap(f"{fam.name}: {fam.summary}", 40)), fontsize=7)
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

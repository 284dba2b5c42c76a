"""Figures of the strategy study: seconds against size per family (:func:`plot_strategies`) and cactus
plots with the virtual best solver (:func:`plot_cactus`).  matplotlib is imported inside each function."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from flipgame.study.compare import Family, Run, StrategyStudy, family
from flipgame.study.metrics import VBS, times


def plot_strategies(st: StrategyStudy, path: str) -> None:
    """Seconds per board against board size (nullity for the nullity family), one panel per family,
    one line per strategy on a log scale; time-outs drawn as x on the time-limit line.  PNG via matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = len(st.families)
    cols = min(panels, 3)
    rows = (panels + cols - 1) // cols
    spare = rows * cols > panels  # an empty slot holds the legend; otherwise it goes on the right
    fig, axes = plt.subplots(rows, cols, figsize=(5.4 * cols + (0 if spare else 2.6), 4.3 * rows), squeeze=False)
    cmap = plt.get_cmap("tab20")
    markers = "os^vD<>ph*P"
    style = {name: (cmap(i % 20), markers[i % len(markers)], "-" if i < 10 else "--")
             for i, name in enumerate(st.strategies)}
    answered = [r.seconds for r in st.runs if r.answered and r.seconds]
    floor = max(min(answered, default=1e-4) / 2, 1e-5)
    top = max(st.time_limit * 3, max(answered, default=0) * 2)
    for ax, f in zip(axes.flat, st.families, strict=False):
        fam = family(f)
        for name in st.strategies:
            runs = [r for r in st.runs if r.family == f and r.strategy == name]
            xs = sorted({_x(fam, r) for r in runs if r.answered})
            ys = [max(float(np.median([r.seconds for r in runs if r.answered and _x(fam, r) == x])), floor)
                  for x in xs]
            colour, marker, line = style[name]
            ax.plot(xs, ys, line, marker=marker, color=colour, markersize=4, linewidth=1.2, label=name)
            outs = sorted({_x(fam, r) for r in runs if r.status == "UNKNOWN"})
            ax.plot(outs, [st.time_limit] * len(outs), "x", color=colour, markersize=9, markeredgewidth=2)
        ax.axhline(st.time_limit, color="grey", linestyle=":", linewidth=1)
        ax.annotate(f"time limit {st.time_limit:g} s (x = time-out)", (0.02, st.time_limit * 1.15), va="bottom",
                    fontsize=7, color="grey", xycoords=("axes fraction", "data"))
        ax.set_yscale("log")
        ax.set_ylim(floor / 1.5, top)
        ax.set_title(f"{f}: {fam.summary}", fontsize=8.5)
        if fam.axis == "nullity":
            ticks = sorted({(r.nullity, r.n) for r in st.runs if r.family == f and r.nullity is not None})
            ax.set_xticks([k for k, _ in ticks], [f"{k}\n{n}" for k, n in ticks], fontsize=7)
            ax.set_xlabel("nullity of the press matrix (second line: board side n)")
        else:
            ax.set_xlabel("board side n (n x n board)")
        ax.set_ylabel("seconds per board (median, log scale)")
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[panels:]:
        ax.set_axis_off()
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if spare:
        axes.flat[-1].legend(handles, labels, loc="center", fontsize=8, title="strategy", title_fontsize=9,
                             ncols=2 if len(labels) > 8 else 1)
    else:
        fig.legend(handles, labels, loc="center right", fontsize=8, title="strategy", title_fontsize=9)
    fig.suptitle(f"flipgame study --strategies: seconds per board, median of {st.boards_per_size} board(s) per "
                 f"size; {st.time_limit:g} s limit per board; seed {st.seed}", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1 if spare else 1 - 2.4 / fig.get_figwidth(), 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _x(fam: Family, r: Run) -> int:
    return r.nullity if fam.axis == "nullity" and r.nullity is not None else r.n


def plot_cactus(runs: Sequence, time_limit: float, path: str) -> None:
    """Cactus plot per family: for each strategy (and the VBS, dashed), its solved instances sorted by
    seconds; x = instances solved, y = seconds (log scale).  PNG via matplotlib.  Raises OSError."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    per = times(runs, time_limit)
    families = sorted({f for f, _ in per})
    names = sorted({s for _, s in per if s != VBS})
    cmap = plt.get_cmap("tab20")
    styles = {name: {"color": cmap(i % 20), "linestyle": "-" if i < 20 else ":"} for i, name in enumerate(names)}
    styles[VBS] = {"color": "black", "linestyle": "--", "linewidth": 2}
    fig, axes = plt.subplots(1, len(families), figsize=(4.2 * len(families) + 2.4, 4.2), squeeze=False)
    for ax, fam in zip(axes[0], families, strict=True):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        for (f, strategy), secs in sorted(per.items()):
            done = sorted(s for s in secs.values() if s is not None)
            if f != fam or not done:
                continue
            ax.plot(range(1, len(done) + 1), [max(s, 1e-5) for s in done], marker=".", label=strategy,
                    **styles[strategy])
        ax.set_yscale("log")
        ax.axhline(time_limit, color="grey", linewidth=0.5)
        ax.set_title(fam)
        ax.set_xlabel("instances solved")
        ax.set_ylabel("seconds per instance")
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="center right")  # beside the panels, never over the data
    fig.tight_layout(rect=(0, 0, 1 - 2.2 / fig.get_figwidth(), 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)

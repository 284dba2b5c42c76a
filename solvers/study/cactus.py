"""The runtime distributions of a strategy study: cactus plots (:func:`plot_cactus`) and empirical
distribution functions (:func:`plot_ecdf`), in the layout and styles of :mod:`flipgame.study.figures`.

Both read the seconds of :func:`flipgame.study.metrics.times`, under the study's one scoring rule: an
instance a strategy refused is left out of its line only (n/a), an instance it did not run is unsolved.
The cactus plot draws, per strategy, its solved instances sorted by seconds (x = instances solved, y =
seconds, log); the ECDF the share of the instances it can express solved within t seconds (x = t, log).

Source: cactus plots as in the SAT Competition reports; ECDFs (performance profiles of run times) as in
Hoos and Stützle, "Stochastic Local Search" (2004), 4.2, run-time distributions.
"""

from __future__ import annotations

from collections.abc import Sequence

from flipgame.study.figures import (
    FLOOR_SECONDS,
    TOP_DEFAULT,
    WIDTHS,
    Context,
    FigureOptions,
    caption,
    figure_format,
    finish,
    grid_shape,
    handles_of,
    limit_line,
    pyplot,
    ranking,
    styles,
)
from flipgame.study.metrics import VBS, times

FAMILY_PANEL_MIN = 3
"""Fewest instances for a family's own panel (``panels="families"``; with fewer its line is a point or two)."""


def panels(per: dict, which: str = "all") -> list[tuple[str, dict[str, dict]]]:
    """The panels, as ``(title, {strategy: {instance: seconds or None}})``: every instance together, then with
    ``which="families"`` each family of at least :data:`FAMILY_PANEL_MIN` instances."""
    families = list(dict.fromkeys(f for f, _ in per))
    merged: dict[str, dict] = {}
    for (_, name), secs in per.items():
        merged.setdefault(name, {}).update(secs)
    out = [("all families" if len(families) > 1 else families[0], merged)] if families else []
    if which == "families" and len(families) > 1:
        out += [(fam, {name: secs for (f, name), secs in per.items() if f == fam}) for fam in families
                if len(per.get((fam, VBS), {})) >= FAMILY_PANEL_MIN]
    return out


def plot_cactus(runs: Sequence, time_limit: float, path: str, *, context: Context | None = None,
                top: int = TOP_DEFAULT, options: FigureOptions | None = None) -> dict[str, str]:
    """Cactus plot of the ``top`` best strategies and the VBS; returns the colour of each strategy drawn.
    Raises OSError, ValueError (a suffix other than .png/.pdf/.svg)."""
    return _plot(runs, time_limit, path, context, top, options, "cactus")


def plot_ecdf(runs: Sequence, time_limit: float, path: str, *, context: Context | None = None,
              top: int = TOP_DEFAULT, options: FigureOptions | None = None) -> dict[str, str]:
    """ECDF of the seconds per instance of the ``top`` best strategies and the VBS; returns the colours drawn.
    Raises OSError, ValueError (suffix)."""
    return _plot(runs, time_limit, path, context, top, options, "ecdf")


def _plot(runs, time_limit: float, path: str, context, top: int, options, kind: str) -> dict[str, str]:
    figure_format(path)
    plt, ctx, opts = pyplot(), context or Context(), options or FigureOptions()
    per, ranked = times(runs, time_limit, ctx.clock), ranking(runs, time_limit, ctx.clock)
    drawn, style = ranked[:top], styles(ranked)
    shown = panels(per, opts.panels)
    rows, cols, height = grid_shape(len(shown), opts)
    fig, axes = plt.subplots(rows, cols, figsize=(WIDTHS[opts.width], height * rows), squeeze=False)
    for ax, (title, secs) in zip(axes.flat, shown, strict=False):
        draw = _cactus_panel if kind == "cactus" else _ecdf_panel
        draw(ax, secs, [VBS, *drawn], style, time_limit)
        if len(shown) > 1:  # one panel is the figure: its title is the paper's caption, not drawn here
            ax.set_title(f"{title} ({len(secs.get(VBS, {}))} instances)")
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[len(shown):]:
        ax.set_axis_off()
    handles, labels = handles_of([*drawn, VBS], style)
    what = ("Cactus plot: instances solved against seconds per instance" if kind == "cactus" else
            "Empirical distribution: share of the instances each strategy can express solved within t seconds")
    finish(fig, path, caption(what, runs, time_limit, ctx, len(drawn), len(ranked)), handles, labels, opts)
    plt.close(fig)
    return {n: style[n]["color"] for n in [*drawn, VBS]}


def _cactus_panel(ax, secs: dict, names: list[str], style: dict, time_limit: float) -> None:
    from matplotlib.ticker import MaxNLocator

    scored = len(secs.get(VBS, {}))
    for name in names:  # the VBS first: it lies under every strategy
        done = sorted(s for s in secs.get(name, {}).values() if s is not None)
        if done:
            ax.plot(range(1, len(done) + 1), [max(s, FLOOR_SECONDS) for s in done], markersize=2.5,
                    markevery=max(1, len(done) // 12), **style[name])
    ax.set_yscale("log")
    ax.set_xlim(0.5, max(scored, 1) + 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))
    limit_line(ax, time_limit)
    ax.set_xlabel("instances solved")
    ax.set_ylabel("seconds per instance (log)")


def _ecdf_panel(ax, secs: dict, names: list[str], style: dict, time_limit: float) -> None:
    lows = []
    for name in names:
        values = list(secs.get(name, {}).values())
        done = sorted(max(s, FLOOR_SECONDS) for s in values if s is not None)
        if not values or not done:
            continue
        lows.append(done[0])
        xs = [done[0], *done, time_limit]
        ys = [0.0, *[(i + 1) / len(values) for i in range(len(done))], len(done) / len(values)]
        ax.step(xs, ys, where="post", markersize=2.5, markevery=list(range(1, len(done) + 1,
                                                                           max(1, len(done) // 10))), **style[name])
    ax.set_xscale("log")
    ax.set_xlim(min(lows, default=time_limit / 10) / 1.5, time_limit * 1.5)
    ax.set_ylim(0, 1.02)
    limit_line(ax, time_limit, "x")
    ax.set_xlabel("seconds (log)")
    ax.set_ylabel("share solved")

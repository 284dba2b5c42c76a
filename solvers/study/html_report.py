"""One self-contained HTML report of a strategy study: the environment and limits, the scoring rule, the
metrics per family, the figures inline (SVG, no file or network access needed to view them), the
cross-check and every flagged answer, and the paired statistics (:mod:`flipgame.study.statistics`).

It is written from the runs alone (a study just run, or one read back from its CSV or JSON by
``flipgame study report``), so a report can be redrawn without running a solver.
"""

from __future__ import annotations

import html
import os
import tempfile
from collections.abc import Sequence

from flipgame.study import statistics
from flipgame.study.cactus import plot_cactus, plot_ecdf
from flipgame.study.figures import Context, FigureOptions, plot_scatter, ranking
from flipgame.study.metrics import metrics, rule

STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}table{border-collapse:collapse;"
         "margin:1em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child"
         "{text-align:left}figure{display:inline-block;margin:0.5em}figcaption{font-size:0.8em;max-width:30em}"
         ".flag{color:#b00}")
"""The report's one style sheet, inline."""


def write_html(runs: Sequence, time_limit: float, path: str, *, context: Context | None = None,
               header: Sequence[str] = (), top: int = 7) -> dict:
    """Write the report to ``path``; returns the paired statistics (``wilcoxon``: per pair, ``friedman``).

    Raises OSError; needs matplotlib and scipy (the extra ``study``).  Running time: the figures' and the tests'
    (O(instances x strategies^2)).
    """
    ctx = context or Context()
    score = statistics.scores(runs, time_limit, ctx.clock)
    stats = {"wilcoxon": statistics.wilcoxon_pairs(score), "friedman": statistics.friedman(score)}
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>flipgame study</title><style>{STYLE}"
             f"</style></head><body><h1>flipgame study</h1>",
             *[f"<p>{html.escape(line)}</p>" for line in header], f"<p>{html.escape(rule(time_limit, ctx.clock))}</p>",
             "<h2>Metrics</h2>", _metrics_table(runs, time_limit, ctx.clock), "<h2>Figures</h2>",
             _figures(runs, time_limit, ctx, top, stats["friedman"]), "<h2>Cross-check</h2>", _flags(runs),
             "<h2>Paired statistics</h2>", _statistics(stats), "</body></html>"]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
    return stats


def _num(v, fmt: str) -> str:
    return "-" if v is None else format(v, fmt)


def _metrics_table(runs: Sequence, time_limit: float, clock: str) -> str:
    rows = ["<table><tr><th>family</th><th>strategy</th><th>solved</th><th>n/a</th><th>not run</th><th>PAR-2 s</th>"
            "<th>PAR-10 s</th><th>SGM(10) s</th><th>marginal s</th></tr>"]
    for r in metrics(runs, time_limit, clock):
        rows.append(f"<tr><td>{html.escape(r['family'])}</td><td>{html.escape(r['strategy'])}</td>"
                    f"<td>{r['solved']} of {r['instances']}</td><td>{r['na']}</td><td>{r['not_run']}</td>"
                    f"<td>{_num(r['par2'], '.3f')}</td><td>{_num(r['par10'], '.3f')}</td>"
                    f"<td>{_num(r['sgm'], '.4f')}</td><td>{_num(r['marginal'], '.3f')}</td></tr>")
    return "".join(rows) + "</table>"


def _figures(runs: Sequence, time_limit: float, ctx: Context, top: int, friedman: dict) -> str:
    """The cactus, ECDF, scatter and critical-difference figures as inline SVG, each with its caption."""
    out = []
    with tempfile.TemporaryDirectory(prefix="flipgame-html-") as tmp:
        drawers = [("cactus", lambda p: plot_cactus(runs, time_limit, p, context=ctx, top=top)),
                   ("ECDF", lambda p: plot_ecdf(runs, time_limit, p, context=ctx, top=top))]
        if len(ranking(runs, time_limit, ctx.clock)) >= 2:
            drawers.append(("scatter", lambda p: plot_scatter(runs, time_limit, p, context=ctx, top=top,
                                                              options=FigureOptions(width="two"))))
        if friedman["average_ranks"] and friedman["strategies"] >= 2:
            drawers.append(("critical difference", lambda p: statistics.plot_critical_difference(friedman, p)))
        for name, draw in drawers:
            path = os.path.join(tmp, f"{name.replace(' ', '-')}.svg")
            draw(path)
            with open(path, encoding="utf-8") as f:
                svg = f.read()
            out.append(f"<figure>{svg[svg.index('<svg'):]}<figcaption>{html.escape(name)}</figcaption></figure>")
    return "".join(out)


def _flags(runs: Sequence) -> str:
    flagged = [r for r in runs if r.flag]
    if not flagged:
        return ("<p>Every answer agrees: cross-checked against gauss where it answers and against the other "
                "strategies; every witness re-checked.</p>")
    items = "".join(f"<li class='flag'>{html.escape(r.strategy)} on {html.escape(r.family)} {r.n}x{r.n} board "
                    f"{r.board}: {html.escape(r.flag)}</li>" for r in flagged)
    return f"<p class='flag'>{len(flagged)} answer(s) flagged:</p><ul>{items}</ul>"


def _statistics(stats: dict) -> str:
    f = stats["friedman"]
    ranks = ", ".join(f"{html.escape(n)} {r:.2f}" for n, r in f["average_ranks"].items())
    head = (f"<p>Friedman test over the {f['instances']} instances every one of the {f['strategies']} strategies "
            f"can express: " + (f"chi-square = {f['statistic']:.3f}, p = {f['p']:.3g}" if f["p"] is not None else
                                "not computed (fewer than 3 strategies or 2 instances)")
            + (f"; average ranks (1 = fastest): {ranks}" if ranks else "")
            + (f"; Nemenyi critical difference {f['critical_difference']:.3f} at alpha = {statistics.ALPHA}"
               if f["critical_difference"] else "") + ".</p>")
    rows = ["<table><tr><th>A</th><th>B</th><th>instances</th><th>A faster</th><th>B faster</th>"
            "<th>Wilcoxon W</th><th>p</th><th>significant</th></tr>"]
    for w in stats["wilcoxon"]:
        rows.append(f"<tr><td>{html.escape(w['a'])}</td><td>{html.escape(w['b'])}</td><td>{w['instances']}</td>"
                    f"<td>{w['a_better']}</td><td>{w['b_better']}</td><td>{_num(w['statistic'], '.1f')}</td>"
                    f"<td>{_num(w['p'], '.3g')}</td><td>{'yes' if w['significant'] else 'no'}</td></tr>")
    note = ("<p>Wilcoxon signed-rank test (two-sided) on the PAR-2 seconds of each pair over their common "
            "instances; p is not computed with fewer than 6 instances where the two differ.</p>")
    return head + note + "".join(rows) + "</table>"

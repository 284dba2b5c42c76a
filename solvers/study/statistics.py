"""Paired statistics between the strategies of a study: Wilcoxon signed-rank tests on each pair, and a Friedman
test with the average ranks and the Nemenyi critical difference (drawn as a critical-difference diagram).

Each strategy's score on an instance is its PAR-2 time (the seconds when solved, twice the limit when not,
:mod:`flipgame.study.metrics`); a test is taken over the instances every strategy it compares can express
(refused instances are n/a, as everywhere).  Ranks are 1 for the fastest, ties sharing the mean rank.

Source: J. Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7 (2006): the
Friedman test, average ranks, the Nemenyi test and its critical difference ``q_alpha sqrt(k (k + 1) / (6 N))``
(its table of ``q_0.05``); scipy.stats ``wilcoxon`` and ``friedmanchisquare``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

from flipgame.core import extras
from flipgame.study.metrics import PAR_FACTOR, VBS, times

NEMENYI_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031, 9: 3.102, 10: 3.164}
"""Critical values ``q_0.05`` of the Nemenyi test for k strategies (Demšar 2006, table 5a)."""
ALPHA = 0.05
"""Significance level of every test."""


def scores(runs: Sequence, time_limit: float, clock: str = "wall") -> dict[str, dict[str, float]]:
    """``strategy -> {instance: PAR-2 seconds}`` over every family (refused instances left out)."""
    out: dict[str, dict[str, float]] = {}
    for (_family, strategy), per in times(runs, time_limit, clock).items():
        if strategy == VBS:
            continue
        for inst, s in per.items():
            out.setdefault(strategy, {})[inst] = PAR_FACTOR * time_limit if s is None else s
    return out


def wilcoxon_pairs(score: dict[str, dict[str, float]]) -> list[dict]:
    """Per pair of strategies over their common instances: ``a``, ``b``, ``instances``, ``a_better`` (instances
    where a is faster), ``b_better``, ``statistic`` and ``p`` (two-sided; None with fewer than 6 differing
    instances, too few for the test), ``significant`` at :data:`ALPHA`."""
    from scipy.stats import wilcoxon

    out = []
    for a, b in combinations(sorted(score), 2):
        common = sorted(set(score[a]) & set(score[b]))
        diffs = [score[a][i] - score[b][i] for i in common]
        nonzero = [d for d in diffs if d != 0]
        row = {"a": a, "b": b, "instances": len(common), "a_better": sum(d < 0 for d in diffs),
               "b_better": sum(d > 0 for d in diffs), "statistic": None, "p": None, "significant": False}
        if len(nonzero) >= 6:
            result = wilcoxon(nonzero)
            row.update(statistic=float(result.statistic), p=float(result.pvalue), significant=result.pvalue < ALPHA)
        out.append(row)
    return out


def friedman(score: dict[str, dict[str, float]]) -> dict:
    """Over the instances every strategy can express: ``instances``, ``strategies``, ``average_ranks`` (best
    first), ``statistic`` and ``p`` of the Friedman test (None below 3 strategies or 2 instances) and the
    Nemenyi ``critical_difference`` of average ranks at :data:`ALPHA` (None past 10 strategies)."""
    names = sorted(score)
    common = sorted(set.intersection(*(set(score[n]) for n in names))) if names else []
    ranks = {n: 0.0 for n in names}
    for inst in common:
        for n, r in _ranks({n: score[n][inst] for n in names}).items():
            ranks[n] += r / len(common)
    out = {"instances": len(common), "strategies": len(names),
           "average_ranks": dict(sorted(ranks.items(), key=lambda kv: kv[1])) if common else {},
           "statistic": None, "p": None, "critical_difference": None}
    if len(names) >= 3 and len(common) >= 2:
        from scipy.stats import friedmanchisquare

        result = friedmanchisquare(*[[score[n][i] for i in common] for n in names])
        if not math.isnan(result.pvalue):
            out.update(statistic=float(result.statistic), p=float(result.pvalue))
    if 2 <= len(names) <= 10 and common:
        out["critical_difference"] = NEMENYI_Q05[len(names)] * math.sqrt(len(names) * (len(names) + 1)
                                                                         / (6 * len(common)))
    return out


def _ranks(values: dict[str, float]) -> dict[str, float]:
    """Rank 1 for the least value, ties sharing the mean of their ranks."""
    order = sorted(values, key=values.get)
    out, i = {}, 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def cliques(ranks: list[float], cd: float) -> list[tuple[float, float]]:
    """The maximal runs of sorted average ranks that lie within ``cd`` of each other (Demšar's bars), each as
    ``(lowest, highest)``; a run contained in another is left out."""
    ranks = sorted(ranks)
    spans = []
    for i, lo in enumerate(ranks):
        hi = max(r for r in ranks[i:] if r - lo < cd)
        if hi > lo and not any(a <= lo and hi <= b for a, b in spans):
            spans.append((lo, hi))
    return spans


def plot_critical_difference(result: dict, path: str) -> None:
    """The critical-difference diagram of :func:`friedman`'s result (Demšar 2006, figure 1): each strategy at
    its average rank on an axis from 1 to k, strategies whose ranks differ by less than the critical difference
    joined by a bar.  Raises OSError; ValueError for no ranks."""
    from flipgame.study.figures import pyplot

    ranks = result["average_ranks"]
    if not ranks:
        raise ValueError("no instance every strategy can express: no ranks to draw")
    extras.require("matplotlib", "a critical-difference diagram")
    plt = pyplot()
    k, cd = len(ranks), result["critical_difference"] or 0.0
    fig, ax = plt.subplots(figsize=(3.3, 0.6 + 0.18 * k))
    ax.set_xlim(0.5, k + 0.5)
    ax.set_ylim(-(k + 1) * 0.5, 1.0)
    ax.axhline(0, color="black", linewidth=0.8)
    for r in range(1, k + 1):
        ax.plot([r, r], [0, 0.12], color="black", linewidth=0.8)
        ax.text(r, 0.2, str(r), ha="center", va="bottom", fontsize=7)
    for i, (name, rank) in enumerate(ranks.items()):  # each strategy down from its rank, named on the right
        y = -(i + 1) * 0.5
        ax.plot([rank, rank, k + 0.45], [0, y, y], color="#333333", linewidth=0.7)
        ax.text(k + 0.5, y, f"{name} ({rank:.2f})", ha="left", va="center", fontsize=6.5)
    for depth, (lo, hi) in enumerate(cliques(list(ranks.values()), cd)):  # no significant difference within
        y = -0.15 - 0.12 * depth
        ax.plot([lo - 0.03, hi + 0.03], [y, y], color="black", linewidth=1.6, solid_capstyle="butt")
    if cd:
        ax.plot([1, 1 + cd], [0.75, 0.75], color="black", linewidth=1.0)
        ax.text(1 + cd / 2, 0.8, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=6.5)
    ax.set_axis_off()
    fig.savefig(path, bbox_inches="tight", pad_inches=0.03, metadata={"Title": "critical difference"}
                if not path.endswith(".svg") else None)
    plt.close(fig)

"""The per-family table of a study for a paper: strategies (ranked as the figures rank them) by family,
solved of the scored instances and PAR-2, then the VBS; LaTeX (booktabs), Markdown or CSV by the
file name's suffix.  The caption states the scoring, the limit and the machine."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence

from flipgame.study.figures import Context, ranking
from flipgame.study.metrics import VBS, metrics, rule

TABLE_FORMATS = ("tex", "md", "csv")
"""Formats of ``--table`` (by the file name's suffix)."""


def table_format(path: str) -> str:
    """``tex``, ``md`` or ``csv`` from the file name; ValueError for another."""
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    if suffix not in TABLE_FORMATS:
        raise ValueError(f"expected a file name ending in {', '.join('.' + f for f in TABLE_FORMATS)}, got {path!r}")
    return suffix


def family_rows(runs: Sequence, time_limit: float, clock: str = "wall") -> tuple[list[str], list[list]]:
    """``(families, rows)``: one row per strategy (best first) and the VBS, each ``[name, (solved, scored,
    PAR-2) per family..., total solved]``; a family the strategy refused whole is ``(0, 0, None)`` (n/a)."""
    rows = metrics(runs, time_limit, clock)
    families = list(dict.fromkeys(r.family for r in runs))
    cell = {(m["family"], m["strategy"]): (m["solved"], m["instances"], m["par2"]) for m in rows}
    out = []
    for name in [*ranking(runs, time_limit, clock), VBS]:
        cells = [cell.get((f, name), (0, 0, None)) for f in families]
        out.append([name, *cells, sum(c[0] for c in cells)])
    return families, out


def write_table(runs: Sequence, time_limit: float, path: str, *, context: Context | None = None) -> None:
    """The per-family table in the format of ``path``'s suffix.  Raises OSError, ValueError (suffix)."""
    fmt = table_format(path)
    ctx = context or Context()
    families, rows = family_rows(runs, time_limit, ctx.clock)
    note = (f"Solved of the instances scored (n/a: refused), and PAR-2 in seconds. {rule(time_limit, ctx.clock)}"
            + (f" Machine: {ctx.machine}." if ctx.machine else "") + (f" flipgame {ctx.flipgame}." if ctx.flipgame
                                                                       else ""))
    with open(path, "w", newline="") as f:
        if fmt == "csv":
            w = csv.writer(f)
            w.writerow(["strategy", *[f"{fam}_{k}" for fam in families for k in ("solved", "instances", "par2")],
                        "solved"])
            for name, *cells, total in rows:
                w.writerow([name, *[v if v is not None else "" for c in cells for v in c], total])
        else:
            f.write(_latex(families, rows, note) if fmt == "tex" else _markdown(families, rows, note))


def _par(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def _markdown(families: list[str], rows: list[list], note: str) -> str:
    head = "| strategy | " + " | ".join(f"{f} solved | {f} PAR-2" for f in families) + " | solved |"
    lines = [head, "|---" * (2 * len(families) + 2) + "|"]
    for name, *cells, total in rows:
        lines.append(f"| {name} | " + " | ".join(f"{s} of {n} | {_par(p)}" if n else "n/a | n/a" for s, n, p in cells)
                     + f" | {total} |")
    return "\n".join(lines) + f"\n\n{note}\n"


def _tex(text: str) -> str:
    return text.replace("\\", "\\textbackslash{}").replace("_", "\\_").replace("%", "\\%").replace("&", "\\&") \
        .replace("#", "\\#")


def _latex(families: list[str], rows: list[list], note: str) -> str:
    cols = "l" + "rr" * len(families) + "r"
    lines = ["\\begin{table}", "\\centering", f"\\begin{{tabular}}{{{cols}}}", "\\toprule",
             " & " + " & ".join(f"\\multicolumn{{2}}{{c}}{{{_tex(f)}}}" for f in families) + " & \\\\",
             "strategy & " + " & ".join("solved & PAR-2" for _ in families) + " & solved \\\\", "\\midrule"]
    for name, *cells, total in rows:
        if name == VBS:
            lines.append("\\midrule")
        lines.append(f"{_tex(name)} & " + " & ".join(f"{s}/{n} & {_par(p)}" if n else "n/a & n/a" for s, n, p in cells)
                     + f" & {total} \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{_tex(note)}}}", "\\end{table}"]
    return "\n".join(lines) + "\n"

"""Aligned plain-text tables: the one table printer of the reports (verify, bench).

>>> print(format_table([("backend", "boards"), ("gauss", 65536), ("bfs", 16)]))
backend  boards
---------------
gauss     65536
bfs          16
"""

from __future__ import annotations

from collections.abc import Sequence


def format_table(rows: Sequence[Sequence[object]]) -> str:
    """``rows[0]`` is the header; the first column is left-aligned, the others right-aligned, two
    spaces apart, with a rule under the header.  O(cells).

    Raises
    ------
    ValueError
        A row whose length differs from the header's.
    """
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w)
                       for i, (v, w) in enumerate(zip(r, widths, strict=True))) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)

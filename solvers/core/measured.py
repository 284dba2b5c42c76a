"""The measured figures: the one table of times and rates that the docs and the help texts quote.

``make bench`` measures every figure in one run on one machine (:mod:`flipgame.bench.measure`) and writes
this package's ``measured.json``: the date, the machine (CPU model, cores, memory), its load during the
run, and per figure its value, unit and what was measured.  The docs quote a figure between markers
(``<!-- measured: key -->4.3 s<!-- /measured -->``, rewritten by the same run; a test fails when they
drift), and a help text or message that states a time reads it here with :func:`quote`.

>>> quote("no such figure", "unmeasured")
'unmeasured'
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

MEASURED_FILE = Path(__file__).with_name("measured.json")
"""Where ``make bench`` writes the table (package data)."""


@lru_cache(maxsize=1)
def table() -> dict:
    """The table as written by the last ``make bench`` (``{"figures": {}}`` if none was written).  O(size)."""
    try:
        with open(MEASURED_FILE, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {"figures": {}}


def figure(key: str) -> float | None:
    """The value of figure ``key`` (in its unit), or None if it was never measured."""
    entry = table().get("figures", {}).get(key)
    return None if entry is None else entry["value"]


def format_value(value: float, unit: str) -> str:
    """A figure as the docs write it: three significant digits (whole numbers above 100) and its unit.

    >>> format_value(4.2913, "s"), format_value(0.000087, "ms"), format_value(280.4, "s"), format_value(2.5, "x")
    ('4.29 s', '8.7e-05 ms', '280 s', '2.5x')
    >>> format_value(2.31e9, "/s")
    '2.31e+09 /s'
    """
    text = f"{value:.3g}" if abs(value) >= 1e5 or abs(value) < 100 else f"{value:,.0f}"
    return f"{text}x" if unit == "x" else f"{text} {unit}"


def format_entry(entry: dict) -> str:
    """A figure of the table as the docs write it: its ``text`` when it has one (an answer such as
    ``Impossible``), for a run that gave no answer its outcome (``unknown``: the value is the limit it
    ran to; ``refused``), else :func:`format_value`.

    >>> format_entry({"value": 30.0, "unit": "s", "outcome": "unknown"}), format_entry({"value": 0.0412, "unit": "ms"})
    ('Unknown at 30 s', '0.0412 ms')
    >>> format_entry({"value": 192, "unit": "", "text": "192"})
    '192'
    """
    if "text" in entry:
        return entry["text"]
    outcome = entry.get("outcome")
    if outcome == "refused":
        return "refused"
    text = format_value(entry["value"], entry["unit"])
    return f"Unknown at {text}" if outcome == "unknown" else text


def quote(key: str, default: str = "not measured") -> str:
    """Figure ``key`` formatted as the docs write it (:func:`format_entry`), or ``default`` if never measured."""
    entry = table().get("figures", {}).get(key)
    return default if entry is None else format_entry(entry)


def machine_line() -> str:
    """One line naming the machine and the load of the run the figures come from."""
    t = table()
    m = t.get("machine", {})
    if not m:
        return "no measured run yet (make bench writes one)"
    return (f"{t.get('measured', '?')}, {m.get('cpu', '?')}, {m.get('cores', '?')} cores, "
            f"{m.get('memory_gib', '?')} GiB, load average {t.get('load', {}).get('before', '?')} before the run")

"""The documentation says what the program does.

docs/cli.md's option tables are generated from the parser (``python -m flipgame.cli.docs``): the file
must be up to date and must list exactly the options ``flipgame COMMAND --help`` prints.  The console
examples of the README and docs/cli.md are run as written and must print what they show.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from flipgame.cli import docs

ROOT = Path(__file__).resolve().parent.parent
CLI_MD = ROOT / "docs" / "cli.md"
README = ROOT / "README.md"
COMMANDS = ("solve", "verify", "study", "bench", "export", "export-suite", "fuzz")
README_MAX_LINES = 150

pytestmark = pytest.mark.skipif(not CLI_MD.exists(), reason="docs/ is not beside the tests")


def _help(command: str) -> str:
    """``flipgame COMMAND --help`` as a user sees it (wide, so no option line wraps)."""
    r = subprocess.run([sys.executable, "-m", "flipgame", command, "--help"], capture_output=True, text=True,
                       timeout=60, env={**os.environ, "COLUMNS": "400"})
    assert r.returncode == 0, r.stderr
    return r.stdout


def _flags(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))


def _section(text: str, title: str) -> str:
    """The part of docs/cli.md under the heading ``## title`` up to the next ``## ``."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _table_flags(text: str) -> set[str]:
    """Flags in the first column of the Markdown tables in ``text``."""
    return {f for line in text.splitlines() if line.startswith("| `--") for f in _flags(line.split("|")[1])}


def test_cli_md_is_what_the_generator_writes_now():
    text = CLI_MD.read_text(encoding="utf-8")
    assert docs.render(text) == text, "docs/cli.md is out of date: run python -m flipgame.cli.docs docs/cli.md"


def test_cli_md_has_every_generated_block():
    names = set(re.findall(r"<!-- BEGIN GENERATED ([\w-]+) -->", CLI_MD.read_text(encoding="utf-8")))
    assert names == set(docs.blocks()) == {*COMMANDS, "commands", "rule-options", "backend-options", "exit-codes"}


@pytest.mark.parametrize("command", COMMANDS)
def test_cli_md_lists_exactly_the_options_of_help(command):
    text = CLI_MD.read_text(encoding="utf-8")
    section = _section(text, f"`flipgame {command}`")
    documented = _table_flags(section)
    if "also takes the rule options" in section:
        documented |= _table_flags(_section(text, "Rule options"))
    if "and the backend options" in section:
        documented |= _table_flags(_section(text, "Backend options"))
    usage = _help(command).split("\n\n")[0]  # the usage block names every option once
    assert documented == _flags(usage) - {"--help"}


def _meanings(text: str, column: int = 2) -> list[str]:
    """The ``column``-th cell of each option row of the Markdown tables in ``text``, unescaped."""
    cells = [re.split(r"(?<!\\)\|", line) for line in text.splitlines() if line.startswith("| `--")]
    return [c[column].strip().replace("\\|", "|") for c in cells]


@pytest.mark.parametrize("command", COMMANDS)
def test_cli_md_meanings_are_what_help_prints(command):
    """Each option's meaning in docs/cli.md is the one ``--help`` prints, word for word."""
    text = CLI_MD.read_text(encoding="utf-8")
    help_words = " ".join(_help(command).split())
    section = _section(text, f"`flipgame {command}`")
    meanings = _meanings(section)
    if "also takes the rule options" in section:
        meanings += _meanings(_section(text, "Rule options"))
    if "and the backend options" in section:  # the table splits --help's "[backends] meaning (choices); default" up
        backends = _section(text, "Backend options")
        owners, helps = _meanings(backends), _meanings(backends, 3)
        meanings += [f"[{who}] {m.split(' (`')[0]}" for who, m in zip(owners, helps, strict=True)]
    assert len(meanings) >= 5
    for meaning in meanings:
        assert meaning in help_words


def test_exit_codes_table_has_every_code():
    section = _section(CLI_MD.read_text(encoding="utf-8"), "Exit statuses")
    assert re.findall(r"^\| (\d+) \| `(\w+)`", section, flags=re.M) == [
        ("0", "OK"), ("1", "DISAGREEMENT"), ("2", "USAGE"), ("3", "WITNESS_FAILURE"), ("4", "INCOMPLETE"),
        ("5", "REFUSED"), ("6", "CERTIFICATION_FAILURE"), ("130", "INTERRUPTED"), ("143", "TERMINATED")]


def test_check_mode_fails_on_a_stale_file(tmp_path):
    stale = tmp_path / "cli.md"
    stale.write_text(CLI_MD.read_text(encoding="utf-8").replace("`--stats`", "`--statz`", 1), encoding="utf-8")
    assert docs.main(["--check", str(stale)]) == 1
    assert docs.main([str(stale)]) == 0 and docs.main(["--check", str(stale)]) == 0
    assert stale.read_text(encoding="utf-8") == CLI_MD.read_text(encoding="utf-8")


def test_readme_fits_on_a_page():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= README_MAX_LINES


# --- the console examples, run as written -------------------------------------------------------

SKIPPED = ("&", "drat-trim", "dask")
"""Examples not run here: background servers, and a checker that is not a dependency."""


def _examples(path: Path, run_silent: bool = False) -> list:
    """A pytest param per console block: [(command, expected output or None)].

    A block that shows no output is run only with ``run_silent`` (the README's, which are short), and
    then only its exit status is checked.
    """
    found = []
    blocks = re.findall(r"```console\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)
    for number, block in enumerate(blocks, 1):
        steps: list[list] = []
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append([line[2:], ""])
            else:
                steps[-1][1] += line + "\n"
        commands = [c for c, _ in steps]
        silent = not any(out for _, out in steps)
        if any(word in c for c in commands for word in SKIPPED) or (silent and not run_silent):
            continue
        slow = any("39x39" in c or "flipgame verify" in c for c in commands)
        found.append(pytest.param([(c, None if silent else out) for c, out in steps], id=f"{path.name}-{number}",
                                  marks=[pytest.mark.slow] if slow else []))
    return found


def _masked(text: str) -> str:
    """Seconds and other decimals vary from run to run."""
    return re.sub(r"\d+\.\d+", "<number>", text)


@pytest.mark.parametrize("steps", _examples(README, run_silent=True) + _examples(CLI_MD))
@pytest.mark.needs("dratify", "pycryptosat")
def test_console_example_prints_what_the_docs_show(steps, tmp_path):
    """Each example runs in a fresh folder holding a copy of examples/, as a user runs it from a clone."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    python = shlex.quote(sys.executable)
    for command, expected in steps:
        shell = re.sub(r"\.venv/bin/(flipgame|python)",
                       lambda m: f"{python} -m flipgame" if m[1] == "flipgame" else python, command)
        r = subprocess.run(["bash", "-c", shell], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        if expected is None:
            assert r.returncode == 0, (command, r.stderr)
        else:
            assert _masked(r.stdout + r.stderr) == _masked(expected), command


@pytest.mark.needs("pycryptosat")
def test_readme_python_example_runs_and_gives_the_values_it_shows():
    """The README's Python block runs as written; each line ending in ``# <literal>`` evaluates to it."""
    code = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)[0]
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    shown = []
    for line in code.splitlines():
        expr, _, comment = line.partition("  # ")
        try:
            shown.append((expr.strip(), ast.literal_eval(comment.strip())))
        except (ValueError, SyntaxError):
            continue
    assert len(shown) >= 2
    for expr, value in shown:
        assert eval(expr, namespace) == value, expr
    assert namespace["s"].moves == 4 and namespace["batch"].moves.dtype.name == "int32"
    assert (namespace["batch"].moves >= 0).sum() == 4096 and namespace["answers"][:2] == ["0", "Impossible"]


# --- every time the docs state comes from one measured run (make bench) -------------------------------------

TIME = re.compile(r"(?<![\w.\-^*])(\d[\d,]*(?:\.\d+)?)\s?(ms|s|min|minutes|seconds|hours?)\b(?![\w-])")
"""A stated time: a number and a unit of time."""
SETTING = re.compile(r"(limit|budget|default|timeout|time-out|every|within|past|at most|up to|interval|stops at|"
                     r"taken|after|per run|margin|--[a-z-]+)\W*(\w+\W+){0,3}$", re.IGNORECASE)
"""Words before a number that make it a setting (a limit, a default, an interval), not a measurement."""
HISTORY = {"CHANGES.md"}
"""The dated history of the project: each entry records what was measured then."""


def _prose(text: str):
    """(line number, prose) of a Markdown text: code blocks, inline code and quoted figures left out."""
    code = False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip().startswith("```"):
            code = not code
            continue
        if not code:
            line = re.sub(r"<!-- measured: .*? -->.*?<!-- /measured -->", "", re.sub(r"`[^`]*`", "", line))
            yield number, line


def unmeasured_times(path: Path) -> list[str]:
    """``file:line: text`` for each time stated in the prose of ``path`` that is no setting and no quoted figure."""
    out = []
    for number, line in _prose(path.read_text(encoding="utf-8")):
        for m in TIME.finditer(line):
            if not SETTING.search(line[:m.start()]) and "measured" not in line[m.end():m.end() + 60]:
                out.append(f"{path.name}:{number}: {line[max(0, m.start() - 50):m.end()].strip()}")
    return out


def _doc_files() -> list[Path]:
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def test_the_docs_quote_the_measured_figures_as_they_stand():
    from flipgame.bench.measure import stale_markers
    from flipgame.core.measured import table

    assert stale_markers(table(), _doc_files()) == [], "run make bench (flipgame bench --measure) to rewrite them"


def test_measured_md_is_the_table():
    from flipgame.bench.measure import markdown
    from flipgame.core.measured import table

    assert (ROOT / "docs" / "measured.md").read_text(encoding="utf-8") == markdown(table())


def test_a_run_of_one_measurement_keeps_the_date_and_load_of_the_others(tmp_path):
    """A `--measure NAME` run restamped the whole table with its own date and load average."""
    from flipgame.bench.measure import markdown, write

    path = tmp_path / "measured.json"
    entry = {"value": 1.5, "unit": "s", "what": "old"}
    write({"measured": "2026-11-01", "load": {"before": 0.1, "after": 0.2}, "figures": {"old.wall": entry}}, path)
    load = {"before": 3, "after": 2.9}
    new = {"value": 2.0, "unit": "s", "what": "new", "run": {"measured": "2026-12-06", "load": load}}
    table = write({"measured": "2026-12-06", "load": load, "figures": {"new.wall": new}}, path)
    rows = [line for line in markdown(table).splitlines() if line.startswith("| `")]
    assert rows == ["| `old.wall` | 1.5 s | old | 2026-11-01, load 0.1 -> 0.2 |",
                    "| `new.wall` | 2 s | new | 2026-12-06, load 3 -> 2.9 |"]


def test_the_docs_state_no_time_that_make_bench_did_not_write():
    found = [hit for p in _doc_files() if p.name not in HISTORY and p.name != "measured.md"
             for hit in unmeasured_times(p)]
    assert found == [], "quote a measured figure (<!-- measured: key -->) or drop it:\n" + "\n".join(found)


def test_the_time_scanner_finds_a_typed_time_and_passes_a_setting(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("It proves 19x19 in 4.2 s.\nThe default limit is 60 s; `took 3 s` is code.\n"
                   "<!-- measured: x -->5 s<!-- /measured -->\n", encoding="utf-8")
    assert unmeasured_times(doc) == ["doc.md:1: It proves 19x19 in 4.2 s"]


def test_a_figure_the_run_did_not_reach_is_recorded_as_its_text():
    """An unfinished certification has no proof lines: the measured run crashed on rounding None after 16
    minutes of measuring, and lost every figure of it."""
    from flipgame.bench import measure, measurements
    from flipgame.core.measured import format_entry

    run = measurements.Measurement("t", {"t.lines": ("", "its proof's lines"), "t.wall": ("s", "its wall time")},
                                   lambda context: {"t.lines": {"value": None, "text": "none (not finished)"},
                                                    "t.wall": (600.0, "unknown")})
    figures = measure.measure([run])["figures"]
    assert [format_entry(e) for e in figures.values()] == ["none (not finished)", "Unknown at 600 s"]
    assert figures["t.lines"]["value"] is None

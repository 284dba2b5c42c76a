"""``--strategies-file FILE``: solver programs registered as strategies by name, from a TOML file.

One table per program; its name is the strategy's name in ``study --strategies``,
``verify --strategies`` and ``solve --strategy``::

    [my-minisat]
    command = "/opt/bin/minisat.sh {file} {out}"   # {file}: the instance; {out}: a result file
    format = "cnf"                                  # any format the external backend takes
    answer = "minisat"                              # optional: competition (s/v/o lines), minisat, cbc
    version = "minisat --version"                   # optional: a command printing its version
    summary = "MiniSat 2.2 through my wrapper"      # optional: one line for the tables

Limit flags go in the command through ``{seconds}`` and ``{memory_mb}``
(``cadical -t {seconds} {file}``).  Every table is checked before any program runs;
a mistake is one line naming the file, the table and what was expected.  See docs/solvers.md.

>>> import tempfile, os
>>> with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
...     _ = f.write('[my-cadical]\\ncommand = "cadical -q {file}"\\nformat = "cnf"\\n')
>>> load(f.name)
['my-cadical']
>>> STRATEGIES["my-cadical"].options["command"]
'cadical -q {file}'
>>> os.unlink(f.name); del STRATEGIES["my-cadical"]
"""

from __future__ import annotations

import re

from flipgame.backends.program import FORMATS, Program
from flipgame.backends.registry import STRATEGIES, register_strategy
from flipgame.backends.strategies import BUILTIN, SOLVER_CMD, Strategy
from flipgame.core.errors import FlipgameError, OptionError
from flipgame.core.limits import STRATEGIES_FILE_MAX_BYTES

KEYS = {"command": "a command with {file}", "format": f"one of {', '.join(FORMATS)}",
        "answer": "competition, minisat or cbc", "version": "a version command", "summary": "one line of text"}
"""The keys of a table, and what each holds (all strings)."""
REQUIRED = ("command", "format")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}", re.ASCII)
"""A strategy name: letters, digits and ``._+-``, at most 64 characters, not starting with punctuation."""


class StrategiesFileError(FlipgameError, ValueError):
    """A strategies file that cannot be read or names a program wrongly; ``str()`` names the file and table."""


def _read(path: str) -> dict:
    try:  # imported here: start-up of every flipgame command stays without it
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the same parser, as a package (pyproject installs it there)
        import tomli as tomllib
    try:
        with open(path, "rb") as f:
            data = f.read(STRATEGIES_FILE_MAX_BYTES + 1)
    except OSError as exc:
        raise StrategiesFileError(f"--strategies-file {path}: {exc.strerror or exc}") from None
    if len(data) > STRATEGIES_FILE_MAX_BYTES:
        raise StrategiesFileError(f"--strategies-file {path}: larger than {STRATEGIES_FILE_MAX_BYTES >> 20} MiB")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise StrategiesFileError(f"--strategies-file {path}: not UTF-8 text (byte {exc.start})") from None
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise StrategiesFileError(f"--strategies-file {path}: not TOML: {exc}") from None


def _strategy(where: str, name: str, table) -> Strategy:
    """The strategy of one table, checked.  Raises StrategiesFileError naming ``where``."""
    if not NAME.fullmatch(name):
        raise StrategiesFileError(f"{where}: expected a name of letters, digits and ._+- (at most 64)")
    if name in BUILTIN or name in (SOLVER_CMD, "all"):
        raise StrategiesFileError(f"{where}: {name!r} is a built-in strategy name; choose another")
    if not isinstance(table, dict):
        raise StrategiesFileError(f"{where}: expected a table ([{name}] with command and format)")
    for key, value in table.items():
        if key not in KEYS:
            raise StrategiesFileError(f"{where}: unknown key {key!r}; expected {', '.join(KEYS)}")
        if not isinstance(value, str):
            raise StrategiesFileError(f"{where}: {key} must be a string ({KEYS[key]}), got {type(value).__name__}")
    missing = [k for k in REQUIRED if k not in table]
    if missing:
        raise StrategiesFileError(f"{where}: missing {' and '.join(f'{k} ({KEYS[k]})' for k in missing)}")
    options = {k: table[k] for k in ("command", "format", "answer", "version") if k in table}
    try:
        Program(options["command"], options["format"], options.get("answer", "auto"), {k: k for k in KEYS})
    except OptionError as exc:
        raise StrategiesFileError(f"{where}: {exc}") from None
    summary = table.get("summary") or f"program: {options['command']} ({options['format']})"
    return Strategy(name, "external", options, summary)


def load(path: str) -> list[str]:
    """Register every program of the TOML file ``path`` as a strategy; their names, in file order.

    Raises
    ------
    StrategiesFileError
        Unreadable or not TOML; a table that is not a program (no command or format, an unknown
        key, a format the external backend does not take, a name flipgame uses itself).

    Running time: the file's parse, O(size); no program is run.
    """
    data = _read(path)
    if not data:
        raise StrategiesFileError(f"--strategies-file {path}: no [name] table of a program")
    found = [_strategy(f"--strategies-file {path}: [{name}]", name, table) for name, table in data.items()]
    for s in found:
        register_strategy(s)
    return [s.name for s in found]


def solver_cmd_strategy(command: str, fmt: str = "cnf", answer: str = "auto", version: str = "") -> Strategy:
    """The strategy for ``--solver-cmd COMMAND --solver-format FMT``, registered as :data:`SOLVER_CMD`.

    Raises OptionError for a command or format the ``external`` backend does not take."""
    Program(command, fmt, answer)
    return register_strategy(Strategy(SOLVER_CMD, "external", {"command": command, "format": fmt, "answer": answer,
                                                               "version": version},
                                      f"external program: {command} ({fmt})"))


__all__ = ["StrategiesFileError", "load", "solver_cmd_strategy", "STRATEGIES"]

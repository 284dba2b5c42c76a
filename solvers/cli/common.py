"""What every ``flipgame`` command shares: exit codes, argument types, the rule
options, the backend option flags (built from the registry) and the rules
read from the command line."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence

from flipgame.backends import strategies, strategies_file
from flipgame.backends.base import Backend
from flipgame.backends.registry import BACKENDS, STRATEGIES, get_backend
from flipgame.backends.strategies import StrategyBackend
from flipgame.cli.arguments import board_size, goal_arg, states_arg
from flipgame.cli.exits import ExitCode, fail  # noqa: F401 - the commands take both from here
from flipgame.core.errors import RulesError
from flipgame.core.files import whole_file
from flipgame.core.limits import BOARD_MAX_CELLS
from flipgame.core.text import one_line
from flipgame.model.grid import NEIGHBOURHOODS

COMMAND_HELP = {
    "solve": "answer judge cases from FILE or standard input",
    "verify": "run every backend on every board and compare",
    "study": "nullity, quiet patterns, distribution, backend times; --strategies: strategies x families",
    "bench": "time every backend on all boards and the start-up of `flipgame solve`",
    "export": "write one board as a SAT/MaxSAT/PB/MIP/CP-SAT instance",
    "export-suite": "write a benchmark suite: families x sizes, with a manifest of known answers",
    "fuzz": "differential fuzzing: random press systems and solver settings, findings shrunk to reproducers",
}
"""One line per command for ``flipgame --help``, read without importing the command's module."""


def name_list(text: str, valid: Sequence[str], what: str, *, allow_all: bool = False) -> list[str]:
    """Comma-separated distinct names from ``valid`` (or ``all`` of them when ``allow_all``): the one
    parser of the backend, strategy and family lists.

    Raises
    ------
    argparse.ArgumentTypeError
        An unknown or repeated name, or none; the message lists the valid ones.

    >>> name_list("gauss, sat-xor", ["gauss", "bfs", "sat-xor"], "strategy")
    ['gauss', 'sat-xor']
    """
    if allow_all and text.strip() == "all":
        return list(valid)
    names = [t.strip() for t in text.split(",") if t.strip()]
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"a {what} is named twice in {text!r}")
    unknown = [n for n in names if n not in valid]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(map(repr, unknown)) or '(none given)'}; "
                                         f"valid: {'all or ' if allow_all else ''}{', '.join(valid)}")
    return names


def strategy_names(text: str) -> list[str]:
    """``all`` or comma-separated names of :data:`flipgame.backends.strategies.STRATEGIES`."""
    try:
        return name_list(text, list(STRATEGIES), "strategy", allow_all=True)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{exc}{_external_hint(text)}") from None


def _external_hint(text: str) -> str:
    """The hint for a strategy list naming ``external`` when no ``--solver-cmd`` defined it."""
    named = strategies.SOLVER_CMD in (t.strip() for t in text.split(","))
    return (f" ('{strategies.SOLVER_CMD}' is the program of --solver-cmd; give --solver-cmd 'PROGRAM ARGS {{file}}')"
            if named and strategies.SOLVER_CMD not in STRATEGIES else "")


def backend_list(text: str) -> list[str]:
    """Comma-separated names of :data:`flipgame.BACKENDS`."""
    return name_list(text, list(BACKENDS), "backend")


def backend_summary(backend: Backend) -> str:
    """The backend's one-line summary for ``--help``, with its cap from :attr:`Backend.max_cells` when it has one.

    >>> backend_summary(BACKENDS["bfs"])
    'breadth-first distance table over all 2^n states (at most 30 cells)'
    """
    cap = f" (at most {backend.max_cells:,} cells)" if backend.max_cells is not None else ""
    return backend.summary + cap


def backend_caps(names: Sequence[str]) -> str:
    """The caps of the backends ``names`` for ``--help``, grouped by :attr:`Backend.max_cells`, smallest first.

    >>> backend_caps(["gauss", "bfs", "maxsat", "auto", "sat", "ilp"])
    'bfs: at most 30 cells; maxsat: 2,500; sat, ilp: 40,000; gauss: 4,000,000'
    """
    caps: dict[int, list[str]] = {}
    for n in names:
        if BACKENDS[n].max_cells is not None:
            caps.setdefault(BACKENDS[n].max_cells, []).append(n)
    parts = [f"{', '.join(who)}: {'at most ' if k == 0 else ''}{cap:,}{' cells' if k == 0 else ''}"
             for k, (cap, who) in enumerate(sorted(caps.items()))]
    return "; ".join(parts)


def option_flags() -> dict[str, list[tuple[str, object]]]:
    """Command-line flag -> [(backend name, Option)], from every backend's declared options."""
    flags: dict[str, list[tuple[str, object]]] = {}
    for name, b in BACKENDS.items():
        for o in b.options:
            if o.cli_flag:
                flags.setdefault(o.cli_flag, []).append((name, o))
    return flags


def add_rule_options(parser: argparse.ArgumentParser, *, backend_options: bool = True) -> None:
    """The rule options every command takes, and (optionally) every backend's option flags."""
    parser.add_argument("--size", type=board_size, metavar="RxC",
                        help=f"board shape, rows x cols (default 4x4; at most {BOARD_MAX_CELLS:,} cells)")
    parser.add_argument("--goal", type=goal_arg, metavar="{any,white,black,D}",
                        help="any: all white or all black (POJ 1753, default), or any uniform board with --states; "
                             "white/black: that colour; D: every cell in state D (the general game)")
    parser.add_argument("--target", metavar="FILE",
                        help="goal: this board (rows of b/w in FILE) instead of a uniform colour")
    parser.add_argument("--wrap", action="store_true",
                        help="toroidal board: neighbours wrap around the edges (on a board 1 or 2 wide, a press "
                             "changes a cell once even when two of its offsets reach it)")
    parser.add_argument("--neighbourhood", choices=[*NEIGHBOURHOODS, "stencil"], default="plus",
                        help="cells a press flips: plus (default), cross (diagonals), king (3x3), stencil")
    parser.add_argument("--neighborhood", dest="neighbourhood", choices=[*NEIGHBOURHOODS, "stencil"],
                        help=argparse.SUPPRESS)  # the American spelling, taken without a second line of help
    parser.add_argument("--stencil", metavar="PATTERN",
                        help="with --neighbourhood stencil: rows of x/. separated by '/', centre = the press, "
                             "e.g. 'x.x/.x./x.x'")
    general = parser.add_argument_group("the general game (docs/general-game.md)")
    general.add_argument("--rules", metavar="FILE", help="a press system: JSON (cells, buttons, states) or an "
                         "edge list (closed neighbourhood; first line 'open' for the open one)")
    general.add_argument("--states", type=states_arg, metavar="K|counters",
                         help="states per cell 2..255 (boards as rows of digits 0..K-1), or counters")
    if backend_options:
        group = parser.add_argument_group("backend options (each applies to the backends named)")
        for flag, owners in option_flags().items():
            o = owners[0][1]
            who = ", ".join(n for n, _ in owners)
            choices = f" ({'|'.join(map(str, o.choices))})" if o.choices else ""
            cap = f", at most {o.maximum:g}" if o.maximum is not None else ""
            group.add_argument(flag, dest="opt_" + flag[2:].replace("-", "_"), metavar=o.name.upper(),
                               help=f"[{who}] {o.help}{choices}; default {o.default}{cap}")


def backend_options(names: Sequence[str], args) -> dict[str, dict]:
    """Per-backend keyword options from the flags given (values checked later by the gate).

    Raises
    ------
    RulesError
        When a flag given applies to none of ``names``, naming the backends it applies to.
    """
    options: dict[str, dict] = {n: {} for n in names}
    for flag, owners in option_flags().items():
        value = getattr(args, "opt_" + flag[2:].replace("-", "_"), None)
        if value is None:
            continue
        chosen = [(n, o) for n, o in owners if n in names]
        if not chosen:
            raise RulesError(f"{flag} applies to backend {' or '.join(n for n, _ in owners)}, "
                             f"not to {', '.join(names)}")
        for n, o in chosen:
            options[n][o.name] = value
    return options


def chosen_backend(args, default: str = "gauss") -> Backend:
    """The backend of ``--strategy NAME`` (a strategy as a backend), of ``--backend`` (else ``default``), or,
    when only ``--solver-cmd`` is given, the ``external`` backend.  Raises UnknownBackendError."""
    if getattr(args, "strategy", None):
        return get_backend(args.strategy)
    if args.backend is None and getattr(args, "opt_solver_cmd", None) is not None:
        return get_backend("external")
    return get_backend(args.backend or default)


def chosen_options(backend: Backend, args) -> dict:
    """The flags given for ``backend`` (for a strategy: the flags of its underlying backend, but not those
    that define a program, which the strategy fixes)."""
    base = backend.base.name if isinstance(backend, StrategyBackend) else backend.name
    options = backend_options([base], args)[base]
    if not isinstance(backend, StrategyBackend):
        return options
    if _without_program(options) != options:
        raise RulesError(f"--solver-cmd and its --solver-* flags define a program; the strategy {backend.name} "
                         f"has its own (give one or the other)")
    return options


def _without_program(options: dict) -> dict:
    return {k: v for k, v in options.items() if k not in strategies.PROGRAM_KEYS}


def add_strategies_file(parser: argparse.ArgumentParser) -> None:
    """``--strategies-file FILE`` (read by :func:`register_programs` before the arguments are parsed)."""
    parser.add_argument("--strategies-file", action="append", metavar="FILE",
                        help="register solver programs as strategies by name: a TOML file, one table per "
                             "program (command with {file}, format; see docs/solvers.md); may be repeated")


def register_programs(args: argparse.Namespace) -> None:
    """Register the programs of ``--strategies-file`` and the ``--solver-cmd`` strategy
    (:data:`~flipgame.backends.strategies.SOLVER_CMD`) from the parsed arguments, before the strategy names
    given are looked up (:func:`strategy_name_problem`).

    Raises
    ------
    FlipgameError
        A strategies file that cannot be read or names a program wrongly, or a bad --solver-cmd.
    """
    for path in getattr(args, "strategies_file", None) or []:
        strategies_file.load(path)
    command = getattr(args, "opt_solver_cmd", None)
    if command is not None:
        strategies_file.solver_cmd_strategy(command, args.opt_solver_format or "cnf", args.opt_solver_answer or "auto",
                                            args.opt_solver_version or "")


def strategy_name_problem(args: argparse.Namespace) -> str | None:
    """Check the strategy names given (``--strategies`` as text, ``--strategy``) against the strategies
    registered now, the programs of the command line's included; ``--strategies`` becomes a list of names.
    Returns argparse's line for a name that is none (``argument --strategies: unknown strategy ...``), or None."""
    text = getattr(args, "strategies", None)
    if isinstance(text, str):
        try:
            args.strategies = strategy_names(text)
        except argparse.ArgumentTypeError as exc:
            return f"argument --strategies: {exc}"
    name = getattr(args, "strategy", None)
    if name is not None and name not in STRATEGIES:
        return (f"argument --strategy: invalid choice: {name!r} (choose from "
                f"{', '.join(map(repr, STRATEGIES))}){_external_hint(name)}")
    return None


def strategy_options(names: Sequence[str], args) -> dict[str, dict]:
    """Per-strategy options from the flags given: each strategy gets its underlying backend's flags.

    Raises
    ------
    RulesError
        When a flag given applies to none of the strategies' backends.
    """
    backends = {n: get_backend(n) for n in names}
    base = {n: b.base.name if isinstance(b, StrategyBackend) else b.name for n, b in backends.items()}
    flags = backend_options(sorted(set(base.values())), args)
    if strategies.SOLVER_CMD not in names and any(_without_program(f) != f for f in flags.values()):
        raise RulesError(f"--solver-cmd and its --solver-* flags define the strategy "
                         f"'{strategies.SOLVER_CMD}': name it in --strategies")
    return {n: _without_program(flags[base[n]]) if isinstance(backends[n], StrategyBackend) else dict(flags[base[n]])
            for n in names}


def writable_path(path: str, what: str) -> str:
    """Check up front that ``path`` can be written (so a long run is not lost at the end).

    Raises RulesError naming the option and the problem.
    """
    if not path:
        raise RulesError(f"{what}: empty file name")
    if os.path.isdir(path):
        raise RulesError(f"{what} {path}: is a directory")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        problem = "is not a folder" if os.path.exists(parent) else "does not exist"
        raise RulesError(f"{what} {path}: {parent} {problem}")
    if os.path.exists(path) and not os.path.isfile(path):
        raise RulesError(f"{what} {path}: not a regular file")
    if not os.access(path if os.path.exists(path) else parent, os.W_OK):
        raise RulesError(f"{what} {path}: not writable")
    existed = os.path.exists(path)
    try:  # the only sure test (root passes os.access on /proc): open it for appending, leave it as it was
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise RulesError(f"{what} {path}: cannot write: {exc.strerror}") from None
    if not existed:
        os.remove(path)
    return path


def writable_folder(path: str, what: str) -> str:
    """Check up front that files can be created in the folder ``path``, made (with its parents) if
    missing, as ``export-suite`` makes its folder.  Raises RulesError."""
    import tempfile

    if os.path.exists(path) and not os.path.isdir(path):
        raise RulesError(f"{what} {path}: not a folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise RulesError(f"{what} {path}: cannot make the folder: {exc.strerror}") from None
    try:
        with tempfile.NamedTemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise RulesError(f"{what} {path}: cannot create files there: {exc.strerror}") from None
    return path


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the command's --help, not the whole usage block."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")

    def command_parser(self, command: str) -> argparse.ArgumentParser:
        """The parser of subcommand ``command`` (this one when it has none)."""
        subparsers = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
        return subparsers[0].choices.get(command, self) if subparsers else self

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but arguments left over are reported by the command that was given them,
        so the message points to that command's --help (``flipgame verify --help``)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            owner = self.command_parser(command) if command else self
            if getattr(parsed, "file", None) not in (None, "-") and not any(e.startswith("-") for e in extras):
                owner.error(f"one input FILE a run, got {len(extras) + 1} ({parsed.file}, {', '.join(extras)}): "
                            f"run {owner.prog} once per file")
            owner.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def write_json(path: str, data: dict, what: str) -> ExitCode:
    """Write ``data`` to ``path`` whole or not at all: a regular file through a temporary file beside
    it, so a full disk leaves no empty or truncated report (the message names the file)."""
    regular = not os.path.exists(path) or os.path.isfile(path)
    try:  # a special file (/dev/stdout) is written in place
        with whole_file(path, encoding="utf-8") if regular else open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
    except OSError as exc:
        return fail(ExitCode.USAGE, f"cannot write {what} {path}: {exc.strerror or exc}")
    return ExitCode.OK

"""``python -m flipgame.cli.docs FILE``: the option tables of ``docs/cli.md``, generated from the parser.

``docs/cli.md`` is prose with generated blocks.  Each block sits between
``<!-- BEGIN GENERATED name -->`` and ``<!-- END GENERATED name -->`` lines and
is rebuilt from the argparse parser of :func:`flipgame.cli.build_parser` (whose
backend flags come from every backend's declared :class:`~flipgame.backends.base.Option`),
so the tables say what ``flipgame COMMAND --help`` says.  Blocks:

- ``commands``: one line per command;
- ``solve``, ``verify``, ``study``, ``bench``: the command's own options;
- ``rule-options``: the rule options that solve, verify and study share;
- ``backend-options``: every backend option flag, the backends it applies to, its default;
- ``exit-codes``: the named exit statuses.

``python -m flipgame.cli.docs docs/cli.md`` rewrites the blocks in place;
``--check`` only compares and exits 1 when the file is out of date
(``tests/test_docs.py`` does the same).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence

from flipgame.cli import build_parser
from flipgame.cli.common import ExitCode, OneLineParser, add_rule_options, option_flags

EXIT_MEANINGS = {
    ExitCode.OK: "all answers agree and every witness checks out",
    ExitCode.DISAGREEMENT: "two backends gave different answers on some board",
    ExitCode.USAGE: "a bad option or malformed input, or an option whose extra is not installed (`--certify`, "
                    "`--scheduler`, `--plot`: the message names the extra)",
    ExitCode.WITNESS_FAILURE: "a press set did not reach the goal it claimed",
    ExitCode.INCOMPLETE: "some answer was `Unknown` (time-out) or an error, or a certification did not finish",
    ExitCode.REFUSED: "a backend declines the board: its size, nullity or model memory is over its limit "
                      "(the message names what takes it), or its library's extra is not installed",
    ExitCode.CERTIFICATION_FAILURE: "a minimality proof was rejected, or a smaller press set exists",
    ExitCode.INTERRUPTED: "Ctrl-C; what finished has been written",
    ExitCode.TERMINATED: "SIGTERM (`timeout`, a batch scheduler): stopped as on Ctrl-C, what finished has been "
                         "written",
}
"""One line per :class:`ExitCode` for the table (a new code without a line fails the generator)."""

BLOCK = re.compile(r"(<!-- BEGIN GENERATED (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- END GENERATED (?P=name) -->)",
                   re.DOTALL)


def _cell(text: str) -> str:
    """Text for one Markdown table cell: whitespace collapsed, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _invocation(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """``--flag METAVAR`` as ``--help`` writes it (the choices in braces when there is no metavar)."""
    return parser._get_formatter()._format_action_invocation(action)  # argparse has no public form of this


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices)


def _key(action: argparse.Action) -> tuple:
    return tuple(action.option_strings), action.help


def _shared_options() -> dict[str, set[tuple]]:
    """The options :func:`add_rule_options` adds, as (option strings, help): the rule options, then the
    backend flags (a command's own ``--size`` or ``--time-limit`` with its own help is not one of them)."""
    rules, both = OneLineParser(add_help=False), OneLineParser(add_help=False)
    add_rule_options(rules, backend_options=False)
    add_rule_options(both)
    rule_keys = {_key(a) for a in rules._actions}
    return {"rule options": rule_keys, "backend options": {_key(a) for a in both._actions} - rule_keys}


def _options_table(parser: argparse.ArgumentParser, actions: Sequence[argparse.Action]) -> str:
    rows = ["| option | meaning |", "|---|---|"]
    rows += [f"| `{_cell(_invocation(parser, a))}` | {_cell(a.help)} |" for a in actions
             if a.help is not argparse.SUPPRESS]  # an alias help does not show (--neighborhood)
    return "\n".join(rows) + "\n"


def _own_actions(parser: argparse.ArgumentParser, excluded: set[tuple]) -> list[argparse.Action]:
    """A command's options and positionals, without -h and the ``excluded`` (option strings, help)."""
    return [a for a in parser._actions
            if not isinstance(a, argparse._HelpAction) and a.help is not argparse.SUPPRESS
            and _key(a) not in excluded]


def command_block(parser: argparse.ArgumentParser) -> str:
    """The table of one command's own options, and which shared option sets it also takes."""
    groups = _shared_options()
    text = _options_table(parser, _own_actions(parser, set().union(*groups.values())))
    keys = {_key(a) for a in parser._actions}
    shared = [name for name, group in groups.items() if group <= keys]
    if shared:
        text += f"\nIt also takes the {' and the '.join(shared)} below.\n"
    if parser.epilog:
        text += f"\n{parser.epilog}\n"
    return text


def commands_block(parser: argparse.ArgumentParser) -> str:
    sub = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)][0]
    rows = ["| command | what it does |", "|---|---|"]
    rows += [f"| `flipgame {a.dest}` | {_cell(a.help)} |" for a in sub._choices_actions]
    return "\n".join(rows) + "\n"


def rule_options_block(parser: argparse.ArgumentParser) -> str:
    solve = _subparsers(parser)["solve"]
    rules = _shared_options()["rule options"]
    return _options_table(solve, [a for a in solve._actions if _key(a) in rules])


def _default(value) -> str:
    return "set per board (see meaning)" if value is None else f"`{value}`"


def backend_options_block() -> str:
    """Every backend flag from the :class:`Option` declarations: backends, meaning, choices, default."""
    rows = ["| flag | backends | meaning | default |", "|---|---|---|---|"]
    for flag, owners in option_flags().items():
        o = owners[0][1]
        values = f" (`{'`, `'.join(map(str, o.choices))}`)" if o.choices else ""
        rows.append(f"| `{flag} {o.name.upper()}` | {', '.join(n for n, _ in owners)} | "
                    f"{_cell(o.help + values)} | {_default(o.default)} |")
    return "\n".join(rows) + "\n"


def exit_codes_block() -> str:
    rows = ["| code | name | meaning |", "|---|---|---|"]
    rows += [f"| {int(c)} | `{c.name}` | {_cell(EXIT_MEANINGS[c])} |" for c in ExitCode]
    return "\n".join(rows) + "\n"


def blocks() -> dict[str, str]:
    """Every generated block by name, as it should read now."""
    parser = build_parser()
    out = {"commands": commands_block(parser)}
    out |= {name: command_block(p) for name, p in _subparsers(parser).items()}
    out |= {"rule-options": rule_options_block(parser), "backend-options": backend_options_block(),
            "exit-codes": exit_codes_block()}
    return out


def render(text: str) -> str:
    """``text`` with every generated block rebuilt.

    Raises
    ------
    KeyError
        When the text names a block this module does not generate.
    """
    fresh = blocks()
    return BLOCK.sub(lambda m: m[1] + fresh[m["name"]] + m[4], text)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m flipgame.cli.docs", description=__doc__.splitlines()[0])
    p.add_argument("file", help="the Markdown file with generated blocks (docs/cli.md)")
    p.add_argument("--check", action="store_true", help="do not write; exit 1 if the file is out of date")
    args = p.parse_args(argv)
    with open(args.file, encoding="utf-8") as fh:
        text = fh.read()
    fresh = render(text)
    if args.check:
        if fresh != text:
            print(f"{args.file} is out of date: run python -m flipgame.cli.docs {args.file}", file=sys.stderr)
            return 1
        return 0
    if fresh != text:
        with open(args.file, "w", encoding="utf-8") as fh:
            fh.write(fresh)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A finding's reproducer folder: everything a solver's authors need, and what ``flipgame fuzz --replay`` reads.

Files:

``finding.json``
    the finding (kind, backend, settings, expected and claimed answers), the instance as it was drawn (seed,
    index) and as shrunk, the time limit, and the versions of every library involved;
``rules.json`` and ``board.txt``
    the shrunk press system (docs/general-game.md's JSON format) and its board, as ``flipgame solve`` reads them;
``replay.sh``
    the exact ``flipgame solve`` command that replays the call, and ``flipgame fuzz --replay`` on the folder;
``instance.*``
    the instance in the solver's own format (:func:`flipgame.encode.export.export`: CNF or XOR-CNF for sat, MPS and
    LP for a MIP, WCNF for MaxSAT, OPB for PB, CP-SAT's text proto), with the solver call in ``README.md``;
``README.md``
    a short report fit for an upstream issue.
"""

from __future__ import annotations

import json
import platform
import shlex
from importlib import metadata
from pathlib import Path

from flipgame.backends.external import is_program
from flipgame.backends.strategies import StrategyBackend
from flipgame.core.errors import FlipgameError
from flipgame.core.limits import FUZZ_REPLAY_MAX_SECONDS
from flipgame.encode.export import export
from flipgame.model.rules import from_json
from flipgame.verify.fuzz.instances import Instance, draw
from flipgame.verify.fuzz.run import Finding
from flipgame.verify.fuzz.settings import as_backend, settings_flags, settings_text

LIBRARIES = ("flipgame", "numpy", "ortools", "python-sat", "pycryptosat", "pyscipopt", "highspy", "exact")
"""Distributions whose versions a reproducer records (those installed)."""
SOLVER_FILES = {"sat": ("xcnf", "cnf"), "cpsat": ("cpsat",), "ilp": ("mps", "lp"), "mip": ("mps", "lp"),
                "maxsat": ("wcnf",), "pb": ("opb",)}
"""The exchange formats written for each backend (others: ``lp``, the plainest statement of the problem)."""
SOLVER_CALLS = {"cnf": "cadical instance.cnf  (or minisat, picosat: SAT iff at most BOUND presses reach a goal)",
                "xcnf": "cryptominisat5 instance.xcnf  (XOR clauses; SAT iff at most BOUND presses reach a goal)",
                "mps": "scip -f instance.mps   or   highs instance.mps   or   cbc instance.mps solve",
                "lp": "scip -f instance.lp   or   highs instance.lp",
                "wcnf": "python -m pysat.examples.rc2 -vv instance.wcnf",
                "opb": "Exact instance.opb   (or any PB solver of the PB competition format)",
                "cpsat": "CP-SAT's CpModelProto in text format: text_format.Parse into cp_model_pb2.CpModelProto, "
                         "then CpSolver().Solve with the parameters of finding.json"}
"""How each exchange format is solved outside flipgame (README.md)."""


def versions() -> dict:
    """Python's and every installed library's version (:data:`LIBRARIES`)."""
    out = {"python": platform.python_version(), "platform": platform.platform()}
    for name in LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def write(folder: Path, finding: Finding, instance: Instance, settings: dict, time_limit: float,
          strategies_files: tuple[str, ...] = ()) -> Path:
    """Write ``finding``'s reproducer for the (shrunk) ``instance`` and ``settings`` into ``folder``; the folder.
    ``strategies_files``: the files that define a strategy fuzzed (named in the commands)."""
    folder.mkdir(parents=True, exist_ok=True)
    system = instance.system
    (folder / "rules.json").write_text(json.dumps(system.to_json()) + "\n", encoding="utf-8")
    (folder / "board.txt").write_text(system.format_board(instance.board) + "\n", encoding="utf-8")
    command = replay_command(finding.backend, settings, time_limit, strategies_files)
    files_words = [w for f in strategies_files for w in ("--strategies-file", str(Path(f).resolve()))]
    command += "\n" + shlex.join(["flipgame", "fuzz", *files_words, "--replay", "."])
    (folder / "replay.sh").write_text(f"#!/bin/sh\n# {finding.kind}: {finding.backend} ({settings_text(settings)})\n"
                                      f"cd \"$(dirname \"$0\")\"\n{command}\n", encoding="utf-8")
    files = _solver_files(folder, finding, instance)
    drawn = draw(finding.seed, finding.index)
    record = {"finding": finding.to_json(), "time_limit": time_limit, "settings": settings,
              "instance": {"seed": finding.seed, "index": finding.index, "family": instance.family,
                           "rules": system.to_json(), "board": system.cells_of(instance.board)},
              "drawn": {"family": drawn.family, "rules": drawn.system.to_json(),
                        "board": drawn.system.cells_of(drawn.board), "settings": finding.settings},
              "command": command, "solver_files": files, "versions": versions()}
    (folder / "finding.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(_readme(finding, instance, settings, command, files), encoding="utf-8")
    return folder


def replay_command(backend: str, settings: dict, time_limit: float, strategies_files: tuple[str, ...] = ()) -> str:
    """The ``flipgame solve`` command line that repeats the call on ``rules.json`` and ``board.txt`` (a strategy of
    a strategies file by ``--strategies-file FILE --strategy NAME``)."""
    b = as_backend(backend)
    files = [w for f in strategies_files for w in ("--strategies-file", str(Path(f).resolve()))]
    chosen = ["--strategy", b.name] if isinstance(b, StrategyBackend) else ["--backend", b.name]
    words = ["flipgame", "solve", *files, "--rules", "rules.json", *chosen, *settings_flags(b, settings)]
    if any(o.name == "time_limit" for o in b.all_options):
        words += ["--time-limit", f"{time_limit:g}"]
    return shlex.join([*words, "board.txt"])


def solver_formats(backend: str) -> tuple[str, ...]:
    """The exchange formats written for ``backend``: a solver program's own (a strategy's ``format``), else
    :data:`SOLVER_FILES`'s, else LP."""
    b = as_backend(backend)
    if is_program(b):
        strategy = getattr(b, "strategy", None)
        return (strategy.options.get("format", "cnf") if strategy else "cnf",)
    return SOLVER_FILES.get(b.name, ("lp",))


def _solver_files(folder: Path, finding: Finding, instance: Instance) -> list[str]:
    """The instance in the backend's exchange formats (those that take this kind of system); file names."""
    out = []
    bound = int(finding.expected) if finding.expected.isdigit() else None
    for fmt in solver_formats(finding.backend):
        try:
            note = f"fuzz finding: {finding.kind} by {finding.backend}; expected {finding.expected or '?'}"
            text = export(fmt, instance.system, instance.board, bound=bound if fmt in ("cnf", "xcnf") else None,
                          notes=[note])
        except (ValueError, FlipgameError):
            continue
        name = f"instance.{'txt' if fmt == 'cpsat' else fmt}"
        (folder / name).write_text(text, encoding="utf-8")
        out.append(name)
    return out


def _readme(finding: Finding, instance: Instance, settings: dict, command: str, files: list[str]) -> str:
    system = instance.system
    calls = "\n".join(f"- `{name}`: {_solver_call(finding.backend, name)}" for name in files)
    if finding.kind in ("crash", "hang", "limit not honoured"):
        what = {"crash": "fails", "hang": "does not answer", "limit not honoured": "answers late"}[finding.kind]
        claim = f"{what} on the instance below"
    else:
        claim = f"answers **{finding.got}** on the instance below" + (
            f", where the answer is **{finding.expected}**" if finding.expected else "")
    return (f"# {finding.kind}: {finding.backend}\n\n"
            f"`flipgame fuzz` (seed {finding.seed}, instance {finding.index}; shrunk from the instance in "
            f"`finding.json`'s `drawn`) found that **{finding.backend}** with settings `{settings_text(settings)}` "
            f"{claim}.\n\n{finding.detail}\n\n"
            f"## The instance ({system.rules})\n\n```\n{json.dumps(system.to_json())}\n```\n\nBoard:\n\n"
            f"```\n{system.format_board(instance.board)}\n```\n\n"
            f"## Replay\n\n```\n{command}\n```\n\n"
            f"## In the solver's own format\n\n{calls or '- (no exchange format takes this kind of system)'}\n\n"
            f"Versions: see `finding.json` (`versions`).\n")


def _solver_call(backend: str, name: str) -> str:
    """How to run the solver on the file ``name``: a program's own command, else the format's usual solvers."""
    b = as_backend(backend)
    command = getattr(getattr(b, "strategy", None), "options", {}).get("command") if is_program(b) else None
    if command:
        return f"`{command.replace('{file}', name)}` (the strategy's own command)"
    fmt = "cpsat" if name.endswith(".txt") else name.split(".", 1)[1]
    return SOLVER_CALLS.get(fmt, "any solver of this format")


def read(folder: Path) -> tuple[Instance, Finding, dict, float]:
    """The instance, finding, settings and time limit of a reproducer folder; FlipgameError if it is not one."""
    path = Path(folder) / "finding.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        inst = record["instance"]
        system = from_json(inst["rules"])
        board = system.board_of(inst["board"])
        finding = Finding(**record["finding"])
        settings, limit = record["settings"], float(record["time_limit"])
        if not isinstance(settings, dict) or not 0 < limit <= FUZZ_REPLAY_MAX_SECONDS:
            raise ValueError(f"settings must be an object and time_limit in (0, {FUZZ_REPLAY_MAX_SECONDS:g}] s")
        as_backend(finding.backend).check_options(settings)
        return (Instance(inst["seed"], inst["index"], "replayed", system, board), finding, settings, limit)
    except OSError as exc:
        raise FlipgameError(f"{path}: cannot read ({exc.strerror}); expected a folder written by flipgame "
                            f"fuzz") from None
    except KeyError as exc:
        if isinstance(exc, FlipgameError):  # an unknown backend: named as the registry names it
            raise FlipgameError(f"{path}: {exc}") from None
        raise FlipgameError(f"{path}: not a flipgame fuzz reproducer (KeyError: {exc})") from None
    except FlipgameError as exc:
        raise FlipgameError(f"{path}: cannot replay: {exc}") from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise FlipgameError(f"{path}: not a flipgame fuzz reproducer ({type(exc).__name__}: {exc})") from None

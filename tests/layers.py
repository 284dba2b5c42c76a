"""The design rules of the package, read from its source: the layer order, no private names across modules, modules
and functions that fit on a screen, and no class privilege for the grid (``isinstance(..., Game)``) outside the
model and the formats.  Used by ``tests/test_layers.py``; shares no code with the package."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"flipgame": ROOT / "solvers", "flipgame.verify": ROOT / "verify"}
"""Where the installed package's modules are in the source tree (``setup.py`` maps these folders)."""

LAYERS = ("core", "model", "algebra", "encode", "backends", "verify.checks", "verify.proofs", "pipeline", "verify.run",
          "verify.fuzz",
          "formats", "study", "bench", "cli")
"""The layers in order: a module imports only from its own layer and the layers before it (docs/architecture.md)."""

MODULE_MAX_LINES = 400
FUNCTION_MAX_CODE_LINES = 50
GAME_ALLOWED = ("model", "formats")
"""The layers where ``isinstance(..., Game)`` may choose what to do (the grid's own code, and how it is drawn)."""


@dataclass(frozen=True)
class Module:
    name: str  # dotted, e.g. flipgame.pipeline.gate
    path: Path
    source: str

    @property
    def layer(self) -> str | None:
        """The layer of the module (``None`` for the package's own ``__init__`` and ``__main__``)."""
        return layer_of(self.name)


def layer_of(name: str) -> str | None:
    """The layer of a dotted module name, or None outside every layer."""
    rest = name.removeprefix("flipgame.")
    for layer in sorted(LAYERS, key=len, reverse=True):
        if rest == layer or rest.startswith(layer + "."):
            return layer
    return None


def modules() -> list[Module]:
    """Every module of the installed package, from the source folders."""
    out = []
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if package == "flipgame" and parts and parts[0] == "verify":
                continue
            out.append(Module(".".join([package, *parts]), path, path.read_text(encoding="utf-8")))
    return out


def imports(source: str, name: str) -> list[tuple[int, str, list[str]]]:
    """``(line, module imported, names imported)`` for every import in ``source`` (relative ones resolved against
    the module ``name``), at any depth (a lazy import inside a function counts)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(name.split(".")[:-node.level] + ([base] if base else []))
            out.append((node.lineno, base, [a.name for a in node.names]))
    return out


def upward_imports(module: Module) -> list[str]:
    """Imports of ``module`` from a later layer, or of the top-level package (which only re-exports)."""
    here = module.layer
    if here is None:
        return []
    found = []
    for line, target, names in imports(module.source, module.name):
        if target == "flipgame":
            found.append(f"{module.name}:{line}: imports the top-level flipgame (import from the module instead)")
            continue
        if not target.startswith("flipgame."):
            continue
        there = layer_of(target) if layer_of(target) else None
        if there is None:  # flipgame.verify, flipgame.cli ... as a package: the names say which module
            there = layer_of(f"{target}.{names[0]}") if names else None
        if there is not None and LAYERS.index(there) > LAYERS.index(here):
            found.append(f"{module.name}:{line}: layer {here} imports {target} of the later layer {there}")
    return found


def private_imports(module: Module) -> list[str]:
    """``from other_module import _private``: a private name used across modules."""
    return [f"{module.name}:{line}: imports the private {n} from {target}"
            for line, target, names in imports(module.source, module.name)
            if target.startswith("flipgame") and target != module.name
            for n in names if n.startswith("_") and not n.startswith("__")]


def code_lines(node: ast.AST, lines: list[str]) -> int:
    """Lines of a function's body after its docstring, without blank and comment-only lines."""
    body = node.body
    start = body[0].lineno
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value,
                                                                                                str):
        start = body[0].end_lineno + 1
    return sum(1 for i in range(start, node.end_lineno + 1) if lines[i - 1].strip()
               and not lines[i - 1].strip().startswith("#"))


def long_functions(module: Module) -> list[str]:
    lines = module.source.splitlines()
    return [f"{module.name}:{node.lineno}: {node.name} has {n} lines of code (at most {FUNCTION_MAX_CODE_LINES})"
            for node in ast.walk(ast.parse(module.source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and (n := code_lines(node, lines)) > FUNCTION_MAX_CODE_LINES]


def long_module(module: Module) -> list[str]:
    n = len(module.source.splitlines())
    return [f"{module.name}: {n} lines (at most {MODULE_MAX_LINES})"] if n > MODULE_MAX_LINES else []


def game_privilege(module: Module) -> list[str]:
    """``isinstance(x, Game)`` (alone or in a tuple) outside :data:`GAME_ALLOWED`."""
    if module.layer in GAME_ALLOWED:
        return []
    out = []
    for node in ast.walk(ast.parse(module.source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            if any(getattr(k, "id", getattr(k, "attr", None)) == "Game" for k in kinds):
                out.append(f"{module.name}:{node.lineno}: isinstance(..., Game) outside {' and '.join(GAME_ALLOWED)}")
    return out


RULES = (upward_imports, private_imports, long_module, long_functions, game_privilege)
"""Every rule; each takes a module and gives one line per breach."""


def breaches(mods: list[Module] | None = None) -> list[str]:
    return [line for m in (mods if mods is not None else modules()) for rule in RULES for line in rule(m)]

"""The design rules hold on the package's own source, and each rule catches a planted breach."""

from __future__ import annotations

from layers import LAYERS, Module, breaches, layer_of, modules


def _module(name: str, source: str) -> Module:
    return Module(name, None, source)


def test_the_package_keeps_every_design_rule():
    found = breaches()
    assert not found, "\n".join(found)


def test_every_module_is_in_a_layer():
    unplaced = [m.name for m in modules() if m.layer is None and m.name not in ("flipgame", "flipgame.__main__",
                                                                               "flipgame.verify")]
    assert not unplaced
    assert layer_of("flipgame.verify.checks.referee") == "verify.checks" and LAYERS.index("pipeline") > LAYERS.index(
        "verify.proofs")


def test_an_upward_import_is_caught():
    planted = _module("flipgame.model.planted", "from flipgame.pipeline.gate import solve\n")
    lazy = _module("flipgame.algebra.planted", "def f():\n    from flipgame.cli import main\n")
    assert [len(breaches([m])) for m in (planted, lazy)] == [1, 1]
    assert "layer model imports flipgame.pipeline.gate of the later layer pipeline" in breaches([planted])[0]
    assert not breaches([_module("flipgame.cli.planted", "from flipgame.pipeline.gate import solve\n")])


def test_the_top_level_package_is_not_imported_from_inside():
    assert breaches([_module("flipgame.study.planted", "from flipgame import solve\n")])


def test_a_private_name_across_modules_is_caught():
    assert breaches([_module("flipgame.cli.planted", "from flipgame.pipeline.gate import _hidden\n")])


def test_a_401_line_module_is_caught():
    assert breaches([_module("flipgame.core.planted", "x = 1\n" * 401)])
    assert not breaches([_module("flipgame.core.planted", "x = 1\n" * 400)])


def test_a_51_line_function_is_caught():
    body = "".join(f"    x{i} = {i}\n" for i in range(51))
    assert breaches([_module("flipgame.core.planted", f'def f():\n    """Doc."""\n{body}')])
    assert not breaches([_module("flipgame.core.planted", f'def f():\n    """Doc."""\n{body[:-12]}')])


def test_isinstance_game_outside_the_model_and_formats_is_caught():
    source = "from flipgame.model.grid import Game\n\ndef f(g):\n    return isinstance(g, (int, Game))\n"
    assert breaches([_module("flipgame.study.planted", source)])
    assert not breaches([_module("flipgame.formats.planted", source)])

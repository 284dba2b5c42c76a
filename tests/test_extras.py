"""A feature whose extra is not installed refuses in one line naming it, and the rest goes on: the library's
absence is simulated (flipgame.core.extras.installed), so these run on any install."""

from __future__ import annotations

import pytest
from conftest import POJ_SAMPLE

import flipgame
from flipgame.cli import ExitCode, main
from flipgame.core import extras


@pytest.fixture
def without(monkeypatch):
    """Make the optional libraries named look absent."""
    def hide(*modules: str) -> None:
        real = extras.installed
        monkeypatch.setattr(extras, "installed", lambda m: m not in modules and real(m))

    return hide


@pytest.mark.parametrize(("module", "backend", "options", "words"), [
    ("pycryptosat", "sat", {}, "sat engine xor needs pycryptosat: pip install 'flipgame[xor]' (--sat-engine cnf"),
    ("pyscipopt", "mip", {}, "backend mip needs pyscipopt: pip install 'flipgame[mip]'"),
    ("highspy", "mip", {"solver": "highs"}, "backend mip needs highspy: pip install 'flipgame[mip]'"),
    ("exact", "pb", {}, "backend pb needs exact: pip install 'flipgame[pb]'"),
])
def test_a_backend_without_its_library_refuses_naming_the_extra(without, module, backend, options, words):
    without(module)
    with pytest.raises(extras.ExtraMissingError) as caught:
        flipgame.solve(POJ_SAMPLE, backend, **options)
    assert str(caught.value) == words or str(caught.value).startswith(words)


def test_the_defaults_pick_what_is_installed(without, capsys, tmp_path):
    without("pycryptosat", "pyscipopt")
    assert flipgame.solve(POJ_SAMPLE, "sat", engine="cnf").moves == 4  # python-sat, in the core
    assert flipgame.solve(POJ_SAMPLE, "ilp").moves == 4  # OR-Tools' own SCIP
    lit = flipgame.Game(19, 19, "white")
    assert flipgame.solve(lit.full, "auto", game=lit).moves == 141  # A075464 a(19), by gauss
    code = main(["verify", "--size", "3x3", "--jobs", "1", "--report", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == ExitCode.OK and "flipgame: skipping sat: sat engine xor needs pycryptosat" in err


@pytest.mark.parametrize(("module", "argv", "words"), [
    ("dratify", ["solve", "--certify"], "--certify (checked DRAT proofs) needs dratify: pip install 'flipgame[proofs"),
    ("distributed", ["verify", "--size", "2x2", "--scheduler", "local:1"], "--scheduler needs distributed: pip"),
    ("matplotlib", ["study", "--size", "3x3", "--plot", "{tmp}/p.png"], "--plot needs matplotlib: pip install"),
])
def test_a_feature_without_its_library_is_one_line(without, capsys, tmp_path, monkeypatch, module, argv, words):
    import io
    import sys

    without(module)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"bwwb\nbbwb\nbwwb\nbwww\n")))
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv + ["--report", str(tmp_path / "r.json")]]
                if argv[0] == "verify" else [a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert code != ExitCode.OK and words in err and err.count("\n") <= 2, err


def test_the_long_minimum_without_numba_names_the_extra(without):
    without("numba")
    board = flipgame.Game(39, 39).full
    with pytest.raises(extras.ExtraMissingError, match=r"needs numba: pip install 'flipgame\[fast\]'"):
        flipgame.solve(board, game=flipgame.Game(39, 39, "white"))

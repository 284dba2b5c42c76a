"""Every module's docstring examples, run against the installed ``flipgame`` (not the source
folders), so the wheel's own doctests are what ``make test`` checks."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import flipgame
import flipgame.verify

# flipgame.verify is installed from another folder (verify/), so walking flipgame's own path misses it.
MODULES = sorted(m.name for package in (flipgame, flipgame.verify)
                 for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
                 if m.name != "flipgame.__main__")


@pytest.mark.parametrize("name", ["flipgame", *MODULES])
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed in {name}"

"""Every module's docstring examples, run against the installed ``flipgame`` (not the source
folders), so the wheel's own doctests are what ``make test`` checks."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest
from conftest import need

import flipgame
import flipgame.verify

# flipgame.verify is installed from another folder (verify/), so walking flipgame's own path misses it.
MODULES = sorted(m.name for package in (flipgame, flipgame.verify)
                 for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
                 if m.name != "flipgame.__main__")


NEEDS = {"flipgame.backends.auto": "pycryptosat", "flipgame.backends.sat": "pycryptosat",
         "flipgame.backends.mip": "pyscipopt", "flipgame.backends.pb": "exact",
         "flipgame.backends.sat_engines": "pycryptosat", "flipgame.algebra.wht_blocked": "numba",
         "flipgame.algebra.coset_run": "numba", "flipgame.study.cover_bound": "highspy"}
"""The modules whose examples run a backend or a kernel of an extra (:mod:`flipgame.core.extras`)."""


@pytest.mark.parametrize("name", ["flipgame", *MODULES])
def test_doctests(name):
    if name in NEEDS:
        need(NEEDS[name])
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed in {name}"

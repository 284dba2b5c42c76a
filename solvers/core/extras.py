"""The optional parts of flipgame: which extra brings which library, whether it is installed, and the one line a
feature says when it is not.

A core install (``pip install flipgame``) is numpy, OR-Tools and python-sat: every default backend answers
with it.  Each extra brings what one feature needs (``pip install 'flipgame[fast]'``, or ``[all]``):

====================  ======================================  =============================================
extra                 libraries                               what it brings
====================  ======================================  =============================================
``fast``              numba                                   gauss's minimum above nullity 22 (compiled)
``xor``               pycryptosat                             the sat backend's native XOR engine
``proofs``            dratify, cdclkit                        ``--certify``: DRAT proofs checked
``mip``               pyscipopt, highspy                      the ``mip`` backend; the covering LP bound
``pb``                exact                                   the ``pb`` backend (Exact)
``study``             matplotlib, benchexec, scipy            the study's figures; runs measured by BenchExec
                                                              (cgroups); paired statistics in ``--html``
``dask``              dask[distributed]                       ``--scheduler`` (a Dask cluster)
``progress``          tqdm                                    progress bars on a terminal
====================  ======================================  =============================================

:func:`installed` looks a library up without importing it (``importlib.util.find_spec``, cached);
:func:`missing` is the refusal line; :func:`require` imports or raises :class:`ExtraMissingError`.

>>> EXTRA_OF["numba"], missing("pycryptosat", "the sat engine xor")
('fast', "the sat engine xor needs pycryptosat: pip install 'flipgame[xor]'")
"""

from __future__ import annotations

import importlib
import importlib.util
from functools import cache
from types import ModuleType

from flipgame.core.errors import RefusedError

EXTRA_OF = {"numba": "fast", "pycryptosat": "xor", "dratify": "proofs", "cdclkit": "proofs", "pyscipopt": "mip",
            "highspy": "mip", "exact": "pb", "matplotlib": "study", "benchexec": "study", "scipy": "study",
            "distributed": "dask", "tqdm": "progress"}
"""Each optional library (its import name) and the extra that installs it."""


class ExtraMissingError(RefusedError):
    """A feature whose library is not installed; the message names the extra that brings it."""

    about_the_board = False


@cache
def installed(module: str) -> bool:
    """True if ``module`` can be imported (found on the path; not imported).  Cached: O(1) after the first."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing(module: str, what: str) -> str:
    """The one line of ``what`` refused because ``module`` is not installed, naming its extra."""
    return f"{what} needs {module}: pip install 'flipgame[{EXTRA_OF[module]}]'"


def require(module: str, what: str) -> ModuleType:
    """``module`` imported, or :class:`ExtraMissingError` with :func:`missing`'s line."""
    if not installed(module):
        raise ExtraMissingError(missing(module, what))
    return importlib.import_module(module)

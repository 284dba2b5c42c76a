"""The backend registry: :data:`BACKENDS` maps a backend name to its
:class:`~flipgame.backends.base.Backend`.

The CLI's ``--backend`` choices and flags, the verification harness, the
study and the tests all read it.  This module imports no concrete backend:
:mod:`flipgame.gate.session` registers the built-in ones, so a backend that looks
others up (``auto``, the strategies) depends on this table only, never on the
gate above it.  Adding a backend is one module with a
:class:`~flipgame.backends.base.Backend` subclass and one :func:`register` call.

>>> from flipgame import BACKENDS
>>> list(BACKENDS)[:2]
['gauss', 'bfs']
"""

from __future__ import annotations

from flipgame.backends.base import Backend
from flipgame.core.errors import FlipgameError, OptionError, UnknownBackendError
from flipgame.model.grid import Game

BACKENDS: dict[str, Backend] = {}
"""Backend name -> backend, in the order the CLI lists them."""

ALIASES: list = []
"""Lookups tried, in order, for a name that is no backend: each a callable ``name -> Backend`` that
raises KeyError for a name it does not know.  :mod:`flipgame.backends.strategies` adds one, so a strategy's
name runs its backend with its options, without this module importing the layer above it."""


def register(backend: Backend) -> Backend:
    """Add ``backend`` to :data:`BACKENDS` under its name (replacing one of that name).  Raises
    OptionError for anything that is not a :class:`~flipgame.backends.base.Backend`."""
    if not isinstance(backend, Backend):
        raise OptionError(f"register takes a Backend (an instance of a subclass), got {backend!r:.40}")
    BACKENDS[backend.name] = backend
    return backend


def get_backend(name: str) -> Backend:
    """The registry entry for ``name``.

    Raises
    ------
    UnknownBackendError
        Naming every valid backend.
    """
    if name in BACKENDS:
        return BACKENDS[name]
    for alias in ALIASES:
        try:
            return alias(name)
        except KeyError:
            continue
    raise UnknownBackendError(f"unknown backend {name!r}; valid backends: {', '.join(BACKENDS)}")


def taken_by(game: Game, skip: str = "") -> list[str]:
    """The registered backends that take ``game`` (goal normalised) with their default options,
    ``skip`` left out: the hint a refusal gives.  Each backend answers its own
    :meth:`~flipgame.backends.base.Backend.refusal`; O(1) for most, auto may run the (cached) elimination.

    >>> taken_by(Game(40, 40, "white"), skip="gauss")
    ['cpsat', 'sat', 'ilp', 'auto']
    """
    names = []
    for name, backend in BACKENDS.items():
        if name == skip or not backend.by_default:  # opt-in backends (external programs) are not hints
            continue
        try:
            backend.accept(game, {})
        except FlipgameError:
            continue
        names.append(name)
    return names

"""The one registry: every backend (:data:`BACKENDS`) and every strategy (:data:`STRATEGIES`) by name.

The built-in backends and strategies are listed here, where the tables are, and nowhere else; a
strategy registered at run time (a ``--strategies-file`` table, ``--solver-cmd``) joins
:data:`STRATEGIES` through :func:`register_strategy`.  The CLI's ``--backend`` and ``--strategy``
choices and flags, the pipeline, the agreement run, the study and the tests all read these tables.
:func:`get_backend` resolves a name to a backend: a backend's own, else a strategy's, seen as a backend
(:class:`~flipgame.backends.strategies.StrategyBackend`) with its options fixed.

Adding a backend is one module with a :class:`~flipgame.backends.base.Backend` subclass and one line
in :data:`BUILTIN_BACKENDS` (or :func:`register` at run time); ``docs/TEMPLATE.py`` is a module to
start from.  Heavy solver libraries are imported inside each backend's model only, so importing this
module loads none of them.

>>> list(BACKENDS)[:2]
['gauss', 'bfs']
>>> get_backend("sat-xor-binary").strategy.options["descent"]
'binary'
"""

from __future__ import annotations

from flipgame.backends import auto, bfs, cpsat, external, gauss, ilp, maxsat, mip, pb, sat
from flipgame.backends.base import Backend
from flipgame.backends.strategies import BUILTIN, Strategy, StrategyBackend
from flipgame.core.errors import FlipgameError, OptionError, UnknownBackendError
from flipgame.core.limits import HINT_SECONDS
from flipgame.model.system import PressSystem

BUILTIN_BACKENDS: tuple[Backend, ...] = (
    gauss.Gauss(), bfs.Bfs(), cpsat.CpSat(), sat.Sat(), ilp.Ilp(), auto.Auto(), external.External(),
    maxsat.MaxSat(), pb.Pb(), mip.Mip(),
)
"""The backends flipgame defines, in the order the CLI lists them."""

BACKENDS: dict[str, Backend] = {b.name: b for b in BUILTIN_BACKENDS}
"""Backend name -> backend, in the order the CLI lists them."""

STRATEGIES: dict[str, Strategy] = dict(BUILTIN)
"""Strategy name -> strategy, in the order the study lists them: the built-in ones
(:data:`flipgame.backends.strategies.BUILTIN`), then those registered at run time."""

_AS_BACKEND: dict[str, StrategyBackend] = {}
"""Each strategy seen as a backend, made on first use (and again when its name is registered anew)."""


def register(backend: Backend) -> Backend:
    """Add ``backend`` to :data:`BACKENDS` under its name (replacing one of that name).  Raises
    OptionError for anything that is not a :class:`~flipgame.backends.base.Backend`."""
    if not isinstance(backend, Backend):
        raise OptionError(f"register takes a Backend (an instance of a subclass), got {backend!r:.40}")
    BACKENDS[backend.name] = backend
    return backend


def is_builtin(backend: Backend) -> bool:
    """True if ``backend`` (or the backend a strategy runs) is one of :data:`BUILTIN_BACKENDS`, whose answers
    the test suite checks; one registered at run time is checked by ``flipgame solve`` as a program's claim."""
    base = getattr(backend, "base", backend)
    return any(base is b for b in BUILTIN_BACKENDS)


def register_strategy(strategy: Strategy) -> Strategy:
    """Add ``strategy`` to :data:`STRATEGIES` (replacing one of that name)."""
    STRATEGIES[strategy.name] = strategy
    return strategy


def strategy_backend(name: str) -> StrategyBackend:
    """The strategy ``name`` as a backend (cached).  Raises KeyError for an unknown strategy."""
    strategy = STRATEGIES[name]
    cached = _AS_BACKEND.get(name)
    if cached is None or cached.strategy is not strategy:  # new, or registered again under that name
        cached = _AS_BACKEND[name] = StrategyBackend(strategy, BACKENDS[strategy.backend])
    return cached


def get_backend(name: str) -> Backend:
    """The backend named ``name``, or the strategy of that name seen as a backend.

    Raises
    ------
    UnknownBackendError
        Naming every valid backend.
    """
    if name in BACKENDS:
        return BACKENDS[name]
    if name in STRATEGIES:
        return strategy_backend(name)
    raise UnknownBackendError(f"unknown backend {name!r}; valid backends: {', '.join(BACKENDS)}")


def get_strategy(name: str) -> Strategy:
    """The strategy named ``name``.  Raises UnknownBackendError listing the valid strategies."""
    if name in STRATEGIES:
        return STRATEGIES[name]
    raise UnknownBackendError(f"unknown strategy {name!r:.40}; valid strategies: {', '.join(STRATEGIES)}")


def taken_by(game: PressSystem, skip: str = "") -> list[str]:
    """The registered backends that take ``game`` (goal normalised) with their default options,
    ``skip`` left out: the hint a refusal gives.  Each backend answers its own
    :meth:`~flipgame.backends.base.Backend.refusal`; O(1) for most, auto may run the (cached) elimination.

    >>> from flipgame import Game
    >>> taken_by(Game(3, 3, "0", states=3), skip="gauss")
    ['bfs', 'cpsat', 'ilp', 'auto']
    """
    names = []
    for name, backend in BACKENDS.items():
        if name == skip or not backend.by_default:  # opt-in backends (external programs) are not hints
            continue
        limited = {"time_limit": HINT_SECONDS} if "time_limit" in {o.name for o in backend.all_options} else {}
        try:
            backend.accept(game, limited)  # auto's plan may run the algebra: briefly
        except FlipgameError:
            continue
        names.append(name)
    return names

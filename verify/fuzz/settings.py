"""The fuzzer's solver settings: each backend declares what may vary (``Option.fuzz``); a run draws one setting.

A backend's options with a ``fuzz`` domain (:class:`flipgame.backends.base.Option`) are the only ones drawn:
encodings and formulations, CP-SAT, SCIP and HiGHS parameters, CryptoMiniSat or a python-sat solver and its
cardinality encoding, the MaxSAT oracle.  Each is left at its default one time in two (so the defaults are
fuzzed too); a ``fuzz_many`` option (solver parameters) draws a subset of up to :data:`MAX_PARAMETERS`.
Nothing drawn changes the question: the domains hold no gap, stop or limit (the backends refuse those).
"""

from __future__ import annotations

from flipgame.backends.base import Backend
from flipgame.backends.registry import get_backend
from flipgame.backends.strategies import StrategyBackend
from flipgame.core.errors import OptionError

MAX_PARAMETERS = 4
"""The most solver parameters drawn together for one call."""


def as_backend(backend: str | Backend) -> Backend:
    """The backend (or strategy) of that name, or the backend itself."""
    return backend if isinstance(backend, Backend) else get_backend(backend)


def fuzzed_options(backend: str | Backend) -> dict:
    """The options of ``backend`` the fuzzer varies, by name: the option objects (:attr:`Option.fuzz_values`).
    A strategy's own fixed options are never varied (that would be another strategy)."""
    b = as_backend(backend)
    fixed = b.strategy.options if isinstance(b, StrategyBackend) else {}
    return {o.name: o for o in b.all_options if o.fuzz_values and o.name not in fixed}


def draw_settings(backend: str | Backend, rng) -> dict:
    """A random setting of ``backend``'s fuzzed options (only those not left at the default), e.g.
    ``{"params": "linearization_level:2 symmetry_level:0"}`` for cpsat."""
    out = {}
    for name, option in fuzzed_options(backend).items():
        if rng.random() < 0.5:
            continue
        values = option.fuzz_values
        if option.fuzz_many:
            size = int(rng.integers(1, min(MAX_PARAMETERS, len(values)) + 1))
            out[name] = " ".join(str(values[i]) for i in sorted(rng.choice(len(values), size=size, replace=False)))
        else:
            out[name] = values[int(rng.integers(len(values)))]
    return _consistent(backend, out)


def _consistent(backend: str | Backend, settings: dict) -> dict:
    """``settings`` without those the backend refuses together (``sat``'s solver with the xor engine): the option
    the refusal names goes first, else the last drawn."""
    b = as_backend(backend)
    while settings:
        try:
            b.check_options(settings)
            return settings
        except OptionError as exc:
            named = [k for k in settings if f"option {k} " in str(exc)] or list(settings)[-1:]
            settings = {k: v for k, v in settings.items() if k != named[0]}
    return settings


def settings_flags(backend: str | Backend, settings: dict) -> list[str]:
    """``settings`` as the command-line flags of ``flipgame solve`` (e.g. ``["--cpsat-params", "..."]``)."""
    options = {o.name: o for o in as_backend(backend).all_options}
    out = []
    for name, value in settings.items():
        flag = options[name].cli_flag
        if options[name].parse is bool:
            out += [flag] if value else []
        else:
            out += [flag, str(value)]
    return out


def settings_text(settings: dict) -> str:
    """``settings`` in one line (``default`` when empty), e.g. ``engine=cnf solver=cadical153``."""
    return " ".join(f"{k}={v!r}" if " " in str(v) else f"{k}={v}" for k, v in settings.items()) or "default"

"""Strategies: named backend variants (a backend and fixed options); the built-in ones in :data:`BUILTIN`.

A strategy is what the study compares and what the ``auto`` backend picks
from: ``sat-xor-binary`` is the ``sat`` backend with ``engine="xor"`` and
``descent="binary"``.  Whether a strategy takes a rule set is the backend's own
answer (:meth:`flipgame.backends.base.Backend.accept`), so a strategy never claims
boards its backend would refuse.  Solving a board by a strategy from outside
goes through the pipeline (:func:`flipgame.pipeline.gate.solve_strategy`); the ``auto``
backend, below it, runs its strategies with :meth:`Strategy.run`.  The built-in
strategies are :data:`BUILTIN`; the one table of every strategy, those registered at run
time included, is :data:`flipgame.backends.registry.STRATEGIES`.

>>> from flipgame import Game
>>> BUILTIN["sat-xor-binary"].options["descent"]
'binary'
>>> BUILTIN["gauss-chase"].applies(Game(5, 5, wrap=True))
False
>>> BUILTIN["bfs"].refusal(Game(6, 6)) is not None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from flipgame.backends.base import Backend
from flipgame.backends.result import BatchSolution, Solution
from flipgame.core.errors import RefusedError, RulesError
from flipgame.model.system import PressSystem


@dataclass(frozen=True)
class Strategy:
    """A backend with fixed options.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``sat-xor-binary``.
    backend : str
        A key of :data:`flipgame.BACKENDS`.
    options : Mapping
        Keyword options for that backend (validated by the gate on each call).
    summary : str
        One line: the method and what the options change.
    """

    name: str
    backend: str
    options: Mapping[str, object] = field(default_factory=dict)
    summary: str = ""

    def __post_init__(self):
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))

    def __reduce__(self):
        """Pickled with its options as a plain dict (a ``mappingproxy`` does not pickle): a strategy travels to
        a worker process, registered or not."""
        return type(self), (self.name, self.backend, dict(self.options), self.summary)

    @property
    def method(self) -> Backend:
        """The registered backend this strategy runs (:data:`flipgame.backends.registry.BACKENDS`)."""
        from flipgame.backends.registry import BACKENDS  # the registry imports this module: looked up at call time

        return BACKENDS[self.backend]

    @property
    def timed(self) -> bool:
        """True if the backend declares a ``time_limit`` option (gauss and bfs do not: they are bounded
        by their own refusals, nullity and table size)."""
        return any(o.name == "time_limit" for o in self.method.options)

    def call_options(self, time_limit: float | None = None, **extra) -> dict:
        """The options for one call: the strategy's, ``time_limit`` if the backend takes one, and ``extra``."""
        opts = {**self.options, **extra}
        if time_limit is not None and self.timed:
            opts["time_limit"] = time_limit
        return opts

    def declared(self, options: Mapping[str, object]) -> dict:
        """The entries of ``options`` the backend declares: what a portfolio (``auto``) passes on of its own."""
        names = {o.name for o in self.method.all_options}
        return {k: v for k, v in options.items() if k in names}

    def refusal(self, game: PressSystem, **extra) -> str | None:
        """Why the strategy does not take ``game`` (its backend's refusal or an option error), or None.

        O(1) for the model backends and bfs; gauss may run the (cached) elimination's size checks.
        """
        try:
            self.method.accept(game.normal, self.call_options(**extra))
        except (RefusedError, RulesError) as exc:
            return str(exc)
        return None

    def applies(self, game: PressSystem) -> bool:
        """True if the strategy takes the rules ``game`` (see :meth:`refusal`)."""
        return self.refusal(game) is None

    def run(self, game: PressSystem, board: int, time_limit: float | None = None, **extra) -> Solution:
        """One board by the backend itself, for a caller below the gate (``auto``): ``game``'s goal
        must be ``any``, ``white`` or ``black``, and no certificates are attached.

        Raises
        ------
        OptionError, RefusedError
            As :meth:`flipgame.backends.base.Backend.accept`.
        """
        options = self.method.accept(game, self.call_options(time_limit, **extra))
        return self.method.solve(game, board, **options)


BUILTIN: dict[str, Strategy] = {s.name: s for s in (
    Strategy("gauss", "gauss", {}, "GF(2) elimination (dense, or light chasing above 1024 plus cells), then "
             "the minimum over the null space"),
    Strategy("gauss-chase", "gauss", {"method": "chase"}, "light chasing only (plus neighbourhood, no wrap)"),
    Strategy("sat-xor", "sat", {"engine": "xor"}, "CryptoMiniSat, native XOR clauses, linear descent"),
    Strategy("sat-xor-binary", "sat", {"engine": "xor", "descent": "binary"}, "CryptoMiniSat, binary search on "
             "the bound"),
    Strategy("sat-xor-kmtotalizer", "sat", {"engine": "xor", "cardinality": "kmtotalizer"},
             "CryptoMiniSat, k-modulo totalizer bound"),
    Strategy("sat-xor-seqcounter", "sat", {"engine": "xor", "cardinality": "seqcounter"},
             "CryptoMiniSat, sequential-counter bound"),
    Strategy("sat-cnf-minisat", "sat", {"engine": "cnf", "solver": "minisat22"}, "MiniSat 2.2, XOR cut into CNF"),
    Strategy("sat-cnf-glucose", "sat", {"engine": "cnf", "solver": "glucose4"}, "Glucose 4, XOR cut into CNF"),
    Strategy("cpsat", "cpsat", {}, "OR-Tools CP-SAT as the backend runs it (chase formulation on plus boards "
             "without wrap, XOR constraints otherwise), 1 worker"),
    Strategy("cpsat-xor", "cpsat", {"formulation": "xor"}, "CP-SAT, one XOR constraint per cell at every size"),
    Strategy("cpsat-linear", "cpsat", {"formulation": "linear"}, "CP-SAT, linear rows with a slack"),
    Strategy("cpsat-2workers", "cpsat", {"workers": 2}, "CP-SAT as the backend runs it, 2 workers"),
    Strategy("ilp-scip", "ilp", {"solver": "SCIP"}, "MIP, SCIP"),
    Strategy("ilp-highs", "ilp", {"solver": "HIGHS"}, "MIP, HiGHS"),
    Strategy("bfs", "bfs", {}, "breadth-first distance table over all 2**n boards"),
    Strategy("rc2", "maxsat", {"solver": "g3"}, "MaxSAT: pysat's RC2 (Glucose 3) over the WCNF"),
    Strategy("exact", "pb", {}, "PB: Exact over the OPB model, board bits as assumptions"),
    Strategy("scip-direct", "mip", {"solver": "scip"}, "MIP, SCIP through PySCIPOpt, a persistent model"),
    Strategy("highs-direct", "mip", {"solver": "highs"}, "MIP, HiGHS through highspy, a persistent model"),
    # External programs (Debian packages), each on an exported file; SAT ones descend over the bound.
    Strategy("cadical", "external", {"command": "cadical -q {file}", "format": "cnf",
                                     "version": "cadical --version"},
             "CaDiCaL (program) on DIMACS CNF, descent over the bound"),
    Strategy("cryptominisat5", "external", {"command": "cryptominisat5 --verb 0 {file}", "format": "xcnf",
                                            "version": "cryptominisat5 --version"},
             "CryptoMiniSat 5 (program) on CNF-XOR, descent over the bound"),
    Strategy("minisat", "external", {"command": "minisat -verb=0 {file} {out}", "format": "cnf",
                                     "version": "dpkg-query -W -f=${Version} minisat"},
             "MiniSat (program) on DIMACS CNF, result file, descent over the bound"),
    Strategy("picosat", "external", {"command": "picosat {file}", "format": "cnf", "version": "picosat --version"},
             "PicoSAT (program) on DIMACS CNF, descent over the bound"),
    Strategy("cbc", "external", {"command": "cbc {file} -cuts off solve solu {out}", "format": "mps",
                                 "version": "cbc -quit"},
             "COIN-OR CBC (program) on the MPS, no cuts (they cost more than they save on these models), its "
             "solution file"),
)}
"""The strategies flipgame itself defines, in the order the study lists them (a strategies file may not
reuse their names)."""

EXTERNAL = ("cadical", "cryptominisat5", "minisat", "picosat", "cbc")
"""The strategies that run a Debian package's program."""
PROGRAM_KEYS = ("command", "format", "answer", "version")
"""The ``external`` options that define a program: a strategy fixes them, a flag does not change them."""
SOLVER_CMD = "external"
"""The strategy name of ``--solver-cmd`` (``study --strategies gauss,external --solver-cmd ...``)."""


class StrategyBackend(Backend):
    """A strategy seen as a backend named after it: its backend with its options fixed underneath the
    caller's (``verify --strategies``, ``solve --strategy``).  Answers carry the underlying backend's name."""

    by_default = False

    def __init__(self, strategy: Strategy, base: Backend):
        self.strategy = strategy
        self.base = base
        self.name = strategy.name
        self.summary = strategy.summary
        self.parallel = self.base.parallel
        self.max_cells = self.base.max_cells
        self.options = self.base.options
        self.takes = self.base.takes

    def missing_library(self, options: dict) -> str | None:
        return self.base.missing_library(options)

    def check_options(self, options: dict) -> dict:
        return self.base.check_options({**self.strategy.options, **options})

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        return self.base.refusal(game, options)

    def refusal_error(self, game: PressSystem, options: dict) -> type[Exception]:
        return self.base.refusal_error(game, options)

    def solve(self, game: PressSystem, board: int, **options) -> Solution:
        return self.base.solve(game, board, **options)

    def solve_batch(self, game: PressSystem, boards: np.ndarray, **options) -> BatchSolution:
        return self.base.solve_batch(game, boards, **options)

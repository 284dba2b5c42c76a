"""``sat``: parity constraints and a cardinality bound, minimised by repeated SAT calls.

Encoding.  Variables (numbered by pysat's ``IDPool``): ``press_j`` (n),
``cell_i`` (n, the board, set by assumptions), ``t`` (goal colour black; a
unit clause when the goal fixes it) and auxiliaries.  Cell ``i`` ends at
colour ``t`` iff ``XOR(press_j : press j flips i) ^ cell_i ^ t = 0``.  Two
engines (option ``engine``):

``xor`` (default)
    CryptoMiniSat 5 through ``pycryptosat``, with each parity as a native XOR
    clause and Gauss-Jordan elimination during search (Soos, Nohl & Castelluccia,
    SAT 2009; Soos & Meel, AAAI 2019).  Measured on an 18x18 board with a unique
    solution: the optimum proved in 0.2 s, where CNF-cut XOR with CaDiCaL took
    243 s.
``cnf``
    A python-sat solver (option ``solver``) with each XOR cut into pieces of at
    most :data:`~flipgame.encode.parity.XOR_PIECE` literals linked by auxiliaries; each piece of ``k``
    literals is the ``2**(k-1)`` clauses forbidding its wrong-parity assignments.

Minimisation.  The first model found gives an upper bound ``w``; the
cardinality constraint "at most ``w - 1`` presses" is then built for that
bound only (never for ``n``), with the encoding of option ``cardinality``:
``totalizer`` (incremental, ``pysat.card.ITotalizer``, Martins et al., CP
2014, extended when a later board needs a larger bound) or one of pysat's
``CardEnc`` encodings (``kmtotalizer``, ``mtotalizer``, ``seqcounter``,
``cardnetwrk``, ``sortnetwrk``), each guarded by a fresh selector literal.
``descent`` orders the calls: ``linear`` (SAT-UNSAT: ask for one press fewer
than the last model until UNSAT) or ``binary`` (bisect between 0 and the
last model's weight).  The last model is a minimum-weight solution; an UNSAT
at ``w - 1`` proves it.  Boards differ only in their assumptions, and every
learnt clause is implied by the formula alone, so nothing carries from one
board to the next.

Time limit.  CryptoMiniSat takes a limit per call (built into the solver);
python-sat's MiniSat- and Glucose-family solvers are interrupted by a timer.
CaDiCaL and Lingeling cannot be interrupted through python-sat, so they are
not offered.  A board that does not finish is ``UNKNOWN``.

Running time: NP-hard in general; per 4x4 board against CryptoMiniSat's per-call floor in
docs/bench.md (a CryptoMiniSat call is made in the calling thread up to 64 cells).
Sources: python-sat documentation (``pysat.solvers``, ``pysat.card``,
``pysat.formula.IDPool``); Ignatiev, Morgado & Marques-Silva, "PySAT", SAT
2018; pycryptosat documentation.
"""

from __future__ import annotations

import threading
import time

from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, Option
from flipgame.backends.models import Model, ModelBackend
from flipgame.backends.parameters import CMS_FUZZ
from flipgame.backends.result import Status
from flipgame.backends.sat_engines import CryptoMiniSat, PySat, wait_for
from flipgame.core import extras
from flipgame.core.errors import OptionError
from flipgame.core.limits import MODEL_MAX_CELLS, TIME_LIMIT_DEFAULT_SECONDS
from flipgame.model.system import PressSystem

SOLVERS = ("glucose3", "glucose4", "glucose42", "gluecard3", "gluecard4", "maplechrono", "maplecm", "maplesat",
           "mergesat3", "minicard", "minisat22", "minisatep")
"""python-sat solvers that take assumptions, report statistics and can be interrupted
(``solve_limited`` + ``interrupt``), so they honour the time limit and Ctrl-C."""
DEFAULT_SOLVER = "minisat22"
CARDINALITY = ("auto", "totalizer", "kmtotalizer", "mtotalizer", "seqcounter", "cardnetwrk", "sortnetwrk")
TOTALIZER_MAX_CELLS = 400
"""``cardinality="auto"``: the incremental totalizer up to this many cells, ``kmtotalizer`` above
(measured: fewer clauses for large bounds, e.g. 7.8 k against 55 k at 18x18 with bound 175)."""
BYTES_PER_CLAUSE = 250
"""Peak memory per cardinality clause, in bytes: the solver's copy and python-sat's Python lists
(measured at 50x50: totalizer 2.4 M clauses, 575 MB peak RSS above the 4x4 run's 37 MB)."""
XOR_BYTES = 500
"""CryptoMiniSat's memory for the n native XOR clauses and its Gauss-Jordan matrices is about
``XOR_BYTES * n**1.5`` bytes.  Measured peak RSS above the 4x4 run's during the first call, random
solvable NxN boards: 424 MB at 100x100, 1.35 GB at 150x150, 3.34 GB at 200x200 (about 420 n**1.5)."""
BASE_BYTES = 64 << 20
"""Fixed part of the estimate."""


class SatModel(Model):
    """The parity formula of one game in one SAT solver, with a cardinality bound built on demand.

    Parameters
    ----------
    game : Game
    time_limit : float
        Seconds per board.
    engine : {"xor", "cnf"}
    solver : str
        python-sat solver for ``engine="cnf"`` (one of :data:`SOLVERS`).
    cardinality : str
        One of :data:`CARDINALITY`.
    descent : {"linear", "binary"}
    """

    backend = "sat"

    def __init__(self, game: PressSystem, *, time_limit: float = TIME_LIMIT_DEFAULT_SECONDS, engine: str = "xor",
                 solver: str = DEFAULT_SOLVER, cardinality: str = "auto", descent: str = "linear",
                 cms_params: str = ""):
        super().__init__(game)
        from pysat.formula import IDPool

        self.pool = IDPool()
        self.press = [self.pool.id(("press", j)) for j in range(game.m)]
        self.cell = [self.pool.id(("cell", i)) for i in range(game.n)]
        self.colour = self.pool.id("colour")
        self._solver_name, self._cms_params = solver, cms_params
        self.engine = engine
        self.time_limit = time_limit
        self._new_oracle()
        if cardinality == "auto":
            cardinality = "totalizer" if game.m <= TOTALIZER_MAX_CELLS else "kmtotalizer"
        self.cardinality, self.descent = cardinality, descent
        self._assume: list[int] = []
        self._deadline = 0.0
        self._used = False

    def _new_oracle(self) -> None:
        """The parity formula in a fresh solver (again after a CryptoMiniSat call was abandoned)."""
        game = self.game
        # CryptoMiniSat's limit is per call and counts CPU time: each call gets 3/4 of the
        # board's limit, and the board's wall-clock deadline is kept by _call.
        self.oracle = CryptoMiniSat(0.75 * self.time_limit, self._cms_params) if self.engine == "xor" \
            else PySat(self._solver_name, self.pool)
        for i in range(game.n):
            self.oracle.add_xor([*(self.press[j] for j in game.flippers[i]), self.cell[i], self.colour], False)
        if game.goal != "any":
            self.oracle.add_clauses([[self.colour if game.goal == "black" else -self.colour]])
        self._totalizer = None

    def close(self) -> None:
        self.oracle.close()
        if self._totalizer is not None:
            self._totalizer.delete()

    def _stop(self) -> None:
        self.oracle.stop()

    def _run(self, call):
        if self.engine == "xor":  # _call runs CryptoMiniSat in a thread of its own
            return call()
        return super()._run(call)

    def _call(self, extra: list[int]) -> list[bool] | None:
        left = self._deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError
        if self.engine != "xor" or self.game.n <= self.THREAD_MIN_CELLS:
            # A small model's call takes milliseconds: a thread per call would cost more
            # than the call (measured on 4x4: 0.28 -> 0.06 ms per Impossible board); a Ctrl-C
            # during the call is delivered when it returns (cryptominisat_signals).
            return self.oracle.solve(self._assume + extra, left)
        return self._call_abandonable(self._assume + extra, left)

    def _call_abandonable(self, assumptions: list[int], left: float) -> list[bool] | None:
        """CryptoMiniSat cannot be interrupted and counts its limit in CPU time, so a call runs
        in a daemon thread that the board gives up at its wall-clock deadline (or on Ctrl-C):
        the solver is then dropped, a new one is built for the next board, and the old one
        ends at its own CPU limit.  Its answer, whatever it is, is never read again.  The
        waiting thread blocks SIGINT/SIGTERM too (:func:`cryptominisat_signals`) and collects
        them with ``sigtimedwait``, then raises them again under flipgame's handler."""
        box: list = []
        oracle = self.oracle

        def run() -> None:
            try:
                box.append((True, oracle.solve(assumptions, left)))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                box.append((False, exc))

        worker = threading.Thread(target=run, daemon=True, name="flipgame-cryptominisat")
        deadline = time.perf_counter() + left
        try:
            wait_for(worker, deadline)
        except KeyboardInterrupt:
            self._new_oracle()
            raise
        if worker.is_alive():
            self._new_oracle()
            raise TimeoutError
        ok, value = box[0]
        if not ok:
            raise value
        return value

    def _at_most(self, k: int) -> list[int]:
        """Assumptions meaning "at most k presses", adding the clauses that need."""
        if self.cardinality == "totalizer":
            from pysat.card import ITotalizer

            if self._totalizer is None:
                self._totalizer = ITotalizer(lits=self.press, ubound=k + 1, top_id=self.pool.top)
                self.oracle.add_clauses(self._totalizer.cnf.clauses)
            elif len(self._totalizer.rhs) <= k:
                self._totalizer.increase(ubound=k + 1, top_id=self.pool.top)
                self.oracle.add_clauses(self._totalizer.cnf.clauses[-self._totalizer.nof_new:])
            self.pool.top = max(self.pool.top, self._totalizer.top_id)
            return [-self._totalizer.rhs[k]] if k < len(self.press) else []
        from pysat.card import CardEnc, EncType

        selector = self.pool.id()
        enc = CardEnc.atmost(self.press, bound=k, vpool=self.pool, encoding=getattr(EncType, self.cardinality))
        self.oracle.add_clauses([[*c, -selector] for c in enc.clauses])
        return [selector]

    def _weight_of(self, values: list[bool]) -> int:
        return sum(1 << j for j, v in enumerate(self.press) if values[v])

    def _minimise(self, board: int):
        self._deadline = time.perf_counter() + self._board_seconds(self.time_limit)  # building counts
        if self.engine == "xor" and self.cardinality != "totalizer" and self._used:
            # Measured: CryptoMiniSat (pycryptosat 5.17) answered Impossible for a solvable 4x4 board
            # after about 600 boards of selector-guarded one-shot encodings added to one solver (the
            # cross-check caught it); each board now starts from a fresh solver with those encodings.
            self._new_oracle()
        self._used = True
        self._assume = [c if board >> i & 1 else -c for i, c in enumerate(self.cell)]
        try:
            values = self._call([])
            if values is None:
                return Status.INFEASIBLE, None, self._stats()
            best = self._weight_of(values)
            lo, hi = 0, best.bit_count()  # the minimum lies in [lo, hi]
            while lo < hi:
                k = hi - 1 if self.descent == "linear" else (lo + hi) // 2
                values = self._call(self._at_most(k))
                if values is None:
                    lo = k + 1
                else:
                    best = self._weight_of(values)
                    hi = best.bit_count()
        except TimeoutError:
            return Status.UNKNOWN, None, self._stats()
        return Status.OPTIMAL, best, self._stats()

    def _stats(self) -> dict:
        engine = self.engine if self.engine == "xor" else f"cnf/{self._solver_name}"
        return {**self.oracle.stats(), "engine": engine, "cardinality": self.cardinality}

    def _solve_fixed(self, fixed: dict[int, int], weight: int) -> int | None:
        # Within the board's deadline (set by _minimise): the canonical refinement shares its time limit.
        lits = [self.press[i] if v else -self.press[i] for i, v in fixed.items()]
        values = self._call(self._at_most(weight) + lits)
        return None if values is None else self._weight_of(values)


class Sat(ModelBackend):
    """SAT backend (CryptoMiniSat native XOR, or python-sat with CNF-cut XOR); see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "sat").moves
    4
    """

    name = "sat"
    summary = "SAT: native XOR (CryptoMiniSat) or CNF-cut XOR (python-sat), cardinality bound, descent"
    max_cells = MODEL_MAX_CELLS
    model = SatModel
    options = (
        TIME_LIMIT,
        Option("engine", str, "xor", "xor: CryptoMiniSat with native XOR and Gauss-Jordan; cnf: a python-sat "
               "solver with XOR cut into CNF", choices=("xor", "cnf"), flag="--sat-engine", fuzz=True),
        Option("solver", str, DEFAULT_SOLVER, "python-sat solver for --sat-engine cnf", choices=SOLVERS,
               flag="--sat-solver", fuzz=True),
        Option("cardinality", str, "auto", f"encoding of 'at most k presses' (auto: totalizer up to "
               f"{TOTALIZER_MAX_CELLS} cells, else kmtotalizer)", choices=CARDINALITY, flag="--sat-cardinality",
               fuzz=True),
        Option("descent", str, "linear", "linear (SAT-UNSAT descent) or binary search on the bound",
               choices=("linear", "binary"), flag="--sat-descent", fuzz=True),
        Option("cms_params", str, "", "CryptoMiniSat options NAME:VALUE separated by spaces, for --sat-engine xor "
               "(cryptominisat5's option names without '--'; time and conflict limits are refused)",
               fuzz=CMS_FUZZ, fuzz_many=True),
        MEMORY_LIMIT,
    )

    def missing_library(self, options: dict) -> str | None:
        """pycryptosat for the engine ``xor`` (the ``cnf`` engine runs on python-sat, in the core)."""
        return "pycryptosat" if options.get("engine", "xor") == "xor" and not extras.installed("pycryptosat") else None

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        if self.missing_library(options):
            return extras.missing("pycryptosat", "sat engine xor") + " (--sat-engine cnf runs without it)"
        return super().refusal(game, options)

    def check_options(self, options: dict) -> dict:
        checked = super().check_options(options)
        if "solver" in options and checked["engine"] == "xor":
            raise OptionError("sat option solver (--sat-solver) chooses the python-sat solver of --sat-engine cnf; "
                              "the xor engine is CryptoMiniSat")
        if checked["cms_params"] and checked["engine"] != "xor":
            raise OptionError("sat option cms_params (--cms-params) sets CryptoMiniSat options, for --sat-engine xor")
        return checked

    def estimate_bytes(self, game: PressSystem, options: dict) -> int:
        """The parity clauses (native XOR: :data:`XOR_BYTES` * n**1.5; cut into CNF: 20 n clauses) plus
        the cardinality encoding at a bound b = n/2 (its size at a typical first model's weight), in
        clauses: n b for the totalizer and the networks, 2.5 n b for the sequential counter (its
        Python lists weigh more per clause), 2 n sqrt(b) for the (k-)modulo totalizers.  Counted by
        python-sat at n = 2500, b = 1250: totalizer 2.37 M, sequential counter 3.13 M, cardinality
        network 0.39 M, k-modulo totalizer 0.14 M (1.09 M at n = 10000).  Measured peak RSS at 50x50
        (5 s limit, above the 4x4 run's): totalizer 575 MB (estimate 911), sequential counter 1.53 GB
        (2.08 GB), sorting/cardinality network 431/414 MB (911), k-modulo totalizer 123 MB (173); at
        100x100 (k-modulo totalizer, first call) 424 MB (917 MB), 150x150 1.35 GB (2.95 GB: refused
        at the default 2 GiB), 200x200 3.34 GB (6.89 GB)."""
        n = max(game.n, game.m)
        card = options.get("cardinality", "auto")
        if card == "auto":
            card = "totalizer" if n <= TOTALIZER_MAX_CELLS else "kmtotalizer"
        bound = n // 2 + 1
        if card in ("kmtotalizer", "mtotalizer"):
            clauses = 2 * n * int(bound ** 0.5)
        else:
            clauses = (5 * n * bound) // 2 if card == "seqcounter" else n * bound
        xor = options.get("engine", "xor") == "xor"
        parity = int(XOR_BYTES * n ** 1.5) if xor else 20 * n * BYTES_PER_CLAUSE
        return BASE_BYTES + parity + clauses * BYTES_PER_CLAUSE

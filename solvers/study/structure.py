"""``flipgame study``: the structure of one rule set, how the backends compare on it, and
(``--strategies``) how named strategies compare across instance families.

Structure.  The rank and nullity of the press matrix, the quiet patterns (a
basis of its null space: press sets that change nothing) and how many boards
are solvable come from the dense elimination or light chasing
(:func:`flipgame.algebra.gf2.structure`): under a second for every square board up
to 60x60.  The distribution of minimum presses over all solvable boards, and
the largest minimum, come from one of (the text says which):

* the bfs distance table, up to :data:`TABLE_MAX_CELLS` cells (and
  :data:`flipgame.backends.bfs.MAX_CELLS`);
* the binomial coefficients when the nullity is 0 (each board has exactly one
  press set, so ``C(n, w)`` boards need ``w`` presses), up to
  :data:`BINOMIAL_MAX_CELLS` cells;
* coset enumeration (:func:`coset_distribution`), up to
  :data:`COSET_MAX_CELLS` cells: every solvable board is ``A x`` for exactly one
  press set ``x`` with its free variables 0, and its minimum is the minimum
  weight of ``x ^ span(null space)``; O(2**n) popcounts, vectorised.

Backends (``--backends``) are timed on a seeded random sample under a per-board
time limit.  Strategies (:func:`compare_strategies`) are run across the
instance families of :data:`FAMILIES`, every answer cross-checked.

Source for the algebra: Anderson & Feil (1998); the counts follow from
rank-nullity (``2**rank`` boards per reachable goal coset).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field

import numpy as np

from flipgame import BACKENDS, prepare, solve, solve_batch
from flipgame.algebra import gf2 as algebra
from flipgame.backends import bfs
from flipgame.backends.result import Status
from flipgame.backends.strategies import STRATEGIES
from flipgame.core.errors import RefusedError
from flipgame.gate.session import solve_strategy
from flipgame.model.grid import Game, format_cells
from flipgame.study import metrics as study_metrics
from flipgame.verify.checks.witness import check_solution

JSON_EXACT_MAX = 2**53
"""Largest integer every JSON reader holds exactly (IEEE double); larger counts are written as text."""


def json_count(value: int) -> int | str:
    """A count for JSON: the number up to :data:`JSON_EXACT_MAX`, above it text, ``"2**k"`` for a power
    of two (Python refuses ``str`` of ints over 4300 digits: 120x120 has 2**14400 boards).

    >>> json_count(4096), json_count(2**14400)
    (4096, '2**14400')
    """
    if value <= JSON_EXACT_MAX:
        return value
    if value & (value - 1) == 0:
        return f"2**{value.bit_length() - 1}"
    return hex(value)


@dataclass
class Study:
    """Everything ``flipgame study`` reports; ``to_json()`` is its machine-readable form."""

    game: Game
    rank: int
    nullity: int
    quiet_patterns: list[int]
    solvable_boards: int
    total_boards: int
    distribution: list[int] | None = None  # boards needing 0, 1, 2, ... presses; None if not computed
    distribution_note: str = ""
    backend_seconds_per_board: dict[str, float] = field(default_factory=dict)
    backend_notes: dict[str, str] = field(default_factory=dict)
    sample: int = 0

    @property
    def largest_minimum(self) -> int | None:
        return len(self.distribution) - 1 if self.distribution else None

    def to_json(self) -> dict:
        g = self.game
        return {
            "rules": g.to_json(),
            "rank": self.rank,
            "nullity": self.nullity,
            "quiet_patterns": [format_cells(q, g.rows, g.cols, "x", ".").split("\n") for q in self.quiet_patterns],
            "solvable_boards": json_count(self.solvable_boards),
            "total_boards": json_count(self.total_boards),
            "distribution": self.distribution,
            "distribution_note": self.distribution_note,
            "largest_minimum": self.largest_minimum,
            "sample_boards": self.sample,
            "backend_seconds_per_board": self.backend_seconds_per_board,
            "backend_notes": self.backend_notes,
        }

    def text(self) -> str:
        g = self.game
        lines = [f"Rules: {g.rules}", f"Press matrix: {g.n} x {g.n}, rank {self.rank}, nullity {self.nullity}",
                 f"Solvable boards: {_count(self.solvable_boards)} of {_count(self.total_boards)} "
                 f"({self.solvable_boards / self.total_boards:.4%})"]
        if self.quiet_patterns:
            lines.append(f"Quiet patterns (a basis of {len(self.quiet_patterns)}; each changes nothing):")
            grids = [format_cells(q, g.rows, g.cols, "x", ".").split("\n") for q in self.quiet_patterns[:8]]
            for r in range(g.rows if g.cols <= 20 else 0):
                lines.append("  " + "   ".join(grid[r] for grid in grids))
            if len(self.quiet_patterns) > 8:
                lines.append(f"  ... and {len(self.quiet_patterns) - 8} more (see --json)")
        else:
            lines.append("Quiet patterns: none (every board has exactly one press set per goal)")
        if self.distribution is not None:
            lines.append(f"Minimum presses over all solvable boards ({self.distribution_note}):")
            for d, count in enumerate(self.distribution):
                lines.append(f"  {d:>3}: {count}")
            lines.append(f"Largest minimum: {self.largest_minimum}")
        else:
            lines.append(f"Distribution of minimum presses: not computed ({self.distribution_note})")
        if self.backend_seconds_per_board:
            lines.append(f"Backend time per board (mean over {self.sample} random boards):")
        for name, sec in self.backend_seconds_per_board.items():
            lines.append(f"  {name:>6}: {sec * 1000:10.3f} ms")
        for name, note in self.backend_notes.items():
            lines.append(f"  {name:>6}: {note}")
        return "\n".join(lines)


def _count(k: int) -> str:
    """A board count: exact up to 2**64, else as a power of two (counts here are 2**r or 2**(r+1))."""
    return str(k) if k <= 1 << 64 else f"2**{k.bit_length() - 1}"


def study(game: Game, backends: list[str] | None = None, sample: int = 200, seed: int = 0, *,
          options: dict[str, dict] | None = None, progress=None) -> Study:
    """Study one rule set.

    Parameters
    ----------
    game : Game
        Any size the algebra takes: dense elimination up to 2500 cells, light
        chasing (plus, no wrap) up to 2048 on the short side.
    backends : list of str, optional
        Backends to time on a seeded random sample (default none: structure only).
    sample : int
        Random boards solved by every timed backend.
    options : dict, optional
        Per-backend options, e.g. ``{"cpsat": {"time_limit": 2.0}}``; a model
        backend gets a 10 s per-board limit unless one is given.
    progress : callable(backend, done, total), optional
        Called as each timed backend advances (every 10 % of the sample).

    Raises
    ------
    RefusedError
        If neither the dense elimination nor light chasing takes the board.
        A timed backend that refuses the board gets a note instead.

    Running time: the elimination O(n^3 / w) (or chasing O(side * n)); the
    distribution (see :func:`distribution`) O(2**n); then ``sample`` solves
    per timed backend, each under its time limit (10 s unless given).

    >>> study(Game(3, 3)).nullity
    0
    """
    rank, k, quiet = algebra.structure(game)
    st = Study(game, rank, k, quiet, len(_goals_in_distinct_cosets(game)) << rank, 1 << game.n)
    st.distribution, st.distribution_note = distribution(game)
    options = options or {}
    rng = np.random.default_rng(seed)
    st.sample = sample if backends else 0
    for name in backends or []:
        opts = dict(options.get(name, {}))
        if any(o.name == "time_limit" for o in BACKENDS[name].options):
            opts.setdefault("time_limit", 10.0)
        try:
            prepare(game, name, opts)
        except RefusedError as exc:
            st.backend_notes[name] = f"refused: {exc}"
            continue
        start = time.perf_counter()
        unknown = _time_backend(game, name, opts, sample, rng, progress)
        st.backend_seconds_per_board[name] = (time.perf_counter() - start) / sample
        if unknown:
            st.backend_notes[name] = f"{unknown} of {sample} boards without a proven answer (time limit)"
    return st


def _goals_in_distinct_cosets(game: Game) -> list[int]:
    """One goal board per coset of the column space, so that goals in one coset count once.

    Two goals t, u share a coset iff t ^ u is reachable from 0, i.e. iff board t ^ u is solvable
    towards white.
    """
    white = game.with_goal("white")
    goals: list[int] = []
    for t in sorted(set(game.targets)):
        if not any(algebra.solution_cosets(white, t ^ u)[0] for u in goals):
            goals.append(t)
    return goals


def _time_backend(game: Game, name: str, opts: dict, sample: int, rng: np.random.Generator, progress) -> int:
    """Solve ``sample`` random boards with backend ``name`` in tenths, reporting progress after each;
    return how many got no proven answer."""
    unknown = 0
    step = max(1, sample // 10)
    for done in range(0, sample, step):
        part = min(step, sample - done)
        boards = game.random_boards(rng, part)
        if game.n <= 64:
            out = solve_batch(boards, game, name, **opts)
            unknown += int(np.sum((out.status != Status.OPTIMAL) & (out.status != Status.INFEASIBLE)))
        else:
            for board in boards:
                s = solve(board, name, game=game, **opts)
                unknown += s.status not in (Status.OPTIMAL, Status.INFEASIBLE)
        if progress:
            progress(name, done + part, sample)
    return unknown


TABLE_MAX_CELLS = 24
"""The study reads the bfs distance table up to this many cells (16 MiB, a few seconds) and at most
:data:`flipgame.backends.bfs.MAX_CELLS`; larger tables cost more than coset enumeration."""
BINOMIAL_MAX_CELLS = 100
"""Nullity 0: the distribution is binomial; listed up to this many cells (101 lines of text)."""
COSET_MAX_CELLS = 28
"""Coset enumeration visits 2**n (press set, quiet pattern) pairs: 2**28 in a few seconds."""
COSET_MAX_NULLITY = 22
"""Coset enumeration holds the 2**nullity null-space elements in memory."""


def distribution(game: Game) -> tuple[list[int] | None, str]:
    """Boards needing 0, 1, 2, ... presses over all solvable boards of ``game``, and how it was found.

    Returns ``(counts, note)``; ``counts`` is None (and ``note`` says why) when no method is feasible.
    An explicit goal board has the distribution of goal white (boards ``b ^ target``).

    >>> distribution(Game(4, 4, "white"))
    ([1, 16, 120, 560, 1387, 1440, 540, 32], 'exhaustive, from the bfs distance table')
    >>> distribution(Game(6, 6, "white"))[1]
    'nullity 0: each solvable board has exactly one press set, so C(36, w) boards need w presses'
    """
    white = game.with_goal("white")
    one = game if game.goal in ("any", "black") else white
    if game.n <= min(bfs.MAX_CELLS, TABLE_MAX_CELLS):
        table = bfs.distance_table(one)
        return np.bincount(table[table != bfs.UNREACHABLE]).tolist(), "exhaustive, from the bfs distance table"
    k = algebra.nullity(game)
    # Nullity 0 with goal any: all black is then solvable, and a board's minimum is the smaller of two
    # press sets, so only enumeration gives the distribution.
    if k == 0 and game.goal != "any" and game.n <= BINOMIAL_MAX_CELLS:
        return [math.comb(game.n, w) for w in range(game.n + 1)], \
            f"nullity 0: each solvable board has exactly one press set, so C({game.n}, w) boards need w presses"
    if game.n <= COSET_MAX_CELLS and k is not None and k <= COSET_MAX_NULLITY:
        counts = coset_distribution(game)
        return counts, f"exhaustive, by enumerating the 2**{game.n - k} press-set cosets (nullity {k})"
    return None, (f"{game.n} cells, nullity {k}: 2**{game.n} boards are too many to enumerate (bfs table up to "
                  f"{min(bfs.MAX_CELLS, TABLE_MAX_CELLS)} cells, coset enumeration up to {COSET_MAX_CELLS}, "
                  f"binomial at nullity 0 up to {BINOMIAL_MAX_CELLS})")


def coset_distribution(game: Game, chunk_elements: int = 1 << 22) -> list[int]:
    """The distribution of minimum presses by enumerating press-set cosets.

    Every board solvable towards white is ``A x`` for exactly one press set
    ``x`` whose free variables are 0 (those press sets are a complement of the
    null space), and its minimum is ``min over q in span(quiet) of |x ^ q|``.
    For the goal ``any`` with all black solvable, a board's minimum is the
    smaller of that and the same for ``x ^ x_black``; if all black is not
    solvable the two goals' boards are disjoint and the counts double.

    Parameters
    ----------
    game : Game
        At most :data:`COSET_MAX_CELLS` cells and nullity at most :data:`COSET_MAX_NULLITY`.
    chunk_elements : int
        Elements (uint32) of the temporary (press sets x null space) array.

    Returns
    -------
    list of int
        ``counts[w]`` = solvable boards needing ``w`` presses, trailing zeros dropped.

    Running time O(2**n) popcounts (times 2 for goal any), in numpy: 5x5 Lights Out
    (2**23 boards x 4 quiet combinations) in about a second.

    >>> coset_distribution(Game(2, 2, "white"))
    [1, 4, 6, 4, 1]
    """
    if game.n > 32:
        raise ValueError(f"coset enumeration holds boards of at most 32 cells in uint32; {game.size} has {game.n}")
    white = game.with_goal("white")
    e = algebra.eliminate(white)
    shifts = [0]
    if game.goal == "any" and e.consistent(game.full):
        shifts.append(e.particular(game.full))
    span = np.zeros(1, dtype=np.uint32)
    for q in e.null_basis:
        span = np.concatenate([span, span ^ np.uint32(q)])
    pivots = list(e.pivots)
    low = max(0, min(len(pivots), (chunk_elements // len(span)).bit_length() - 1))
    part = np.zeros(1, dtype=np.uint32)
    for p in pivots[:low]:
        part = np.concatenate([part, part ^ np.uint32(1 << p)])
    block = part[:, None] ^ span[None, :]
    counts = np.zeros(game.n + 1, dtype=np.int64)
    high = pivots[low:]
    for h in range(1 << len(high)):
        hx = sum(1 << p for j, p in enumerate(high) if h >> j & 1)
        best = None
        for shift in shifts:
            w = np.bitwise_count(block ^ np.uint32(hx ^ shift)).min(axis=1)
            best = w if best is None else np.minimum(best, w)
        counts += np.bincount(best, minlength=game.n + 1)
    if game.goal == "any" and len(shifts) == 1:
        counts *= 2
    return np.trim_zeros(counts, "b").tolist()


def plot(st: Study, path: str) -> None:
    """Draw the distribution and the backend timings to a PNG with matplotlib (Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    if st.distribution:
        left.bar(range(len(st.distribution)), st.distribution, color="#3b6ea8")
        left.set_xlabel("minimum number of presses")
        left.set_ylabel("boards")
        left.set_xticks(range(len(st.distribution)))
        for d, c in enumerate(st.distribution):
            left.annotate(str(c), (d, c), ha="center", va="bottom", fontsize=8)
    else:
        left.text(0.5, 0.5, "distribution not computed\n" + st.distribution_note, ha="center", va="center",
                  wrap=True, transform=left.transAxes)
        left.set_axis_off()
    left.set_title(f"{st.game.rules}: {st.solvable_boards} of {st.total_boards} boards solvable, "
                   f"nullity {st.nullity}", fontsize=9)
    names = list(st.backend_seconds_per_board)
    ms = [st.backend_seconds_per_board[n] * 1000 for n in names]
    right.barh(names, ms, color="#c0504d")
    right.set_xscale("log")
    right.set_xlabel(f"ms per board (mean of {st.sample}, log scale)")
    right.set_title("backend time per board", fontsize=9)
    for y, v in enumerate(ms):
        right.annotate(f"{v:.3g} ms", (v, y), va="center", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- Strategies across instance families -------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """An instance family: rules for a size ``n`` and how its boards are drawn.

    Attributes
    ----------
    name : str
        Key of :data:`FAMILIES`, e.g. ``torus``.
    summary : str
        One line for ``--help`` and the output.
    sizes : tuple of int
        Default board sides ``n`` (an ``n x n`` board each), in the order they are run.
    wrap, neighbourhood : rules of the family's games (goal white).
    all_lit : bool
        True: the one board is all black (all lit); False: random solvable boards.
    axis : str
        What the plot's x axis shows: ``side`` (n) or ``nullity``.
    """

    name: str
    summary: str
    sizes: tuple[int, ...]
    wrap: bool = False
    neighbourhood: str = "plus"
    all_lit: bool = False
    axis: str = "side"

    def game(self, n: int) -> Game:
        return Game(n, n, "white", self.wrap, self.neighbourhood)

    def boards(self, game: Game, rng: np.random.Generator, count: int) -> list[int]:
        """``count`` boards of ``game``: all lit once, or boards ``A x`` for uniformly random press sets ``x``
        (uniform over the solvable boards, so every board has a number to cross-check)."""
        if self.all_lit:
            return [game.full]
        out = []
        for _ in range(count):
            x = int.from_bytes(rng.bytes((game.n + 7) // 8), "little") & game.full
            out.append(game.apply(0, x))
        return out


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("random", "random solvable n x n Lights Out boards, goal white", (4, 6, 8, 10, 12, 14, 16, 18, 20)),
    Family("all-lit", "the all-lit n x n board, goal white (OEIS A075464)", (4, 6, 8, 10, 12, 14, 16, 18, 20),
           all_lit=True),
    Family("torus", "random solvable boards on the n x n torus (--wrap), goal white", (4, 6, 8, 10, 12, 14, 16),
           wrap=True),
    Family("king", "random solvable boards, king (3x3) neighbourhood, goal white", (4, 6, 8, 10, 12, 14, 16),
           neighbourhood="king"),
    Family("nullity", "random solvable n x n boards with n chosen by nullity (0, 2, 4, 6, 8, 16, 20, 32)",
           (6, 5, 4, 11, 9, 19, 30, 39), axis="nullity"),
)}
"""The instance families of ``flipgame study --strategies``, in the order they are run."""


def family(name: str) -> Family:
    """The family ``name``: one of :data:`FAMILIES`, or (an exported suite's own, e.g. ``judge``) a plain
    family of that name with no default sizes."""
    return FAMILIES.get(name) or Family(name, f"{name} instances of an exported suite", ())


@dataclass
class Run:
    """One strategy on one board: ``status`` is OPTIMAL, INFEASIBLE, UNKNOWN (time-out), ERROR, ``refused``
    (the strategy does not take the board) or ``skipped`` (after a time-out at a smaller size, or over budget)."""

    family: str
    n: int
    nullity: int | None
    board: int  # index of the board within its size
    strategy: str
    status: str
    moves: int | None = None
    seconds: float | None = None
    note: str = ""
    flag: str = ""  # why the answer is flagged (disagreement or rejected witness); "" = cross-checked fine

    @property
    def answered(self) -> bool:
        return self.status in ("OPTIMAL", "INFEASIBLE")

    def answer(self) -> str:
        return str(self.moves) if self.status == "OPTIMAL" else "Impossible"


@dataclass
class StrategyStudy:
    """The result of :func:`compare_strategies`: every run, and the table per strategy x family."""

    strategies: list[str]
    families: list[str]
    sizes: dict[str, list[int]]
    boards_per_size: int
    time_limit: float
    budget: float
    seed: int
    runs: list[Run] = field(default_factory=list)
    wall_seconds: float = 0.0
    budget_note: str = ""

    @property
    def disagreements(self) -> int:
        return sum(1 for r in self.runs if r.flag)

    def summary(self) -> list[dict]:
        """One row per (strategy, family): boards run, answered, median and worst seconds of the answered,
        time-outs, refused, skipped, errors, disagreements, and the largest n answered."""
        rows = []
        for f in self.families:
            for name in self.strategies:
                runs = [r for r in self.runs if r.family == f and r.strategy == name]
                done = [r for r in runs if r.answered]
                secs = sorted(r.seconds for r in done)
                rows.append({
                    "strategy": name, "family": f,
                    "boards": sum(r.status not in ("refused", "skipped") for r in runs),
                    "answered": len(done),
                    "median_seconds": float(np.median(secs)) if secs else None,
                    "worst_seconds": secs[-1] if secs else None,
                    "time_outs": sum(r.status == "UNKNOWN" for r in runs),
                    "refused": sum(r.status == "refused" for r in runs),
                    "skipped": sum(r.status == "skipped" for r in runs),
                    "errors": sum(r.status == "ERROR" for r in runs),
                    "disagreements": sum(bool(r.flag) for r in runs),
                    "largest_n_answered": max((r.n for r in done), default=None),
                })
        return rows

    def to_json(self) -> dict:
        return {
            "strategies": {n: {"backend": STRATEGIES[n].backend, "options": dict(STRATEGIES[n].options),
                               "summary": STRATEGIES[n].summary} for n in self.strategies},
            "families": {f: {"summary": family(f).summary, "sizes": self.sizes[f]} for f in self.families},
            "boards_per_size": self.boards_per_size, "time_limit": self.time_limit, "budget": self.budget,
            "seed": self.seed, "wall_seconds": round(self.wall_seconds, 3), "budget_note": self.budget_note,
            "disagreements": self.disagreements,
            "summary": self.summary(),
            "metrics": {"sgm_shift_seconds": study_metrics.SGM_SHIFT, "par_factor": study_metrics.PAR_FACTOR,
                        "rows": study_metrics.metrics(self.runs, self.time_limit)},
            "runs": [dataclasses.asdict(r) for r in self.runs],
        }

    def text(self) -> str:
        def sec(v):
            return "-" if v is None else f"{v:.3g}"

        lines = [f"Strategies x families: each board under a {self.time_limit:g} s time limit, total budget "
                 f"{self.budget:g} s, {self.boards_per_size} random board(s) per size (seed {self.seed}); "
                 f"wall time {self.wall_seconds:.1f} s."]
        if self.budget_note:
            lines.append(self.budget_note)
        for f in self.families:
            fam = family(f)
            axis = "n (nullity)" if fam.axis == "nullity" else "n"
            shown = ", ".join(f"{n} ({_nullity(fam.game(n))})" if fam.axis == "nullity" else str(n)
                              for n in self.sizes[f])
            lines += ["", f"{f}: {fam.summary}; {axis} = {shown}",
                      f"  {'strategy':<20} {'boards':>6} {'answered':>8} {'median s':>9} {'worst s':>9} "
                      f"{'time-outs':>9} {'refused':>7} {'skipped':>7} {'disagree':>8} {'largest n':>9}"]
            for row in self.summary():
                if row["family"] != f:
                    continue
                lines.append(f"  {row['strategy']:<20} {row['boards']:>6} {row['answered']:>8} "
                             f"{sec(row['median_seconds']):>9} {sec(row['worst_seconds']):>9} {row['time_outs']:>9} "
                             f"{row['refused']:>7} {row['skipped']:>7} {row['disagreements']:>8} "
                             f"{'-' if row['largest_n_answered'] is None else row['largest_n_answered']:>9}")
        flagged = [r for r in self.runs if r.flag]
        lines.append("")
        lines.append(f"Disagreements: {len(flagged)}" + (" (every answer cross-checked against gauss where it "
                                                          "answers and against the other strategies; every "
                                                          "witness re-checked)" if not flagged else ":"))
        for r in flagged[:20]:
            lines.append(f"  {r.family} {r.n}x{r.n} board {r.board}: {r.strategy} answered {r.answer()}: {r.flag}")
        return "\n".join(lines)


def _nullity(game: Game) -> int | None:
    return algebra.nullity(game)


def compare_strategies(strategies: list[str] | None = None, families: list[str] | None = None, *,
                       sizes: list[int] | None = None, boards: int = 2, time_limit: float = 5.0,
                       budget: float = 600.0, seed: int = 0, progress=None, plan: list | None = None
                       ) -> StrategyStudy:
    """Run named strategies across instance families, cross-checking every answer.

    Parameters
    ----------
    strategies : list of str, optional
        Keys of :data:`flipgame.backends.strategies.STRATEGIES` (default: all).
    families : list of str, optional
        Keys of :data:`FAMILIES` (default: all).
    sizes : list of int, optional
        Board sides ``n`` for every family chosen (default: each family's own sizes).
    boards : int
        Random boards per size (the all-lit family has one board per size).
    time_limit : float
        Seconds per board for every strategy whose backend takes a time limit
        (gauss and bfs have none: they refuse what they cannot do quickly).
    budget : float
        Seconds for the whole study; once spent, the remaining runs are skipped and
        :attr:`StrategyStudy.budget_note` says how many.
    progress : callable(done, total, run), optional
        Called after each run (skipped ones included).
    plan : list of (family, n, Game, index, board), optional
        The boards to run instead of drawing them (an exported suite's,
        :func:`flipgame.study.suite.suite_plan`); ``families``, ``sizes`` and ``boards`` then come from it.

    Returns
    -------
    StrategyStudy
        A run is flagged when its witness fails :func:`flipgame.verify.checks.witness.check_solution`,
        or its answer differs from gauss's (when gauss answers the board), or, without
        gauss, from the answer most strategies gave.

    Notes
    -----
    Sizes run in the order given; after a time-out at ``n x n`` with nullity ``k`` a
    strategy skips the family's later boards with at least ``n`` on a side and nullity
    at least ``k`` (measured: search strategies slow down with both; a larger board of
    lower nullity is still run).  Runs are sequential, so the
    timings are comparable; the wall time of each run is taken around the gate call
    (model building included).
    """
    strategies = list(strategies or STRATEGIES)
    if plan is None:
        families = list(families or FAMILIES)
        per_family = {f: list(sizes or FAMILIES[f].sizes) for f in families}
        plan = _plan(families, per_family, boards, np.random.default_rng(seed))
    else:
        families = list(dict.fromkeys(f for f, *_ in plan))
        per_family = {f: sorted({n for g, n, *_ in plan if g == f}) for f in families}
    out = StrategyStudy(strategies, families, per_family, boards, time_limit, budget, seed)
    total = len(plan) * len(strategies)
    start = time.perf_counter()
    done = 0
    timed_out: dict[tuple[str, str], list[tuple[int, int]]] = {}  # (family, strategy) -> [(n, nullity)]
    over_budget = 0
    for f, n, game, i, board in plan:
        k = _nullity(game)
        sols = {}
        for name in strategies:
            s = STRATEGIES[name]
            run = Run(f, n, k, i, name, "skipped")
            if time.perf_counter() - start >= budget:
                run.note = "over budget"
                over_budget += 1
            elif beaten := _beaten_note(timed_out.get((f, name), []), n, k):
                run.note = beaten
            elif _execute(run, s, game, board, time_limit):
                sols[name] = run
            elif run.status == Status.UNKNOWN.name:
                timed_out.setdefault((f, name), []).append((n, k or 0))
            out.runs.append(run)
            done += 1
            if progress:
                progress(done, total, run)
        _cross_check(game, board, sols)
    out.wall_seconds = time.perf_counter() - start
    if over_budget:
        out.budget_note = (f"Budget of {budget:g} s spent: {over_budget} of {total} runs skipped "
                           f"(raise --budget, or choose fewer --strategies / --families / --sizes).")
    return out


def _plan(families: list[str], per_family: dict[str, list[int]], boards: int,
          rng: np.random.Generator) -> list[tuple]:
    """The study's boards in order, as (family, n, game, board index, board)."""
    plan = []
    for f in families:
        fam = FAMILIES[f]
        for n in per_family[f]:
            game = fam.game(n)
            for i, b in enumerate(fam.boards(game, rng, boards)):
                plan.append((f, n, game, i, b))
    return plan


def _beaten_note(timeouts: list[tuple[int, int]], n: int, k: int | None) -> str | None:
    """Why a strategy skips an ``n x n`` board of nullity ``k`` after its time-outs ``[(n, nullity)]``,
    or None to run it."""
    beaten = [(n0, k0) for n0, k0 in timeouts if n >= n0 and (k or 0) >= k0]
    if not beaten:
        return None
    n0, k0 = beaten[0]
    return f"timed out at {n0}x{n0} (nullity {k0}); this board is no smaller, its nullity no lower"


def _execute(run: Run, strategy, game: Game, board: int, time_limit: float) -> bool:
    """Run ``strategy`` on ``board`` and fill in ``run`` (status, moves, seconds, note, witness flag);
    True when the answer is definite (optimal or impossible), so it takes part in the cross-check."""
    refused = strategy.refusal(game)
    if refused:
        run.status, run.note = "refused", refused
        return False
    t0 = time.perf_counter()
    try:
        sol = solve_strategy(strategy, board, game, time_limit)
    except RefusedError as exc:
        run.status, run.note = "refused", str(exc)
        return False
    except Exception as exc:  # noqa: BLE001 - a faulty strategy is data, not a crash
        run.status, run.note = "ERROR", f"{type(exc).__name__}: {exc}"
        return False
    run.seconds = time.perf_counter() - t0
    run.status = sol.status.name
    run.moves = sol.moves
    if sol.status is Status.UNKNOWN:
        run.note = f"no proof within {time_limit:g} s"
        return False
    if sol.status is Status.ERROR:
        run.note = str(sol.stats.get("error", ""))
        return False
    problem = check_solution(game, board, sol)
    if problem:
        run.flag = f"witness rejected: {problem}"
    return True


def _gauss_answer(game: Game, board: int, runs: dict[str, Run]) -> str | None:
    """gauss's answer: its run's unless flagged, computed here if gauss was not run; None if it refuses."""
    if "gauss" in runs:
        return None if runs["gauss"].flag else runs["gauss"].answer()
    try:
        return solve(board, "gauss", game=game).answer()
    except RefusedError:
        return None


def _cross_check(game: Game, board: int, runs: dict[str, Run]) -> None:
    """Flag the definite answers that differ from gauss's (computed here if gauss was not run), or, when
    gauss does not answer (nullity over its limit), from the answer most strategies gave."""
    reference, source = _gauss_answer(game, board, runs), "gauss"
    if reference is None:
        answers = [r.answer() for r in runs.values() if not r.flag]
        if not answers:
            return
        values, counts = np.unique(answers, return_counts=True)
        if (counts == counts.max()).sum() > 1:
            for r in runs.values():
                if not r.flag:
                    r.flag = f"strategies disagree ({', '.join(sorted(set(answers)))}) and gauss does not answer"
            return
        reference, source = str(values[counts.argmax()]), "most strategies"
    for r in runs.values():
        if not r.flag and r.answer() != reference:
            r.flag = f"disagrees with {source} ({reference})"


def plot_strategies(st: StrategyStudy, path: str) -> None:
    """Seconds per board against board size (nullity for the nullity family), one panel per family,
    one line per strategy on a log scale; time-outs drawn as x on the time-limit line.  PNG via matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = len(st.families)
    cols = min(panels, 3)
    rows = (panels + cols - 1) // cols
    spare = rows * cols > panels  # an empty slot holds the legend; otherwise it goes on the right
    fig, axes = plt.subplots(rows, cols, figsize=(5.4 * cols + (0 if spare else 2.6), 4.3 * rows), squeeze=False)
    cmap = plt.get_cmap("tab20")
    markers = "os^vD<>ph*P"
    style = {name: (cmap(i % 20), markers[i % len(markers)], "-" if i < 10 else "--")
             for i, name in enumerate(st.strategies)}
    answered = [r.seconds for r in st.runs if r.answered and r.seconds]
    floor = max(min(answered, default=1e-4) / 2, 1e-5)
    top = max(st.time_limit * 3, max(answered, default=0) * 2)
    for ax, f in zip(axes.flat, st.families, strict=False):
        fam = family(f)
        for name in st.strategies:
            runs = [r for r in st.runs if r.family == f and r.strategy == name]
            xs = sorted({_x(fam, r) for r in runs if r.answered})
            ys = [max(float(np.median([r.seconds for r in runs if r.answered and _x(fam, r) == x])), floor)
                  for x in xs]
            colour, marker, line = style[name]
            ax.plot(xs, ys, line, marker=marker, color=colour, markersize=4, linewidth=1.2, label=name)
            outs = sorted({_x(fam, r) for r in runs if r.status == "UNKNOWN"})
            ax.plot(outs, [st.time_limit] * len(outs), "x", color=colour, markersize=9, markeredgewidth=2)
        ax.axhline(st.time_limit, color="grey", linestyle=":", linewidth=1)
        ax.annotate(f"time limit {st.time_limit:g} s (x = time-out)", (0.02, st.time_limit * 1.15), va="bottom",
                    fontsize=7, color="grey", xycoords=("axes fraction", "data"))
        ax.set_yscale("log")
        ax.set_ylim(floor / 1.5, top)
        ax.set_title(f"{f}: {fam.summary}", fontsize=8.5)
        if fam.axis == "nullity":
            ticks = sorted({(r.nullity, r.n) for r in st.runs if r.family == f and r.nullity is not None})
            ax.set_xticks([k for k, _ in ticks], [f"{k}\n{n}" for k, n in ticks], fontsize=7)
            ax.set_xlabel("nullity of the press matrix (second line: board side n)")
        else:
            ax.set_xlabel("board side n (n x n board)")
        ax.set_ylabel("seconds per board (median, log scale)")
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[panels:]:
        ax.set_axis_off()
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if spare:
        axes.flat[-1].legend(handles, labels, loc="center", fontsize=8, title="strategy", title_fontsize=9,
                             ncols=2 if len(labels) > 8 else 1)
    else:
        fig.legend(handles, labels, loc="center right", fontsize=8, title="strategy", title_fontsize=9)
    fig.suptitle(f"flipgame study --strategies: seconds per board, median of {st.boards_per_size} board(s) per "
                 f"size; {st.time_limit:g} s limit per board; seed {st.seed}", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1 if spare else 1 - 2.4 / fig.get_figwidth(), 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _x(fam: Family, r: Run) -> int:
    return r.nullity if fam.axis == "nullity" and r.nullity is not None else r.n

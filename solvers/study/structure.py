"""``flipgame study``: the structure of one rule set, how the backends compare on it, and
(``--strategies``) how named strategies compare across instance families.

Structure.  The rank and nullity of the press matrix, the quiet patterns (a
basis of its null space: press sets that change nothing) and how many boards
are solvable come from the dense elimination or light chasing
(:func:`flipgame.algebra.gf2.structure`): under a second for every square board up
to 60x60.  The distribution of minimum presses over all solvable boards, and
the largest minimum, come from :mod:`flipgame.study.distribution` (the text says
which method it used).

Backends (``--backends``) are timed on a seeded random sample under a per-board
time limit.  Strategies (:func:`compare_strategies`) are run across the
instance families of :data:`FAMILIES`, every answer cross-checked.

Source for the algebra: Anderson & Feil (1998); the counts follow from
rank-nullity (``2**rank`` boards per reachable goal coset).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from flipgame.algebra import gf2 as algebra
from flipgame.algebra import zk
from flipgame.backends import bfs_zk
from flipgame.backends.registry import BACKENDS
from flipgame.backends.result import Status
from flipgame.core import extras
from flipgame.core.errors import RefusedError, RulesError
from flipgame.core.limits import SYSTEM_MAX_BOARDS
from flipgame.model.boards import random_boards
from flipgame.model.grid import Game, format_cells
from flipgame.model.system import PressSystem
from flipgame.pipeline.gate import prepare, solve, solve_batch
from flipgame.study.distribution import distribution

JSON_EXACT_MAX = 2**53
"""Largest integer every JSON reader holds exactly (IEEE double); larger counts are written as text."""


def json_count(value: int, base: int = 2) -> int | str:
    """A count for JSON: the number up to :data:`JSON_EXACT_MAX`, above it text, ``"2**k"`` for a power
    of two or of ``base`` (Python refuses ``str`` of ints over 4300 digits: 120x120 has 2**14400 boards).

    >>> json_count(4096), json_count(2**14400), json_count(3**900, 3)
    (4096, '2**14400', '3**900')
    """
    if value <= JSON_EXACT_MAX:
        return value
    return _power(value, base) or hex(value)


def _power(value: int, base: int) -> str | None:
    """``"b**e"`` when ``value`` is a power of 2 or of ``base``, else None.  O(log value) multiplications."""
    if value & (value - 1) == 0:
        return f"2**{value.bit_length() - 1}"
    e = max(1, round(math.log(value, base))) if base > 2 else 0
    for guess in (e - 1, e, e + 1):
        if guess > 0 and base ** guess == value:
            return f"{base}**{guess}"
    return None


@dataclass
class Study:
    """Everything ``flipgame study`` reports, for any press system over Z_k; ``to_json()`` is its
    machine-readable form.

    On two states the quiet patterns are bitmasks and the kernel has ``2**nullity`` press sets; over Z_k
    (k >= 3) they are tuples of press counts generating a kernel of ``kernel_size`` press vectors (the
    diagonal form's orders; ``nullity`` counts the generators of order k), and ``rank`` is the number of
    buttons minus the generators.
    """

    game: PressSystem
    rank: int
    nullity: int
    quiet_patterns: list
    solvable_boards: int
    total_boards: int
    distribution: list[int] | None = None  # boards needing 0, 1, 2, ... presses; None if not computed
    distribution_note: str = ""
    backend_seconds_per_board: dict[str, float] = field(default_factory=dict)
    backend_notes: dict[str, str] = field(default_factory=dict)
    sample: int = 0
    kernel_size: int | None = None  # k states: the press vectors that change nothing

    @property
    def largest_minimum(self) -> int | None:
        return len(self.distribution) - 1 if self.distribution else None

    def to_json(self) -> dict:
        g = self.game
        base = g.states or 2
        out = {
            "rules": g.to_json(),
            "rank": self.rank,
            "nullity": self.nullity,
            "quiet_patterns": [_pattern(g, q).split("\n") for q in self.quiet_patterns],
            "solvable_boards": json_count(self.solvable_boards, base),
            "total_boards": json_count(self.total_boards, base),
            "distribution": self.distribution,
            "distribution_note": self.distribution_note,
            "largest_minimum": self.largest_minimum,
            "sample_boards": self.sample,
            "backend_seconds_per_board": self.backend_seconds_per_board,
            "backend_notes": self.backend_notes,
        }
        if self.kernel_size is not None:
            out["kernel_size"] = json_count(self.kernel_size, base)
        return out

    def _head(self) -> list[str]:
        """The rules, the press matrix and the solvable boards."""
        g = self.game
        base = g.states or 2
        matrix = f"Press matrix: {g.n} x {g.m}, rank {self.rank}, nullity {self.nullity}"
        if self.kernel_size is not None:
            vectors = "1 press vector" if self.kernel_size == 1 else f"{_count(self.kernel_size, base)} press vectors"
            matrix = f"Press matrix: {g.n} x {g.m} over Z_{g.states}, rank {self.rank}, nullity {self.nullity} " \
                     f"(a kernel of {vectors})"
        return [f"Rules: {g.rules}", matrix,
                f"Solvable boards: {_count(self.solvable_boards, base)} of {_count(self.total_boards, base)} "
                f"({self.solvable_boards / self.total_boards:.4%})"]

    def _quiet(self) -> list[str]:
        """The quiet patterns: a basis over GF(2), generators of the kernel over Z_k."""
        g = self.game
        if not self.quiet_patterns:
            return ["Quiet patterns: none (every board has exactly one press set per goal)"]
        what = "a basis" if g.binary else "generators"
        lines = [f"Quiet patterns ({what} of {len(self.quiet_patterns)}; each changes nothing):"]
        grids = [_pattern(g, q).split("\n") for q in self.quiet_patterns[:8]]
        if not g.buttons_on_cells:
            lines.extend("  " + grid[0] for grid in grids)
        for r in range(g.rows if g.buttons_on_cells and g.cols <= 20 else 0):
            lines.append("  " + "   ".join(grid[r] for grid in grids))
        if len(self.quiet_patterns) > 8:
            lines.append(f"  ... and {len(self.quiet_patterns) - 8} more (see --json)")
        return lines

    def text(self) -> str:
        lines = self._head() + self._quiet()
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


def _count(k: int, base: int = 2) -> str:
    """A board count: exact up to 2**64, else as a power of two or of ``base``, else its order of magnitude
    (no decimal text of thousands of digits)."""
    if k <= 1 << 64:
        return str(k)
    return _power(k, base) or f"about 10**{int(math.log10(k))}"


def study(game: Game, backends: list[str] | None = None, sample: int = 200, seed: int = 0, *,
          options: dict[str, dict] | None = None, progress=None) -> Study:
    """Study one rule set.

    Parameters
    ----------
    game : Game
        Any size the algebra takes: dense elimination up to 2500 x 2500 cells x buttons, light
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
    distribution (see :func:`~flipgame.study.distribution.distribution`) O(2**n); then ``sample`` solves
    per timed backend, each under its time limit (10 s unless given).

    >>> study(Game(3, 3)).nullity
    0
    >>> study(Game(3, 3, "0", states=3)).distribution[-1]  # Lights Out 2000: one board needs 18 presses
    1
    """
    if game.binary:
        rank, k, quiet = algebra.structure(game)
        st = Study(game, rank, k, quiet, len(_goals_in_distinct_cosets(game)) << rank, 1 << game.n)
        st.distribution, st.distribution_note = distribution(game)
    else:
        st = _zk_study(game)
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


def _zk_study(system: PressSystem) -> Study:
    """The structure of a k-state press system (k >= 3): the kernel of its press matrix over Z_k (a diagonal
    form), how many boards are solvable, and, up to :data:`SYSTEM_MAX_BOARDS` boards, the distribution of
    minimum presses from the bfs table.  Running time: the diagonal form, then O(k^n m k) for the table.

    Raises RulesError for counters (no finite board set), BoardTooLargeError past
    :data:`~flipgame.core.limits.ZK_DENSE_MAX_CELLS` cells or buttons (the diagonal form has no time limit here).
    """
    if system.states is None:
        raise RulesError("the structure study takes Z_k systems; counters have no finite board set "
                         "(flipgame solve answers them)")
    k, n = system.states, system.cells
    diag = zk.quick_diagonal(system)
    gens = diag.kernel_generators()
    quiet = [tuple(int(v) for v in vec) for vec, _ in gens]
    kernel = diag.kernel_size
    st = Study(system, system.m - len(gens), diag.nullity, quiet, 0, k ** n, kernel_size=kernel)
    if k ** n > SYSTEM_MAX_BOARDS:
        images = k ** system.m // kernel  # boards reachable from one goal: |A Z_k^m| = k^m / |kernel|
        st.solvable_boards = _zk_goal_cosets(system, diag) * images
        st.distribution_note = f"{k}^{n} boards are too many to enumerate; the bfs table takes up to " \
                               f"{SYSTEM_MAX_BOARDS:,}"
        return st
    table = bfs_zk.distance_table(system).reshape(-1)
    inf = np.iinfo(table.dtype).max
    st.solvable_boards = int((table != inf).sum())
    st.distribution = np.bincount(table[table != inf].astype(np.int64)).tolist()
    st.distribution_note = "exhaustive, from the bfs distance table"
    return st


def _zk_goal_cosets(system: PressSystem, diag: zk.Diagonal) -> int:
    """How many distinct cosets of the image the goal boards lie in (goals t, u share one iff t - u is
    reachable from 0)."""
    goals: list[np.ndarray] = []
    for t in system.targets:
        t = np.asarray(t, dtype=np.int64)
        if not any(diag.particular(t - u)[0] is not None for u in goals):
            goals.append(t)
    return len(goals)


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
        boards = random_boards(game, rng, part)
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


def plot(st: Study, path: str) -> None:
    """Draw the distribution and the backend timings to a PNG with matplotlib (Agg backend).  Raises
    :class:`~flipgame.core.extras.ExtraMissingError` without matplotlib."""
    matplotlib = extras.require("matplotlib", "--plot")

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timed = bool(st.backend_seconds_per_board)  # without --backends only the distribution is drawn
    fig, axes = plt.subplots(1, 2 if timed else 1, figsize=(11 if timed else 5.8, 4.2), squeeze=False)
    left = axes[0][0]
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
    base = st.game.states or 2
    left.set_title(f"{st.game.rules}: {_count(st.solvable_boards, base)} of {_count(st.total_boards, base)} boards "
                   f"solvable, "
                   f"nullity {st.nullity}", fontsize=9)
    if timed:
        _timings(axes[0][1], st)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _timings(ax, st: Study) -> None:
    """The backends' mean time per board, one bar each (log scale)."""
    names = list(st.backend_seconds_per_board)
    ms = [st.backend_seconds_per_board[n] * 1000 for n in names]
    ax.barh(names, ms, color="#c0504d")
    ax.set_xscale("log")
    ax.set_xlabel(f"ms per board (mean of {st.sample}, log scale)")
    ax.set_title("backend time per board", fontsize=9)
    for y, v in enumerate(ms):
        ax.annotate(f"{v:.3g} ms", (v, y), va="center", fontsize=8)


def _pattern(game: PressSystem, presses) -> str:
    """A press set as ``--presses`` draws it: on a grid x/. rows (two states) or the counts as rows, else the
    buttons pressed (with their counts beyond two states)."""
    if not game.binary:
        return game.format_board(presses) if game.buttons_on_cells else "buttons " + game.format_presses(presses)
    if game.buttons_on_cells:
        return format_cells(presses, game.rows, game.cols, "x", ".")
    return "buttons " + (" ".join(str(j) for j in range(game.m) if presses >> j & 1) or "(none)")

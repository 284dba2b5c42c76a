"""``flipgame study``: the structure of one rule set, and how the backends compare on it.

Reports the rank and nullity of the press matrix, the quiet patterns (a basis
of its null space: press sets that change nothing), how many boards are
solvable, the distribution of minimum presses over all boards when that is
feasible (from the bfs distance table, up to :data:`solvers.bfs.MAX_CELLS`
cells), the largest minimum, and each backend's time per board on a seeded
random sample.  Source for the algebra: Anderson & Feil (1998); the counts
follow from rank-nullity (``2**rank`` boards per reachable goal coset).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from . import BACKENDS, algebra, bfs, solve, solve_batch
from .board import Game, format_cells
from .result import Status


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
            "solvable_boards": self.solvable_boards,
            "total_boards": self.total_boards,
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
            lines.append("Minimum presses over all solvable boards:")
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
        If neither the dense elimination nor light chasing takes the board, or
        a timed backend refuses it.

    Running time: the elimination O(n^3 / w) (or chasing O(side * n)); the
    distribution O(2**n n) via the bfs table (n <= 24); then ``sample``
    bounded solves per timed backend.

    >>> study(Game(3, 3)).nullity
    0
    """
    rank, k, quiet = algebra.structure(game)
    # Goal boards in one coset of the column space count once: two goals t, u share a coset iff t ^ u is
    # reachable from 0, i.e. iff board t ^ u is solvable towards white.
    white = Game(game.rows, game.cols, "white", game.wrap, game.neighbourhood, game.stencil)
    goals: list[int] = []
    for t in sorted(set(game.targets)):
        if not any(algebra.solution_cosets(white, t ^ u)[0] for u in goals):
            goals.append(t)
    st = Study(game, rank, k, quiet, len(goals) << rank, 1 << game.n)
    if game.n <= bfs.MAX_CELLS:
        table = bfs.distance_table(game if game.goal != "board" else white)
        counts = np.bincount(table[table != bfs.UNREACHABLE])
        st.distribution = counts.tolist()
        st.distribution_note = "exhaustive, from the bfs distance table"
    else:
        st.distribution_note = f"{game.n} cells: 2**{game.n} boards are too many to enumerate (limit {bfs.MAX_CELLS})"
    options = options or {}
    rng = np.random.default_rng(seed)
    st.sample = sample if backends else 0
    for name in backends or []:
        opts = dict(options.get(name, {}))
        if any(o.name == "time_limit" for o in BACKENDS[name].options):
            opts.setdefault("time_limit", 10.0)
        start = time.perf_counter()
        unknown = 0
        step = max(1, sample // 10)
        for done in range(0, sample, step):
            part = min(step, sample - done)
            if game.n <= 64:
                boards = rng.integers(0, 1 << game.n, size=part, dtype=np.uint64, endpoint=False) \
                    if game.n < 64 else rng.integers(0, 2**64 - 1, size=part, dtype=np.uint64, endpoint=True)
                out = solve_batch(boards, game, name, **opts)
                unknown += int(np.sum((out.status != Status.OPTIMAL) & (out.status != Status.INFEASIBLE)))
            else:
                for _ in range(part):
                    board = int.from_bytes(rng.bytes((game.n + 7) // 8), "little") & game.full
                    s = solve(board, name, game=game, **opts)
                    unknown += s.status not in (Status.OPTIMAL, Status.INFEASIBLE)
            if progress:
                progress(name, done + part, sample)
        st.backend_seconds_per_board[name] = (time.perf_counter() - start) / sample
        if unknown:
            st.backend_notes[name] = f"{unknown} of {sample} boards without a proven answer (time limit)"
    return st


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

"""The minimum over a large null space as a long run: symmetry, blocks, progress, Ctrl-C and resuming.

Method.  Each coset ``x ^ span(N)`` of a board (one per reachable goal) is enumerated by
the blocked Walsh-Hadamard transform of :mod:`flipgame.algebra.wht_blocked`, over a basis
adapted to the board's symmetry group (:mod:`flipgame.algebra.symmetry`): only the
groups that are the smallest of their orbit are transformed, which divides the work by
up to the group's order (8 for a symmetric square board).  The groups run in *blocks*
of :data:`BLOCK_GROUPS` consecutive indices, in order; each block is one parallel call
of the compiled kernel (numba prange over the groups, every core).  Between blocks:

* a progress bar on stderr (tqdm) with the rate and the time left, once the run has
  taken :data:`PROGRESS_DELAY_SECONDS`;
* the state (the next block of each coset, and the lightest solution so far) goes to
  the checkpoint file, if any, with the first solution found, then every
  :data:`CHECKPOINT_SECONDS`, at the end of each coset and on Ctrl-C
  (:mod:`flipgame.algebra.coset_checkpoint`); a run given that file again resumes after
  the last finished block and ends with the same minimum and witness;
* Ctrl-C raises :class:`InterruptedRun` (a KeyboardInterrupt) carrying the lightest
  solution found so far: an upper bound, not a proven minimum;
* past a deadline (a backend's time limit), :class:`TimedOutRun` (a TimeoutError) carries it
  the same way, the checkpoint written first.

Ties: the first lightest solution met in block order (strictly lighter ones replace it);
a resumed run meets the same one.

Running time: O(2**k / |G| * (low + 4 + e / 16) / cores) additions for k = nullity, |G|
symmetries and e distinct cell codes, at :data:`RATE` on this machine; memory
O(n + cores * 2**(low + 4)).

Sources: the Walsh-Hadamard transform (R. O'Donnell, "Analysis of Boolean Functions",
2014, ch. 1); orbits and Burnside's lemma (W. Burnside, "Theory of Groups of Finite
Order", 1897).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from flipgame.algebra import minweight, symmetry, wht_blocked
from flipgame.algebra.coset_checkpoint import Best, Checkpoint, RunState
from flipgame.core import extras
from flipgame.core.measured import figure
from flipgame.model.system import PressSystem

RATE_FALLBACK = 2.0e9
"""Null-space assignments per second when no measured run has been written (the all-lit 61x61 coset cut to
32 basis vectors ran at 2.1e9 per CPU second, the 39x39 all-lit coset at 2.6e9, on this 2-core machine)."""
RATE = figure("coset.rate") or RATE_FALLBACK
"""Null-space assignments enumerated per second, the one figure every estimate uses (the refusal above
``--max-nullity``, ``auto``'s choice, the study): measured by ``make bench`` on a random solvable 39x39 board
(nullity 32, no symmetry; :mod:`flipgame.core.measured`), else :data:`RATE_FALLBACK`."""
FAR_BEYOND = 3.2e19
"""Seconds (10**12 years) past which a message says only "more than 10**12 years"."""
BLOCK_GROUPS = 1 << 10
"""Groups per block: 2**28 assignments at 14 low bits, about 0.1 s without symmetry at :data:`RATE`, so
that Ctrl-C, the progress bar and the checkpoint follow within a fraction of a second."""
CHECKPOINT_SECONDS = 30.0
"""Seconds between checkpoint writes (and on Ctrl-C and at the end of each coset)."""
PROGRESS_DELAY_SECONDS = 3.0
"""A run shows its progress bar once it has taken this long (shorter runs print nothing)."""


class StoppedRun:
    """What a long enumeration stopped before its end leaves: ``best``, the lightest solution found so far (or
    None), an upper bound on the minimum that is not proven; ``checkpoint``, the file that resumes the run;
    ``done``, the fraction of the solutions enumerated."""

    def __init__(self, best: Best | None = None, checkpoint: str | None = None, done: float = 0.0):
        self.best, self.checkpoint, self.done = best, checkpoint, done

    def __reduce__(self):  # a worker process hands it back whole
        return type(self), (self.best, self.checkpoint, self.done)

    def bound_text(self) -> str:
        """``Unknown (at most N presses found, not proven minimal)``, or ``Unknown (no solution found yet)``."""
        return f"Unknown ({self.best.bound() if self.best else 'no solution found yet'})"

    def found(self, game: PressSystem, board: int) -> str:
        """``at most N presses found, not proven minimal`` once the board model has re-applied the press set
        behind the bound, or ``no solution found yet``."""
        if self.best is None:
            return "no solution found yet"
        if game.apply(board, self.best.presses) not in game.targets:
            return "the lightest press set found so far failed the board model's check"
        return self.best.bound()

    def checked_text(self, game: PressSystem, board: int) -> str:
        """``Unknown (`` :meth:`found` ``)``, and the ``--checkpoint`` that resumes the run."""
        return f"Unknown ({self.found(game, board)})" + self.resume_text()

    def resume_text(self) -> str:
        """``; --checkpoint FILE resumes the run``, or nothing without a checkpoint."""
        return f"; --checkpoint {self.checkpoint} resumes the run" if self.checkpoint else ""


class InterruptedRun(StoppedRun, KeyboardInterrupt):
    """Ctrl-C during a long enumeration (see :class:`StoppedRun`)."""

    def __init__(self, best: Best | None = None, checkpoint: str | None = None, done: float = 0.0):
        KeyboardInterrupt.__init__(self, "interrupted")
        StoppedRun.__init__(self, best, checkpoint, done)


class TimedOutRun(StoppedRun, TimeoutError):
    """The deadline passed during a long enumeration (see :class:`StoppedRun`); the checkpoint is written."""

    def __init__(self, best: Best | None = None, checkpoint: str | None = None, done: float = 0.0):
        TimeoutError.__init__(self, "time limit reached")
        StoppedRun.__init__(self, best, checkpoint, done)


@dataclass
class Part:
    """One coset of the run: the goal ``target``, its symmetry action and the kernel's layout."""

    target: int
    action: symmetry.CosetAction
    codes: tuple
    m: int
    w0: int
    orbits: int
    blocks: int = field(init=False)

    def __post_init__(self):
        self.blocks = -(-(1 << self.action.outer) // BLOCK_GROUPS)

    @property
    def assignments(self) -> int:
        """Assignments this part enumerates: one group of 2**inner per orbit."""
        return self.orbits << self.action.inner


@dataclass(frozen=True)
class Result:
    """A finished run: the lightest solution, the symmetry order used and the assignments enumerated."""

    best: Best
    symmetries: int
    enumerated: int
    seconds: float


def _actions(game: PressSystem, board: int, parts: Sequence[tuple[int, int]], quiet: Sequence[int],
             use_symmetry: bool) -> list[tuple[int, symmetry.CosetAction]]:
    inner = wht_blocked.low_bits(len(quiet)) + wht_blocked.LANE_BITS
    out = []
    for x, t in parts:
        group = symmetry.stabiliser(game, board ^ t) if use_symmetry else []
        out.append((t, symmetry.coset_action(x, quiet, group, inner)))
    return out


def plan(game: PressSystem, board: int, parts: Sequence[tuple[int, int]], quiet: Sequence[int], *,
         use_symmetry: bool = True) -> list[Part]:
    """The cosets of ``board`` (``parts`` and ``quiet`` as :func:`flipgame.algebra.gf2.solution_cosets`
    gives them) laid out for the blocked transform, each in a basis adapted to its symmetry group.

    Raises ValueError above :data:`flipgame.algebra.minweight.MAX_NULLITY`.  O(k^3 |G| + n k) per coset.
    """
    k = len(quiet)
    out = []
    for t, action in _actions(game, board, parts, quiet, use_symmetry):
        codes, f, m, w0 = minweight.prepare(action.x, action.basis, game.m)
        laid = wht_blocked.layout(codes, f, wht_blocked.low_bits(k), m)
        out.append(Part(t, action, laid, m, w0, action.orbit_count()))
    return out


def estimate(game: PressSystem, board: int, parts: Sequence[tuple[int, int]], quiet: Sequence[int], *,
             use_symmetry: bool = True) -> tuple[float, int]:
    """``(seconds, symmetries)``: the time :func:`minimum` takes on this board at :data:`RATE`, and the
    order of its largest symmetry group.  Any nullity (no kernel layout is built).  O(k^3 |G|) per coset."""
    actions = _actions(game, board, parts, quiet, use_symmetry)
    work = sum(a.orbit_count() << a.inner for _, a in actions)
    return seconds_for(work), max((a.order for _, a in actions), default=1)


def estimated_seconds(parts: Sequence[Part]) -> float:
    """Seconds the enumeration of ``parts`` takes at :data:`RATE`."""
    return seconds_for(sum(p.assignments for p in parts))


def seconds_for(work: int) -> float:
    """Seconds ``work`` additions take at :data:`RATE`; ``inf`` past a float's range (nullity in the
    thousands), never an OverflowError."""
    return work / RATE if work.bit_length() < 1000 else math.inf


def describe(seconds: float) -> str:
    """A duration for a message: ``under a second``, ``about 42 s``, ``about 2.0 h``, ``about 3.5 days``.

    >>> describe(0.2), describe(42), describe(7200), describe(3e5)
    ('under a second', 'about 42 s', 'about 2.0 h', 'about 3.5 days')
    """
    if seconds < 1:
        return "under a second"
    if seconds > FAR_BEYOND:
        return "more than 10**12 years"
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        if seconds >= 2 * size or unit == "s":
            value = seconds / size
            return f"about {value:,.0f} {unit}" if value >= 10 or unit == "s" else f"about {value:.1f} {unit}"
    raise AssertionError  # pragma: no cover


def _element(action: symmetry.CosetAction, a: int) -> int:
    x = action.x
    for i, b in enumerate(action.basis):
        if a >> i & 1:
            x ^= b
    return x


def enumerate_block(part: Part, k: int, block: int, best: Best | None) -> tuple[Best | None, int]:
    """Enumerate one block of ``part``; returns the lighter of ``best`` and the block's lightest, and the
    number of groups transformed."""
    start = block * BLOCK_GROUPS
    groups = part.action.representatives(start, min(start + BLOCK_GROUPS, 1 << part.action.outer))
    if not groups.size:
        return best, 0
    tops = wht_blocked.group_maxima(part.codes, k, groups)
    top = int(tops.max())
    weight = part.w0 + (part.m - top) // 2
    if best is not None and weight >= best.weight:
        return best, groups.size
    first = groups[np.flatnonzero(tops == top)[:1]]
    _, arg, _ = wht_blocked.group_maxima(part.codes, k, first, full=True)
    a = (int(first[0]) << part.action.inner) | int(arg[0])
    x = _element(part.action, a)
    if x.bit_count() != weight:  # pragma: no cover - a kernel fault
        raise RuntimeError(f"the transform gives {weight} presses, the assembled press set {x.bit_count()}")
    return Best(weight, x, part.target), groups.size


class Progress:
    """The stderr progress bar (tqdm), or nothing; ``show`` None shows it on a terminal only."""

    def __init__(self, total: int, done: int, desc: str, show: bool | None):
        if not extras.installed("tqdm"):  # the progress extra: without it, no bar
            self.bar = None
            return
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=done, unit="sol", unit_scale=True, desc=desc, file=sys.stderr,
                        delay=0 if show else PROGRESS_DELAY_SECONDS, disable=None if show is None else not show,
                        dynamic_ncols=True, smoothing=0.1)

    def update(self, count: int, best: Best | None) -> None:
        if self.bar is None:
            return
        if best is not None:
            self.bar.set_postfix_str(f"lightest {best.weight}", refresh=False)
        self.bar.update(count)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def minimum(game: PressSystem, board: int, parts: Sequence[tuple[int, int]], quiet: Sequence[int], *,
            use_symmetry: bool = True, checkpoint: str | None = None, progress: bool | None = None,
            deadline: float | None = None) -> Result:
    """The lightest press set over every coset of ``board``, by a long blocked enumeration.

    Parameters
    ----------
    game, board
        The rules (goal normalised) and the board (bitmask).
    parts, quiet
        As :func:`flipgame.algebra.gf2.solution_cosets` returns them (at least one part).
    use_symmetry : bool
        Enumerate one group per orbit of the board's symmetry group (see
        :mod:`flipgame.algebra.symmetry`); False enumerates every group.
    checkpoint : str, optional
        A file that keeps the run's state: a fresh run creates it, a run of the same board
        resumes from it.
    progress : bool or None
        True: a progress bar from the start; False: none; None: on a terminal, after
        :data:`PROGRESS_DELAY_SECONDS`.
    deadline : float, optional
        A ``time.perf_counter()`` value: the run stops at the first block boundary past it (a
        block takes about 0.1 s, see :data:`BLOCK_GROUPS`).

    Returns
    -------
    Result
        The lightest press set (ties: the first met), the symmetry group's order, the
        assignments enumerated and the seconds taken.

    Raises
    ------
    InterruptedRun
        On Ctrl-C, with the lightest solution so far (the checkpoint written first).
    TimedOutRun
        Past ``deadline``, likewise.
    CheckpointError
        A checkpoint of another board, rules or layout, damaged, or not writable.
    ValueError
        Nullity over :data:`flipgame.algebra.minweight.MAX_NULLITY`.
    """
    start = time.perf_counter()
    k = len(quiet)
    laid = plan(game, board, parts, quiet, use_symmetry=use_symmetry)
    store = Checkpoint.open(checkpoint, game, board, laid, BLOCK_GROUPS) if checkpoint else None
    state = store.state if store else Checkpoint.fresh(laid)
    total = sum(p.assignments for p in laid)
    order = max(p.action.order for p in laid)
    desc = f"nullity {k}" + (f", {order} symmetries" if order > 1 else "")
    bar = Progress(total, min(total, state.enumerated), desc, progress)
    try:
        _run_blocks(laid, k, state, store, bar, deadline)
    except KeyboardInterrupt:
        if store:
            store.save(state)
        raise InterruptedRun(state.best, checkpoint, state.enumerated / total) from None
    except TimedOutRun:
        if store:
            store.save(state)
        raise TimedOutRun(state.best, checkpoint, state.enumerated / total) from None
    finally:
        bar.close()
    return Result(state.best, order, state.enumerated, time.perf_counter() - start)


def _run_blocks(laid: Sequence[Part], k: int, state: RunState, store: Checkpoint | None, bar: Progress,
                deadline: float | None) -> None:
    """Enumerate every block not yet finished, in order, into ``state``; the checkpoint with the first solution
    found, every :data:`CHECKPOINT_SECONDS` and at the end of each coset; TimedOutRun past ``deadline``."""
    saved, first = time.perf_counter(), state.best is None
    for i, part in enumerate(laid):
        while state.next_block[i] < part.blocks:
            if deadline is not None and time.perf_counter() >= deadline:
                raise TimedOutRun()
            best, groups = enumerate_block(part, k, state.next_block[i], state.best)
            state.advance(i, best, groups << part.action.inner)
            bar.update(groups << part.action.inner, state.best)
            if store and (time.perf_counter() - saved > CHECKPOINT_SECONDS or first and state.best):
                store.save(state)
                saved, first = time.perf_counter(), False
        if store:
            store.save(state)


__all__ = ["BLOCK_GROUPS", "RATE", "Best", "InterruptedRun", "Part", "Progress", "Result", "StoppedRun", "TimedOutRun",
           "describe", "enumerate_block", "estimate", "estimated_seconds", "minimum", "plan"]

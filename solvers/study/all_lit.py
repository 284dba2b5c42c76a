"""OEIS A075464 as a study: the fewest presses that turn the all-lit n x n Lights Out board off.

Rules: plus neighbourhood, no wrap-around, goal all white, board all black.  For each n
the solutions are one coset of the null space (nullity k), found by light chasing
(:func:`flipgame.algebra.gf2.solution_cosets`); the minimum is

* at nullity up to :data:`DIRECT_MAX_NULLITY`: :func:`flipgame.algebra.gf2.min_weight`;
* above, up to 48: :func:`flipgame.algebra.coset_run.minimum`, one group of
  solutions per orbit of the square's 8 symmetries (the all-lit board is fixed by all
  of them), parallel over the cores;
* above 48 (n = 79, nullity 64): no exact value; :func:`upper_bound` searches the
  coset (:func:`flipgame.algebra.coset_search.search`) for an upper bound.

Every witness is re-applied by the board model (:meth:`flipgame.model.grid.Game.apply`)
before its count is reported, and every term with a published value
(:data:`A075464`) is compared with it.

Source: OEIS A075464 (E. W. Weisstein; terms by L. Reid, M. Alekseyev and Zhao Hui Du,
whose b-file gives n = 1..78).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from flipgame.algebra import coset_run, coset_search, minweight, symmetry
from flipgame.algebra import gf2 as algebra
from flipgame.algebra.chase import last_row_system
from flipgame.model.grid import Game, format_cells
from flipgame.study import cover_bound
from flipgame.verify.proofs import cover_check

A075464 = (1, 4, 5, 4, 15, 28, 33, 40, 25, 44, 55, 72, 105, 56, 117, 104, 147, 188, 141, 224, 245, 276, 231, 270,
           353, 356, 405, 416, 345, 376, 553, 428, 469, 520, 563, 600, 761, 772, 561, 696, 891, 940, 953, 772, 1069,
           1188, 971, 1096, 1165, 1220, 1317, 1256, 1487, 1400)
"""The published terms a(1..54) of OEIS A075464 (the data section of the entry)."""
DIRECT_MAX_NULLITY = 16
"""Up to this nullity the minimum is one transform (under a tenth of a second); above, the symmetric long run."""


@dataclass(frozen=True)
class Term:
    """One n: ``presses`` (the minimum, or with ``proven`` False an upper bound), its nullity, the symmetry
    order used, the seconds taken, the witness (press set) and the published value, if any."""

    n: int
    presses: int
    nullity: int
    symmetries: int
    seconds: float
    witness: int
    proven: bool = True

    @property
    def published(self) -> int | None:
        return A075464[self.n - 1] if self.n <= len(A075464) else None

    @property
    def agrees(self) -> bool:
        """False when a proven minimum differs from the published value."""
        return not self.proven or self.published is None or self.published == self.presses

    def to_json(self) -> dict:
        return {"n": self.n, "presses": self.presses, "proven": self.proven, "nullity": self.nullity,
                "symmetries": self.symmetries, "seconds": round(self.seconds, 3), "published": self.published}


def rules(n: int) -> Game:
    """The all-lit n x n game: plus neighbourhood, no wrap, goal white (its board is ``rules(n).full``)."""
    return Game(n, n, "white")


def nullity(n: int) -> int:
    """Nullity of the n x n plus press matrix, by light chasing (cached per n)."""
    return last_row_system(rules(n)).nullity


def _checked(game: Game, presses: int) -> int:
    """The number of presses, once the board model confirms they turn the all-lit board off."""
    if game.apply(game.full, presses) != 0:
        raise RuntimeError(f"{game.size}: the press set found does not turn the all-lit board off")
    return presses.bit_count()


def term(n: int, *, progress: bool | None = None) -> Term:
    """a(n), by enumeration (nullity at most :data:`flipgame.algebra.minweight.MAX_NULLITY`).

    Raises
    ------
    ValueError
        Nullity over 48 (use :func:`upper_bound`).
    RuntimeError
        A witness that the board model rejects.
    InterruptedRun
        Ctrl-C during a long run.
    """
    start = time.perf_counter()
    game = rules(n)
    parts, quiet, _ = algebra.solution_cosets(game, game.full, "chase")
    k = len(quiet)
    if k > minweight.MAX_NULLITY:
        raise ValueError(f"a({n}): nullity {k}, over the {minweight.MAX_NULLITY} that can be enumerated")
    if k <= DIRECT_MAX_NULLITY:
        x, order = algebra.min_weight(parts[0][0], quiet, game.m), 1
    else:
        run = coset_run.minimum(game, game.full, parts, quiet, progress=progress)
        x, order = run.best.presses, run.symmetries
    return Term(n, _checked(game, x), k, order, time.perf_counter() - start, x)


def terms(ns: Iterable[int], *, progress: bool | None = None,
          on_term: Callable[[Term], None] | None = None) -> list[Term]:
    """:func:`term` for each n, in order; ``on_term`` is called as each one is done."""
    out = []
    for n in ns:
        t = term(n, progress=progress)
        if on_term:
            on_term(t)
        out.append(t)
    return out


def upper_bound(n: int, seconds: float, *, seed: int = 0,
                on_better: Callable[[coset_search.Found], None] | None = None) -> Term:
    """An upper bound on a(n) from a search of ``seconds`` over the coset (any nullity), its witness
    re-applied by the board model; ``proven`` is False.  See :func:`flipgame.algebra.coset_search.search`."""
    start = time.perf_counter()
    game = rules(n)
    parts, quiet, _ = algebra.solution_cosets(game, game.full, "chase")
    group = symmetry.stabiliser(game, game.full)
    found = coset_search.search(parts[0][0], quiet, game.m, seconds, symmetries=group, seed=seed,
                                on_better=on_better)
    return Term(n, _checked(game, found.presses), len(quiet), len(group), time.perf_counter() - start,
                found.presses, proven=False)


@dataclass(frozen=True)
class LowerBound:
    """A proven lower bound on a(n): ``presses``, from the covering LP's dual ``weights`` (cell ->
    Fraction), checked by :func:`flipgame.verify.proofs.cover_check.cover_lower_bound`."""

    n: int
    presses: int
    nullity: int
    seconds: float
    weights: dict


def lower_bound(n: int) -> LowerBound:
    """A lower bound on a(n) at any nullity: the covering LP of :mod:`flipgame.study.cover_bound`, its
    weights checked in exact arithmetic (RuntimeError if the check refuses them: a bug, never a bound)."""
    start = time.perf_counter()
    game = rules(n)
    weights, bound = cover_bound.cover_certificate(game.press_masks, game.full)
    try:
        checked = cover_check.cover_lower_bound(game.press_masks, game.full, weights)
    except ValueError as exc:
        raise RuntimeError(f"a({n}): the covering weights fail their check: {exc}") from exc
    if checked != bound:
        raise RuntimeError(f"a({n}): the covering weights prove {checked}, not {bound}")
    return LowerBound(n, checked, nullity(n), time.perf_counter() - start, weights)


def lower_bound_text(b: LowerBound) -> str:
    """The weights as text, a comment line first."""
    return (f"# A075464 a({b.n}) >= {b.presses}: covering LP dual weights, one 'row col p/q' line per lit cell "
            f"of nonzero weight; every press covers weight at most 1 (flipgame.verify.proofs.cover_check)\n"
            + cover_bound.certificate_text(b.weights, b.n))


def bfile_line(t: Term) -> str:
    """One line of an OEIS b-file: ``n a(n)``."""
    return f"{t.n} {t.presses}"


def witness_text(t: Term) -> str:
    """The witness as text: a comment line, then the press set as rows of ``x`` (press) and ``.``."""
    what = "minimum" if t.proven else "upper bound (not proven minimal)"
    return (f"# A075464 a({t.n}) {what}: {t.presses} presses turn the all-lit {t.n}x{t.n} Lights Out board off "
            f"(plus, no wrap); re-applied by Game.apply\n" + format_cells(t.witness, t.n, t.n, "x", ".") + "\n")


__all__ = ["A075464", "LowerBound", "Term", "bfile_line", "lower_bound", "lower_bound_text", "nullity", "rules", "term",
           "terms", "upper_bound", "witness_text"]

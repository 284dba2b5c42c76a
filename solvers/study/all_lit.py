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
before its count is reported, every term with a published value (:data:`A075464`) is
compared with it, and every term is checked a second time by
:mod:`flipgame.verify.proofs.all_lit_check`, which shares no code with this one: up to
nullity 24 by its own elimination and enumeration of the whole coset, above by its own
enumeration of :data:`SAMPLE_GROUPS` groups of the long run drawn at random (:func:`sample_groups`).

Source: OEIS A075464 (E. W. Weisstein; terms by L. Reid, M. Alekseyev and Zhao Hui Du,
whose b-file gives n = 1..78).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from flipgame.algebra import coset_run, coset_search, minweight, symmetry, wht_blocked
from flipgame.algebra import gf2 as algebra
from flipgame.algebra.chase import last_row_system
from flipgame.backends.base import interruptible
from flipgame.core import extras
from flipgame.model.grid import Game, format_cells
from flipgame.study import cover_bound, long_run
from flipgame.verify.proofs import all_lit_check, cover_check

A075464 = (1, 4, 5, 4, 15, 28, 33, 40, 25, 44, 55, 72, 105, 56, 117, 104, 147, 188, 141, 224, 245, 276, 231, 270,
           353, 356, 405, 416, 345, 376, 553, 428, 469, 520, 563, 600, 761, 772, 561, 696, 891, 940, 953, 772, 1069,
           1188, 971, 1096, 1165, 1220, 1317, 1256, 1487, 1400)
"""The published terms a(1..54) of OEIS A075464 (the data section of the entry)."""
DIRECT_MAX_NULLITY = 16
"""Up to this nullity the minimum is one transform (under a tenth of a second); above, the symmetric long run."""
PUBLISHED_MAX = 78
"""The last n of the published b-file (Zhao Hui Du, n = 1..78); later terms are marked as beyond it."""
SAMPLE_GROUPS = 8
"""Groups of a long run (nullity over :data:`flipgame.verify.proofs.all_lit_check.ENUMERATION_MAX_NULLITY`)
enumerated again by the second check, drawn at random (seed n): about 0.3 s each at n = 119."""


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
    check: str = ""
    """How the second check confirmed the term (empty: not checked, e.g. an upper bound)."""

    @property
    def published(self) -> int | None:
        return A075464[self.n - 1] if self.n <= len(A075464) else None

    @property
    def agrees(self) -> bool:
        """False when a proven minimum differs from the published value."""
        return not self.proven or self.published is None or self.published == self.presses

    def to_json(self) -> dict:
        return {"n": self.n, "presses": self.presses, "proven": self.proven, "nullity": self.nullity,
                "symmetries": self.symmetries, "seconds": round(self.seconds, 3), "published": self.published,
                "check": self.check}


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


def term(n: int, *, progress: bool | None = None, checkpoint: str | None = None,
         scheduler: str | None = None) -> Term:
    """a(n), by enumeration (nullity at most :data:`flipgame.algebra.minweight.MAX_NULLITY`), checked a second
    time (:func:`second_check`); ``checkpoint`` keeps a long run's state (:func:`flipgame.algebra.coset_run.minimum`).
    With ``scheduler`` (``local:N`` or a Dask address) a long run goes in chunks to a cluster
    (:func:`flipgame.study.long_run.chunked_minimum`), ``checkpoint`` then being its chunk manifest.

    Raises
    ------
    ValueError
        Nullity over 48 (use :func:`upper_bound`).
    RuntimeError
        A witness that the board model rejects, or a term the second check refutes.
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
    elif scheduler:
        chunked = long_run.chunked_minimum(game, game.full, parts, quiet, scheduler=scheduler, manifest=checkpoint,
                                           progress=progress)
        x, order = chunked.best.presses, chunked.symmetries
    else:
        run = coset_run.minimum(game, game.full, parts, quiet, progress=progress, checkpoint=checkpoint)
        x, order = run.best.presses, run.symmetries
    found = Term(n, _checked(game, x), k, order, time.perf_counter() - start, x)
    return dataclasses.replace(found, check=second_check(found))


def second_check(t: Term) -> str:
    """Check ``t`` with :mod:`flipgame.verify.proofs.all_lit_check` (no code shared): its witness re-applied,
    then the whole coset up to nullity 24, else :data:`SAMPLE_GROUPS` groups of the long run.  Returns how;
    RuntimeError when the check refutes the term."""
    try:
        if t.n > all_lit_check.MAX_SIDE:
            all_lit_check.check_witness(t.n, t.presses, t.witness)
            return f"witness re-applied only (the second elimination takes n <= {all_lit_check.MAX_SIDE})"
        if t.nullity <= all_lit_check.ENUMERATION_MAX_NULLITY:
            return all_lit_check.check_term(t.n, t.presses, t.witness, t.nullity).how
        all_lit_check.check_witness(t.n, t.presses, t.witness)
        samples = sample_groups(t.n, SAMPLE_GROUPS, seed=t.n)
    except all_lit_check.CheckFailed as exc:
        raise RuntimeError(f"the second check refutes a({t.n}) = {t.presses}: {exc}") from exc
    wrong = [s for s in samples if s.presses != s.checked or s.checked < t.presses]
    if wrong:
        raise RuntimeError(f"the second check refutes a({t.n}) = {t.presses}: group {wrong[0].group} of coset "
                           f"{wrong[0].part} has {wrong[0].checked} presses, the transform says {wrong[0].presses}")
    return f"witness re-applied; {len(samples)} random groups of 2^{samples[0].size} solutions enumerated again"


@dataclass(frozen=True)
class GroupSample:
    """One group of a long run enumerated twice: coset ``part``, group index ``group`` (``size`` inner
    coordinates), its lightest by the transform (``presses``) and by the second check (``checked``)."""

    part: int
    group: int
    size: int
    presses: int
    checked: int


def sample_groups(n: int, count: int, *, seed: int) -> list[GroupSample]:
    """``count`` groups of a(n)'s long run, drawn at random (``seed``), each minimised by the blocked transform
    and by :func:`flipgame.verify.proofs.all_lit_check.group_minimum` (its offset and null vectors re-applied
    there).  O(count * 2**18 * n^2 / 64)."""
    game = rules(n)
    parts, quiet, _ = algebra.solution_cosets(game, game.full, "chase")
    laid = coset_run.plan(game, game.full, parts, quiet)
    rng, out = random.Random(seed), []
    for _ in range(count):
        i = rng.randrange(len(laid))
        part, inner = laid[i], laid[i].action.inner
        g = rng.randrange(1 << part.action.outer)
        top = int(wht_blocked.group_maxima(part.codes, len(quiet), np.array([g], dtype=np.int64))[0])
        offset = part.action.x ^ symmetry.combine(part.action.basis[inner:], g)
        checked = all_lit_check.group_minimum(n, offset, list(part.action.basis[:inner]))
        out.append(GroupSample(i, g, inner, part.w0 + (part.m - top) // 2, checked))
    return out


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


def upper_bound(n: int, seconds: float, *, seed: int = 0, on_better: Callable[[Term, str], None] | None = None) -> Term:
    """An upper bound on a(n) from a search of ``seconds`` over the coset (any nullity), its witness
    re-applied by the board model; ``proven`` is False.  ``on_better`` gets each improvement as such a
    term (re-applied too) and how the search found it, so that an interrupted search keeps its best
    witness.  RuntimeError if a witness does not turn the board off (a bug).
    See :func:`flipgame.algebra.coset_search.search`."""
    if (k := nullity(n)) > minweight.DENSE_MAX_NULLITY:  # its sub-searches need the compiled transform
        extras.require("numba", f"the search for an upper bound over a null space of dimension {k}")
    start = time.perf_counter()
    game = rules(n)
    parts, quiet, _ = algebra.solution_cosets(game, game.full, "chase")
    group = symmetry.stabiliser(game, game.full)

    def bound(presses: int) -> Term:
        return Term(n, _checked(game, presses), len(quiet), len(group), time.perf_counter() - start, presses,
                    proven=False)

    found = coset_search.search(parts[0][0], quiet, game.m, seconds, symmetries=group, seed=seed,
                                on_better=on_better and (lambda f: on_better(bound(f.presses), f.how)),
                                run=lambda call: interruptible(call, lambda: None, grace=0))  # Ctrl-C at once
    return bound(found.presses)


@dataclass(frozen=True)
class LowerBound:
    """A proven lower bound on a(n): ``presses``, from the covering LP's dual ``weights`` (cell -> Fraction) and
    its parity ``cuts`` (odd cell sets -> Fraction), checked by
    :func:`flipgame.verify.proofs.cover_check.cut_lower_bound`; ``cover`` is the bound of the weights alone
    (the covering LP without cuts)."""

    n: int
    presses: int
    nullity: int
    seconds: float
    weights: dict
    cuts: tuple = ()
    cover: int = 0

    def to_json(self) -> dict:
        return {"n": self.n, "lower_bound": self.presses, "nullity": self.nullity, "seconds": round(self.seconds, 3),
                "cover": self.cover, "cuts": len(self.cuts)}


def lower_bound(n: int) -> LowerBound:
    """A lower bound on a(n) at any nullity: the covering LP of :mod:`flipgame.study.cover_bound` strengthened
    with its Chvatal-Gomory cuts on odd sets of cells (:func:`flipgame.study.cover_bound.cut_certificate`), the
    weights checked in exact arithmetic (RuntimeError if the check refuses them: a bug, never a bound).
    a(79) >= 1270 in about 40 s (the covering LP alone: 1266)."""
    start = time.perf_counter()
    game = rules(n)
    weights, cuts, bound = cover_bound.cut_certificate(game.press_masks, game.full)
    _, cover = cover_bound.cover_certificate(game.press_masks, game.full)
    try:
        checked = cover_check.cut_lower_bound(game.press_masks, game.full, weights, cuts)
    except ValueError as exc:
        raise RuntimeError(f"a({n}): the covering weights and cuts fail their check: {exc}") from exc
    if checked != bound:
        raise RuntimeError(f"a({n}): the covering weights and cuts prove {checked}, not {bound}")
    return LowerBound(n, checked, nullity(n), time.perf_counter() - start, weights, tuple(cuts), cover)


def lower_bound_text(b: LowerBound) -> str:
    """The weights as text, a comment line first: ``row col p/q`` per weighted cell, then ``cut r c r c r c p/q``
    per weighted cut (its cells, then its weight)."""
    cut_lines = "".join("cut " + " ".join(f"{c // b.n} {c % b.n}" for c in cells) + f" {w.numerator}/{w.denominator}\n"
                        for cells, w in b.cuts)
    return (f"# A075464 a({b.n}) >= {b.presses}: covering LP dual weights, one 'row col p/q' line per lit cell "
            f"of nonzero weight, and Chvatal-Gomory cuts on odd sets of cells, one 'cut r c r c r c p/q' line each; "
            f"every press carries weight at most 1 (flipgame.verify.proofs.cover_check.cut_lower_bound)\n"
            + cover_bound.certificate_text(b.weights, b.n) + cut_lines)


def bfile_line(t: Term) -> str:
    """One line of an OEIS b-file: ``n a(n)``."""
    return f"{t.n} {t.presses}"


BEYOND_NOTE = (f"# n > {PUBLISHED_MAX}: beyond the published b-file of A075464 (n = 1..{PUBLISHED_MAX}); computed by "
               f"flipgame, each term checked a second time (flipgame.verify.proofs.all_lit_check)")
"""The b-file's comment line before its first term past :data:`PUBLISHED_MAX`."""


def bfile_text(done: Iterable[Term]) -> str:
    """The b-file of the proven terms: ``n a(n)`` lines in increasing n, each n once, with :data:`BEYOND_NOTE`
    before the first n past :data:`PUBLISHED_MAX`."""
    out, noted = [], False
    for t in sorted({t.n: t for t in done if t.proven}.values(), key=lambda t: t.n):  # in order, once each
        if t.n > PUBLISHED_MAX and not noted:
            out.append(BEYOND_NOTE)
            noted = True
        out.append(bfile_line(t))
    return "".join(line + "\n" for line in out)


def compact_line(t: Term) -> str:
    """``n a(n) nullity BASE64``: the witness's n*n bits (bit ``r * n + c``, little-endian bytes) in base64."""
    import base64

    raw = t.witness.to_bytes(-(-t.n * t.n // 8), "little")
    return f"{t.n} {t.presses} {t.nullity} {base64.b64encode(raw).decode()}"


def read_compact(line: str) -> tuple[int, int, int, int]:
    """``(n, presses, nullity, witness)`` from a :func:`compact_line`.  ValueError on a malformed line."""
    import base64
    import binascii

    try:
        n, presses, nullity, data = line.split()
        return int(n), int(presses), int(nullity), int.from_bytes(base64.b64decode(data, validate=True), "little")
    except (ValueError, binascii.Error) as exc:
        raise ValueError(f"expected 'n a(n) nullity BASE64', got {line[:60]!r}") from exc


def witness_text(t: Term) -> str:
    """The witness as text: a comment line, then the press set as rows of ``x`` (press) and ``.``."""
    what = "minimum" if t.proven else "upper bound (not proven minimal)"
    return (f"# A075464 a({t.n}) {what}: {t.presses} presses turn the all-lit {t.n}x{t.n} Lights Out board off "
            f"(plus, no wrap); re-applied by Game.apply\n" + format_cells(t.witness, t.n, t.n, "x", ".") + "\n")


__all__ = ["A075464", "BEYOND_NOTE", "GroupSample", "LowerBound", "PUBLISHED_MAX", "Term", "bfile_line",
           "bfile_text", "compact_line", "lower_bound", "lower_bound_text", "nullity", "read_compact", "rules",
           "sample_groups", "second_check", "term", "terms", "upper_bound", "witness_text"]

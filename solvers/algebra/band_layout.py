"""The band of a grid system's press matrix, read from its buttons: the order of the sweep, the band width,
the far-reaching buttons of the border, and what the banded elimination (:mod:`flipgame.algebra.band`) refuses.

In row-major order a stencil of radius r couples cell ``i`` only to buttons within about ``r * cols`` places;
a grid wider than tall is swept in column-major order instead (:func:`order`), so the band is about
``r * min(rows, cols)`` wide.  A button whose cells all lie within the band width of it is a band column; any
other (a wrap-around's, in the first and last r rows) goes to the dense border.  Running time O(entries).
Source: G. H. Golub & C. F. Van Loan, "Matrix Computations", 4th ed., 2013, section 4.3 (band matrices).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from flipgame.core import extras
from flipgame.core.limits import BAND_BORDER_MAX, BAND_MAX_CELLS, BAND_MAX_WIDTH, MEMORY_LIMIT_GIB
from flipgame.model.system import PressSystem


def is_prime(k: int | None) -> bool:
    """True for a prime ``k`` (a field Z_k)."""
    return k is not None and k >= 2 and all(k % d for d in range(2, int(k ** 0.5) + 1))


@dataclass(frozen=True)
class Layout:
    """The band of a square system: width ``W`` and the buttons moved to the border."""

    width: int
    border: tuple[int, ...]


@lru_cache(maxsize=16)
def order(system: PressSystem) -> np.ndarray | None:
    """The order of the sweep: None for row-major (a grid at least as tall as wide), else ``perm`` with
    ``perm[position] = cell`` for column-major (cell ``r * cols + c`` at position ``c * rows + r``), so that
    the band width follows the shorter side: a 10x1000 torus sweeps a band of about 20, not 2,000."""
    rows, cols = system.rows, system.cols
    if rows >= cols:
        return None
    return (np.arange(rows, dtype=np.int64)[None, :] * cols + np.arange(cols, dtype=np.int64)[:, None]).ravel()


def _swept_shape(system: PressSystem) -> tuple[int, int]:
    """(rows, cols) of the grid in the order it is swept: transposed when :func:`order` is column-major."""
    return (system.rows, system.cols) if order(system) is None else (system.cols, system.rows)


def entries(system: PressSystem, transpose: bool) -> list[tuple[int, int, int]]:
    """``(row, column, value mod p)`` of A (or A^T), amounts summed, rows and columns numbered in the order of
    the sweep (:func:`order`)."""
    p = system.states or 2
    perm = order(system)
    position = list(range(system.cells)) if perm is None else np.argsort(perm).tolist()
    acc: dict[tuple[int, int], int] = {}
    for j, button in enumerate(system.buttons):
        for cell, amount in button:
            key = (position[j], position[cell]) if transpose else (position[cell], position[j])
            acc[key] = (acc.get(key, 0) + amount) % p
    return [(i, j, v) for (i, j), v in acc.items() if v]


def _layout_of(entries, system: PressSystem) -> Layout | None:
    """The band of ``entries``: W = (rows of reach + 1) * cols, buttons reaching further go to the border."""
    rows, cols = _swept_shape(system)
    reach = 0
    for i, j, _ in entries:
        dr = abs(i // cols - j // cols)
        reach = max(reach, min(dr, rows - dr))
    cap = (reach + 1) * cols
    far = sorted({j for i, j, _ in entries if abs(i - j) > cap})
    near = [abs(i - j) for i, j, _ in entries if abs(i - j) <= cap]
    width = max(near, default=0)
    if width > BAND_MAX_WIDTH or len(far) > BAND_BORDER_MAX:
        return None
    return Layout(max(width, 1), tuple(far))


def refusal(system: PressSystem) -> str | None:
    """Why the banded elimination does not take ``system`` (its states, shape or size), or None.  O(1): the band
    itself is read when the system is solved (:func:`band_refusal`)."""
    if system.states is not None and not is_prime(system.states):
        return f"the banded elimination works over a field: {system.states} states is not prime"
    if system.shape is None or system.m != system.cells:
        return "the banded elimination needs a grid (rows x cols) with one button per cell"
    if system.cells > BAND_MAX_CELLS:
        return f"the banded elimination takes at most {BAND_MAX_CELLS:,} cells"
    if not extras.installed("numba"):
        return extras.missing("numba", "the banded elimination (grids past the dense limit)")
    return None


def band_refusal(system: PressSystem, transpose: bool = False) -> str | None:
    """Why the band of ``system`` (read from its buttons) is too wide or too large for the memory budget, or
    None.  O(entries), cached through :func:`layout`."""
    lay = layout(system, transpose)
    if lay is None:
        return (f"the press matrix is not banded enough: the banded elimination takes a band of at most "
                f"{BAND_MAX_WIDTH:,} cells and {BAND_BORDER_MAX:,} far-reaching buttons")
    if (need := estimate_bytes(system.cells, lay)) > MEMORY_LIMIT_GIB * 2**30:
        return (f"the banded elimination's pivot rows need about {need >> 20:,} MiB, over its "
                f"{MEMORY_LIMIT_GIB:g} GiB budget")
    return None


def estimate_bytes(cells: int, lay: Layout) -> int:
    """Bytes of the pivot rows the sweep keeps: one byte per band entry (2W + 1) and border entry per cell,
    plus the active rows' ring.  The 256x256 plus torus: 64 MiB of pivot rows (297 MiB peak, Python and numba
    included)."""
    row = 2 * lay.width + 1 + len(lay.border)
    return cells * row + (2 * lay.width + len(lay.border) + 64) * (row + 1)


@lru_cache(maxsize=16)
def layout(system: PressSystem, transpose: bool = False) -> Layout | None:
    """The band of the system's press matrix (or its transpose), or None when it is not banded.  Cached."""
    return _layout_of(entries(system, transpose), system)


__all__ = ["Layout", "band_refusal", "entries", "estimate_bytes", "is_prime", "layout", "order", "refusal"]

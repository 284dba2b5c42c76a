"""Every size limit of flipgame, one constant each, in one place.

The backends, the gate, the harness and the command line read these; a
message that names a limit reads it from here, so text and check agree.
Units are cells (``rows * cols``) unless the name says otherwise.
"""

BOARD_MAX_CELLS = 4_000_000
"""Largest board flipgame takes at all: 2000x2000, by gauss's light chasing (about 15 s)."""

MODEL_MAX_CELLS = 40_000
"""Largest board a model backend (cpsat, sat, ilp) builds a model of (200x200)."""

DENSE_MAX_CELLS = 2500
"""Dense elimination is O(n^3 / w): 2500 cells (50x50) take about 10 s in Python."""

BFS_MAX_CELLS = 30
"""bfs keeps one byte per state of 2**n: 30 cells is a 1 GiB table."""

MAXSAT_MAX_CELLS = 100
"""maxsat (pysat's RC2) cannot be interrupted, so it has no time limit: boards above 10x10 are refused.
Measured (shared 2-core machine, loaded): 4x4 about 20 ms a board; a 16x16 board ran over 9 min, the
14x14 and 18x18 judge cases over 60 s."""

EXHAUSTIVE_MAX_CELLS = 30
"""Most cells whose 2**n boards an agreement run enumerates (bfs's table, 2**30 boards)."""

EXHAUSTIVE_DEFAULT_MAX_CELLS = 20
"""``flipgame verify`` checks every board by default up to this many cells (2**20 boards), else a sample."""

MEMORY_LIMIT_GIB = 2.0
"""Default memory budget of one model, in GiB (``--memory-limit``)."""

TIME_LIMIT_MAX_SECONDS = 1e6
"""Most seconds a time limit takes (``--time-limit``, ``--certify-time-limit``): 11.6 days, past any run."""

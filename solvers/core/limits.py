"""Every size limit of flipgame, one constant each, in one place.

The backends, the gate, the harness and the command line read these; a
message that names a limit reads it from here, so text and check agree.
Units are cells (``rows * cols``) unless the name says otherwise.
"""

import os

BOARD_MAX_CELLS = 4_000_000
"""Largest board flipgame takes at all: 2000x2000, by gauss's light chasing (about 15 s)."""

MODEL_MAX_CELLS = 40_000
"""Largest board a model backend (cpsat, sat, ilp) builds a model of (200x200)."""

DENSE_MAX_CELLS = 2500
"""The side of the dense elimination's work bound (:data:`DENSE_MAX_WORK`): a square system of 2500 cells
and buttons (a 50x50 grid)."""

DENSE_MAX_WORK = DENSE_MAX_CELLS ** 2
"""Most cells x buttons the dense elimination over GF(2) takes: its row operations are one pass over the
equations per button, each an XOR of Python ints.  Measured on random rows (idle 2-core machine): 2500 x 2500
in 1.7 s, 10,000 x 625 in 2.4 s, 625 x 10,000 in 3.6 s; a system of 4,095 cells and one button takes
microseconds, so the bound weighs the work, not the cells."""

ZK_DENSE_MAX_CELLS = 1600
"""Largest press system (its cells and its buttons) whose diagonal form over Z_k is computed with no time
limit: for the certificates the gate attaches to an Impossible answer and verify checks, and for auto's
plan.  Measured (loaded 2-core machine, Z_3 plus grids): 30x30 in 1.8 s, 40x40 in 11 s, 50x50 in 34 s.
gauss itself goes further, within its time limit and memory budget."""

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

TIME_LIMIT_DEFAULT_SECONDS = 60.0
"""Seconds per board a model backend takes when ``--time-limit`` is not given: a wait a user sits
out without wondering (it once grew with the board, to 2010 s at 200x200)."""

CERTIFY_SECONDS = 10.0
"""Seconds per board for a minimality proof when none is given (``--certify-time-limit``, the proof of a
program's claimed minimum, ``verify --certify``): an 8x8 board's proof takes well under a second, a 19x19
all-lit one 2.7 s (docs/measured.md)."""

TIME_LIMIT_MAX_SECONDS = 1e6
"""Most seconds any option takes (``--time-limit``, ``--certify-time-limit``, ``--budget``, ...): 11.6 days,
past any run (study's PAR-2 of a 1e300 s limit was a 300-digit number)."""

BOARDS_PER_SIZE_MAX = 1000
"""Most random boards per family and size that ``study --strategies`` runs or ``export-suite`` writes
(``--boards``): a study's figures rest on tens, and 10^11 ran until killed (or filled the disk)."""

TIMED_BOARDS_MAX = 2**16
"""Most boards timed per backend or strategy (``study --sample``, ``bench --sample``): every 4x4 board."""

JOBS_MAX = 4 * (os.cpu_count() or 1)
"""Most worker processes of a local pool (``--jobs``): four per core (more only share the cores; the
pool took at most this many while ``--jobs 10**20`` was reported as a pool of that many workers)."""

ECHO_MAX_CHARS = 200
"""Longest word a message echoes whole: a longer one (a file name, option value or program output of
100,000 characters made a 100 KB line) keeps its start and end around the count of what was left out."""

ARGUMENT_MAX_DIGITS = 100
"""Longest whole number an option takes (a count, a seed, --states): Python's int() refuses text of over
4,300 digits, and a 5,000-digit --seed was echoed whole in that error; a count's own cap says more."""

STARTUP_MAX_SECONDS = 120.0
"""Longest ``flipgame solve`` start a benchmark waits for (about a second; the imports of a cold cache)."""

STARTUP_RUNS_MAX = 100
"""Most process starts ``bench`` times per backend (``--startup-runs``; the median is reported)."""

SYSTEM_MAX_CELLS = 10_000
"""Largest press system read from rules (a JSON file, an edge list, a judge format): the Z_k algebra
holds an n x m matrix of int64, 800 MB at 10,000 x 10,000.  Grids (``--size``) go to
:data:`BOARD_MAX_CELLS`."""

SYSTEM_MAX_BUTTONS = 10_000
"""Most buttons of a press system read from rules (an Advent of Code line of 1.7 million buttons is
refused here, before anything of its size is built)."""

STATES_MAX = 255
"""Most states per cell (LightsOutWeb's domain goes to 255)."""

NUMBER_DIGITS = 12
"""Longest decimal number read from rules or board text (10^12 is far past every limit; a counter is at most
:data:`COUNTER_MAX`)."""

COUNTER_MAX = 2**31 - 1
"""Largest counter value, amount or goal: sums of amounts times counts stay exact in a MIP's doubles
(2**53) and in CP-SAT's int64 domains."""
OUTPUT_MAX_BYTES = 64 << 20
"""Most bytes of a program's standard output kept (64 MiB); past it the program is killed.  The largest
honest answer is a ``v`` line over every variable of the largest exported model (200x200 with a
cardinality bound: about 2 million variables, 16 MB), and 64 MiB kept plus its decoded copy stays
well under flipgame's 300 MB budget when a program prints gigabytes."""

"""Every cap and every default limit of flipgame, one constant each, in one place.

Sizes a backend or a command takes, numbers of boards, bytes read, and the seconds a run, a child or a
wait gets when none is given: the backends, the pipeline, the harness, the study and the command line read
them here, and a message that names a limit reads it from here, so text and check agree.  (The crossovers
of an algorithm, where one method starts to beat another, stay beside the algorithm they tune.)  Units are
cells (``rows * cols``) unless the name says otherwise.
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
BFS_DEFAULT_MAX_CELLS = 28
"""verify runs bfs without being named up to this many cells: its table of every state doubles with each cell,
5.6 s at 27 cells, 11 s at 28 and 45 s at 30 here, and at 30 beside other work it passed the 60 s time limit (a
new user's verify gave 300 Unknown after a minute)."""

AUTO_BFS_MAX_WORK = 1 << 30
"""``auto`` hands a solvable board that gauss cannot enumerate to bfs when its table costs at most this many
byte operations (distinct press masks x 2**cells): measured 2.2-2.9 s at 2**29-2**30 (20 cells with 920
distinct buttons, 22 cells with 296, 24 cells with 64), where sat and cpsat ran past 20 s on 10 cells with
300 buttons."""

MAXSAT_MAX_CELLS = 2500
"""maxsat (pysat's RC2) honours the time limit (its SAT calls are interrupted), but its memory is not estimated
before building, so boards above 50x50 are refused.  Measured (shared 2-core machine, loaded): 4x4 about 20 ms a
board; random boards Unknown at the limit, 16x16 at 3 s, 30x30 at 5 s, 50x50 at 60 s with a peak RSS of 81 MB
(it was refused above 10x10 while RC2 could not be stopped: a 16x16 board ran over 9 min)."""

MAXSAT_MAX_BUTTONS = 2500
"""maxsat's soft clauses (one per button) are refused past this count too, for the same reason."""

MAXSAT_MAX_ENTRIES = 100_000
"""maxsat's press-matrix entries (the cells its buttons change, summed): building the WCNF's parity clauses is not
timed, so larger systems are refused.  Measured, 2,500 cells with random buttons: 100,000 entries 1.8 s to build,
187 MB peak; 200,000 entries 3.6 s, 347 MB; 2,000,000 entries (break-it) 57 s and 3 GB (a 50x50 plus grid has
12,500)."""

EXHAUSTIVE_MAX_CELLS = 30
"""Most cells whose 2**n boards an agreement run enumerates (bfs's table, 2**30 boards)."""

EXHAUSTIVE_DEFAULT_MAX_CELLS = 20
"""``flipgame verify`` checks every board by default up to this many cells (2**20 boards), else a sample."""

MEMORY_LIMIT_GIB = 2.0
"""Default memory budget of one model, in GiB (``--memory-limit``)."""

TIME_LIMIT_DEFAULT_SECONDS = 60.0
"""Seconds per board a model backend (and every model constructor) takes when ``--time-limit`` is not given:
a wait a user sits out without wondering, the same at every size."""

CERTIFY_SECONDS = 10.0
"""Seconds per board for a minimality proof when none is given (``--certify-time-limit``, the proof of a
program's claimed minimum, ``verify --certify``): an 8x8 board's proof takes well under a second, a 19x19
all-lit one 2.7 s (docs/measured.md)."""

HINT_SECONDS = 1.0
"""The time limit a refusal's hint ("taken by: ...") gives each backend it asks: auto's plan over Z_k computes the
diagonal form, 13 s at 40x40 over Z_3, and a hint after a 1 s time limit took that long."""

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

SCHEDULER_TIMEOUT = 60.0
"""Seconds a run waits with no live worker (or no scheduler) before it stops with what finished."""

DASK_CLOSE_TIMEOUT = 5
"""Seconds given to closing a Dask client or LocalCluster (a lost scheduler never answers)."""

BENCH_MAX_CELLS = 24
"""bench solves every board of its rules: 2**24 (16.7 M) at most (24 cells of two states)."""

RULES_MAX_BYTES = 64 << 20
"""Largest ``--rules`` file read (a JSON press system of the largest size flipgame takes is under 2 MB)."""

STRATEGY_TIME_LIMIT = 5.0
"""Seconds per board in ``--strategies`` mode unless ``--time-limit`` is given."""

STRATEGY_BUDGET = 600.0
"""Seconds for a whole ``--strategies`` run unless ``--budget`` is given."""

COUNTER_TARGET_MAX = 100_000
"""Largest counter target ilp takes.  SCIP accepts a row whose activity is within 1e-6 of its right-hand
side, relative to it: below 10^5 that is under 0.1 of a press, so a row it accepts holds exactly.  Measured
on random counter systems (1-3 cells, 1-4 buttons, amounts up to 13, or up to 2**20 + 1): targets near
10^9 and 2**31 gave witnesses that miss the target by 1 to 106 (caught by the model, exit 3) and Unknown
after SCIP's numerical errors; none of 150 systems did at 10^6, 10^7 or 10^8.  cpsat takes the rest."""

DEFAULT_MAX_NULLITY = 32
"""gauss's default ``max_nullity``: 2**32 null-space combinations, :data:`flipgame.backends.gauss.NULLITY_32_SECONDS`
on the reference machine."""

CHASE_MAX_SIDE = 2048
"""Light chasing solves a min(rows, cols) square system; at most this side."""

STRATEGIES_FILE_MAX_BYTES = 1 << 20
"""Largest strategies file read (1 MiB: thousands of tables; a larger one is a wrong file)."""

VERSION_SECONDS = 5.0
"""Seconds a version command may take (they print one line at once; a hung one is not waited for)."""

MANIFEST_MAX_BYTES = 64 << 20
"""Largest manifest.json read (one of a suite of every family at its largest sizes is under 1 MB)."""

RUN_MEMORY_MIN_GIB = 0.2
"""Least address space (``--memory-limit``, GiB) a study's run gets: below it no run's process starts (Python,
numpy and flipgame's imports).  Measured: at 0.1 GiB every strategy's run failed to start; at 0.2 gauss and
sat-xor answer (cpsat, with OR-Tools loaded, needs 0.3)."""

MEASURE_MARGIN_SECONDS = 1.0
"""Seconds past the time limit before a run is killed: a backend that keeps its own clock answers
Unknown within them (CP-SAT, the SAT descents and the MIPs stop within a few hundredths of a second of
their limit), so no recorded wall time exceeds the limit plus this margin."""

START_ALLOWANCE_SECONDS = 120.0
"""Seconds a run's process may take to start, import its solver and warm up before its clock starts
(about 1-3 s: OR-Tools' import alone is 0.4-1 s); past them it is killed as a run that never started."""

SVG_STEPS_MAX = 64
"""Most boards a step-by-step view shows (the start, then one per press); past it the rest is elided."""

SVG_GRAPH_MAX_CELLS = 400
"""Most cells drawn as a graph (beyond, the picture would be a blot); a larger system is refused."""

SVG_GRID_MAX_CELLS = 10_000
"""Most cells of a grid picture (100x100: 2,600 px a side, about 1 MB of SVG a panel)."""

SPLIT_MAX_NULLITY = 20
"""Most free presses split on (2**(d+1) - 1 RUP lines, each a full propagation)."""

SYSTEM_MAX_BOARDS = 1 << 26
"""Over Z_k (k >= 3) the distribution of minimum presses is read from the bfs table up to this many boards."""

TABLE_MAX_CELLS = 24
"""The study reads the bfs distance table up to this many cells (16 MiB, a few seconds) and at most
:data:`BFS_MAX_CELLS`; larger tables cost more than coset enumeration."""

BINOMIAL_MAX_CELLS = 100
"""Nullity 0: the distribution is binomial; listed up to this many cells (101 lines of text)."""

COSET_MAX_CELLS = 28
"""Coset enumeration visits 2**n (press set, quiet pattern) pairs: 2**28 in a few seconds."""

COSET_MAX_NULLITY = 22
"""Coset enumeration holds the 2**nullity null-space elements in memory."""

TREE_MAX_PROCESSES = 64
"""Most processes of a run's tree sampled for its peak memory (a solver and its helpers are a few)."""

TAIL_BYTES = 4096
"""Bytes kept of the end of each output stream, for the message about a program that gave no answer."""

KILL_GRACE_SECONDS = 1.0
"""Seconds to read what is left in the pipes after the group is killed (a grandchild that left the group
may hold them open; it is not waited for longer)."""

IMPORT_WAIT_SECONDS = 1.0
"""Longest a Ctrl-C waits for the import it came in (OR-Tools' takes about 1 s on the loaded machine, up
to 2.2 s measured): past it the interrupt is raised where it is, so that a run still ends within 2 s."""

WITNESS_MAX_NULLITY = 24
"""Largest null space the parity prover searches for a witness (2**24 press sets: about a second)."""

FUZZ_ORACLE_MAX_VECTORS = 1 << 17
"""The fuzzer's exhaustive oracle tries every press vector (each button 0..k-1 times) up to this many; larger
instances are judged by the referee and the agreement policy only (131,072 vectors: about 20 ms in numpy)."""
FUZZ_TIME_LIMIT = 5.0
"""Seconds per backend call in ``flipgame fuzz`` (``--time-limit``)."""
FUZZ_HANG_FACTOR = 3.0
"""A fuzzed call still running at this many times its time limit (plus :data:`FUZZ_HANG_GRACE`) is a hang."""
FUZZ_HANG_GRACE = 10.0
"""Seconds a fuzzed call may run past its limit for start-up and model building before the hang check."""
FUZZ_SLOW_FACTOR = 1.5
"""A fuzzed call that answers after this many times its time limit (plus 1 s) did not honour the limit."""
FUZZ_SHRINK_TRIES = 400
"""Candidate instances the shrinker tries per finding at most."""
WALL_SAFETY_FACTOR = 3.0
"""With a CPU-time limit (a study's default clock, a solver program's ``clock cpu``), the wall-clock safety net
is this many times the limit unless given (``--wall-limit``)."""
BENCHEXEC_CHECK_SECONDS = 1.5
"""BenchExec checks a run's CPU and wall time about once a second: a study waits this long past a solver
program's limit and margin before its own watchdog stops the run, so BenchExec's kill and reason are recorded
(measured: a 2 s CPU limit stopped a spinning program at 2.96 s of CPU beside two CPU hogs)."""
REPEAT_MAX = 100
"""The most runs of one (instance, strategy) pair a study makes (``--repeat``)."""
FUZZ_REPLAY_MAX_SECONDS = 3600.0
"""The longest time limit a reproducer's ``finding.json`` may ask ``flipgame fuzz --replay`` for."""
CHUNK_BLOCKS = 64
"""Blocks per chunk of a long run on a cluster (:mod:`flipgame.algebra.coset_chunks`): 2**34 assignments at
most, about 6 s on one core of this machine without symmetry; a(65) is 256 chunks, a(119) 4,096."""
BAND_MAX_WIDTH = 1100
"""Widest band (cells between a button and the farthest cell it changes, in row-major order) the banded
elimination takes: a radius-2 stencil on 256 columns has 514, radius 4 on 220 columns 1,100."""
BAND_BORDER_MAX = 2048
"""Most far-reaching buttons (the wrap-around's first and last rows) the banded elimination keeps dense: the
256x256 torus has 512 for radius 1, 1,024 for radius 2."""
BAND_ENUMERATION_MAX = 1 << 33
"""Additions the cheapest solution over Z_p may take after the banded elimination (p**nullity times the null
vectors' support): 3**10 x 65,536 cells (the 256x256 cross torus over Z_3) is 3.9e9, a few seconds."""
ZK_BAND_MIN_CELLS = 256
"""From this many cells gauss over a prime number of states takes the banded elimination before the diagonal
form (when numba is there and the grid is banded): on Z_3 tori the diagonal form took 0.12 s at 15x15, 0.42 s
at 20x20, 0.67 s at 3x100, 3.3 s at 30x30 and 14.6 s at 3x300, the band 0.006 to 0.04 s once numba is loaded
(its first load, about 0.8 s, is what the diagonal form saves on small boards)."""
BAND_MAX_CELLS = 1_000_000
"""Most cells the banded elimination looks at: reading the band from the buttons takes about 1 s per 65,536
cells (the 256x256 torus), and past a million cells the pivot rows of any stencil reaching the next row exceed
the memory budget anyway (the 1000x1000 torus: 3.8 GiB)."""

LANE_MAX_CELLS = 64
"""Most cells of a board ``flipgame solve``'s judge lane takes (one machine word; :mod:`flipgame.cli.lane`)."""
LANE_MAX_NULLITY = 6
"""Largest nullity the lane takes: each reachable goal of a board costs ``2**nullity`` popcounts in Python, so an
input of solvable boards only, at the most boards, takes about 1 s where the pipeline takes 0.3 s (measured at
nullity 6; at nullity 8, 4 s; a grid of nullity 26 had the lane building a null space of 2**26 press sets)."""
LANE_MAX_BOARDS = 1 << 17
"""Most boards the lane answers (twice the 65,536 4x4 boards of the judge's stream): it keeps a Python int and a
tuple per board, where the pipeline's numpy takes a few bytes; at 800,000 4x4 boards the lane took 0.94 s against
the pipeline's 0.38 s, at 8 million 1x1 boards 30 s and 1.75 GB against 1.7 s.  A larger input streams through the
pipeline."""
LANE_WAIT_SECONDS = 0.05
"""How long the lane waits for more of a piped input before the pipeline takes it (answering each case as it
comes: a person typing, or a program that waits for each answer)."""

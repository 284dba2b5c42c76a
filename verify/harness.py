"""The agreement run: every selected backend on every board, witnesses re-checked.

For each backend the boards are solved in chunks (on an executor for backends
whose registry entry says ``parallel``: a local process pool by default, or any
``concurrent.futures`` executor, e.g. a Dask cluster's through
:func:`open_executor`), every witness is re-applied
by the board model (:mod:`flipgame.verify.witness`), and then the answers are compared
board by board.  Two answers agree when both are ``Impossible`` or both give
the same minimum number of presses; press sets are not compared, since a board
may have several minimum-weight solutions.  UNKNOWN (time-out) and ERROR
answers agree with nothing and disagree with nothing: they are counted
separately and make the run incomplete, never successful by default.

The run is a sequence of steps over the answers: :func:`solve_all` (solve,
or read from the checkpoint), then the witness check, the Impossible
certificates and the comparison; a further check (e.g. certification of
minimality) is one more step over ``results`` in :func:`run_agreement`.

Workers die with the driver: the local pool's initializer and the Dask
LocalCluster's worker preload (:func:`dask_setup`) set
``prctl(PR_SET_PDEATHSIG, SIGKILL)`` and start a thread that exits when the
parent process is gone, so no worker outlives a killed ``verify``.  Only the
driver writes the checkpoint.

Source: differential testing as in the yinyang SMT-solver fuzzer
(``SolverResult.equals``, ``report_diff``): keep every mismatch replayable.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field

import numpy as np

from flipgame import BACKENDS, get_backend, solve, solve_batch
from flipgame.algebra import consistency_rows
from flipgame.board import Game, format_cells
from flipgame.errors import FlipgameError, RulesError
from flipgame.limits import EXHAUSTIVE_MAX_CELLS
from flipgame.result import NO_MOVES, BatchSolution, Solution, Status
from flipgame.tables import format_table

from .certify import certify_run
from .checkpoint import Checkpoint, run_header
from .processes import die_with_parent
from .witness import check_batch, check_solution

IMPOSSIBLE_KEY = -2
NO_ANSWER_KEY = -99
CHUNK_SIZE = 2048
"""Boards per unit of work for per-board (``parallel``) backends."""
BATCH_CHUNK_SIZE = 1 << 20
"""Boards per unit of work for vectorised backends (gauss, bfs): 2**20 boards, about 20 MiB per answer array."""


@dataclass
class BackendSummary:
    """One row of the verification table (counts are numbers of boards; seconds are wall time)."""

    backend: str
    boards: int = 0
    solvable: int = 0
    impossible: int = 0
    unknown: int = 0
    errors: int = 0
    disagreements: int = 0
    witness_failures: int = 0
    seconds: float = 0.0
    error_messages: list[str] = field(default_factory=list)
    resumed: int = 0
    """Boards whose answers came from the checkpoint (not in the JSON report, which must not depend on it)."""

    @property
    def solved(self) -> int:
        """Boards solved in this run (``seconds`` is their wall time)."""
        return self.boards - self.resumed

    @property
    def boards_per_second(self) -> float:
        """Boards solved in this run per second of this run (resumed boards are not counted)."""
        if not self.solved:
            return 0.0
        return self.solved / self.seconds if self.seconds > 0 else float("inf")


@dataclass
class AgreementReport:
    """Everything an agreement run found; :meth:`to_json` is the replayable report."""

    game: Game
    boards: int
    summaries: list[BackendSummary]
    disagreements: list[dict]
    witness_failures: list[dict]
    seconds: float
    completed: bool = True
    resumed_chunks: int = 0
    """Chunks (over all backends) read from the checkpoint instead of solved."""
    total_chunks: int = 0
    certification: dict | None = None
    """With ``certify``: :func:`flipgame.verify.certify.certify_run`'s counts and failures."""

    @property
    def incomplete(self) -> bool:
        """Some board has an UNKNOWN or ERROR answer, or the run was interrupted."""
        return not self.completed or any(s.unknown or s.errors for s in self.summaries)

    @property
    def ok(self) -> bool:
        return (not self.disagreements and not self.witness_failures and not self.incomplete
                and not (self.certification or {}).get("failed"))

    def table(self) -> str:
        """The per-backend table as aligned text."""
        resumed = any(s.resumed for s in self.summaries)
        head = ("backend", "boards", "solvable", "impossible", "unknown", "errors",
                "disagree", "witness-fail", "seconds", "boards/s")
        if resumed:  # seconds and rate are over the boards solved now, not the whole table
            head = (*head[:8], "from checkpoint", "solved now", "seconds now", "solved/s")
        rows = [head] + [
            (s.backend, s.boards, s.solvable, s.impossible, s.unknown, s.errors, s.disagreements,
             s.witness_failures) + ((s.resumed, s.solved) if resumed else ())
            + (f"{s.seconds:.3f}", f"{s.boards_per_second:,.0f}")
            for s in self.summaries
        ]
        return format_table(rows)

    def to_json(self) -> dict:
        g = self.game
        return {
            "game": g.to_json(),
            "boards": self.boards,
            "completed": self.completed,
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "backends": [{k: v for k, v in asdict(s).items() if k != "resumed"}
                         | {"boards_per_second": round(s.boards_per_second, 1)} for s in self.summaries],
            "disagreements": self.disagreements,
            "witness_failures": self.witness_failures,
            "certification": self.certification,
        }


def answer_record(game: Game, batch: BatchSolution, i: int) -> dict:
    """One backend's answer on board ``i`` of a batch, as JSON-ready text."""
    s = batch[i]
    rec = {"status": s.status.name, "answer": s.answer()}
    if s.status is Status.OPTIMAL:
        rec |= {
            "moves": s.moves,
            "presses": format_cells(s.presses, game.rows, game.cols, "x", ".").split("\n"),
            "target": game.target_name(s.target),
        }
    return rec


def board_record(game: Game, board: int) -> dict:
    return {"board": board, "text": format_cells(board, game.rows, game.cols).split("\n")}


def _solve_chunk(name: str, game: Game, boards: np.ndarray, options: dict) -> BatchSolution:
    """Solve one chunk; an exception becomes ERROR answers for the chunk, and the run goes on.

    Boards of more than 64 cells (an object array of Python ints) are solved
    board by board through the gate's :func:`flipgame.solve`.
    """
    start = time.perf_counter()
    if boards.dtype != object:
        try:
            return solve_batch(boards, game, name, **options)
        except Exception:  # noqa: BLE001 - a backend fault must not stop the run
            pass
    # Board by board (also isolates a fault: each failure an ERROR of its own).
    solutions = []
    for b in boards:
        try:
            solutions.append(solve(int(b), name, game=game, **options))
        except Exception as exc:  # noqa: BLE001
            solutions.append(Solution(name, Status.ERROR, stats={"error": f"board {int(b)}: "
                                                                          f"{type(exc).__name__}: {exc}"}))
    return _pack(name, boards, solutions, time.perf_counter() - start)


def _pack(name: str, boards: np.ndarray, solutions: Sequence[Solution], seconds: float) -> BatchSolution:
    """:meth:`BatchSolution.from_solutions`, with object arrays for boards of more than 64 cells."""
    if boards.dtype != object:
        return BatchSolution.from_solutions(name, boards, solutions, seconds)
    k = len(boards)
    status = np.array([s.status for s in solutions], dtype=np.uint8).reshape(k)
    moves = np.array([s.moves if s.success else NO_MOVES for s in solutions], dtype=np.int32).reshape(k)
    presses = np.array([s.presses if s.success else 0 for s in solutions] or [], dtype=object)
    target = np.array([s.target if s.success else 0 for s in solutions] or [], dtype=object)
    errors = [s.stats.get("error", "no message") for s in solutions if s.status is Status.ERROR]
    return BatchSolution(name, boards, status, moves, presses, target, seconds,
                         {"errors": errors[:10]} if errors else {})


# --- workers that die with their parent -------------------------------------------------------------

def _pool_worker_init(parent_pid: int) -> None:
    """Local pool initializer: Ctrl-C is handled by the parent (which writes what finished); die with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent_pid)


def _ignore_sigint() -> None:
    """Worker initialiser kept for callers of the earlier API: Ctrl-C is handled by the parent."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def dask_setup(worker) -> None:  # noqa: ARG001 - the Dask preload hook's signature
    """Dask worker preload (``LocalCluster(preload=["flipgame.verify.harness"])``): ignore Ctrl-C, die with the driver.

    The worker processes of a LocalCluster are children of the driver (the
    nannies run inside it), so their parent is the ``verify`` process.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(os.getppid())


def local_pool(jobs: int) -> ProcessPoolExecutor:
    """The default executor: ``jobs`` spawned worker processes that ignore Ctrl-C and die with this process."""
    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_pool_worker_init, initargs=(os.getpid(),))


@contextlib.contextmanager
def open_executor(scheduler: str | None, jobs: int) -> Iterator[tuple[Executor | None, str]]:
    """The executor of a run and its label, closed on exit.

    Parameters
    ----------
    scheduler : str or None
        None: a local process pool of ``jobs`` workers (started on first use
        by :func:`run_agreement`; yields ``None``).  ``local:N``: a Dask
        ``LocalCluster(n_workers=N, threads_per_worker=1, processes=True)``
        whose workers die with this process.  Anything else: the address of
        a running Dask scheduler (e.g. ``tcp://host:8786``), used through
        ``Client(address).get_executor()``; its workers are not ours and are
        left running.
    jobs : int

    Raises
    ------
    FlipgameError
        ``local:N`` with a bad N, Dask not installed, or a scheduler that cannot be reached.

    Dask is imported only here.
    """
    if scheduler is None:
        yield None, f"local pool of {jobs} worker{'s' if jobs != 1 else ''}"
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise FlipgameError("--scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
    cluster = None
    if scheduler.startswith("local:"):
        n = scheduler[len("local:"):]
        if not (n.isascii() and n.isdigit() and int(n) > 0):
            raise FlipgameError(f"--scheduler local:N needs a positive number of workers, got {scheduler!r}")
        cluster = LocalCluster(n_workers=int(n), threads_per_worker=1, processes=True, dashboard_address=None,
                               preload=["flipgame.verify.harness"], silence_logs=40)
        label = f"dask LocalCluster of {n} worker{'s' if n != '1' else ''}"
        target = cluster
    else:
        label, target = f"dask scheduler {scheduler}", scheduler
        if "://" not in scheduler and ":" not in scheduler:
            raise FlipgameError(f"--scheduler {scheduler!r}: expected local:N or a scheduler address such as "
                                f"tcp://127.0.0.1:8786")
    try:
        try:
            client = Client(target, timeout="10s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise FlipgameError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
        try:
            n_workers = len(client.scheduler_info().get("workers", {}))
            yield client.get_executor(), f"{label} ({n_workers} workers)" if cluster is None else label
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


# --- the run ----------------------------------------------------------------------------------------


def _answer_keys(batch: BatchSolution) -> np.ndarray:
    keys = np.full(len(batch), NO_ANSWER_KEY, dtype=np.int32)
    keys[batch.status == Status.OPTIMAL] = batch.moves[batch.status == Status.OPTIMAL]
    keys[batch.status == Status.INFEASIBLE] = IMPOSSIBLE_KEY
    return keys


def as_boards(game: Game, boards: np.ndarray | Sequence[int] | None) -> np.ndarray:
    """The run's boards: uint64 for at most 64 cells, else an object array of Python ints.

    Raises
    ------
    RulesError
        A board that does not fit ``game``, or no boards for more than 30 cells.
    """
    if boards is None:
        if game.n > EXHAUSTIVE_MAX_CELLS:
            raise RulesError(f"{game.size} has 2**{game.n} boards; pass a sample of boards")
        return np.arange(1 << game.n, dtype=np.uint64)
    if game.n > 64:
        out = np.array([int(b) for b in boards] or [], dtype=object)
        bad = [b for b in out if not 0 <= b <= game.full]
    else:
        out = np.asarray(boards, dtype=np.uint64)
        bad = [int(out.max())] if len(out) and int(out.max()) > game.full else []
    if bad:
        raise RulesError(f"board {bad[0]} does not fit {game.size}")
    return out




def chunk_sizes(names: Sequence[str], chunk_size: int | None, boards: int) -> dict[str, int]:
    """Boards per unit of work for each backend: ``chunk_size`` for all, or by default
    :data:`BATCH_CHUNK_SIZE` for vectorised backends and, for per-board ones, :data:`CHUNK_SIZE`
    or less so that ``boards`` make at least 64 chunks (at least 16 boards each) for the workers."""
    if chunk_size is not None:
        return dict.fromkeys(names, chunk_size)
    per_board = max(16, min(CHUNK_SIZE, -(-boards // 64)))
    return {n: per_board if BACKENDS[n].parallel else BATCH_CHUNK_SIZE for n in names}


def run_agreement(
    game: Game,
    backends: Sequence[str] | None = None,
    boards: np.ndarray | Sequence[int] | None = None,
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    options: dict[str, dict] | None = None,
    chunk_size: int | None = None,
    progress: Callable[[str, int], None] | None = None,
    on_backend_done: Callable[[BackendSummary], None] | None = None,
    checkpoint: str | None = None,
    on_resume: Callable[[int, int, str], None] | None = None,
    compare_presses: bool = False,
    certify: bool = False,
    on_certify: Callable[[int, int], None] | None = None,
) -> AgreementReport:
    """Run every backend on every board, check every witness, compare every answer.

    Parameters
    ----------
    game : Game
    backends : sequence of str, optional
        Registry names; default every registered backend.
    boards : ndarray, shape (k,), optional
        uint64 bitmasks for at most 64 cells; Python ints (any array or
        sequence) above, solved board by board through :func:`flipgame.solve`.
        Default: all ``2**n`` boards (n <= 30).
    jobs : int
        Worker processes of the default local pool for backends marked
        ``parallel`` (1 = in this process); ignored when ``executor`` is given.
    executor : concurrent.futures.Executor, optional
        Where the chunks of ``parallel`` backends run instead (e.g. a Dask
        cluster's, from :func:`open_executor`); not shut down here.  Its
        futures must be ``concurrent.futures.Future`` s.
    options : dict
        Per-backend options, e.g. ``{"cpsat": {"time_limit": 5.0}}``.
    chunk_size : int, optional
        Boards per unit of work (and per progress update and checkpoint line);
        default :func:`chunk_sizes` (up to 2048 per-board, 2**20 vectorised).
    progress : callable(backend, boards_done, resumed=False), optional
        Called with the number of boards of each finished chunk, and once per
        backend with the boards read from the checkpoint (``resumed=True``).
    on_backend_done : callable(BackendSummary), optional
        Called when a backend has finished every board (before comparison).
    checkpoint : str, optional
        JSON-lines file of finished chunks (:mod:`flipgame.verify.checkpoint`): chunks
        already in it are not solved again, new ones are appended as they
        finish, so an interrupted run resumes where it stopped.
    on_resume : callable(chunks_found, chunks_total, path), optional
        Called once, before solving, when the checkpoint already holds chunks of this run.
    compare_presses : bool
        Also require equal press sets (for canonical witnesses, e.g. POJ 3279).
    certify : bool
        Also prove every answer (:func:`flipgame.verify.certify.certify_run`): each minimum
        by a DRAT proof checked by dratify, each Impossible by its parity certificate.
    on_certify : callable(done, total), optional
        Progress of the certification.

    Returns
    -------
    AgreementReport
        On KeyboardInterrupt, the report of the backends finished so far,
        with ``completed=False``.  The same on any executor, apart from wall times.

    Raises
    ------
    UnknownBackendError, RulesError (boards that do not fit), CheckpointError (a checkpoint of another run).

    Running time: the sum of the backends' times; comparison is O(k * backends).
    """
    names = list(backends or BACKENDS)
    for name in names:
        get_backend(name)
    options = options or {}
    boards = as_boards(game, boards)
    start = time.perf_counter()
    sizes = chunk_sizes(names, chunk_size, len(boards))
    store = None
    if checkpoint:
        store = Checkpoint(checkpoint, run_header(game, names, options, sizes, boards), game)
    try:
        results, summaries, completed, found, total = solve_all(
            game, names, boards, sizes, options, jobs=jobs, executor=executor, store=store, progress=progress,
            on_backend_done=on_backend_done, on_resume=(lambda f, t: on_resume(f, t, checkpoint)) if on_resume
            else None)
    finally:
        if store is not None:
            store.close()

    witness_failures = _witness_failures(game, results, summaries)
    witness_failures += _certificate_failures(game, boards, results, summaries)
    disagreements = _compare(game, results, summaries, compare_presses)
    certification = None
    if certify and completed and results:
        certification = certify_run(game, boards, results, progress=on_certify)
    return AgreementReport(game, len(boards), summaries, disagreements, witness_failures,
                           time.perf_counter() - start, completed, found, total, certification)


def solve_all(game: Game, names: Sequence[str], boards: np.ndarray, sizes: dict[str, int], options: dict,
              *, jobs: int = 1, executor: Executor | None = None, store=None, progress=None,
              on_backend_done=None, on_resume=None
              ) -> tuple[dict[str, BatchSolution], list[BackendSummary], bool, int, int]:
    """Every backend's answers on ``boards``, chunk by chunk: read from ``store`` or solved.

    Returns ``(results, summaries, completed, chunks from the checkpoint, chunks in all)``;
    ``completed`` is False after Ctrl-C (results then hold the backends that finished).
    """
    chunks = {n: [boards[i:i + sizes[n]] for i in range(0, len(boards), sizes[n])] for n in names}
    parts = {n: [store.get(n, i, c) if store is not None else None for i, c in enumerate(chunks[n])] for n in names}
    found = sum(p is not None for n in names for p in parts[n])
    total = sum(len(chunks[n]) for n in names)
    if found and on_resume:
        on_resume(found, total)
    results: dict[str, BatchSolution] = {}
    summaries: list[BackendSummary] = []
    pool = None
    completed = True
    try:
        for name in names:
            t0 = time.perf_counter()
            opts = options.get(name, {})
            got, todo = parts[name], [i for i, p in enumerate(parts[name]) if p is None]
            resumed = sum(len(chunks[name][i]) for i, p in enumerate(got) if p is not None)
            if progress:
                progress(name, resumed, resumed=True) if resumed else progress(name, 0)

            def finish(i: int, batch: BatchSolution, name=name, got=got) -> None:
                got[i] = batch
                if store is not None:
                    store.add(i, batch)
                if progress:
                    progress(name, len(chunks[name][i]))

            ex = executor
            if ex is None and BACKENDS[name].parallel and jobs > 1 and len(todo) > 1:
                if pool is None:
                    pool = local_pool(min(jobs, len(todo), 4 * (os.cpu_count() or 1)))
                ex = pool
            if ex is not None and BACKENDS[name].parallel and todo:
                _run_on(ex, name, game, chunks[name], todo, opts, finish, window=4 * max(jobs, 8))
            else:
                for i in todo:
                    finish(i, _solve_chunk(name, game, chunks[name][i], opts))
            batch = BatchSolution.concat(got)
            parts[name] = []  # the concatenation holds the answers now
            summary = _summarise(game, name, batch, got, time.perf_counter() - t0)
            summary.resumed = resumed
            results[name] = batch
            summaries.append(summary)
            if on_backend_done:
                on_backend_done(summary)
    except KeyboardInterrupt:
        completed = False
    finally:
        if pool is not None:
            pool.shutdown(wait=completed, cancel_futures=True)
    return results, summaries, completed, found, total


def _run_on(ex: Executor, name: str, game: Game, chunks: list[np.ndarray], todo: list[int], opts: dict,
            finish: Callable[[int, BatchSolution], None], window: int) -> None:
    """Submit the chunks ``todo`` to ``ex``, at most ``window`` at a time, and ``finish`` each as it completes."""
    waiting = iter(todo)
    pending = {}
    try:
        for i in waiting:
            pending[ex.submit(_solve_chunk, name, game, chunks[i], opts)] = i
            if len(pending) >= window:
                break
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                finish(pending.pop(fut), fut.result())
                nxt = next(waiting, None)
                if nxt is not None:
                    pending[ex.submit(_solve_chunk, name, game, chunks[nxt], opts)] = nxt
    finally:
        for fut in pending:
            fut.cancel()


def _witness_failures(game: Game, results: dict[str, BatchSolution], summaries: list[BackendSummary]) -> list[dict]:
    """Every answer whose witness the board model rejects (vectorised up to 64 cells, else per board)."""
    out = []
    for name, batch in results.items():
        if batch.boards.dtype == object:
            failed = [i for i in range(len(batch)) if check_solution(game, int(batch.boards[i]), batch[i])
                      or (batch.status[i] != Status.OPTIMAL and batch.moves[i] != NO_MOVES)]
        else:
            failed = np.flatnonzero(check_batch(game, batch))
        next(s for s in summaries if s.backend == name).witness_failures = len(failed)
        for i in failed:
            b = int(batch.boards[i])
            reason = check_solution(game, b, batch[i]) or "answer fields inconsistent with its status"
            out.append(board_record(game, b) | {
                "backend": name, "answer": answer_record(game, batch, i), "reason": reason})
    return out


def _certificate_failures(game: Game, boards: np.ndarray, results: dict[str, BatchSolution],
                          summaries: list[BackendSummary]) -> list[dict]:
    """Every Impossible answer without a certificate (charged as a witness failure)."""
    out = []
    infeasible_sets = {name: np.flatnonzero(b.status == Status.INFEASIBLE) for name, b in results.items()}
    for name, idx in _uncertified(game, boards, infeasible_sets).items():
        next(s for s in summaries if s.backend == name).witness_failures += len(idx)
        for i in idx:
            out.append(board_record(game, int(boards[i])) | {
                "backend": name, "answer": answer_record(game, results[name], i),
                "reason": "claims Impossible, but no certificate exists: a goal board is reachable"})
    return out


def _uncertified(game: Game, boards: np.ndarray, infeasible: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per backend, the indices of its Impossible answers that have no certificate.

    Certificates are the consistency rows of the elimination (vectors ``c``
    with ``c^T A = 0``); each is first re-checked against the board model's
    press masks, so the elimination is not trusted either.  A board is
    certified Impossible iff, for every goal board ``t``, some ``c`` has odd
    overlap with ``board ^ t``.  O(k * nullity) per goal board.
    """
    if not any(len(v) for v in infeasible.values()):
        return {}
    checks = consistency_rows(game)
    for c in checks:
        bad = [j for j, m in enumerate(game.press_masks) if (m & c).bit_count() & 1]
        if bad:
            raise RuntimeError(f"consistency row {c} is not orthogonal to press {bad[0]}: elimination bug")
    if boards.dtype == object:  # Python ints: per board
        certified = np.array([all(any(((int(b) ^ t) & c).bit_count() & 1 for c in checks) for t in game.targets)
                              for b in boards], dtype=bool).reshape(len(boards))
        return {name: idx[~certified[idx]] for name, idx in infeasible.items() if np.any(~certified[idx])}
    certified = np.ones(len(boards), dtype=bool)
    for t in game.targets:
        d = boards ^ np.uint64(t)
        odd = np.zeros(len(boards), dtype=bool)
        for c in checks:
            odd |= (np.bitwise_count(d & np.uint64(c)) & 1).astype(bool)
        certified &= odd
    return {name: idx[~certified[idx]] for name, idx in infeasible.items() if np.any(~certified[idx])}


def _summarise(game: Game, name: str, batch: BatchSolution, parts, seconds: float) -> BackendSummary:
    st = batch.status
    messages = [m for p in parts for m in p.stats.get("errors", [])]
    return BackendSummary(
        backend=name,
        boards=len(batch),
        solvable=int(np.sum(st == Status.OPTIMAL)),
        impossible=int(np.sum(st == Status.INFEASIBLE)),
        unknown=int(np.sum(st == Status.UNKNOWN)),
        errors=int(np.sum(st == Status.ERROR)),
        seconds=seconds,
        error_messages=list(dict.fromkeys(messages))[:5],
    )


def _compare(game: Game, results: dict[str, BatchSolution], summaries: list[BackendSummary],
             compare_presses: bool = False) -> list[dict]:
    """Boards whose definite answers differ; each backend off the plurality answer is charged one.

    On a tie for the plurality (e.g. two backends, two answers) every backend is charged.
    With ``compare_presses`` an answer is the count and the press set.
    """
    if len(results) < 2:
        return []
    names = list(results)
    keys = np.stack([_answer_keys(results[n]) for n in names], axis=1)
    big = results[names[0]].boards.dtype == object
    definite = keys != NO_ANSWER_KEY
    hi = np.where(definite, keys, np.iinfo(np.int32).min).max(axis=1)
    lo = np.where(definite, keys, np.iinfo(np.int32).max).min(axis=1)
    differ = hi != lo
    presses = None
    if compare_presses:
        presses = np.stack([results[n].presses for n in names], axis=1)
        optimal = keys >= 0
        below, above = (-1, 1 << (game.n + 1)) if big else (np.uint64(0), np.iinfo(np.uint64).max)
        p_hi = np.where(optimal, presses, below).max(axis=1)
        p_lo = np.where(optimal, presses, above).min(axis=1)
        differ |= optimal.any(axis=1) & (p_hi != p_lo)
    bad = np.flatnonzero((definite.sum(axis=1) >= 2) & differ)
    charged = Counter()
    records = []
    boards = results[names[0]].boards
    for i in bad:
        row = {n: (int(keys[i, j]), int(presses[i, j]) if compare_presses else 0)
               for j, n in enumerate(names) if definite[i, j]}
        counts = Counter(row.values()).most_common()
        top = counts[0][0] if len(counts) == 1 or counts[0][1] > counts[1][1] else None
        charged.update(n for n, k in row.items() if top is None or k != top)
        records.append(board_record(game, int(boards[i])) | {
            "answers": {n: answer_record(game, results[n], i) for n in names}})
    for s in summaries:
        s.disagreements = charged.get(s.backend, 0)
    return records

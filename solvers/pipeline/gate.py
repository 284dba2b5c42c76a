"""The gate: validate once, solve through a backend, attach certificates, and hand every answer to the referee.

:func:`solve`, :func:`solve_batch` and :class:`~flipgame.pipeline.session.Session` are the one way into a
backend.  They read the board (:func:`flipgame.model.boards.one_board`, :class:`~flipgame.model.boards.BoardSet`),
validate the rules and the backend's options once, ask the backend whether it takes the board
(:class:`~flipgame.core.errors.RefusedError` if not, before anything is built, naming the registered
backends that do take it), normalise an explicit goal board to all white on ``board ^ target`` so that
backends only ever see the goals ``any``, ``white`` and ``black``, attach an Impossible board's
certificates, and run the referee (:mod:`flipgame.verify.checks.referee`) on every answer: a rejected
answer is never reported as a number (:attr:`~flipgame.verify.checks.referee.Checked.answer`).

>>> s = solve(["bwwb", "bbwb", "bwwb", "bwww"])
>>> s
Solution(backend='gauss', status=OPTIMAL, moves=4, presses=417, target=0, ...)
>>> solve(["wbbb", "wwww", "wwww", "wwww"], "bfs").answer()
'Impossible'
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence

import numpy as np

from flipgame.algebra.gf2 import certificates
from flipgame.algebra.zk import certificates as zk_certificates
from flipgame.backends.base import Backend
from flipgame.backends.registry import get_backend, get_strategy, taken_by
from flipgame.backends.result import BatchSolution, Solution, Status
from flipgame.backends.strategies import Strategy
from flipgame.core.errors import BoardTooLargeError, FlipgameError, OptionError, RefusedError, RulesError
from flipgame.model.boards import BoardSet, one_board, rules_of
from flipgame.model.system import PressSystem
from flipgame.verify.checks.referee import Checked, CheckedBatch, referee, referee_batch


def prepare(game: PressSystem, backend: str | Backend, options: dict) -> tuple[Backend, PressSystem, dict]:
    """Validate once: the backend, its options and whether it takes ``game``.

    Returns ``(backend, normalised game, options with defaults)``; the
    normalised game has goal ``any``, ``white`` or ``black`` (an explicit goal
    board becomes ``white``, to be solved from ``board ^ target``).

    Raises
    ------
    UnknownBackendError, OptionError, RefusedError
    """
    b = backend if isinstance(backend, Backend) else get_backend(backend)
    options = b.check_options(options)
    return b, normal_taken(b, game, options), options


def normal_taken(b: Backend, game: PressSystem, options: dict) -> PressSystem:
    """The normalised ``game``, once ``b`` takes it with ``options`` (already checked); else the
    RefusedError subclass of ``b``, whose message names the registered backends that take it."""
    if options.get("canonical") and not game.binary:
        raise OptionError(f"the canonical press set is for two-state games; {game.size} is {game.kind}")
    normal = game.normal
    why = b.refusal(normal, options)
    if why:
        raise hinted(b.error_class(normal, options), why, normal, b.name)
    return normal


def hinted(error: type[RefusedError], why: str, normal: PressSystem, name: str) -> RefusedError:
    """``error(why)`` with the hint of the registered backends that take ``normal`` (for a refusal about the
    board), computed by asking each of them."""
    if not error.about_the_board:
        return error(why)
    others = taken_by(normal, skip=name)
    return error(why + (f"; taken by: {', '.join(others)}" if others else "; no registered backend takes it"))


def solve(board, backend: str = "gauss", *, game: PressSystem | None = None, **options) -> Solution:
    """Minimum presses for one board, by the named backend, through the gate; the answer checked by the referee.

    Parameters
    ----------
    board : Board, sequence of str, str, int, or sequence of int
        A :class:`~flipgame.model.grid.Board`; rows of text (``["bwwb", ...]`` or ``"bwwb\\nbbwb..."``) on
        any system with a grid shape; an int bitmask (cell ``i`` = bit ``i``) or a sequence of ``n`` cell
        states with ``game`` (:func:`flipgame.model.boards.one_board`).
    backend : str
        A key of :data:`~flipgame.backends.registry.BACKENDS`, or a strategy's name.
    game : PressSystem, optional
        The rules; default: the board's shape, goal "any colour".
    **options
        The backend's declared options (``BACKENDS[name].options``), e.g.
        ``time_limit=5.0``, and ``canonical=True`` for every backend.

    Returns
    -------
    Solution
        An INFEASIBLE answer carries ``certificates`` (goal board -> cells) when the algebra takes the
        board.  An answer the referee rejects comes back as ERROR, ``stats["error"]`` naming why.

    Raises
    ------
    RulesError, BoardFormatError
        A board that does not fit the rules, or bad rules.
    UnknownBackendError, OptionError
        Naming the valid backends or options.
    RefusedError
        The backend declines the board (size, nullity, memory); the message
        names what does take it.

    >>> from flipgame import Game
    >>> solve("bbw bww www", "cpsat", game=Game(3, 3, "white")).moves
    1
    """
    return solve_checked(board, backend, game=game, **options).answer


def solve_checked(board, backend: str | Backend = "gauss", *, game: PressSystem | None = None,
                  **options) -> Checked:
    """:func:`solve`'s answer as the backend gave it, with the referee's verdict (same arguments and errors)."""
    cells, game = one_board(board, game)
    b, normal, options = prepare(game, backend, options)
    return solve_one(b, game, normal, cells, options)


def solve_strategy(strategy: str | Strategy, board, game: PressSystem, time_limit: float | None = None,
                   **extra) -> Solution:
    """One board by a named strategy (:data:`flipgame.backends.registry.STRATEGIES`, or a
    :class:`~flipgame.backends.strategies.Strategy`), through the gate: :func:`solve` with the strategy's
    backend and options, ``time_limit`` if that backend takes one.

    >>> from flipgame import Game
    >>> solve_strategy("cpsat-xor", 11, Game(3, 3, "white")).moves
    1
    """
    return solve_strategy_checked(strategy, board, game, time_limit, **extra).answer


def solve_strategy_checked(strategy: str | Strategy, board, game: PressSystem, time_limit: float | None = None,
                           **extra) -> Checked:
    """:func:`solve_strategy`'s answer as the backend gave it, with the referee's verdict."""
    s = strategy if isinstance(strategy, Strategy) else get_strategy(strategy)
    return solve_checked(board, s.backend, game=game, **s.call_options(time_limit, **extra))


def solve_one(b: Backend, game: PressSystem, normal: PressSystem, cells, options: dict, model=None) -> Checked:
    """The gate's one-board path after validation: goal-board normalisation, the backend (on ``model`` when
    a session holds one open), the goal restored, certificates attached, the referee's verdict."""
    shift = game.binary and game.goal == "board"
    board = cells ^ game.target if shift else cells
    try:
        s = b.solve(normal, board, **options) if model is None else b.solve_on(model, board,
                                                                                canonical=options["canonical"])
    except RefusedError as exc:  # a refusal of this board (gauss's nullity, bfs's counter box): with the hint
        if "taken by:" in str(exc) or "takes it" in str(exc):
            raise
        raise hinted(type(exc), str(exc), normal, b.name) from None
    except (FlipgameError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - a backend's fault is its answer, ERROR, never a crash of the caller
        s = Solution(b.name, Status.ERROR, stats={"error": fault(exc)})
    if not isinstance(s, Solution):
        s = Solution(b.name, Status.ERROR, stats={"error": f"the backend returned {type(s).__name__}, not a Solution"})
    if s.success and shift:
        s = dataclasses.replace(s, target=game.target)
    s = with_certificates(game, cells, s)
    return Checked(s, referee(game, cells, s))


def with_certificates(game: PressSystem, cells, s: Solution) -> Solution:
    """``s`` with an Impossible board's certificates attached: two states at any size the algebra
    takes (the dense elimination, or light chasing's quiet patterns on larger plus boards); Z_k
    from the diagonal form.  Counters have none (their Impossible is the backend's word)."""
    if s.status is Status.INFEASIBLE and game.states is not None and s.certificates is None:
        with contextlib.suppress(BoardTooLargeError):
            certs = certificates(game, cells) if game.binary else zk_certificates(game, cells)
            s = dataclasses.replace(s, certificates=certs)
    return s


def solve_batch(boards: Sequence[int] | np.ndarray | BoardSet, game: PressSystem, backend: str = "gauss",
                **options) -> BatchSolution:
    """Many boards of one game (at most 64 cells on two states) through the gate; see :func:`solve`.

    Parameters
    ----------
    boards : BoardSet, or array_like of uint64 shape (k,), or of ints shape (k, n) beyond two states
        Bitmasks, each at most ``game.full``, or rows of cell states.

    Returns
    -------
    BatchSolution
        Targets are the goal boards of ``game`` (an explicit goal board included); an answer the referee
        rejects is ERROR.

    >>> from flipgame import Game
    >>> solve_batch([0, 1, 14], Game(4, 4), "gauss").moves.tolist()
    [0, -1, -1]
    """
    board_set = batch_boards(boards, game)
    b, normal, options = prepare(game, backend, options)
    return solve_many(b, game, normal, board_set, options).answers


def batch_boards(boards, game: PressSystem) -> BoardSet:
    """``boards`` as a checked :class:`BoardSet` of ``game``, for a batch: at most 64 cells on two states."""
    if rules_of(game).binary and game.n > 64:
        raise RulesError(f"batches hold boards of at most 64 cells in uint64; {game.size} has {game.n}: "
                         f"use solve() per board")
    return BoardSet.of(game, boards)


def solve_many(b: Backend, game: PressSystem, normal: PressSystem, boards: BoardSet, options: dict,
               model=None, check: bool = True, contain: bool = True) -> CheckedBatch:
    """The gate's batch path after validation (see :func:`solve_one`); every answer checked at once, unless
    ``check`` is False (a worker's chunk, which the driver checks: its verdict is then None).  A backend's
    exception is every board's ERROR, unless ``contain`` is False (then it is raised)."""
    arrays = boards.boards if game.binary else boards.boards.astype(np.int64)
    shift = game.binary and game.goal == "board"
    asked = arrays ^ np.uint64(game.target) if shift else arrays.copy()  # the backend gets a copy of its own
    try:
        if model is None:
            out = b.solve_batch(normal, asked.copy(), **options)
        else:
            out = b.solve_batch_on(model, asked.copy(), canonical=options["canonical"])
    except Exception as exc:  # noqa: BLE001 - as in solve_one: every board of the batch is ERROR
        if not contain or isinstance(exc, (FlipgameError, MemoryError)):
            raise
        out = all_error(b.name, asked, fault(exc), game.m)
    out = conformed(b.name, out, asked, game.m)
    if shift:
        solved = out.status == Status.OPTIMAL
        out = dataclasses.replace(out, target=np.where(solved, np.uint64(game.target), np.uint64(0)))
    out = dataclasses.replace(out, boards=arrays)  # the referee checks the boards asked, never the backend's
    return CheckedBatch(out, referee_batch(game, out) if check else None)


def fault(exc: Exception) -> str:
    """A backend's exception as the one line its ERROR answer carries."""
    return f"{type(exc).__name__}: {str(exc)[:200]}"


def conformed(name: str, out, asked: np.ndarray, m: int) -> BatchSolution:
    """``out`` when it answers exactly the boards ``asked``, in order; else a batch of ERROR answers naming
    what the backend gave instead (another type, another count, other boards): never numbers for boards
    nobody checked.  O(k)."""
    if not isinstance(out, BatchSolution):
        why = f"{name} returned {type(out).__name__}, not a BatchSolution"
    elif len(out) != len(asked):
        why = f"{name} answered {len(out)} of the {len(asked)} boards of a batch"
    elif out.boards.shape != asked.shape or not np.array_equal(out.boards, asked):
        why = f"{name} answered other boards than the batch it was given"
    else:
        return out
    return all_error(name, asked, why, m)


def all_error(name: str, boards: np.ndarray, why: str, m: int) -> BatchSolution:
    """A batch answering every board of ``boards`` ERROR, for the reason ``why``."""
    return BatchSolution.from_solutions(name, boards, [Solution(name, Status.ERROR, stats={"error": why})]
                                        * len(boards), 0.0, m)

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
from flipgame.core.errors import BoardTooLargeError, OptionError, RefusedError, RulesError
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
               model=None, check: bool = True) -> CheckedBatch:
    """The gate's batch path after validation (see :func:`solve_one`); every answer checked at once, unless
    ``check`` is False (a worker's chunk, which the driver checks: its verdict is then None)."""
    arrays = boards.boards if game.binary else boards.boards.astype(np.int64)

    def run(values: np.ndarray) -> BatchSolution:
        if model is None:
            return b.solve_batch(normal, values, **options)
        return b.solve_batch_on(model, values, canonical=options["canonical"])

    if game.goal != "board" or not game.binary:
        out = run(arrays)
    else:
        out = run(arrays ^ np.uint64(game.target))
        solved = out.status == Status.OPTIMAL
        out = dataclasses.replace(out, boards=arrays, target=np.where(solved, np.uint64(game.target), np.uint64(0)))
    return CheckedBatch(out, referee_batch(game, out) if check else None)

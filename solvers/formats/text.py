"""The extra lines ``flipgame solve`` writes after an answer, for a person: the press set (``--presses``), an
Impossible board's certificates (``--explain``) and the per-case statistics (``--stats``).

A grid generator's press system (:class:`~flipgame.model.grid.Game`) is drawn as a grid: button ``j`` is the
press of cell ``j``; any other press system names its buttons by their number in the rules.  Every
certificate is re-checked by the model before it is written.
"""

from __future__ import annotations

from flipgame.algebra.gf2 import method_for, nullity
from flipgame.backends.result import Solution
from flipgame.core.errors import FlipgameError
from flipgame.core.limits import ZK_DENSE_MAX_CELLS
from flipgame.model.grid import Game, format_cells
from flipgame.model.system import PressSystem
from flipgame.verify.checks.certificates import check_certificate


def presses_text(game: PressSystem, presses) -> str:
    """A witness as ``--presses`` prints it: a two-state grid's x/. board, a k-state grid's board of press
    counts, or on any other system ``buttons pressed (...): 0, 3 (x2)`` (0-based, in the rules' order)."""
    if isinstance(game, Game):
        return format_cells(presses, game.rows, game.cols, "x", ".") if game.binary else game.format_board(presses)
    return f"buttons pressed (numbered from 0 in the rules' order): {game.format_presses(presses)}"


def _no_certificate(game: PressSystem) -> str:
    if game.states is None:
        return "(no certificate: counters are integer programs; the Impossible is the backend's word, unchecked)"
    if not game.binary:
        return (f"(no certificate: the diagonal form over Z_{game.states} is computed for certificates up to "
                f"{ZK_DENSE_MAX_CELLS:,} cells and buttons; the Impossible is the backend's word, unchecked)")
    return "(no certificate: neither the dense elimination nor light chasing takes these rules at this size)"


def explain_impossible(game: PressSystem, board, goal_name, certificates) -> str:
    """Text of an Impossible certificate per goal board, each re-checked by the model; ``goal_name(game,
    target)`` names a goal board in the format's words.

    Raises RuntimeError if a certificate fails the model's check.
    """
    if certificates is None:
        return _no_certificate(game)
    out = []
    for target, cert in certificates.items():
        problem = check_certificate(game, board, target, cert)
        if problem:
            raise RuntimeError(f"certificate rejected by the model: {problem}")
        if not game.binary:
            gap = sum(c * (t - b) for c, t, b in zip(cert, target, board, strict=True)) % game.states
            out += [f"certificate for {goal_name(game, target)}: every button adds 0 (mod {game.states}) to the "
                    f"sum of the cells weighted as below, but reaching that goal changes it by {gap}:",
                    game.format_board(cert)]
            continue
        overlap = ((board ^ target) & cert).bit_count()
        marked = "cells marked x" if game.shape else "cells listed"
        out.append(f"certificate for {goal_name(game, target)}: every press flips an even number of the "
                   f"{marked}, but {overlap} of them (odd) must change")
        out.append(format_cells(cert, game.rows, game.cols, "x", ".") if game.shape
                   else "cells (numbered from 0): " + " ".join(str(i) for i in range(game.n) if cert >> i & 1))
    return "\n".join(out)


def _quick_nullity(game: PressSystem) -> int | None:
    """The nullity when the algebra has it at once (the dense elimination or light chasing, cached); None beyond
    two states and for the banded elimination, whose sweep can take as long as the solve (a ``--stats`` line
    of an Unknown answer would run it again, past the time limit)."""
    if not game.binary:
        return None
    try:
        if method_for(game) == "band":
            return None
    except FlipgameError:
        return None
    return nullity(game)


def stats_line(number: int, game: PressSystem, sol: Solution, goal_name) -> str:
    """The ``--stats`` line of one case: rules, status, presses, nullity, seconds and the solver's statistics."""
    k = sol.stats["nullity"] if "nullity" in sol.stats else _quick_nullity(game)
    extra = " ".join(f"{key}={value:.4g}" if isinstance(value, float) else f"{key}={value}"
                     for key, value in sol.stats.items() if key != "nullity")
    moves = "-" if sol.moves is None else sol.moves
    goals = " or ".join(goal_name(game, t) for t in game.targets) if game.binary else game.goal
    if isinstance(game, Game) and game.binary:
        rules = f"{game.size} {game.neighbourhood}{' toroidal' if game.wrap else ''}, goal {goals}"
    else:
        rules = game.rules
    return (f"case {number}: {rules}; {sol.status.name} presses={moves} "
            f"nullity={'?' if k is None else k} seconds={sol.seconds:.4f} {extra}").rstrip()

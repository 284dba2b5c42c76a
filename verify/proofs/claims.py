"""A solver program's claim of a minimum or of Impossible, checked: its word is never the last word.

``solve`` passes every answer of an external program (:mod:`flipgame.backends.external`)
through :func:`check_claim`.  The witness itself is checked elsewhere
(:func:`flipgame.verify.checks.witness.check_solution`); here the claim that no
smaller press set exists, or that none exists at all, is checked, by the first
checker that takes the board:

1. **gauss**, where it takes the board (the elimination and the minimum over the null
   space: exact, and cheap next to a program run);
2. for a minimum, **a parity proof**: :func:`flipgame.verify.proofs.certify.certify_minimum`
   proves "no press set of at most ``moves - 1`` presses reaches a goal" and dratify checks
   the proof (within :data:`PROOF_SECONDS`); for Impossible, the certificates the gate attached,
   or the algebra's search for one, which finds none exactly when a goal board is reachable
   (:func:`~flipgame.verify.checks.witness.check_impossible`).

A claim no checker could settle is reported as the program's unchecked claim, never as a minimum.

>>> from flipgame import Board, Game, solve
>>> sample = Board.from_rows(["bwwb", "bbwb", "bwwb", "bwww"]).cells  # POJ 1753's sample: minimum 4
>>> check_claim(Game(4, 4), sample, solve(sample, "bfs", game=Game(4, 4)))
ClaimCheck(checker='gauss', problem=None)
"""

from __future__ import annotations

from dataclasses import dataclass

from flipgame.backends.result import Solution, Status
from flipgame.core.errors import RefusedError
from flipgame.gate.session import solve
from flipgame.model.system import PressSystem
from flipgame.verify.checks.witness import check_impossible
from flipgame.verify.proofs.certify import CertStatus, certify_minimum

PROOF_SECONDS = 10.0
"""Seconds for the parity proof of a claimed minimum that gauss does not take (``--certify``'s default)."""


@dataclass(frozen=True)
class ClaimCheck:
    """What checked a claim, and what is wrong with it.

    Attributes
    ----------
    checker : str or None
        ``gauss``, ``parity proof`` or ``certificate``; None when nothing could check it (then the
        answer is the program's unchecked claim).
    problem : str or None
        Why the claim is false (the checker's answer against the program's), or None.
    """

    checker: str | None
    problem: str | None = None

    @property
    def unchecked(self) -> bool:
        return self.checker is None and self.problem is None


def _gauss(game: PressSystem, board: int) -> Solution | None:
    """gauss's answer, or None where it refuses (too many cells for its elimination, nullity over its limit)."""
    try:
        return solve(board, "gauss", game=game)
    except RefusedError:
        return None


def check_claim(game: PressSystem, board: int, sol: Solution, *, proof_seconds: float | None = PROOF_SECONDS,
                prove: bool = True) -> ClaimCheck:
    """Check ``sol``'s claim (OPTIMAL: no smaller press set; INFEASIBLE: none at all) on ``board``.

    Parameters
    ----------
    game, board
        The rules (a press system; a grid :class:`~flipgame.model.grid.Game` is one) and the board
        (a bitmask for two states) as the gate took them.
    sol : Solution
        The answer; UNKNOWN and ERROR claim nothing (``ClaimCheck(None)``).
    proof_seconds : float or None
        Limit of the parity proof (None: in this process, no limit).
    prove : bool
        False skips the proof (``solve --certify`` proves every minimum anyway).

    Returns
    -------
    ClaimCheck
        ``problem`` names the program (``stats["program"]``) and both answers.

    Running time: gauss's (microseconds on 4x4, O(n^3 / w) at most), or the proof's (see
    :func:`~flipgame.verify.proofs.certify.certify_minimum`).
    """
    if sol.status not in (Status.OPTIMAL, Status.INFEASIBLE):
        return ClaimCheck(None)
    program = sol.stats.get("program", sol.backend)
    ref = _gauss(game, board)
    if ref is not None:
        if ref.answer() == sol.answer():
            return ClaimCheck("gauss")
        return ClaimCheck("gauss", f"{program} claims {_claim(sol)}, but gauss proves {_claim(ref)}")
    if sol.status is Status.INFEASIBLE:
        if problem := check_impossible(game, board, sol):
            return ClaimCheck("certificate", f"{program} {problem}")
        return ClaimCheck("certificate") if sol.certificates else ClaimCheck(None)
    if not prove:
        return ClaimCheck(None)
    cert = certify_minimum(game, board, sol.moves, witness=sol.presses, time_limit=proof_seconds)
    if cert.status is CertStatus.FAILED:
        return ClaimCheck("parity proof", f"{program} claims {_claim(sol)}, but {cert.message}")
    return ClaimCheck("parity proof") if cert.ok else ClaimCheck(None)


def unchecked_line(sol: Solution) -> str:
    """The note for an answer nothing could check, e.g. ``4 is cadical's unchecked claim (...)``."""
    what = f"the minimum {sol.moves}" if sol.status is Status.OPTIMAL else "Impossible"
    return (f"{what} is {sol.stats.get('program', sol.backend)}'s unchecked claim (gauss does not take this board "
            f"and no proof finished)")


def _claim(sol: Solution) -> str:
    return f"a minimum of {sol.moves} presses" if sol.status is Status.OPTIMAL else "Impossible"

"""The one agreement policy: who is right when answers differ.

``solve`` (a solver program's claim), ``verify`` (every backend on every board) and the study (strategies
on instance families) all decide here, in one order:

1. **a reference**: gauss's answer (:data:`REFERENCE`), where it gives one: the exact algebra, its witness
   re-applied and its Impossible certified by the referee;
2. **a checked proof**: for a claimed minimum that gauss does not take, a DRAT proof that no smaller press
   set reaches a goal, checked by dratify (:func:`flipgame.verify.proofs.certify.certify_minimum`); for an
   Impossible, the certificate the referee checked;
3. **the plurality** of the definite answers (OPTIMAL or INFEASIBLE; UNKNOWN and ERROR agree and disagree
   with nothing); on a tie for the most answers, every answer is charged.

An answer is *charged* when it differs from the decided one.  Two answers agree when both are Impossible
or both give the same minimum number of presses; press sets are compared only when asked (canonical
witnesses, POJ 3279).  ``verify`` and the study use gauss as the reference where gauss is among the answers
(the study also asks gauss when it was not run); a program's claim is checked against gauss, then a proof.

Source: differential testing as in the yinyang SMT-solver fuzzer (``SolverResult.equals``: an unknown
agrees with anything), and McKeeman, "Differential Testing for Software" (1998).

>>> charged({"gauss": 4, "sat": 4, "liar": 6})
{'liar': 'disagrees with gauss (4)'}
>>> sorted(charged({"a": 4, "b": 6}))  # a tie, and no reference: both are charged
['a', 'b']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from flipgame.backends.result import Solution, Status
from flipgame.core import extras
from flipgame.core.errors import RefusedError
from flipgame.core.limits import CERTIFY_SECONDS
from flipgame.model.system import PressSystem
from flipgame.pipeline.gate import solve

REFERENCE = "gauss"
"""The backend whose answers are the reference wherever it gives one."""
IMPOSSIBLE_KEY = -2
"""An Impossible answer as a key (a minimum is its own key)."""
NO_ANSWER_KEY = -99
"""UNKNOWN or ERROR as a key: agrees and disagrees with nothing."""


def answer_key(solution: Solution) -> int:
    """The minimum, :data:`IMPOSSIBLE_KEY` or :data:`NO_ANSWER_KEY`."""
    if solution.status is Status.OPTIMAL:
        return solution.moves
    return IMPOSSIBLE_KEY if solution.status is Status.INFEASIBLE else NO_ANSWER_KEY


def answer_keys(status: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """:func:`answer_key` of a batch, int32 shape (k,)."""
    keys = np.full(len(status), NO_ANSWER_KEY, dtype=np.int32)
    keys[status == Status.OPTIMAL] = moves[status == Status.OPTIMAL]
    keys[status == Status.INFEASIBLE] = IMPOSSIBLE_KEY
    return keys


def key_text(key) -> str:
    """A key as an answer is written: the minimum, or ``Impossible``."""
    return "Impossible" if key == IMPOSSIBLE_KEY else str(key)


def charged(keys: Mapping[str, object], reference: str = REFERENCE, source: str | None = None
            ) -> dict[str, str]:
    """The answers of one board that are charged, each with why: by the policy of the module docstring.

    Parameters
    ----------
    keys : mapping of name -> key
        Each answer's key (:func:`answer_key`, or a key and a press set for canonical runs); answers with
        :data:`NO_ANSWER_KEY` take no part.
    reference : str
        The name whose definite answer is the reference when it is among ``keys``.
    source : str, optional
        How the reference is named (default: ``reference``).

    Returns
    -------
    dict of name -> str
        Empty when every definite answer agrees.  O(len(keys)).
    """
    definite = {n: k for n, k in keys.items() if _definite(k)}
    if len(set(definite.values())) <= 1:
        return {}
    if reference in definite:
        ref = definite[reference]
        return {n: f"disagrees with {source or reference} ({_text(ref)})" for n, k in definite.items() if k != ref}
    counts = Counter(definite.values()).most_common()
    if counts[0][1] > counts[1][1]:
        top = counts[0][0]
        return {n: f"disagrees with most answers ({_text(top)})" for n, k in definite.items() if k != top}
    answers = ", ".join(sorted({_text(k) for k in definite.values()}))
    return dict.fromkeys(definite, f"answers disagree ({answers}) and none is a reference")


def _definite(key) -> bool:
    return (key[0] if isinstance(key, tuple) else key) != NO_ANSWER_KEY


def _text(key) -> str:
    return key_text(key[0] if isinstance(key, tuple) else key)


def charged_rows(keys: np.ndarray, names: list[str], reference: str = REFERENCE,
                 presses: np.ndarray | None = None) -> np.ndarray:
    """:func:`charged` for many boards at once: ``keys`` int32 shape (boards, answers) in the order of ``names``
    (and with ``presses`` of the same shape, the press sets of the OPTIMAL answers compared too); bool of the
    same shape, True where an answer is charged.  O(boards * answers) in numpy, then :func:`charged` on the
    boards whose answers differ."""
    definite = keys != NO_ANSWER_KEY
    hi = np.where(definite, keys, np.iinfo(np.int32).min).max(axis=1)
    lo = np.where(definite, keys, np.iinfo(np.int32).max).min(axis=1)
    differ = hi != lo
    if presses is not None:
        optimal = keys >= 0
        big = presses.dtype == object
        below, above = (-1, float("inf")) if big else (np.uint64(0), np.iinfo(np.uint64).max)
        p_hi = np.where(optimal, presses, below).max(axis=1)
        p_lo = np.where(optimal, presses, above).min(axis=1)
        differ |= (optimal.sum(axis=1) >= 2) & (p_hi != p_lo)
    out = np.zeros(keys.shape, dtype=bool)
    for i in np.flatnonzero((definite.sum(axis=1) >= 2) & differ):
        row = {n: (int(keys[i, j]), int(presses[i, j]) if presses is not None and keys[i, j] >= 0 else 0)
               for j, n in enumerate(names)}
        for n in charged(row, reference):
            out[i, names.index(n)] = True
    return out


def reference_answer(game: PressSystem, board) -> Solution | None:
    """gauss's checked answer on ``board``, or None where gauss does not take it (too many cells for its
    elimination, nullity over its limit)."""
    try:
        s = solve(board, REFERENCE, game=game)
    except RefusedError:
        return None
    return s if s.status in (Status.OPTIMAL, Status.INFEASIBLE) else None


@dataclass(frozen=True)
class ClaimCheck:
    """What checked a program's claim, and what is wrong with it.

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


def check_claim(game: PressSystem, board, sol: Solution, *, referee_problem: str | None = None,
                proof_seconds: float | None = CERTIFY_SECONDS, prove: bool = True) -> ClaimCheck:
    """Check a solver program's claim (OPTIMAL: no smaller press set; INFEASIBLE: none at all) by the policy:
    gauss where it takes the board, else for Impossible the referee's certificate check
    (``referee_problem``), for a minimum a checked parity proof (within ``proof_seconds``; skipped when
    ``prove`` is False, as ``solve --certify`` proves every minimum anyway).

    Returns
    -------
    ClaimCheck
        ``problem`` names the program (``stats["program"]``) and both answers.

    Running time: gauss's (microseconds on 4x4, O(n^3 / w) at most), or the proof's.
    """
    if sol.status not in (Status.OPTIMAL, Status.INFEASIBLE):
        return ClaimCheck(None)
    program = sol.stats.get("program", sol.backend)
    ref = reference_answer(game, board)
    if ref is not None:
        if ref.answer() == sol.answer():
            return ClaimCheck("gauss")
        return ClaimCheck("gauss", f"{program} claims {_claim(sol)}, but gauss proves {_claim(ref)}")
    if sol.status is Status.INFEASIBLE:
        if referee_problem:
            return ClaimCheck("certificate", f"{program} {referee_problem}")
        return ClaimCheck("certificate") if sol.certificates else ClaimCheck(None)
    if not prove or not extras.installed("dratify"):  # no checker: the claim stays the program's word
        return ClaimCheck(None)
    from flipgame.verify.proofs.certify import CertStatus, certify_minimum  # only a claim to prove loads the checker

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

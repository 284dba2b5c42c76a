"""Certificates that a claimed minimum number of presses is minimal: the orchestration.

A solver that answers "board ``b`` needs ``k`` presses" makes two claims: a
press set of ``k`` presses reaches a goal board (the *witness*, checked by
simulation), and no press set of at most ``k - 1`` presses does (the *lower
bound*).  This module certifies both.

For every goal board ``t`` the lower-bound CNF is built from
``game.press_masks`` alone by :mod:`flipgame.verify.proofs.lower_bound` (which
imports no solver), a refutation is found, and dratify checks it:

* ``parity`` proofs (:mod:`flipgame.encode.parity_proofs`, from :data:`~flipgame.verify.proofs.provers.PARITY_MIN_CELLS`
  cells): the elimination itself, logged as RAT/RUP steps over extension
  variables; light chasing on plus boards without wrap (any size the time
  limit allows), dense elimination on other rules (at most
  :data:`~flipgame.verify.proofs.provers.DENSE_PROOF_MAX_CELLS` cells);
* ``search`` proofs: CaDiCaL 1.9.5 through python-sat refutes the CNF and
  logs DRUP (small boards, where its proofs are shorter, and anything the
  parity prover does not take).

Either way the proof is only a claim until dratify accepts it; the generator
is not trusted.  A pruned split too large for DRAT
(:data:`~flipgame.verify.proofs.provers.TREE_MIN_COST`) is certified by its tree instead,
checked by :mod:`flipgame.verify.proofs.tree_check`, which shares no code with the search.
Work runs in a child process killed at the time limit, so past ``time_limit`` the answer is
UNKNOWN, never certified.

Sources
-------
* DRUP: M. J. H. Heule, W. A. Hunt Jr. and N. Wetzler, "Trimming while checking
  clausal proofs", FMCAD 2013.
* DRAT: N. Wetzler, M. J. H. Heule and W. A. Hunt Jr., "DRAT-trim: Efficient
  checking and trimming using expressive clausal proofs", SAT 2014.
* Proof logging in python-sat: ``Solver(..., with_proof=True)`` and
  ``Solver.get_proof()``, https://pysathq.github.io/docs/html/api/solvers.html
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass

from flipgame.core.files import remove_partial
from flipgame.core.limits import CERTIFY_SECONDS
from flipgame.verify.proofs.drat import proof_from_text
from flipgame.verify.proofs.lower_bound import build_formula
from flipgame.verify.proofs.proof_check import Verdict, check_proof_files, check_refutation
from flipgame.verify.proofs.provers import SOLVER, prover_for, run_in_child, run_job

__all__ = ["CertStatus", "Certification", "certify_minimum", "check_proof_files", "lower_bound_cnf"]

class CertStatus(enum.Enum):
    """Outcome of :func:`certify_minimum`.

    CERTIFIED  the witness reaches a goal with exactly ``moves`` presses and a
               checked proof shows no press set of at most ``moves - 1`` does;
    TRIVIAL    ``moves == 0`` and the board already is a goal board (nothing to prove);
    FAILED     the claim is wrong (a counterexample press set, a bad or missing
               witness) or a proof was rejected by the checker;
    UNKNOWN    the time limit expired before solving and checking finished.
    """

    CERTIFIED = "certified"
    TRIVIAL = "trivial"
    FAILED = "failed"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Certification:
    """The result of :func:`certify_minimum`.

    Attributes
    ----------
    status : CertStatus
    moves : int
        The claimed minimum ``k`` being certified.
    proof_lines : int
        DRAT lines (additions and deletions, the final empty clause included) and branch-and-bound
        certificates' closed nodes, summed over all goal boards; 0 when no proof was produced.
    formula_clauses : int
        Clauses of the refuted formulas, summed over all goal boards.
    solve_seconds, check_seconds : float
        Time spent finding the proofs (SAT search or parity derivation) and checking them.
    message : str
        One line: what was proved, or why not.  For FAILED it names the goal
        board and the counterexample press set (cells as ``(row, col)``).
    proofs : int
        Number of checked proofs (one per goal board that needed one).
    prover : str
        ``parity`` (:mod:`flipgame.encode.parity_proofs`) or ``search`` (CaDiCaL).
    engine : str
        dratify's engine that checked the DRAT proofs (``native`` or ``python``), or ``tree_check`` when
        every proof is a branch-and-bound certificate (:mod:`flipgame.verify.proofs.tree_check`).
    trees, tree_lines : int
        How many of ``proofs`` are branch-and-bound certificates, and their closed nodes (part of
        ``proof_lines``); a goal ``any`` can take a certificate for one goal board and DRAT for the other.
    """

    status: CertStatus
    moves: int
    proof_lines: int
    formula_clauses: int
    solve_seconds: float
    check_seconds: float
    message: str
    proofs: int = 0
    prover: str = ""
    engine: str = ""
    trees: int = 0
    tree_lines: int = 0

    @property
    def ok(self) -> bool:
        """True for CERTIFIED and TRIVIAL."""
        return self.status in (CertStatus.CERTIFIED, CertStatus.TRIVIAL)

    def line(self) -> str:
        """One-line report, e.g. ``certified: no press set of at most 3 presses reaches
        all white or all black (2 DRAT proofs by search, 105 lines, checked by dratify (native) in 0.012 s)``;
        a branch-and-bound certificate is named as such, with its closed nodes and ``checked by tree_check``."""
        head = f"{self.status.value}: {self.message}"
        if self.status is not CertStatus.CERTIFIED:
            return head
        parts, drat = [], self.proofs - self.trees
        if drat:
            parts.append(f"{drat} DRAT proof{'s' if drat != 1 else ''} by {self.prover}, "
                         f"{self.proof_lines - self.tree_lines} lines, checked by dratify ({self.engine})")
        if self.trees:
            parts.append(f"{self.trees} branch-and-bound certificate{'s' if self.trees != 1 else ''} by "
                         f"{self.prover}, {self.tree_lines} lines (closed nodes), checked by tree_check")
        return f"{head} ({'; '.join(parts)} in {self.check_seconds:.3f} s)"


def lower_bound_cnf(game, board: int, target: int, bound: int) -> tuple[list[list[int]], int]:
    """CNF satisfiable iff some press set of at most ``bound`` presses takes ``board`` to ``target``.

    Only ``game.n``, ``game.m`` and ``game.press_masks`` are read; see
    :func:`flipgame.verify.proofs.lower_bound.build_formula` for the encoding.  Returns
    ``(clauses, m)``: press ``j`` (button ``j``; on a grid, cell ``j``) is variable ``j + 1``.

    Raises
    ------
    ValueError
        If ``bound`` is negative.
    """
    return build_formula(game.m, tuple(game.press_masks), board ^ target, bound, cells=game.n).clauses, game.m


def _cnf(n: int, masks, diff: int, bound: int, encoding: str | None = None) -> tuple[list[list[int]], int]:
    """(clauses, highest variable) of "press set x of at most ``bound`` presses with A x = diff"."""
    f = build_formula(n, masks, diff, bound, encoding)
    return f.clauses, f.nvars


def _check(clauses: list[list[int]], nvars: int, proof_text: str) -> Verdict:
    """dratify's verdict on ``proof_text`` (text DRAT) as a refutation of ``clauses``."""
    return check_refutation((clauses, nvars), proof_from_text(proof_text))


# ---------------------------------------------------------------------------
# one job: solve and check every goal (runs in-process or in a child)
# ---------------------------------------------------------------------------


def _presses(count: int) -> str:
    return f"{count} press" if count == 1 else f"{count} presses"


def _cells(presses: int, cols: int | None) -> str:
    cells = [j for j in range(presses.bit_length()) if presses >> j & 1]
    if cols:
        return "{" + ", ".join(f"({j // cols},{j % cols})" for j in cells) + "}"
    return "{" + ", ".join(map(str, cells)) + "}"


def _goal_label(game, target: int) -> str:
    return "white" if target == 0 else "black" if target == game.full else "target"


def _describe(game, target: int) -> str:
    label = _goal_label(game, target)
    return "the target board" if label == "target" else f"all {label}"


def certify_minimum(game, board: int, moves: int, *, witness: int | None = None,
                    time_limit: float | None = CERTIFY_SECONDS, proof_dir: str | os.PathLike | None = None,
                    name: str = "case", jobs: int = 1) -> Certification:
    """Prove that ``board`` needs exactly ``moves`` presses, and check the proof.

    Two halves:

    * **upper bound**: ``witness`` (a press-set bitmask) must have exactly
      ``moves`` presses and take ``board`` to a goal board, checked by
      XOR-ing ``game.press_masks``.  With ``witness=None`` one is found after
      the lower bound (from the algebra for parity proofs; else a SAT call "at
      most ``moves`` presses" per goal, whose model then has exactly ``moves``
      presses) and checked the same way.  When the lightest press set is
      heavier, "at most ``moves``" is refuted too: the claim is too low;
    * **lower bound**: for every goal board ``t`` in ``game.targets`` the CNF
      of :func:`lower_bound_cnf` with ``bound = moves - 1`` is refuted, by a
      parity proof (:mod:`flipgame.encode.parity_proofs`, from :data:`~flipgame.verify.proofs.provers.PARITY_MIN_CELLS`
      cells) or CaDiCaL 1.9.5's DRUP proof, and the proof is replayed by
      :mod:`dratify` (:mod:`flipgame.verify.proofs.proof_check`).

    Parameters
    ----------
    game : PressSystem
        A two-state system: its press masks, goal boards and shape; the prover is chosen from its
        structure (:func:`~flipgame.verify.proofs.provers.prover_for`).
    board : int
        Bitmask of black cells.
    moves : int
        The claimed minimum.  0 is TRIVIAL when the board is a goal board.
    witness : int, optional
        The solver's press set for ``moves``; see above.
    time_limit : float or None
        Wall-clock seconds for solving and checking, in a spawned child process
        that is killed on expiry (result UNKNOWN); the child also dies with the
        parent, and Ctrl-C kills it and re-raises ``KeyboardInterrupt``.
        ``None`` works in this process, without a limit (tests, small boards).
        The child costs about 0.1-0.2 s to start.
    proof_dir : path, optional
        Write ``{name}-{white|black|target}.cnf`` (DIMACS, ``c`` header naming
        the claim) and ``{name}-{...}.drat`` (the proof, one clause per line,
        deletions as ``d ...``) per goal, for ``drat-trim`` or
        :func:`check_proof_files`.  Created if missing.  Written by the worker,
        so a counterexample or a timeout may leave some goals' files written.
    name : str
        File name stem for ``proof_dir``.
    jobs : int
        Processes checking each proof (its pieces in parallel, see
        :func:`flipgame.verify.proofs.proof_check.check_refutation`); ``solve --certify`` uses one per core.

    Returns
    -------
    Certification
        CERTIFIED, TRIVIAL, FAILED (a witness that is missing, of the wrong
        size or reaching no goal; a press set of at most ``moves - 1`` presses
        reaching a goal, named in the message; a proof dratify rejects) or
        UNKNOWN (time limit, or a crash of the worker).

    Raises
    ------
    ValueError
        If ``moves`` is negative or more than ``game.n``, or ``board`` /
        ``witness`` does not fit the board.
    KeyboardInterrupt
        Re-raised after killing the child.

    Notes
    -----
    Running time: below 50 cells a CaDiCaL search (4x4, goal any: about 11 ms
    a board in-process, two proofs of ~110 lines; about 150 ms through the
    child process).  From 50 cells on plus boards, a parity proof of about
    30 n^3 lines on n x n, generated and checked at about 1-2 microseconds a line (``jobs`` processes share the
    checking), times ``2**nullity`` full propagations at the end: measured
    figures in docs/proofs.md (a random 50x50 board certifies in about 5 s on
    2 cores, 100x100 in about 45 s).
    Impossible boards are out of scope: their certificate is a parity check
    (:func:`flipgame.algebra.gf2.certificates`), not a proof of minimality.
    """
    _check_claim(game, board, moves, witness)
    if witness is not None and (why := _witness_problem(game, board, moves, witness)):
        return _failed(moves, why)
    if moves == 0:
        if board in tuple(game.targets):
            return Certification(CertStatus.TRIVIAL, 0, 0, 0, 0.0, 0.0,
                                 f"the board already is {_describe(game, board)} (0 presses)")
        return _failed(moves, f"the board is not {_goals_text(game)}, so it needs at least 1 press")
    job = _certification_job(game, board, moves, witness, proof_dir, name) | {"check_jobs": max(1, jobs)}
    if time_limit is None:
        out = run_job(job)
    else:
        out = run_in_child(job, time_limit)
        if out is None:  # the child was killed, perhaps while writing a proof file
            if proof_dir is not None:
                remove_partial(proof_dir, f"{name}-")
            return Certification(CertStatus.UNKNOWN, moves, 0, 0, 0.0, 0.0,
                                 f"certification not finished within {time_limit:g} s")
    return _certification_of(game, board, moves, out)


def _check_claim(game, board: int, moves: int, witness: int | None) -> None:
    """Raise ValueError unless ``moves``, ``board`` and ``witness`` fit ``game``."""
    if not 0 <= moves <= game.m:
        raise ValueError(f"moves must be between 0 and {game.m}, got {moves}")
    if not 0 <= board <= game.full:
        raise ValueError(f"board does not fit {game.n} cells")
    if witness is not None and not 0 <= witness < 1 << game.m:
        raise ValueError(f"witness does not fit {game.m} buttons")


def _goals_text(game) -> str:
    """The goal boards in words, joined by "or"."""
    return " or ".join(_describe(game, t) for t in tuple(game.targets))


def _failed(moves: int, message: str, **kw) -> Certification:
    """A FAILED certification of ``moves`` with the proof figures in ``kw`` (0 where absent)."""
    return Certification(CertStatus.FAILED, moves, kw.get("lines", 0), kw.get("clauses", 0),
                         kw.get("solve", 0.0), kw.get("check", 0.0), message, kw.get("proofs", 0))


def _witness_problem(game, board: int, moves: int, w: int) -> str | None:
    """Why press set ``w`` is no witness of ``moves`` presses for ``board``, or None if it is one."""
    cols = getattr(game, "cols", None)
    if w.bit_count() != moves:
        return f"the witness {_cells(w, cols)} has {w.bit_count()} presses, not {moves}"
    if game.apply(board, w) not in tuple(game.targets):
        return f"the witness {_cells(w, cols)} does not reach {_goals_text(game)}"
    return None


def _certification_job(game, board: int, moves: int, witness: int | None, proof_dir, name: str) -> dict:
    """The picklable job of :func:`run_job`: the lower bound ``moves - 1`` per goal, and the witness."""
    n = game.n
    return {
        "n": game.m, "cells": n, "masks": tuple(game.press_masks), "board": board, "bound": moves - 1,
        "witness": witness,
        "goals": [{"target": t, "label": _goal_label(game, t), "describe": _describe(game, t)}
                  for t in tuple(game.targets)],
        "proof_dir": None if proof_dir is None else os.fspath(proof_dir), "name": name,
        "solver": SOLVER, "prover": prover_for(game), "game": game,
        "rules": str(getattr(game, "rules", f"{n} cells")),
    }


def _certification_of(game, board: int, moves: int, out: dict) -> Certification:
    """The Certification a finished job's output ``out`` amounts to."""
    goals_text = _goals_text(game)
    kw = {"lines": out.get("proof_lines", 0), "clauses": out.get("clauses", 0), "solve": out.get("solve", 0.0),
          "check": out.get("check", 0.0), "proofs": out.get("proofs", 0)}
    bound_text = f"no press set of at most {_presses(moves - 1)} reaches {goals_text}"
    kind = out["kind"]
    if kind == "error":
        return Certification(CertStatus.UNKNOWN, moves, kw["lines"], kw["clauses"], kw["solve"], kw["check"],
                             f"certification did not finish: {out['reason']}")
    if kind == "counterexample":
        p = out["presses"]
        what = _describe(game, next(t for t in tuple(game.targets) if _goal_label(game, t) == out["goal"]))
        sim = "" if out["reaches"] else " (but simulation disagrees: solver model invalid)"
        return _failed(moves, f"the claimed minimum {moves} is too high: {p.bit_count()} presses "
                              f"{_cells(p, getattr(game, 'cols', None))} reach {what}{sim}", **kw)
    if kind == "rejected":
        return _failed(moves, f"{out['checker']} rejected the proof for goal {out['goal']}: {out['reason']}", **kw)
    w = out["witness"]
    if w is None:
        return _failed(moves, f"{bound_text}, but no press set of {moves} presses reaches {goals_text} either: "
                              f"the claimed minimum {moves} is too low", **kw)
    if why := _witness_problem(game, board, moves, w):
        return _failed(moves, f"{bound_text}, but {why}", **kw)
    engine = out["engine"] or ("tree_check" if out["trees"] else "")
    return Certification(CertStatus.CERTIFIED, moves, kw["lines"], kw["clauses"], kw["solve"], kw["check"],
                         bound_text, kw["proofs"], _prover_text(out), engine, out["trees"], out["tree_lines"])


def _prover_text(out: dict) -> str:
    """How the proofs were made: ``search``, ``parity``, or ``parity with a pruned split``."""
    return f"{out.get('prover', '')} with a pruned split" if out.get("pruned") else out.get("prover", "")

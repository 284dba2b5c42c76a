"""Certificates that a claimed minimum number of presses is minimal: the orchestration.

A solver that answers "board ``b`` needs ``k`` presses" makes two claims: a
press set of ``k`` presses reaches a goal board (the *witness*, checked by
simulation), and no press set of at most ``k - 1`` presses does (the *lower
bound*).  This module certifies both.

For every goal board ``t`` the lower-bound CNF is built from
``game.press_masks`` alone by :mod:`flipgame.verify.proofs.lower_bound` (which
imports no solver), a refutation is found, and dratify checks it:

* ``parity`` proofs (:mod:`flipgame.encode.parity_proofs`, from :data:`PARITY_MIN_CELLS`
  cells): the elimination itself, logged as RAT/RUP steps over extension
  variables; light chasing on plus boards without wrap (any size the time
  limit allows), dense elimination on other rules (at most
  :data:`DENSE_PROOF_MAX_CELLS` cells);
* ``search`` proofs: CaDiCaL 1.9.5 through python-sat refutes the CNF and
  logs DRUP (small boards, where its proofs are shorter, and anything the
  parity prover does not take).

Either way the proof is only a claim until dratify accepts it; the generator
is not trusted.  Work runs in a child process killed at the time limit, so
past ``time_limit`` the answer is UNKNOWN, never certified.

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
import time
from dataclasses import dataclass
from pathlib import Path

from flipgame.algebra.gf2 import certificates, min_weight, solution_cosets
from flipgame.backends.result import Status
from flipgame.core.errors import BoardTooLargeError
from flipgame.core.workers import run_function
from flipgame.encode import parity_proofs as proofs
from flipgame.model.grid import Game
from flipgame.verify.checks.witness import check_certificate
from flipgame.verify.proofs.drat import Proof, proof_from_text, write_proof
from flipgame.verify.proofs.lower_bound import Formula, build_formula, write_cnf
from flipgame.verify.proofs.proof_check import PieceCheck, Verdict, check_proof_files, check_refutation

__all__ = ["CertStatus", "Certification", "certify_minimum", "certify_run", "check_proof_files", "lower_bound_cnf"]

SOLVER = "cadical195"
"""python-sat solver used for the search proofs (it logs DRUP proofs)."""

PARITY_MIN_CELLS = 50
"""From this many cells the proof comes from :mod:`flipgame.encode.parity_proofs` (parity reasoning); below it
CaDiCaL's search gives shorter proofs (4x4: about 110 lines against a few thousand)."""

DENSE_PROOF_MAX_CELLS = 400
"""Largest board (not chaseable: wrap, king, stencils) proved by dense elimination: O(n^3) positions."""


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
        DRAT lines (additions and deletions, the final empty clause included)
        summed over all goal boards; 0 when no proof was produced.
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
        dratify's engine that checked: ``native`` or ``python``.
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

    @property
    def ok(self) -> bool:
        """True for CERTIFIED and TRIVIAL."""
        return self.status in (CertStatus.CERTIFIED, CertStatus.TRIVIAL)

    def line(self) -> str:
        """One-line report, e.g. ``certified: no press set of at most 3 presses reaches
        all white or all black (2 DRAT proofs by search, 105 lines, checked by dratify (native) in 0.012 s)``."""
        head = f"{self.status.value}: {self.message}"
        if self.status is CertStatus.CERTIFIED:
            proofs = f"{self.proofs} DRAT proof{'s' if self.proofs != 1 else ''} by {self.prover}"
            return (f"{head} ({proofs}, {self.proof_lines} lines, checked by dratify ({self.engine}) "
                    f"in {self.check_seconds:.3f} s)")
        return head


def lower_bound_cnf(game, board: int, target: int, bound: int) -> tuple[list[list[int]], int]:
    """CNF satisfiable iff some press set of at most ``bound`` presses takes ``board`` to ``target``.

    Only ``game.n`` and ``game.press_masks`` are read; see
    :func:`flipgame.verify.proofs.lower_bound.build_formula` for the encoding.  Returns
    ``(clauses, n)``: press ``j`` is variable ``j + 1``.

    Raises
    ------
    ValueError
        If ``bound`` is negative.
    """
    return build_formula(game.n, tuple(game.press_masks), board ^ target, bound).clauses, game.n


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


def _reaches(masks, board: int, presses: int) -> int:
    for j in range(presses.bit_length()):
        if presses >> j & 1:
            board ^= masks[j]
    return board


def prover_for(game) -> str:
    """``parity`` (:mod:`flipgame.encode.parity_proofs`) or ``search`` (CaDiCaL): see :data:`PARITY_MIN_CELLS`."""
    if not isinstance(game, Game) or game.n < PARITY_MIN_CELLS:
        return "search"
    if proofs.chaseable(game) or game.n <= DENSE_PROOF_MAX_CELLS:
        return "parity"
    return "search"


def _search(formula: Formula, solver: str):
    """(satisfiable, press model as bitmask or None, Proof or None) from CaDiCaL's DRUP log."""
    from pysat.solvers import Solver

    with Solver(name=solver, bootstrap_with=formula.clauses, with_proof=True) as s:
        if s.solve():
            return True, sum(1 << (v - 1) for v in s.get_model() if 0 < v <= formula.n), None
        return False, None, Proof.from_lines(s.get_proof())


def _parity(job: dict, formula: Formula) -> tuple[Proof, Verdict, float]:
    """The parity refutation of :mod:`flipgame.encode.parity_proofs`, checked like any other proof but while it
    is written (in forked pieces, :class:`~flipgame.verify.proofs.proof_check.PieceCheck`): the proof, the
    verdict and the seconds the writing took."""
    start = time.perf_counter()
    with PieceCheck(formula, jobs=job["check_jobs"]) as check:
        log = proofs.refutation(job["game"], formula.chains, formula.nvars, on_quiet=check.cut)
        proof = Proof(*log.arrays())
        written = time.perf_counter() - start
        return proof, check.finish(proof, heavy_from=log.split_from), written


def _cnf_header(job: dict, goal: dict, formula: Formula) -> list[str]:
    return [
        "flipgame lower-bound certificate (flipgame.verify.proofs.certify)",
        f"rules: {job['rules']}",
        f"board: {job['board']} (bit r*cols+c, black = 1); goal board {goal['label']}: {goal['target']}",
        f"claim: no press set of at most {job['bound']} presses reaches {goal['describe']}: this CNF is UNSAT",
        f"variables 1..{job['n']}: press cell j (= r*cols+c) is variable j+1; "
        f"{job['n'] + 1}..{formula.nvars}: XOR prefix chains and the {formula.encoding} counter",
        "clauses: per cell, a prefix chain P_j <-> P_(j-1) xor x_(a_j) over its sorted flippers and a unit on "
        f"the last P; at most {job['bound']} presses",
        "check: drat-trim <this>.cnf <this>.drat (or flipgame.verify.proofs.proof_check.check_proof_files)",
    ]


def _write_files(job: dict, goal: dict, formula: Formula, proof: Proof) -> None:
    base = Path(job["proof_dir"]) / f"{job['name']}-{goal['label']}"
    write_cnf(base.with_suffix(".cnf"), formula, _cnf_header(job, goal, formula))
    write_proof(base.with_suffix(".drat"), proof)


def _prove_goal(job: dict, goal: dict, out: dict) -> bool:
    """Find and check the refutation for one goal; False (with ``out`` filled in) on a failure."""
    formula = build_formula(job["n"], job["masks"], job["board"] ^ goal["target"], job["bound"])
    out["clauses"] += len(formula.clauses)
    start = time.perf_counter()
    if job["prover"] == "parity":
        proof, verdict, written = _parity(job, formula)
        out["solve"] += written
    else:
        sat, presses, proof = _search(formula, job["solver"])
        out["solve"] += time.perf_counter() - start
        if sat:
            out.update(kind="counterexample", goal=goal["label"], presses=presses,
                       reaches=_reaches(job["masks"], job["board"], presses) == goal["target"])
            return False
        verdict = check_refutation(formula, proof, jobs=job["check_jobs"])
    out["check"] += verdict.seconds
    out["engine"] = verdict.engine
    out["proof_lines"] += len(proof)
    out["proofs"] += 1
    if job["proof_dir"] is not None:
        _write_files(job, goal, formula, proof)
    if not verdict.ok:
        out.update(kind="rejected", goal=goal["label"], reason=f"{verdict.reason} (step {verdict.failed_step})")
        return False
    return True


def _run_job(job: dict) -> dict:
    """Prove and check every goal of ``job``; a plain dict so it pickles cheaply."""
    out = {"kind": "certified", "proof_lines": 0, "clauses": 0, "solve": 0.0, "check": 0.0, "proofs": 0,
           "witness": job["witness"], "prover": job["prover"], "engine": ""}
    if job["proof_dir"] is not None:
        Path(job["proof_dir"]).mkdir(parents=True, exist_ok=True)
    for goal in job["goals"]:
        if not _prove_goal(job, goal, out):
            return out
    if out["witness"] is None:  # find one: at most k presses, hence exactly k after the refutations
        _find_witness(job, out)
    return out


def _find_witness(job: dict, out: dict) -> None:
    """A press set of ``bound + 1`` presses into ``out["witness"]``, or None there if none exists.

    Parity jobs ask the algebra for the lightest press set (a candidate, checked by simulation
    later); when it is heavier, the claim is too low, and that is proved too: every goal's
    "at most bound + 1 presses" is refuted and checked.  Otherwise (or when the algebra does not
    take the board) CaDiCaL searches "at most bound + 1" per goal.
    """
    start = time.perf_counter()
    lightest = _lightest(job["game"], job["board"]) if job["prover"] == "parity" else None
    out["solve"] += time.perf_counter() - start
    if lightest is not None:
        if lightest.bit_count() == job["bound"] + 1:
            out["witness"] = lightest
            return
        higher = job | {"bound": job["bound"] + 1}
        for goal in job["goals"]:
            if not _prove_goal(higher, goal, out):
                return
        return
    for goal in job["goals"]:
        formula = build_formula(job["n"], job["masks"], job["board"] ^ goal["target"], job["bound"] + 1)
        start = time.perf_counter()
        sat, presses, _ = _search(formula, job["solver"])
        out["solve"] += time.perf_counter() - start
        if sat:
            out["witness"] = presses
            return


WITNESS_MAX_NULLITY = 24
"""Largest null space searched by :func:`_lightest` (2**24 press sets: about a second)."""


def _lightest(game: Game, board: int) -> int | None:
    """The lightest press set taking ``board`` to a goal (:func:`flipgame.algebra.gf2.solution_cosets`
    and :func:`~flipgame.algebra.gf2.min_weight`); None when there is none or the algebra does not
    take the board."""
    try:
        parts, quiet, _ = solution_cosets(game, board)
    except BoardTooLargeError:
        return None
    if not parts or len(quiet) > WITNESS_MAX_NULLITY:
        return None
    return min((min_weight(x, quiet, game.n) for x, _ in parts), key=int.bit_count)


# ---------------------------------------------------------------------------
# the child process
# ---------------------------------------------------------------------------


def _run_in_child(job: dict, time_limit: float) -> dict | None:
    """``_run_job(job)`` in a child Python killed after ``time_limit`` s; None on timeout.

    :func:`flipgame.core.workers.run_function`: a fresh interpreter (no ``if __name__ ==
    "__main__"`` guard needed in the caller's script) that imports only this module, python-sat and
    dratify, in its own session, so a terminal's Ctrl-C reaches only the parent, which kills it and
    re-raises; it dies with the parent.
    """
    got = run_function(f"{__name__}:_run_job", (job,), time_limit)
    if got.run.timed_out:
        return None
    return got.value if got.ok else {"kind": "error", "reason": got.error}


# ---------------------------------------------------------------------------
# the public entry point
# ---------------------------------------------------------------------------


def _goal_label(game, target: int) -> str:
    return "white" if target == 0 else "black" if target == game.full else "target"


def _describe(game, target: int) -> str:
    label = _goal_label(game, target)
    return "the target board" if label == "target" else f"all {label}"


def certify_minimum(game, board: int, moves: int, *, witness: int | None = None,
                    time_limit: float | None = 10.0, proof_dir: str | os.PathLike | None = None,
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
      parity proof (:mod:`flipgame.encode.parity_proofs`, from :data:`PARITY_MIN_CELLS`
      cells) or CaDiCaL 1.9.5's DRUP proof, and the proof is replayed by
      :mod:`dratify` (:mod:`flipgame.verify.proofs.proof_check`).

    Parameters
    ----------
    game : Game
        Only ``n``, ``full``, ``press_masks`` and ``targets`` are read (plus
        ``rules`` / ``cols`` when present, for messages and file headers).
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
        out = _run_job(job)
    else:
        out = _run_in_child(job, time_limit)
        if out is None:
            return Certification(CertStatus.UNKNOWN, moves, 0, 0, 0.0, 0.0,
                                 f"certification not finished within {time_limit:g} s")
    return _certification_of(game, board, moves, out)


def _check_claim(game, board: int, moves: int, witness: int | None) -> None:
    """Raise ValueError unless ``moves``, ``board`` and ``witness`` fit ``game``."""
    n = game.n
    if not 0 <= moves <= n:
        raise ValueError(f"moves must be between 0 and {n}, got {moves}")
    if not 0 <= board <= game.full:
        raise ValueError(f"board does not fit {n} cells")
    if witness is not None and not 0 <= witness <= game.full:
        raise ValueError(f"witness does not fit {n} cells")


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
    if _reaches(tuple(game.press_masks), board, w) not in tuple(game.targets):
        return f"the witness {_cells(w, cols)} does not reach {_goals_text(game)}"
    return None


def _certification_job(game, board: int, moves: int, witness: int | None, proof_dir, name: str) -> dict:
    """The picklable job of :func:`_run_job`: the lower bound ``moves - 1`` per goal, and the witness."""
    n = game.n
    return {
        "n": n, "masks": tuple(game.press_masks), "board": board, "bound": moves - 1, "witness": witness,
        "goals": [{"target": t, "label": _goal_label(game, t), "describe": _describe(game, t)}
                  for t in tuple(game.targets)],
        "proof_dir": None if proof_dir is None else os.fspath(proof_dir), "name": name,
        "solver": SOLVER, "prover": prover_for(game), "game": game if isinstance(game, Game) else None,
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
        return _failed(moves, f"dratify rejected the proof for goal {out['goal']}: {out['reason']}", **kw)
    w = out["witness"]
    if w is None:
        return _failed(moves, f"{bound_text}, but no press set of {moves} presses reaches {goals_text} either: "
                              f"the claimed minimum {moves} is too low", **kw)
    if why := _witness_problem(game, board, moves, w):
        return _failed(moves, f"{bound_text}, but {why}", **kw)
    return Certification(CertStatus.CERTIFIED, moves, kw["lines"], kw["clauses"], kw["solve"], kw["check"],
                         bound_text, kw["proofs"], out.get("prover", ""), out.get("engine", ""))


# ---------------------------------------------------------------------------
# a whole agreement run
# ---------------------------------------------------------------------------

IN_PROCESS_MAX_CELLS = 36
"""Up to this many cells a proof takes milliseconds, so it runs in-process (no child per board)."""


def _certificates(game, board: int) -> dict | None:
    """:func:`flipgame.algebra.gf2.certificates`, or None where the algebra takes no board this size."""
    try:
        return certificates(game, board)
    except BoardTooLargeError:
        return None


def _certify_board(task: tuple) -> dict:
    """One board of :func:`certify_run` (runs in a worker process): a small record."""
    game, board, kind, moves, presses, time_limit, check_jobs = task
    if kind == "impossible":
        found = _certificates(game, board)
        ok = found is not None and all(check_certificate(game, board, t, c) is None for t, c in found.items())
        return {"status": "certified" if ok else "failed", "lines": 0, "message": "no parity certificate"}
    cert = certify_minimum(game, board, moves, witness=presses,
                           time_limit=None if game.n <= IN_PROCESS_MAX_CELLS else time_limit, jobs=check_jobs)
    status = "certified" if cert.ok else "unknown" if cert.status is CertStatus.UNKNOWN else "failed"
    return {"status": status, "lines": cert.proof_lines, "message": cert.message, "prover": cert.prover,
            "engine": cert.engine}


def _tasks(game, boards, results: dict, time_limit: float, check_jobs: int = 1):
    """(task or None for no definite answer, claimed answer) per board, in order."""
    names = list(results)
    for i in range(len(boards)):
        board = int(boards[i])
        answer = next((results[n][i] for n in names if results[n][i].status in (Status.OPTIMAL, Status.INFEASIBLE)),
                      None)
        if answer is None:
            yield None, None
        elif answer.status is Status.INFEASIBLE:
            yield (game, board, "impossible", None, None, time_limit, check_jobs), "Impossible"
        else:
            yield (game, board, "number", answer.moves, answer.presses, time_limit, check_jobs), answer.moves


def certify_run(game, boards, results: dict, *, time_limit: float = 10.0, progress=None,
                jobs: int | None = None) -> dict:
    """Certify every board of an agreement run: each number by a checked DRAT proof of
    minimality (:func:`certify_minimum`), each Impossible by its parity certificate.

    Parameters
    ----------
    game : Game
    boards : sequence of int or ndarray, shape (k,)
    results : dict of str -> BatchSolution
        Every backend's answers, in the order of ``boards``.  A board is
        certified on the first backend's definite answer (OPTIMAL with its
        witness, or INFEASIBLE); disagreements are the harness's business.
    time_limit : float
        Seconds per board for boards over :data:`IN_PROCESS_MAX_CELLS` cells.
    progress : callable(done, total), optional
    jobs : int, optional
        Worker processes (default: one per core); 1 works in this process.

    Returns
    -------
    dict
        ``size``, ``boards``, ``certified``, ``failed``, ``unknown`` (counts of boards),
        ``proofs``, ``proof_lines_median``, ``proof_lines_max``, ``provers``
        (proofs per prover), ``engine``, ``jobs``, ``seconds``, and ``failures``:
        one record per failed board (board, claimed minimum, message).

    Running time: per solvable board one or two proofs (about 11 ms each on 4x4),
    spread over ``jobs`` processes.
    """
    from concurrent.futures import ProcessPoolExecutor

    start = time.perf_counter()
    jobs = jobs or os.cpu_count() or 1
    pairs = list(_tasks(game, boards, results, time_limit))
    tasks = [t for t, _ in pairs if t is not None]
    if len(tasks) == 1:  # one board: its proof is checked by every process instead
        tasks = [(*tasks[0][:-1], jobs)]
    if jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
            records = iter(pool.map(_certify_board, tasks, chunksize=max(1, min(64, len(tasks) // (8 * jobs)))))
            return _tally(game, pairs, records, progress, jobs, start)
    return _tally(game, pairs, map(_certify_board, tasks), progress, 1, start)


def _tally(game, pairs, records, progress, jobs: int, start: float) -> dict:
    """Counts of :func:`certify_run` from the workers' records (consumed in board order)."""
    import statistics

    counts = {"certified": 0, "failed": 0, "unknown": 0}
    lines: list[int] = []
    provers: dict[str, int] = {}
    engine = ""
    failures = []
    for i, (task, claimed) in enumerate(pairs):
        if task is None:
            counts["unknown"] += 1
            continue
        rec = next(records)
        counts[rec["status"]] += 1
        if rec["status"] == "failed":
            failures.append({"board": task[1], "claimed": claimed, "message": rec["message"]})
        if rec["lines"]:
            lines.append(rec["lines"])
            provers[rec["prover"]] = provers.get(rec["prover"], 0) + 1
            engine = rec["engine"] or engine
        if progress and (i + 1) % 256 == 0:
            progress(i + 1, len(pairs))
    return {"size": game.size, "boards": len(pairs), **counts, "proofs": len(lines),
            "proof_lines_median": statistics.median(lines) if lines else 0,
            "proof_lines_max": max(lines, default=0), "provers": provers, "engine": engine, "jobs": jobs,
            "seconds": round(time.perf_counter() - start, 3), "failures": failures[:100]}

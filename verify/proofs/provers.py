"""The provers behind :func:`flipgame.verify.proofs.certify.certify_minimum`: one job (a claim and its
goal boards) proved and checked, in a child process killed at the time limit.

Per goal board the lower-bound formula is built from the press masks (:mod:`flipgame.verify.proofs.lower_bound`)
and refuted by one of three generators, each proof then checked by dratify:

* ``search``: CaDiCaL's DRUP proof (small boards, and rules the parity prover does not take);
* ``parity``: the elimination itself (:mod:`flipgame.encode.parity_proofs`), then a case split on the
  free presses; below :data:`BNB_MIN_NULLITY` free presses;
* ``parity`` with a pruned split (:mod:`flipgame.encode.bnb_proofs`): from :data:`BNB_MIN_NULLITY`
  free presses the formula counts along the classes of the solutions' forms and the split closes a
  branch as soon as the classes hold the claimed minimum.

A pruned split too large for a DRAT proof (:data:`TREE_MIN_COST`) is certified by its tree instead: the
branch-and-bound certificate of :func:`flipgame.encode.bnb.tree_certificate`, checked in exact arithmetic
by :mod:`flipgame.verify.proofs.tree_check` (no SAT checker, no flipgame code).
"""

from __future__ import annotations

import time
from pathlib import Path

from flipgame.algebra.gf2 import min_weight, solution_cosets
from flipgame.core.errors import BoardTooLargeError
from flipgame.core.limits import WITNESS_MAX_NULLITY
from flipgame.core.workers import run_function
from flipgame.encode import bnb, bnb_proofs
from flipgame.encode import parity_proofs as proofs
from flipgame.model.system import PressSystem
from flipgame.verify.proofs.drat import Proof, write_proof
from flipgame.verify.proofs.lower_bound import Formula, build_formula, write_cnf
from flipgame.verify.proofs.proof_check import PieceCheck, Verdict, check_refutation
from flipgame.verify.proofs.tree_check import check_tree, write_tree_file

SOLVER = "cadical195"
"""python-sat solver used for the search proofs (it logs DRUP proofs)."""

PARITY_MIN_CELLS = 50
"""From this many cells the proof comes from :mod:`flipgame.encode.parity_proofs` (parity reasoning); below it
CaDiCaL's search gives shorter proofs (4x4: about 110 lines against a few thousand)."""

DENSE_PROOF_MAX_CELLS = 400
"""Largest board (not chaseable: wrap, king, stencils) proved by dense elimination: O(n^3) positions."""


BNB_MIN_NULLITY = 12
"""From this many free presses the parity prover prunes its case split (:mod:`flipgame.encode.bnb_proofs`)."""

TREE_MIN_COST = 50_000_000
"""Closed nodes times the claimed minimum from which a pruned split is certified by its tree
(:mod:`flipgame.verify.proofs.tree_check`; with proof files, ``NAME-GOAL.tree.json``) rather than a DRAT proof.  Each
closed node's DRAT check counts the minimum up the counter: the random 30x30 board (18,384 nodes, minimum 375:
6.9e6) checks in about 70 s of CPU, a random 32x32 board (22,582 nodes, minimum 439: 9.9e6) took 276 s of CPU
beside other work, the random 62x62 board (276,570 nodes, minimum 1,763: 4.9e8) would take hours; its tree checks
in seconds."""


def prover_for(game: PressSystem) -> str:
    """``parity`` (:mod:`flipgame.encode.parity_proofs`) or ``search`` (CaDiCaL), from the system's structure
    alone: parity from :data:`PARITY_MIN_CELLS` cells on a square system (a button per cell) that light
    chasing takes (:attr:`~flipgame.model.system.PressSystem.chaseable`) or of at most
    :data:`DENSE_PROOF_MAX_CELLS` cells; search otherwise."""
    if game.n < PARITY_MIN_CELLS or game.m != game.n:
        return "search"
    if game.chaseable or game.n <= DENSE_PROOF_MAX_CELLS:
        return "parity"
    return "search"


def _search(formula: Formula, solver: str):
    """(satisfiable, press model as bitmask or None, Proof or None) from CaDiCaL's DRUP log."""
    from pysat.solvers import Solver

    with Solver(name=solver, bootstrap_with=formula.clauses, with_proof=True) as s:
        if s.solve():
            return True, sum(1 << (v - 1) for v in s.get_model() if 0 < v <= formula.n), None
        return False, None, Proof.from_lines(s.get_proof())


def _plan(job: dict, diff: int) -> bnb.Plan | None:
    """The solutions' forms when the pruned split proves this goal (:data:`BNB_MIN_NULLITY`), else None."""
    game = job["game"]
    if job["prover"] != "parity":
        return None
    try:
        plan = bnb.plan(game, diff, "chase" if game.chaseable else "dense")
    except ValueError:  # no press set reaches this goal: the elimination alone refutes it
        return None
    return plan if plan.nullity >= BNB_MIN_NULLITY else None


def _parity(job: dict, formula: Formula, plan: bnb.Plan | None, search: bnb.Search | None
            ) -> tuple[Proof, Verdict, float]:
    """The parity refutation (:mod:`flipgame.encode.parity_proofs`, pruned by :mod:`flipgame.encode.bnb_proofs`
    given a ``plan``), checked like any other proof but while it is written (in forked pieces,
    :class:`~flipgame.verify.proofs.proof_check.PieceCheck`): the proof, the verdict and the seconds the
    writing took."""
    start = time.perf_counter()
    with PieceCheck(formula, jobs=job["check_jobs"]) as check:
        if plan is None:
            log = proofs.refutation(job["game"], formula.chains, formula.nvars, on_quiet=check.cut)
        else:
            log = bnb_proofs.refutation_bnb(job["game"], formula, plan, job["bound"], on_quiet=check.cut,
                                            search=search)
        proof = Proof(*log.arrays())
        written = time.perf_counter() - start
        return proof, check.finish(proof, heavy_from=log.split_from), written


def _cnf_header(job: dict, goal: dict, formula: Formula) -> list[str]:
    grid = job["game"].shape is not None and job["game"].m == job["game"].n
    bit, press = ("bit r*cols+c", "press cell j (= r*cols+c)") if grid else \
        ("bit i = cell i", "press button j (numbered from 0 in the rules' order)")
    return [
        "flipgame lower-bound certificate (flipgame.verify.proofs.certify)",
        f"rules: {job['rules']}",
        f"board: {job['board']} ({bit}, black = 1); goal board {goal['label']}: {goal['target']}",
        f"claim: no press set of at most {job['bound']} presses reaches {goal['describe']}: this CNF is UNSAT",
        f"variables 1..{job['n']}: {press} is variable j+1; "
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
    diff = job["board"] ^ goal["target"]
    plan, search = _plan(job, diff), None
    if plan is not None:
        start = time.perf_counter()
        search = bnb.Search(plan, job["bound"] + 1).run()
        out["solve"] += time.perf_counter() - start
        if sum(map(len, search.closed)) * (job["bound"] + 1) >= TREE_MIN_COST:
            return _tree(job, goal, diff, plan, search, out)
    formula = (build_formula(job["n"], job["masks"], diff, job["bound"], cells=job["cells"]) if plan is None else
               build_formula(job["n"], job["masks"], diff, job["bound"], cells=job["cells"], keys=plan.keys,
                             key_bits=plan.nullity))
    out["clauses"] += len(formula.clauses)
    start = time.perf_counter()
    if job["prover"] == "parity":
        proof, verdict, written = _parity(job, formula, plan, search)
        out["pruned"] = out.get("pruned", False) or plan is not None
        out["solve"] += written
    else:
        sat, presses, proof = _search(formula, job["solver"])
        out["solve"] += time.perf_counter() - start
        if sat:
            out.update(kind="counterexample", goal=goal["label"], presses=presses,
                       reaches=job["game"].apply(job["board"], presses) == goal["target"])
            return False
        verdict = check_refutation(formula, proof, jobs=job["check_jobs"])
    out["check"] += verdict.seconds
    out["engine"] = verdict.engine
    out["proof_lines"] += len(proof)
    out["proofs"] += 1
    if job["proof_dir"] is not None:
        _write_files(job, goal, formula, proof)
    if not verdict.ok:
        out.update(kind="rejected", checker="dratify", goal=goal["label"],
                   reason=f"{verdict.reason} (step {verdict.failed_step})")
        return False
    return True


def _tree(job: dict, goal: dict, diff: int, plan: bnb.Plan, search: bnb.Search, out: dict) -> bool:
    """Certify one goal by the tree of ``search`` (:data:`TREE_MIN_COST`); False (with ``out`` filled in) when
    :func:`~flipgame.verify.proofs.tree_check.check_tree` rejects it."""
    start = time.perf_counter()
    certificate = bnb.tree_certificate(plan, search)
    out["solve"] += time.perf_counter() - start
    start = time.perf_counter()
    why = check_tree(job["masks"], job["cells"], diff, job["bound"] + 1, *certificate)
    out["check"] += time.perf_counter() - start
    out["pruned"] = True
    out["proof_lines"] += len(certificate[2])
    out["tree_lines"] += len(certificate[2])
    out["proofs"] += 1
    out["trees"] += 1
    if job["proof_dir"] is not None:
        write_tree_file(Path(job["proof_dir"]) / f"{job['name']}-{goal['label']}.tree.json",
                        f"{job['rules']}; board {job['board']}: every press set reaching {goal['describe']} has at "
                        f"least {job['bound'] + 1} presses", job["masks"], job["cells"], diff, job["bound"] + 1,
                        *certificate)
    if why:
        out.update(kind="rejected", checker="tree_check", goal=goal["label"], reason=why)
        return False
    return True


def run_job(job: dict) -> dict:
    """Prove and check every goal of ``job``; a plain dict so it pickles cheaply."""
    out = {"kind": "certified", "proof_lines": 0, "clauses": 0, "solve": 0.0, "check": 0.0, "proofs": 0,
           "trees": 0, "tree_lines": 0, "witness": job["witness"], "prover": job["prover"], "engine": ""}
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
        formula = build_formula(job["n"], job["masks"], job["board"] ^ goal["target"], job["bound"] + 1,
                                cells=job["cells"])
        start = time.perf_counter()
        sat, presses, _ = _search(formula, job["solver"])
        out["solve"] += time.perf_counter() - start
        if sat:
            out["witness"] = presses
            return


def _lightest(game: PressSystem, board: int) -> int | None:
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


def run_in_child(job: dict, time_limit: float) -> dict | None:
    """``run_job(job)`` in a child Python killed after ``time_limit`` s; None on timeout.

    :func:`flipgame.core.workers.run_function`: a fresh interpreter (no ``if __name__ ==
    "__main__"`` guard needed in the caller's script) that imports only this module, python-sat and
    dratify, in its own session, so a terminal's Ctrl-C reaches only the parent, which kills it and
    re-raises; it dies with the parent.
    """
    got = run_function(f"{__name__}:run_job", (job,), time_limit)
    if got.run.timed_out:
        return None
    return got.value if got.ok else {"kind": "error", "reason": got.error}


# ---------------------------------------------------------------------------
# the public entry point
# ---------------------------------------------------------------------------

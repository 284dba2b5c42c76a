"""Exchange formats: one board and its rules written as a SAT, MaxSAT, PB, MIP or CP-SAT instance.

Every format states the same problem, *the fewest presses that take* ``board``
*to the goal*, in the conventions of the community that reads it:

``cnf``
    DIMACS CNF (SAT competitions): each cell's parity cut into clauses (pieces
    of at most :data:`flipgame.encode.parity.XOR_PIECE` literals, linked by auxiliary
    variables), plus "at most K presses" as a sequential counter
    (``pysat.card.CardEnc``) when a bound is given.  SAT iff some press set of
    at most K presses reaches the goal.
``xcnf``
    CNF-XOR as CryptoMiniSat reads it: one ``x`` line per cell, plus the same bound.
``wcnf``
    WCNF in the MaxSAT Evaluation 2022 format (``h`` hard clauses: the parity;
    one soft clause ``-x_j`` of weight 1 per press): the optimum cost is the minimum.
``opb`` / ``opb-xor``
    OPB (PB competitions): parity as ``sum(presses) - 2 * slack = b`` with the
    integer slack written in binary, ``min: sum(presses)``.  ``opb-xor`` writes
    each parity instead as a ``xor`` line of the PB'24 LinPB extension.
``mps`` / ``lp``
    The MIP ``sum(presses) - 2 k_i - t = -b_i`` (as the ``ilp`` backend), written by
    OR-Tools' ``model_builder``.
``cpsat``
    The CP-SAT model (one ``BoolXor`` per cell, minimise presses) as a text protobuf.

Variables.  Press ``j`` (cell ``r*cols + c``) is variable ``j + 1`` in every format
(``x{j+1}`` in OPB, ``press_{j}`` in MPS/LP/CP-SAT); for the goal ``any`` the goal
colour (1 = black) is variable ``n + 1``.  An explicit goal board is normalised to
white on ``board ^ target`` as the gate does.  Each file opens with comment lines
naming the board, the rules, the variables and, when the caller knows it, the
optimum and how it was proved.

Nothing here imports a solver at module level; pysat and OR-Tools are imported
inside the writers that need them.

Source: DIMACS CNF and the SAT competition output rules; CryptoMiniSat's XOR
clause syntax; MaxSAT Evaluation 2022 rules (WCNF without the ``p`` line); OPB
format of the PB competitions (Roussel & Manquinho, "Input/Output Format and
Solver Requirements for the Competitions of Pseudo-Boolean Solvers", 2016);
OR-Tools ``model_builder`` and ``CpModel`` documentation.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Sequence

from flipgame.encode.congruence import CongruenceRows
from flipgame.encode.parity import XOR_PIECE, xor_chain, xor_clauses
from flipgame.model.grid import Board, format_cells
from flipgame.model.system import PressSystem

FORMATS = ("cnf", "xcnf", "wcnf", "opb", "opb-xor", "mps", "lp", "cpsat")
"""Every format :func:`export` writes."""
SUFFIXES = {"cnf": ".cnf", "xcnf": ".xcnf", "wcnf": ".wcnf", "opb": ".opb", "opb-xor": ".opb", "mps": ".mps",
            "lp": ".lp", "cpsat": ".pbtxt"}
"""File suffix per format."""
BOUNDED = ("cnf", "xcnf")
"""Formats that state a decision problem and take ``bound`` (the others minimise)."""
COMMENT = {"cnf": "c", "xcnf": "c", "wcnf": "c", "opb": "*", "opb-xor": "*", "mps": "*", "lp": "\\",
           "cpsat": "#"}
"""The comment mark of each format."""


@dataclasses.dataclass(frozen=True)
class Instance:
    """One board under normalised rules (goal any, white or black), ready to write.

    Attributes
    ----------
    game : PressSystem
        The rules (a two-state press system: a grid or any other); goal ``any``, ``white`` or ``black``.
    board : int
        Bitmask of black cells (``board ^ target`` for an explicit goal board).
    notes : tuple of str
        Extra header lines, e.g. ``"optimum 176 (proved by gauss: ...)"``.
    """

    game: PressSystem
    board: int
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, game: PressSystem, board: int, notes: Sequence[str] = ()) -> Instance:
        """The instance of ``board`` under ``game``, an explicit goal board normalised to white."""
        if game.goal == "board":
            return cls(game.normal, board ^ game.target, tuple(notes))
        return cls(game, board, tuple(notes))

    @property
    def n(self) -> int:
        """Press variables: one per button."""
        return self.game.m

    @property
    def colour_var(self) -> int | None:
        """The goal-colour variable (1 = black) for the goal ``any``, else None."""
        return self.n + 1 if self.game.goal == "any" else None

    @property
    def nvars(self) -> int:
        """Presses plus the colour variable."""
        return self.n + (self.colour_var is not None)

    def parity_rows(self) -> list[tuple[list[int], int]]:
        """Per cell ``i``: ``(variables, rhs)`` meaning ``XOR(variables) = rhs``.

        The presses flipping ``i`` (and the colour variable for goal ``any``)
        must have the parity of ``b_i XOR goal colour``.  O(n * stencil size).
        """
        fixed = int(self.game.goal == "black")
        t = self.colour_var
        rows = []
        for i, flips in enumerate(self.game.flippers):
            lits = [j + 1 for j in flips]
            bit = self.board >> i & 1
            rows.append(([*lits, t], bit) if t else (lits, bit ^ fixed))
        return rows

    def header(self, bound: int | None = None) -> list[str]:
        """The comment lines (without the comment mark): board, rules, variables, bound, notes."""
        g = self.game
        if g.buttons_on_cells:
            lines = [f"flipgame instance: {g.rules}",
                     "board (b = black = 1, row-major, cell (r, c) = press r*cols+c+1):"]
            lines += ["  " + row for row in format_cells(self.board, g.rows, g.cols).splitlines()]
        else:
            lines = [f"flipgame instance: {g.rules}", "board (cell i in state 0 or 1; button j = press j+1):",
                     *("  " + row for row in g.format_board(self.board).splitlines())]
        lines.append(f"variables 1..{self.n}: presses"
                     + (f"; variable {self.colour_var}: goal colour (1 = black)" if self.colour_var else ""))
        if bound is not None:
            lines.append(f"decision: some press set of at most {bound} presses reaches the goal")
        return lines + list(self.notes)


def commented(lines: Sequence[str], mark: str) -> str:
    """``lines`` as comment lines of one format."""
    return "".join(f"{mark} {line}".rstrip() + "\n" for line in lines)


def parity_clauses(inst: Instance, pool) -> list[list[int]]:
    """CNF of every parity row; long XORs cut by :func:`flipgame.encode.parity.xor_chain` (auxiliaries from
    ``pool``)."""
    clauses = []
    for lits, rhs in inst.parity_rows():
        if not lits:  # a cell no button changes: nothing to do, or the empty clause
            clauses += xor_clauses([], rhs)
            continue
        lits = [-lits[0], *lits[1:]] if rhs else list(lits)  # XOR(lits) = 1  <=>  XOR(-l0, rest) = 0
        clauses += xor_clauses(lits) if len(lits) <= XOR_PIECE else xor_chain(lits, lambda: pool.id())
    return clauses


def _pool(inst: Instance):
    from pysat.formula import IDPool

    return IDPool(start_from=inst.nvars + 1)


def _bound_clauses(inst: Instance, bound: int | None, pool) -> list[list[int]]:
    if bound is None or bound >= inst.n:
        return []
    from pysat.card import CardEnc, EncType

    if bound < 0:
        return [[1], [-1]]
    enc = CardEnc.atmost(lits=list(range(1, inst.n + 1)), bound=bound, vpool=pool, encoding=EncType.seqcounter)
    return [list(c) for c in enc.clauses]


def write_cnf(inst: Instance, bound: int | None = None) -> str:
    """DIMACS CNF: the parity as clauses and "at most ``bound`` presses" (none if None).

    >>> from flipgame.model.grid import Game
    >>> text = write_cnf(Instance(Game(1, 1, "white"), 1))
    >>> text.splitlines()[-2:]
    ['p cnf 1 1', '1 0']
    """
    pool = _pool(inst)
    clauses = parity_clauses(inst, pool) + _bound_clauses(inst, bound, pool)
    return _dimacs(inst.header(bound), clauses, [], max(pool.top, inst.nvars))


def _dimacs(header: list[str], clauses, xors, nvars: int) -> str:
    out = io.StringIO()
    out.write(commented(header, "c"))
    out.write(f"p cnf {nvars} {len(clauses) + len(xors)}\n")
    for x in xors:
        out.write("x" + " ".join(map(str, [*x, 0])) + "\n")
    for c in clauses:
        out.write(" ".join(map(str, [*c, 0])) + "\n")
    return out.getvalue()


def write_xcnf(inst: Instance, bound: int | None = None) -> str:
    """CNF-XOR for CryptoMiniSat: ``x1 2 -3 0`` means ``x1 XOR x2 XOR NOT x3 = true``; plus the bound.

    >>> from flipgame.model.grid import Game
    >>> write_xcnf(Instance(Game(1, 2, "white"), 1)).splitlines()[-2:]
    ['x1 2 0', 'x-1 2 0']
    """
    pool = _pool(inst)
    rows = inst.parity_rows()
    xors = [lits if rhs else [-lits[0], *lits[1:]] for lits, rhs in rows if lits]
    clauses = [[] for lits, rhs in rows if not lits and rhs] + _bound_clauses(inst, bound, pool)
    return _dimacs(inst.header(bound), clauses, xors, max(pool.top, inst.nvars))


def write_wcnf(inst: Instance) -> str:
    """WCNF, MaxSAT Evaluation 2022 format: hard parity clauses, soft ``-x_j`` of weight 1 per press."""
    from pysat.formula import WCNF

    pool = _pool(inst)
    w = WCNF()
    for c in parity_clauses(inst, pool):
        w.append(c)
    for j in range(1, inst.n + 1):
        w.append([-j], weight=1)
    out = io.StringIO()
    w.to_fp(out, comments=[f"c {line}".rstrip() for line in inst.header()], format="mse22")
    return out.getvalue()


def _slack_bits(degree: int) -> list[int]:
    """Weights 2, 4, 8, ... of the binary slack ``2k`` with ``0 <= k <= degree // 2``."""
    bits, k = [], degree // 2
    while k:
        bits.append(2 << len(bits))
        k >>= 1
    return bits


def write_opb(inst: Instance, xor: bool = False) -> str:
    """OPB: ``min: sum x_j``; per cell ``sum(vars) - sum(2^(i+1) s_i) = rhs``, or with ``xor`` a LinPB
    ``xor`` line (``xor x1 x2 ... = rhs``); no bound.

    >>> from flipgame.model.grid import Game
    >>> write_opb(Instance(Game(1, 1, "white"), 1)).splitlines()[-2:]
    ['min: +1 x1 ;', '+1 x1 = 1 ;']
    """
    top = inst.nvars
    lines = []
    for lits, rhs in inst.parity_rows():
        terms = " ".join(f"+1 x{v}" for v in lits)
        if not lits:  # a cell no button changes: nothing to do, or 2 y = 1, which no 0/1 y meets
            if rhs:
                top += 1
                lines.append(f"+2 x{top} = 1 ;")
            continue
        if xor:
            lines.append(f"xor {' '.join(f'x{v}' for v in lits)} = {rhs} ;")
            continue
        slack = []
        for weight in _slack_bits(len(lits) - rhs):
            top += 1
            slack.append(f"-{weight} x{top}")
        lines.append(" ".join([terms, *slack]) + f" = {rhs} ;")
    head = commented(inst.header(), "*")
    objective = "min: " + " ".join(f"+1 x{j}" for j in range(1, inst.n + 1)) + " ;"
    count = f"* #variable= {top} #constraint= {len(lines)}\n"
    return count + head + objective + "\n" + "\n".join(lines) + "\n"


def _mip(inst: Instance):
    """The ``ilp`` backend's MIP as an OR-Tools ``model_builder.Model``."""
    from ortools.linear_solver.python import model_builder as mb

    m = mb.Model()
    press = [m.new_bool_var(f"press_{j}") for j in range(inst.n)]
    colour = m.new_bool_var("target_black") if inst.colour_var else None
    fixed = float(inst.game.goal == "black")
    for i, flips in enumerate(inst.game.flippers):
        k = m.new_int_var(0, (len(flips) + 1) // 2, f"slack_{i}")
        lhs = sum(press[j] for j in flips) - 2 * k - (colour if colour is not None else fixed)
        m.add(lhs == float(-(inst.board >> i & 1)), name=f"parity_{i}")  # -float(0) is -0.0, written "= -0"
    m.minimize(sum(press))
    return m


def write_mps(inst: Instance) -> str:
    """Free MPS of the MIP, written by OR-Tools ``model_builder``; the header as ``*`` comments."""
    return commented(inst.header(), "*") + _mip(inst).export_to_mps_string()


def write_lp(inst: Instance) -> str:
    """CPLEX LP of the MIP, written by OR-Tools ``model_builder``; the header as ``\\`` comments."""
    return commented(inst.header(), "\\") + _mip(inst).export_to_lp_string()


def cpsat_model(inst: Instance):
    """The CP-SAT model: one ``BoolXor`` per cell, minimise presses (as the ``cpsat`` backend's ``xor``)."""
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    press = [m.new_bool_var(f"press_{j}") for j in range(inst.n)]
    colour = m.new_bool_var("target_black") if inst.colour_var else None
    for lits, rhs in inst.parity_rows():
        vs = [press[v - 1] if v <= inst.n else colour for v in lits]
        m.add_bool_xor(vs if rhs else [~vs[0], *vs[1:]])
    m.minimize(sum(press))
    return m


def write_cpsat(inst: Instance) -> str:
    """The CP-SAT model as a text protobuf (``CpModelProto``) after ``#`` comments."""
    return commented(inst.header(), "#") + str(cpsat_model(inst).proto) + "\n"


COUNTS_FORMATS = ("mps", "lp", "cpsat")
"""The formats written for k >= 3 states and for counters (the others state parity: two states only)."""


def _counts_header(system: PressSystem, board: tuple[int, ...], notes: Sequence[str]) -> list[str]:
    """The comment lines of a k-state or counter instance: the system as JSON, the board, the goal."""
    lines = [f"flipgame press system: {system.rules}", f"system (JSON): {json.dumps(system.to_json())}",
             "board (row-major cell states):", *("  " + row for row in system.format_board(board).splitlines())]
    goal = "any uniform board (variable g)" if system.goal == "any" else repr(system.format_board(system.targets[0]))
    lines += [f"goal: {goal}", f"variables: x_j presses of button j (j = 0..{system.m - 1})"]
    return lines + list(notes)


def _counts_model(m, system: PressSystem, board: tuple[int, ...]):
    """Fill model ``m`` (an OR-Tools ``model_builder.Model`` or ``CpModel``: both have ``new_int_var``, ``add``
    and ``minimize``) with :class:`~flipgame.encode.congruence.CongruenceRows` of ``board``; names ``x{j}``,
    ``s{i}``, ``g``."""
    rows = CongruenceRows(system)
    x = [m.new_int_var(0, u, f"x{j}") for j, u in enumerate(rows.bounds(board) or [0] * system.m)]
    g = m.new_int_var(0, system.states - 1, "g") if rows.goal is None else 0
    for i, (terms, rhs) in enumerate(zip(rows.terms, rows.rhs(board), strict=True)):
        lhs = sum(c * x[j] for j, c in terms) - g
        if rows.slack is not None:
            lhs = lhs - system.states * m.new_int_var(*rows.slack[i], f"s{i}")
        m.add(lhs == rhs)
    m.minimize(sum(x))
    return m


def _export_counts(fmt: str, system: PressSystem, board, notes: Sequence[str]) -> str:
    if fmt not in COUNTS_FORMATS:
        kind = "counters" if system.states is None else f"{system.states} states"
        raise ValueError(f"{fmt} states parity (two states); for {kind} use {', '.join(COUNTS_FORMATS)}")
    board = system.board_of(board)
    head = commented(_counts_header(system, board, notes), COMMENT[fmt])
    if fmt == "cpsat":
        from ortools.sat.python import cp_model

        return head + str(_counts_model(cp_model.CpModel(), system, board).proto) + "\n"
    from ortools.linear_solver.python import model_builder as mb

    model = _counts_model(mb.Model(), system, board)
    return head + (model.export_to_mps_string() if fmt == "mps" else model.export_to_lp_string())


def export(fmt: str, game: PressSystem, board, bound: int | None = None, notes: Sequence[str] = ()) -> str:
    """The text of ``board`` under ``game`` in format ``fmt`` (one of :data:`FORMATS`).

    Parameters
    ----------
    fmt : str
    game : PressSystem
        Any press system; beyond two states only :data:`COUNTS_FORMATS` apply.
    board : int, Board or tuple of int
        In the system's board form (:mod:`flipgame.model.system`).
    bound : int, optional
        "At most ``bound`` presses" for ``cnf`` and ``xcnf``; refused for the others.
    notes : sequence of str
        Extra header lines (the known optimum and its proof).

    Raises
    ------
    ValueError
        An unknown format, a two-state format for more states or counters (naming the formats that
        take it), or a bound for a format that minimises.

    Running time: O(entries) lines plus the bound's O(m * bound) clauses.

    >>> from flipgame.model.grid import Game
    >>> export("cnf", Game(1, 1, "black"), 0).splitlines()[-2:]
    ['p cnf 1 1', '1 0']
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    if bound is not None and fmt not in BOUNDED:
        raise ValueError(f"--bound applies to {' and '.join(BOUNDED)}; {fmt} states the minimisation itself")
    if not game.binary:
        return _export_counts(fmt, game, board, notes)
    inst = Instance.of(game, board.cells if isinstance(board, Board) else board, notes)
    if fmt in BOUNDED:
        return (write_cnf if fmt == "cnf" else write_xcnf)(inst, bound)
    writers = {"wcnf": write_wcnf, "opb": write_opb, "opb-xor": lambda i: write_opb(i, xor=True),
               "mps": write_mps, "lp": write_lp, "cpsat": write_cpsat}
    return writers[fmt](inst)

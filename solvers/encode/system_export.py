"""Exchange formats for press systems: one board of a general game as a MIP, CP-SAT, SAT, MaxSAT or PB instance.

The problem is that of :mod:`flipgame.backends.system_models`: integer press counts
``x_j`` (``0 <= x_j <= k - 1`` over Z_k, ``x_j >= 0`` for counters), per cell i
``sum_j A[i, j] x_j - k s_i - g = goal_i - board_i`` over Z_k (``s_i`` an
integer slack, ``g`` the uniform goal value for the goal ``any``) or
``sum_j A[i, j] x_j = target_i - board_i`` for counters; minimise
``sum_j x_j``.

``mps``, ``lp``
    That MIP, written by OR-Tools' ``model_builder``; press ``j`` is ``x{j}``.
``cpsat``
    The same model in CP-SAT, a text protobuf.
``cnf``, ``xcnf``, ``wcnf``, ``opb``, ``opb-xor``
    Two states only: each cell's row is a parity over the buttons that change it
    an odd number of times, and the grid game's writers (:mod:`flipgame.encode.export`)
    write it with press ``j`` as variable ``j + 1`` (the goal value for ``any``
    is variable ``m + 1``).

Each file opens with comments naming the system (its JSON, see
docs/general-game.md), the board, the variables and the known answer.

Running time: O(sum of button sizes) lines.
Source: as :mod:`flipgame.encode.export`; the slack formulation of a congruence
(Wolsey, "Integer Programming", 1998).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import numpy as np

from flipgame.core.errors import RulesError
from flipgame.encode.export import COMMENT, FORMATS, commented, write_cnf, write_opb, write_wcnf, write_xcnf
from flipgame.model.system import PressSystem

SYSTEM_FORMATS = ("mps", "lp", "cpsat")
"""The formats written for any number of states and for counters."""
BINARY_FORMATS = ("cnf", "xcnf", "wcnf", "opb", "opb-xor")
"""The formats written for two states only."""


@dataclasses.dataclass(frozen=True)
class SystemInstance:
    """One board of a press system, ready to write (the two-state writers read :meth:`parity_rows`,
    :attr:`n`, :attr:`nvars` and :meth:`header`, as of :class:`flipgame.encode.export.Instance`)."""

    system: PressSystem
    board: tuple[int, ...]
    notes: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        """Presses (= buttons)."""
        return self.system.m

    @property
    def goal_var(self) -> int | None:
        return self.n + 1 if self.system.goal == "any" else None

    @property
    def nvars(self) -> int:
        return self.n + (self.goal_var is not None)

    def goal(self) -> tuple[int, ...] | None:
        """The goal board, or None for ``any``."""
        return None if self.system.goal == "any" else self.system.targets()[0]

    def parity_rows(self) -> list[tuple[list[int], int]]:
        """Two states: per cell ``(variables, rhs)`` meaning ``XOR(variables) = rhs``."""
        a, goal, g = self.system.matrix % 2, self.goal(), self.goal_var
        rows = []
        for i in range(self.system.cells):
            lits = [int(j) + 1 for j in np.flatnonzero(a[i])]
            rhs = self.board[i] ^ (0 if goal is None else goal[i])
            rows.append(([*lits, g], rhs) if g else (lits, rhs))
        return rows

    def header(self, bound: int | None = None) -> list[str]:
        s = self.system
        lines = [f"flipgame press system: {s.rules}", f"system (JSON): {json.dumps(s.to_json())}",
                 "board (row-major cell states):"]
        lines += ["  " + row for row in s.format_board(self.board).splitlines()]
        goal = "any uniform board (variable g)" if s.goal == "any" else f"{s.format_board(self.goal())!r}"
        lines.append(f"goal: {goal}")
        lines.append(f"variables: x_j presses of button j (j = 0..{s.m - 1}; variable j+1 in cnf/opb)")
        if bound is not None:
            lines.append(f"decision: some press set of at most {bound} presses reaches the goal")
        return lines + list(self.notes)


def _rows(inst: SystemInstance):
    """Per cell: ``(terms [(button, amount)], rhs)`` of ``sum A x (- k s - g) = rhs``."""
    s, goal = inst.system, inst.goal()
    a = s.matrix
    for i in range(s.cells):
        terms = [(int(j), int(a[i, j])) for j in np.flatnonzero(a[i])]
        yield terms, (0 if goal is None else goal[i]) - inst.board[i]


def _press_bounds(inst: SystemInstance) -> list[int]:
    """Upper bound of each press count: k - 1, or for counters the least (target - board) / amount."""
    s = inst.system
    if s.states is not None:
        return [s.states - 1] * s.m
    need = np.array(inst.goal(), dtype=np.int64) - np.array(inst.board, dtype=np.int64)
    a = s.matrix
    return [max(0, int(min(need[i] // a[i, j] for i in np.flatnonzero(a[:, j])))) for j in range(s.m)]


def _build(m, inst: SystemInstance):
    """Fill model ``m`` (an OR-Tools ``model_builder.Model`` or ``CpModel``: both have ``new_int_var``,
    ``add`` and ``minimize``) with the press-system model of ``inst``; names ``x{j}``, ``s{i}``, ``g``."""
    s = inst.system
    x = [m.new_int_var(0, u, f"x{j}") for j, u in enumerate(_press_bounds(inst))]
    g = m.new_int_var(0, s.states - 1, "g") if inst.goal_var else 0
    for i, (terms, rhs) in enumerate(_rows(inst)):
        lhs = sum(c * x[j] for j, c in terms) - g
        if s.states is not None:
            top = (sum(c for _, c in terms) * (s.states - 1) + s.states - 1) // s.states
            lhs = lhs - s.states * m.new_int_var(-1, top, f"s{i}")
        m.add(lhs == rhs)
    m.minimize(sum(x))
    return m


def mip_model(inst: SystemInstance):
    """The MIP as an OR-Tools ``model_builder.Model``."""
    from ortools.linear_solver.python import model_builder as mb

    return _build(mb.Model(), inst)


def cpsat_model(inst: SystemInstance):
    """The same model in CP-SAT."""
    from ortools.sat.python import cp_model

    return _build(cp_model.CpModel(), inst)


def export_system(fmt: str, system: PressSystem, board: Sequence[int], bound: int | None = None,
                  notes: Sequence[str] = ()) -> str:
    """The text of ``board`` under ``system`` in format ``fmt``.

    Raises
    ------
    ValueError
        An unknown format, a two-state format for more states or counters (the message names the
        formats that take the system), or a bound for a format that minimises.
    RulesError
        A board that does not fit the system.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    if fmt in BINARY_FORMATS and system.states != 2:
        kind = "counters" if system.states is None else f"{system.states} states"
        raise ValueError(f"{fmt} states parity (two states); for {kind} use {', '.join(SYSTEM_FORMATS)}")
    if bound is not None and fmt not in ("cnf", "xcnf"):
        raise ValueError(f"--bound applies to cnf and xcnf; {fmt} states the minimisation itself")
    system.check_board(board)
    if system.goal == "any" and system.states is None:
        raise RulesError("counters need a goal value or a target board")
    inst = SystemInstance(system, tuple(int(v) for v in board), tuple(notes))
    if fmt in ("cnf", "xcnf"):
        return (write_cnf if fmt == "cnf" else write_xcnf)(inst, bound)
    if fmt in ("wcnf", "opb", "opb-xor"):
        return write_wcnf(inst) if fmt == "wcnf" else write_opb(inst, xor=fmt == "opb-xor")
    head = commented(inst.header(), COMMENT[fmt])
    if fmt == "cpsat":
        return head + str(cpsat_model(inst).proto) + "\n"
    model = mip_model(inst)
    return head + (model.export_to_mps_string() if fmt == "mps" else model.export_to_lp_string())

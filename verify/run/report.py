"""The report of an agreement run: the per-backend table and the replayable JSON.

:class:`AgreementReport` holds everything a run found; :meth:`AgreementReport.to_json`
is the report ``flipgame verify`` writes (every disagreement and witness failure with
its board as text and each backend's answer), :meth:`AgreementReport.table` the
aligned text table.  Source: yinyang's ``report_diff``: keep every mismatch replayable.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from flipgame.backends.result import BatchSolution, Status
from flipgame.core.tables import format_table
from flipgame.model.grid import format_cells
from flipgame.model.system import PressSystem


@dataclass
class BackendSummary:
    """One row of the verification table (counts are numbers of boards; seconds are wall time)."""

    backend: str
    boards: int = 0
    solvable: int = 0
    impossible: int = 0
    unknown: int = 0
    errors: int = 0
    disagreements: int = 0
    witness_failures: int = 0
    seconds: float = 0.0
    error_messages: list[str] = field(default_factory=list)
    resumed: int = 0
    """Boards whose answers came from the checkpoint (not in the JSON report, which must not depend on it)."""

    @property
    def solved(self) -> int:
        """Boards solved in this run (``seconds`` is their wall time)."""
        return self.boards - self.resumed

    @property
    def boards_per_second(self) -> float:
        """Boards solved in this run per second of this run (resumed boards are not counted)."""
        if not self.solved:
            return 0.0
        return self.solved / self.seconds if self.seconds > 0 else float("inf")


@dataclass
class AgreementReport:
    """Everything an agreement run found; :meth:`to_json` is the replayable report."""

    game: PressSystem
    boards: int
    summaries: list[BackendSummary]
    disagreements: list[dict]
    witness_failures: list[dict]
    seconds: float
    completed: bool = True
    resumed_chunks: int = 0
    """Chunks (over all backends) read from the checkpoint instead of solved."""
    total_chunks: int = 0
    certification: dict | None = None
    """With ``certify``: :func:`flipgame.verify.proofs.certify_run.certify_run`'s counts and failures."""
    stopped: str | None = None
    """Why solving stopped early (``"interrupted"`` for Ctrl-C, else the executor's fault), or None."""
    unchecked: list[str] = field(default_factory=list)
    """Steps after solving (:data:`CHECKS`) that a Ctrl-C left undone; their counts are not in the report."""
    notes: list[str] = field(default_factory=list)
    """What the checks could not check (Impossible answers of rules the algebra does not take), one line each."""

    @property
    def incomplete(self) -> bool:
        """Some board has an UNKNOWN or ERROR answer, or the run was interrupted."""
        return not self.completed or any(s.unknown or s.errors for s in self.summaries)

    @property
    def ok(self) -> bool:
        return (not self.disagreements and not self.witness_failures and not self.incomplete
                and not (self.certification or {}).get("failed"))

    def table(self) -> str:
        """The per-backend table as aligned text."""
        resumed = any(s.resumed for s in self.summaries)
        head = ("backend", "boards", "solvable", "impossible", "unknown", "errors",
                "disagree", "witness-fail", "seconds", "boards/s")
        if resumed:  # seconds and rate are over the boards solved now, not the whole table
            head = (*head[:8], "from checkpoint", "solved now", "seconds now", "solved/s")
        rows = [head] + [
            (s.backend, s.boards, s.solvable, s.impossible, s.unknown, s.errors, s.disagreements,
             s.witness_failures) + ((s.resumed, s.solved) if resumed else ())
            + (f"{s.seconds:.3f}", f"{s.boards_per_second:,.0f}")
            for s in self.summaries
        ]
        return format_table(rows)

    def to_json(self) -> dict:
        g = self.game
        return {
            "game": g.to_json(),
            "boards": self.boards,
            "completed": self.completed,
            **({"stopped": self.stopped} if self.stopped else {}),
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "backends": [{k: v for k, v in asdict(s).items() if k != "resumed"}
                         | {"boards_per_second": round(s.boards_per_second, 1)} for s in self.summaries],
            "disagreements": self.disagreements,
            "witness_failures": self.witness_failures,
            "certification": self.certification,
        } | ({"unchecked": self.unchecked} if self.unchecked else {}) | ({"notes": self.notes} if self.notes else {})


def answer_record(game: PressSystem, batch: BatchSolution, i: int) -> dict:
    """One backend's answer on board ``i`` of a batch, as JSON-ready text: a grid's press set as x/. rows,
    another system's press counts as a list."""
    s = batch[i]
    rec = {"status": s.status.name, "answer": s.answer()}
    if s.status is Status.OPTIMAL:
        grid = game.buttons_on_cells and game.binary
        rec |= {
            "moves": s.moves,
            "presses": format_cells(s.presses, game.rows, game.cols, "x", ".").split("\n") if grid
            else list(game.counts(s.presses)),
            "target": game.target_name(s.target),
        }
    return rec


def board_record(game: PressSystem, board) -> dict:
    """A board as JSON: its bitmask (or states) and its text, to replay it."""
    if game.shape is not None and game.binary:
        return {"board": board, "text": format_cells(board, game.rows, game.cols).split("\n")}
    return {"board": game.cells_of(board), "text": game.format_board(board).split("\n")}

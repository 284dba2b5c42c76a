"""The state of a long coset enumeration (:mod:`flipgame.algebra.coset_run`) and its checkpoint file.

The state is, per coset, the index of the next block to enumerate (the blocks run in
order, so the finished ones are a prefix) and the lightest solution found so far.  The
file is JSON: a header naming the rules, the board and the enumeration layout (a hash of
the particular solutions, the adapted bases, the symmetries and the block size), the
state, and a SHA-256 checksum of the rest.  It is written whole through a temporary
file beside it (``os.replace``), so a Ctrl-C or a full disk leaves the previous one.

A file is resumed only by a run of the same rules, board and layout; anything else is
refused with one line (:class:`~flipgame.core.errors.CheckpointError`), and so is a
value of the wrong type or a lightest solution that does not solve the board (re-checked
from the press masks).  The checksum catches damage, not forgery: a file edited with its
checksum recomputed can claim a run finished that was not, so a checkpoint is trusted input.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from flipgame.core.errors import CheckpointError
from flipgame.core.files import whole_file
from flipgame.model.system import PressSystem

FORMAT = "flipgame coset-run checkpoint"
VERSION = 1


@dataclass(frozen=True)
class Best:
    """The lightest solution found: ``weight`` presses, the press set ``presses``, reaching ``target``."""

    weight: int
    presses: int
    target: int

    def bound(self) -> str:
        """What a run stopped early has: ``at most N presses found, not proven minimal``."""
        return f"at most {self.weight} presses found, not proven minimal"


@dataclass
class RunState:
    """Where a run is: ``next_block[i]`` of coset i, the lightest solution so far, assignments enumerated."""

    next_block: list[int]
    best: Best | None = None
    enumerated: int = 0

    def advance(self, part: int, best: Best | None, count: int) -> None:
        """Block ``next_block[part]`` is done (best first: an interrupt between the two only redoes it)."""
        self.best = best
        self.enumerated += count
        self.next_block[part] += 1


def _rules(game: PressSystem) -> object:
    return game.to_json() if hasattr(game, "to_json") else repr(game)


def _digest(data: object) -> str:
    import hashlib  # off the start-up path: only checkpoints need it

    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def layout_hash(parts, block_groups: int) -> str:
    """A hash of what decides the order of the enumeration: cosets, adapted bases, symmetries, blocks."""
    return _digest([block_groups, [[hex(p.target), hex(p.action.x), [hex(b) for b in p.action.basis],
                                    p.action.inner, list(p.action.names)] for p in parts]])


def _solves(game: PressSystem, board: int, best: Best) -> bool:
    """True if the press set reaches ``best.target`` from ``board`` (XOR of its press masks)."""
    return game.apply(board, best.presses) == best.target and best.presses.bit_count() == best.weight


def _state(data: dict) -> RunState:
    """The RunState a checkpoint's JSON holds; KeyError, TypeError or ValueError when a value has the wrong type
    (a file whose checksum was recomputed after an edit: the checksum catches damage, not forgery)."""
    def count(value) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{value!r:.20} is no count")
        return value

    best = data.get("best")
    if best is not None:
        presses = int(best["presses"], 16)
        best = Best(count(best["weight"]), presses, int(best["target"], 16))
        if best.weight != presses.bit_count():
            raise ValueError(f"the lightest solution has {presses.bit_count()} presses, not its weight {best.weight}")
    if not isinstance(data["next_block"], list):
        raise TypeError("next_block is no list")
    return RunState([count(b) for b in data["next_block"]], best, count(data["enumerated"]))


class Checkpoint:
    """A checkpoint file bound to one run (rules, board, layout)."""

    def __init__(self, path: str, header: dict, state: RunState):
        self.path, self.header, self.state = path, header, state

    @staticmethod
    def fresh(parts) -> RunState:
        return RunState([0] * len(parts))

    @classmethod
    def open(cls, path: str, game: PressSystem, board: int, parts, block_groups: int) -> Checkpoint:
        """Resume from ``path`` if it holds a run of this board, else start one there (written at once, so an
        unwritable path fails now and not after hours).  Raises CheckpointError (one line)."""
        header = {"format": FORMAT, "version": VERSION, "rules": _rules(game), "rules_text": game.rules,
                  "board": hex(board), "layout": layout_hash(parts, block_groups)}
        if os.path.isfile(path) and os.path.getsize(path) > 0:
            store = cls(path, header, cls._read(path, header, len(parts)))
            if store.state.best is not None and not _solves(game, board, store.state.best):
                raise CheckpointError(f"checkpoint {path}: its lightest solution does not solve the board; "
                                      f"remove the file to start over")
            if any(b > p.blocks for b, p in zip(store.state.next_block, parts, strict=True)):
                raise CheckpointError(f"checkpoint {path}: more blocks done than the run has; remove it")
            return store
        store = cls(path, header, cls.fresh(parts))
        store.save(store.state)
        return store

    @staticmethod
    def _read(path: str, header: dict, count: int) -> RunState:
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except OSError as exc:
            raise CheckpointError(f"cannot read checkpoint {path}: {exc.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise CheckpointError(f"checkpoint {path}: not a flipgame checkpoint (not JSON)") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CheckpointError(f"checkpoint {path}: not a flipgame coset-run checkpoint")
        if data.get("check") != _digest({k: v for k, v in data.items() if k != "check"}):
            raise CheckpointError(f"checkpoint {path} is damaged (its checksum does not match); remove it")
        if data.get("rules") != header["rules"]:
            raise CheckpointError(f"checkpoint {path} is for another board or rules ({data.get('rules_text')}); "
                                  f"this run is {header['rules_text']}: give another file or remove it")
        if data.get("board") != header["board"]:
            raise CheckpointError(f"checkpoint {path} is for another board or rules: another board of the same rules "
                                  f"({header['rules_text']}); a file keeps one long case: give another file or "
                                  f"remove it")
        if data.get("layout") != header["layout"] or data.get("version") != VERSION:
            raise CheckpointError(f"checkpoint {path} was written with another enumeration layout (another "
                                  f"--gauss-method, symmetry setting or flipgame version); remove it to start over")
        try:
            state = _state(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(f"checkpoint {path} is damaged ({type(exc).__name__}: {str(exc)[:80]}); "
                                  f"remove it") from None
        if len(state.next_block) != count:  # pragma: no cover - the layout hash covers the parts
            raise CheckpointError(f"checkpoint {path}: another number of cosets; remove it")
        return state

    def save(self, state: RunState) -> None:
        """Write ``state`` whole (temporary file, then rename).  Raises CheckpointError naming the file."""
        best = state.best
        data = {**self.header, "next_block": list(state.next_block), "enumerated": state.enumerated,
                "best": None if best is None else {"weight": best.weight, "presses": hex(best.presses),
                                                   "target": hex(best.target)}}
        data["check"] = _digest(data)
        try:
            with whole_file(self.path, encoding="utf-8") as fh:
                json.dump(data, fh)
        except OSError as exc:
            raise CheckpointError(f"cannot write checkpoint {self.path}: {exc.strerror or exc}") from None


__all__ = ["Best", "Checkpoint", "RunState", "layout_hash"]

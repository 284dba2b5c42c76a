"""The long run in chunks (flipgame.algebra.coset_chunks, flipgame.study.long_run): the same minimum and witness
as the run in one process, a manifest that resumes and refuses what is not its own, and ``--scheduler local:2``."""

from __future__ import annotations

import json

import pytest
from conftest import flipgame, lit_coset

from flipgame.algebra import coset_chunks, coset_run
from flipgame.algebra.coset_run import InterruptedRun
from flipgame.core.errors import CheckpointError
from flipgame.study import long_run

pytestmark = pytest.mark.needs("numba")


def test_chunks_give_the_minimum_and_witness_of_the_run_in_one_process(small_blocks):
    game, board, parts, quiet = lit_coset(19)
    one = coset_run.minimum(game, board, parts, quiet)
    chunked = long_run.chunked_minimum(game, board, parts, quiet, blocks=3)
    assert chunked.chunks == 6 and chunked.best == one.best and chunked.best.weight == 141  # a(19), OEIS A075464
    assert chunked.enumerated == one.enumerated


def test_chunks_cover_every_block_once_in_the_runs_order(small_blocks):
    game, board, parts, quiet = lit_coset(19)
    laid = coset_run.plan(game, board, parts, quiet)
    ids = [c.id for c in coset_chunks.chunks(laid, 5)]
    assert ids == ["0:0-5", "0:5-10", "0:10-15", "0:15-16"]


def test_the_manifest_resumes_with_the_same_witness_and_skips_what_is_done(small_blocks, tmp_path):
    game, board, parts, quiet = lit_coset(19)
    path = tmp_path / "run.jsonl"
    whole = long_run.chunked_minimum(game, board, parts, quiet, blocks=3, manifest=str(path))
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 6
    path.write_text("\n".join(lines[:4]) + "\n")  # three chunks done, then the driver was lost
    again = long_run.chunked_minimum(game, board, parts, quiet, blocks=3, manifest=str(path))
    assert again.resumed == 3 and again.best == whole.best
    assert long_run.chunked_minimum(game, board, parts, quiet, blocks=3, manifest=str(path)).resumed == 6


def test_a_manifest_of_another_run_or_a_damaged_line_is_refused(small_blocks, tmp_path):
    game, board, parts, quiet = lit_coset(19)
    path = tmp_path / "run.jsonl"
    long_run.chunked_minimum(game, board, parts, quiet, blocks=3, manifest=str(path))
    with pytest.raises(CheckpointError, match="another run"):
        long_run.chunked_minimum(game, board, parts, quiet, blocks=4, manifest=str(path))
    lines = path.read_text().splitlines()
    line = json.loads(lines[2])
    line["best"]["weight"] -= 1  # a claimed minimum one too low
    path.write_text("\n".join([*lines[:2], json.dumps(line), *lines[3:]]) + "\n")
    with pytest.raises(CheckpointError, match="line 3 is damaged"):
        long_run.chunked_minimum(game, board, parts, quiet, blocks=3, manifest=str(path))


def test_ctrl_c_keeps_the_finished_chunks_and_their_bound(small_blocks, monkeypatch, tmp_path):
    game, board, parts, quiet = lit_coset(19)
    real, calls = coset_chunks.run_chunk, {"n": 0}

    def stopping(*args):
        calls["n"] += 1
        if calls["n"] > 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(coset_chunks, "run_chunk", stopping)
    path = tmp_path / "run.jsonl"
    with pytest.raises(InterruptedRun) as stopped:
        long_run.chunked_minimum(game, board, parts, quiet, blocks=3, manifest=str(path))
    assert len(path.read_text().splitlines()) == 1 + 2 and stopped.value.best.weight >= 141


@pytest.mark.needs("distributed")
def test_all_lit_on_local_dask_workers_gives_the_published_term_and_its_manifest(tmp_path):
    out = flipgame("study", "--all-lit", "33", "--scheduler", "local:2", "--checkpoint-dir", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout == "33 469\n"  # OEIS A075464; nullity 16: one transform, no chunks
    out = flipgame("study", "--all-lit", "39", "--scheduler", "local:2", "--checkpoint-dir", str(tmp_path))
    assert out.returncode == 0 and out.stdout == "39 561\n", out.stderr  # nullity 32: chunks on the workers
    head = json.loads((tmp_path / "a075464-39.chunks.jsonl").read_text().splitlines()[0])
    assert head["rules_text"] == "39x39 plus, goal white" and "random groups" in out.stderr


def test_ctrl_c_in_an_all_lit_long_run_is_one_line_and_its_checkpoint_dir_resumes_it(monkeypatch, tmp_path, capsys):
    from flipgame.cli import main

    real, calls = coset_run.enumerate_block, {"n": 0}

    def stopping(*args):
        calls["n"] += 1
        if calls["n"] > 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(coset_run, "enumerate_block", stopping)
    assert main(["study", "--all-lit", "39", "--checkpoint-dir", str(tmp_path)]) == 130
    err = capsys.readouterr().err
    assert "a(39) stopped: Unknown (at most" in err and f"--checkpoint-dir {tmp_path} resumes it" in err
    saved = json.loads((tmp_path / "a075464-39.checkpoint.json").read_text())
    assert saved["next_block"] == [3]
    monkeypatch.setattr(coset_run, "enumerate_block", real)
    assert main(["study", "--all-lit", "39", "--checkpoint-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "39 561\n"


def test_bad_schedulers_manifests_and_outputs_are_one_line_before_or_instead_of_a_traceback(tmp_path, capsys):
    """Break-it: these printed tracebacks (exit 1), or computed the terms before refusing the --json file."""
    from flipgame.cli import main

    assert main(["study", "--all-lit", "39", "--scheduler", "local:0"]) == 2
    assert "a(39): --scheduler local:N needs 1.." in capsys.readouterr().err
    assert main(["study", "--all-lit", "39", "--scheduler", ""]) == 2
    assert main(["study", "--all-lit", "5", "--json", str(tmp_path / "no" / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "--scheduler: expected local:N" in err and "--json" in err and "does not exist" in err
    manifest = tmp_path / "a075464-39.chunks.jsonl"
    manifest.write_text('{"format": "flipgame coset-run chunk manifest"}\n')
    assert main(["study", "--all-lit", "39", "--scheduler", "local:1", "--checkpoint-dir", str(tmp_path)]) == 2
    assert "belongs to another run" in capsys.readouterr().err

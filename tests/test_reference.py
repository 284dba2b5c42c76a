"""The seed's reference C++ is wrong on 4096 boards; flipgame must not be.

Compiles the reference from ../shared/seeds (skipped where it or g++ is
absent), feeds it all 65536 boards, and compares with gauss.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from flipgame import Status, format_cells

SEED = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "seeds" / "000_b1df5a2eb2915c27.txt"


@pytest.fixture(scope="module")
def reference_answers(tmp_path_factory):
    if not SEED.exists():
        pytest.skip(f"the reference C++ seed is expected at {SEED} (shared/ beside the repository)")
    if shutil.which("g++") is None:
        pytest.skip("g++ is not on PATH: cannot compile the reference C++")
    source = SEED.read_text(encoding="utf-8").split("AC代码：", 1)[1]
    d = tmp_path_factory.mktemp("reference")
    (d / "ref.cpp").write_text(source, encoding="utf-8")
    subprocess.run(["g++", "-O2", "-o", str(d / "ref"), str(d / "ref.cpp")], check=True, capture_output=True)
    cases = "\n".join(format_cells(b, 4, 4) for b in range(1 << 16)) + "\n"
    out = subprocess.run([str(d / "ref")], input=cases, capture_output=True, text=True, check=True).stdout
    return out.split()


def test_reference_answers_a_number_on_4096_impossible_boards(reference_answers, exhaustive):
    gauss = exhaustive["gauss"]
    ours = [gauss[b].answer() for b in range(1 << 16)]
    wrong = [b for b in range(1 << 16) if ours[b] != reference_answers[b]]
    assert len(wrong) == 4096
    assert 14 in wrong
    assert all(gauss.status[b] == Status.INFEASIBLE for b in wrong)
    assert all(reference_answers[b].isdigit() for b in wrong)
    # On every other board the reference and gauss agree.
    assert np.sum(gauss.status == Status.OPTIMAL) == 4096

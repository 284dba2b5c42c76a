"""The model's plain simulation (PressSystem.apply and its grid form) is linear and agrees with the press masks."""

from __future__ import annotations

import random
import time

import pytest

from flipgame import Game


@pytest.mark.slow  # a ratio of wall-clock times: a timing, for make test-slow
def test_apply_is_linear_on_one_row_boards():
    """1x4000000 took 238 s against 14 s for 2000x2000: each flip rewrote the whole row's bitmask."""
    def seconds(cols: int) -> float:
        game, presses = Game(1, cols), random.Random(cols).getrandbits(cols)
        t = time.perf_counter()
        game.apply(0, presses)
        return time.perf_counter() - t

    small, large = min(seconds(50_000) for _ in range(3)), min(seconds(400_000) for _ in range(3))
    assert large < 24 * small  # linear: 8x; quadratic: 64x


def test_apply_agrees_with_the_press_masks():
    for game in (Game(1, 9), Game(3, 5), Game(4, 4, wrap=True), Game(2, 2, wrap=True, neighbourhood="king"),
                 Game(5, 5, neighbourhood="stencil", stencil="x.x.x/.x.x./x.x.x")):
        rng = random.Random(game.n)
        for _ in range(20):
            b, p = rng.getrandbits(game.n), rng.getrandbits(game.n)
            want = b
            for j in range(game.n):
                if p >> j & 1:
                    want ^= game.press_masks[j]
            assert game.apply(b, p) == want

"""Verification: independent witness checks (:mod:`flipgame.verify.witness`) and the
all-backends agreement run (:mod:`flipgame.verify.harness`, imported on use so that
``flipgame solve`` does not load multiprocessing)."""

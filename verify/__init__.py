"""Verification: independent witness checks (:mod:`flipgame.verify.checks.witness`) and the
all-backends agreement run (:mod:`flipgame.verify.run.harness`, imported on use so that
``flipgame solve`` does not load multiprocessing)."""

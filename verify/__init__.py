"""Verification: independent witness checks (:mod:`verify.witness`) and the
all-backends agreement run (:mod:`verify.harness`, imported on use so that
``flipgame solve`` does not load multiprocessing)."""

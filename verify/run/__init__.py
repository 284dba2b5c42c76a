"""The agreement run: executors (local pool or Dask), comparison, checkpoints and reports."""

"""The backends: the base classes, the one result type, one module per backend, the named strategies."""

"""Checks that use the model only, never a backend: witnesses and certificates."""

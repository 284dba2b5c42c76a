"""Encodings shared by the backends and the exporters: parity as CNF/XOR, cardinality bounds, the
exchange formats and the parity proofs.
"""

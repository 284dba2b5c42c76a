"""Minimality proofs: the checked CNF, DRAT files, the independent checker and the proving runs."""

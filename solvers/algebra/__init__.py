"""The algebra of a press system: elimination over GF(2) and Z_k, light chasing, the minimum-weight
element of a coset.
"""

"""The model: the press system (cells, buttons, states, goal) and its generators (the grid, graphs,
JSON); the plain simulation every check trusts.
"""

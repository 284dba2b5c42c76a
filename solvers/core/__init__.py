"""The lowest layer: errors, limits, signals, bounded child processes and the table printer; imports
nothing of flipgame.
"""

"""Playing and watching in a terminal: ``newmarket play`` and ``newmarket replay``.

Everything here reads the engine and the session record; the rules live in
the engine only, so a game played here is the same game an agent plays.
"""

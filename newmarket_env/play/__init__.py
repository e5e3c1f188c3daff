"""Playing and watching in a terminal: ``newmarket play``, ``newmarket watch`` and ``newmarket replay``.

The table is told in the words of :mod:`newmarket_env.describe`, which the web page and the pictures share.

Everything here reads the engine and the session record; the rules live in
the engine only, so a game played here is the same game an agent plays.
"""

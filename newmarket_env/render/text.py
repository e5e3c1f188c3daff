"""Text rendering of the table as one seat sees it (no hidden cards are shown).

The table itself is the terminal game's view, which every front end shares
(:mod:`newmarket_env.describe.table`);
the env adds whose turn it is and the legal actions by their ids.
"""

from __future__ import annotations

from newmarket_env.describe.table import table_lines
from newmarket_env.describe.words import Names
from newmarket_env.engine.game import NOBODY
from newmarket_env.engine.protocol import EngineGame
from newmarket_env.game import actions as A


def render_table(game: EngineGame, viewer: int) -> str:
    lines = table_lines(game, viewer, Names(game.n, viewer))
    if game.to_act != NOBODY and game.decision is not None:
        choices = ", ".join(f"{a} ({A.action_text(a)})" for a in game.legal)
        lines.append(f"player_{game.to_act} decides {game.decision.value}: {choices}")
    elif game.over:
        lines.append("session over: " + ", ".join(f"player_{s} {c}" for s, c in enumerate(game.balances)))
    return "\n".join(lines)

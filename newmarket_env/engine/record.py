"""Session records (docs/contract.md) and their replay.

A record holds every deal as dealt, every event and the balances after each
deal. Events produced by a decision carry the ``action`` id that made them, so
a replay re-deals the recorded cards, re-takes those actions in order and
re-draws the recorded lots; the game it rebuilds gives back the same record.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from newmarket_env.engine.game import Game
from newmarket_env.engine.protocol import EngineGame
from newmarket_env.game.rules import VARIANTS, Rules, rules_from_dict


def session_record(game: EngineGame, variant: str) -> dict[str, Any]:
    """The JSON-serialisable record of ``game`` (of either engine) so far."""
    if not game.record_events:
        raise ValueError("this game was made with record_events=False; it has no record")
    deals = [{**deal, "events": list(deal["events"]), "chips": list(deal["chips"])} for deal in game.deals]
    return {"variant": variant, "num_players": game.n, "rules": game.rules.to_dict(), "deals": deals}


def replay(record: Mapping[str, Any]) -> Game:
    """Rebuild the game a record was taken from (on the reference engine), by its deals, decisions and lots."""
    *_, game = replay_steps(record)  # the same game object at every step: keep the last
    game.present_forced = False
    return game


def replay_steps(record: Mapping[str, Any]) -> Iterator[Game]:
    """The game a record was taken from, yielded before its first decision and after each one.

    The same ``Game`` object is yielded every time (changed in place by the next
    decision): read what you need from it before asking for the next step.
    """
    variant = record.get("variant")
    if variant not in VARIANTS:
        raise ValueError(f"record variant {variant!r} is unknown; allowed variants: {', '.join(VARIANTS)}")
    rules: Rules = rules_from_dict(record["rules"], VARIANTS[variant].players)
    # A deal still in its stake phase has no cards yet; it is re-dealt from nothing.
    deals = [{"dealer": d["dealer"], "hands": d["hands"], "dead": d["dead"]} for d in record["deals"] if d["hands"]]
    events = [e for d in record["deals"] for e in d["events"]]
    actions = [e["action"] for e in events if "action" in e]
    lots = [e["seat"] for e in events if e["type"] == "leftover" and e["seat"] is not None]
    game = Game(rules, deals=deals, present_forced=True, lots=lots)
    yield game
    for action in actions:
        if game.over:
            raise ValueError("record has more decisions than its deals allow")
        game.apply(action)
        yield game


def load_record(path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)

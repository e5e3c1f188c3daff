"""During play no answer of the web app carries the privileged state or names a card the person cannot know.

A person plays whole sessions through the JSON API (every answer to a new game, a decision, the next deal
and a look at the table is read). At each answer the server's own game says which cards are hidden from
the person: the other hands and the dead hand, less what the person knows of them (a former hand, a
discard). None of them may be named anywhere in the answer (the boodle cards are left out: their names
label the layout), except in what tells of a deal that has ended (the deal's result, the log of earlier
deals, and while the table waits after a deal, its log and the moves that ended it): a deal's cards are
shown at its end, and the next deal is shuffled anew. No answer may hold a piece of the privileged state:
a key naming it, or an array of its length. The record, which shows every hand, is given only at the end
and holds the contract's keys.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install 'newmarket-env[web]')")
pytest.importorskip("httpx", reason="FastAPI's test client needs httpx")

from fastapi.testclient import TestClient

from newmarket_env.game.cards import card_from_text
from newmarket_env.observation.state_layout import STATE_SIZE
from newmarket_env.web import create_app
from newmarket_env.web.tables import GameStore, TableGame

CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")
RECORD_KEYS = {"variant", "num_players", "rules", "deals", "agents", "thoughts"}
DEAL_KEYS = {"dealer", "hands", "dead", "events", "chips"}


def _walk(value: Any, path: str = ""):
    """Every (path, key or list) inside a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}", key
            yield from _walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        yield path, value
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]")


def _hidden_from(game, seat: int) -> set[int]:
    """Cards in the other hands and the dead hand that ``seat`` does not know, boodle cards left out."""
    hidden = game.dead
    for other, hand in enumerate(game.hands):
        if other != seat:
            hidden |= hand
    hidden &= ~(game.known_dead[seat] | game.public_dead)  # a former hand, own discards; the public stops
    for card in game.boodle_cards:
        hidden &= ~(1 << card)
    return {card for card in range(52) if hidden >> card & 1}


def check_answer(answer: dict, table: TableGame, where: str) -> int:
    """The answer holds no piece of the state and names no hidden card; the number of hidden cards checked."""
    for path, item in _walk(answer):
        assert not (isinstance(item, str) and "state" in item.lower()), f"{where}: a key {path} names the state"
        assert not (isinstance(item, list) and len(item) == STATE_SIZE), f"{where}: {path} has the state's length"
    hidden = _hidden_from(table.game, table.human)
    about_this_deal = {key: value for key, value in answer.items() if key not in ("summary", "log", "moves")}
    if not answer["waiting"]:  # the moves and the log of the deal in play (the log tells the earlier deals too)
        header = f"==== deal {table.game.deal_index + 1} of "
        starts = [i for i, line in enumerate(answer["log"]) if line.startswith(header)]
        about_this_deal.update(moves=answer["moves"], log=answer["log"][starts[-1] if starts else 0 :])
    named = {card_from_text(text) for text in CARD.findall(json.dumps(about_this_deal))}
    leaked = sorted(named & hidden)
    assert not leaked, f"{where}: the answer names hidden cards {leaked}"
    return len(hidden)


@pytest.mark.parametrize(
    "form",
    [
        {"variant": "michigan", "seat": 0, "agents": ["control", "greedy", "search"], "seed": 5},  # the dealer's widow
        {"variant": "michigan", "seat": 2, "players": 5, "agents": ["control"], "seed": 9},  # auctions, exchanges
        {"variant": "newbury", "seat": 1, "agents": ["greedy"], "seed": 3, "rules": {"num_deals": 2}},  # discards
        {"variant": "newmarket", "seat": 3, "agents": ["random"], "seed": 2, "rules": {"widow": "dealer_buy"}},
    ],
)
def test_no_answer_during_play_carries_the_state_or_a_hidden_card(form):
    store = GameStore()
    client = TestClient(create_app(store), base_url="http://localhost")
    answer = client.post("/api/games", json={"mode": "play", **form}).json()
    key = answer["id"]
    table = store.get(key, TableGame)
    checked = answers = 0
    while not answer["over"]:  # at the end every card may be shown: the record is given then too
        checked += check_answer(answer, table, f"answer {answers}")
        checked += check_answer(client.get(f"/api/games/{key}").json(), table, f"look {answers}")
        answers += 1
        if answer["waiting"]:
            answer = client.post(f"/api/games/{key}/next").json()
        else:
            choices = answer["decision"]["choices"]
            answer = client.post(f"/api/games/{key}/act", json={"action": choices[answers % len(choices)]["action"]})
            answer = answer.json()
    assert answers > 5 and checked > 100  # many answers, each checked against many hidden cards
    record = client.get(f"/api/games/{key}/record").json()  # given once the session is over, as the contract says
    assert set(record) == RECORD_KEYS and all(set(deal) == DEAL_KEYS for deal in record["deals"])

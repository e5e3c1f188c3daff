"""What the web app's answers tell of a deal: who sat where, the result of each deal, the moves of a replay
step, what the agents thought, and a watched seat that is nobody's "you"."""

from __future__ import annotations

import gzip
import json

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install 'newmarket-env[web]')")
pytest.importorskip("httpx", reason="FastAPI's test client needs httpx")


from tests.web.records import random_record


def _random_record(variant: str = "newmarket", seed: int = 4, **rules) -> dict:
    return random_record(variant, seed, **rules)


def _post(client, data: bytes, game: int = 1) -> dict:
    answer = client.post(
        f"/api/replays?game={game}", content=data, headers={"content-type": "application/octet-stream"}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_tournament_replay_names_the_agent_of_each_seat(client):
    entries = [
        {"title": f"session {k}", "seats": seats, "record": _random_record(seed=k, num_deals=1)}
        for k, seats in enumerate((["greedy", "random", "control", "lowest"], ["lowest", "search", "random", "x"]))
    ]
    data = gzip.compress("\n".join(json.dumps(e) for e in entries).encode())
    frame = _post(client, data, game=2)
    assert [s["name"] for s in frame["seats"]] == [
        "player_0 (lowest)",
        "player_1 (search)",
        "player_2 (random)",
        "player_3 (x)",
    ]
    assert any("player_0 (lowest)" in line for line in frame["log"])


def test_replay_frames_carry_each_steps_moves_and_each_deals_result(client):
    record = _random_record(seed=8, num_deals=2)
    first = _post(client, json.dumps(record).encode())
    frames = [client.get(f"/api/replays/{first['id']}/{k}").json() for k in range(first["frames"])]
    plays = [(e["seat"], e["card"]) for deal in record["deals"] for e in deal["events"] if e["type"] == "play"]
    moved = [(m["seat"], m["card"]) for f in frames for m in f["moves"] if m["type"] == "play"]
    assert moved == plays  # every card played, once, in the step that played it
    assert max(len([m for m in f["moves"] if m["type"] == "play"]) for f in frames) > 1  # forced follows
    results = [f for f in frames if f["summary"]]
    assert [f["summary"]["deal"] for f in results] == [1, 2]
    for f in results:
        deal = record["deals"][f["summary"]["deal"] - 1]
        assert f["summary"]["chips"] == deal["chips"]
        winner = next(e["seat"] for e in deal["events"] if e["type"] == "out")
        assert f["summary"]["winner"] == winner and f["summary"]["hands"][winner] == []
        paid = {e["from"]: e["amount"] for e in deal["events"] if e.get("reason") == "cards"}
        per_card = record["rules"]["per_card_payment"]
        assert {s: len(h) * per_card for s, h in enumerate(f["summary"]["hands"]) if h} == paid


def test_watch_shows_what_the_agent_thought_and_keeps_it_in_the_record(client):
    view = client.post(
        "/api/games",
        json={
            "mode": "watch",
            "agents": ["greedy", "random", "control", "lowest"],
            "seed": 2,
            "rules": {"num_deals": 2},
        },
    ).json()
    key, seen, results, moved = view["id"], [], [], []
    while not view["over"]:
        seat = view["to_act"]
        view = client.post(f"/api/games/{key}/step").json()
        moved += [(m["seat"], m["card"]) for m in view["moves"] if m["type"] == "play"]
        if view["summary"]:  # the step that ended a deal brings its result
            results.append(view["summary"]["deal"])
        if view["thoughts"]:
            assert view["thoughts"]["seat"] == seat and view["thoughts"]["summary"]
            seen.append(view["thoughts"])
    assert {t["agent"] for t in seen} == {"greedy", "random", "control", "lowest"}
    record = client.get(f"/api/games/{key}/record").json()
    assert results == [1, 2]
    assert moved == [(e["seat"], e["card"]) for d in record["deals"] for e in d["events"] if e["type"] == "play"]
    assert record["thoughts"] == seen and record["agents"] == ["greedy", "random", "control", "lowest"]
    decisions = [e for d in record["deals"] for e in d["events"] if "action" in e]
    assert all(decisions[t["decision"]]["action"] == t["action"] for t in seen)
    # The replay of that record shows each thought at the step it explains.
    replay = _post(client, json.dumps(record).encode())
    for t in seen[:10]:
        frame = client.get(f"/api/replays/{replay['id']}/{t['decision'] + 1}").json()
        assert frame["thoughts"] == t


def test_a_watched_seat_is_not_called_you(client):
    view = client.post(
        "/api/games", json={"mode": "watch", "variant": "michigan", "agents": ["random"], "seed": 5}
    ).json()
    key = view["id"]
    for _ in range(12):
        view = client.get(f"/api/games/{key}?view={view['to_act']}").json()
        decision = view["decision"]
        assert decision["who"].startswith(f"player_{view['to_act']} (random)")
        assert "you" not in decision["question"].lower().split() and "your" not in decision["question"].lower()
        assert all(not line.startswith("you ") for line in view["log"])
        view = client.post(f"/api/games/{key}/step").json()


def test_a_replay_says_when_the_lead_passes_and_asks_no_one_as_you(client):
    """newbury: the log says when the lead passes over a player; a replay's questions are said about the seat."""
    for seed in range(100):
        record = _random_record("newbury", seed=seed, num_deals=1)
        events = record["deals"][0]["events"]
        passes = [
            k
            for k in range(1, len(events))
            if events[k]["type"] == "play"
            and events[k - 1]["type"] == "stop"
            and events[k]["seat"] != events[k - 1]["seat"]
        ]
        if passes:
            break
    else:
        raise AssertionError("no passed lead in 100 newbury sessions")
    first = _post(client, json.dumps(record).encode())
    last = client.get(f"/api/replays/{first['id']}/{first['frames'] - 1}").json()
    leader = events[passes[0]]["seat"]
    assert any(line.endswith(f"the lead passes to player_{leader}") for line in last["log"])
    for k in range(0, first["frames"], 3):
        frame = client.get(f"/api/replays/{first['id']}/{k}").json()
        if frame["decision"]:
            assert "your" not in frame["decision"]["question"].lower().split(), frame["decision"]["question"]

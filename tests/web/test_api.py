"""The web app's JSON API through FastAPI's test client: whole sessions, what each view may show, bad input."""

from __future__ import annotations

import gzip
import json
import random
import re

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install 'newmarket-env[web]')")
pytest.importorskip("httpx", reason="FastAPI's test client needs httpx")

from fastapi.testclient import TestClient

from newmarket_env import env, load_agent
from newmarket_env.engine.record import replay_steps
from newmarket_env.records import verify
from newmarket_env.web import create_app
from newmarket_env.web.tables import GameStore
from tests.web.records import random_record

CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")


def _random_record(variant: str = "michigan", seed: int = 4, **rules) -> dict:
    return random_record(variant, seed, **rules)


def _post_record(client, data: bytes, game: int = 1):
    return client.post(f"/api/replays?game={game}", content=data, headers={"content-type": "application/octet-stream"})


def test_page_is_self_contained(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    # Nothing is fetched from elsewhere: no external script, style, font or image.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page.text)
    assert "@import" not in page.text and "url(http" not in page.text
    assert "<script>" in page.text and "<style>" in page.text


def test_play_a_whole_session_and_its_record_replays(client):
    form = {
        "mode": "play",
        "variant": "michigan",
        "agents": ["greedy"],
        "seat": 1,
        "seed": 8,
        "rules": {"num_deals": 2},
    }
    view = client.post("/api/games", json=form).json()
    key, sent, results = view["id"], [], 0
    while not view["over"]:
        if view["waiting"]:  # a deal ended: its result is shown, and the table waits for the person
            results += 1
            assert view["decision"] is None and view["summary"]["deal"] == results
            refused = client.post(f"/api/games/{key}/act", json={"action": 0})
            assert refused.status_code == 409 and "next deal" in refused.json()["error"]
            view = client.post(f"/api/games/{key}/next").json()
            continue
        decision = view["decision"]
        assert decision["seat"] == 1 and decision["who"] == "you"
        # The terminal's words: the same question and choice texts as newmarket play prints.
        assert decision["question"].endswith(".") and all(c["text"] for c in decision["choices"])
        action = random.Random(len(sent)).choice(decision["choices"])["action"]
        sent.append(action)
        view = client.post(f"/api/games/{key}/act", json={"action": action}).json()
    record = client.get(f"/api/games/{key}/record").json()
    assert verify(record)  # the engine, replaying the record on its own, gives the same record back
    mine = [e["action"] for d in record["deals"] for e in d["events"] if "action" in e and e.get("seat") == 1]
    # Every answer given is in the record, in order (decisions with one legal action are taken by the engine).
    answers = iter(mine)
    assert all(any(action == taken for taken in answers) for action in sent)
    assert [s["chips"] for s in view["seats"]] == record["deals"][-1]["chips"]
    assert sum(record["deals"][-1]["chips"]) == 4 * record["rules"]["starting_chips"]
    assert results == 1 and view["summary"]["deal"] == 2  # the last deal's result comes with the end
    assert record["agents"] == ["greedy", "person", "greedy", "greedy"]


def test_a_player_sees_only_their_own_seat(client):
    """Newbury: everyone discards face down; the person must see neither hands nor others' discards."""
    view = client.post(
        "/api/games", json={"mode": "play", "variant": "newbury", "seed": 3, "seat": 2, "rules": {"num_deals": 1}}
    ).json()
    key = view["id"]
    checked = 0
    while not view["over"]:
        assert view["dead"] is None
        for seat in view["seats"]:
            assert (seat["hand"] is None) == (seat["seat"] != 2)
        for line in view["log"]:
            if "discard" in line and not line.startswith("you"):
                assert not CARD.search(line), line
                checked += 1
        if view["waiting"]:
            view = client.post(f"/api/games/{key}/next").json()
            continue
        view = client.post(f"/api/games/{key}/act", json={"action": view["decision"]["choices"][0]["action"]}).json()
    assert checked  # the others' discards were told (without their cards) at least once
    for asked in ("all", "0", "3"):
        refused = client.get(f"/api/games/{key}?view={asked}")
        assert refused.status_code == 403 and "your own seat" in refused.json()["error"]


def test_record_of_a_played_table_only_after_the_end(client):
    view = client.post("/api/games", json={"mode": "play", "seed": 1}).json()
    refused = client.get(f"/api/games/{view['id']}/record")
    assert refused.status_code == 409 and "once the session is over" in refused.json()["error"]


def test_watch_to_the_end_matches_the_env_played_directly(client):
    agents = ["greedy", "random", "control", "lowest"]
    view = client.post(
        "/api/games", json={"mode": "watch", "agents": agents, "seed": 21, "rules": {"num_deals": 2}}
    ).json()
    key, steps = view["id"], 0
    while not view["over"]:
        view = client.post(f"/api/games/{key}/step?view={steps % 5 if steps % 5 < 4 else 'all'}").json()
        steps += 1
        viewer = view["viewer"]
        for seat in view["seats"]:  # a seat's view shows its hand only; "all" shows every hand
            assert (seat["hand"] is not None) == (viewer is None or seat["seat"] == viewer)
    # The same session played by hand through the env, agents seeded as the app seeds them (seed + 1 + seat).
    e = env(variant="newmarket", num_deals=2)
    players = [load_agent(name, env=e, seed=21 + 1 + s) for s, name in enumerate(agents)]
    e.reset(seed=21)
    decisions = 0
    while not e.unwrapped.game.over:
        seat = e.unwrapped.game.to_act
        e.step(int(players[seat].act(e.observe(e.agent_selection))))
        decisions += 1
    assert steps == decisions
    assert [s["chips"] for s in view["seats"]] == e.unwrapped.game.balances
    assert client.post(f"/api/games/{key}/step").status_code == 409  # over: no more steps


def test_replay_forward_and_back(client):
    record = _random_record(num_deals=2)
    first = _post_record(client, json.dumps(record).encode()).json()
    decisions = sum("action" in e for d in record["deals"] for e in d["events"])
    assert first["frames"] == decisions + 1 and first["frame"] == 0 and first["records"] == 1
    key = first["id"]
    games = list(replay_steps(record))  # the same game object, stepped: read each state as it comes
    pots = []
    for game in replay_steps(record):
        pots.append((game.pot, list(game.boodle_stacks), list(game.balances)))
    for k in (3, 2, 3, decisions, 0):
        frame = client.get(f"/api/replays/{key}/{k}").json()
        assert frame["frame"] == k
        assert (
            frame["layout"]["pot"],
            [b["chips"] for b in frame["layout"]["boodles"]],
            [s["chips"] for s in frame["seats"]],
        ) == pots[k]
        assert all(s["hand"] is not None for s in frame["seats"]) and frame["dead"] is not None
    last = client.get(f"/api/replays/{key}/{decisions}").json()
    assert last["over"] and [s["chips"] for s in last["seats"]] == record["deals"][-1]["chips"]
    assert len(games) == decisions + 1


def test_replay_a_tournament_records_file(client):
    entries = [{"title": f"session {k}", "record": _random_record(seed=k, num_deals=1)} for k in (1, 2)]
    data = gzip.compress("\n".join(json.dumps(e) for e in entries).encode())
    second = _post_record(client, data, game=2).json()
    assert second["records"] == 2 and second["title"] == "session 2"
    last = client.get(f"/api/replays/{second['id']}/{second['frames'] - 1}").json()
    assert [s["chips"] for s in last["seats"]] == entries[1]["record"]["deals"][-1]["chips"]
    out_of_range = _post_record(client, data, game=3)
    assert out_of_range.status_code == 400 and "1..2" in out_of_range.json()["error"]


BAD_GAMES = [
    ({"mode": "play", "agents": ["nobody"]}, 400, "unknown agent 'nobody'; allowed: "),
    ({"mode": "play", "agents": ["/etc/passwd"]}, 400, "unknown agent"),  # names only, never files
    ({"mode": "play", "variant": "bridge"}, 400, "unknown variant 'bridge'"),
    ({"mode": "play", "players": 9}, 400, "num_players"),
    ({"mode": "play", "seat": 4}, 400, "allowed: 0..3"),
    ({"mode": "play", "rules": {"widow": "sometimes"}}, 400, "widow"),
    ({"mode": "play", "rules": {"colour": 1}}, 400, "colour"),
    ({"mode": "dance"}, 400, "allowed: play, watch"),
    ({"mode": "watch", "agents": ["random", "random"]}, 400, "give 1 (for every agent seat) or 4"),
    ({"mode": "play", "players": "four"}, 422, "players"),
]


@pytest.mark.parametrize("form, status, words", BAD_GAMES)
def test_bad_new_game_is_one_line_4xx(client, form, status, words):
    answer = client.post("/api/games", json=form)
    error = answer.json()["error"]
    assert answer.status_code == status and words in error, error
    assert "\n" not in error and "Traceback" not in error


def test_bad_requests_to_a_game(client):
    played = client.post("/api/games", json={"mode": "play", "seed": 2}).json()
    watched = client.post("/api/games", json={"mode": "watch", "seed": 2}).json()
    legal = [c["action"] for c in played["decision"]["choices"]]
    illegal = next(a for a in range(79) if a not in legal)
    cases = [
        (client.post(f"/api/games/{played['id']}/act", json={"action": illegal}), 400, "not one of your choices"),
        (client.post(f"/api/games/{played['id']}/act", json={"action": "4C"}), 422, "action"),
        (
            client.post(f"/api/games/{played['id']}/act", content=b"{", headers={"content-type": "application/json"}),
            422,
            "bad request",
        ),
        (client.post(f"/api/games/{played['id']}/step"), 409, "agents move by themselves"),
        (client.post(f"/api/games/{watched['id']}/act", json={"action": 0}), 409, "watched, not played"),
        (client.get(f"/api/games/{watched['id']}?view=9"), 400, "allowed: all or a seat 0..3"),
        (client.get("/api/games/0123456789abcdef"), 404, "unknown or expired"),
        (client.post("/api/games/0123456789abcdef/act", json={"action": 1}), 404, "unknown or expired"),
        (client.get(f"/api/replays/{played['id']}/0"), 404, "replay id"),  # a game id is not a replay id
    ]
    for answer, status, words in cases:
        error = answer.json()["error"]
        assert answer.status_code == status and words in error, (status, error)
        assert "\n" not in error
    # A refused action changes nothing: the same decision is still pending.
    assert client.get(f"/api/games/{played['id']}").json()["decision"] == played["decision"]


@pytest.mark.parametrize(
    "data, words",
    [
        (b"", "no record sent"),
        (b"{not json", "is not a JSON session record"),
        (b"\x1f\x8b\x08broken", "neither a JSON session record nor a gzipped one"),
        (b"[1, 2]", "is not a session record"),
        (b'{"variant": "newmarket", "rules": {}, "deals": [{"dealer": 0}]}', "every deal needs"),
        (b'{"variant": "whist", "rules": {}, "deals": []}', "variant 'whist' is unknown"),
    ],
)
def test_malformed_records_are_refused(client, data, words):
    answer = _post_record(client, data)
    error = answer.json()["error"]
    assert answer.status_code == 400 and words in error, error
    assert "\n" not in error


def test_a_record_whose_decisions_do_not_fit_is_refused(client):
    record = _random_record(num_deals=1)
    events = record["deals"][0]["events"]
    first = next(k for k, e in enumerate(events) if "action" in e and e["type"] == "play")
    events[first]["action"] = 54  # "pass" where a card had to be led
    answer = _post_record(client, json.dumps(record).encode())
    assert answer.status_code == 400 and "not legal" in answer.json()["error"]


def test_a_record_with_edited_results_is_refused_not_recomputed(client):
    record = _random_record(num_deals=2)
    true = record["deals"][-1]["chips"][0]
    record["deals"][-1]["chips"][0] = true + 7
    answer = _post_record(client, json.dumps(record).encode())
    error = answer.json()["error"]
    assert answer.status_code == 400 and "\n" not in error
    assert error.endswith(f"first difference at deals[1].chips[0]: the record has {true + 7}, the replay gives {true}")


def test_replay_frame_out_of_range(client):
    first = _post_record(client, json.dumps(_random_record(num_deals=1)).encode()).json()
    answer = client.get(f"/api/replays/{first['id']}/{first['frames']}")
    assert answer.status_code == 400 and f"allowed: 0..{first['frames'] - 1}" in answer.json()["error"]


def test_the_store_keeps_the_newest_games():
    client = TestClient(create_app(GameStore(limit=2)), base_url="http://localhost")
    ids = [client.post("/api/games", json={"mode": "watch", "seed": k}).json()["id"] for k in range(3)]
    assert client.get(f"/api/games/{ids[0]}").status_code == 404
    assert all(client.get(f"/api/games/{key}").status_code == 200 for key in ids[1:])


def test_stakes_are_offered_in_the_terminals_words(client):
    view = client.post(
        "/api/games", json={"mode": "play", "seed": 3, "seat": 1, "rules": {"stake_mode": "choose", "num_deals": 1}}
    ).json()
    decision = view["decision"]
    assert decision["kind"] == "stake" and decision["question"].startswith("Place a stake chip on a boodle")
    assert [c["text"] for c in decision["choices"]] == [f"stake a chip on {card}" for card in ("AS", "KH", "QC", "JD")]


class _Clock:
    """The store's clock, moved by the test: minutes pass without waiting for them."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_game_in_play_is_not_dropped_for_other_new_games_and_a_full_server_says_so():
    client = TestClient(create_app(GameStore(limit=3)), base_url="http://localhost")
    played = client.post("/api/games", json={"mode": "play", "seed": 1, "seat": 0}).json()["id"]
    watched = [client.post("/api/games", json={"mode": "watch", "seed": k}).json()["id"] for k in range(70)]
    # 70 new watch games from anyone: the person's game stays, the watch games make room for each other
    assert client.get(f"/api/games/{played}").status_code == 200
    assert [client.get(f"/api/games/{key}").status_code for key in watched[-2:]] == [200, 200]
    assert client.get(f"/api/games/{watched[0]}").status_code == 404
    # Kept by last use: the watch game looked at just now stays, the other goes for the next new game.
    client.get(f"/api/games/{watched[-2]}")
    client.post("/api/games", json={"mode": "watch", "seed": 99})
    assert client.get(f"/api/games/{watched[-2]}").status_code == 200
    assert client.get(f"/api/games/{watched[-1]}").status_code == 404


def test_when_every_game_is_in_play_a_new_one_is_refused_with_a_503_until_one_is_left_alone():
    clock = _Clock()
    client = TestClient(create_app(GameStore(limit=2, clock=clock)), base_url="http://localhost")
    first, second = (client.post("/api/games", json={"mode": "play", "seed": k}).json()["id"] for k in range(2))
    before = client.post("/api/games", json={"mode": "watch", "seed": 5})
    assert before.status_code == 503
    assert before.json() == {
        "error": "the server is full: it keeps 2 games and each is being played (used in the last 30 minutes); "
        "try again in a few minutes"
    }
    assert _post_record(client, json.dumps(_random_record(num_deals=1)).encode()).status_code == 503
    clock.now += 29 * 60  # the first player acts; the second leaves the table
    assert client.get(f"/api/games/{first}").status_code == 200
    clock.now += 2 * 60  # 31 minutes since the second game was used
    assert client.post("/api/games", json={"mode": "watch", "seed": 5}).status_code == 200
    assert client.get(f"/api/games/{second}").status_code == 404
    assert client.get(f"/api/games/{first}").status_code == 200


# ---------------------------------------------------------------- agents the server seats; the check before a deal
def test_a_seated_agent_is_offered_by_name_and_plays_but_a_path_in_a_request_is_still_refused(tmp_path):
    from fastapi.testclient import TestClient

    from newmarket_env.agents.saved import TRAINED_DIR
    from newmarket_env.web import create_app

    trained = str(TRAINED_DIR / "ppo-michigan.npz")
    seated = {"mine": trained, "bot": "newmarket_env.agents.random_agent:RandomAgent"}
    client = TestClient(create_app(seated=seated), base_url="http://localhost")
    options = client.get("/api/options").json()
    assert options["seated"] == ["mine", "bot"] and "mine" not in options["agents"]
    table = client.post("/api/games", json={"mode": "watch", "variant": "michigan", "agents": ["mine", "bot"] * 2})
    assert table.status_code == 200, table.text
    for _ in range(5):
        client.post(f"/api/games/{table.json()['id']}/step")
    record = client.get(f"/api/games/{table.json()['id']}/record").json()
    assert record["agents"] == ["mine", "bot", "mine", "bot"]
    refused = client.post("/api/games", json={"mode": "watch", "agents": [trained]})
    assert refused.status_code == 400 and "unknown agent" in refused.json()["error"]
    plain = TestClient(create_app(), base_url="http://localhost")  # a server without --agent knows no "mine"
    assert plain.post("/api/games", json={"mode": "watch", "agents": ["mine"]}).status_code == 400


def test_check_names_the_agents_that_would_refuse_the_rules_and_deals_nothing(client):
    answer = client.post(
        "/api/check", json={"mode": "watch", "agents": ["exit-newmarket", "random"] * 2, "rules": {"num_deals": 1}}
    )
    assert answer.status_code == 200
    body = answer.json()
    assert body["problem"] is None and [r["agent"] for r in body["refused"]] == ["exit-newmarket"]
    assert "num_deals (trained 4, here 1)" in body["refused"][0]["reason"]
    # Where the server keeps the agent's file is not a visitor's to know: the reason names the agent.
    from newmarket_env.agents.saved import TRAINED_DIR

    assert str(TRAINED_DIR) not in answer.text and "'exit-newmarket'" in body["refused"][0]["reason"]
    fine = client.post("/api/check", json={"mode": "watch", "agents": ["exit-newmarket"]}).json()
    assert fine == {"problem": None, "refused": []}
    bad = client.post("/api/check", json={"mode": "play", "agents": ["nobody"]}).json()
    assert bad["problem"].startswith("unknown agent 'nobody'") and bad["refused"] == []
    # The check deals no table: dealing what it accepted works, and what it refused is refused the same way.
    assert client.post("/api/games", json={"mode": "watch", "agents": ["exit-newmarket"]}).status_code == 200
    refused = client.post("/api/games", json={"mode": "watch", "agents": ["exit-newmarket"], "rules": {"num_deals": 1}})
    assert refused.status_code == 400 and refused.json()["error"] == body["refused"][0]["reason"]


def test_the_icon_is_an_ico_file(client):
    from io import BytesIO

    from PIL import Image

    answer = client.get("/favicon.ico")
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/x-icon"
    icon = Image.open(BytesIO(answer.content))
    assert icon.format == "ICO" and icon.size == (32, 32)

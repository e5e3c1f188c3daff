"""The web app through its real server (uvicorn on a free local port): what a player may learn,
which requests the server takes (Host, Origin, body sizes) and that bad input is a 4xx with one line.

Requests are raw HTTP (``http.client``) so the headers a browser would send (``Host``,
``Origin``, content types of simple cross-site requests) are the test's own.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install 'newmarket-env[web]')")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install 'newmarket-env[web]')")

from newmarket_env import env  # noqa: E402
from newmarket_env.web import create_app  # noqa: E402
from newmarket_env.web.tables import GameStore  # noqa: E402

HANG_GUARD_S = 60  # only so a broken server fails instead of hanging; never an assertion on speed


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """The app served by uvicorn in a thread of this process; ``store`` is its games, for the tests to look at."""

    def __init__(self, store: GameStore | None = None, **options) -> None:
        self.store = store or GameStore()
        self.port = free_port()
        config = uvicorn.Config(
            create_app(self.store, **options), host="127.0.0.1", port=self.port, log_level="critical"
        )
        self.instance = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.instance.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + HANG_GUARD_S
        while not self.instance.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=HANG_GUARD_S)

    def request(self, method, path, body=None, headers=None, connection=None):
        """(status, parsed JSON or text) of one request; ``headers`` replace the defaults (Host, JSON body)."""
        own = connection or self.connect()
        sent = {"Host": f"127.0.0.1:{self.port}"}
        if isinstance(body, (dict, list)):
            body, sent["Content-Type"] = json.dumps(body).encode(), "application/json"
        sent.update(headers or {})
        own.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in sent.items():
            own.putheader(name, value)
        if body is not None and "Transfer-Encoding" not in sent:
            own.putheader("Content-Length", str(len(body)))
        own.endheaders(body)
        answer = own.getresponse()
        data = answer.read()
        if connection is None:
            own.close()
        try:
            return answer.status, json.loads(data)
        except ValueError:
            return answer.status, data.decode("utf-8", "replace")

    def stop(self) -> None:
        self.instance.should_exit = True
        self.thread.join(timeout=HANG_GUARD_S)


@pytest.fixture(scope="module")
def server():
    running = Server()
    yield running
    running.stop()


def one_line_error(status: int, answer, expected_status: int, *words: str) -> str:
    assert status == expected_status, (status, answer)
    error = answer["error"]
    assert "\n" not in error and "Traceback" not in error, error
    for word in words:
        assert word in error, error
    return error


def play_to_the_end(server, form) -> tuple[dict, list[dict]]:
    """Play a table taking each first choice; the last view and every answer given on the way."""
    status, view = server.request("POST", "/api/games", form)
    assert status == 200, view
    answers = [view]
    while not view["over"]:
        status, shown = server.request("GET", f"/api/games/{view['id']}")
        answers.append(shown)
        action = view["decision"]["choices"][0]["action"]
        status, view = server.request("POST", f"/api/games/{view['id']}/act", {"action": action})
        assert status == 200, view
        answers.append(view)
    return view, answers


# -- what a player may learn ----------------------------------------------------------------------


def test_no_answer_during_play_gives_the_seed_and_the_end_gives_the_true_one(server):
    form = {"mode": "play", "variant": "michigan", "seat": 1, "rules": {"num_deals": 1}}
    last, answers = play_to_the_end(server, form)
    during = [a for a in answers if not a["over"]]
    assert during and all(a["seed"] is None for a in during)  # not in the first view, GETs, nor act answers
    for answer in during:  # nor anywhere else in the JSON of an answer
        assert "seed" not in json.dumps({k: v for k, v in answer.items() if k != "seed"})
    status, record = server.request("GET", f"/api/games/{last['id']}/record")
    assert status == 200 and isinstance(last["seed"], int)
    # The seed given at the end is the one that dealt: the env reset with it deals the recorded hands.
    rebuilt = env(variant="michigan", num_players=4, num_deals=1, engine="python")
    rebuilt.reset(seed=last["seed"])
    assert rebuilt.unwrapped.record()["deals"][0]["hands"] == record["deals"][0]["hands"]
    assert rebuilt.unwrapped.record()["deals"][0]["dead"] == record["deals"][0]["dead"]


def test_drawn_seeds_are_too_many_to_search_from_ones_own_hand(server):
    """A player who could try every possible seed against their own hand would find the deal."""
    seeds = []
    for _ in range(3):
        last, _answers = play_to_the_end(server, {"mode": "play", "variant": "michigan", "rules": {"num_deals": 1}})
        seeds.append(last["seed"])
    # Drawn from 2**63 values, all three above 2**32 but with chance 3 in 2**31.
    assert all(seed >= 2**32 for seed in seeds), seeds


def test_a_watched_table_shows_its_seed(server):
    status, view = server.request("POST", "/api/games", {"mode": "watch", "seed": 12})
    assert status == 200 and view["seed"] == 12


# -- which requests the server takes ------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "192.168.1.7", "localhost.evil.example", ""])
def test_a_foreign_host_header_is_refused(server, host):
    """DNS rebinding: a page of evil.example whose name now points here still sends Host: evil.example."""
    for method, path, body in [("GET", "/", None), ("GET", "/api/options", None), ("POST", "/api/games", {})]:
        before = len(server.store._games)
        status, answer = server.request(method, path, body, headers={"Host": host})
        one_line_error(status, answer, 400, f"Host {host!r}", "allowed: localhost, 127.0.0.1, [::1]", "--allow-host")
        assert len(server.store._games) == before


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST:{port}", "127.0.0.1:{port}", "[::1]:{port}"])
def test_the_loopback_names_are_served(server, host):
    status, page = server.request("GET", "/", headers={"Host": host.format(port=server.port)})
    assert status == 200 and "<title>newmarket-env</title>" in page


def test_allowed_hosts_add_names():
    extra = Server(allowed_hosts=["localhost", "table.lan", "::1"])
    try:
        assert extra.request("GET", "/api/options", headers={"Host": "table.lan:8000"})[0] == 200
        assert extra.request("GET", "/api/options", headers={"Host": "[::1]"})[0] == 200
        assert extra.request("GET", "/api/options", headers={"Host": "127.0.0.1"})[0] == 400  # not named
    finally:
        extra.stop()


RECORD = None


def a_record() -> bytes:
    global RECORD
    if RECORD is None:
        e = env(variant="michigan", num_deals=1, engine="python")
        e.reset(seed=5)
        game = e.unwrapped.game
        while not game.over:
            e.step(game.legal[0])
        RECORD = json.dumps(e.unwrapped.record()).encode()
    return RECORD


def simple_bodies() -> list[tuple[str, bytes]]:
    """The bodies a foreign page can send with no preflight: a form or fetch(..., {mode: 'no-cors'})."""
    record = a_record()
    boundary = "----form7"
    multipart = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="r.json"\r\n'
            f"Content-Type: application/json\r\n\r\n"
        ).encode()
        + record
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return [
        ("text/plain", record),
        ("application/x-www-form-urlencoded", b"x=" + record),
        (f"multipart/form-data; boundary={boundary}", multipart),
        ("application/octet-stream", record),
    ]


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://127.0.0.1:{port}"])
def test_a_foreign_origin_changes_nothing(server, origin):
    origin = origin.format(port=server.port)
    status, watched = server.request("POST", "/api/games", {"mode": "watch", "seed": 3})
    assert status == 200
    status, played = server.request("POST", "/api/games", {"mode": "play", "seed": 3})
    action = played["decision"]["choices"][0]["action"]
    attempts = [("/api/replays", kind, body) for kind, body in simple_bodies()]
    attempts += [
        ("/api/games", "text/plain", json.dumps({"mode": "watch"}).encode()),
        ("/api/games", "application/json", json.dumps({"mode": "watch"}).encode()),
        (f"/api/games/{played['id']}/act", "text/plain", json.dumps({"action": action}).encode()),
        (f"/api/games/{watched['id']}/step", "text/plain", b""),
    ]
    before = list(server.store._games)
    for path, kind, body in attempts:
        status, answer = server.request(
            "POST", path, body, headers={"Origin": origin, "Content-Type": kind, "Sec-Fetch-Site": "cross-site"}
        )
        one_line_error(status, answer, 403, f"Origin {origin!r}", f"allowed: {server.origin}")
    assert list(server.store._games) == before
    assert server.request("GET", f"/api/games/{played['id']}")[1]["decision"] == played["decision"]
    assert server.request("GET", f"/api/games/{watched['id']}")[1] == watched | {"id": watched["id"]}


def test_the_page_own_origin_may_post(server):
    headers = {"Origin": server.origin, "Content-Type": "application/octet-stream"}
    status, answer = server.request("POST", "/api/replays", a_record(), headers=headers)
    assert status == 200 and answer["frames"] > 1

"""The web app through its real server (uvicorn on a free local port): what a player may learn,
which requests the server takes (Host, Origin, body sizes) and that bad input is a 4xx with one line.

Requests are raw HTTP (``http.client``) so the headers a browser would send (``Host``,
``Origin``, content types of simple cross-site requests) are the test's own.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
import urllib.parse
import zlib
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed (pip install 'newmarket-env[web]')")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install 'newmarket-env[web]')")

from newmarket_env import env  # noqa: E402
from newmarket_env.describe.scene import scene  # noqa: E402
from newmarket_env.engine.record import replay_steps  # noqa: E402
from newmarket_env.web import create_app, tables  # noqa: E402
from newmarket_env.web.tables import GameStore, ReplayGame  # noqa: E402

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


# -- what a request may cost the server -----------------------------------------------------------


class ServeProcess:
    """``newmarket serve`` as its own process, so its peak memory (VmHWM) is its alone."""

    def __init__(self, *options: str) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "newmarket_env.cli", "serve", "--port", str(self.port), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        deadline = time.monotonic() + HANG_GUARD_S
        while True:
            assert self.process.poll() is None and time.monotonic() < deadline, self.process.stdout.read()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
                break
            except OSError:
                time.sleep(0.2)
        self.client = Server.__new__(Server)
        self.client.port = self.port

    def peak_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024

    def stop(self) -> str:
        self.process.terminate()
        out, _ = self.process.communicate(timeout=HANG_GUARD_S)
        return out


@pytest.fixture(scope="module")
def served():
    running = ServeProcess("--allow-host", "table.lan")
    yield running
    running.stop()


GROWTH_MB = 150  # a refused request may cost the server this much memory at its peak; unpacking 1 GiB costs 2 GB


def gzip_of(piece: bytes, times: int) -> bytes:
    pack = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return b"".join(pack.compress(piece) for _ in range(times)) + pack.flush()


@pytest.mark.parametrize(
    "piece, words",
    [
        (b"\0" * 2**20, "holds a line longer than"),  # 1 GiB of zeros in 1 MB
        (b'{"deals": []}\n' * 2**16, "holds more than 100000 records"),
    ],
)
def test_a_gzip_bomb_is_refused_without_unpacking_it(served, piece, words):
    bomb = gzip_of(piece, 2**30 // len(piece))
    assert len(bomb) < 2 * 2**20
    before = served.peak_mb()
    status, answer = served.client.request(
        "POST", "/api/replays", bomb, headers={"Content-Type": "application/octet-stream"}
    )
    one_line_error(status, answer, 413, words, "the limit")
    assert served.peak_mb() - before < GROWTH_MB, (before, served.peak_mb())


def test_a_body_past_the_limit_is_refused_as_it_streams(served):
    """A chunked body (no Content-Length) of 100 MB: refused once 20 MB are in, never held whole."""
    before = served.peak_mb()
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=HANG_GUARD_S)
    connection.putrequest("POST", "/api/replays", skip_host=True)
    connection.putheader("Host", "localhost")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.endheaders()
    chunk = b"x" * 2**20
    try:
        for _ in range(100):
            connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        connection.send(b"0\r\n\r\n")
    except OSError:  # the server answered and closed while the body was still coming: what it should do
        pass
    answer = connection.getresponse()
    error = json.loads(answer.read())["error"]
    assert answer.status == 413 and f"larger than {20 * 2**20} bytes" in error, error
    assert served.peak_mb() - before < GROWTH_MB, (before, served.peak_mb())


def test_a_declared_length_past_the_limit_is_refused_before_the_body(served):
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=HANG_GUARD_S)
    connection.putrequest("POST", "/api/replays", skip_host=True)
    connection.putheader("Host", "localhost")
    connection.putheader("Content-Length", str(400 * 2**20))
    connection.endheaders()  # and no body: the answer must come all the same
    answer = connection.getresponse()
    error = json.loads(answer.read())["error"]
    assert answer.status == 413 and f"the request body is {400 * 2**20} bytes" in error, error


def test_a_large_json_body_to_a_form_route_is_refused(served):
    form = {"mode": "watch", "agents": ["random"] * 2**18}  # 2.4 MB of JSON
    status, answer = served.client.request("POST", "/api/games", form)
    one_line_error(status, answer, 413, "the limit of this route is 65536")


def test_serve_allow_host_adds_a_name(served):
    assert served.client.request("GET", "/api/options", headers={"Host": "table.lan:80"})[0] == 200
    assert served.client.request("GET", "/api/options", headers={"Host": "other.lan"})[0] == 400


def long_record(deals: int, seed: int = 1) -> dict:
    e = env(variant="newmarket", num_players=8, num_deals=deals, engine="python")
    e.reset(seed=seed)
    game, rng = e.unwrapped.game, random.Random(seed)
    while not game.over:
        e.step(rng.choice(game.legal))
    return e.unwrapped.record()


def test_every_replay_frame_is_the_scene_of_its_moment(server):
    """The frames are built deal by deal; each must equal the scene drawn from the game at that moment."""
    record = long_record(3, seed=4)
    status, first = server.request("POST", "/api/replays", json.dumps(record).encode())
    assert status == 200
    for index, game in enumerate(replay_steps(record)):
        expected = scene(game, reveal=True)
        status, frame = server.request("GET", f"/api/replays/{first['id']}/{index}")
        assert status == 200 and {k: frame[k] for k in expected} == expected, index
    assert index + 1 == first["frames"]


def test_building_a_replay_keeps_memory_linear_in_the_record():
    """Four times the deals may keep about four times the memory, not sixteen (each frame's whole log)."""

    def kept(record) -> int:
        tracemalloc.start()
        try:
            replay = ReplayGame(record)
            size = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        assert replay.frame(0)["frames"] > 1
        return size

    short, long = kept(long_record(10)), kept(long_record(40))
    assert long < 6 * short, (short, long)


def test_a_record_past_the_decision_limit_is_refused(server, monkeypatch):
    record = long_record(2)
    decisions = sum(1 for d in record["deals"] for e in d["events"] if "action" in e)
    monkeypatch.setattr(tables, "MAX_REPLAY_DECISIONS", decisions - 1)
    status, answer = server.request("POST", "/api/replays", json.dumps(record).encode())
    one_line_error(status, answer, 413, f"has {decisions} decisions", f"at most {decisions - 1}")


def test_the_store_drops_the_oldest_replays_past_its_byte_budget():
    store = GameStore(kept_bytes=1)  # every replay is more: only the newest is kept
    budget = Server(store)
    try:
        data = json.dumps(long_record(1)).encode()
        first, second = (budget.request("POST", "/api/replays", data)[1]["id"] for _ in range(2))
        assert budget.request("GET", f"/api/replays/{first}/0")[0] == 404
        assert budget.request("GET", f"/api/replays/{second}/0")[0] == 200
    finally:
        budget.stop()


# -- bad input: a 4xx with one line, and the connection kept ----------------------------------------


@pytest.mark.parametrize(
    "form, status, words",
    [
        ({"mode": "play", "seed": -5}, 400, "seed -5 is out of range; allowed: 0..9223372036854775807"),
        ({"mode": "play", "seed": -(2**63)}, 400, "is out of range"),
        ({"mode": "watch", "seed": 2**70}, 400, "is out of range"),
        ({"mode": "watch", "rules": {"observation": "planes"}, "agents": ["ppo-newmarket"]}, 400, "'observation'"),
        ({"mode": "watch", "rules": {"render_mode": "ansi"}}, 400, "unknown rules parameter 'render_mode'; allowed:"),
        ({"mode": "watch", "variant": "newmarket", "agents": ["ppo-michigan"]}, 400, "with other rules"),
        ({"mode": "watch", "agents": ["guided_search"]}, 400, "needs network=PATH"),
        ({"mode": "play", "seat": 2**70}, 400, "is not a seat of this 4-player table; allowed: 0..3"),
    ],
)
def test_a_bad_new_table_is_a_4xx_with_one_line(server, form, status, words):
    before = len(server.store._games)
    one_line_error(*server.request("POST", "/api/games", form), status, words)
    assert len(server.store._games) == before


@pytest.mark.parametrize("view", ["²", "⁰", "9" * 5000, "-1", " 1", "1.0", "\u0661"])  # the last an Arabic-Indic one
def test_a_bad_view_is_a_400(server, view):
    _status, watched = server.request("POST", "/api/games", {"mode": "watch", "seed": 1})
    path = f"/api/games/{watched['id']}?view={urllib.parse.quote(view)}"
    one_line_error(*server.request("GET", path), 400, "allowed: all or a seat 0..3")


@pytest.mark.parametrize(
    "method, path, status, words",
    [
        ("GET", "/api/nothing", 404, "GET /api/nothing: Not Found"),
        ("DELETE", "/api/games", 405, "Method Not Allowed"),
        ("GET", "/api/replays/abc/x", 422, "frame"),
        ("POST", "/api/replays?game=two", 422, "game"),
    ],
)
def test_unknown_routes_and_bad_parameters_are_one_line(server, method, path, status, words):
    one_line_error(*server.request(method, path, b"{}" if method == "POST" else None), status, words)


class FailingStore(GameStore):
    """A store that fails as a bug would: what the server answers then, and whether it keeps the connection."""

    def add(self, game):
        raise RuntimeError("a bug\nover two lines")


def test_an_unexpected_error_is_one_line_and_keeps_the_connection():
    failing = Server(FailingStore())
    try:
        connection = failing.connect()
        for _ in range(2):
            status, answer = failing.request("POST", "/api/games", {"mode": "watch"}, connection=connection)
            assert (status, answer) == (500, {"error": "internal error: RuntimeError: a bug"})
            status, answer = failing.request("GET", "/api/options", connection=connection)
            assert status == 200 and "variants" in answer
        connection.close()
    finally:
        failing.stop()


def test_bad_requests_keep_the_connection(server):
    connection = server.connect()
    for path in ["/api/games/0123456789abcdef", "/api/nothing", "/api/options"]:
        status, _answer = server.request("GET", path, connection=connection)
    assert status == 200
    status, _answer = server.request("POST", "/api/games", {"mode": "play", "seed": -5}, connection=connection)
    assert status == 400
    assert server.request("GET", "/api/options", connection=connection)[0] == 200
    connection.close()

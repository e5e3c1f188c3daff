"""A Ray address that does not answer as a cluster fails in one line, saying how long it waited,
instead of ``ray.init`` retrying it for minutes; a real cluster's address passes the same check."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

import pytest

from newmarket_env.eval.tournament.ray_probe import RAY_CONNECT_TIMEOUT_S, probe_cluster

pytest.importorskip("ray")

HANG_GUARD_S = 120  # only so a hang fails instead of blocking CI; never an assertion on speed
TOURNAMENT = [sys.executable, "-m", "newmarket_env.cli", "tournament", "--agents", "random,random,random,random"]
TOURNAMENT += ["--blocks", "10"]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the block ends: nothing listens there


class _Listener:
    """A TCP server on a free local port that answers each connection with ``reply`` (or nothing)."""

    def __init__(self, reply: bytes | None) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.reply, self.held = reply, []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.held.append(connection)  # kept open: a silent server must not close on the client
            if self.reply is not None:
                connection.sendall(self.reply)

    def close(self) -> None:
        self.server.close()
        for connection in self.held:
            connection.close()


def _tournament(address: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*TOURNAMENT, "--backend", "ray", "--address", address, "--quiet"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )


@pytest.mark.parametrize(
    "address, words",
    [
        ("127.0.0.1:{closed}", "nothing takes connections at 127.0.0.1:"),
        ("nosuch.invalid:6379", "the host name 'nosuch.invalid' does not resolve"),
    ],
)
def test_an_address_where_no_cluster_answers_fails_in_one_line(address, words, tmp_path):
    address = address.format(closed=_closed_port())  # a port found here: test ids must not vary between workers
    done = _tournament(address)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"newmarket tournament: error: could not join the Ray cluster at {address!r}: ")
    assert (
        words in lines[0] and "gave up after " in lines[0] and f"(the limit is {RAY_CONNECT_TIMEOUT_S:g} s)" in lines[0]
    )


def test_a_server_that_is_not_ray_is_named_so():
    other = _Listener(b"HTTP/1.1 400 Bad Request\r\n\r\n")
    try:
        done = _tournament(f"127.0.0.1:{other.port}")
    finally:
        other.close()
    assert done.returncode == 1 and "is not a Ray cluster (it does not speak gRPC)" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_a_silent_server_is_given_up_on_at_the_limit():
    silent = _Listener(None)
    try:
        with pytest.raises(ConnectionError, match=r"^no answer from 127\.0\.0\.1:\d+; gave up after 1\.\d s"):
            probe_cluster(f"127.0.0.1:{silent.port}", timeout=1.0)
    finally:
        silent.close()


def test_a_real_cluster_answers_the_probe(ray_cluster):
    probe_cluster(ray_cluster.address)  # a gRPC server: no error

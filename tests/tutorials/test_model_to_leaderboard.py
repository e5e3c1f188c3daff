"""Tutorial 3 (examples/tutorials/model_to_leaderboard.py) with a real MaskablePPO model, small sizes.

The model is trained here for a few hundred steps (its strength does not matter), saved by SB3 as a user
would, and taken through the tutorial's commands: export, measure, tournament. Then its games are opened
in a real ``newmarket serve`` the way the page's Replay view sends them.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("sb3_contrib", reason="the train extra is not installed")
pytest.importorskip("fastapi", reason="the web extra is not installed")

HANG_GUARD_S = 60  # only so a broken server fails instead of hanging; never an assertion on speed


@pytest.fixture(scope="module")
def model_zip(tmp_path_factory):
    import gymnasium
    from sb3_contrib import MaskablePPO

    import newmarket_env  # noqa: F401  (registers stops/Newmarket-v0)

    game = gymnasium.make("stops/Newmarket-v0", opponents=["random"], num_deals=1)
    model = MaskablePPO("MlpPolicy", game, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(128)
    path = tmp_path_factory.mktemp("model") / "mine.zip"
    model.save(path)
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_model_goes_from_its_zip_to_the_leaderboard_and_the_replay_view(tutorial, model_zip, tmp_path, capsys):
    out = tmp_path / "results"
    records = tutorial("model_to_leaderboard").main(
        [str(model_zip), "--boards", "4", "--blocks", "2", "--out", str(out)]
    )
    printed = capsys.readouterr().out
    assert "$ " in printed and " export " in printed and "mine.npz" in printed
    assert model_zip.with_suffix(".npz").is_file()
    results = json.loads((out / "results.json").read_text())
    agents = {row["agent"] for row in results["standings"]}
    assert agents == {"mine", "ppo-newmarket", "greedy", "control"}, agents
    assert records.is_file()

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "newmarket_env.cli", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline, answer = time.monotonic() + HANG_GUARD_S, None
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/replays?game=3",
            data=records.read_bytes(),
            headers={"Content-Type": "application/octet-stream"},
        )
        while answer is None:
            assert server.poll() is None and time.monotonic() < deadline, server.stdout.read()
            try:
                with urllib.request.urlopen(request, timeout=10) as reply:
                    answer = json.loads(reply.read())
            except ConnectionError:
                time.sleep(0.2)
            except urllib.error.URLError as err:
                if not isinstance(err.reason, ConnectionError):
                    raise
                time.sleep(0.2)
        # 2 blocks x 1 line-up of the 4 agents x 4 rotations of the seats: 8 sessions were kept.
        assert answer["game"] == 3 and answer["records"] == 8
    finally:
        server.terminate()
        server.wait(timeout=HANG_GUARD_S)

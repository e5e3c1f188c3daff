"""``newmarket replay`` of a recorded session shows every deal; broken files give one line."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from newmarket_env import cli, env
from newmarket_env.records import save_record

DEALS = 3


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    """A Michigan session of random legal actions (widow, auction, stops, boodles), saved as JSON."""
    e = env(variant="michigan", num_deals=DEALS)
    e.reset(seed=11)
    game, rng = e.unwrapped.game, random.Random(11)
    while not game.over:
        e.step(rng.choice(game.legal))
    path = tmp_path_factory.mktemp("replay") / "session.json"
    save_record(e.unwrapped.record(), path)
    return path, e.unwrapped.record()


def test_replay_all_prints_every_deal(record_file, capsys):
    path, record = record_file
    assert cli.main(["replay", str(path), "--all", "--verify"]) == 0
    out = capsys.readouterr().out
    for k, deal in enumerate(record["deals"], start=1):
        assert f"==== deal {k} of {DEALS} ==== dealer: player_{deal['dealer']}" in out
        chips = ", ".join(f"player_{s} {c} (" for s, c in enumerate(deal["chips"]))
        assert all(part in out.split(f"chips after deal {k}:")[1].splitlines()[0] for part in chips.split(", "))
    assert "dead hand" in out and "player_3  " in out
    assert "final balances" in out


def _replay_with_input(path, answers: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "newmarket_env.cli", "replay", str(path)],
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_replay_steps_deal_by_deal(record_file):
    path, _ = record_file
    every = _replay_with_input(path, "\n" * DEALS)
    assert all(f"==== deal {k} of {DEALS}" in every for k in range(1, DEALS + 1))
    first_only = _replay_with_input(path, "q\n")
    assert "==== deal 1 of" in first_only and "==== deal 2 of" not in first_only
    to_the_end = _replay_with_input(path, "")  # no input left: the rest is shown without waiting
    assert all(f"==== deal {k} of {DEALS}" in to_the_end for k in range(1, DEALS + 1))


def test_replay_one_deal(record_file, capsys):
    path, _ = record_file
    assert cli.main(["replay", str(path), "--deal", "2"]) == 0
    out = capsys.readouterr().out
    assert "==== deal 2 of" in out and "==== deal 1 of" not in out


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "{}",
        '{"variant": "poker", "rules": {}, "deals": []}',
        '{"variant": "newmarket", "rules": {"colour": 1}, "deals": []}',
        '{"variant": "newmarket", "rules": {}, "deals": [{"dealer": 0}]}',
    ],
)
def test_a_broken_record_is_one_line_and_exit_2(tmp_path, content, capsys):
    path = tmp_path / "broken.json"
    path.write_text(content)
    assert cli.main(["replay", str(path), "--all"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("newmarket replay: error:")


def test_a_record_out_of_range_deal_is_refused(record_file, capsys):
    path, _ = record_file
    assert cli.main(["replay", str(path), "--deal", str(DEALS + 1)]) == 2
    assert "--deal" in capsys.readouterr().err

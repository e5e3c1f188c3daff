"""``newmarket replay --verify`` says what it checked, and where a bad record differs; hostile files fail in one
line."""

from __future__ import annotations

import json
import random

import pytest

from newmarket_env import cli, env


@pytest.fixture
def record(tmp_path):
    e = env(variant="newmarket", num_deals=2)
    e.reset(seed=4)
    game, rng = e.unwrapped.game, random.Random(4)
    while not game.over:
        e.step(rng.choice(game.legal))
    return e.unwrapped.record()


def _write(tmp_path, data, name="game.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_verify_says_so_on_success(tmp_path, record, capsys):
    path = _write(tmp_path, record)
    decisions = sum(1 for d in record["deals"] for e in d["events"] if "action" in e)
    assert cli.main(["replay", path, "--all", "--verify"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"verified: replaying the {decisions} decisions of {path} gives back the same record\n")


def test_verify_names_the_first_difference(tmp_path, record, capsys):
    true_chips = record["deals"][1]["chips"][2]
    record["deals"][1]["chips"][2] = true_chips + 5  # an edited record
    path = _write(tmp_path, record)
    assert cli.main(["replay", path, "--all", "--verify"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"newmarket replay: error: {path}: replaying its decisions does not give back the same record; "
        f"first difference at deals[1].chips[2]: the record has {true_chips + 5}, "
        f"the replay gives {true_chips}\n"
    )


def test_deeply_nested_brackets_are_one_line(tmp_path, capsys):
    path = _write(tmp_path, "[" * 200_000 + "]" * 200_000)
    assert cli.main(["replay", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith("newmarket replay: error: ") and err.count("\n") == 1 and "Traceback" not in err

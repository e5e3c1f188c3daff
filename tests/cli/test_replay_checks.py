"""``newmarket replay`` refuses a record that is not what its cards and decisions give, naming where it differs;
``--verify`` says what it checked; hostile files fail in one line."""

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
    first = out.splitlines()[0]
    assert first.startswith(f"verified: replaying the {decisions} decisions of {path} gives back the same record; ")
    # a record of the env alone says nothing of its agents: no seat can be loaded again, and it says so
    assert "the agents of seats none made their 0 decisions again" in first
    assert all(f"seat {seat} (the record does not say how its agent was made" in first for seat in range(4))


@pytest.mark.parametrize("verify", [[], ["--verify"]])
def test_an_edited_result_is_refused_naming_the_first_difference(tmp_path, record, capsys, verify):
    true_chips = record["deals"][1]["chips"][2]
    record["deals"][1]["chips"][2] = true_chips + 5  # an edited record
    path = _write(tmp_path, record)
    assert cli.main(["replay", path, "--all", *verify]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"newmarket replay: error: {path}: the record does not match what its cards and decisions give, so it is "
        f"not shown; first difference at deals[1].chips[2]: the record has {true_chips + 5}, "
        f"the replay gives {true_chips}\n"
    )
    assert captured.out == ""  # nothing of it is shown


def test_deeply_nested_brackets_are_one_line(tmp_path, capsys):
    path = _write(tmp_path, "[" * 200_000 + "]" * 200_000)
    assert cli.main(["replay", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith("newmarket replay: error: ") and err.count("\n") == 1 and "Traceback" not in err

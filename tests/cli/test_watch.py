"""``newmarket watch`` (agents against agents in the terminal) and ``newmarket replay FILE --gif OUT``."""

from __future__ import annotations

import json
import re
from itertools import pairwise

import numpy as np
import pytest

from newmarket_env import cli, env, load_agent
from newmarket_env.engine.record import replay_steps

AGENTS = ["greedy", "random", "control", "lowest"]


def _direct_session(seed: int, deals: int):
    """The session played straight through the env, agents seeded as watch seeds them (seed + 1 + seat)."""
    e = env(variant="newmarket", num_deals=deals)
    players = [load_agent(name, env=e, seed=seed + 1 + s) for s, name in enumerate(AGENTS)]
    e.reset(seed=seed)
    while not e.unwrapped.game.over:
        e.step(int(players[e.unwrapped.game.to_act].act(e.observe(e.agent_selection))))
    return e.unwrapped.record()


def test_watch_tells_the_whole_session_with_every_hand(capsys, tmp_path):
    saved = tmp_path / "watched.json"
    assert (
        cli.main(["watch", "--agents", ",".join(AGENTS), "--seed", "4", "--set", "num_deals=2", "--save", str(saved)])
        == 0
    )
    out = capsys.readouterr().out
    record = _direct_session(4, 2)
    saved_record = json.loads(saved.read_text())
    assert {k: v for k, v in saved_record.items() if k != "thoughts"} == {**record, "agents": AGENTS}  # who sat where
    for k, deal in enumerate(record["deals"], start=1):
        assert f"==== deal {k} of 2 ====" in out
        for seat in range(len(deal["hands"])):  # every hand as dealt (the replay's words)
            assert f"player_{seat} ({AGENTS[seat]}) holds " in out
        assert "dead hand " in out
    final = record["deals"][-1]["chips"]
    assert all(f"player_{s} ({AGENTS[s]}) {c} (" in out.split("final balances")[1] for s, c in enumerate(final))


def test_watch_from_one_seat_hides_the_other_hands(capsys):
    assert cli.main(["watch", "--variant", "newbury", "--seed", "2", "--seat", "1", "--set", "num_deals=1"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r" holds? (clubs|diamonds|hearts|spades) ", out) and "dead hand " not in out
    assert "player_1 (random)'s hand as dealt: " in out
    for line in out.splitlines():  # other seats' discards are told without their cards
        if "discards" in line and not line.startswith("player_1 "):
            assert not re.search(r"\b[A2-9TJQK][CDHS]\b", line), line


def test_watching_from_a_seat_does_not_call_it_you(capsys):
    """The watcher is not at the table: the seat keeps its name in every line, the table drawing too."""
    argv = ["watch", "--variant", "michigan", "--seat", "2", "--table", "--seed", "3", "--set", "num_deals=1"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "told from player_2 (random)'s seat" in out
    assert "-- seen from player_2 (random) --" in out and "player_2 (random)'s hand" in out
    assert not re.search(r"\b(you|your|you're)\b", out, re.I), [
        line for line in out.splitlines() if re.search(r"\b(you|your)\b", line, re.I)
    ][:3]


@pytest.mark.parametrize(
    "args, words",
    [
        (["--agents", "random,nobody"], "--agents names 2 agents; give 1 (for every seat) or 4"),
        (["--agents", "nobody"], "unknown agent 'nobody'"),
        (["--seat", "7"], "--seat 7 is not a seat of this 4-player table; allowed: 0..3"),
        (["--delay", "-1"], "--delay -1.0 is out of range"),
        (["--set", "widow=sometimes"], "widow"),
        (["--save", "/no/such/folder/x.json"], "does not exist"),
    ],
)
def test_watch_bad_input_is_one_line(capsys, args, words):
    assert cli.main(["watch", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1 and err.startswith("newmarket watch: error: ")


def test_replay_gif_has_one_frame_per_decision(tmp_path, capsys):
    from PIL import Image

    record = _direct_session(6, 1)
    source, gif = tmp_path / "session.json", tmp_path / "session.gif"
    source.write_text(json.dumps(record))
    assert cli.main(["replay", str(source), "--gif", str(gif)]) == 0
    decisions = sum("action" in e for d in record["deals"] for e in d["events"])
    assert f"{decisions + 1} frames" in capsys.readouterr().out
    with Image.open(gif) as animation:
        assert animation.n_frames == decisions + 1 and animation.size == (960, 640)
        frames = []
        for k in range(animation.n_frames):
            animation.seek(k)
            frames.append(np.asarray(animation.convert("RGB")))
    assert all(not np.array_equal(a, b) for a, b in pairwise(frames))  # each decision changes the table
    assert len(list(replay_steps(record))) == decisions + 1
    assert not list(tmp_path.glob("*.part"))


def test_replay_gif_bad_folder_is_one_line(tmp_path, capsys):
    source = tmp_path / "session.json"
    source.write_text(json.dumps(_direct_session(1, 1)))
    assert cli.main(["replay", str(source), "--gif", str(tmp_path / "missing" / "x.gif")]) == 2
    assert "the folder" in capsys.readouterr().err


def test_watch_table_draws_the_seats_view_before_each_decision(capsys):
    assert cli.main(["watch", "--seed", "3", "--seat", "2", "--table", "--set", "num_deals=1"]) == 0
    out = capsys.readouterr().out
    tables = out.count("-- seen from player_2 (random) --")
    assert tables > 0 and tables == out.count("player_2 (random)'s hand\n")


def test_watch_tells_what_the_agents_thought_and_the_replay_shows_it(capsys, tmp_path):
    saved = tmp_path / "thought.json"
    argv = ["watch", "--agents", "greedy,search,random,control", "--thoughts", "--seed", "6"]
    assert cli.main([*argv, "--set", "num_deals=1", "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    record = json.loads(saved.read_text())
    decisions = [e for d in record["deals"] for e in d["events"] if "action" in e]
    assert record["thoughts"]
    for entry in record["thoughts"]:
        # Each entry sits at the decision it was said at: the record's action there is the one marked taken.
        assert decisions[entry["decision"]]["action"] == entry["action"]
        assert decisions[entry["decision"]].get("seat") in (entry["seat"], None)
        assert entry["agent"] == AGENTS_THOUGHT[entry["seat"]]
    for seat, name in enumerate(AGENTS_THOUGHT):
        assert f"  player_{seat} ({name}) thinks: " in out
    assert "mean chips" in out and "worlds 64" in out  # search's candidates
    assert re.search(r"    > lead \w\w: score ", out)  # a rule baseline's scores, the lead taken marked
    assert cli.main(["replay", str(saved), "--all"]) == 0
    shown = capsys.readouterr().out
    assert "what the agents thought" in shown and "player_1 (search) thinks: mean chips" in shown


AGENTS_THOUGHT = ["greedy", "search", "random", "control"]

"""Records cannot lie: a replay recomputes every deal from the record's cards and decisions and refuses, in one
line naming the first difference, a record whose stated results, seats or rules are not what it recomputes.

The records are a real tournament's ``records.jsonl.gz`` (greedy, control, lowest and random, two deals a
session). Each case edits what a person could edit by hand; where the difference must be found is worked
out from the edit itself, not read from the code under test.
"""

from __future__ import annotations

import copy
import gzip
import json

import pytest

from newmarket_env import cli, load_agent
from newmarket_env.eval.tournament.cli import main as tournament
from newmarket_env.play.seat_check import check_seats

AGENTS = ["greedy", "control", "lowest", "random"]


@pytest.fixture(scope="module")
def entries(tmp_path_factory):
    out = tmp_path_factory.mktemp("tournament") / "run"
    argv = ["--agents", ",".join(AGENTS), "--blocks", "1", "--workers", "1", "--resamples", "20"]
    argv += ["--set", "num_deals=2", "--quiet", "--save-records", "--out", str(out)]
    assert tournament(argv) == 0
    with gzip.open(out / "records.jsonl.gz", "rt") as fh:
        return [json.loads(line) for line in fh]


def _write(tmp_path, entries) -> str:
    path = tmp_path / "records.jsonl.gz"
    path.write_bytes(gzip.compress("\n".join(json.dumps(entry) for entry in entries).encode()))
    return str(path)


def _replay(path: str, capsys, *more: str) -> tuple[int, str, str]:
    code = cli.main(["replay", path, "--game", "1", "--all", *more])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_tournament_s_records_replay_and_their_agents_make_their_decisions_again(entries, tmp_path, capsys):
    path = _write(tmp_path, entries)
    code, out, err = _replay(path, capsys, "--verify")
    assert code == 0 and err == ""
    first = out.splitlines()[0]
    assert "gives back the same record; the agents of seats 0, 1, 2, 3 made their" in first
    assert "not checked" not in first


def test_an_edited_last_deal_result_is_refused_not_shown(entries, tmp_path, capsys):
    edited = copy.deepcopy(entries)
    deals = edited[0]["record"]["deals"]
    true = deals[-1]["chips"][1]
    deals[-1]["chips"][1] = true + 10  # the false total a person would want shown
    code, out, err = _replay(_write(tmp_path, edited), capsys)
    last = len(deals) - 1
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("newmarket replay: error: ")
    assert err.rstrip().endswith(
        f"first difference at deals[{last}].chips[1]: the record has {true + 10}, the replay gives {true}"
    )


def test_names_swapped_in_the_record_alone_are_refused(entries, tmp_path, capsys):
    edited = copy.deepcopy(entries)
    agents = edited[0]["record"]["agents"]
    agents[0], agents[1] = agents[1], agents[0]
    code, _, err = _replay(_write(tmp_path, edited), capsys)
    assert code == 2 and "names its seats" in err and "but its entry says" in err and err.count("\n") == 1


def test_names_swapped_in_the_record_and_its_entry_are_refused(entries, tmp_path, capsys):
    edited = copy.deepcopy(entries)
    for names in (edited[0]["record"]["agents"], edited[0]["seats"]):
        names[0], names[1] = names[1], names[0]
    first, second = entries[0]["seats"][0], entries[0]["seats"][1]
    code, _, err = _replay(_write(tmp_path, edited), capsys)
    assert code == 2 and err.count("\n") == 1
    assert f"seat 0 is named {second!r} but its agent was made as {first!r}" in err


def test_whole_seats_swapped_replay_but_verify_finds_the_agents_did_not_make_the_decisions(entries, tmp_path, capsys):
    """Every trace of who sat where swapped consistently: only asking the agents again can tell."""
    edited = copy.deepcopy(entries)
    entry = edited[0]
    seats = entry["seats"]
    a, b = seats.index("greedy"), seats.index("lowest")
    for names in (entry["record"]["agents"], entry["seats"], entry["record"]["seat_agents"]):
        names[a], names[b] = names[b], names[a]
    path = _write(tmp_path, edited)
    assert _replay(path, capsys)[0] == 0  # the cards and decisions are untouched: the engine cannot tell
    code, out, err = _replay(path, capsys, "--verify")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "the agents it names did not make its decisions: decision " in err
    assert "where the record has" in err


def test_an_edited_rule_is_refused(entries, tmp_path, capsys):
    edited = copy.deepcopy(entries)
    edited[0]["record"]["rules"]["per_card_payment"] += 1  # every card payment would double
    code, _, err = _replay(_write(tmp_path, edited), capsys)
    assert code == 2 and "first difference at deals[" in err and err.count("\n") == 1


def test_a_module_named_in_a_record_is_never_imported(entries):
    edited = copy.deepcopy(entries)
    edited[0]["record"]["seat_agents"][2]["spec"] = "os:system"
    loaded = []

    def load(spec, **options):
        loaded.append(spec)
        return load_agent(spec, **options)

    checked = check_seats(edited[0]["record"], load=load)
    assert checked.unchecked == {2: "'os:system' is a module reference: code named in a record is never imported"}
    assert "os:system" not in loaded and checked.checked == [0, 1, 3] and checked.difference is None

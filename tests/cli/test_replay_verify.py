"""``newmarket replay --verify`` refuses tampered records of every kind, naming what differs.

The record is a real Michigan session (widow, auction, stops, boodles, lots). Each case edits one
thing a hand-edited or corrupted file could change; the expected place of the difference is worked
out from the edit itself (the index edited), not read from the code under test.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from newmarket_env import cli, env
from newmarket_env.records import first_difference, verify

PLAYERS = 4


@pytest.fixture(scope="module")
def record():
    e = env(variant="michigan", num_players=PLAYERS, num_deals=3)
    e.reset(seed=11)
    game, rng = e.unwrapped.game, random.Random(11)
    while not game.over:
        e.step(rng.choice(game.legal))
    return e.unwrapped.record()


def _refused(tmp_path, capsys, record) -> str:
    """Run ``replay --verify`` on ``record``: it must exit 2 with one line; return that line's detail."""
    assert not verify(record)  # the Python API answers as the command does
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    assert cli.main(["replay", str(path), "--all", "--verify"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"newmarket replay: error: {path}"), captured.err
    assert "==== deal" not in captured.out  # nothing of a refused record is shown
    return lines[0]


def _index(deal, kind: str) -> int:
    return next(i for i, event in enumerate(deal["events"]) if event["type"] == kind)


def test_the_untouched_record_verifies(record):
    assert verify(record) and first_difference(record) is None


def test_a_dropped_event_is_located(tmp_path, capsys, record):
    tampered = copy.deepcopy(record)
    k = _index(tampered["deals"][0], "stop")
    del tampered["deals"][0]["events"][k]
    line = _refused(tmp_path, capsys, tampered)
    assert f"first difference at deals[0].events[{k}]." in line


def test_a_changed_payout_names_the_event_and_both_amounts(tmp_path, capsys, record):
    tampered = copy.deepcopy(record)
    deal = next(d for d in tampered["deals"] if any(e["type"] == "boodle" for e in d["events"]))
    d = tampered["deals"].index(deal)
    k = _index(deal, "boodle")
    true = deal["events"][k]["amount"]
    deal["events"][k]["amount"] = true + 1
    line = _refused(tmp_path, capsys, tampered)
    assert line.endswith(
        f"first difference at deals[{d}].events[{k}].amount: the record has {true + 1}, the replay gives {true}"
    )


def test_a_changed_rule_shows_in_the_payments_it_changes(tmp_path, capsys, record):
    """per_card_payment 1 -> 2: the first card payment of the replay doubles."""
    tampered = copy.deepcopy(record)
    assert tampered["rules"]["per_card_payment"] == 1
    tampered["rules"]["per_card_payment"] = 2
    d, k = next(
        (d, k)
        for d, deal in enumerate(record["deals"])
        for k, e in enumerate(deal["events"])
        if e["type"] == "payment" and e["reason"] == "cards"
    )
    paid = record["deals"][d]["events"][k]["amount"]
    line = _refused(tmp_path, capsys, tampered)
    assert line.endswith(
        f"first difference at deals[{d}].events[{k}].amount: the record has {paid}, the replay gives {2 * paid}"
    )


def test_a_changed_lot_shows_in_the_chips(tmp_path, capsys, record):
    """The leftover lot goes to another seat: the replay draws the lot the record says, so the chips differ."""
    tampered = copy.deepcopy(record)
    d, k = next(
        (d, k)
        for d, deal in enumerate(tampered["deals"])
        for k, e in enumerate(deal["events"])
        if e["type"] == "leftover" and e["seat"] is not None
    )
    event = tampered["deals"][d]["events"][k]
    event["seat"] = (event["seat"] + 1) % PLAYERS
    line = _refused(tmp_path, capsys, tampered)
    assert f"first difference at deals[{d}]." in line and "the record has" in line


def test_a_missing_deal_is_counted(tmp_path, capsys, record):
    tampered = copy.deepcopy(record)
    tampered["deals"].pop()
    line = _refused(tmp_path, capsys, tampered)
    # Without the last deal's decisions the replay stops at the start of that deal (its stakes), one more entry.
    assert line.endswith("first difference at deals: the record has 2 entries, the replay gives 3")


def test_a_replayed_card_is_refused_at_that_decision(tmp_path, capsys, record):
    """A decision edited to play the card the decision before it played: the refusal points at it."""
    tampered = copy.deepcopy(record)
    decisions = [
        (d, k) for d, deal in enumerate(tampered["deals"]) for k, e in enumerate(deal["events"]) if "action" in e
    ]
    j = next(
        j
        for j in range(1, len(decisions))
        if decisions[j][0] == decisions[j - 1][0] == 0
        and all(tampered["deals"][0]["events"][k]["action"] < 52 for _, k in decisions[j - 1 : j + 1])
    )
    (_, before), (_, k) = decisions[j - 1], decisions[j]
    events = tampered["deals"][0]["events"]
    events[k]["action"] = events[before]["action"]
    line = _refused(tmp_path, capsys, tampered)
    assert (
        f"first difference at deals[0].events[{k}].action (decision {j + 1} of {len(decisions)}): "
        f"action {events[before]['action']} "
        in line
        and "is not legal" in line
    )


@pytest.mark.parametrize("edit", ["swap_cards", "dealer"])
def test_changed_cards_or_dealer_make_a_recorded_decision_illegal(tmp_path, capsys, record, edit):
    """The decisions no longer fit the deal: the refusal names the decision that cannot be taken."""
    tampered = copy.deepcopy(record)
    deal = tampered["deals"][0 if edit == "swap_cards" else 1]
    if edit == "swap_cards":
        first, second = deal["hands"][0][0], deal["hands"][1][0]
        deal["hands"][0][0], deal["hands"][1][0] = second, first
    else:
        deal["dealer"] = (deal["dealer"] + 1) % PLAYERS
    line = _refused(tmp_path, capsys, tampered)
    assert "is not legal for seat" in line and "legal actions:" in line
    assert f"first difference at deals[{0 if edit == 'swap_cards' else 1}].events[" in line

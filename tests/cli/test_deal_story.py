"""The story of a deal in the terminal: the hand after a widow exchange, the lead passing over a seat, the
result of each deal (every hand left, boodles, pot, chips) and the wait before the next deal."""

from __future__ import annotations

import json
import random
import re

import pytest

from newmarket_env import cli, env
from newmarket_env.describe.events import describe_events
from newmarket_env.describe.summary import deal_summary, summary_lines
from newmarket_env.describe.words import Names
from newmarket_env.engine.record import replay_steps
from newmarket_env.game.cards import card_from_text, other_colour_mask
from newmarket_env.game.rules import make_rules
from newmarket_env.play.session import NEXT_DEAL_PROMPT, PlayOptions, play, prepare


def _play(options: PlayOptions, answer) -> tuple[list[str], list[str], dict]:
    """Play through the real session code; ``answer(prompt, screen)`` types each answer."""
    table = prepare(options)
    screen: list[str] = []
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return answer(prompt, screen)

    assert play(table, read=read, write=screen.append) == 0
    return screen, prompts, table.env.unwrapped.record()


def test_the_hand_after_taking_the_widow_is_shown():
    """michigan, the person deals (seat 0) and takes the widow: the new hand is the widow as dealt."""

    def answer(prompt: str, screen: list[str]) -> str:
        return "take" if screen[-2:] and "keep your hand, or take the widow" in "\n".join(screen[-6:]) else "1"

    screen, _, record = _play(
        PlayOptions(variant="michigan", agents=["greedy"], seed=7, overrides={"num_deals": 1}), answer
    )
    text = "\n".join(screen)
    assert "you take the widow" in text
    shown = re.search(r"^you take the widow\nyour hand now: (.+)$", text, re.M)
    assert shown, text[:3000]
    widow = record["deals"][0]["dead"]  # the widow as dealt: the record's dead hand
    told = shown.group(1).replace("|", " ").split()
    suits = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
    cards, suit = [], None
    for word in told:
        if word in suits:
            suit = suits[word]
        else:
            cards.append(word + suit)
    assert sorted(cards) == sorted(widow)


def test_play_tells_each_deals_result_and_waits_for_the_person():
    screen, prompts, record = _play(
        PlayOptions(variant="newmarket", agents=["greedy"], seed=11, overrides={"num_deals": 3}),
        lambda prompt, screen: "" if prompt == NEXT_DEAL_PROMPT else "1",
    )
    assert prompts.count(NEXT_DEAL_PROMPT) == 2  # between deals 1-2 and 2-3, not after the last
    text = "\n".join(screen)
    rules = make_rules("newmarket", num_deals=3)
    names = Names(4, viewer=0)
    for k, deal in enumerate(record["deals"], start=1):
        block = text.split(f"---- deal {k} of 3: the result ----\n", 1)[1].split("\nchips after deal", 1)[0]
        out = next(e["seat"] for e in deal["events"] if e["type"] == "out")
        assert block.splitlines()[0] == f"{names.says(out, 'goes')} out and {'win' if out == 0 else 'wins'} the deal"
        # The cards each loser paid for (the record's payments) are the cards listed as left in its hand.
        left = {e["from"]: e["amount"] // rules.per_card_payment for e in deal["events"] if e.get("reason") == "cards"}
        for seat in range(4):
            line = next(x for x in block.splitlines() if x.startswith(f"  {names(seat)} "))
            assert line.endswith(f"({left.get(seat, 0)} card{'' if left.get(seat, 0) == 1 else 's'})"), line
        for boodle in (e for e in deal["events"] if e["type"] == "boodle"):
            assert f"{boodle['card']} paid {names(boodle['seat'])} {boodle['amount']} chip" in block
    # The wait comes after the deal's result and before the next deal is told.
    first_wait = prompts.index(NEXT_DEAL_PROMPT)
    assert first_wait >= 0 and "==== deal 2 of 3 ====" in text


def test_q_between_deals_stops_the_session():
    _, prompts, record = _play(
        PlayOptions(variant="newmarket", agents=["random"], seed=3, overrides={"num_deals": 2}),
        lambda prompt, screen: "q" if prompt == NEXT_DEAL_PROMPT else "1",
    )
    assert prompts[-1] == NEXT_DEAL_PROMPT and len(record["deals"]) == 2 and not record["deals"][1]["chips"]


def _newbury_with_a_passed_lead():
    """A newbury session of random play where a lead passed over the stopper, with the engine's hands then."""
    for seed in range(200):
        e = env(variant="newbury", num_deals=1)
        e.reset(seed=seed)
        game, rng = e.unwrapped.game, random.Random(seed)
        while not game.over:
            e.step(rng.choice(game.legal))
        record = e.unwrapped.record()
        events = record["deals"][0]["events"]
        for k in range(1, len(events)):
            passed = events[k]["type"] == "play" and events[k - 1]["type"] == "stop"
            if passed and events[k]["seat"] != events[k - 1]["seat"]:
                return record, k
    raise AssertionError("no passed lead in 200 newbury sessions")


def test_newbury_says_when_the_lead_passes_over_a_player():
    record, k = _newbury_with_a_passed_lead()
    events = record["deals"][0]["events"]
    stop, lead = events[k - 1], events[k]
    rules = make_rules("newbury", num_deals=1)
    lines = describe_events(events, rules, Names(4))
    passing = [line for line in lines if "the lead passes to" in line]
    assert passing, lines
    passed = []
    seat = stop["seat"]
    while seat != lead["seat"]:
        passed.append(seat)
        seat = (seat + 1) % 4
    expected = " and ".join(f"player_{s}" for s in passed)
    assert any(line.startswith(f"{expected} hold") and line.endswith(f"player_{lead['seat']}") for line in passing)
    # The engine agrees: at that lead, every passed seat held no card of the other colour from the stop.
    colour = other_colour_mask(card_from_text(stop["card"]) // 13)
    for game in replay_steps(record):
        if game.played >> card_from_text(lead["card"]) & 1:
            break
        if game.played >> card_from_text(stop["card"]) & 1 and game.to_act == lead["seat"]:
            assert all(not game.hands[s] & colour for s in passed)
            break


def test_watch_table_keeps_its_columns_with_long_agent_names(capsys):
    argv = ["watch", "--agents", "random,control,lowest,greedy", "--table", "--seed", "1", "--set", "num_deals=1"]
    assert cli.main(argv) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if re.match(r"  player_\d \(\w+\) +\d+ card", line)]
    assert rows
    assert len({row.index(" card") for row in rows}) == 1 and len({row.index(" chip") for row in rows}) == 1


@pytest.mark.parametrize(
    "variant, overrides",
    [("newmarket", {}), ("michigan", {}), ("newbury", {}), ("hoyle1885", {}), ("newmarket", {"widow": "dealer_buy"})],
)
def test_each_deals_result_accounts_for_every_chip(variant, overrides):
    """Chips are kept: after every deal, the players' chips, what stays on the layout and what vanished by lot
    add up to what the players started with (the engine's balances, from the record)."""
    bought = False
    for seed in range(3):
        e = env(variant=variant, num_deals=3, **overrides)
        e.reset(seed=seed)
        game, rng = e.unwrapped.game, random.Random(seed)
        while not game.over:
            e.step(rng.choice(game.legal))
        record = e.unwrapped.record()
        rules = e.unwrapped.rules
        bought |= any(e.get("reason") == "widow_fee" for d in record["deals"] for e in d["events"])
        if rules.stake_mode.value == "house":  # the house adds chips from outside: nothing to balance
            continue
        vanished = 0
        for k in range(len(record["deals"])):
            summary = deal_summary(record["deals"], k, rules)
            stacks = [summary["pot"], *summary["boodles"]]
            vanished += sum(s["lot"]["amount"] for s in stacks if s["lot"] and s["lot"]["seat"] is None)
            on_layout = sum(s["left"] for s in stacks)
            assert sum(summary["chips"]) + on_layout + vanished == rules.num_players * rules.starting_chips
            assert summary["chips"] == record["deals"][k]["chips"]
            lines = summary_lines(summary, rules, Names(rules.num_players))
            assert len([x for x in lines if x.startswith("  player_")]) == rules.num_players
    if overrides:
        assert bought, "no dead hand was bought: the fee paid into the pot went unchecked"


def test_a_saved_play_record_keeps_what_the_agents_thought_but_play_never_shows_it(tmp_path):
    path = tmp_path / "played.json"
    screen, _, _ = _play(
        PlayOptions(variant="newmarket", agents=["greedy"], seed=4, overrides={"num_deals": 1}, save=str(path)),
        lambda prompt, screen: "1",
    )
    saved = json.loads(path.read_text())
    assert saved["agents"] == ["person", "greedy", "greedy", "greedy"]
    decisions = [e for d in saved["deals"] for e in d["events"] if "action" in e]
    assert saved["thoughts"] and all(t["seat"] != 0 and t["agent"] == "greedy" for t in saved["thoughts"])
    assert all(decisions[t["decision"]]["action"] == t["action"] for t in saved["thoughts"])
    assert not any("thinks:" in line for line in screen)  # the agents' thoughts would tell their hands

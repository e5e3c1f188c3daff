"""Runs, stops and boodles (docs/rules.md steps 6-8): every stop cause, ace high, going out mid-run."""

from newmarket_env.engine import Game
from newmarket_env.game.cards import mask_from_texts
from newmarket_env.game.rules import make_rules

from .helpers import build_deal, events, legal_texts, play, plays, stops


def one_deal(variant, hands, dealer=0, players=3, lots=(0, 0, 0, 0, 0), **overrides):
    rules = make_rules(variant, players, num_deals=1, **overrides)
    return Game(rules, deals=[build_deal(rules, dealer, hands)], lots=list(lots))


def test_run_crosses_seats_out_of_turn_and_stops_on_the_king():
    game = one_deal("newmarket", {1: "9C TC QC 2D", 2: "JC 3D", 0: "KC 4D"})
    play(game, (1, "9C"))
    assert plays(game)[:5] == [(1, "9C", True), (1, "TC", False), (2, "JC", False), (1, "QC", False), (0, "KC", False)]
    assert stops(game) == [(0, "KC", None, "top")]
    assert plays(game)[5:] == [(0, "4D", True)]  # 0 leads its only card (forced) and is out


def test_ace_high_runs_q_k_a_and_stops_on_the_ace():
    game = one_deal("michigan", {1: "QS AS 2D", 2: "KS 3D", 0: "4D 5H"}, widow="none")
    play(game, (1, "QS"))
    assert plays(game)[:3] == [(1, "QS", True), (2, "KS", False), (1, "AS", False)]
    assert stops(game)[0] == (1, "AS", None, "top")


def test_ace_low_king_is_top_and_ace_is_a_low_card():
    game = one_deal("newmarket", {1: "AS 2S 3D", 2: "KH 4D", 0: "5H 6H"})
    assert legal_texts(game) == ["3D", "AS"]
    play(game, (1, "AS"))
    assert plays(game)[:2] == [(1, "AS", True), (1, "2S", False)]
    assert stops(game)[0] == (1, "2S", "3S", "dead")


def test_dead_stop_makes_the_next_card_public():
    game = one_deal("newmarket", {1: "2C 3C 9D", 2: "4D", 0: "5D 6H"})
    assert game.public_dead == 0
    play(game, (1, "2C"))
    assert stops(game)[0] == (1, "3C", "4C", "dead")
    assert game.public_dead == mask_from_texts(["4C"])


def test_removed_card_stops_the_run_hoyle1885():
    rules = make_rules("hoyle1885", 3, num_deals=1)
    deal = build_deal(rules, 0, {1: "6D 7D 2C", 2: "9D 3C", 0: "4C 5H"})
    game = Game(rules, deals=[deal], lots=[0] * 5)
    play(game, (1, "6D"))
    assert stops(game)[0] == (1, "7D", "8D", "removed")
    assert game.public_dead == rules.removed_mask  # removed cards are public from the start


def test_already_played_card_stops_the_run():
    rules = make_rules("newmarket", 3, num_deals=1, lead_after_stop="lowest_any_suit")
    game = Game(rules, deals=[build_deal(rules, 0, {1: "7C 3D KS", 2: "5C 6C 4D 9S", 0: "2S"})], lots=[0] * 5)
    play(game, (1, "7C"), (1, "3D"))  # 8C dead; then 2 follows 3D with 4D and stops (5D dead)
    assert stops(game) == [(1, "7C", "8C", "dead"), (2, "4D", "5D", "dead")]
    play(game, (2, "5C"))
    assert stops(game)[2] == (2, "6C", "7C", "played")
    assert plays(game)[-1] == (2, "9S", True) and events(game, kinds=["out"]) == [{"type": "out", "seat": 2}]


def test_boodle_taken_by_a_follow_during_a_run():
    # newmarket boodles AS KH QC JD, each with 3 chips (3 players, spread 4).
    game = one_deal("newmarket", {1: "TC JC 2D", 2: "QC 3D", 0: "4D 5D"})
    play(game, (1, "TC"))
    assert events(game, kinds=["boodle"]) == [{"type": "boodle", "seat": 2, "boodle": 2, "card": "QC", "amount": 3}]
    assert game.boodle_stacks[2] == 0


def test_going_out_on_a_boodle_card_takes_it_first():
    game = one_deal("newmarket", {1: "JD", 2: "3H 4H", 0: "5S"})
    kinds = [e["type"] for e in events(game) if e["type"] not in ("stake", "leftover")]
    assert kinds == ["play", "boodle", "out", "pot", "payment", "payment"]
    assert events(game, kinds=["boodle"]) == [{"type": "boodle", "seat": 1, "boodle": 3, "card": "JD", "amount": 3}]
    assert game.balances[1] == 35 + 3 + 3 + 3  # boodle JD, pot, 3 cards; the other boodles go by lot to 0


def test_going_out_mid_run_as_a_forced_follow_ends_the_deal():
    game = one_deal("newmarket", {1: "2C 3C 5C 9D", 2: "4C", 0: "6C 7H"})
    play(game, (1, "2C"))
    # 2 plays its only card 4C as a follow and is out: 5C and 6C are never played.
    assert plays(game) == [(1, "2C", True), (1, "3C", False), (2, "4C", False)]
    assert events(game, kinds=["out", "pot", "payment"]) == [
        {"type": "out", "seat": 2},
        {"type": "pot", "seat": 2, "amount": 3},
        {"type": "payment", "from": 0, "to": 2, "amount": 2, "reason": "cards"},
        {"type": "payment", "from": 1, "to": 2, "amount": 2, "reason": "cards"},
    ]
    assert game.over and stops(game) == []


def test_custom_boodle_layout_the_four_kings():
    game = one_deal("newmarket", {1: "QD KD 2C", 2: "3C 4H", 0: "5H"}, boodles=("KC", "KD", "KH", "KS"))
    play(game, (1, "QD"))
    assert events(game, kinds=["boodle"]) == [{"type": "boodle", "seat": 1, "boodle": 1, "card": "KD", "amount": 3}]
    assert stops(game)[0] == (1, "KD", None, "top")

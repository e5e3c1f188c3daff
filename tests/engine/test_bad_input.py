"""Bad input raises a clear ValueError and leaves the game or env as it was, still usable."""

import numpy as np
import pytest

from newmarket_env import env, make_rules
from newmarket_env.engine import Game, IllegalActionError
from newmarket_env.engine.record import session_record

from .helpers import build_deal


@pytest.mark.parametrize(
    "kwargs,words",
    [
        (dict(variant="boodle"), ["unknown variant 'boodle'", "newmarket", "michigan"]),
        (dict(colour="red"), ["unknown rules parameter 'colour'", "allowed parameters", "ace_high"]),
        (dict(num_players=2), ["num_players=2", "3..8"]),
        (dict(num_players=9), ["num_players=9", "3..8"]),
        (dict(num_players=True), ["num_players=True"]),
        (dict(pot_ante=-1), ["pot_ante=-1", "0..10000"]),
        (dict(boodle_stake=1.5), ["boodle_stake=1.5", "an int"]),
        (dict(per_card_payment=-2), ["per_card_payment=-2"]),
        (dict(widow_fee=-1), ["widow_fee=-1"]),
        (dict(house_pot=-1), ["house_pot=-1"]),
        (dict(dealer_stake_multiplier=0), ["dealer_stake_multiplier=0", "1..10"]),
        (dict(discard_count=0), ["discard_count=0", ">= 1"]),
        (dict(num_deals=0), ["num_deals=0", "1..1000"]),
        (dict(starting_chips="40"), ["starting_chips='40'", "is not an int (got str)", "an int"]),
        (dict(boodle_stake="4"), ["boodle_stake='4' is not an int", "allowed: an int 0..10000"]),
        (dict(boodles=("AS", "KH", "QC", "8D"), removed_cards=("8D",)), ["boodles", "8D is in removed_cards"]),
        (dict(min_bid=0), ["min_bid=0", "1..20"]),
        (dict(max_bid=21), ["max_bid=21", "1..20"]),
        (dict(min_bid=5, max_bid=4), ["max_bid=4", "5..20"]),
        (dict(ace_high="yes"), ["ace_high='yes'", "True or False"]),
        (dict(stake_mode="all"), ["stake_mode='all'", "spread, choose, each, house"]),
        (dict(dead_hand="burnt"), ["dead_hand='burnt'", "dealt, discard, none"]),
        (dict(dead_hand_position="middle"), ["dead_hand_position='middle'", "first, before_dealer, last"]),
        (dict(widow="auction"), ["widow='auction'", "none, dealer_buy, dealer_or_auction"]),
        (dict(first_lead="youngest"), ["first_lead='youngest'", "eldest, lowest_club"]),
        (dict(lead_after_stop="any"), ["lead_after_stop='any'", "lowest_any_suit"]),
        (dict(leftover="keep"), ["leftover='keep'", "lot, vanish"]),
        (dict(boodles=("AS", "KH", "QC")), ["boodles", "4 distinct"]),
        (dict(boodles=("AS", "AS", "QC", "JD")), ["boodles", "4 distinct"]),
        (dict(boodles=("AS", "KH", "QC", "1D")), ["boodles", "'1D' is not a card"]),
        (dict(boodles="AS KH QC JD"), ["boodles", "a tuple of card texts"]),
        (dict(removed_cards=("8D", "8D")), ["removed_cards", "distinct"]),
        (dict(widow="dealer_buy", dead_hand="none"), ["widow", "dead_hand='dealt'"]),
        (dict(dead_hand="discard", discard_count=13), ["discard_count=13"]),
    ],
)
def test_bad_rules_raise_value_error_naming_the_problem(kwargs, words):
    for build in (lambda: env(**kwargs), lambda: make_rules(**kwargs)):
        with pytest.raises(ValueError) as info:
            build()
        for word in words:
            assert word in str(info.value)


def test_newbury_rejects_other_player_counts_with_the_allowed_value():
    with pytest.raises(ValueError, match=r"num_players=5 .*'newbury'.*allowed: 4"):
        env(variant="newbury", num_players=5)


RULES3 = make_rules("newmarket", 3, num_deals=1)
GOOD = build_deal(RULES3, 0, {0: "2C 3C", 1: "2D 3D 9S", 2: "2H 3H"})


def bad_deals():
    """(deal, words in the error) for every kind of impossible deal."""
    missing = {**GOOD, "dead": GOOD["dead"][1:]}
    doubled = {**GOOD, "hands": [GOOD["hands"][0] + ["2D"], *GOOD["hands"][1:]]}
    short = {**GOOD, "hands": GOOD["hands"][:2]}
    empty_hand = {**GOOD, "hands": [[], GOOD["hands"][1], GOOD["hands"][2] + GOOD["hands"][0]]}
    return [
        (missing, ["deal 0", "missing", GOOD["dead"][0]]),
        (doubled, ["deal 0", "2D is doubled"]),
        (short, ["deal 0", "3 lists"]),
        (empty_hand, ["seat 0 has 0 cards"]),
        ({**GOOD, "dealer": 3}, ["dealer=3", "0..2"]),
        ({**GOOD, "hands": [["XX"], *GOOD["hands"][1:]]}, ["'XX' is not a card"]),
        ({**GOOD, "hands": "2C 3C"}, ["one list per seat"]),
        ({**GOOD, "extra": 1}, ["expected a dict with keys"]),
    ]


@pytest.mark.parametrize("deal,words", bad_deals())
def test_impossible_deals_raise(deal, words):
    with pytest.raises(ValueError) as info:
        Game(RULES3, deals=[deal])
    for word in words:
        assert word in str(info.value)


def test_removed_card_in_a_deal_raises():
    rules = make_rules("hoyle1885", 3, num_deals=1)
    deal = build_deal(make_rules("newmarket", 3), 0, {0: "2C", 1: "2D", 2: "2H"})  # a 52-card deal
    with pytest.raises(ValueError, match=r"\['8D'\] are removed"):
        Game(rules, deals=[deal])


def test_dead_hand_given_for_newbury_raises():
    rules = make_rules("newbury", num_deals=1)
    hands = [[r + s for r in "A23456789TJQK"] for s in "SHDC"]
    deal = {"dealer": 0, "hands": [h[:-1] for h in hands], "dead": [h[-1] for h in hands]}
    with pytest.raises(ValueError, match="'dead' must be \\[\\] when dead_hand='discard'"):
        Game(rules, deals=[deal])


def test_newbury_hand_too_small_to_discard_raises():
    hands = [[r + s for r in "A23456789TJQK"] for s in "SHDC"]
    hands[0], hands[1] = hands[0][:3], hands[1] + hands[0][3:]
    with pytest.raises(ValueError, match="seat 0 has 3 cards; at least 4 needed"):
        Game(make_rules("newbury", num_deals=1), deals=[{"dealer": 0, "hands": hands, "dead": []}])


def test_bad_deal_on_reset_leaves_the_env_unchanged_and_usable():
    e = env(variant="newmarket", num_players=3, num_deals=1)
    e.reset(seed=1, options={"deals": [GOOD]})
    game, agent = e.unwrapped.game, e.agent_selection
    before = e.observe(agent)["observation"].copy()
    for deal, _ in bad_deals():
        with pytest.raises(ValueError):
            e.reset(seed=2, options={"deals": [deal]})
    with pytest.raises(ValueError, match="must be a list of deals"):
        e.reset(options={"deals": GOOD})
    assert e.unwrapped.game is game and e.agent_selection == agent
    assert np.array_equal(e.observe(agent)["observation"], before)
    e.step(int(np.flatnonzero(e.observe(agent)["action_mask"])[0]))  # still playable


def snapshot(game):
    return (
        session_record(game, "newmarket"),
        list(game.balances),
        list(game.hands),
        game.dead,
        game.pot,
        list(game.boodle_stacks),
        game.to_act,
        list(game.legal),
        game.phase,
    )


@pytest.mark.parametrize("action", [0, 52, 54, 60, 76, 79, -1, "2C", None, 1.5])
def test_illegal_action_raises_and_leaves_the_game_unchanged(action):
    game = Game(RULES3, deals=[GOOD])  # eldest 1 may lead 2D or 9S
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    assert "legal actions: 14 (2D), 47 (9S)" in str(info.value)
    assert snapshot(game) == before
    game.apply(47)
    assert game.played >> 47 & 1


def test_illegal_action_through_the_env():
    e = env(variant="newmarket", num_players=3, num_deals=1)
    e.reset(seed=0, options={"deals": [GOOD]})
    obs = e.observe("player_1")["observation"].copy()
    for action in (0, 53, 78, None, "9S"):
        with pytest.raises(IllegalActionError, match="legal actions"):
            e.step(action)
    assert e.agent_selection == "player_1" and np.array_equal(e.observe("player_1")["observation"], obs)
    e.step(14)


def test_no_action_after_the_session_is_over():
    game = Game(RULES3, deals=[GOOD])
    while not game.over:
        game.apply(game.legal[0])
    with pytest.raises(IllegalActionError, match="session is over"):
        game.apply(0)


def test_bad_env_options_raise():
    with pytest.raises(ValueError, match="observation='image'"):
        env(observation="image")
    with pytest.raises(ValueError, match="render_mode='rgb'"):
        env(render_mode="rgb")


def test_non_integer_actions_are_refused_even_when_equal_to_a_legal_id():
    from newmarket_env.engine import Game, IllegalActionError
    from newmarket_env.game.rules import make_rules

    game = Game(make_rules("newmarket"), seed=1)
    before = (game.to_act, list(game.legal), list(game.balances))
    for bad in (float(game.legal[0]), True, str(game.legal[0])):
        with pytest.raises(IllegalActionError, match="not an action id"):
            game.apply(bad)
    assert (game.to_act, list(game.legal), list(game.balances)) == before


def test_more_deals_than_num_deals_is_an_error():
    from newmarket_env import env

    e = env(variant="newmarket", num_deals=1)
    deal = {"dealer": 0, "hands": [["AC"]] * 4, "dead": []}
    with pytest.raises(ValueError, match="num_deals=1"):
        e.reset(options={"deals": [deal, deal]})

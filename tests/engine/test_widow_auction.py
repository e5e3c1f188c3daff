"""The widow (docs/rules.md step 4): dealer_buy, dealer_or_auction with its auction, and none."""

from newmarket_env.engine import Decision, Game, Phase
from newmarket_env.game.cards import mask_from_texts
from newmarket_env.game.rules import make_rules

from .helpers import build_deal, events, legal_texts, play

HANDS = {0: "2C 3C 4C", 1: "2D 3D 4D 9S", 2: "2H 3H 4H", 3: "2S 3S 4S"}  # eldest 1 has a choice of lead


def michigan(**overrides):
    """Michigan, 4 players, dealer 0, short hands and the rest of the deck as the widow."""
    rules = make_rules("michigan", 4, num_deals=1, **overrides)
    deal = build_deal(rules, 0, HANDS)
    return Game(rules, deals=[deal], lots=[0] * 5), deal


def widow_events(game):
    """Widow, auction and their payments (not the card payments of a deal that ended)."""
    found = events(game, kinds=["widow", "bid", "pass", "auction_end", "payment"])
    return [e for e in found if e.get("reason") != "cards"]


def test_michigan_dealer_exchanges_for_free():
    game, deal = michigan()
    assert (game.phase, game.decision, game.to_act) == (Phase.WIDOW, Decision.WIDOW, 0)
    assert legal_texts(game) == ["exchange", "keep"]
    balance = game.balances[0]
    play(game, (0, "exchange"))
    assert widow_events(game) == [{"type": "widow", "seat": 0, "choice": "exchange"}]
    assert game.balances[0] == balance
    assert game.hands[0] == mask_from_texts(deal["dead"])
    assert game.dead == game.known_dead[0] == mask_from_texts(HANDS[0].split())
    assert game.widow_taker == 0 and game.phase is Phase.PLAY and game.to_act == 1


def test_auction_with_several_raises_high_bidder_pays_dealer():
    game, deal = michigan()
    play(game, (0, "keep"))
    assert (game.phase, game.decision, game.to_act) == (Phase.AUCTION, Decision.BID, 1)
    assert game.in_auction == [False, True, True, True]
    assert legal_texts(game) == sorted(["pass"] + [f"bid {k}" for k in range(1, 21)])
    play(game, (1, "bid 2"))
    assert game.to_act == 2 and "bid 2" not in legal_texts(game) and "bid 3" in legal_texts(game)
    play(game, (2, "bid 3"), (3, "pass"), (1, "bid 5"))
    assert (game.high_bid, game.high_bidder, game.to_act) == (5, 1, 2)  # 3 is out, the turn skips it
    before = list(game.balances)
    play(game, (2, "pass"))  # only the high bidder is left in
    assert widow_events(game) == [
        {"type": "widow", "seat": 0, "choice": "keep"},
        {"type": "bid", "seat": 1, "amount": 2},
        {"type": "bid", "seat": 2, "amount": 3},
        {"type": "pass", "seat": 3},
        {"type": "bid", "seat": 1, "amount": 5},
        {"type": "pass", "seat": 2},
        {"type": "payment", "from": 1, "to": 0, "amount": 5, "reason": "bid"},
        {"type": "widow", "seat": 1, "choice": "exchange"},
    ]
    assert game.balances[0] == before[0] + 5 and game.balances[1] == before[1] - 5
    assert game.hands[1] == mask_from_texts(deal["dead"])
    assert game.dead == game.known_dead[1] == mask_from_texts(HANDS[1].split())
    assert game.known_dead[0] == 0 and game.widow_taker == 1
    assert game.phase is Phase.PLAY and game.to_act == 1  # eldest leads (now holding the widow)


def test_turn_passes_over_the_high_bidder_until_others_pass():
    game, _ = michigan()
    play(game, (0, "keep"), (1, "pass"), (2, "bid 1"), (3, "bid 4"))
    assert game.to_act == 2  # 1 is out; the turn goes round to 2, past 3 (the high bidder) next time
    play(game, (2, "bid 6"))
    assert game.to_act == 3
    play(game, (3, "pass"))
    assert widow_events(game)[-2] == {"type": "payment", "from": 2, "to": 0, "amount": 6, "reason": "bid"}


def test_max_bid_forces_the_others_to_pass():
    game, _ = michigan(max_bid=3)
    play(game, (0, "keep"))
    assert legal_texts(game) == ["bid 1", "bid 2", "bid 3", "pass"]
    play(game, (1, "bid 3"))
    # 2 and 3 cannot bid higher: their single legal action, pass, is taken for them and recorded.
    assert [e for e in game.deals[0]["events"] if e["type"] == "pass"] == [
        {"type": "pass", "seat": 2, "action": 54},
        {"type": "pass", "seat": 3, "action": 54},
    ]
    assert widow_events(game)[-2] == {"type": "payment", "from": 1, "to": 0, "amount": 3, "reason": "bid"}


def test_min_bid_limits_the_first_bid():
    game, _ = michigan(min_bid=4, max_bid=6)
    play(game, (0, "keep"))
    assert legal_texts(game) == ["bid 4", "bid 5", "bid 6", "pass"]


def test_everyone_passing_leaves_the_widow_as_it_is():
    game, deal = michigan()
    before = list(game.balances)
    play(game, (0, "keep"), (1, "pass"), (2, "pass"), (3, "pass"))
    assert widow_events(game)[-1] == {"type": "auction_end", "seat": None, "amount": 0}
    assert game.balances == before and game.widow_taker == -1
    assert game.dead == mask_from_texts(deal["dead"]) and game.known_dead == [0, 0, 0, 0]
    assert game.phase is Phase.PLAY and game.to_act == 1


def test_last_player_in_may_still_bid_after_the_others_pass():
    game, _ = michigan()
    play(game, (0, "keep"), (1, "pass"), (2, "pass"))
    assert game.to_act == 3 and game.decision is Decision.BID
    play(game, (3, "bid 1"))
    assert widow_events(game)[-2] == {"type": "payment", "from": 3, "to": 0, "amount": 1, "reason": "bid"}
    assert game.widow_taker == 3


def newmarket_buy():
    rules = make_rules("newmarket", 3, widow="dealer_buy", widow_fee=4, num_deals=1)
    deal = build_deal(rules, 2, {0: "2C 3C 9S", 1: "2D 3D", 2: "2H 3H"})
    return Game(rules, deals=[deal], lots=[0] * 5), deal


def test_dealer_buy_declines():
    game, _deal = newmarket_buy()
    assert (game.decision, game.to_act, game.pot) == (Decision.BUY, 2, 3)
    assert legal_texts(game) == ["exchange", "keep"]
    play(game, (2, "keep"))
    assert widow_events(game) == [{"type": "widow", "seat": 2, "choice": "decline"}]
    assert game.pot == 3 and game.hands[2] == mask_from_texts(["2H", "3H"]) and game.to_act == 0


def test_dealer_buys_with_the_fee_into_the_pot():
    game, deal = newmarket_buy()
    play(game, (2, "exchange"))
    assert widow_events(game) == [
        {"type": "widow", "seat": 2, "choice": "buy"},
        {"type": "payment", "from": 2, "to": "pot", "amount": 4, "reason": "widow_fee"},
    ]
    assert game.pot == 7 and game.balances[2] == 40 - 5 - 4
    assert game.hands[2] == mask_from_texts(deal["dead"])
    assert game.dead == game.known_dead[2] == mask_from_texts(["2H", "3H"])


def test_widow_none_goes_straight_to_play():
    rules = make_rules("newmarket", 3, num_deals=1)
    game = Game(rules, deals=[build_deal(rules, 0, {0: "2C 3C", 1: "2D 3D 9S", 2: "2H 3H"})])
    assert game.phase is Phase.PLAY and game.decision is Decision.LEAD
    assert widow_events(game) == []


def test_auction_skips_the_dealer_when_it_goes_round():
    rules = make_rules("michigan", 4, num_deals=1)
    deal = build_deal(rules, 2, HANDS)  # dealer 2: the auction runs 3, 0, 1, then 3 again, never 2
    game = Game(rules, deals=[deal], lots=[0] * 5)
    play(game, (2, "keep"))
    assert game.in_auction == [True, True, False, True]
    play(game, (3, "bid 1"), (0, "bid 2"), (1, "pass"), (3, "bid 3"), (0, "pass"))
    assert widow_events(game)[-2:] == [
        {"type": "payment", "from": 3, "to": 2, "amount": 3, "reason": "bid"},
        {"type": "widow", "seat": 3, "choice": "exchange"},
    ]


def test_dealer_buy_with_no_fee():
    rules = make_rules("newmarket", 3, widow="dealer_buy", widow_fee=0, num_deals=1)
    game = Game(rules, deals=[build_deal(rules, 0, {0: "2C 3C", 1: "2D 3D 9S", 2: "2H 3H"})], lots=[0] * 5)
    play(game, (0, "exchange"))
    assert widow_events(game)[0] == {"type": "widow", "seat": 0, "choice": "buy"}
    assert all(e["amount"] == 0 for e in widow_events(game)[1:])  # a zero fee moves no chip
    assert game.pot == 3 and game.balances[0] == 35 and game.widow_taker == 0

"""The amount bounds of ``rules.py``: both engines accept exactly the same rules and compute the same chips.

The compiled engine keeps rule amounts in C ``int``; before the bounds, ``pot_ante=2**30`` with a dealer
multiplier of 2 gave a pot of 1,073,741,824 on ``FastGame`` and 5,368,709,120 on ``Game``, silently.
"""

import random

import pytest

from newmarket_env import make_rules
from newmarket_env.engine import Game
from newmarket_env.engine.choice import FastGame
from newmarket_env.game.rules import MAX_AMOUNT, MAX_DEALER_MULTIPLIER, MAX_DEALS, MAX_STARTING_CHIPS

C_INT_MAX = 2**31 - 1
ENGINES = [Game] + ([FastGame] if FastGame is not None else [])
AMOUNTS = ("pot_ante", "boodle_stake", "house_pot", "house_boodle", "widow_fee", "per_card_payment")


def test_the_worst_session_stays_inside_c_int():
    # Worked by hand from docs/rules.md, per deal with 8 players and the dealer paying the largest multiplier:
    # antes and "each" boodle stakes, a widow fee (or a bid of 20, less), 52 cards paid for.
    payers = 7 + MAX_DEALER_MULTIPLIER
    per_deal = MAX_AMOUNT * payers + 4 * MAX_AMOUNT * payers + MAX_AMOUNT + MAX_AMOUNT * 52
    assert MAX_STARTING_CHIPS + MAX_DEALS * per_deal < C_INT_MAX


@pytest.mark.parametrize(
    "name,low,high",
    [
        *((name, 0, MAX_AMOUNT) for name in AMOUNTS),
        ("dealer_stake_multiplier", 1, MAX_DEALER_MULTIPLIER),
        ("num_deals", 1, MAX_DEALS),
        ("starting_chips", -MAX_STARTING_CHIPS, MAX_STARTING_CHIPS),
    ],
)
def test_both_engines_accept_the_bounds_and_refuse_one_past_them(name, low, high):
    for value in (low, high):
        rules = make_rules("newmarket", **{name: value})
        for engine in ENGINES:
            engine(rules, seed=0)  # accepted by both
    for value in (low - 1, high + 1, 2**30, 10**30):
        with pytest.raises(ValueError, match=rf"{name}={value}\b.*allowed: an int {low}\.\.{high}"):
            make_rules("newmarket", **{name: value})


def test_the_values_of_the_report_are_refused_not_wrapped():
    with pytest.raises(ValueError, match="pot_ante=1073741824 is out of range"):
        make_rules("newmarket", pot_ante=2**30, dealer_stake_multiplier=2)
    with pytest.raises(ValueError, match=r"starting_chips=10{30} is out of range"):
        make_rules("newmarket", starting_chips=10**30)


def _play(engine, rules, seed):
    """A whole session with seeded random legal choices; the pot and balances after every action."""
    game = engine(rules, seed=seed)
    choose = random.Random(seed)
    trace = [(game.pot, list(game.balances))]
    while not game.over:
        game.apply(choose.choice(list(game.legal)))
        trace.append((game.pot, list(game.boodle_stacks), list(game.balances)))
    return trace


@pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")
@pytest.mark.parametrize(
    "variant,overrides",
    [
        (
            "newmarket",
            dict(
                pot_ante=MAX_AMOUNT,
                boodle_stake=MAX_AMOUNT,
                stake_mode="each",
                per_card_payment=MAX_AMOUNT,
                dealer_stake_multiplier=MAX_DEALER_MULTIPLIER,
                starting_chips=-MAX_STARTING_CHIPS,
            ),
        ),
        (
            "michigan",
            dict(
                widow="dealer_buy",
                widow_fee=MAX_AMOUNT,
                dealer_stake_multiplier=MAX_DEALER_MULTIPLIER,
                starting_chips=MAX_STARTING_CHIPS,
            ),
        ),
        # House stakes create points every deal: the balances grow over the longest session.
        ("newbury", dict(house_pot=MAX_AMOUNT, house_boodle=MAX_AMOUNT, num_deals=MAX_DEALS)),
    ],
)
def test_both_engines_compute_the_same_chips_at_the_bounds(variant, overrides):
    rules = make_rules(variant, num_players=4 if variant == "newbury" else 8, **overrides)
    reference, compiled = _play(Game, rules, seed=3), _play(FastGame, rules, seed=3)
    assert compiled == reference
    if variant == "newmarket":
        # The first pot, by hand: 7 players pay the ante, the dealer 10 times it.
        assert reference[0][0] == MAX_AMOUNT * (7 + MAX_DEALER_MULTIPLIER)
    if variant == "newbury":
        assert sum(reference[-1][2]) > MAX_DEALS * MAX_AMOUNT  # tens of millions of points, alike on both

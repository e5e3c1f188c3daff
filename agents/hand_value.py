"""A rough chip value of a hand, and what the widow is worth against it.

A hand sheds fast when its cards come in few runs and its runs end on stops it
knows (top rank, a played card, a card known dead): each such run gives it the
lead again. Each separate run is an entry point it must wait for or lead, and
every card left at the end costs ``per_card_payment``. Boodles held are chips
to collect. The weights are rough, in chips.
"""

from __future__ import annotations

import random

from newmarket_env.agents import knowledge as K
from newmarket_env.engine.baseline_weights import BOODLE_SHARE, CARD_COST, SEGMENT_COST, STOP_VALUE, WIDOW_SAMPLES
from newmarket_env.game.cards import cards_of
from newmarket_env.game.rules import Rules
from newmarket_env.observation.view import ObservationView


def hand_value(hand: int, known: int, view: ObservationView, rules: Rules) -> float:
    """Chip value of ``hand`` given ``known``, the cards known to be out of play."""
    value = 0.0
    for _, after in K.segments(hand, view.ace_high):
        value -= SEGMENT_COST
        if after is None or known >> after & 1:
            value += STOP_VALUE
    for card in view.boodle_cards:
        if hand >> card & 1:
            value += BOODLE_SHARE * (view.boodle_value(card) + 1)
    return value - CARD_COST * rules.per_card_payment * hand.bit_count()


def sample_widow(pool: list[int], size: int, rng: random.Random) -> int:
    """``size`` cards of ``pool`` drawn without replacement, as a mask; ``pool`` is reordered in place.

    A partial Fisher-Yates shuffle, one ``randrange`` per card, written out so
    that the compiled baselines (engine/_policies.pyx) draw exactly the same cards.
    """
    widow = 0
    for i in range(size):
        j = i + rng.randrange(len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
        widow |= 1 << pool[i]
    return widow


def widow_gain(view: ObservationView, rules: Rules, rng: random.Random, samples: int = WIDOW_SAMPLES) -> float:
    """Expected value of taking the dead hand minus the value of keeping the own hand.

    The dead hand is sampled from the unseen cards; after an exchange the old
    hand is dead and known, so its cards become stops for the new one.
    """
    pool = cards_of(K.unseen(view, rules))
    size = min(view.dead_count, len(pool))
    if size == 0:
        return -1e9
    out_of_play = view.known_dead | view.played
    keep = hand_value(view.hand, out_of_play, view, rules)
    total = 0.0
    for _ in range(samples):
        widow = sample_widow(pool, size, rng)  # each sample goes on shuffling the same pool
        total += hand_value(widow, out_of_play | view.hand, view, rules)
    return total / samples - keep


__all__ = ["hand_value", "sample_widow", "widow_gain"]

"""Hand-built observation views for tests that ask a policy one question directly.

``hand_view(rules, hand=[...], ...)`` fills every field of an
:class:`~newmarket_env.observation.view.ObservationView` from the rules and the
cards named as texts, so a test states exactly the position it judges (no deal,
no engine). The viewer is relative seat 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from newmarket_env.engine.types import Decision, Phase
from newmarket_env.game.cards import card_from_text, mask_from_texts
from newmarket_env.game.rules import Rules
from newmarket_env.observation.view import ObservationView

_PHASE_OF = {
    Decision.STAKE: Phase.STAKE,
    Decision.DISCARD: Phase.DISCARD,
    Decision.WIDOW: Phase.WIDOW,
    Decision.BUY: Phase.WIDOW,
    Decision.BID: Phase.AUCTION,
    Decision.LEAD: Phase.PLAY,
}


def cards(texts: Sequence[str]) -> list[int]:
    return [card_from_text(t) for t in texts]


def hand_view(
    rules: Rules,
    hand: Sequence[str],
    decision: Decision = Decision.LEAD,
    legal: Sequence[int] | Sequence[str] = (),
    played_by: Sequence[Sequence[str]] = (),
    known_dead: Sequence[str] = (),
    boodle_stacks: Sequence[int] = (0, 0, 0, 0),
    dead_count: int | None = None,
    card_counts: Sequence[int] | None = None,
    last_card: str | None = None,
    **changes,
) -> ObservationView:
    """The viewer's view holding ``hand``; ``legal`` as action ids or card texts (default: the whole hand)."""
    n = rules.num_players
    seats = [mask_from_texts(p) for p in played_by] + [0] * (n - len(played_by))
    legal_ids = [card_from_text(a) if isinstance(a, str) else a for a in legal] or sorted(cards(hand))
    fields = dict(
        num_players=n,
        hand=mask_from_texts(hand),
        played_by=seats,
        known_dead=mask_from_texts(known_dead) | rules.removed_mask,
        last_card=None if last_card is None else card_from_text(last_card),
        boodle_cards=rules.boodle_cards,
        boodle_stacks=list(boodle_stacks),
        pot=0,
        card_counts=list(card_counts) if card_counts is not None else [len(hand)] * n,
        balances=[rules.starting_chips] * n,
        dealer=n - 1,
        phase=_PHASE_OF[decision],
        decision=decision,
        standing_bid=0,
        high_bidder=None,
        in_auction=[False] * n,
        widow_taker=None,
        dead_count=dead_count if dead_count is not None else len(hand),
        own_pending=0,
        deals_left_fraction=0.0,
        ace_high=rules.ace_high,
        lead_rule=rules.lead_after_stop,
        stake_mode=rules.stake_mode,
        dead_hand=rules.dead_hand,
        widow=rules.widow,
        first_lead=rules.first_lead,
        legal=list(legal_ids),
    )
    fields.update(changes)
    return ObservationView(**fields)

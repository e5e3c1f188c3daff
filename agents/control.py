"""``control``: keep the lead.

Idea: whoever plays the stopping card leads next, and leading is how a hand
gets rid of the cards nobody else's run reaches. So ``control`` prefers leads
whose own run ends on a stop it knows (top rank, a played card, a card known
dead): it plays that run and leads again. It plans such chains of leads a few
steps deep under the lead rule of the rules (including ``any_opposite_colour``,
where any card of the colour may be led) and only then falls back on the
``greedy`` tips. In Newbury it discards the card just above one of its own, so
that card becomes a stop only it knows, and keeps its horses. For the widow,
the dealer's purchase and the auction it weighs its hand (runs, known stops,
boodles, cards) against sampled dead hands, and bids up to the expected gain;
as Michigan dealer it keeps unless the gain beats what the auction would pay it.
"""

from __future__ import annotations

from newmarket_env.agents import knowledge as K
from newmarket_env.agents.greedy import GreedyPolicy
from newmarket_env.agents.hand_value import widow_gain
from newmarket_env.engine.baseline_weights import (
    AUCTION_VALUE,
    CONTROL,
    DISCARD_BOODLE,
    DISCARD_ISOLATED,
    DISCARD_MAKES_STOP,
    DISCARD_OPENS_GAP,
    DISCARD_PER_RANK,
    EXCHANGE_MARGIN,
    GO_OUT,
    PLAN_DEPTH,
    STOP_LEAD_SHARE,
)
from newmarket_env.game import actions as A
from newmarket_env.game.order import next_table, order_key
from newmarket_env.observation.view import ObservationView


class ControlPolicy(GreedyPolicy):
    """Plans chains of leads that keep control; values hands for the widow and the auction."""

    name = "control"

    def lead(self, view: ObservationView) -> int:
        values = self.lead_values(view)
        return max(view.legal, key=lambda card: (values[card], -card))

    def lead_values(self, view: ObservationView) -> dict[int, float]:
        """Each legal lead's planned value (what :meth:`lead` maximises)."""
        boodles = K.boodle_mask(view)
        unseen = K.unseen(view, self.rules)
        p_dead = K.hidden_dead_count(view, self.rules) / max(1, unseen.bit_count())
        known = view.played | view.known_dead
        return {card: self.plan_value(view, view.hand, known, card, PLAN_DEPTH, boodles, p_dead) for card in view.legal}

    def why_lead(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return (
            f"plans chains of leads that keep control ({PLAN_DEPTH} leads deep): cards shed, boodles, the lead "
            "coming back",
            self.lead_values(view),
        )

    def why_discard(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return (
            "discards the card that makes a stop above its own card, leaves no gap and is high",
            {card: self.discard_score(view, card) for card in view.legal},
        )

    def why_widow(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        gain = widow_gain(view, self.rules, self.rng)
        return (
            f"takes the widow only if the expected gain of sampled widows ({gain:.1f}) beats what the auction "
            f"pays the dealer ({AUCTION_VALUE + EXCHANGE_MARGIN:.1f})",
            None,
        )

    def why_buy(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        gain = widow_gain(view, self.rules, self.rng)
        return (
            f"buys only if the expected gain of sampled dead hands ({gain:.1f}) beats the fee "
            f"({self.rules.widow_fee + EXCHANGE_MARGIN:.1f} with its margin)",
            None,
        )

    def why_bid(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        worth = widow_gain(view, self.rules, self.rng) - EXCHANGE_MARGIN
        return f"bids the minimum while it is at most what the widow is worth to it ({worth:.1f} chips)", None

    def plan_value(
        self, view: ObservationView, hand: int, known: int, card: int, depth: int, boodles: int, p_dead: float
    ) -> float:
        """Value of leading ``card`` from ``hand``: cards shed, boodles, and the lead coming back."""
        chain, following = K.own_chain(hand, card, view.ace_high)
        rest = hand
        gain = 0.0
        for c in chain:
            rest &= ~(1 << c)
            gain += 1.0 + (view.boodle_value(c) + 1 if boodles >> c & 1 else 0.0)
        if not rest:
            return gain + GO_OUT
        played = known | sum(1 << c for c in chain)
        if following is not None and not played >> following & 1:
            return gain + p_dead * CONTROL + STOP_LEAD_SHARE * self.lead_score(view, card)
        options = K.own_leads(view.lead_rule, rest, chain[-1], view.ace_high, boodles)
        if not options:
            return gain  # the lead passes to the left
        if depth == 0:
            return gain + CONTROL
        return gain + CONTROL + max(self.plan_value(view, rest, played, o, depth - 1, boodles, p_dead) for o in options)

    def discard(self, view: ObservationView) -> int:
        return max(view.legal, key=lambda c: (self.discard_score(view, c), c))

    def discard_score(self, view: ObservationView, card: int) -> float:
        """Higher is a better discard: makes a stop above an own card, leaves no gap, is high."""
        if K.boodle_mask(view) >> card & 1:
            return DISCARD_BOODLE
        prev = K.previous_card(card, view.ace_high)
        following = next_table(view.ace_high)[card]
        prev_held = prev is not None and bool(view.hand >> prev & 1)
        next_held = following is not None and bool(view.hand >> following & 1)
        score = DISCARD_PER_RANK * order_key(card, view.ace_high)
        score += DISCARD_MAKES_STOP if prev_held else 0.0  # the card below becomes a stop we alone know
        score -= DISCARD_OPENS_GAP if next_held else 0.0  # the card above would need a lead of its own
        score += DISCARD_ISOLATED if not prev_held and not next_held else 0.0  # one entry point fewer
        return score

    def widow(self, view: ObservationView) -> int:
        gain = widow_gain(view, self.rules, self.rng)
        return A.EXCHANGE if gain > AUCTION_VALUE + EXCHANGE_MARGIN else A.KEEP

    def buy(self, view: ObservationView) -> int:
        gain = widow_gain(view, self.rules, self.rng)
        return A.EXCHANGE if gain > self.rules.widow_fee + EXCHANGE_MARGIN else A.KEEP

    def bid(self, view: ObservationView) -> int:
        cheapest = min(a for a in view.legal if a != A.PASS)
        worth = widow_gain(view, self.rules, self.rng) - EXCHANGE_MARGIN
        return cheapest if A.bid_amount(cheapest) <= worth else A.PASS


__all__ = ["ControlPolicy"]

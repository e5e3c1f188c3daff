"""``greedy``: the strategy tips of the sources, one lead at a time.

Idea (seed 000, "Consejos y estrategias"): lead low in a suit where it holds
many cards and the most cards in a row, steer runs toward the boodles it holds
(lead low in the boodle's suit), prefer suits nobody has opened yet, and grab
a boodle or go out whenever a lead does so. In Newbury it discards its highest
plain cards (reached last, so the hardest to shed), never a horse. It buys the
widow or bids the minimum for it only when its own hand is scattered (many
separate runs per card) and holds no boodle; as Michigan dealer it keeps, so
the auction pays it. Stakes go on the boodle with
the fewest chips (before the deal every boodle is as likely to be its own).
"""

from __future__ import annotations

from newmarket_env.agents import knowledge as K
from newmarket_env.agents.policy import Policy
from newmarket_env.engine.baseline_weights import (
    GO_OUT,
    LEAD_PER_BOODLE_REACHED,
    LEAD_PER_CARD_SHED,
    LEAD_PER_RANK,
    LEAD_PER_SUIT_CARD,
    LEAD_UNOPENED_SUIT,
    SCATTER_EXCHANGE_MARGIN,
    SCATTER_LIMIT,
)
from newmarket_env.game import actions as A
from newmarket_env.game.order import order_key
from newmarket_env.observation.view import ObservationView


def scatter(hand: int, ace_high: bool) -> float:
    """Separate runs per card: 1.0 when no two cards connect, small for long runs."""
    count = hand.bit_count()
    return len(K.segments(hand, ace_high)) / count if count else 0.0


def holds_boodle(view: ObservationView) -> bool:
    return bool(view.hand & K.boodle_mask(view))


class GreedyPolicy(Policy):
    """Scores each lead by the tips of the sources and plays the best."""

    name = "greedy"
    scatter_limit = SCATTER_LIMIT  # exchange a hand above this scatter (the widow is a fresh random hand)

    def lead(self, view: ObservationView) -> int:
        return max(view.legal, key=lambda card: (self.lead_score(view, card), -card))

    def lead_score(self, view: ObservationView, card: int) -> float:
        """Cards shed in a row, boodles taken or reached, long and unopened suits, low cards."""
        chain, _ = K.own_chain(view.hand, card, view.ace_high)
        if len(chain) == view.hand.bit_count():
            return GO_OUT
        score = LEAD_PER_CARD_SHED * len(chain) + sum(view.boodle_value(c) + 1 for c in chain if c in view.boodle_cards)
        score += LEAD_PER_BOODLE_REACHED * K.boodles_above(view, chain[-1], view.ace_high)
        score += LEAD_PER_SUIT_CARD * K.suit_length(view.hand, card)
        score += 0.0 if K.suit_opened(view, card) else LEAD_UNOPENED_SUIT
        return score - LEAD_PER_RANK * order_key(card, view.ace_high)

    def why_lead(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return (
            "the lead of the best score: cards shed in a row, boodles taken or reached, long and unopened suits, "
            "low cards",
            {card: self.lead_score(view, card) for card in view.legal},
        )

    def why_discard(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return "discards its highest plain card (a boodle only when nothing else is left)", None

    def why_stake(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return "stakes on the boodle with the fewest chips", None

    def why_widow(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        return "keeps: a dealer who keeps sells the widow, and the high bid is paid to the dealer", None

    def why_buy(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        spread = scatter(view.hand, view.ace_high)
        limit = self.scatter_limit + SCATTER_EXCHANGE_MARGIN
        return f"buys only a scattered hand without a boodle: scatter {spread:.2f} against {limit:.2f}", None

    def why_bid(self, view: ObservationView) -> tuple[str, dict[int, float] | None]:
        spread = scatter(view.hand, view.ace_high)
        return (
            f"bids the minimum (2 at most) only for a scattered hand without a boodle: scatter {spread:.2f} "
            f"against {self.scatter_limit:.2f}",
            None,
        )

    def discard(self, view: ObservationView) -> int:
        """The highest plain card; a boodle only when nothing else is left."""
        boodles = K.boodle_mask(view)
        plain = [c for c in view.legal if not boodles >> c & 1] or view.legal
        return max(plain, key=lambda c: (order_key(c, view.ace_high), c))

    def stake(self, view: ObservationView) -> int:
        fewest = min(range(4), key=lambda b: (view.boodle_stacks[b], b))
        return A.stake_action(fewest)

    def wants_widow(self, view: ObservationView, limit: float) -> bool:
        return not holds_boodle(view) and scatter(view.hand, view.ace_high) > limit

    def widow(self, view: ObservationView) -> int:
        """Keep: in Michigan a dealer who keeps sells the widow, and the high bid is paid to the dealer."""
        return A.KEEP

    def buy(self, view: ObservationView) -> int:
        return A.EXCHANGE if self.wants_widow(view, self.scatter_limit + SCATTER_EXCHANGE_MARGIN) else A.KEEP

    def bid(self, view: ObservationView) -> int:
        cheapest = min(a for a in view.legal if a != A.PASS)
        if A.bid_amount(cheapest) <= 2 and self.wants_widow(view, self.scatter_limit):
            return cheapest
        return A.PASS


__all__ = ["GreedyPolicy", "scatter", "holds_boodle"]

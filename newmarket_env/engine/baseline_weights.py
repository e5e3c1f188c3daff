"""Numbers chosen, not given by the rules: the weights of the rule-based baselines.

Declared once for the Python code and the compiled code: the baseline agents
(``agents/greedy.py``, ``agents/control.py``, ``agents/hand_value.py``) read them
here, and the compiled copies of those agents read them from here when the
extension is imported, so a weight changed here changes both (the differential
tests in ``tests/batch/test_compiled_policies.py`` hold them to the same choices).
The module sits in the core, below the engine and the agents, because the
compiled baselines play seats of a ``TableBatch`` without ``newmarket_env.agents``.
"""

from __future__ import annotations

# greedy: a lead's score (GreedyPolicy.lead_score), higher is better.
GO_OUT = 100.0  # a lead that empties the hand wins the deal at once
LEAD_PER_CARD_SHED = 2.0  # each card of the run the lead sheds
LEAD_PER_BOODLE_REACHED = 0.5  # each boodle above the run's last card (a later lead may take it)
LEAD_PER_SUIT_CARD = 0.5  # each card held in the lead's suit
LEAD_UNOPENED_SUIT = 1.0  # nobody has played in the lead's suit yet
LEAD_PER_RANK = 0.05  # subtracted per step of the card's order: low cards first

# greedy: the widow.
SCATTER_LIMIT = 0.75  # exchange a hand above this scatter (the widow is a fresh random hand)
SCATTER_EXCHANGE_MARGIN = 0.1  # a plain exchange (no price) asks this much more scatter

# control: planned chains of leads.
CONTROL = 4.0  # value of getting the lead back
PLAN_DEPTH = 2  # further leads planned while the lead stays with us
STOP_LEAD_SHARE = 0.25  # a run that ends on a card others may hold: this share of greedy's lead score
EXCHANGE_MARGIN = 0.5  # a widow must beat its price by this much
AUCTION_VALUE = 8.0  # Michigan: a dealer who keeps sells the widow; the high bid is paid to the dealer

# control: a discard's score (ControlPolicy.discard_score), higher is a better discard.
DISCARD_BOODLE = -100.0  # a boodle card, only when nothing else is left
DISCARD_PER_RANK = 0.1  # per step of the card's order: high cards first
DISCARD_MAKES_STOP = 3.0  # the card below is held: it becomes a stop we alone know
DISCARD_OPENS_GAP = 1.5  # subtracted when the card above is held: it would need a lead of its own
DISCARD_ISOLATED = 1.0  # neither neighbour held: one entry point fewer

# hand_value: a rough chip value of a hand, and the widow sampled against it.
SEGMENT_COST = 1.0  # each separate run of the hand
STOP_VALUE = 1.0  # a run ending on a known stop: the lead comes back
CARD_COST = 0.25  # per card, times per_card_payment: cards left when another goes out
BOODLE_SHARE = 0.7  # a held boodle is usually, not always, played
WIDOW_SAMPLES = 24  # dead hands drawn to value the widow

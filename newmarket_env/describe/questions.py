"""The question a seat is asked, in words: one source for the terminal, the web and the pictures.

Front-end neutral: it reads the game and the rules only, so every front end (the terminal session, the
scene the web and the pictures draw) can ask the same question without importing another front end.
"""

from __future__ import annotations

from newmarket_env.describe.words import count_text
from newmarket_env.engine.types import Decision
from newmarket_env.game.rules import LeadRule


def question_text(game, seat: int, you: bool = True) -> str:
    """The question ``seat`` is asked now, with the rule that limits its choices (terminal and web); ``you``
    False asks it of the seat by its role, for someone watching the table."""
    rules, left = game.rules, game.pending_for(seat)
    if not you:
        return _watched_question(game, left)
    questions = {
        Decision.STAKE: f"Place a stake chip on a boodle ({left} to place).",
        Decision.DISCARD: f"Discard a card face down into the dead hand ({left} to discard).",
        Decision.WIDOW: "You are the dealer: keep your hand, or take the widow unseen.",
        Decision.BUY: (
            "You are the dealer: keep your hand, or buy the dead hand unseen for "
            f"{count_text(rules.widow_fee, 'chip')}."
        ),
        Decision.BID: "Auction for the widow: bid, or pass and be out of the auction.",
        Decision.LEAD: f"Your lead: {_lead_rule(game)}.",
    }
    return questions[game.decision]


def _watched_question(game, left: int) -> str:
    """The question of the seat to act, said about it: ``Lead: the lowest card of any suit held.``"""
    fee = game.rules.widow_fee
    rule = _lead_rule(game).replace("if you hold one", "if it holds one").replace("you hold", "held")
    rule = rule.replace("you must", "it must")
    questions = {
        Decision.STAKE: f"Stake: a chip on a boodle ({left} to place).",
        Decision.DISCARD: f"Discard: a card face down into the dead hand ({left} to discard).",
        Decision.WIDOW: "The dealer keeps the hand or takes the widow unseen.",
        Decision.BUY: f"The dealer keeps the hand or buys the dead hand unseen for {count_text(fee, 'chip')}.",
        Decision.BID: "Auction for the widow: bid, or pass and be out of the auction.",
        Decision.LEAD: f"Lead: {rule}.",
    }
    return questions[game.decision]


_LEAD_RULES = {
    LeadRule.LOWEST_ANY_SUIT: "the lowest card of any suit you hold",
    LeadRule.LOWEST_OTHER_SUIT: "the lowest card of a suit other than the one that stopped, if you hold one",
    LeadRule.LOWEST_OPPOSITE_COLOUR: "the lowest card of a suit of the other colour from the one that stopped",
    LeadRule.ANY_OPPOSITE_COLOUR: "any card of the other colour from the last card, but a boodle only if you must",
}


def _lead_rule(game) -> str:
    """The lead rule in force, so the offered cards make sense to a newcomer."""
    if not game.played:  # the first lead of a deal
        return _LEAD_RULES[LeadRule.LOWEST_ANY_SUIT]
    return _LEAD_RULES[game.rules.lead_after_stop]


__all__ = ["question_text"]

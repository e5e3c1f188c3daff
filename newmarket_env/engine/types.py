"""The vocabulary of the engine: phases, decision kinds, errors."""

from __future__ import annotations

from enum import Enum


class Phase(str, Enum):
    """Where a deal stands; the order is the order of a deal."""

    STAKE = "stake"
    DISCARD = "discard"
    WIDOW = "widow"
    AUCTION = "auction"
    PLAY = "play"
    OVER = "over"  # the session has ended


PHASE_ORDER = tuple(Phase)


class Decision(str, Enum):
    """The kinds of choice a player can be asked to make."""

    STAKE = "stake"  # place one chip on a boodle (stake_mode="choose")
    DISCARD = "discard"  # put one card into the dead hand (Newbury)
    WIDOW = "widow"  # dealer: keep the hand or take the widow (Michigan)
    BUY = "buy"  # dealer: decline or buy the dead hand (dealer_buy)
    BID = "bid"  # auction: pass or bid
    LEAD = "lead"  # lead a card to start a sequence


DECISION_ORDER = tuple(Decision)


class IllegalActionError(ValueError):
    """An action that is not legal at this point; the game is left unchanged."""


class StopCause(str, Enum):
    TOP = "top"  # the card played was the top rank
    DEAD = "dead"  # the next card is in the dead hand
    REMOVED = "removed"  # the next card was removed from the deck
    PLAYED = "played"  # the next card was already played

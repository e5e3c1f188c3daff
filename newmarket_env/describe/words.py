"""Cards, hands, seats and choices in plain words, for people at a terminal or on the web page.

>>> from newmarket_env.game.rules import make_rules
>>> from newmarket_env.engine import Decision
>>> rules = make_rules("newmarket")
>>> choice_text(3, Decision.LEAD, rules)
'lead 4 of clubs (4C)'
>>> choice_text(75, Decision.STAKE, rules)
'stake a chip on AS'
>>> hand_lines(["KH", "2C", "AH", "TC"], ace_high=False)
['clubs     2 T', 'hearts    A K']
>>> hand_text(["KH", "2C", "AH", "TC"], ace_high=True)
'clubs 2 T | hearts K A'
>>> count_text(1, "chip"), count_text(0, "card"), count_text(-1, "chip")
('1 chip', '0 cards', '-1 chips')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from newmarket_env.engine.types import Decision
from newmarket_env.game import actions as A
from newmarket_env.game.cards import SUIT_NAMES, card_from_text, card_name, card_text
from newmarket_env.game.order import order_key
from newmarket_env.game.rules import Rules

# Verbs whose "you" form is not the third-person form minus its final "s".
_IRREGULAR = {"passes": "pass", "is": "are", "has": "have", "goes": "go"}


class Names:
    """How seats are called: ``you`` for the viewer (the person at the table), ``player_k`` or its label for
    everyone else. ``you=False`` keeps the viewer's own name: a session watched from one seat."""

    def __init__(
        self, num_players: int, viewer: int | None = None, labels: dict[int, str] | None = None, you: bool = True
    ) -> None:
        self.viewer = viewer
        self._labels = {s: f"player_{s}" for s in range(num_players)}
        self._labels.update(labels or {})
        self.person = viewer if you else None  # the seat addressed as "you", if any
        if self.person is not None:
            self._labels[self.person] = "you"

    def __call__(self, seat: int | None) -> str:
        return "nobody" if seat is None else self._labels[seat]

    def says(self, seat: int, verb: str) -> str:
        """``"player_2 leads"`` or ``"you lead"``: the subject and its verb agreeing."""
        if seat != self.person:
            return f"{self(seat)} {verb}"
        return f"you {_IRREGULAR.get(verb, verb[:-1] if verb.endswith('s') else verb)}"


def seat_labels(agents: Iterable[str | None] | None) -> dict[int, str]:
    """``{2: "player_2 (greedy)"}``: each seat named with the agent that sat there (a record's ``agents``)."""
    return {s: f"player_{s} ({name})" for s, name in enumerate(agents or []) if name}


def count_text(count: int, noun: str) -> str:
    """``1 chip``, ``4 chips``: the noun in the number the count needs."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def hand_lines(cards: Iterable[str | int], ace_high: bool) -> list[str]:
    """One line per suit, ranks in playing order (``T`` is the ten)."""
    ids = sorted(
        (c if isinstance(c, int) else card_from_text(c) for c in cards), key=lambda c: (c // 13, order_key(c, ace_high))
    )
    lines = []
    for suit, name in enumerate(SUIT_NAMES):
        ranks = [card_text(c)[0] for c in ids if c // 13 == suit]
        if ranks:
            lines.append(f"{name:<9} {' '.join(ranks)}")
    return lines


_STOP_WHY = {
    "top": "{card} is the top card",
    "dead": "{next} is in the dead hand",
    "removed": "{next} was taken out of the pack",
    "played": "{next} was played already",
}


def stop_reason(stop: Mapping[str, Any]) -> str:
    """Why a run stopped, from its ``stop`` event: ``"6C is in the dead hand"``."""
    return _STOP_WHY[stop["cause"]].format(card=stop["card"], next=stop["next"])


def hand_text(cards: Iterable[str | int], ace_high: bool) -> str:
    """A hand on one line: ``clubs 2 T | hearts A K``."""
    return " | ".join(" ".join(line.split()) for line in hand_lines(cards, ace_high)) or "(no cards)"


def boodle_text(rules: Rules, boodle: int) -> str:
    return rules.boodles[boodle]


def choice_text(action: int, decision: Decision, rules: Rules) -> str:
    """What taking ``action`` at ``decision`` means, in words."""
    if A.is_card(action):
        verb = "discard" if decision is Decision.DISCARD else "lead"
        return f"{verb} {card_name(action)} ({card_text(action)})"
    if A.is_stake(action):
        return f"stake a chip on {boodle_text(rules, action - A.STAKE_BASE)}"
    if A.is_bid(action):
        return f"bid {A.bid_amount(action)}"
    if action == A.PASS:
        return "pass"
    return _widow_choice_text(action, decision, rules)


def _widow_choice_text(action: int, decision: Decision, rules: Rules) -> str:
    if decision is Decision.BUY:
        return "keep your hand" if action == A.KEEP else f"buy the dead hand for {count_text(rules.widow_fee, 'chip')}"
    return "keep your hand" if action == A.KEEP else "take the widow"

"""Tells a live session's record as it grows: new events, deal headers, chips after each deal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from newmarket_env.describe.events import chips_line, describe_events
from newmarket_env.describe.summary import deal_summary, hands_left, summary_lines
from newmarket_env.describe.words import Names, hand_text
from newmarket_env.game.rules import Rules


def deal_header(index: int, deal: Mapping[str, Any], rules: Rules, names: Names) -> str:
    eldest = (deal["dealer"] + 1) % rules.num_players
    return f"==== deal {index + 1} of {rules.num_deals} ==== dealer: {names(deal['dealer'])}, eldest: {names(eldest)}"


def deal_footer(index: int, chips: Sequence[int], before: Sequence[int], names: Names) -> str:
    return f"chips after deal {index + 1}: {chips_line(chips, before, names)}"


class RecordFeed:
    """Reads ``deals`` (a record's list, possibly still growing) from where it left off.

    With a viewer in ``names``, that seat's hand is told once the cards are dealt; with no
    viewer and ``reveal``, every hand and the dead hand are.
    """

    def __init__(self, deals: Sequence[Mapping[str, Any]], rules: Rules, names: Names, reveal: bool = False) -> None:
        self.deals, self.rules, self.names, self.reveal = deals, rules, names, reveal
        self._deal, self._event, self._headed, self._hand_told = 0, 0, False, False
        self._chips_before = [rules.starting_chips] * rules.num_players

    def new_lines(self, to_deal_end: bool = False) -> list[str]:
        """Lines for everything recorded since the last call (``to_deal_end``: only up to the end of the
        first deal that finished since then, so its result is read before the next deal is told)."""
        lines: list[str] = []
        while self._deal < len(self.deals):
            deal = self.deals[self._deal]
            if not self._headed:
                lines.append(deal_header(self._deal, deal, self.rules, self.names))
                self._headed = True
            lines.extend(self._deal_events(deal))
            if not deal["chips"]:  # the deal is still being played
                break
            summary = deal_summary(self.deals, self._deal, self.rules)
            lines += summary_lines(summary, self.rules, self.names, self.reveal)
            lines += [deal_footer(self._deal, deal["chips"], self._chips_before, self.names), ""]
            self._chips_before = list(deal["chips"])
            self._deal, self._event, self._headed, self._hand_told = self._deal + 1, 0, False, False
            if to_deal_end:
                break
        return lines

    def _deal_events(self, deal: Mapping[str, Any]) -> list[str]:
        """New events of ``deal``; the viewer's hand goes in after the stakes, when it is dealt."""
        first = self._event
        events = deal["events"][first:]
        self._event += len(events)
        viewer = self.names.viewer
        if (viewer is None and not self.reveal) or self._hand_told or not deal["hands"]:
            return self._told(deal, first, events)
        stakes = 0
        while stakes < len(events) and events[stakes]["type"] == "stake":
            stakes += 1
        self._hand_told = True
        if viewer is None:  # watching with every hand shown: all hands and the dead hand, as dealt
            hands = [f"{self.names(s)} holds {hand_text(h, self.rules.ace_high)}" for s, h in enumerate(deal["hands"])]
            if deal["dead"]:
                hands.append(f"dead hand {hand_text(deal['dead'], self.rules.ace_high)}")
        else:
            whose = "your" if self.names.person == viewer else f"{self.names(viewer)}'s"
            hands = [f"{whose} hand as dealt: " + hand_text(deal["hands"][viewer], self.rules.ace_high)]
        return (
            describe_events(events[:stakes], self.rules, self.names, self.reveal)
            + hands
            + self._told(deal, first + stakes, events[stakes:])
        )

    def _told(self, deal: Mapping[str, Any], first: int, events: list[Any]) -> list[str]:
        """``events`` (from index ``first`` of the deal) in words; after a widow exchange, the new hand of
        the seat that took it, told to that seat (or to everyone when every hand is shown)."""
        lines: list[str] = []
        start = 0
        for k, event in enumerate(events):
            if event["type"] == "widow" and event["choice"] in ("exchange", "buy"):
                seat = event["seat"]
                lines += self._describe(deal, first + start, events[start : k + 1])
                start = k + 1
                if self.reveal or seat == self.names.viewer:
                    hands, _ = hands_left({**deal, "events": deal["events"][: first + k + 1]})
                    whose = "your" if seat == self.names.person else f"{self.names(seat)}'s"
                    lines.append(f"{whose} hand now: {hand_text(hands[seat], self.rules.ace_high)}")
        return lines + self._describe(deal, first + start, events[start:])

    def _describe(self, deal: Mapping[str, Any], first: int, events: list[Any]) -> list[str]:
        previous = deal["events"][first - 1] if first else None
        return describe_events(events, self.rules, self.names, self.reveal, previous)

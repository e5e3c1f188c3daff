"""An independent auditor of session records: re-derives every chip and card move from docs/rules.md.

It reads only a record (docs/contract.md; the events as declared in
``newmarket_env.engine.events``, one ``on_<type>`` method per event type) and
the rules, tracks hands, the dead
hand, balances, boodle stacks and the pot event by event, and fails on any
event the rules do not allow: a stake of the wrong size or order, a bid out of
turn, a boodle or pot paid with the wrong amount, a card payment that does not
match the cards left, balances that differ from the recorded chips.
"""

from __future__ import annotations

from typing import Any

from newmarket_env.engine.events import (
    AuctionEndEvent,
    BidEvent,
    BlockedEvent,
    BoodleEvent,
    DiscardEvent,
    LeftoverEvent,
    OutEvent,
    PassEvent,
    PaymentEvent,
    PlayEvent,
    PotEvent,
    StakeEvent,
    StopEvent,
    WidowEvent,
)
from newmarket_env.game.rules import Rules, StakeMode


class Auditor:
    """Replays one record's events against the rules; call :meth:`session`."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.n = rules.num_players
        self.balances = [rules.starting_chips] * self.n
        self.stacks = [0, 0, 0, 0]
        self.pot = 0

    def session(self, record: dict[str, Any]) -> None:
        deals = record["deals"]
        for k, deal in enumerate(deals):
            if k and deal["dealer"] != (deals[k - 1]["dealer"] + 1) % self.n:
                raise AssertionError(f"deal {k}: dealer {deal['dealer']} is not left of the last dealer")
            self.deal(deal, last=k == len(deals) - 1)
            assert self.balances == deal["chips"], f"deal {k}: balances {self.balances} != chips {deal['chips']}"

    def deal(self, deal: dict[str, Any], last: bool) -> None:
        self.dealer = deal["dealer"]
        self.hands = [set(h) for h in deal["hands"]]
        self.dead = set(deal["dead"])
        self.winner = None
        self.auction: dict[str, Any] | None = None
        events = deal["events"]
        self.check_stakes([e for e in events if e["type"] == "stake"])
        for i, event in enumerate(events):
            getattr(self, "on_" + event["type"])(event, events[i - 1] if i else None)
        if self.winner is not None:
            self.check_card_payments([e for e in events if e.get("reason") == "cards"])
        kinds = {e["type"] for e in events}
        assert "leftover" not in kinds or last, "leftovers settled before the last deal"
        if last:
            assert self.stacks == [0, 0, 0, 0] and self.pot == 0, "chips left on the table after the session"

    # ---------------------------------------------------------------- stakes
    def order(self) -> list[int]:
        return [(self.dealer + 1 + k) % self.n for k in range(self.n)]

    def mult(self, seat: int) -> int:
        return self.rules.dealer_stake_multiplier if seat == self.dealer else 1

    def expected_stakes(self) -> list[tuple]:
        """(seat, target, boodle, amount) of the stakes docs/rules.md step 1 asks for, zero amounts left out."""
        r = self.rules
        if r.stake_mode is StakeMode.HOUSE:
            rows = [(None, "pot", None, r.house_pot)] + [(None, "boodle", b, r.house_boodle) for b in range(4)]
            return [row for row in rows if row[3]]
        rows = [(s, "pot", None, r.pot_ante * self.mult(s)) for s in self.order() if r.pot_ante]
        for seat in self.order():
            if r.stake_mode is StakeMode.CHOOSE:
                rows += [(seat, "boodle", "any", self.mult(seat))] * r.boodle_stake
                continue
            split = (
                [r.boodle_stake] * 4
                if r.stake_mode is StakeMode.EACH
                else [r.boodle_stake // 4 + (b < r.boodle_stake % 4) for b in range(4)]
            )
            rows += [(seat, "boodle", b, split[b] * self.mult(seat)) for b in range(4) if split[b]]
        return rows

    def check_stakes(self, stakes: list[StakeEvent]) -> None:
        got = [(e["seat"], e["target"], e.get("boodle"), e["amount"]) for e in stakes if e["amount"]]
        want = self.expected_stakes()
        got = [g if w[2] != "any" else (g[0], g[1], "any", g[3]) for g, w in zip(got, want, strict=False)] + got[
            len(want) :
        ]
        assert got == want, f"stakes {got} != {want}"

    def on_stake(self, e: StakeEvent, _prev) -> None:
        if e["seat"] is not None:
            self.balances[e["seat"]] -= e["amount"]
        if e["target"] == "pot":
            self.pot += e["amount"]
        else:
            self.stacks[e["boodle"]] += e["amount"]

    # ---------------------------------------------------------------- cards before play
    def on_discard(self, e: DiscardEvent, _prev) -> None:
        self.hands[e["seat"]].remove(e["card"])
        self.dead.add(e["card"])

    def on_widow(self, e: WidowEvent, _prev) -> None:
        seat, choice = e["seat"], e["choice"]
        if choice in ("keep", "decline"):
            assert seat == self.dealer
            if choice == "keep":
                self.auction = {
                    "in": set(range(self.n)) - {seat},
                    "cursor": (seat + 1) % self.n,
                    "high": 0,
                    "bidder": None,
                }
            return
        self.hands[seat], self.dead = self.dead, self.hands[seat]

    # ---------------------------------------------------------------- the auction
    def next_bidder(self) -> int:
        a, seat = self.auction, self.auction["cursor"]
        while seat not in a["in"] or seat == a["bidder"]:
            seat = (seat + 1) % self.n
        return seat

    def auction_over(self) -> bool:
        left = self.auction["in"]
        return not left or left == {self.auction["bidder"]}

    def on_bid(self, e: BidEvent, _prev) -> None:
        a = self.auction
        assert not self.auction_over() and e["seat"] == self.next_bidder(), f"bid out of turn: {e}"
        assert max(self.rules.min_bid, a["high"] + 1) <= e["amount"] <= self.rules.max_bid, f"bad bid {e}"
        a.update(high=e["amount"], bidder=e["seat"], cursor=(e["seat"] + 1) % self.n)

    def on_pass(self, e: PassEvent, _prev) -> None:
        assert not self.auction_over() and e["seat"] == self.next_bidder(), f"pass out of turn: {e}"
        self.auction["in"].discard(e["seat"])
        self.auction["cursor"] = (e["seat"] + 1) % self.n

    def on_auction_end(self, e: AuctionEndEvent, _prev) -> None:
        assert self.auction_over() and self.auction["bidder"] is None

    # ---------------------------------------------------------------- play and settlement
    def on_play(self, e: PlayEvent, _prev) -> None:
        assert self.winner is None, "a card was played after the deal was won"
        self.hands[e["seat"]].remove(e["card"])

    def on_boodle(self, e: BoodleEvent, prev) -> None:
        assert prev == {**prev, "type": "play", "seat": e["seat"], "card": e["card"]}
        assert self.rules.boodles[e["boodle"]] == e["card"] and e["amount"] == self.stacks[e["boodle"]]
        self.balances[e["seat"]] += e["amount"]
        self.stacks[e["boodle"]] = 0

    def on_out(self, e: OutEvent, _prev) -> None:
        assert not self.hands[e["seat"]], "out with cards in hand"
        self.winner = e["seat"]

    def on_pot(self, e: PotEvent, _prev) -> None:
        assert e["seat"] == self.winner and e["amount"] == self.pot
        self.balances[e["seat"]] += self.pot
        self.pot = 0

    def on_payment(self, e: PaymentEvent, _prev) -> None:
        if e["reason"] == "bid":
            a = self.auction
            assert self.auction_over() and (e["from"], e["to"], e["amount"]) == (a["bidder"], self.dealer, a["high"])
        elif e["reason"] == "widow_fee":
            assert (e["from"], e["to"], e["amount"]) == (self.dealer, "pot", self.rules.widow_fee)
        self.balances[e["from"]] -= e["amount"]
        if e["to"] == "pot":
            self.pot += e["amount"]
        else:
            self.balances[e["to"]] += e["amount"]

    def check_card_payments(self, payments: list[PaymentEvent]) -> None:
        owed = {s: self.rules.per_card_payment * len(self.hands[s]) for s in range(self.n) if s != self.winner}
        got = {p["from"]: p["amount"] for p in payments if p["to"] == self.winner}
        assert got == {s: v for s, v in owed.items() if v} and len(payments) == len(got)
        assert self.pot == 0, "the winner did not take the pot"

    def on_stop(self, e: StopEvent, _prev) -> None:
        pass

    def on_blocked(self, e: BlockedEvent, _prev) -> None:
        pass

    def on_leftover(self, e: LeftoverEvent, _prev) -> None:
        stack = self.pot if e["stack"] == "pot" else self.stacks[e["boodle"]]
        assert e["amount"] == stack and (e["seat"] is None) == (self.rules.leftover.value == "vanish")
        if e["seat"] is not None:
            self.balances[e["seat"]] += stack
        if e["stack"] == "pot":
            self.pot = 0
        else:
            self.stacks[e["boodle"]] = 0

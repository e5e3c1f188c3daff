"""A session of ``num_deals`` deals as an explicit, copyable state machine.

The game advances by itself through everything that is not a choice (stakes
that are not chosen, the deal, every follow of a run, stops, boodles,
payments) and halts at each decision: ``to_act`` is the seat to decide,
``decision`` its kind and ``legal`` the legal action ids. A decision with a
single legal action is taken automatically (and recorded like any other)
unless ``present_forced=True``.

>>> from newmarket_env.game.rules import make_rules
>>> g = Game(make_rules("newmarket"), seed=3)
>>> while not g.over:
...     g.apply(g.legal[0])
>>> sum(g.balances) + g.pot + sum(g.boodle_stacks) == 4 * 40
True
"""

from __future__ import annotations

import copy
import numbers
import random
from collections.abc import Mapping, Sequence
from typing import Any

from newmarket_env.engine.dealing import DealtCards, parse_deal, shuffled_deal
from newmarket_env.engine.events import (
    DealRecord,
    Event,
    LeftoverEvent,
    PlayEvent,
    StakeEvent,
    StakeTarget,
    StopCauseText,
)
from newmarket_env.engine.leads import lowest_any_suit, lowest_club_holder, options_after_stop
from newmarket_env.engine.types import Decision, IllegalActionError, Phase, StopCause
from newmarket_env.game import actions as A
from newmarket_env.game.cards import CARD_TEXTS as CARD_TEXT
from newmarket_env.game.cards import cards_of, cards_to_text
from newmarket_env.game.order import next_table
from newmarket_env.game.rules import DeadHand, FirstLead, Leftover, Rules, StakeMode, Widow

NOBODY = -1  # owner of a card that no seat holds (dead, removed, played)


class Game:
    """One session. Read the attributes; change the state only through :meth:`apply`."""

    # Set at every deal (_start_deal) and decision (_ask); declared for type checkers (engine/protocol.py).
    to_act: int
    decision: Decision | None
    legal: list[int]
    _dealt: DealtCards | None

    def __init__(
        self,
        rules: Rules,
        seed: int | None = None,
        deals: Sequence[Mapping[str, Any] | DealtCards] = (),
        present_forced: bool = False,
        record_events: bool = True,
        lots: Sequence[int] = (),
        rng: random.Random | None = None,
    ) -> None:
        self.rules = rules
        self.n = rules.num_players
        self.present_forced = present_forced
        self.record_events = record_events
        # ``rng`` (instead of ``seed``) continues a given generator: the compiled engine's replay uses it.
        self.rng = rng if rng is not None else random.Random(seed)
        if len(deals) > rules.num_deals:
            raise ValueError(
                f"{len(deals)} deals given but the session has num_deals={rules.num_deals}; "
                f"give at most {rules.num_deals} (or raise num_deals)"
            )
        self._queued_deals = [d if isinstance(d, DealtCards) else parse_deal(rules, d, i) for i, d in enumerate(deals)]
        self._queued_lots = list(lots)
        self._next = next_table(rules.ace_high)
        self.boodle_cards = rules.boodle_cards  # card ids in layout order
        self._boodle_of = {card: i for i, card in enumerate(self.boodle_cards)}
        self._boodle_mask = sum(1 << c for c in self.boodle_cards)
        self._removed = rules.removed_mask

        self.balances = [rules.starting_chips] * self.n
        self.boodle_stacks = [0, 0, 0, 0]
        self.pot = 0
        self.deal_index = 0
        self.dealer = self._queued_deals[0].dealer if self._queued_deals else 0
        self.deals: list[DealRecord] = []  # the record, one dict per deal
        self.over = False
        self._start_deal()
        self._advance()

    # ------------------------------------------------------------------ queries
    @property
    def eldest(self) -> int:
        return (self.dealer + 1) % self.n

    @property
    def hand_sizes(self) -> list[int]:
        return [h.bit_count() for h in self.hands]

    def pending_for(self, seat: int) -> int:
        """Stake chips or discards ``seat`` still has to place in this deal."""
        return self._pending_stakes.count(seat) + self._pending_discards.count(seat)

    def copy(self) -> Game:
        """An independent copy (events are copied too when they are recorded)."""
        clone = copy.copy(self)
        for name in (
            "balances",
            "boodle_stacks",
            "hands",
            "known_dead",
            "played_by",
            "owner",
            "legal",
            "in_auction",
            "_queued_deals",
            "_queued_lots",
            "_pending_stakes",
            "_pending_discards",
        ):
            setattr(clone, name, list(getattr(self, name)))
        clone.rng = random.Random()
        clone.rng.setstate(self.rng.getstate())
        if self.record_events:
            clone.deals = copy.deepcopy(self.deals)
            clone.events = clone.deals[-1]["events"] if clone.deals else []
        return clone

    # ------------------------------------------------------------------ a position, rebuilt
    @classmethod
    def at_position(
        cls, position: Any, hands: Sequence[int], dead: int, seed: int | None = None, plain_next_deal: bool = False
    ) -> Game:
        """A game standing at ``position`` whose seats hold ``hands`` and whose dead hand is ``dead``.

        ``hands`` gives every seat's current cards (the viewer's own and guesses
        for the others); nothing is checked beyond the deck being partitioned. In
        the stake phase nothing is dealt yet: give empty hands and dead hand, and
        the deal is shuffled from ``seed`` when the stakes are in.

        ``plain_next_deal=True`` queues an unshuffled deal (the current cards, as
        they were) for the next deal, for a caller that stops at this deal's end
        and would only waste a shuffle.
        """
        _check_partition(position, hands, dead)
        game = cls(position.rules, seed=seed, record_events=False)
        _set_position_table(game, position)
        _set_position_cards(game, position, hands, dead)
        _set_position_decision(game, position)
        if plain_next_deal and position.phase is not Phase.STAKE:
            game._queued_deals = [_placeholder_deal(game, position)]
        return game

    def with_hidden_cards(self, position: Any, hands: Sequence[int], dead: int) -> Game:
        """A copy of a game made by :meth:`at_position` with other hidden cards (cheaper than a new one)."""
        _check_partition(position, hands, dead)
        clone = self.copy()
        _set_position_cards(clone, position, hands, dead)
        return clone

    # ------------------------------------------------------------------ acting
    def apply(self, action: int) -> None:
        """Take ``action`` for the seat ``to_act``; raises :class:`IllegalActionError` if illegal."""
        if self.over:
            raise IllegalActionError("the session is over; no action is legal (call reset)")
        # numpy ints are ids too; floats and bools are not, even when they compare equal to one.
        is_id = isinstance(action, numbers.Integral) and not isinstance(action, bool)
        if not is_id or action not in self.legal:
            names = ", ".join(f"{a} ({A.action_text(a)})" for a in self.legal)
            shown = A.action_text(int(action)) if is_id and 0 <= action < A.NUM_ACTIONS else "not an action id"
            raise IllegalActionError(
                f"action {action!r} ({shown}) is not legal for seat {self.to_act} deciding "
                f"{self.decision.value}; legal actions: {names}"  # type: ignore[union-attr]  # one is pending
            )
        self._take(int(action))
        self._advance()

    def _take(self, action: int) -> None:
        decision = self.decision
        seat = self.to_act
        self.decision = None
        self.legal = []
        self.to_act = NOBODY
        _HANDLERS[decision](self, seat, action)  # type: ignore[index]  # taken only while one is pending

    def _ask(self, seat: int, decision: Decision, legal: list[int]) -> None:
        self.to_act, self.decision, self.legal = seat, decision, legal

    def _advance(self) -> None:
        """Run automatic steps until a real decision is pending or the session is over."""
        while not self.over:
            if self.decision is not None:
                if len(self.legal) > 1 or self.present_forced:
                    return
                self._take(self.legal[0])
                continue
            self._step_phase()

    def _step_phase(self) -> None:
        """Move the deal on by one automatic step when no decision is pending."""
        if self.phase is Phase.STAKE:
            if self._pending_stakes:
                self._ask_stake()
            else:
                self._deal_cards()
        elif self.phase is Phase.DISCARD:
            if self._pending_discards:
                self._ask_discard()
            else:
                self._start_widow()
        elif self.phase is Phase.AUCTION:
            self._auction_next()
        elif self.phase is Phase.PLAY:
            self._first_lead()

    def _log(self, event: Event) -> None:
        """Record ``event`` (declared in engine/events.py; its keys in the declared order)."""
        if self.record_events:
            self.events.append(event)

    # ------------------------------------------------------------------ a deal begins
    def _start_deal(self) -> None:
        if self._queued_deals:
            self._dealt = self._queued_deals.pop(0)
            self.dealer = self._dealt.dealer
        else:
            self._dealt = None  # shuffled when the stakes are in
        self.hands = [0] * self.n
        self.dead = 0
        self.played = 0
        self.public_dead = self._removed
        self.known_dead = [0] * self.n  # private: own discards, former hand after an exchange
        self.played_by = [NOBODY] * 52
        self.owner = [NOBODY] * 52
        self.last_played: int | None = None  # the last card played this deal
        self.to_act, self.decision, self.legal = NOBODY, None, []
        self.in_auction: list[bool] = []
        self.high_bid, self.high_bidder = 0, NOBODY
        self.widow_taker = NOBODY  # public: who exchanged hands with the widow this deal
        self._auction_cursor = NOBODY
        self._pending_stakes: list[int] = []
        self._pending_discards: list[int] = []
        self.events: list[Event] = []
        if self.record_events:
            self.deals.append({"dealer": self.dealer, "hands": [], "dead": [], "events": self.events, "chips": []})
        self.phase = Phase.STAKE
        self._automatic_stakes()

    def _automatic_stakes(self) -> None:
        rules = self.rules
        if rules.stake_mode is StakeMode.HOUSE:
            self.pot += rules.house_pot
            self._log({"type": "stake", "seat": None, "target": "pot", "amount": rules.house_pot})
            for b in range(4):
                self.boodle_stacks[b] += rules.house_boodle
                self._log(
                    {"type": "stake", "seat": None, "target": "boodle", "boodle": b, "amount": rules.house_boodle}
                )
            return
        order = [(self.eldest + k) % self.n for k in range(self.n)]
        for seat in order:
            mult = self._multiplier(seat)
            if rules.pot_ante:
                self._pay_stake(seat, None, rules.pot_ante * mult)
        if rules.stake_mode is StakeMode.CHOOSE:
            for seat in order:
                self._pending_stakes.extend([seat] * rules.boodle_stake)
            return
        split = self._stake_split()
        for seat in order:
            mult = self._multiplier(seat)
            for b, amount in enumerate(split):
                if amount:
                    self._pay_stake(seat, b, amount * mult)

    def _stake_split(self) -> list[int]:
        stake = self.rules.boodle_stake
        if self.rules.stake_mode is StakeMode.EACH:
            return [stake] * 4
        base, extra = divmod(stake, 4)  # SPREAD: extra chips on the first boodles of the layout
        return [base + (1 if b < extra else 0) for b in range(4)]

    def _multiplier(self, seat: int) -> int:
        return self.rules.dealer_stake_multiplier if seat == self.dealer else 1

    def _pay_stake(self, seat: int, boodle: int | None, amount: int, action: int | None = None) -> None:
        self.balances[seat] -= amount
        if boodle is None:
            self.pot += amount
            self._log({"type": "stake", "seat": seat, "target": "pot", "amount": amount})
            return
        self.boodle_stacks[boodle] += amount
        if self.record_events:
            event: StakeEvent = {"type": "stake", "seat": seat, "target": "boodle", "boodle": boodle, "amount": amount}
            if action is not None:
                event["action"] = action
            self.events.append(event)

    def _ask_stake(self) -> None:
        self._ask(self._pending_stakes[0], Decision.STAKE, [A.stake_action(b) for b in range(4)])

    def _on_stake(self, seat: int, action: int) -> None:
        self._pending_stakes.pop(0)
        self._pay_stake(seat, action - A.STAKE_BASE, self._multiplier(seat), action)

    # ------------------------------------------------------------------ the cards
    def _deal_cards(self) -> None:
        dealt = self._dealt or shuffled_deal(self.rules, self.dealer, self.rng)
        self.hands = list(dealt.hands)
        self.dead = dealt.dead
        for seat, hand in enumerate(self.hands):
            self._set_owner(hand, seat)
        if self.record_events:
            self.deals[-1]["hands"] = [cards_to_text(h) for h in dealt.hands]
            self.deals[-1]["dead"] = cards_to_text(dealt.dead)
        self.phase = Phase.DISCARD
        if self.rules.dead_hand is DeadHand.DISCARD:
            for k in range(self.n):
                self._pending_discards.extend([(self.eldest + k) % self.n] * self.rules.discard_count)

    def _set_owner(self, mask: int, seat: int) -> None:
        owner = self.owner
        while mask:
            low = mask & -mask
            owner[low.bit_length() - 1] = seat
            mask ^= low

    def _ask_discard(self) -> None:
        seat = self._pending_discards[0]
        self._ask(seat, Decision.DISCARD, cards_of(self.hands[seat]))

    def _on_discard(self, seat: int, card: int) -> None:
        self._pending_discards.pop(0)
        self.hands[seat] &= ~(1 << card)
        self.dead |= 1 << card
        self.owner[card] = NOBODY
        self.known_dead[seat] |= 1 << card
        self._log({"type": "discard", "seat": seat, "card": CARD_TEXT[card], "action": card})

    # ------------------------------------------------------------------ the widow
    def _start_widow(self) -> None:
        widow = self.rules.widow
        self.phase = Phase.WIDOW
        if widow is Widow.DEALER_BUY:
            self._ask(self.dealer, Decision.BUY, [A.KEEP, A.EXCHANGE])
        elif widow is Widow.DEALER_OR_AUCTION:
            self._ask(self.dealer, Decision.WIDOW, [A.KEEP, A.EXCHANGE])
        else:
            self.phase = Phase.PLAY

    def _on_buy(self, seat: int, action: int) -> None:
        self.phase = Phase.PLAY
        if action == A.KEEP:
            self._log({"type": "widow", "seat": seat, "choice": "decline", "action": action})
            return
        fee = self.rules.widow_fee
        self._log({"type": "widow", "seat": seat, "choice": "buy", "action": action})
        self.balances[seat] -= fee
        self.pot += fee
        self._log({"type": "payment", "from": seat, "to": "pot", "amount": fee, "reason": "widow_fee"})
        self._exchange(seat)

    def _on_widow(self, seat: int, action: int) -> None:
        if action == A.EXCHANGE:
            self._log({"type": "widow", "seat": seat, "choice": "exchange", "action": action})
            self._exchange(seat)
            self.phase = Phase.PLAY
            return
        self._log({"type": "widow", "seat": seat, "choice": "keep", "action": action})
        self.phase = Phase.AUCTION
        self.in_auction = [seat != self.dealer for seat in range(self.n)]
        self._auction_cursor = self.eldest

    def _exchange(self, seat: int) -> None:
        old = self.hands[seat]
        self.hands[seat], self.dead = self.dead, old
        self._set_owner(old, NOBODY)
        self._set_owner(self.hands[seat], seat)
        self.known_dead[seat] |= old
        self.widow_taker = seat

    # ------------------------------------------------------------------ the auction
    def _auction_next(self) -> None:
        bidders = [s for s in range(self.n) if self.in_auction[s]]
        if not bidders or bidders == [self.high_bidder]:
            self._end_auction()
            return
        seat = self._auction_cursor
        while not self.in_auction[seat] or seat == self.high_bidder:
            seat = (seat + 1) % self.n
        self._auction_cursor = (seat + 1) % self.n
        low = max(self.rules.min_bid, self.high_bid + 1)
        self._ask(seat, Decision.BID, [A.PASS] + [A.bid_action(k) for k in range(low, self.rules.max_bid + 1)])

    def _on_bid(self, seat: int, action: int) -> None:
        if action == A.PASS:
            self.in_auction[seat] = False
            self._log({"type": "pass", "seat": seat, "action": action})
            return
        self.high_bid, self.high_bidder = A.bid_amount(action), seat
        self._log({"type": "bid", "seat": seat, "amount": self.high_bid, "action": action})

    def _end_auction(self) -> None:
        self.phase = Phase.PLAY
        if self.high_bidder == NOBODY:
            self._log({"type": "auction_end", "seat": None, "amount": 0})
            return
        bidder, bid = self.high_bidder, self.high_bid
        self.balances[bidder] -= bid
        self.balances[self.dealer] += bid
        self._log({"type": "payment", "from": bidder, "to": self.dealer, "amount": bid, "reason": "bid"})
        self._log({"type": "widow", "seat": bidder, "choice": "exchange"})
        self._exchange(bidder)

    # ------------------------------------------------------------------ play
    def _first_lead(self) -> None:
        """The first lead of the deal (phase PLAY with no run in progress yet)."""
        if self.rules.first_lead is FirstLead.LOWEST_CLUB:
            found = lowest_club_holder(self.hands)
            if found is not None:
                self._play_run(*found, lead=True)
                return
        seat = self.eldest
        self._ask(seat, Decision.LEAD, lowest_any_suit(self.hands[seat], self.rules.ace_high))

    def _on_lead(self, seat: int, card: int) -> None:
        self._play_run(seat, card, lead=True, action=card)

    def _play_run(self, seat: int, card: int, lead: bool, action: int | None = None) -> None:
        """Play ``card`` and every forced follow; then stop, or end the deal."""
        owner, nxt = self.owner, self._next
        while True:
            if self._play_card(seat, card, lead, action):
                return
            lead, action = False, None
            following = nxt[card]
            if following is None:
                self._stop(seat, card, None, StopCause.TOP)
                return
            holder = owner[following]
            if holder == NOBODY:
                self._stop(seat, card, following, self._stop_cause(following))
                return
            seat, card = holder, following

    def _play_card(self, seat: int, card: int, lead: bool, action: int | None) -> bool:
        """Play one card; True if it ended the deal."""
        bit = 1 << card
        hand = self.hands[seat] & ~bit
        self.hands[seat] = hand
        self.played |= bit
        self.played_by[card] = seat
        self.owner[card] = NOBODY
        self.last_played = card
        if self.record_events:
            event: PlayEvent = {"type": "play", "seat": seat, "card": CARD_TEXT[card], "lead": lead}
            if action is not None:
                event["action"] = action
            self.events.append(event)
        if bit & self._boodle_mask:
            self._take_boodle(seat, card)
        if not hand:
            self._go_out(seat)
            return True
        return False

    def _take_boodle(self, seat: int, card: int) -> None:
        boodle = self._boodle_of[card]
        amount = self.boodle_stacks[boodle]
        self.boodle_stacks[boodle] = 0
        self.balances[seat] += amount
        self._log({"type": "boodle", "seat": seat, "boodle": boodle, "card": CARD_TEXT[card], "amount": amount})

    def _stop_cause(self, card: int) -> StopCause:
        if self._removed >> card & 1:
            return StopCause.REMOVED
        if self.played >> card & 1:
            return StopCause.PLAYED
        return StopCause.DEAD

    def _stop(self, seat: int, card: int, following: int | None, cause: StopCause) -> None:
        if cause is StopCause.DEAD:
            # docs/rules.md: a stopping card not played is known dead (cause DEAD: ``following`` is that card)
            self.public_dead |= 1 << following  # type: ignore[operator]
        if self.record_events:
            self.events.append(
                {
                    "type": "stop",
                    "seat": seat,
                    "card": CARD_TEXT[card],
                    "next": None if following is None else CARD_TEXT[following],
                    "cause": _CAUSE_TEXT[cause],
                }
            )
        leader, options = options_after_stop(
            self.rules.lead_after_stop, self.hands, seat, card, self.rules.ace_high, self._boodle_mask
        )
        if leader is None:
            self._log({"type": "blocked", "seat": seat})
            self._end_deal()
            return
        self._ask(leader, Decision.LEAD, options)

    # ------------------------------------------------------------------ settlement
    def _go_out(self, winner: int) -> None:
        self._log({"type": "out", "seat": winner})
        if self.pot:
            self.balances[winner] += self.pot
            self._log({"type": "pot", "seat": winner, "amount": self.pot})
            self.pot = 0
        per_card = self.rules.per_card_payment
        for seat in range(self.n):
            owed = per_card * self.hands[seat].bit_count()
            if seat != winner and owed:
                self.balances[seat] -= owed
                self.balances[winner] += owed
                self._log({"type": "payment", "from": seat, "to": winner, "amount": owed, "reason": "cards"})
        self._end_deal()

    def _end_deal(self) -> None:
        self.deal_index += 1
        self.to_act, self.decision, self.legal = NOBODY, None, []
        last = self.deal_index >= self.rules.num_deals
        if last:
            self._settle_leftovers()
        if self.record_events:
            self.deals[-1]["chips"] = list(self.balances)
        if last:
            self.over = True
            self.phase = Phase.OVER
            return
        if not self._queued_deals:
            self.dealer = (self.dealer + 1) % self.n
        self._start_deal()

    def _settle_leftovers(self) -> None:
        stacks: list[tuple[StakeTarget, int | None, int]] = [("boodle", b, self.boodle_stacks[b]) for b in range(4)]
        stacks.append(("pot", None, self.pot))
        for stack, boodle, amount in stacks:
            if not amount:
                continue
            seat = None
            if self.rules.leftover is Leftover.LOT:
                seat = self._queued_lots.pop(0) if self._queued_lots else self.rng.randrange(self.n)
                self.balances[seat] += amount
            event: LeftoverEvent = {"type": "leftover", "stack": stack, "seat": seat, "amount": amount}
            if boodle is not None:
                event["boodle"] = boodle
            self._log(event)
        self.boodle_stacks = [0, 0, 0, 0]
        self.pot = 0


def _placeholder_deal(game: Game, position: Any) -> DealtCards:
    """Some valid deal for the next dealer: every card not removed, in seat order."""
    rules = position.rules
    deck = [c for c in range(52) if not rules.removed_mask >> c & 1]
    share = len(deck) // (rules.num_players + 1)
    hands = tuple(sum(1 << c for c in deck[i * share : (i + 1) * share]) for i in range(rules.num_players))
    dead = sum(1 << c for c in deck[rules.num_players * share :]) if rules.dead_hand is DeadHand.DEALT else 0
    if not dead and len(deck) > rules.num_players * share:  # no dead hand: the rest to the last seat
        hands = (*hands[:-1], hands[-1] | sum(1 << c for c in deck[rules.num_players * share :]))
    return DealtCards((game.dealer + 1) % game.n, hands, dead)


def _check_partition(position: Any, hands: Sequence[int], dead: int) -> None:
    rules = position.rules
    if len(hands) != rules.num_players:
        raise ValueError(f"hands must hold one mask per seat ({rules.num_players}); got {len(hands)}")
    if position.phase is Phase.STAKE:
        if dead or any(hands):
            raise ValueError("in the stake phase no card is dealt yet: hands and dead hand must be empty")
        return
    seen = dead | position.played | rules.removed_mask
    total = dead.bit_count() + position.played.bit_count() + rules.removed_mask.bit_count()
    for hand in hands:
        seen |= hand
        total += hand.bit_count()
    if seen != (1 << 52) - 1 or total != 52:
        raise ValueError("hands, dead hand, played and removed cards must split the deck exactly once")


def _set_position_table(game: Game, position: Any) -> None:
    """Chips, dealer and deal number: the state around the cards."""
    game.balances = list(position.balances)
    game.boodle_stacks = list(position.boodle_stacks)
    game.pot = position.pot
    game.dealer = position.dealer
    game.deal_index = position.deal_index
    game.over = False
    game._queued_deals, game._queued_lots, game._dealt = [], [], None
    game.events, game.deals = [], []


def _set_position_cards(game: Game, position: Any, hands: Sequence[int], dead: int) -> None:
    game.hands = list(hands)
    game.dead = dead
    game.played = position.played
    game.played_by = list(position.played_by)
    game.last_played = position.last_played
    game.public_dead = position.public_dead
    game.known_dead = [0] * game.n
    game.known_dead[position.viewer] = position.viewer_known_dead
    game.owner = [NOBODY] * 52
    for seat, hand in enumerate(hands):
        game._set_owner(hand, seat)


def _set_position_decision(game: Game, position: Any) -> None:
    """The pending decision and the queues that say who decides after the viewer."""
    n, viewer = game.n, position.viewer
    game.phase = position.phase
    game.to_act, game.decision, game.legal = viewer, position.decision, list(position.legal)
    game.high_bid, game.high_bidder = position.high_bid, position.high_bidder
    game.in_auction = list(position.in_auction)
    game.widow_taker = position.widow_taker
    game._auction_cursor = (viewer + 1) % n
    later = _seats_after(game, viewer)
    game._pending_stakes, game._pending_discards = [], []
    if position.decision is Decision.STAKE:
        game._pending_stakes = [viewer] * position.viewer_pending
        for seat in later:
            game._pending_stakes += [seat] * position.rules.boodle_stake
    elif position.decision is Decision.DISCARD:
        game._pending_discards = [viewer] * position.viewer_pending
        for seat in later:
            game._pending_discards += [seat] * position.rules.discard_count


def _seats_after(game: Game, viewer: int) -> list[int]:
    """Seats that decide after ``viewer`` in a round that goes eldest first, dealer last."""
    order = [(game.eldest + k) % game.n for k in range(game.n)]
    return order[order.index(viewer) + 1 :]


_CAUSE_TEXT: dict[StopCause, StopCauseText] = {
    cause: cause.value for cause in StopCause
}  # Enum .value is a slow descriptor

_HANDLERS = {
    Decision.STAKE: Game._on_stake,
    Decision.DISCARD: Game._on_discard,
    Decision.WIDOW: Game._on_widow,
    Decision.BUY: Game._on_buy,
    Decision.BID: Game._on_bid,
    Decision.LEAD: Game._on_lead,
}

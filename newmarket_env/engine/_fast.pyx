# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""``FastGame``: one session of the compiled engine (``_table.pyx``), as :class:`~newmarket_env.engine.game.Game`.

``FastGame`` plays exactly the sessions ``Game`` plays (``tests/engine/test_fast.py`` checks this
action by action on every preset). With ``record_events`` (the default, as for ``Game``) its table
keeps its own record, turned into the reference engine's dicts only when ``deals`` or ``events`` is
read, so a record needs no replay on the reference engine (``replayed()`` still gives that replay,
for checks). Tables of a batch and search's rollouts keep none.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from newmarket_env.engine._table cimport *

import numbers
import os
import random

from newmarket_env.game import actions as A
from newmarket_env.game.cards import CARD_TEXTS, cards_to_text
from newmarket_env.engine.dealing import DealtCards, parse_deal
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER, IllegalActionError



cdef class FastGame:
    """One session, as :class:`~newmarket_env.engine.game.Game` (same constructor, attributes and errors).

    The attributes are read-only: list-valued ones (``hands``, ``balances``,
    ``legal``, ...) are fresh lists at every read, so change the game only
    through :meth:`apply`, as with ``Game``.
    """


    def __init__(self, rules, seed=None, deals=(), present_forced=False, record_events=True, lots=()):
        self.rules = rules
        self.n = rules.num_players
        self.record_events = record_events
        if len(deals) > rules.num_deals:
            raise ValueError(f"{len(deals)} deals given but the session has num_deals={rules.num_deals}; "
                             f"give at most {rules.num_deals} (or raise num_deals)")
        self._given_deals = tuple(d if isinstance(d, DealtCards) else parse_deal(rules, d, i)
                                  for i, d in enumerate(deals))
        self._given_lots = tuple(lots)
        self.boodle_cards = tuple(rules.boodle_cards)
        load_rules(&self.r, rules)
        self._load_inputs()
        if seed is None:
            seed = int.from_bytes(os.urandom(16), "little")  # as unpredictable as Random()'s own seeding
        self._seed = seed
        seed_rng(&self.t.rng, seed)
        start_session(&self.t, &self.r, &self.inputs, &self.log, &self.record if record_events else NULL,
                      present_forced)

    cdef void _load_inputs(self) except *:
        """The given deals and lots as C arrays (read by the table as its deals and lots come)."""
        cdef int i, s
        self.inputs.n_deals, self.inputs.n_lots = len(self._given_deals), len(self._given_lots)
        self.inputs.deals = <GivenDeal *>calloc(self.inputs.n_deals + 1, sizeof(GivenDeal))
        self.inputs.lots = <int *>calloc(self.inputs.n_lots + 1, sizeof(int))
        if self.inputs.deals == NULL or self.inputs.lots == NULL:
            raise MemoryError()
        for i, dealt in enumerate(self._given_deals):
            self.inputs.deals[i].dealer = dealt.dealer
            for s in range(self.n):
                self.inputs.deals[i].hands[s] = dealt.hands[s]
            self.inputs.deals[i].dead = dealt.dead
        for i, seat in enumerate(self._given_lots):
            self.inputs.lots[i] = seat

    def __dealloc__(self):
        free(self.inputs.deals)
        free(self.inputs.lots)
        free(self.log.items)
        free(self.record.items)
        free(self.record.deals)

    @classmethod
    def at_position(cls, position, hands, dead, seed=None, plain_next_deal=False):
        """Game.at_position: a game standing at ``position`` whose seats hold ``hands`` and dead hand ``dead``.

        Made for play to the end of the deal (search rollouts): it keeps no
        record (``record_events`` is False) and cannot be pickled or replayed.
        """
        from newmarket_env.engine.game import _check_partition

        _check_partition(position, hands, dead)
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed={seed!r} is out of range; allowed: 0..2**64-1 or None")
        cdef Table blank
        cdef RuleCodes codes
        cdef uint64_t masks[MAX_SEATS]
        cdef int s
        load_rules(&codes, position.rules)
        memset(&blank, 0, sizeof(Table))
        cdef FastGame game = _game_around(position.rules, None, (), (), False, &codes, &blank)
        table_at(&game.t, &game.r, &game.inputs, position, seed)
        if not plain_next_deal:
            game.t.inputs = NULL   # the next deal is shuffled from the seed
        for s in range(game.n):
            masks[s] = hands[s]
        set_hidden_cards(&game.t, masks, dead)
        game.t.log = &game.log
        return game

    # ------------------------------------------------------------------ queries (Game's attributes)
    @property
    def present_forced(self):
        return bool(self.t.present_forced)

    @present_forced.setter
    def present_forced(self, value):
        self.t.present_forced = bool(value)

    @property
    def balances(self):
        return [self.t.balances[s] for s in range(self.n)]

    @property
    def boodle_stacks(self):
        return [self.t.boodle_stacks[b] for b in range(4)]

    @property
    def pot(self):
        return self.t.pot

    @property
    def deal_index(self):
        return self.t.deal_index

    @property
    def dealer(self):
        return self.t.dealer

    @property
    def eldest(self):
        return (self.t.dealer + 1) % self.n

    @property
    def over(self):
        return bool(self.t.over)

    @property
    def phase(self):
        return PHASE_ORDER[self.t.phase]

    @property
    def hands(self):
        return [self.t.hands[s] for s in range(self.n)]

    @property
    def hand_sizes(self):
        return [nm_popcount(self.t.hands[s]) for s in range(self.n)]

    @property
    def dead(self):
        return self.t.dead

    @property
    def played(self):
        return self.t.played

    @property
    def public_dead(self):
        return self.t.public_dead

    @property
    def known_dead(self):
        return [self.t.known_dead[s] for s in range(self.n)]

    @property
    def played_by(self):
        return [self.t.played_by[c] for c in range(NUM_CARDS)]

    @property
    def owner(self):
        return [self.t.owner[c] for c in range(NUM_CARDS)]

    @property
    def last_played(self):
        return None if self.t.last_played < 0 else self.t.last_played

    @property
    def to_act(self):
        return self.t.to_act

    @property
    def decision(self):
        return None if self.t.decision < 0 else DECISION_ORDER[self.t.decision]

    @property
    def legal(self):
        return [self.t.legal[i] for i in range(self.t.n_legal)]

    @property
    def in_auction(self):
        return [bool(self.t.in_auction[s]) for s in range(self.n)] if self.t.auction_open else []

    @property
    def high_bid(self):
        return self.t.high_bid

    @property
    def high_bidder(self):
        return self.t.high_bidder

    @property
    def widow_taker(self):
        return self.t.widow_taker

    def pending_for(self, int seat):
        """Stake chips or discards ``seat`` still has to place in this deal."""
        if not 0 <= seat < self.n:
            raise ValueError(f"seat={seat} is not a seat; allowed: 0..{self.n - 1}")
        return self.t.stakes.left[seat] + self.t.discards.left[seat]

    @property
    def taken(self):
        """Every action taken so far, forced ones included: with the inputs, the whole session."""
        return [self.log.items[i] for i in range(self.log.length)]

    @property
    def deals(self):
        """The record of every deal so far, as ``Game.deals`` (fresh dicts at every read)."""
        return [self._deal_record(d) for d in range(self.record.n_deals)] if self.record_events else []

    @property
    def events(self):
        """The events of the current deal, as ``Game.events``."""
        if not self.record_events or not self.record.n_deals:
            return []
        return self._deal_events(self.record.n_deals - 1)

    cdef list _deal_events(self, int d):
        cdef int end = self.record.deals[d + 1].first_event if d + 1 < self.record.n_deals else self.record.length
        return [_event_dict(&self.record.items[i]) for i in range(self.record.deals[d].first_event, end)]

    cdef dict _deal_record(self, int d):
        cdef DealMark *deal = &self.record.deals[d]
        return {
            "dealer": deal.dealer,
            "hands": [cards_to_text(deal.hands[s]) for s in range(self.n)] if deal.dealt else [],
            "dead": cards_to_text(deal.dead) if deal.dealt else [],
            "events": self._deal_events(d),
            "chips": [deal.chips[s] for s in range(self.n)] if deal.closed else [],
        }

    def replayed(self):
        """The reference :class:`Game` that took the same actions: the same state, with its events."""
        from newmarket_env.engine.game import Game

        rng = random.Random(self._seed)
        game = Game(self.rules, deals=list(self._given_deals), present_forced=True, record_events=True,
                    lots=list(self._given_lots), rng=rng)
        for action in self.taken:
            game.apply(action)
        game.present_forced = self.present_forced
        return game

    def copy(self):
        """An independent copy."""
        cdef FastGame clone = _game_around(self.rules, self._seed, self._given_deals, self._given_lots,
                                           self.record_events, &self.r, &self.t)
        clone.log.items = <int *>malloc((self.log.length + 64) * sizeof(int))
        if clone.log.items == NULL:
            raise MemoryError()
        memcpy(clone.log.items, self.log.items, self.log.length * sizeof(int))
        clone.log.length, clone.log.capacity = self.log.length, self.log.length + 64
        if self.record_events:
            _copy_record(&clone.record, &self.record)
        # The inputs as the table holds them, not as given: at_position's placeholder next deal is not
        # among the given deals (and a table that shuffles its next deal has none).
        _copy_inputs(&clone.inputs, &self.inputs)
        clone.t.inputs = NULL if self.t.inputs == NULL else &clone.inputs
        return clone

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()  # nothing mutable is shared: rules and given deals are frozen

    def __reduce__(self):
        """Pickled as its inputs and the actions it took; unpickling replays them."""
        return (_rebuild, (self.rules, self._seed, list(self._given_deals), list(self._given_lots), self.taken,
                           self.present_forced, self.record_events))

    # ------------------------------------------------------------------ acting
    def apply(self, action):
        """Take ``action`` for the seat ``to_act``; raises :class:`IllegalActionError` if illegal."""
        if self.t.over:
            raise IllegalActionError("the session is over; no action is legal (call reset)")
        # numpy ints are ids too; floats and bools are not, even when they compare equal to one.
        is_id = type(action) is int or (isinstance(action, numbers.Integral) and not isinstance(action, bool))
        if not is_id or not -1 < action < 1000 or not is_legal(&self.t, action):
            self._refuse(action, is_id)
        apply_action(&self.t, action)

    def _refuse(self, action, is_id):
        legal = self.legal
        names = ", ".join(f"{a} ({A.action_text(a)})" for a in legal)
        shown = A.action_text(int(action)) if is_id and 0 <= action < A.NUM_ACTIONS else "not an action id"
        raise IllegalActionError(
            f"action {action!r} ({shown}) is not legal for seat {self.to_act} deciding "
            f"{self.decision.value}; legal actions: {names}"
        )



cdef FastGame _game_around(rules, seed, tuple deals, tuple lots, bint record_events, const RuleCodes *codes,
                           const Table *table):
    """A FastGame holding copies of ``codes`` and ``table``, the table's pointers turned to its own rules,
    given deals and (empty) action log: copies, a batch's tables and positions all become games this way."""
    cdef FastGame game = FastGame.__new__(FastGame)
    game.rules, game.n, game.record_events = rules, rules.num_players, record_events
    game.boodle_cards, game._seed = tuple(rules.boodle_cards), seed
    game._given_deals, game._given_lots = deals, lots
    game.r = codes[0]
    game._load_inputs()
    game.t = table[0]
    game.t.r, game.t.inputs, game.t.log = &game.r, &game.inputs, &game.log
    game.t.events = &game.record if record_events else NULL
    return game


cdef void _copy_inputs(Inputs *to, const Inputs *source) except *:
    """``to`` (loaded by _game_around, so its arrays are freed here) becomes a copy of ``source``."""
    free(to.deals)
    free(to.lots)
    to.n_deals, to.n_lots = source.n_deals, source.n_lots
    to.deals = <GivenDeal *>malloc((source.n_deals + 1) * sizeof(GivenDeal))
    to.lots = <int *>malloc((source.n_lots + 1) * sizeof(int))
    if to.deals == NULL or to.lots == NULL:
        raise MemoryError()
    memcpy(to.deals, source.deals, source.n_deals * sizeof(GivenDeal))
    memcpy(to.lots, source.lots, source.n_lots * sizeof(int))


cdef void _copy_record(EventLog *to, const EventLog *source) except *:
    to.capacity, to.deal_capacity = source.length + 64, source.n_deals + 8
    to.items = <Event *>malloc(to.capacity * sizeof(Event))
    to.deals = <DealMark *>malloc(to.deal_capacity * sizeof(DealMark))
    if to.items == NULL or to.deals == NULL:
        raise MemoryError()
    memcpy(to.items, source.items, source.length * sizeof(Event))
    memcpy(to.deals, source.deals, source.n_deals * sizeof(DealMark))
    to.length, to.n_deals = source.length, source.n_deals


_WIDOW_CHOICES = ("decline", "buy", "exchange", "keep")   # WIDOW_DECLINE ... WIDOW_KEEP
_PAYMENT_REASONS = ("widow_fee", "bid", "cards")          # PAID_WIDOW_FEE ... PAID_CARDS
_STOP_CAUSES = ("top", "dead", "removed", "played")       # CAUSE_TOP ... CAUSE_PLAYED


cdef inline object _seat_or_none(int seat):
    return None if seat == NOBODY else seat


cdef dict _event_dict(const Event *e):
    """The reference engine's dict for ``e``: the same keys in the same order (records are compared as
    JSON text), an ``action`` key only on events a decision made."""
    cdef int kind = e.kind
    cdef dict event
    if kind == EV_STAKE:
        if e.a < 0:
            event = {"type": "stake", "seat": _seat_or_none(e.seat), "target": "pot", "amount": e.amount}
        else:
            event = {"type": "stake", "seat": _seat_or_none(e.seat), "target": "boodle", "boodle": e.a,
                     "amount": e.amount}
    elif kind == EV_DISCARD:
        event = {"type": "discard", "seat": e.seat, "card": CARD_TEXTS[e.a]}
    elif kind == EV_WIDOW:
        event = {"type": "widow", "seat": e.seat, "choice": _WIDOW_CHOICES[e.a]}
    elif kind == EV_PAYMENT:
        event = {"type": "payment", "from": e.seat, "to": "pot" if e.a < 0 else e.a, "amount": e.amount,
                 "reason": _PAYMENT_REASONS[e.b]}
    elif kind == EV_PASS:
        event = {"type": "pass", "seat": e.seat}
    elif kind == EV_BID:
        event = {"type": "bid", "seat": e.seat, "amount": e.amount}
    elif kind == EV_AUCTION_END:
        event = {"type": "auction_end", "seat": None, "amount": 0}
    elif kind == EV_PLAY:
        event = {"type": "play", "seat": e.seat, "card": CARD_TEXTS[e.a], "lead": bool(e.b)}
    elif kind == EV_BOODLE:
        event = {"type": "boodle", "seat": e.seat, "boodle": e.a, "card": CARD_TEXTS[e.b], "amount": e.amount}
    elif kind == EV_STOP:
        event = {"type": "stop", "seat": e.seat, "card": CARD_TEXTS[e.a],
                 "next": None if e.b < 0 else CARD_TEXTS[e.b], "cause": _STOP_CAUSES[e.c]}
    elif kind == EV_BLOCKED:
        event = {"type": "blocked", "seat": e.seat}
    elif kind == EV_OUT:
        event = {"type": "out", "seat": e.seat}
    elif kind == EV_POT:
        event = {"type": "pot", "seat": e.seat, "amount": e.amount}
    else:
        event = {"type": "leftover", "stack": "pot" if e.a < 0 else "boodle", "seat": _seat_or_none(e.seat),
                 "amount": e.amount}
        if e.a >= 0:
            event["boodle"] = e.a
    if e.action != NOBODY:
        event["action"] = e.action
    return event

def _rebuild(rules, seed, deals, lots, taken, present_forced, record_events):
    """The game that ``FastGame.__reduce__`` describes: the same inputs, the same actions replayed."""
    game = FastGame(rules, seed=seed, deals=deals, present_forced=True, record_events=record_events, lots=lots)
    for action in taken:
        game.apply(action)
    game.present_forced = present_forced
    return game



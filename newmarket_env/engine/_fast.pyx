# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled engine: the state machine of :mod:`newmarket_env.engine.game`, on C integers.

``FastGame`` plays exactly the sessions ``Game`` plays: the same rules, the same
decisions with the same legal actions in the same order, the same payments and,
for the same ``seed``, the same shuffles and lots (it runs Python's own Mersenne
Twister and shuffle on a copy of ``random.Random(seed)``'s state).
``tests/engine/test_fast.py`` checks this action by action on every preset.

``game.py`` stays the reference: read it for the rules. This file mirrors it
method by method (the same names) with the state in one C struct, so a step
is integer arithmetic on 52-bit masks instead of Python objects. It keeps no
event list; ``deals`` and ``events`` are rebuilt on demand by replaying the
taken actions on a reference ``Game`` (records, rendering and the terminal
game need them rarely, the training loop never).
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy, memset

import numbers
import os
import random

from newmarket_env import actions as A
from newmarket_env.engine.dealing import DEAD_SLOT, DealtCards, dealing_order, parse_deal, sorted_deck
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER, Decision, IllegalActionError, Phase
from newmarket_env.observation.layout import FLAT_SIZE, offsets
from newmarket_env.order import next_table
from newmarket_env.rules import (
    DeadHand, FirstLead, LeadRule, Leftover, StakeMode, Widow,
)

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    static inline int nm_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int nm_lowest(unsigned long long x) { return __builtin_ctzll(x); }
    #else
    static inline int nm_popcount(unsigned long long x) { int c = 0; while (x) { x &= x - 1; c++; } return c; }
    static inline int nm_lowest(unsigned long long x) { int i = 0; while (!(x & 1ULL)) { x >>= 1; i++; } return i; }
    #endif
    """
    int nm_popcount(unsigned long long x) nogil
    int nm_lowest(unsigned long long x) nogil   # index of the lowest set bit; x != 0

cdef enum:
    NOBODY = -1
    MAX_SEATS = 8
    NUM_CARDS = 52
    NUM_RANKS = 13
    MAX_LEGAL = 80
    MT_N = 624
    MT_M = 397
    # action ids (actions.py; CONTRACT.md)
    KEEP = 52
    EXCHANGE = 53
    PASS = 54
    BID_BASE = 55
    STAKE_BASE = 75
    # indices into PHASE_ORDER and DECISION_ORDER (types.py); checked at import below
    PH_STAKE = 0
    PH_DISCARD = 1
    PH_WIDOW = 2
    PH_AUCTION = 3
    PH_PLAY = 4
    PH_OVER = 5
    D_NONE = -1
    D_STAKE = 0
    D_DISCARD = 1
    D_WIDOW = 2
    D_BUY = 3
    D_BID = 4
    D_LEAD = 5

if [p.value for p in PHASE_ORDER] != ["stake", "discard", "widow", "auction", "play", "over"] or \
        [d.value for d in DECISION_ORDER] != ["stake", "discard", "widow", "buy", "bid", "lead"]:
    raise ImportError("engine/types.py changed its phases or decisions: update _fast.pyx to match")

cdef uint64_t SUIT_MASK = (1ULL << NUM_RANKS) - 1
cdef uint64_t RED_MASK = (SUIT_MASK << NUM_RANKS) | (SUIT_MASK << (2 * NUM_RANKS))   # diamonds, hearts
cdef uint64_t BLACK_MASK = SUIT_MASK | (SUIT_MASK << (3 * NUM_RANKS))                # clubs, spades

# Rule enums as small ints: their position in the enum (the order RULES.md lists them).
cdef int _code(value):
    return list(type(value)).index(value)

cdef int SM_CHOOSE = _code(StakeMode.CHOOSE), SM_EACH = _code(StakeMode.EACH), SM_HOUSE = _code(StakeMode.HOUSE)
cdef int DH_DISCARD = _code(DeadHand.DISCARD)
cdef int WI_NONE = _code(Widow.NONE), WI_BUY = _code(Widow.DEALER_BUY)
cdef int FL_LOWEST_CLUB = _code(FirstLead.LOWEST_CLUB)
cdef int LR_ANY_SUIT = _code(LeadRule.LOWEST_ANY_SUIT), LR_OTHER_SUIT = _code(LeadRule.LOWEST_OTHER_SUIT)
cdef int LR_OPPOSITE = _code(LeadRule.LOWEST_OPPOSITE_COLOUR)
cdef int LO_LOT = _code(Leftover.LOT)


cdef struct RuleCodes:
    int n, num_deals, starting_chips
    int stake_mode, pot_ante, boodle_stake, house_pot, house_boodle, dealer_multiplier
    int dead_hand, discard_count
    int widow, widow_fee, min_bid, max_bid
    int first_lead, lead_rule, per_card_payment, leftover, ace_high
    int boodle_cards[4]
    int boodle_of[NUM_CARDS]        # boodle index of a card, or -1
    int next_card[NUM_CARDS]        # the card that follows in a run, or -1 after the top rank
    uint64_t removed, boodle_mask
    int deck[NUM_CARDS]             # the cards in play, lowest id first: the deck before a shuffle
    int deck_size
    int deal_order[MAX_SEATS][MAX_SEATS + 1]   # dealing.dealing_order per dealer; -1: the dead hand
    int deal_slots


cdef struct SeatQueue:
    # Seats in turn order, each owing ``left[seat]`` more stake chips or discards
    # (the engine's ``_pending_stakes`` list [s0]*k + [s1]*k + ..., kept as counts).
    int order[MAX_SEATS]
    int left[MAX_SEATS]
    int length, head


cdef struct Table:
    long balances[MAX_SEATS]
    long boodle_stacks[4]
    long pot
    int deal_index, dealer, over, phase
    uint64_t hands[MAX_SEATS]
    uint64_t dead, played, public_dead
    uint64_t known_dead[MAX_SEATS]
    int played_by[NUM_CARDS]
    int owner[NUM_CARDS]
    int last_played
    int to_act, decision, n_legal
    int legal[MAX_LEGAL]
    int auction_open                 # the engine's ``in_auction`` list is not empty
    int in_auction[MAX_SEATS]
    int high_bid, high_bidder, widow_taker, auction_cursor
    SeatQueue stakes, discards
    # Python's Mersenne Twister, word for word (Modules/_randommodule.c): the same draws as random.Random.
    uint32_t mt[MT_N]
    int mti


_RULE_CODES = {}   # Rules -> its RuleCodes as bytes

# The observation layout (layout.py) as plain offsets, read once.
_SLOTS = offsets()
cdef int AT_HAND = _SLOTS["hand"].start, AT_PLAYED_BY = _SLOTS["played_by"].start
cdef int AT_KNOWN_DEAD = _SLOTS["known_dead"].start, AT_LAST_CARD = _SLOTS["last_card"].start
cdef int AT_BOODLE_VALUE = _SLOTS["boodle_value"].start, AT_BOODLE_STACKS = _SLOTS["boodle_stacks"].start
cdef int AT_POT = _SLOTS["pot"].start, AT_CARD_COUNTS = _SLOTS["card_counts"].start
cdef int AT_BALANCES = _SLOTS["balances"].start, AT_DEALER = _SLOTS["dealer"].start
cdef int AT_PHASE = _SLOTS["phase"].start, AT_DECISION = _SLOTS["decision"].start
cdef int AT_STANDING_BID = _SLOTS["standing_bid"].start, AT_HIGH_BIDDER = _SLOTS["high_bidder"].start
cdef int AT_IN_AUCTION = _SLOTS["in_auction"].start, AT_WIDOW_TAKER = _SLOTS["widow_taker"].start
cdef int AT_DEAD_COUNT = _SLOTS["dead_count"].start, AT_OWN_PENDING = _SLOTS["own_pending"].start
cdef int AT_DEALS_LEFT = _SLOTS["deals_left"].start
cdef int OBS_SIZE = FLAT_SIZE
cdef double CHIP_SCALE = 40.0, CHIP_CLIP = 8.0   # layout.py


cdef inline double _chips(long value) noexcept nogil:
    cdef double scaled = value / CHIP_SCALE
    return CHIP_CLIP if scaled > CHIP_CLIP else (-CHIP_CLIP if scaled < -CHIP_CLIP else scaled)


cdef inline int _rel(int seat, int viewer, int n) noexcept nogil:
    return ((seat - viewer) % n + n) % n


cdef class FastGame:
    """One session, as :class:`~newmarket_env.engine.game.Game` (same constructor, attributes and errors).

    The attributes are read-only: list-valued ones (``hands``, ``balances``,
    ``legal``, ...) are fresh lists at every read, so change the game only
    through :meth:`apply`, as with ``Game``.
    """

    cdef RuleCodes r
    cdef Table t
    cdef readonly object rules
    cdef readonly int n
    cdef readonly bint record_events
    cdef public bint present_forced
    cdef readonly tuple boodle_cards
    cdef list _queued_deals, _queued_lots
    cdef object _dealt                 # the DealtCards of this deal when it was given, else None
    cdef object _seed                  # the seed (None replaced by a drawn one): the replay starts from it
    cdef list _given_deals, _given_lots, _taken  # for the replay: inputs and every action taken

    def __init__(self, rules, seed=None, deals=(), present_forced=False, record_events=True, lots=()):
        self.rules = rules
        self.n = rules.num_players
        self.present_forced = present_forced
        self.record_events = record_events
        if len(deals) > rules.num_deals:
            raise ValueError(f"{len(deals)} deals given but the session has num_deals={rules.num_deals}; "
                             f"give at most {rules.num_deals} (or raise num_deals)")
        self._queued_deals = [d if isinstance(d, DealtCards) else parse_deal(rules, d, i) for i, d in enumerate(deals)]
        self._queued_lots = list(lots)
        self._given_deals, self._given_lots, self._taken = list(self._queued_deals), list(lots), []
        self._dealt = None
        self._set_rules(rules)
        memset(&self.t, 0, sizeof(Table))
        self._seed_rng(seed)
        cdef int s
        for s in range(self.n):
            self.t.balances[s] = rules.starting_chips
        self.t.dealer = self._queued_deals[0].dealer if self._queued_deals else 0
        self._start_deal()
        self._advance()

    cdef void _set_rules(self, rules) except *:
        """The rules as C ints, computed once per distinct rules (envs make a game per reset)."""
        self.boodle_cards = tuple(rules.boodle_cards)
        cdef bytes cached = _RULE_CODES.get(rules)
        if cached is None:
            self._compute_rules(rules)
            if len(_RULE_CODES) > 256:
                _RULE_CODES.clear()
            _RULE_CODES[rules] = (<char *>&self.r)[:sizeof(RuleCodes)]
        else:
            memcpy(&self.r, <char *>cached, sizeof(RuleCodes))

    cdef void _compute_rules(self, rules) except *:
        cdef RuleCodes *r = &self.r
        cdef int card, b, dealer, slot
        memset(r, 0, sizeof(RuleCodes))
        r.n, r.num_deals, r.starting_chips = rules.num_players, rules.num_deals, rules.starting_chips
        r.stake_mode, r.pot_ante, r.boodle_stake = _code(rules.stake_mode), rules.pot_ante, rules.boodle_stake
        r.house_pot, r.house_boodle = rules.house_pot, rules.house_boodle
        r.dealer_multiplier = rules.dealer_stake_multiplier
        r.dead_hand = _code(rules.dead_hand)
        r.discard_count, r.widow, r.widow_fee = rules.discard_count, _code(rules.widow), rules.widow_fee
        r.min_bid, r.max_bid = rules.min_bid, rules.max_bid
        r.first_lead, r.lead_rule = _code(rules.first_lead), _code(rules.lead_after_stop)
        r.per_card_payment, r.leftover, r.ace_high = rules.per_card_payment, _code(rules.leftover), rules.ace_high
        r.removed = rules.removed_mask
        for card in range(NUM_CARDS):
            r.boodle_of[card] = -1
        for b in range(4):
            card = self.boodle_cards[b]
            r.boodle_cards[b] = card
            r.boodle_of[card] = b
            r.boodle_mask |= 1ULL << card
        # The reference's own tables: next card in a run, the deck before a shuffle, the dealing order.
        for card, following in enumerate(next_table(rules.ace_high)):
            r.next_card[card] = -1 if following is None else following
        for card in sorted_deck(rules.removed_mask):
            r.deck[r.deck_size] = card
            r.deck_size += 1
        for dealer in range(r.n):
            order = dealing_order(rules, dealer)
            r.deal_slots = len(order)
            for slot, seat in enumerate(order):
                r.deal_order[dealer][slot] = -1 if seat == DEAD_SLOT else seat

    cdef void _seed_rng(self, seed) except *:
        """Seed as ``random.Random(seed)`` does; ``replayed()`` rebuilds that generator from ``_seed``."""
        cdef uint32_t key[MT_N]
        cdef int used = 0
        if seed is None:
            seed = int.from_bytes(os.urandom(16), "little")  # as unpredictable as Random()'s own seeding
        self._seed = seed
        # str, bytes, ... and ints over 19,968 bits: take the state random.Random makes from them.
        if type(seed) is not int or abs(seed).bit_length() > 32 * MT_N:
            self._load_state(random.Random(seed).getstate()[1])
            return
        n = abs(seed)   # random_seed() in Modules/_randommodule.c: |seed| as 32-bit words, lowest first
        while True:
            key[used] = n & 0xffffffff
            used += 1
            n >>= 32
            if not n:
                break
        self._init_by_array(key, used)

    cdef void _load_state(self, tuple words) except *:
        """A state as ``random.Random.getstate()[1]`` gives it: 624 words, then the position."""
        cdef int i
        for i in range(MT_N):
            self.t.mt[i] = words[i]
        self.t.mti = words[MT_N]

    cdef void _init_genrand(self, uint32_t s) noexcept:
        cdef uint32_t *mt = self.t.mt
        cdef int i
        mt[0] = s
        for i in range(1, MT_N):
            mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + <uint32_t>i
        self.t.mti = MT_N

    cdef void _init_by_array(self, const uint32_t *key, int length) noexcept:
        """The reference MT19937 seeding from a key of 32-bit words (what random.seed(int) runs)."""
        cdef uint32_t *mt = self.t.mt
        cdef int i = 1, j = 0, k
        self._init_genrand(19650218U)
        k = MT_N if MT_N > length else length
        while k:
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + <uint32_t>j
            i += 1
            j += 1
            if i >= MT_N:
                mt[0] = mt[MT_N - 1]
                i = 1
            if j >= length:
                j = 0
            k -= 1
        k = MT_N - 1
        while k:
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - <uint32_t>i
            i += 1
            if i >= MT_N:
                mt[0] = mt[MT_N - 1]
                i = 1
            k -= 1
        mt[0] = 0x80000000U

    # ------------------------------------------------------------------ randomness (as random.Random)
    cdef uint32_t _genrand(self) noexcept:
        cdef uint32_t *mt = self.t.mt
        cdef uint32_t y
        cdef int k
        if self.t.mti >= MT_N:
            for k in range(MT_N):
                y = (mt[k] & 0x80000000U) | (mt[(k + 1) % MT_N] & 0x7fffffffU)
                mt[k] = mt[(k + MT_M) % MT_N] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
            self.t.mti = 0
        y = mt[self.t.mti]
        self.t.mti += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9d2c5680U
        y ^= (y << 15) & 0xefc60000U
        y ^= y >> 18
        return y

    cdef int _randbelow(self, int n) noexcept:
        """random.Random._randbelow_with_getrandbits: draw bit_length(n) bits until below n."""
        cdef int k = 0, m = n
        cdef uint32_t r
        while m:
            k += 1
            m >>= 1
        r = self._genrand() >> (32 - k)
        while r >= <uint32_t>n:
            r = self._genrand() >> (32 - k)
        return <int>r

    # ------------------------------------------------------------------ queries (Game's attributes)
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
    def deals(self):
        """The record of every deal so far (rebuilt by a replay on the reference engine)."""
        return self.replayed().deals if self.record_events else []

    @property
    def events(self):
        """The events of the current deal (rebuilt like :attr:`deals`)."""
        return self.replayed().events if self.record_events else []

    def replayed(self):
        """The reference :class:`Game` that took the same actions: the same state, with its events."""
        from newmarket_env.engine.game import Game

        rng = random.Random(self._seed)
        game = Game(self.rules, deals=self._given_deals, present_forced=True, record_events=True,
                    lots=self._given_lots, rng=rng)
        for action in self._taken:
            game.apply(action)
        game.present_forced = self.present_forced
        return game

    def copy(self):
        """An independent copy."""
        cdef FastGame clone = FastGame.__new__(FastGame)
        clone.r = self.r
        clone.t = self.t
        clone.rules, clone.n, clone.record_events = self.rules, self.n, self.record_events
        clone.present_forced, clone.boodle_cards = self.present_forced, self.boodle_cards
        clone._queued_deals, clone._queued_lots = list(self._queued_deals), list(self._queued_lots)
        clone._dealt, clone._seed = self._dealt, self._seed
        clone._given_deals, clone._given_lots, clone._taken = self._given_deals, self._given_lots, list(self._taken)
        return clone

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()  # nothing mutable is shared: rules and given deals are frozen

    def __reduce__(self):
        """Pickled as its inputs and the actions it took; unpickling replays them."""
        return (_rebuild, (self.rules, self._seed, self._given_deals, self._given_lots, self._taken,
                           self.present_forced, self.record_events))

    # ------------------------------------------------------------------ observing
    def encode_into(self, int viewer, float[::1] out, const float[::1] static):
        """Write ``viewer``'s flat observation into ``out`` (what encode.encode_flat returns)."""
        if out.shape[0] != OBS_SIZE or static.shape[0] != OBS_SIZE:
            raise ValueError(f"encode_into needs float32 arrays of {OBS_SIZE}")
        if not 0 <= viewer < self.n:
            raise ValueError(f"viewer={viewer} is not a seat; allowed: 0..{self.n - 1}")
        self._encode(viewer, &out[0], &static[0])

    cdef void _encode(self, int viewer, float *vec, const float *static) noexcept:
        cdef Table *t = &self.t
        cdef int n = self.n, k, seat, card, b
        cdef uint64_t mask
        memcpy(vec, static, OBS_SIZE * sizeof(float))
        mask = t.hands[viewer]
        while mask:
            vec[AT_HAND + nm_lowest(mask)] = 1.0
            mask &= mask - 1
        mask = t.played
        while mask:
            card = nm_lowest(mask)
            vec[AT_PLAYED_BY + 52 * _rel(t.played_by[card], viewer, n) + card] = 1.0
            mask &= mask - 1
        mask = t.public_dead | t.known_dead[viewer]
        while mask:
            vec[AT_KNOWN_DEAD + nm_lowest(mask)] = 1.0
            mask &= mask - 1
        if t.played and t.last_played >= 0:
            vec[AT_LAST_CARD + t.last_played] = 1.0
        for b in range(4):
            vec[AT_BOODLE_VALUE + self.r.boodle_cards[b]] = _chips(t.boodle_stacks[b])
            vec[AT_BOODLE_STACKS + b] = _chips(t.boodle_stacks[b])
        vec[AT_POT] = _chips(t.pot)
        for k in range(n):
            seat = (viewer + k) % n
            vec[AT_CARD_COUNTS + k] = nm_popcount(t.hands[seat]) / 13.0
            vec[AT_BALANCES + k] = _chips(t.balances[seat])
        vec[AT_DEALER + _rel(t.dealer, viewer, n)] = 1.0
        vec[AT_PHASE + t.phase] = 1.0
        if t.decision >= 0 and t.to_act == viewer:
            vec[AT_DECISION + t.decision] = 1.0
        vec[AT_STANDING_BID] = t.high_bid / 20.0
        if t.high_bidder != NOBODY:
            vec[AT_HIGH_BIDDER + _rel(t.high_bidder, viewer, n)] = 1.0
        if t.widow_taker != NOBODY:
            vec[AT_WIDOW_TAKER + _rel(t.widow_taker, viewer, n)] = 1.0
        if t.auction_open:
            for k in range(n):
                vec[AT_IN_AUCTION + k] = t.in_auction[(viewer + k) % n]
        vec[AT_DEAD_COUNT] = nm_popcount(t.dead) / 13.0
        vec[AT_OWN_PENDING] = (t.stakes.left[viewer] + t.discards.left[viewer]) / 4.0
        k = self.r.num_deals - t.deal_index - 1
        vec[AT_DEALS_LEFT] = (k if k > 0 else 0) / <double>self.r.num_deals

    # ------------------------------------------------------------------ acting
    def apply(self, action):
        """Take ``action`` for the seat ``to_act``; raises :class:`IllegalActionError` if illegal."""
        if self.t.over:
            raise IllegalActionError("the session is over; no action is legal (call reset)")
        # numpy ints are ids too; floats and bools are not, even when they compare equal to one.
        is_id = type(action) is int or (isinstance(action, numbers.Integral) and not isinstance(action, bool))
        if not is_id or not self._is_legal(action):
            self._refuse(action, is_id)
        cdef int taken = action
        self._taken.append(taken)
        self._take(taken)
        self._advance()

    cdef bint _is_legal(self, action) except -1:
        if not -1 < action < 1000:
            return False
        cdef int a = action, i
        for i in range(self.t.n_legal):
            if self.t.legal[i] == a:
                return True
        return False

    def _refuse(self, action, is_id):
        legal = self.legal
        names = ", ".join(f"{a} ({A.action_text(a)})" for a in legal)
        shown = A.action_text(int(action)) if is_id and 0 <= action < A.NUM_ACTIONS else "not an action id"
        raise IllegalActionError(
            f"action {action!r} ({shown}) is not legal for seat {self.to_act} deciding "
            f"{self.decision.value}; legal actions: {names}"
        )

    cdef void _take(self, int action) except *:
        cdef int decision = self.t.decision, seat = self.t.to_act
        self.t.decision, self.t.n_legal, self.t.to_act = D_NONE, 0, NOBODY
        if decision == D_STAKE:
            self._on_stake(seat, action)
        elif decision == D_DISCARD:
            self._on_discard(seat, action)
        elif decision == D_WIDOW:
            self._on_widow(seat, action)
        elif decision == D_BUY:
            self._on_buy(seat, action)
        elif decision == D_BID:
            self._on_bid(seat, action)
        else:
            self._play_run(seat, action, True)

    cdef inline void _ask(self, int seat, int decision) noexcept:
        """Ask ``seat`` for ``decision``; the caller has filled ``legal`` and ``n_legal``."""
        self.t.to_act, self.t.decision = seat, decision

    cdef void _advance(self) except *:
        """Run automatic steps until a real decision is pending or the session is over."""
        cdef int forced
        while not self.t.over:
            if self.t.decision != D_NONE:
                if self.t.n_legal > 1 or self.present_forced:
                    return
                forced = self.t.legal[0]
                self._taken.append(forced)
                self._take(forced)
                continue
            self._step_phase()

    cdef void _step_phase(self) except *:
        cdef int phase = self.t.phase
        if phase == PH_STAKE:
            if self._queue_head(&self.t.stakes) != NOBODY:
                self._ask_stake()
            else:
                self._deal_cards()
        elif phase == PH_DISCARD:
            if self._queue_head(&self.t.discards) != NOBODY:
                self._ask_discard()
            else:
                self._start_widow()
        elif phase == PH_AUCTION:
            self._auction_next()
        elif phase == PH_PLAY:
            self._first_lead()

    # ------------------------------------------------------------------ seat queues
    cdef void _queue_fill(self, SeatQueue *q, int each) noexcept:
        """Every seat from eldest round to the dealer owes ``each``."""
        cdef int k, seat
        q.length, q.head = self.n, 0
        for k in range(self.n):
            seat = (self.t.dealer + 1 + k) % self.n
            q.order[k] = seat
            q.left[seat] = each

    cdef int _queue_head(self, SeatQueue *q) noexcept:
        while q.head < q.length and q.left[q.order[q.head]] == 0:
            q.head += 1
        return q.order[q.head] if q.head < q.length else NOBODY

    # ------------------------------------------------------------------ a deal begins
    cdef void _start_deal(self) except *:
        cdef Table *t = &self.t
        cdef int card
        if self._queued_deals:
            self._dealt = self._queued_deals.pop(0)
            t.dealer = self._dealt.dealer
        else:
            self._dealt = None
        memset(t.hands, 0, sizeof(t.hands))
        memset(t.known_dead, 0, sizeof(t.known_dead))
        t.dead, t.played, t.public_dead = 0, 0, self.r.removed
        for card in range(NUM_CARDS):
            t.played_by[card] = NOBODY
            t.owner[card] = NOBODY
        t.last_played = -1
        t.to_act, t.decision, t.n_legal = NOBODY, D_NONE, 0
        t.auction_open = 0
        memset(t.in_auction, 0, sizeof(t.in_auction))
        t.high_bid, t.high_bidder, t.widow_taker, t.auction_cursor = 0, NOBODY, NOBODY, NOBODY
        memset(&t.stakes, 0, sizeof(SeatQueue))
        memset(&t.discards, 0, sizeof(SeatQueue))
        t.phase = PH_STAKE
        self._automatic_stakes()

    cdef void _automatic_stakes(self) noexcept:
        cdef RuleCodes *r = &self.r
        cdef int k, seat, b, mult, base, extra
        cdef int split[4]
        if r.stake_mode == SM_HOUSE:
            self.t.pot += r.house_pot
            for b in range(4):
                self.t.boodle_stacks[b] += r.house_boodle
            return
        for k in range(self.n):
            seat = (self.t.dealer + 1 + k) % self.n
            if r.pot_ante:
                self._pay_stake(seat, -1, r.pot_ante * self._multiplier(seat))
        if r.stake_mode == SM_CHOOSE:
            self._queue_fill(&self.t.stakes, r.boodle_stake)
            return
        base, extra = r.boodle_stake // 4, r.boodle_stake % 4   # SPREAD: extra chips on the first boodles
        for b in range(4):
            split[b] = r.boodle_stake if r.stake_mode == SM_EACH else base + (1 if b < extra else 0)
        for k in range(self.n):
            seat = (self.t.dealer + 1 + k) % self.n
            mult = self._multiplier(seat)
            for b in range(4):
                if split[b]:
                    self._pay_stake(seat, b, split[b] * mult)

    cdef inline int _multiplier(self, int seat) noexcept:
        return self.r.dealer_multiplier if seat == self.t.dealer else 1

    cdef inline void _pay_stake(self, int seat, int boodle, long amount) noexcept:
        self.t.balances[seat] -= amount
        if boodle < 0:
            self.t.pot += amount
        else:
            self.t.boodle_stacks[boodle] += amount

    cdef void _ask_stake(self) noexcept:
        cdef int b
        for b in range(4):
            self.t.legal[b] = STAKE_BASE + b
        self.t.n_legal = 4
        self._ask(self._queue_head(&self.t.stakes), D_STAKE)

    cdef void _on_stake(self, int seat, int action) noexcept:
        self.t.stakes.left[seat] -= 1
        self._pay_stake(seat, action - STAKE_BASE, self._multiplier(seat))

    # ------------------------------------------------------------------ the cards
    cdef void _deal_cards(self) except *:
        cdef Table *t = &self.t
        cdef int seat
        if self._dealt is not None:
            for seat in range(self.n):
                t.hands[seat] = self._dealt.hands[seat]
            t.dead = self._dealt.dead
        else:
            self._shuffled_deal()
        for seat in range(self.n):
            self._set_owner(t.hands[seat], seat)
        t.phase = PH_DISCARD
        if self.r.dead_hand == DH_DISCARD:
            self._queue_fill(&t.discards, self.r.discard_count)

    cdef void _shuffled_deal(self) noexcept:
        """dealing.shuffled_deal: shuffle the sorted deck as random.shuffle does, deal round the order."""
        cdef int deck[NUM_CARDS]
        cdef int size = self.r.deck_size, i, j, swap, slot
        cdef int *order = self.r.deal_order[self.t.dealer]
        memcpy(deck, self.r.deck, size * sizeof(int))
        i = size - 1
        while i >= 1:
            j = self._randbelow(i + 1)
            swap = deck[i]
            deck[i] = deck[j]
            deck[j] = swap
            i -= 1
        for i in range(size):   # card i goes to slot i % slots, as one card at a time round the table
            slot = order[i % self.r.deal_slots]
            if slot < 0:
                self.t.dead |= 1ULL << deck[i]
            else:
                self.t.hands[slot] |= 1ULL << deck[i]

    cdef inline void _set_owner(self, uint64_t mask, int seat) noexcept:
        while mask:
            self.t.owner[nm_lowest(mask)] = seat
            mask &= mask - 1

    cdef void _ask_discard(self) noexcept:
        cdef int seat = self._queue_head(&self.t.discards)
        self._legal_from_mask(self.t.hands[seat])
        self._ask(seat, D_DISCARD)

    cdef void _legal_from_mask(self, uint64_t mask) noexcept:
        cdef int count = 0
        while mask:
            self.t.legal[count] = nm_lowest(mask)
            count += 1
            mask &= mask - 1
        self.t.n_legal = count

    cdef void _on_discard(self, int seat, int card) noexcept:
        cdef uint64_t bit = 1ULL << card
        self.t.discards.left[seat] -= 1
        self.t.hands[seat] &= ~bit
        self.t.dead |= bit
        self.t.owner[card] = NOBODY
        self.t.known_dead[seat] |= bit

    # ------------------------------------------------------------------ the widow
    cdef void _start_widow(self) noexcept:
        self.t.phase = PH_WIDOW
        if self.r.widow == WI_NONE:
            self.t.phase = PH_PLAY
            return
        self.t.legal[0], self.t.legal[1], self.t.n_legal = KEEP, EXCHANGE, 2
        self._ask(self.t.dealer, D_BUY if self.r.widow == WI_BUY else D_WIDOW)

    cdef void _on_buy(self, int seat, int action) noexcept:
        self.t.phase = PH_PLAY
        if action == KEEP:
            return
        self.t.balances[seat] -= self.r.widow_fee
        self.t.pot += self.r.widow_fee
        self._exchange(seat)

    cdef void _on_widow(self, int seat, int action) noexcept:
        cdef int s
        if action == EXCHANGE:
            self._exchange(seat)
            self.t.phase = PH_PLAY
            return
        self.t.phase = PH_AUCTION
        self.t.auction_open = 1
        for s in range(self.n):
            self.t.in_auction[s] = s != self.t.dealer
        self.t.auction_cursor = (self.t.dealer + 1) % self.n

    cdef void _exchange(self, int seat) noexcept:
        cdef uint64_t old = self.t.hands[seat]
        self.t.hands[seat], self.t.dead = self.t.dead, old
        self._set_owner(old, NOBODY)
        self._set_owner(self.t.hands[seat], seat)
        self.t.known_dead[seat] |= old
        self.t.widow_taker = seat

    # ------------------------------------------------------------------ the auction
    cdef void _auction_next(self) noexcept:
        cdef Table *t = &self.t
        cdef int s, bidders = 0, only = NOBODY, seat, low, k
        for s in range(self.n):
            if t.in_auction[s]:
                bidders += 1
                only = s
        if bidders == 0 or (bidders == 1 and only == t.high_bidder):
            self._end_auction()
            return
        seat = t.auction_cursor
        while not t.in_auction[seat] or seat == t.high_bidder:
            seat = (seat + 1) % self.n
        t.auction_cursor = (seat + 1) % self.n
        low = self.r.min_bid if self.r.min_bid > t.high_bid + 1 else t.high_bid + 1
        t.legal[0], t.n_legal = PASS, 1
        for k in range(low, self.r.max_bid + 1):
            t.legal[t.n_legal] = BID_BASE + k - 1
            t.n_legal += 1
        self._ask(seat, D_BID)

    cdef void _on_bid(self, int seat, int action) noexcept:
        if action == PASS:
            self.t.in_auction[seat] = 0
            return
        self.t.high_bid, self.t.high_bidder = action - BID_BASE + 1, seat

    cdef void _end_auction(self) noexcept:
        cdef int bidder = self.t.high_bidder
        self.t.phase = PH_PLAY
        if bidder == NOBODY:
            return
        self.t.balances[bidder] -= self.t.high_bid
        self.t.balances[self.t.dealer] += self.t.high_bid
        self._exchange(bidder)

    # ------------------------------------------------------------------ play
    cdef int _lowest_of_suit(self, uint64_t mask, int suit, bint ace_high) noexcept:
        """order.lowest_of_suit: the lowest card of ``suit`` in ``mask`` under the rank order, or -1."""
        cdef uint64_t in_suit = mask & (SUIT_MASK << (NUM_RANKS * suit)), without_ace
        if not in_suit:
            return -1
        if ace_high:
            without_ace = in_suit & ~(1ULL << (NUM_RANKS * suit))
            if without_ace:
                in_suit = without_ace
        return nm_lowest(in_suit)

    cdef int _lowest_per_suit(self, uint64_t mask, int skip_a, int skip_b) noexcept:
        """order.lowest_per_suit over the suits other than ``skip_a``/``skip_b`` into ``legal``; the count."""
        cdef int suit, card
        self.t.n_legal = 0
        for suit in range(4):
            if suit == skip_a or suit == skip_b:
                continue
            card = self._lowest_of_suit(mask, suit, self.r.ace_high)
            if card >= 0:
                self.t.legal[self.t.n_legal] = card
                self.t.n_legal += 1
        return self.t.n_legal

    cdef void _first_lead(self) except *:
        """The first lead of the deal (leads.lowest_club_holder for Newbury, else the eldest)."""
        cdef uint64_t in_play = 0
        cdef int seat, card
        if self.r.first_lead == FL_LOWEST_CLUB:
            for seat in range(self.n):
                in_play |= self.t.hands[seat]
            card = self._lowest_of_suit(in_play, 0, True)   # clubs, 2 upward and the ace last
            if card >= 0:
                for seat in range(self.n):
                    if (self.t.hands[seat] >> card) & 1:
                        self._play_run(seat, card, True)
                        return
        seat = (self.t.dealer + 1) % self.n
        self._lowest_per_suit(self.t.hands[seat], -1, -1)
        self._ask(seat, D_LEAD)

    cdef void _play_run(self, int seat, int card, bint lead) except *:
        """Play ``card`` and every forced follow; then stop, or end the deal."""
        cdef int following, holder
        while True:
            if self._play_card(seat, card):
                return
            following = self.r.next_card[card]
            if following < 0:
                self._stop(seat, card, -1)
                return
            holder = self.t.owner[following]
            if holder == NOBODY:
                self._stop(seat, card, following)
                return
            seat, card = holder, following

    cdef bint _play_card(self, int seat, int card) except -1:
        """Play one card; True if it ended the deal."""
        cdef Table *t = &self.t
        cdef uint64_t bit = 1ULL << card
        cdef int boodle
        cdef long amount
        t.hands[seat] &= ~bit
        t.played |= bit
        t.played_by[card] = seat
        t.owner[card] = NOBODY
        t.last_played = card
        if bit & self.r.boodle_mask:
            boodle = self.r.boodle_of[card]
            amount = t.boodle_stacks[boodle]
            t.boodle_stacks[boodle] = 0
            t.balances[seat] += amount
        if not t.hands[seat]:
            self._go_out(seat)
            return True
        return False

    cdef void _stop(self, int seat, int card, int following) except *:
        cdef uint64_t bit
        if following >= 0:
            bit = 1ULL << following
            if not (self.r.removed & bit) and not (self.t.played & bit):
                self.t.public_dead |= bit   # RULES.md: a stopping card not played is known dead
        if not self._options_after_stop(seat, card // NUM_RANKS):
            self._end_deal()   # blocked: nobody can lead

    cdef bint _options_after_stop(self, int stopper, int suit) noexcept:
        """leads.options_after_stop into ``legal`` and a LEAD decision; False when nobody can lead."""
        cdef Table *t = &self.t
        cdef int rule = self.r.lead_rule, k, seat, other
        cdef uint64_t colour, of_colour, plain
        if rule == LR_ANY_SUIT:
            self._lowest_per_suit(t.hands[stopper], -1, -1)
        elif rule == LR_OTHER_SUIT:
            if not self._lowest_per_suit(t.hands[stopper], suit, -1):
                t.legal[0], t.n_legal = self._lowest_of_suit(t.hands[stopper], suit, self.r.ace_high), 1
        elif rule == LR_OPPOSITE:
            # the suits of the other colour: clubs (0) and spades (3) are black, diamonds and hearts red
            other = 3 - suit
            for k in range(self.n):
                seat = (stopper + k) % self.n
                if self._lowest_per_suit(t.hands[seat], suit, other):
                    self._ask(seat, D_LEAD)
                    return True
            self._lowest_per_suit(t.hands[stopper], -1, -1)
        else:
            # any card of the other colour, boodles only when nothing else
            colour = BLACK_MASK if suit == 1 or suit == 2 else RED_MASK
            for k in range(self.n):
                seat = (stopper + k) % self.n
                of_colour = t.hands[seat] & colour
                if of_colour:
                    plain = of_colour & ~self.r.boodle_mask
                    self._legal_from_mask(plain if plain else of_colour)
                    self._ask(seat, D_LEAD)
                    return True
            return False
        self._ask(stopper, D_LEAD)
        return True

    # ------------------------------------------------------------------ settlement
    cdef void _go_out(self, int winner) except *:
        cdef Table *t = &self.t
        cdef int seat
        cdef long owed
        if t.pot:
            t.balances[winner] += t.pot
            t.pot = 0
        for seat in range(self.n):
            owed = self.r.per_card_payment * nm_popcount(t.hands[seat])
            if seat != winner and owed:
                t.balances[seat] -= owed
                t.balances[winner] += owed
        self._end_deal()

    cdef void _end_deal(self) except *:
        cdef Table *t = &self.t
        t.deal_index += 1
        t.to_act, t.decision, t.n_legal = NOBODY, D_NONE, 0
        if t.deal_index >= self.r.num_deals:
            self._settle_leftovers()
            t.over = 1
            t.phase = PH_OVER
            return
        if not self._queued_deals:
            t.dealer = (t.dealer + 1) % self.n
        self._start_deal()

    cdef void _settle_leftovers(self) except *:
        cdef Table *t = &self.t
        cdef int b, seat
        cdef long amount
        for b in range(5):   # the four boodles in layout order, then the pot
            amount = t.boodle_stacks[b] if b < 4 else t.pot
            if amount and self.r.leftover == LO_LOT:
                seat = self._queued_lots.pop(0) if self._queued_lots else self._randbelow(self.n)
                t.balances[seat] += amount
        memset(t.boodle_stacks, 0, sizeof(t.boodle_stacks))
        t.pot = 0


def _rebuild(rules, seed, deals, lots, taken, present_forced, record_events):
    """The game that ``FastGame.__reduce__`` describes: the same inputs, the same actions replayed."""
    game = FastGame(rules, seed=seed, deals=deals, present_forced=True, record_events=record_events, lots=lots)
    for action in taken:
        game.apply(action)
    game.present_forced = present_forced
    return game

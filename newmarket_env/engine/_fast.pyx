# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled engine: the state machine of :mod:`newmarket_env.engine.game`, on C integers.

``FastGame`` plays exactly the sessions ``Game`` plays: the same rules, the same
decisions with the same legal actions in the same order, the same payments and,
for the same ``seed``, the same shuffles and lots (it runs Python's own Mersenne
Twister and shuffle on a copy of ``random.Random(seed)``'s state).
``tests/engine/test_fast.py`` checks this action by action on every preset.

``game.py`` stays the reference: read it for the rules. This file mirrors it
method by method (the same names) with the state in one C struct, so a step
is integer arithmetic on 52-bit masks instead of Python objects. With
``record_events`` (the default, as for ``Game``) it keeps its own record: each
event as a few integers in a C array, turned into the reference engine's dicts
only when ``deals`` or ``events`` is read, so a record needs no replay on the
reference engine (``replayed()`` still gives that replay, for checks). Tables
of a batch and search's rollouts keep none.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport abort, calloc, free, malloc, realloc
from libc.math cimport llround, sqrt
from libc.string cimport memcpy, memset

import numbers
import os
import random

import numpy as np

from newmarket_env import actions as A
from newmarket_env.cards import CARD_TEXTS, cards_to_text
from newmarket_env.engine.dealing import DEAD_SLOT, DealtCards, dealing_order, parse_deal, sorted_deck
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER, Decision, IllegalActionError, Phase
from newmarket_env import tuning as T
from newmarket_env.observation import layout
from newmarket_env.observation.layout import FLAT_SIZE, offsets
from newmarket_env.order import next_table, order_key
from newmarket_env.rules import (
    DeadHand, FirstLead, LeadRule, Leftover, StakeMode, Widow,
)

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    static inline int nm_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int nm_lowest(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int nm_leading_zeros(unsigned int x) { return __builtin_clz(x); }
    #else
    static inline int nm_popcount(unsigned long long x) { int c = 0; while (x) { x &= x - 1; c++; } return c; }
    static inline int nm_lowest(unsigned long long x) { int i = 0; while (!(x & 1ULL)) { x >>= 1; i++; } return i; }
    static inline int nm_leading_zeros(unsigned int x) { int i = 32; while (x) { x >>= 1; i--; } return i; }
    #endif
    """
    int nm_popcount(unsigned long long x) nogil
    int nm_lowest(unsigned long long x) nogil   # index of the lowest set bit; x != 0
    int nm_leading_zeros(unsigned int x) nogil  # zero bits above the highest set bit; x != 0

cdef enum:
    NOBODY = -1
    MAX_SEATS = 8
    NUM_CARDS = 52
    NUM_RANKS = 13
    MAX_LEGAL = 80
    MT_N = 624
    MT_M = 397
    # action ids (actions.py; docs/contract.md)
    KEEP = 52
    EXCHANGE = 53
    PASS = 54
    BID_BASE = 55
    STAKE_BASE = 75
    NUM_ACTIONS = 79
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

# Rule enums as small ints: their position in the enum (the order docs/rules.md lists them).
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
    int previous_card[NUM_CARDS]    # the card just below in a run, or -1 for the lowest rank
    int order_key[NUM_CARDS]        # order.order_key: rank position under the rules' ace
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


cdef struct GivenDeal:
    # A deal fixed by the caller (dealing.DealtCards as masks).
    int dealer
    uint64_t hands[MAX_SEATS]
    uint64_t dead


cdef struct Inputs:
    # What a session was given instead of drawing it: deals in order, then the leftover lots.
    # Owned by the FastGame that parsed them (and shared, read-only, by its copies).
    GivenDeal *deals
    int n_deals
    int *lots
    int n_lots


cdef struct ActionLog:
    # Every action taken, forced ones included, in order: a session is its inputs plus this log.
    int *items
    int length, capacity


cdef enum:
    # Event kinds of the compiled record: one per ``type`` the reference engine logs (engine/game.py).
    EV_STAKE, EV_DISCARD, EV_WIDOW, EV_PAYMENT, EV_PASS, EV_BID, EV_AUCTION_END, EV_PLAY, EV_BOODLE
    EV_STOP, EV_BLOCKED, EV_OUT, EV_POT, EV_LEFTOVER
    # EV_WIDOW choices, EV_PAYMENT reasons and EV_STOP causes (the texts are in _event_dict)
    WIDOW_DECLINE = 0
    WIDOW_BUY = 1
    WIDOW_EXCHANGE = 2
    WIDOW_KEEP = 3
    PAID_WIDOW_FEE = 0
    PAID_BID = 1
    PAID_CARDS = 2
    CAUSE_TOP = 0
    CAUSE_DEAD = 1
    CAUSE_REMOVED = 2
    CAUSE_PLAYED = 3


cdef struct Event:
    # One event as numbers; what a, b and c mean depends on the kind (see _event_dict, which turns
    # it into the reference engine's dict). NOBODY stands for None (the house, no seat, no card).
    int kind, seat, a, b, c, action
    long amount


cdef struct DealMark:
    # A deal of the record: its dealer, where its events start, its cards once dealt, chips once over.
    int dealer, first_event, dealt, closed
    uint64_t hands[MAX_SEATS]
    uint64_t dead
    long chips[MAX_SEATS]


cdef struct EventLog:
    # The session's record kept by the compiled engine itself (FastGame with record_events), so that
    # ``deals`` needs no replay on the reference engine.
    Event *items
    int length, capacity
    DealMark *deals
    int n_deals, deal_capacity


cdef struct Rng:
    # Python's Mersenne Twister, word for word (Modules/_randommodule.c): the same draws as random.Random.
    uint32_t mt[MT_N]
    int mti


cdef struct Table:
    # One session. Every step below is a function of a Table*; nothing in it is a Python object,
    # so a FastGame holds one and a TableBatch holds many.
    const RuleCodes *r
    const Inputs *inputs             # NULL: every deal shuffled, every lot drawn
    ActionLog *log                   # NULL: actions not kept
    EventLog *events                 # NULL: no record kept
    int n, present_forced
    int next_deal, next_lot, dealt_given
    long balances[MAX_SEATS]
    long boodle_stacks[4]
    long pot
    int deal_index, dealer, over, phase
    uint64_t hands[MAX_SEATS]
    uint64_t dead, played, public_dead
    uint64_t known_dead[MAX_SEATS]
    int played_by[NUM_CARDS]
    uint64_t played_by_seat[MAX_SEATS]   # the same as one mask per seat (the observation's planes)
    int owner[NUM_CARDS]
    int last_played
    int to_act, decision, n_legal
    int legal[MAX_LEGAL]
    int auction_open                 # the engine's ``in_auction`` list is not empty
    int in_auction[MAX_SEATS]
    int high_bid, high_bidder, widow_taker, auction_cursor
    SeatQueue stakes, discards
    Rng rng                          # shuffles and lots


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
cdef double CHIP_SCALE = layout.CHIP_SCALE, CHIP_CLIP = layout.CHIP_CLIP




cdef void load_rules(RuleCodes *r, rules) except *:
    """The rules as C ints, computed once per distinct rules (envs make a game per reset)."""
    cdef bytes cached = _RULE_CODES.get(rules)
    if cached is not None:
        memcpy(r, <char *>cached, sizeof(RuleCodes))
        return
    _compute_rules(r, rules)
    if len(_RULE_CODES) > 256:
        _RULE_CODES.clear()
    _RULE_CODES[rules] = (<char *>r)[:sizeof(RuleCodes)]


cdef void _compute_rules(RuleCodes *r, rules) except *:
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
        r.previous_card[card] = -1
        r.order_key[card] = order_key(card, rules.ace_high)
    for b in range(4):
        card = rules.boodle_cards[b]
        r.boodle_cards[b] = card
        r.boodle_of[card] = b
        r.boodle_mask |= 1ULL << card
    # The reference's own tables: next card in a run, the deck before a shuffle, the dealing order.
    for card, following in enumerate(next_table(rules.ace_high)):
        r.next_card[card] = -1 if following is None else following
        if following is not None:
            r.previous_card[following] = card
    for card in sorted_deck(rules.removed_mask):
        r.deck[r.deck_size] = card
        r.deck_size += 1
    for dealer in range(r.n):
        order = dealing_order(rules, dealer)
        r.deal_slots = len(order)
        for slot, seat in enumerate(order):
            r.deal_order[dealer][slot] = -1 if seat == DEAD_SLOT else seat


# ---------------------------------------------------------------------- randomness (as random.Random)
cdef void seed_rng(Rng *t, seed) except *:
    """Seed ``t`` as ``random.Random(seed)`` seeds its own generator."""
    cdef uint32_t key[MT_N]
    cdef int used = 0
    # str, bytes, ... and ints over 19,968 bits: take the state random.Random makes from them.
    if type(seed) is not int or abs(seed).bit_length() > 32 * MT_N:
        _load_state(t, random.Random(seed).getstate()[1])
        return
    n = abs(seed)   # random_seed() in Modules/_randommodule.c: |seed| as 32-bit words, lowest first
    while True:
        key[used] = n & 0xffffffff
        used += 1
        n >>= 32
        if not n:
            break
    _init_by_array(t, key, used)


cdef void _load_state(Rng *t, tuple words) except *:
    """A state as ``random.Random.getstate()[1]`` gives it: 624 words, then the position."""
    cdef int i
    for i in range(MT_N):
        t.mt[i] = words[i]
    t.mti = words[MT_N]


cdef void _init_genrand(Rng *t, uint32_t s) noexcept nogil:
    cdef uint32_t *mt = t.mt
    cdef int i
    mt[0] = s
    for i in range(1, MT_N):
        mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + <uint32_t>i
    t.mti = MT_N


cdef void _init_by_array(Rng *t, const uint32_t *key, int length) noexcept nogil:
    """The reference MT19937 seeding from a key of 32-bit words (what random.seed(int) runs)."""
    cdef uint32_t *mt = t.mt
    cdef int i = 1, j = 0, k
    _init_genrand(t, 19650218U)
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


cdef void seed_rng_u64(Rng *t, uint64_t seed) noexcept nogil:
    """``random.Random(seed)`` for a non-negative seed below 2**64, without Python objects."""
    cdef uint32_t key[2]
    key[0] = <uint32_t>(seed & 0xffffffffULL)
    key[1] = <uint32_t>(seed >> 32)
    _init_by_array(t, key, 2 if key[1] else 1)


cdef void _twist(Rng *t) noexcept nogil:
    """The next 624 words of the state (genrand_uint32's refill), without a division per word."""
    cdef uint32_t *mt = t.mt
    cdef uint32_t y
    cdef int k
    for k in range(MT_N - MT_M):
        y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU)
        mt[k] = mt[k + MT_M] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
    for k in range(MT_N - MT_M, MT_N - 1):
        y = (mt[k] & 0x80000000U) | (mt[k + 1] & 0x7fffffffU)
        mt[k] = mt[k + MT_M - MT_N] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
    y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU)
    mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
    t.mti = 0


cdef inline uint32_t _genrand(Rng *t) noexcept nogil:
    cdef uint32_t y
    if t.mti >= MT_N:
        _twist(t)
    y = t.mt[t.mti]
    t.mti += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9d2c5680U
    y ^= (y << 15) & 0xefc60000U
    y ^= y >> 18
    return y


cdef int _randbelow(Rng *t, int n) noexcept nogil:
    """random.Random._randbelow_with_getrandbits: draw bit_length(n) bits until below n (n >= 1)."""
    cdef int k = 32 - nm_leading_zeros(<uint32_t>n)
    cdef uint32_t r
    r = _genrand(t) >> (32 - k)
    while r >= <uint32_t>n:
        r = _genrand(t) >> (32 - k)
    return <int>r


# ---------------------------------------------------------------------- a session begins
cdef void start_session(Table *t, const RuleCodes *r, const Inputs *inputs, ActionLog *log,
                        EventLog *events, int present_forced) noexcept nogil:
    """Game.__init__ after seeding: balances, the first deal, and on to the first decision."""
    cdef int s
    cdef Rng rng = t.rng
    memset(t, 0, sizeof(Table))   # everything but the seeded generator starts from zero
    t.rng = rng
    t.r, t.inputs, t.log, t.n, t.present_forced = r, inputs, log, r.n, present_forced
    t.events = events
    for s in range(t.n):
        t.balances[s] = r.starting_chips
    t.dealer = inputs.deals[0].dealer if inputs != NULL and inputs.n_deals else 0
    _start_deal(t)
    advance(t)


# ---------------------------------------------------------------------- acting
cdef bint is_legal(const Table *t, int action) noexcept nogil:
    cdef int i
    for i in range(t.n_legal):
        if t.legal[i] == action:
            return True
    return False


cdef void apply_action(Table *t, int action) noexcept nogil:
    """Take a legal ``action`` for ``to_act`` and run on to the next decision (the caller checked it)."""
    _log_action(t, action)
    _take(t, action)
    advance(t)


cdef inline void _log_action(Table *t, int action) noexcept nogil:
    cdef ActionLog *log = t.log
    cdef int *grown
    if log == NULL:
        return
    if log.length == log.capacity:
        grown = <int *>realloc(log.items, (2 * log.capacity + 64) * sizeof(int))
        if grown == NULL:
            abort()   # out of memory: nothing sensible is left to do
        log.items = grown
        log.capacity = 2 * log.capacity + 64
    log.items[log.length] = action
    log.length += 1


cdef inline void _note(Table *t, int kind, int seat, int a, int b, int c, long amount, int action) noexcept nogil:
    """Add an event to the record (when one is kept), to the current deal."""
    cdef EventLog *log = t.events
    cdef Event *grown
    cdef Event *event
    if log == NULL:
        return
    if log.length == log.capacity:
        grown = <Event *>realloc(log.items, (2 * log.capacity + 64) * sizeof(Event))
        if grown == NULL:
            abort()
        log.items = grown
        log.capacity = 2 * log.capacity + 64
    event = &log.items[log.length]
    event.kind, event.seat, event.a, event.b, event.c = kind, seat, a, b, c
    event.amount, event.action = amount, action
    log.length += 1


cdef DealMark *_open_deal(Table *t) noexcept nogil:
    """Start the next deal of the record (when one is kept); NULL if none is kept."""
    cdef EventLog *log = t.events
    cdef DealMark *grown
    cdef DealMark *deal
    if log == NULL:
        return NULL
    if log.n_deals == log.deal_capacity:
        grown = <DealMark *>realloc(log.deals, (2 * log.deal_capacity + 8) * sizeof(DealMark))
        if grown == NULL:
            abort()
        log.deals = grown
        log.deal_capacity = 2 * log.deal_capacity + 8
    deal = &log.deals[log.n_deals]
    memset(deal, 0, sizeof(DealMark))
    deal.dealer, deal.first_event = t.dealer, log.length
    log.n_deals += 1
    return deal


cdef inline DealMark *_current_deal(Table *t) noexcept nogil:
    return NULL if t.events == NULL or t.events.n_deals == 0 else &t.events.deals[t.events.n_deals - 1]


cdef void _take(Table *t, int action) noexcept nogil:
    cdef int decision = t.decision, seat = t.to_act
    t.decision, t.n_legal, t.to_act = D_NONE, 0, NOBODY
    if decision == D_STAKE:
        _on_stake(t, seat, action)
    elif decision == D_DISCARD:
        _on_discard(t, seat, action)
    elif decision == D_WIDOW:
        _on_widow(t, seat, action)
    elif decision == D_BUY:
        _on_buy(t, seat, action)
    elif decision == D_BID:
        _on_bid(t, seat, action)
    else:
        _play_run(t, seat, action, action)


cdef inline void _ask(Table *t, int seat, int decision) noexcept nogil:
    """Ask ``seat`` for ``decision``; the caller has filled ``legal`` and ``n_legal``."""
    t.to_act, t.decision = seat, decision


cdef void advance(Table *t) noexcept nogil:
    """Run automatic steps until a real decision is pending or the session is over."""
    cdef int forced
    while not t.over:
        if t.decision != D_NONE:
            if t.n_legal > 1 or t.present_forced:
                return
            forced = t.legal[0]
            _log_action(t, forced)
            _take(t, forced)
            continue
        _step_phase(t)


cdef void _step_phase(Table *t) noexcept nogil:
    cdef int phase = t.phase
    if phase == PH_STAKE:
        if _queue_head(t, &t.stakes) != NOBODY:
            _ask_stake(t)
        else:
            _deal_cards(t)
    elif phase == PH_DISCARD:
        if _queue_head(t, &t.discards) != NOBODY:
            _ask_discard(t)
        else:
            _start_widow(t)
    elif phase == PH_AUCTION:
        _auction_next(t)
    elif phase == PH_PLAY:
        _first_lead(t)


# ---------------------------------------------------------------------- seat queues
cdef void _queue_fill(Table *t, SeatQueue *q, int each) noexcept nogil:
    """Every seat from eldest round to the dealer owes ``each``."""
    cdef int k, seat
    q.length, q.head = t.n, 0
    for k in range(t.n):
        seat = (t.dealer + 1 + k) % t.n
        q.order[k] = seat
        q.left[seat] = each


cdef int _queue_head(Table *t, SeatQueue *q) noexcept nogil:
    while q.head < q.length and q.left[q.order[q.head]] == 0:
        q.head += 1
    return q.order[q.head] if q.head < q.length else NOBODY


# ---------------------------------------------------------------------- a deal begins
cdef void _start_deal(Table *t) noexcept nogil:
    cdef int card
    t.dealt_given = t.inputs != NULL and t.next_deal < t.inputs.n_deals
    if t.dealt_given:
        t.dealer = t.inputs.deals[t.next_deal].dealer
    memset(t.hands, 0, sizeof(t.hands))
    memset(t.known_dead, 0, sizeof(t.known_dead))
    memset(t.played_by_seat, 0, sizeof(t.played_by_seat))
    t.dead, t.played, t.public_dead = 0, 0, t.r.removed
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
    _open_deal(t)
    _automatic_stakes(t)


cdef void _automatic_stakes(Table *t) noexcept nogil:
    cdef const RuleCodes *r = t.r
    cdef int k, seat, b, mult, base, extra
    cdef int split[4]
    if r.stake_mode == SM_HOUSE:
        t.pot += r.house_pot
        _note(t, EV_STAKE, NOBODY, -1, 0, 0, r.house_pot, NOBODY)
        for b in range(4):
            t.boodle_stacks[b] += r.house_boodle
            _note(t, EV_STAKE, NOBODY, b, 0, 0, r.house_boodle, NOBODY)
        return
    for k in range(t.n):
        seat = (t.dealer + 1 + k) % t.n
        if r.pot_ante:
            _pay_stake(t, seat, -1, <long>r.pot_ante * _multiplier(t, seat), NOBODY)
    if r.stake_mode == SM_CHOOSE:
        _queue_fill(t, &t.stakes, r.boodle_stake)
        return
    base, extra = r.boodle_stake // 4, r.boodle_stake % 4   # SPREAD: extra chips on the first boodles
    for b in range(4):
        split[b] = r.boodle_stake if r.stake_mode == SM_EACH else base + (1 if b < extra else 0)
    for k in range(t.n):
        seat = (t.dealer + 1 + k) % t.n
        mult = _multiplier(t, seat)
        for b in range(4):
            if split[b]:
                _pay_stake(t, seat, b, <long>split[b] * mult, NOBODY)


cdef inline int _multiplier(const Table *t, int seat) noexcept nogil:
    return t.r.dealer_multiplier if seat == t.dealer else 1


cdef inline void _pay_stake(Table *t, int seat, int boodle, long amount, int action) noexcept nogil:
    """``seat`` stakes ``amount`` on ``boodle`` (-1: the pot); ``action`` is the choice that made it, if any."""
    t.balances[seat] -= amount
    if boodle < 0:
        t.pot += amount
    else:
        t.boodle_stacks[boodle] += amount
    _note(t, EV_STAKE, seat, boodle, 0, 0, amount, action)


cdef void _ask_stake(Table *t) noexcept nogil:
    cdef int b
    for b in range(4):
        t.legal[b] = STAKE_BASE + b
    t.n_legal = 4
    _ask(t, _queue_head(t, &t.stakes), D_STAKE)


cdef void _on_stake(Table *t, int seat, int action) noexcept nogil:
    t.stakes.left[seat] -= 1
    _pay_stake(t, seat, action - STAKE_BASE, _multiplier(t, seat), action)


# ---------------------------------------------------------------------- the cards
cdef void _deal_cards(Table *t) noexcept nogil:
    cdef int seat
    cdef const GivenDeal *given
    cdef DealMark *deal
    if t.dealt_given:
        given = &t.inputs.deals[t.next_deal]
        t.next_deal += 1
        for seat in range(t.n):
            t.hands[seat] = given.hands[seat]
        t.dead = given.dead
    else:
        _shuffled_deal(t)
    for seat in range(t.n):
        _set_owner(t, t.hands[seat], seat)
    deal = _current_deal(t)
    if deal != NULL:
        deal.dealt, deal.dead = 1, t.dead
        memcpy(deal.hands, t.hands, sizeof(t.hands))
    t.phase = PH_DISCARD
    if t.r.dead_hand == DH_DISCARD:
        _queue_fill(t, &t.discards, t.r.discard_count)


cdef void shuffle(Rng *rng, int *cards, int size) noexcept nogil:
    """random.Random.shuffle: from the last position down, swap with a position drawn below it."""
    cdef int i = size - 1, j, swap
    while i >= 1:
        j = _randbelow(rng, i + 1)
        swap = cards[i]
        cards[i] = cards[j]
        cards[j] = swap
        i -= 1


cdef void _shuffled_deal(Table *t) noexcept nogil:
    """dealing.shuffled_deal: shuffle the sorted deck as random.shuffle does, deal round the order."""
    cdef int deck[NUM_CARDS]
    cdef int size = t.r.deck_size, i, slot
    cdef const int *order = t.r.deal_order[t.dealer]
    memcpy(deck, t.r.deck, size * sizeof(int))
    shuffle(&t.rng, deck, size)
    for i in range(size):   # card i goes to slot i % slots, as one card at a time round the table
        slot = order[i % t.r.deal_slots]
        if slot < 0:
            t.dead |= 1ULL << deck[i]
        else:
            t.hands[slot] |= 1ULL << deck[i]


cdef inline void _set_owner(Table *t, uint64_t mask, int seat) noexcept nogil:
    while mask:
        t.owner[nm_lowest(mask)] = seat
        mask &= mask - 1


cdef void _ask_discard(Table *t) noexcept nogil:
    cdef int seat = _queue_head(t, &t.discards)
    _legal_from_mask(t, t.hands[seat])
    _ask(t, seat, D_DISCARD)


cdef void _legal_from_mask(Table *t, uint64_t mask) noexcept nogil:
    cdef int count = 0
    while mask:
        t.legal[count] = nm_lowest(mask)
        count += 1
        mask &= mask - 1
    t.n_legal = count


cdef void _on_discard(Table *t, int seat, int card) noexcept nogil:
    cdef uint64_t bit = 1ULL << card
    t.discards.left[seat] -= 1
    t.hands[seat] &= ~bit
    t.dead |= bit
    t.owner[card] = NOBODY
    t.known_dead[seat] |= bit
    _note(t, EV_DISCARD, seat, card, 0, 0, 0, card)


# ---------------------------------------------------------------------- the widow
cdef void _start_widow(Table *t) noexcept nogil:
    t.phase = PH_WIDOW
    if t.r.widow == WI_NONE:
        t.phase = PH_PLAY
        return
    t.legal[0], t.legal[1], t.n_legal = KEEP, EXCHANGE, 2
    _ask(t, t.dealer, D_BUY if t.r.widow == WI_BUY else D_WIDOW)


cdef void _on_buy(Table *t, int seat, int action) noexcept nogil:
    t.phase = PH_PLAY
    if action == KEEP:
        _note(t, EV_WIDOW, seat, WIDOW_DECLINE, 0, 0, 0, action)
        return
    _note(t, EV_WIDOW, seat, WIDOW_BUY, 0, 0, 0, action)
    t.balances[seat] -= t.r.widow_fee
    t.pot += t.r.widow_fee
    _note(t, EV_PAYMENT, seat, -1, PAID_WIDOW_FEE, 0, t.r.widow_fee, NOBODY)
    _exchange(t, seat)


cdef void _on_widow(Table *t, int seat, int action) noexcept nogil:
    cdef int s
    if action == EXCHANGE:
        _note(t, EV_WIDOW, seat, WIDOW_EXCHANGE, 0, 0, 0, action)
        _exchange(t, seat)
        t.phase = PH_PLAY
        return
    _note(t, EV_WIDOW, seat, WIDOW_KEEP, 0, 0, 0, action)
    t.phase = PH_AUCTION
    t.auction_open = 1
    for s in range(t.n):
        t.in_auction[s] = s != t.dealer
    t.auction_cursor = (t.dealer + 1) % t.n


cdef void _exchange(Table *t, int seat) noexcept nogil:
    cdef uint64_t old = t.hands[seat]
    t.hands[seat], t.dead = t.dead, old
    _set_owner(t, old, NOBODY)
    _set_owner(t, t.hands[seat], seat)
    t.known_dead[seat] |= old
    t.widow_taker = seat


# ---------------------------------------------------------------------- the auction
cdef void _auction_next(Table *t) noexcept nogil:
    cdef int s, bidders = 0, only = NOBODY, seat, low, k
    for s in range(t.n):
        if t.in_auction[s]:
            bidders += 1
            only = s
    if bidders == 0 or (bidders == 1 and only == t.high_bidder):
        _end_auction(t)
        return
    seat = t.auction_cursor
    while not t.in_auction[seat] or seat == t.high_bidder:
        seat = (seat + 1) % t.n
    t.auction_cursor = (seat + 1) % t.n
    low = t.r.min_bid if t.r.min_bid > t.high_bid + 1 else t.high_bid + 1
    t.legal[0], t.n_legal = PASS, 1
    for k in range(low, t.r.max_bid + 1):
        t.legal[t.n_legal] = BID_BASE + k - 1
        t.n_legal += 1
    _ask(t, seat, D_BID)


cdef void _on_bid(Table *t, int seat, int action) noexcept nogil:
    if action == PASS:
        t.in_auction[seat] = 0
        _note(t, EV_PASS, seat, 0, 0, 0, 0, action)
        return
    t.high_bid, t.high_bidder = action - BID_BASE + 1, seat
    _note(t, EV_BID, seat, 0, 0, 0, t.high_bid, action)


cdef void _end_auction(Table *t) noexcept nogil:
    cdef int bidder = t.high_bidder
    t.phase = PH_PLAY
    if bidder == NOBODY:
        _note(t, EV_AUCTION_END, NOBODY, 0, 0, 0, 0, NOBODY)
        return
    t.balances[bidder] -= t.high_bid
    t.balances[t.dealer] += t.high_bid
    _note(t, EV_PAYMENT, bidder, t.dealer, PAID_BID, 0, t.high_bid, NOBODY)
    _note(t, EV_WIDOW, bidder, WIDOW_EXCHANGE, 0, 0, 0, NOBODY)
    _exchange(t, bidder)


# ---------------------------------------------------------------------- play
cdef int lowest_of_suit(uint64_t mask, int suit, bint ace_high) noexcept nogil:
    """order.lowest_of_suit: the lowest card of ``suit`` in ``mask`` under the rank order, or -1."""
    cdef uint64_t in_suit = mask & (SUIT_MASK << (NUM_RANKS * suit)), without_ace
    if not in_suit:
        return -1
    if ace_high:
        without_ace = in_suit & ~(1ULL << (NUM_RANKS * suit))
        if without_ace:
            in_suit = without_ace
    return nm_lowest(in_suit)


cdef int lowest_per_suit(int *out, uint64_t mask, int skip_a, int skip_b, bint ace_high) noexcept nogil:
    """order.lowest_per_suit over the suits other than ``skip_a``/``skip_b`` into ``out``; the count."""
    cdef int suit, card, count = 0
    for suit in range(4):
        if suit == skip_a or suit == skip_b:
            continue
        card = lowest_of_suit(mask, suit, ace_high)
        if card >= 0:
            out[count] = card
            count += 1
    return count


cdef int _lowest_per_suit(Table *t, uint64_t mask, int skip_a, int skip_b) noexcept nogil:
    t.n_legal = lowest_per_suit(t.legal, mask, skip_a, skip_b, t.r.ace_high)
    return t.n_legal


cdef void _first_lead(Table *t) noexcept nogil:
    """The first lead of the deal (leads.lowest_club_holder for Newbury, else the eldest)."""
    cdef uint64_t in_play = 0
    cdef int seat, card
    if t.r.first_lead == FL_LOWEST_CLUB:
        for seat in range(t.n):
            in_play |= t.hands[seat]
        card = lowest_of_suit(in_play, 0, True)   # clubs, 2 upward and the ace last
        if card >= 0:
            for seat in range(t.n):
                if (t.hands[seat] >> card) & 1:
                    _play_run(t, seat, card, NOBODY)   # forced: no action id in the record
                    return
    seat = (t.dealer + 1) % t.n
    _lowest_per_suit(t, t.hands[seat], -1, -1)
    _ask(t, seat, D_LEAD)


cdef void _play_run(Table *t, int seat, int card, int action) noexcept nogil:
    """Lead ``card`` (chosen by ``action``, NOBODY when forced) and play every forced follow; then stop,
    or end the deal."""
    cdef int following, holder
    cdef bint lead = True
    while True:
        if _play_card(t, seat, card, lead, action):
            return
        lead, action = False, NOBODY
        following = t.r.next_card[card]
        if following < 0:
            _stop(t, seat, card, -1)
            return
        holder = t.owner[following]
        if holder == NOBODY:
            _stop(t, seat, card, following)
            return
        seat, card = holder, following


cdef bint _play_card(Table *t, int seat, int card, bint lead, int action) noexcept nogil:
    """Play one card; True if it ended the deal."""
    cdef uint64_t bit = 1ULL << card
    cdef int boodle
    cdef long amount
    t.hands[seat] &= ~bit
    t.played |= bit
    t.played_by[card] = seat
    t.played_by_seat[seat] |= bit
    t.owner[card] = NOBODY
    t.last_played = card
    _note(t, EV_PLAY, seat, card, lead, 0, 0, action)
    if bit & t.r.boodle_mask:
        boodle = t.r.boodle_of[card]
        amount = t.boodle_stacks[boodle]
        t.boodle_stacks[boodle] = 0
        t.balances[seat] += amount
        _note(t, EV_BOODLE, seat, boodle, card, 0, amount, NOBODY)
    if not t.hands[seat]:
        _go_out(t, seat)
        return True
    return False


cdef void _stop(Table *t, int seat, int card, int following) noexcept nogil:
    cdef uint64_t bit
    cdef int cause = CAUSE_TOP
    if following >= 0:
        bit = 1ULL << following
        if t.r.removed & bit:
            cause = CAUSE_REMOVED
        elif t.played & bit:
            cause = CAUSE_PLAYED
        else:
            cause = CAUSE_DEAD
            t.public_dead |= bit   # docs/rules.md: a stopping card not played is known dead
    _note(t, EV_STOP, seat, card, following, cause, 0, NOBODY)
    if not _options_after_stop(t, seat, card // NUM_RANKS):
        _note(t, EV_BLOCKED, seat, 0, 0, 0, 0, NOBODY)
        _end_deal(t)   # blocked: nobody can lead


cdef bint _options_after_stop(Table *t, int stopper, int suit) noexcept nogil:
    """leads.options_after_stop into ``legal`` and a LEAD decision; False when nobody can lead."""
    cdef int rule = t.r.lead_rule, k, seat, other
    cdef uint64_t colour, of_colour, plain
    if rule == LR_ANY_SUIT:
        _lowest_per_suit(t, t.hands[stopper], -1, -1)
    elif rule == LR_OTHER_SUIT:
        if not _lowest_per_suit(t, t.hands[stopper], suit, -1):
            t.legal[0], t.n_legal = lowest_of_suit(t.hands[stopper], suit, t.r.ace_high), 1
    elif rule == LR_OPPOSITE:
        # the suits of the other colour: clubs (0) and spades (3) are black, diamonds and hearts red
        other = 3 - suit
        for k in range(t.n):
            seat = (stopper + k) % t.n
            if _lowest_per_suit(t, t.hands[seat], suit, other):
                _ask(t, seat, D_LEAD)
                return True
        _lowest_per_suit(t, t.hands[stopper], -1, -1)
    else:
        # any card of the other colour, boodles only when nothing else
        colour = BLACK_MASK if suit == 1 or suit == 2 else RED_MASK
        for k in range(t.n):
            seat = (stopper + k) % t.n
            of_colour = t.hands[seat] & colour
            if of_colour:
                plain = of_colour & ~t.r.boodle_mask
                _legal_from_mask(t, plain if plain else of_colour)
                _ask(t, seat, D_LEAD)
                return True
        return False
    _ask(t, stopper, D_LEAD)
    return True


# ---------------------------------------------------------------------- settlement
cdef void _go_out(Table *t, int winner) noexcept nogil:
    cdef int seat
    cdef long owed
    _note(t, EV_OUT, winner, 0, 0, 0, 0, NOBODY)
    if t.pot:
        t.balances[winner] += t.pot
        _note(t, EV_POT, winner, 0, 0, 0, t.pot, NOBODY)
        t.pot = 0
    for seat in range(t.n):
        owed = <long>t.r.per_card_payment * nm_popcount(t.hands[seat])
        if seat != winner and owed:
            t.balances[seat] -= owed
            t.balances[winner] += owed
            _note(t, EV_PAYMENT, seat, winner, PAID_CARDS, 0, owed, NOBODY)
    _end_deal(t)


cdef void _end_deal(Table *t) noexcept nogil:
    cdef bint last
    cdef DealMark *deal
    t.deal_index += 1
    t.to_act, t.decision, t.n_legal = NOBODY, D_NONE, 0
    last = t.deal_index >= t.r.num_deals
    if last:
        _settle_leftovers(t)
    deal = _current_deal(t)
    if deal != NULL:
        deal.closed = 1
        memcpy(deal.chips, t.balances, sizeof(t.balances))
    if last:
        t.over = 1
        t.phase = PH_OVER
        return
    if not (t.inputs != NULL and t.next_deal < t.inputs.n_deals):
        t.dealer = (t.dealer + 1) % t.n
    _start_deal(t)


cdef void _settle_leftovers(Table *t) noexcept nogil:
    cdef int b, seat
    cdef long amount
    for b in range(5):   # the four boodles in layout order, then the pot
        amount = t.boodle_stacks[b] if b < 4 else t.pot
        if not amount:
            continue
        seat = NOBODY
        if t.r.leftover == LO_LOT:
            if t.inputs != NULL and t.next_lot < t.inputs.n_lots:
                seat = t.inputs.lots[t.next_lot]
                t.next_lot += 1
            else:
                seat = _randbelow(&t.rng, t.n)
            t.balances[seat] += amount
        _note(t, EV_LEFTOVER, seat, b if b < 4 else -1, 0, 0, amount, NOBODY)
    memset(t.boodle_stacks, 0, sizeof(t.boodle_stacks))
    t.pot = 0


# ---------------------------------------------------------------------- observing
cdef inline double _chips(long value) noexcept nogil:
    cdef double scaled = value / CHIP_SCALE
    return CHIP_CLIP if scaled > CHIP_CLIP else (-CHIP_CLIP if scaled < -CHIP_CLIP else scaled)


cdef inline int _rel(int seat, int viewer, int n) noexcept nogil:
    """``seat`` relative to ``viewer`` (0 = the viewer); both in 0..n-1, so no division."""
    return seat - viewer if seat >= viewer else seat - viewer + n


cdef inline void _set_cards(float *plane, uint64_t mask) noexcept nogil:
    """``plane[card] = 1.0`` for every card of ``mask`` (the plane was zero: a few cards, not 52 writes)."""
    while mask:
        plane[nm_lowest(mask)] = 1.0
        mask &= mask - 1


cdef void encode_table(const Table *t, int viewer, float *vec, const float *static) noexcept nogil:
    """``viewer``'s flat observation (what encode.encode_flat returns) into ``vec``.

    ``static`` (the pieces fixed by the rules) is copied in whole, then only what
    is set is written: a few cards per plane, a few scalars.
    """
    cdef int n = t.n, k, seat, b
    memcpy(vec, static, OBS_SIZE * sizeof(float))
    _set_cards(vec + AT_HAND, t.hands[viewer])
    for k in range(n):
        _set_cards(vec + AT_PLAYED_BY + 52 * k, t.played_by_seat[viewer + k if viewer + k < n else viewer + k - n])
    _set_cards(vec + AT_KNOWN_DEAD, t.public_dead | t.known_dead[viewer])
    if t.played and t.last_played >= 0:
        vec[AT_LAST_CARD + t.last_played] = 1.0
    for b in range(4):
        vec[AT_BOODLE_VALUE + t.r.boodle_cards[b]] = _chips(t.boodle_stacks[b])
        vec[AT_BOODLE_STACKS + b] = _chips(t.boodle_stacks[b])
    vec[AT_POT] = _chips(t.pot)
    for k in range(n):
        seat = viewer + k if viewer + k < n else viewer + k - n
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
    k = t.r.num_deals - t.deal_index - 1
    vec[AT_DEALS_LEFT] = (k if k > 0 else 0) / <double>t.r.num_deals


cdef void write_mask(const Table *t, signed char *mask) noexcept nogil:
    """The legal actions of the pending decision as 0/1 over every action id."""
    cdef int i
    memset(mask, 0, NUM_ACTIONS)
    for i in range(t.n_legal):
        mask[t.legal[i]] = 1


# ---------------------------------------------------------------------- the baseline policies, compiled
# agents/lowest.py, agents/greedy.py, agents/control.py and agents/hand_value.py, decision by decision:
# the Python classes stay the readable reference and tests/batch/test_compiled_policies.py checks that
# both choose the same action on every decision of many sessions. Floating-point sums are written in
# the reference's order so that ties and thresholds fall the same way.

cdef enum:
    POLICY_RANDOM = 0
    POLICY_LOWEST = 1
    POLICY_GREEDY = 2
    POLICY_CONTROL = 3
    NUM_POLICIES = 4

POLICY_CODES = {"random": POLICY_RANDOM, "lowest": POLICY_LOWEST, "greedy": POLICY_GREEDY,
                "control": POLICY_CONTROL}

# The weights, as the Python agents read them (newmarket_env/tuning.py), copied into C once.
cdef double GO_OUT = T.GO_OUT
cdef double LEAD_PER_CARD_SHED = T.LEAD_PER_CARD_SHED, LEAD_PER_BOODLE_REACHED = T.LEAD_PER_BOODLE_REACHED
cdef double LEAD_PER_SUIT_CARD = T.LEAD_PER_SUIT_CARD, LEAD_UNOPENED_SUIT = T.LEAD_UNOPENED_SUIT
cdef double LEAD_PER_RANK = T.LEAD_PER_RANK
cdef double SCATTER_LIMIT = T.SCATTER_LIMIT, SCATTER_EXCHANGE_MARGIN = T.SCATTER_EXCHANGE_MARGIN
cdef double CONTROL = T.CONTROL, STOP_LEAD_SHARE = T.STOP_LEAD_SHARE
cdef double EXCHANGE_MARGIN = T.EXCHANGE_MARGIN, AUCTION_VALUE = T.AUCTION_VALUE
cdef int PLAN_DEPTH = T.PLAN_DEPTH
cdef double DISCARD_BOODLE = T.DISCARD_BOODLE, DISCARD_PER_RANK = T.DISCARD_PER_RANK
cdef double DISCARD_MAKES_STOP = T.DISCARD_MAKES_STOP, DISCARD_OPENS_GAP = T.DISCARD_OPENS_GAP
cdef double DISCARD_ISOLATED = T.DISCARD_ISOLATED
cdef double SEGMENT_COST = T.SEGMENT_COST, STOP_VALUE = T.STOP_VALUE
cdef double CARD_COST = T.CARD_COST, BOODLE_SHARE = T.BOODLE_SHARE
cdef int WIDOW_SAMPLES = T.WIDOW_SAMPLES
cdef uint64_t FULL_DECK = (1ULL << NUM_CARDS) - 1


cdef struct View:
    # What the deciding seat knows that the baselines read (observation/view.py's ObservationView).
    uint64_t hand, played, known_dead
    long boodle_stacks[4]
    int dead_count, own_pending, decision, n_legal
    int legal[MAX_LEGAL]           # ascending ids, as the action mask lists them


cdef void view_of_table(View *v, const Table *t, int seat) noexcept nogil:
    """The view ``seat`` decodes from its observation (chip stacks clipped as the encoding clips them)."""
    cdef int b, i
    cdef long limit = <long>(CHIP_SCALE * CHIP_CLIP)
    v.hand, v.played, v.known_dead = t.hands[seat], t.played, t.public_dead | t.known_dead[seat]
    for b in range(4):
        v.boodle_stacks[b] = limit if t.boodle_stacks[b] > limit else (
            -limit if t.boodle_stacks[b] < -limit else t.boodle_stacks[b])
    v.dead_count = nm_popcount(t.dead)
    v.own_pending = t.stakes.left[seat] + t.discards.left[seat]
    v.decision = t.decision
    v.n_legal = t.n_legal
    for i in range(t.n_legal):
        v.legal[i] = t.legal[i]
    _sort_legal(v)


cdef void _sort_legal(View *v) noexcept nogil:
    """Insertion sort: the engine lists legal actions in ascending order already, so this only checks."""
    cdef int i, j, a
    for i in range(1, v.n_legal):
        a = v.legal[i]
        j = i - 1
        while j >= 0 and v.legal[j] > a:
            v.legal[j + 1] = v.legal[j]
            j -= 1
        v.legal[j + 1] = a


cdef inline long _round_chips(double x) noexcept nogil:
    return <long>llround(x * CHIP_SCALE)


cdef uint64_t _bits(const float *vec, int start) noexcept nogil:
    cdef uint64_t mask = 0
    cdef int card
    for card in range(NUM_CARDS):
        if vec[start + card] > 0.5:
            mask |= 1ULL << card
    return mask


cdef void view_of_vector(View *v, const float *vec, const signed char *action_mask, int n) noexcept nogil:
    """The same view decoded from a flat observation and its action mask (view.decode)."""
    cdef int b, k, a
    v.hand = _bits(vec, AT_HAND)
    v.played = 0
    for k in range(n):
        v.played |= _bits(vec, AT_PLAYED_BY + 52 * k)
    v.known_dead = _bits(vec, AT_KNOWN_DEAD)
    for b in range(4):
        v.boodle_stacks[b] = _round_chips(vec[AT_BOODLE_STACKS + b])
    v.dead_count = <int>llround(vec[AT_DEAD_COUNT] * 13.0)
    v.own_pending = <int>llround(vec[AT_OWN_PENDING] * 4.0)
    v.decision = D_NONE
    for k in range(6):
        if vec[AT_DECISION + k] > 0.5:
            v.decision = k
            break
    v.n_legal = 0
    for a in range(NUM_ACTIONS):
        if action_mask[a]:
            v.legal[v.n_legal] = a
            v.n_legal += 1


# --------------------------------------------------------------- knowledge.py
cdef inline uint64_t _suit_mask_of(int card) noexcept nogil:
    return SUIT_MASK << (NUM_RANKS * (card // NUM_RANKS))


cdef inline long _boodle_value(const View *v, const RuleCodes *r, int card) noexcept nogil:
    cdef int b = r.boodle_of[card]
    return v.boodle_stacks[b] if b >= 0 else 0


cdef int _own_chain(const RuleCodes *r, uint64_t hand, int card, int *chain, int *following) noexcept nogil:
    """knowledge.own_chain: the held cards played in a row from ``card``; the count, and the card after."""
    cdef int count = 1, nxt = r.next_card[card]
    chain[0] = card
    while nxt >= 0 and (hand >> nxt) & 1:
        chain[count] = nxt
        count += 1
        nxt = r.next_card[nxt]
    following[0] = nxt
    return count


cdef uint64_t _unseen(const View *v, const RuleCodes *r) noexcept nogil:
    return FULL_DECK & ~r.removed & ~v.hand & ~v.played & ~v.known_dead


cdef int _hidden_dead_count(const View *v, const RuleCodes *r) noexcept nogil:
    cdef int count = v.dead_count - nm_popcount(v.known_dead & ~r.removed)
    return count if count > 0 else 0


cdef long _boodles_above(const View *v, const RuleCodes *r, int card) noexcept nogil:
    cdef long chips = 0
    cdef int b, boodle
    for b in range(4):
        boodle = r.boodle_cards[b]
        if (v.hand >> boodle) & 1 and boodle // NUM_RANKS == card // NUM_RANKS \
                and r.order_key[boodle] > r.order_key[card]:
            chips += v.boodle_stacks[b] + 1
    return chips


cdef int _own_leads(const RuleCodes *r, uint64_t hand, int stopped, int *out) noexcept nogil:
    """knowledge.own_leads: the cards the viewer may lead after stopping on ``stopped``."""
    cdef int suit = stopped // NUM_RANKS, count, rule = r.lead_rule
    cdef uint64_t of_colour, plain
    if rule == LR_ANY_SUIT:
        return lowest_per_suit(out, hand, -1, -1, r.ace_high)
    if rule == LR_OTHER_SUIT:
        count = lowest_per_suit(out, hand, suit, -1, r.ace_high)
        return count if count else _only_suit(r, hand, suit, out)
    if rule == LR_OPPOSITE:
        return lowest_per_suit(out, hand, suit, 3 - suit, r.ace_high)
    of_colour = hand & (BLACK_MASK if suit == 1 or suit == 2 else RED_MASK)
    plain = of_colour & ~r.boodle_mask
    return _cards_of(plain if plain else of_colour, out)


cdef int _only_suit(const RuleCodes *r, uint64_t hand, int suit, int *out) noexcept nogil:
    cdef int card = lowest_of_suit(hand, suit, r.ace_high)
    if card < 0:
        return 0
    out[0] = card
    return 1


cdef int _cards_of(uint64_t mask, int *out) noexcept nogil:
    cdef int count = 0
    while mask:
        out[count] = nm_lowest(mask)
        count += 1
        mask &= mask - 1
    return count


cdef int _segment_count(const RuleCodes *r, uint64_t hand, uint64_t known, int *stops) noexcept nogil:
    """len(knowledge.segments(hand)), and in ``stops`` how many runs end on a top card or a ``known`` card."""
    cdef int count = 0, card, prev, following
    cdef int chain[NUM_CARDS]
    cdef uint64_t mask = hand
    stops[0] = 0
    while mask:
        card = nm_lowest(mask)
        mask &= mask - 1
        prev = r.previous_card[card]
        if prev < 0 or not (hand >> prev) & 1:
            count += 1
            _own_chain(r, hand, card, chain, &following)
            if following < 0 or (known >> following) & 1:
                stops[0] += 1
    return count


# --------------------------------------------------------------- greedy.py
cdef double _lead_score(const View *v, const RuleCodes *r, int card) noexcept nogil:
    cdef int chain[NUM_CARDS]
    cdef int length, following, i
    cdef long taken = 0
    cdef double score
    length = _own_chain(r, v.hand, card, chain, &following)
    if length == nm_popcount(v.hand):
        return GO_OUT
    for i in range(length):
        if r.boodle_of[chain[i]] >= 0:
            taken += _boodle_value(v, r, chain[i]) + 1
    score = LEAD_PER_CARD_SHED * length + taken
    score += LEAD_PER_BOODLE_REACHED * _boodles_above(v, r, chain[length - 1])
    score += LEAD_PER_SUIT_CARD * nm_popcount(v.hand & _suit_mask_of(card))
    score += 0.0 if v.played & _suit_mask_of(card) else LEAD_UNOPENED_SUIT
    return score - LEAD_PER_RANK * r.order_key[card]


cdef double _scatter(const RuleCodes *r, uint64_t hand) noexcept nogil:
    cdef int count = nm_popcount(hand), stops
    if not count:
        return 0.0
    return <double>_segment_count(r, hand, 0, &stops) / count


cdef bint _wants_widow(const View *v, const RuleCodes *r, double limit) noexcept nogil:
    return not (v.hand & r.boodle_mask) and _scatter(r, v.hand) > limit


cdef int _cheapest_bid(const View *v) noexcept nogil:
    cdef int i
    for i in range(v.n_legal):
        if v.legal[i] != PASS:
            return v.legal[i]
    return PASS


cdef int _greedy(const View *v, const RuleCodes *r) noexcept nogil:
    cdef int i, card, best = -1, b, fewest, cheapest
    cdef double score, best_score = 0.0
    if v.decision == D_LEAD:
        for i in range(v.n_legal):
            card = v.legal[i]
            score = _lead_score(v, r, card)
            if best < 0 or score > best_score:   # ascending ids: a tie keeps the lower card
                best, best_score = card, score
        return best
    if v.decision == D_DISCARD:
        return _highest_plain_discard(v, r)
    if v.decision == D_STAKE:
        fewest = 0
        for b in range(1, 4):
            if v.boodle_stacks[b] < v.boodle_stacks[fewest]:
                fewest = b
        return STAKE_BASE + fewest
    if v.decision == D_BUY:
        return EXCHANGE if _wants_widow(v, r, SCATTER_LIMIT + SCATTER_EXCHANGE_MARGIN) else KEEP
    if v.decision == D_BID:
        cheapest = _cheapest_bid(v)
        if cheapest - BID_BASE + 1 <= 2 and _wants_widow(v, r, SCATTER_LIMIT):
            return cheapest
        return PASS
    return KEEP   # the widow: keep (a Michigan dealer who keeps sells it)


cdef int _highest_plain_discard(const View *v, const RuleCodes *r) noexcept nogil:
    """The highest card by rank order (ties: the higher id), boodles only when nothing else."""
    cdef int i, card, best = -1, pass_ = 0
    for pass_ in range(2):
        for i in range(v.n_legal):
            card = v.legal[i]
            if pass_ == 0 and r.boodle_of[card] >= 0:
                continue
            if best < 0 or r.order_key[card] >= r.order_key[best]:
                best = card
        if best >= 0:
            return best
    return v.legal[0]


# --------------------------------------------------------------- control.py and hand_value.py
cdef double _plan_value(const View *v, const RuleCodes *r, uint64_t hand, uint64_t known, int card, int depth,
                        double p_dead) noexcept nogil:
    cdef int chain[NUM_CARDS]
    cdef int options[NUM_CARDS]
    cdef int length, following, i, count
    cdef uint64_t rest = hand, played = known
    cdef double gain = 0.0, value, best
    length = _own_chain(r, hand, card, chain, &following)
    for i in range(length):
        rest &= ~(1ULL << chain[i])
        gain += 1.0 + (<double>(_boodle_value(v, r, chain[i]) + 1) if (r.boodle_mask >> chain[i]) & 1 else 0.0)
    if not rest:
        return gain + GO_OUT
    for i in range(length):
        played |= 1ULL << chain[i]
    if following >= 0 and not (played >> following) & 1:
        return gain + p_dead * CONTROL + STOP_LEAD_SHARE * _lead_score(v, r, card)
    count = _own_leads(r, rest, chain[length - 1], options)
    if not count:
        return gain
    if depth == 0:
        return gain + CONTROL
    best = _plan_value(v, r, rest, played, options[0], depth - 1, p_dead)
    for i in range(1, count):
        value = _plan_value(v, r, rest, played, options[i], depth - 1, p_dead)
        if value > best:
            best = value
    return gain + CONTROL + best


cdef double _discard_score(const View *v, const RuleCodes *r, int card) noexcept nogil:
    cdef int prev, following
    cdef bint prev_held, next_held
    cdef double score
    if (r.boodle_mask >> card) & 1:
        return DISCARD_BOODLE
    prev, following = r.previous_card[card], r.next_card[card]
    prev_held = prev >= 0 and (v.hand >> prev) & 1
    next_held = following >= 0 and (v.hand >> following) & 1
    score = DISCARD_PER_RANK * r.order_key[card]
    score += DISCARD_MAKES_STOP if prev_held else 0.0
    score -= DISCARD_OPENS_GAP if next_held else 0.0
    score += DISCARD_ISOLATED if not prev_held and not next_held else 0.0
    return score


cdef double _hand_value(const View *v, const RuleCodes *r, uint64_t hand, uint64_t known) noexcept nogil:
    cdef int stops, segments = _segment_count(r, hand, known, &stops), i, b, card
    cdef double value = 0.0
    # -SEGMENT_COST per run, +STOP_VALUE per run ending on a stop: whole numbers, exact in any order
    for i in range(segments):
        value -= SEGMENT_COST
    for i in range(stops):
        value += STOP_VALUE
    for b in range(4):
        card = r.boodle_cards[b]
        if (hand >> card) & 1:
            value += BOODLE_SHARE * (v.boodle_stacks[b] + 1)
    return value - CARD_COST * r.per_card_payment * nm_popcount(hand)


cdef double _widow_gain(const View *v, const RuleCodes *r, Rng *rng) noexcept nogil:
    """hand_value.widow_gain: the mean value of sampled dead hands minus the value of the own hand."""
    cdef int pool[NUM_CARDS]
    cdef int size, available, s, i, j, swap
    cdef uint64_t out_of_play, widow
    cdef double keep, total = 0.0
    available = _cards_of(_unseen(v, r), pool)
    size = v.dead_count if v.dead_count < available else available
    if size == 0:
        return -1e9
    out_of_play = v.known_dead | v.played
    keep = _hand_value(v, r, v.hand, out_of_play)
    for s in range(WIDOW_SAMPLES):
        widow = 0   # hand_value.sample_widow: a partial Fisher-Yates shuffle, one randrange per card
        for i in range(size):
            j = i + _randbelow(rng, available - i)
            swap = pool[i]
            pool[i] = pool[j]
            pool[j] = swap
            widow |= 1ULL << pool[i]
        total += _hand_value(v, r, widow, out_of_play | v.hand)
    return total / WIDOW_SAMPLES - keep


cdef int _control(const View *v, const RuleCodes *r, Rng *rng) noexcept nogil:
    cdef int i, card, best = -1, unseen_count, cheapest
    cdef double score, best_score = 0.0, p_dead, worth
    cdef uint64_t known
    if v.decision == D_LEAD:
        unseen_count = nm_popcount(_unseen(v, r))
        p_dead = <double>_hidden_dead_count(v, r) / (unseen_count if unseen_count > 1 else 1)
        known = v.played | v.known_dead
        for i in range(v.n_legal):
            card = v.legal[i]
            score = _plan_value(v, r, v.hand, known, card, PLAN_DEPTH, p_dead)
            if best < 0 or score > best_score:
                best, best_score = card, score
        return best
    if v.decision == D_DISCARD:
        for i in range(v.n_legal):
            card = v.legal[i]
            score = _discard_score(v, r, card)
            if best < 0 or score >= best_score:   # ties: the higher id, as max(key=(score, card))
                best, best_score = card, score
        return best
    if v.decision == D_WIDOW:
        return EXCHANGE if _widow_gain(v, r, rng) > AUCTION_VALUE + EXCHANGE_MARGIN else KEEP
    if v.decision == D_BUY:
        return EXCHANGE if _widow_gain(v, r, rng) > r.widow_fee + EXCHANGE_MARGIN else KEEP
    if v.decision == D_BID:
        cheapest = _cheapest_bid(v)
        worth = _widow_gain(v, r, rng) - EXCHANGE_MARGIN
        return cheapest if cheapest - BID_BASE + 1 <= worth else PASS
    return _greedy(v, r)   # stakes: as greedy


cdef int _lowest(const View *v, const RuleCodes *r) noexcept nogil:
    if v.decision == D_STAKE:
        return STAKE_BASE + (r.boodle_stake - v.own_pending) % 4
    if v.decision == D_WIDOW or v.decision == D_BUY:
        return KEEP
    if v.decision == D_BID:
        return PASS
    return v.legal[0]


cdef int decide(int policy, const View *v, const RuleCodes *r, Rng *rng) noexcept nogil:
    """The action ``policy`` takes at the view's decision (Policy.decide / RandomAgent.act)."""
    if policy == POLICY_RANDOM:
        return v.legal[_randbelow(rng, v.n_legal)]
    if v.n_legal == 1:
        return v.legal[0]
    if policy == POLICY_LOWEST:
        return _lowest(v, r)
    if policy == POLICY_GREEDY:
        return _greedy(v, r)
    return _control(v, r, rng)


cdef class CompiledPolicy:
    """One baseline deciding in C from an observation: what the registered agents run when built.

    ``seed`` seeds its random stream as ``random.Random(seed)`` does (the Python
    policies draw from one); :meth:`restart` starts that stream again.
    """

    cdef RuleCodes r
    cdef Rng rng
    cdef View view
    cdef readonly int code
    cdef readonly object rules, seed

    def __init__(self, name, rules, seed=None):
        if name not in POLICY_CODES:
            raise ValueError(f"policy {name!r} is unknown; allowed: {', '.join(POLICY_CODES)}")
        self.code, self.rules, self.seed = POLICY_CODES[name], rules, seed
        load_rules(&self.r, rules)
        self.restart()

    def restart(self):
        """Start the random stream again from ``seed`` (a fresh draw when the seed is None)."""
        seed_rng(&self.rng, self.seed if self.seed is not None else int.from_bytes(os.urandom(16), "little"))

    def act(self, const float[::1] observation, const signed char[::1] action_mask):
        """The action for a flat observation (FLAT_SIZE float32) and its action mask (NUM_ACTIONS int8)."""
        if observation.shape[0] != OBS_SIZE or action_mask.shape[0] != NUM_ACTIONS:
            raise ValueError(f"act needs a float32 observation of {OBS_SIZE} and an int8 mask of {NUM_ACTIONS}")
        view_of_vector(&self.view, &observation[0], &action_mask[0], self.r.n)
        if self.view.n_legal == 0:
            raise ValueError("act() was given an observation whose action_mask has no legal action")
        return decide(self.code, &self.view, &self.r, &self.rng)


# ---------------------------------------------------------------------- positions and search
cdef int DH_DEALT = _code(DeadHand.DEALT)


cdef void table_at(Table *t, const RuleCodes *r, Inputs *placeholder, position, uint64_t seed) except *:
    """Game.at_position on a Table: the public state of ``position``, no cards yet (see set_hidden_cards).

    ``placeholder`` receives the plain next deal of ``plain_next_deal=True`` (the
    caller plays only to the end of this deal and would waste a shuffle).
    """
    cdef int s, k, viewer = position.viewer, n = r.n
    cdef Rng rng
    # Game.at_position builds Game(rules, seed) first, whose first deal draws from the generator:
    # the same draws here, so later lots fall alike.
    seed_rng_u64(&t.rng, seed)
    start_session(t, r, NULL, NULL, NULL, 0)
    rng = t.rng
    memset(t, 0, sizeof(Table))
    t.rng = rng
    t.r, t.n, t.inputs, t.log, t.present_forced = r, n, NULL, NULL, 0
    t.events = NULL
    for s in range(n):
        t.balances[s] = position.balances[s]
    for s in range(4):
        t.boodle_stacks[s] = position.boodle_stacks[s]
    t.pot, t.dealer, t.deal_index = position.pot, position.dealer, position.deal_index
    t.phase = PHASE_ORDER.index(position.phase)
    t.to_act, t.decision = viewer, DECISION_ORDER.index(position.decision)
    t.n_legal = len(position.legal)
    for k, action in enumerate(position.legal):
        t.legal[k] = action
    t.high_bid, t.high_bidder, t.widow_taker = position.high_bid, position.high_bidder, position.widow_taker
    t.auction_open = len(position.in_auction) > 0
    for s, inside in enumerate(position.in_auction):
        t.in_auction[s] = inside
    t.auction_cursor = (viewer + 1) % n
    if t.decision == D_STAKE:
        _queue_after(t, &t.stakes, viewer, position.viewer_pending, r.boodle_stake)
    elif t.decision == D_DISCARD:
        _queue_after(t, &t.discards, viewer, position.viewer_pending, r.discard_count)
    t.public_dead = position.public_dead
    t.last_played = -1 if position.last_played is None else position.last_played
    played_by = position.played_by
    for k in range(NUM_CARDS):   # Position.played (a card with a player), without its Python loop
        s = played_by[k]
        t.played_by[k] = s
        if s >= 0:
            t.played_by_seat[s] |= 1ULL << k
            t.played |= 1ULL << k
    t.known_dead[viewer] = position.viewer_known_dead
    if t.phase != PH_STAKE:
        _placeholder_deal(t, r, placeholder)
        t.inputs = placeholder


cdef void _queue_after(Table *t, SeatQueue *q, int viewer, int pending, int each) noexcept nogil:
    """The viewer owes ``pending``, and each seat after it in the round (eldest first, dealer last) ``each``."""
    cdef int k, seat, found = 0
    q.length, q.head = 0, 0
    q.order[q.length] = viewer
    q.left[viewer] = pending
    q.length += 1
    for k in range(t.n):
        seat = (t.dealer + 1 + k) % t.n
        if found:
            q.order[q.length] = seat
            q.left[seat] = each
            q.length += 1
        if seat == viewer:
            found = 1


cdef void _placeholder_deal(const Table *t, const RuleCodes *r, Inputs *out) noexcept nogil:
    """game._placeholder_deal: every card not removed, in seat order, for the next dealer."""
    cdef GivenDeal *deal = out.deals
    cdef int share = r.deck_size // (r.n + 1), s, i
    memset(deal, 0, sizeof(GivenDeal))
    deal.dealer = (t.dealer + 1) % r.n
    for s in range(r.n):
        for i in range(s * share, (s + 1) * share):
            deal.hands[s] |= 1ULL << r.deck[i]
    for i in range(r.n * share, r.deck_size):
        if r.dead_hand == DH_DEALT:
            deal.dead |= 1ULL << r.deck[i]
        else:
            deal.hands[r.n - 1] |= 1ULL << r.deck[i]
    out.n_deals, out.n_lots = 1, 0


cdef void set_hidden_cards(Table *t, const uint64_t *hands, uint64_t dead) noexcept nogil:
    """_set_position_cards: these hands and dead hand, every card's owner from them."""
    cdef int s, card
    for card in range(NUM_CARDS):
        t.owner[card] = NOBODY
    for s in range(t.n):
        t.hands[s] = hands[s]
        _set_owner(t, hands[s], s)
    t.dead = dead


cdef double play_out(Table *world, int action, int policy, const RuleCodes *r, Rng *rng, View *view) noexcept nogil:
    """SearchAgent._play_out on a copy of ``world``: take ``action``, play every seat by ``policy`` to the
    end of the deal; the chip change of seat 0 (the viewer)."""
    cdef Table game = world[0]
    cdef long start = game.balances[0]
    cdef int deal = game.deal_index
    apply_action(&game, action)
    while not game.over and game.deal_index == deal:
        view_of_table(view, &game, game.to_act)   # observation/view.py's view_of_game: clipped, as decoded
        apply_action(&game, decide(policy, view, r, rng))
    return <double>(game.balances[0] - start)


cdef class CompiledSearch:
    """The world sampling and rollouts of ``search`` (agents/search.py) in C, with the same draws.

    ``worlds`` mirrors the agent's ``random.Random(seed)`` for sampling worlds and
    ``rollout`` its rollout policy (a :class:`CompiledPolicy` of the same seed), so
    for the same seed the means of :meth:`evaluate` equal the Python agent's.
    """

    cdef RuleCodes r
    cdef Rng worlds
    cdef Table template, world
    cdef Inputs placeholder
    cdef GivenDeal placeholder_deal
    cdef View view
    cdef readonly CompiledPolicy rollout
    cdef readonly object rules, seed

    def __init__(self, rules, seed, rollout):
        self.rules, self.seed = rules, seed
        load_rules(&self.r, rules)
        self.rollout = CompiledPolicy(rollout, rules, seed)
        self.placeholder.deals = &self.placeholder_deal
        self.restart()

    def restart(self):
        """Both streams from ``seed`` again (SearchAgent.reset)."""
        seed_rng(&self.worlds, self.seed if self.seed is not None else int.from_bytes(os.urandom(16), "little"))
        self.rollout.restart()

    def evaluate(self, position, uint64_t hand, uint64_t unseen, uint64_t dead_known, card_counts, candidates,
                 int budget):
        """SearchAgent.evaluate: mean chip change of each candidate over ``budget`` shared sampled worlds.

        ``unseen`` are the cards to deal out (knowledge.unseen), ``card_counts`` the
        other seats' hand sizes (seats 1..n-1 of the view frame), ``dead_known`` the
        known part of the dead hand; the viewer sits at seat 0 holding ``hand``.
        """
        return self.evaluate_worlds(position, hand, unseen, dead_known, card_counts, candidates, budget).mean(axis=0)

    def evaluate_worlds(self, position, uint64_t hand, uint64_t unseen, uint64_t dead_known, card_counts,
                        candidates, int budget):
        """:meth:`evaluate` world by world: a ``(budget, len(candidates))`` array of the viewer's chip change
        after each candidate in each world (row ``w``: world ``w``), for statistics over the worlds."""
        cdef int counts[MAX_SEATS]
        cdef int acts[MAX_LEGAL]
        cdef int c, w, n_cand = len(candidates)
        if not 1 <= n_cand <= MAX_LEGAL:
            raise ValueError(f"candidates must hold 1 to {MAX_LEGAL} actions; got {n_cand}")
        chips = np.zeros((budget, n_cand))
        cdef double[:, ::1] chip = chips
        self._counts(card_counts, counts)
        for c in range(n_cand):
            acts[c] = candidates[c]
        for w in range(budget):
            self._sample(w, position, hand, unseen, dead_known, counts)
            for c in range(n_cand):
                chip[w, c] = play_out(&self.world, acts[c], self.rollout.code, &self.r, &self.rollout.rng,
                                      &self.view)
        return chips

    def race(self, position, uint64_t hand, uint64_t unseen, uint64_t dead_known, card_counts, candidates,
             bonus, int budget, int round_worlds, double z):
        """GuidedSearchAgent.race_in_python in C: the index of the candidate that wins a race on shared worlds.

        Rounds of ``round_worlds`` new worlds (each round sampled as one :meth:`evaluate_worlds` call, so the
        draws are the same) for the candidates still racing; after a round a candidate's score is its mean
        chips plus its ``bonus``, and a rival leaves once the leader's lead is above ``z`` standard errors of
        their per-world difference, or their difference is the same in every world. Ends with one left or
        after ``budget`` worlds. Chip changes are whole numbers, so the sums here are exact.
        """
        cdef int counts[MAX_SEATS]
        cdef int acts[MAX_LEGAL]
        cdef int alive[MAX_LEGAL]
        cdef double score[MAX_LEGAL]
        cdef double extra[MAX_LEGAL]
        cdef int c, i, w, lead, best, size, n_alive, kept, worlds = 0, n_cand = len(candidates)
        cdef double d, total, squares, spread, best_score
        if not 1 <= n_cand <= MAX_LEGAL or len(bonus) != n_cand:
            raise ValueError(f"candidates must hold 1 to {MAX_LEGAL} actions, and bonus one number for each; "
                             f"got {n_cand} and {len(bonus)}")
        if budget < 1 or round_worlds < 2:
            raise ValueError(f"budget must be >= 1 and round_worlds >= 2; got {budget} and {round_worlds}")
        chips = np.zeros((budget, n_cand))
        cdef double[:, ::1] chip = chips
        self._counts(card_counts, counts)
        for c in range(n_cand):
            acts[c], alive[c], extra[c] = candidates[c], c, bonus[c]
        n_alive = n_cand
        while True:
            size = min(round_worlds, budget - worlds)
            for w in range(size):
                self._sample(w, position, hand, unseen, dead_known, counts)
                for i in range(n_alive):
                    c = alive[i]
                    chip[worlds + w, c] = play_out(&self.world, acts[c], self.rollout.code, &self.r,
                                                   &self.rollout.rng, &self.view)
            worlds += size
            lead = 0
            for i in range(n_alive):
                total = 0
                for w in range(worlds):
                    total += chip[w, alive[i]]
                score[i] = total / worlds + extra[alive[i]]
                if score[i] > score[lead]:
                    lead = i
            if worlds >= budget:
                return alive[lead]
            best, best_score, kept = alive[lead], score[lead], 0
            for i in range(n_alive):
                c = alive[i]
                if c != best:
                    total, squares = 0, 0
                    for w in range(worlds):
                        d = chip[w, best] - chip[w, c]
                        total += d
                        squares += d * d
                    # the standard error of the mean difference: the sample variance (n - 1 in the
                    # denominator) from exact whole-number sums, over the number of worlds
                    spread = sqrt((worlds * squares - total * total) / (worlds * (worlds - 1.0)) / worlds)
                    if best_score - score[i] > z * spread or spread == 0:
                        continue
                alive[kept] = c
                kept += 1
            n_alive = kept
            if n_alive == 1:
                return alive[0]

    cdef void _counts(self, card_counts, int *counts) except *:
        """The other seats' hand sizes (seats 1..n-1 of the view frame) into ``counts[1:n]``."""
        cdef int s
        if len(card_counts) != self.r.n - 1:
            raise ValueError(f"card_counts must give the hand sizes of seats 1..{self.r.n - 1}; "
                             f"got {len(card_counts)} numbers")
        for s in range(1, self.r.n):
            counts[s] = card_counts[s - 1]

    cdef void _sample(self, int w, position, uint64_t hand, uint64_t unseen, uint64_t dead_known,
                      const int *counts) except *:
        """World ``w`` of a search into ``self.world``: agents/sampling.py's sample_world, with its draws."""
        cdef int pool[NUM_CARDS]
        cdef uint64_t hands[MAX_SEATS]
        cdef uint64_t dead
        cdef int size, i, s, start
        size = _cards_of(unseen, pool)      # sample_cards: the unseen cards, shuffled as random.shuffle
        shuffle(&self.worlds, pool, size)
        hands[0], start = hand, 0
        for s in range(1, self.r.n):
            hands[s] = 0
            for i in range(start, start + counts[s]):
                hands[s] |= 1ULL << pool[i]
            start += counts[s]
        dead = dead_known
        for i in range(start, size):
            dead |= 1ULL << pool[i]
        if w == 0:   # the first world is built from the position, seeded as game_at(seed=randrange(2**31))
            table_at(&self.template, &self.r, &self.placeholder, position, _randbits31(&self.worlds))
        self.world = self.template
        set_hidden_cards(&self.world, hands, dead)


cdef inline uint64_t _randbits31(Rng *rng) noexcept nogil:
    """random.Random.randrange(2**31): bit_length(2**31) = 32 bits drawn until below 2**31."""
    cdef uint32_t r = _genrand(rng)
    while r >= 0x80000000U:
        r = _genrand(rng)
    return r


cdef class FastGame:
    """One session, as :class:`~newmarket_env.engine.game.Game` (same constructor, attributes and errors).

    The attributes are read-only: list-valued ones (``hands``, ``balances``,
    ``legal``, ...) are fresh lists at every read, so change the game only
    through :meth:`apply`, as with ``Game``.
    """

    cdef RuleCodes r
    cdef Table t
    cdef Inputs inputs
    cdef ActionLog log
    cdef EventLog record               # kept when record_events: ``deals`` is built from it
    cdef readonly object rules
    cdef readonly int n
    cdef readonly bint record_events
    cdef readonly tuple boodle_cards
    cdef object _seed                  # the seed (None replaced by a drawn one): the replay starts from it
    cdef tuple _given_deals, _given_lots   # the inputs as given (DealtCards and seats), for the replay

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

    # ------------------------------------------------------------------ observing
    def encode_into(self, int viewer, float[::1] out, const float[::1] static):
        """Write ``viewer``'s flat observation into ``out`` (what encode.encode_flat returns)."""
        if out.shape[0] != OBS_SIZE or static.shape[0] != OBS_SIZE:
            raise ValueError(f"encode_into needs float32 arrays of {OBS_SIZE}")
        if not 0 <= viewer < self.n:
            raise ValueError(f"viewer={viewer} is not a seat; allowed: 0..{self.n - 1}")
        encode_table(&self.t, viewer, &out[0], &static[0])

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


# ---------------------------------------------------------------------- many tables
MAX_EMPTY_SESSIONS = T.MAX_EMPTY_SESSIONS   # sessions in a row that end without a decision: a table gives up


def table_seed(seed, table):
    """The seed of table ``table``'s random stream in a batch seeded with ``seed``: ``seed * 2**32 + table``.

    Table ``i`` plays its sessions one after another on one generator, as
    ``Game(rules, rng=stream)`` would for ``stream = random.Random(table_seed(seed, i))``
    reused session after session (seeding once per table, not per session: a
    Mersenne Twister seeding costs more than a whole decision).
    """
    return seed * 2**32 + table


cdef class TableBatch:
    """Many sessions of the same rules, held in C and stepped together by one call.

    Every table waits on a decision of a seat the caller plays: :meth:`step`
    takes one action per table (for the seat ``to_act[i]``), runs each table on
    (seats given a compiled baseline in ``seat_policies`` play inside the call)
    until a caller's seat decides again, and writes into preallocated arrays in
    place (their contents change at every call: copy what you keep):

    - ``to_act`` ``(N,)`` int32: the seat deciding next (-1 while a table is over);
    - ``observations`` ``(N, FLAT_SIZE)`` float32: that seat's flat observation;
    - ``action_masks`` ``(N, NUM_ACTIONS)`` int8: its legal actions;
    - ``rewards`` ``(N, players)`` int64: each seat's chip change in this call (the first
      call after a session starts also counts what was paid before its first decision);
    - ``done`` ``(N,)`` bool: the table's session ended in this call; ``results[i]`` holds
      each seat's chips won in it and ``final_observations[i, s]`` seat ``s``'s last view;
    - ``deal_index`` ``(N,)`` int32: the deal each table is in (0 for its session's first).

    ``seat_policies`` ``(N, players)`` int8 is read at every decision: a code of
    ``POLICY_CODES`` (``random``, ``lowest``, ``greedy``, ``control``) plays that seat in C,
    a negative code leaves it to the caller (default: every seat, for self-play).
    Each table's compiled seats draw from one stream of their own.

    With ``auto_restart`` (the default) a finished table starts its next session at
    once, drawing its cards from the table's own stream (:func:`table_seed`), so the
    batch is the same run for the same seed and actions. Without it the table stays
    over until :meth:`restart`. A session in which no caller's seat decides is skipped
    (played to its end inside the call, its chips unreported), up to
    ``MAX_EMPTY_SESSIONS`` in a row.

    :meth:`load` puts a copy of a :class:`FastGame` at a table (search rollouts:
    many sampled worlds stepped together, see agents/guided_search.py), and
    :meth:`observe` writes any seat's observation of chosen tables.
    """

    cdef RuleCodes r
    cdef Table *tables
    cdef Inputs *loaded                # per table: the inputs of the game :meth:`load` copied there (owned)
    cdef int allocated                 # tables allocated by __cinit__ (what __dealloc__ frees)
    cdef Rng *policy_rngs
    cdef View view
    cdef long *last_balance
    cdef unsigned char *marks          # scratch for _table_indices, all 0 between calls
    cdef readonly int num_tables, n
    cdef readonly object rules
    cdef readonly object seed
    cdef readonly long sessions_started
    cdef public bint auto_restart
    cdef readonly object to_act, observations, action_masks, rewards, done, results, final_observations
    cdef readonly object seat_policies, static, deal_index
    cdef int[::1] _to_act, _deal_index
    cdef float[:, ::1] _obs
    cdef float[:, :, ::1] _final
    cdef signed char[:, ::1] _mask, _policies
    cdef long long[:, ::1] _rewards, _results
    cdef unsigned char[::1] _done
    cdef float[::1] _static

    def __cinit__(self, rules, int num_tables, seed=0, seat_policies=None):
        if num_tables < 1:
            raise ValueError(f"num_tables={num_tables} is out of range; allowed: 1 or more")
        self.tables = <Table *>calloc(num_tables, sizeof(Table))
        self.policy_rngs = <Rng *>calloc(num_tables, sizeof(Rng))
        self.last_balance = <long *>calloc(num_tables * MAX_SEATS, sizeof(long))
        self.loaded = <Inputs *>calloc(num_tables, sizeof(Inputs))
        self.marks = <unsigned char *>calloc(num_tables, 1)
        self.allocated = num_tables
        if (self.tables == NULL or self.policy_rngs == NULL or self.last_balance == NULL or self.loaded == NULL
                or self.marks == NULL):
            raise MemoryError()

    def __init__(self, rules, int num_tables, seed=0, seat_policies=None):
        from newmarket_env.observation.encode import static_part

        self.rules, self.num_tables, self.n = rules, num_tables, rules.num_players
        self.auto_restart = True
        load_rules(&self.r, rules)
        self.static = static_part(rules)
        self._static = self.static
        self.to_act = np.zeros(num_tables, dtype=np.int32)
        self.deal_index = np.zeros(num_tables, dtype=np.int32)
        self._deal_index = self.deal_index
        self.observations = np.zeros((num_tables, OBS_SIZE), dtype=np.float32)
        self.final_observations = np.zeros((num_tables, self.n, OBS_SIZE), dtype=np.float32)
        self.action_masks = np.zeros((num_tables, NUM_ACTIONS), dtype=np.int8)
        self.rewards = np.zeros((num_tables, self.n), dtype=np.int64)
        self.results = np.zeros((num_tables, self.n), dtype=np.int64)
        self.done = np.zeros(num_tables, dtype=bool)
        self.seat_policies = np.full((num_tables, self.n), -1, dtype=np.int8)
        self._to_act, self._obs, self._mask, self._final = (self.to_act, self.observations, self.action_masks,
                                                            self.final_observations)
        self._rewards, self._results, self._done = self.rewards, self.results, self.done.view(np.uint8)
        self._policies = self.seat_policies
        if seat_policies is not None:
            self.set_seat_policies(seat_policies)
        self.reset(seed)

    def __dealloc__(self):
        cdef int i
        if self.loaded != NULL:
            for i in range(self.allocated):
                free(self.loaded[i].deals)
                free(self.loaded[i].lots)
        free(self.loaded)
        free(self.marks)
        free(self.tables)
        free(self.policy_rngs)
        free(self.last_balance)

    def set_seat_policies(self, codes):
        """Copy ``codes`` (broadcast to ``(N, players)``) into ``seat_policies``, after checking them."""
        codes = np.asarray(codes)
        if not np.issubdtype(codes.dtype, np.integer) or codes.size == 0 or codes.max() >= NUM_POLICIES:
            raise ValueError(f"seat policies must be ints: a code of {POLICY_CODES} or negative for the caller")
        try:
            self.seat_policies[...] = np.broadcast_to(codes, self.seat_policies.shape)
        except ValueError:
            raise ValueError(f"seat policies of shape {codes.shape} do not fit {self.seat_policies.shape} "
                             f"(tables, players)") from None

    def reset(self, seed=None):
        """Start a fresh session at every table; ``seed`` restarts every stream (None: drawn)."""
        cdef int i
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**32:
            raise ValueError(f"seed={seed!r} is out of range; allowed: an int 0..2**32-1 or None")
        self.seed, self.sessions_started = int(seed), 0
        self.done[:] = False
        self.rewards[:] = 0
        self.results[:] = 0
        for i in range(self.num_tables):
            seed_rng_u64(&self.tables[i].rng, (<uint64_t>self.seed << 32) + <uint64_t>i)
            # the compiled seats' stream: the table's seed with a third key word, so never the cards' stream
            _seed_policy_rng(&self.policy_rngs[i], (<uint64_t>self.seed << 32) + <uint64_t>i)
            self._start(i)

    def restart(self, tables):
        """Start the next session at the given tables (they must be over: ``auto_restart`` off)."""
        cdef long[::1] which = self._table_indices(tables)
        cdef int k
        for k in range(which.shape[0]):
            if not self.tables[which[k]].over:
                raise ValueError(f"table {which[k]} is not over; restart only tables whose session ended")
        self.rewards[:] = 0
        self.done[:] = False
        for k in range(which.shape[0]):
            self._start(which[k])

    cdef void _start(self, int i) except *:
        """Table ``i``'s next session, played on to the first decision of a caller's seat."""
        cdef Table *t = &self.tables[i]
        cdef int s, tries
        for tries in range(MAX_EMPTY_SESSIONS):
            self.sessions_started += 1
            start_session(t, &self.r, NULL, NULL, NULL, 0)
            for s in range(self.n):
                self.last_balance[i * MAX_SEATS + s] = self.r.starting_chips
            self._play_compiled(i)
            if not t.over:
                self._observe(i)
                return
        raise RuntimeError(f"table {i}: {MAX_EMPTY_SESSIONS} sessions in a row without a decision of a caller's "
                           f"seat; give some seat a negative code in seat_policies")

    cdef void _play_compiled(self, int i) noexcept:
        """Let the compiled seats of table ``i`` move until a caller's seat decides or the session ends."""
        cdef Table *t = &self.tables[i]
        cdef int code
        while not t.over:
            code = self._policies[i, t.to_act]
            if code < 0:
                return
            view_of_table(&self.view, t, t.to_act)
            apply_action(t, decide(code, &self.view, &self.r, &self.policy_rngs[i]))

    cdef void _observe(self, int i) noexcept:
        cdef Table *t = &self.tables[i]
        self._to_act[i] = t.to_act
        self._deal_index[i] = t.deal_index
        if t.over:
            memset(&self._obs[i, 0], 0, OBS_SIZE * sizeof(float))
            memset(&self._mask[i, 0], 0, NUM_ACTIONS)
            return
        encode_table(t, t.to_act, &self._obs[i, 0], &self._static[0])
        write_mask(t, &self._mask[i, 0])

    def step(self, actions, tables=None):
        """``actions[k]`` at table ``tables[k]`` (every table when None); returns
        ``(to_act, observations, action_masks, rewards, done)``."""
        cdef long[::1] which = self._table_indices(tables) if tables is not None else None
        cdef int count = self.num_tables if which is None else which.shape[0]
        cdef long[::1] chosen = self._checked(actions, which, count)
        cdef int k, i
        self.rewards[:] = 0
        self.done[:] = False
        for k in range(count):
            i = k if which is None else which[k]
            apply_action(&self.tables[i], chosen[k])
            self._play_compiled(i)
            self._settle(i)
        return self.to_act, self.observations, self.action_masks, self.rewards, self.done

    def load(self, int i, FastGame game):
        """Table ``i`` becomes a copy of ``game`` (of the batch's rules, not over): its state, its random
        stream and the inputs its table holds (given deals and lots, ``at_position``'s placeholder next
        deal), as :meth:`FastGame.copy` copies them; no action log, no record. Counts as a call for table
        ``i`` alone: the compiled seats of ``seat_policies`` play on to a caller's decision, ``rewards[i]``
        is what they won meanwhile (0 if none played), and the arrays hold its new state.
        """
        if not 0 <= i < self.num_tables:
            raise ValueError(f"table={i} is out of range; allowed: 0..{self.num_tables - 1}")
        if game.rules is not self.rules and game.rules != self.rules:
            raise ValueError("the game's rules are not the batch's (the rules it was made with); load only "
                             "games of the batch's rules")
        if game.t.over:
            raise ValueError("the game is over; load only a game that waits on a decision")
        self._put(i, &game.t)

    def load_worlds(self, CompiledSearch sampler, position, uint64_t hand, uint64_t unseen, uint64_t dead_known,
                    card_counts, int budget, int width):
        """``budget`` worlds of ``position`` sampled by ``sampler`` (the draws of its :meth:`CompiledSearch.evaluate`,
        so of agents/sampling.py's sample_world for the same seed), world ``w`` loaded (:meth:`load`) at tables
        ``w * width`` to ``w * width + width - 1``: one table per candidate action of a search."""
        cdef int counts[MAX_SEATS]
        cdef int w, k
        if sampler.rules is not self.rules and sampler.rules != self.rules:
            raise ValueError("the sampler's rules are not the batch's; sample worlds of the batch's rules")
        if budget < 1 or width < 1 or budget * width > self.num_tables:
            raise ValueError(f"budget={budget} worlds x width={width} tables each must be 1..{self.num_tables} "
                             f"tables (the batch's)")
        sampler._counts(card_counts, counts)
        for w in range(budget):
            sampler._sample(w, position, hand, unseen, dead_known, counts)
            for k in range(w * width, (w + 1) * width):
                self._put(k, &sampler.world)

    cdef void _put(self, int i, const Table *source) except *:
        """Table ``i`` becomes a copy of ``source`` (with copies of its inputs), then as after a step."""
        cdef Table *t = &self.tables[i]
        cdef int s
        t[0] = source[0]
        t.r, t.log, t.events = &self.r, NULL, NULL
        if source.inputs != NULL:
            _copy_inputs(&self.loaded[i], source.inputs)
            t.inputs = &self.loaded[i]
        for s in range(self.n):
            self.last_balance[i * MAX_SEATS + s] = t.balances[s]
        self._done[i] = 0
        self._play_compiled(i)
        self._settle(i)

    def observe(self, int seat, tables=None):
        """``seat``'s flat observation at each of ``tables`` (every table when None), whoever is to act:
        a new ``(len(tables), FLAT_SIZE)`` float32 array (FastGame.encode_into, table by table)."""
        cdef long[::1] which = self._table_indices(tables) if tables is not None else None
        cdef int count = self.num_tables if which is None else which.shape[0]
        cdef int k
        if not 0 <= seat < self.n:
            raise ValueError(f"seat={seat} is not a seat; allowed: 0..{self.n - 1}")
        out = np.empty((count, OBS_SIZE), dtype=np.float32)
        cdef float[:, ::1] rows = out
        for k in range(count):
            encode_table(&self.tables[k if which is None else which[k]], seat, &rows[k, 0], &self._static[0])
        return out

    def random_actions(self):
        """A uniformly random legal action for every table (as the compiled ``random`` draws it, from the
        tables' own policy streams): a driver for tests, benchmarks and random exploration."""
        out = np.empty(self.num_tables, dtype=np.int_)
        cdef long[::1] view = out
        cdef int i
        for i in range(self.num_tables):
            view[i] = -1 if self.tables[i].over else self.tables[i].legal[
                _randbelow(&self.policy_rngs[i], self.tables[i].n_legal)]
        return out

    cdef long[::1] _table_indices(self, tables):
        # checked in C loops, not numpy calls: search rollouts step a few tables at a time, thousands of times
        cdef long[::1] view
        cdef int k, bad = 0
        which = np.asarray(tables)
        if which.ndim == 1 and which.dtype.kind in "iu":   # np.issubdtype(dtype, np.integer), bools excluded
            view = np.ascontiguousarray(which, dtype=np.int_)
            for k in range(view.shape[0]):
                bad |= not 0 <= view[k] < self.num_tables
        if which.ndim != 1 or which.dtype.kind not in "iu" or bad:
            raise ValueError(f"tables must be a 1-d int array of table numbers 0..{self.num_tables - 1}")
        for k in range(view.shape[0]):   # repeats: each table marked once (marks cleared again below)
            bad |= self.marks[view[k]]
            self.marks[view[k]] = 1
        for k in range(view.shape[0]):
            self.marks[view[k]] = 0
        if bad:
            raise ValueError("tables must not repeat a table")
        return view

    cdef long[::1] _checked(self, actions, long[::1] which, int count):
        """The actions as C longs, every one legal; else a one-line ValueError and nothing changed."""
        cdef Table *t
        cdef int k, i
        chosen = np.asarray(actions)
        if chosen.shape != (count,) or chosen.dtype.kind not in "iu":   # ints, not bools
            raise ValueError(f"actions must be {count} action ids (an int array of shape ({count},)); "
                             f"got {chosen.dtype} of shape {chosen.shape}")
        chosen = np.ascontiguousarray(chosen, dtype=np.int_)
        cdef long[::1] view = chosen
        for k in range(count):
            i = k if which is None else which[k]
            t = &self.tables[i]
            if t.over:
                raise ValueError(f"table {i}: the session is over; call restart([{i}]) first")
            if not 0 <= view[k] < NUM_ACTIONS or not is_legal(t, view[k]):
                legal = ", ".join(str(t.legal[j]) for j in range(t.n_legal))
                raise ValueError(f"action {view[k]} is not legal at table {i} (seat {t.to_act}); "
                                 f"legal actions: {legal}")
        return view

    cdef void _settle(self, int i) except *:
        """Rewards of this call; a finished session is reported and (auto_restart) the next one started."""
        cdef Table *t = &self.tables[i]
        cdef long *last = &self.last_balance[i * MAX_SEATS]
        cdef int s
        for s in range(self.n):
            self._rewards[i, s] = t.balances[s] - last[s]
            last[s] = t.balances[s]
        self._done[i] = t.over
        if not t.over:
            self._observe(i)
            return
        for s in range(self.n):
            self._results[i, s] = t.balances[s] - self.r.starting_chips
            encode_table(t, s, &self._final[i, s, 0], &self._static[0])
        if self.auto_restart:
            self._start(i)
        else:
            self._observe(i)

    def game(self, int i):
        """Table ``i`` as a :class:`FastGame` copy (for inspection and tests; not on the hot path)."""
        if not 0 <= i < self.num_tables:
            raise ValueError(f"table={i} is out of range; allowed: 0..{self.num_tables - 1}")
        cdef FastGame game = _game_around(self.rules, None, (), (), False, &self.r, &self.tables[i])
        if self.tables[i].inputs != NULL:   # a loaded table's inputs (a started session's table has none)
            _copy_inputs(&game.inputs, self.tables[i].inputs)
        else:
            game.t.inputs = NULL
        return game


cdef void _seed_policy_rng(Rng *rng, uint64_t seed) noexcept nogil:
    """``random.Random(seed + 2**64)``: a key one word longer than any table's, so a stream of its own."""
    cdef uint32_t key[3]
    key[0] = <uint32_t>(seed & 0xffffffffULL)
    key[1] = <uint32_t>(seed >> 32)
    key[2] = 1
    _init_by_array(rng, key, 3)


def policy_seed(seed, table):
    """The seed of table ``table``'s compiled seats' stream: ``random.Random(policy_seed(seed, table))``."""
    return table_seed(seed, table) + 2**64

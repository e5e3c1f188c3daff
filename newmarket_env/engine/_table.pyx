# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled engine: the state machine of :mod:`newmarket_env.engine.game`, on C integers.

One session is one ``Table`` struct (declared in ``_table.pxd``) and every step a C function of it:
the rules turned to codes, a copy of Python's random generator, the state machine, the action mask,
and a table rebuilt at a position. The observation of a table is the observation layer's
(``observation/_encode.pyx``): the engine imports nothing above it. ``FastGame`` (``_fast.pyx``) wraps one
table for Python; ``TableBatch`` (``engine/_batch.pyx``) steps many; the compiled baselines
(``_policies.pyx``) and the search (``agents/_search.pyx``) play on copies of them.

The tables play exactly the sessions ``Game`` plays: the same rules, the same decisions with the
same legal actions in the same order, the same payments and, for the same ``seed``, the same
shuffles and lots (Python's own Mersenne Twister and shuffle on a copy of ``random.Random(seed)``'s
state). ``tests/engine/test_fast.py`` checks this action by action on every preset.

``game.py`` stays the reference: read it for the rules. This file mirrors it method by method (the
same names) with the state in one C struct, so a step is integer arithmetic on 52-bit masks instead
of Python objects. A table may keep its own record: each event as a few integers in a C array.
"""

from libc.stdlib cimport abort, calloc, free, malloc, realloc

from libc.string cimport memcpy, memset

from newmarket_env.engine._table cimport *

import random

from newmarket_env.engine.dealing import DEAD_SLOT, dealing_order, sorted_deck
from newmarket_env.engine.types import DECISION_ORDER, PHASE_ORDER, Decision, Phase
from newmarket_env.game import actions, cards
from newmarket_env.game.order import next_table, order_key
from newmarket_env.game.rules import (
    MAX_PLAYERS, DeadHand, FirstLead, LeadRule, Leftover, StakeMode, Widow,
)


def shared_constants():
    """Each constant ``_table.pxd`` declares for C, with the value its Python declaration gives.

    The Python modules (``game/actions.py``, ``game/cards.py``, ``game/rules.py``, ``engine/types.py``)
    declare them; C needs them at compile time, so the ``.pxd`` repeats them, and this table is how the
    import holds the two equal: ``name -> (C value, Python value)``.
    """
    return {
        "KEEP": (KEEP, actions.KEEP), "EXCHANGE": (EXCHANGE, actions.EXCHANGE), "PASS": (PASS, actions.PASS),
        "BID_BASE": (BID_BASE, actions.BID_BASE), "STAKE_BASE": (STAKE_BASE, actions.STAKE_BASE),
        "NUM_ACTIONS": (NUM_ACTIONS, actions.NUM_ACTIONS),
        "NUM_CARDS": (NUM_CARDS, cards.NUM_CARDS), "NUM_RANKS": (NUM_RANKS, cards.NUM_RANKS),
        "SUIT_MASK": (SUIT_MASK, cards.SUIT_MASKS[0]), "RED_MASK": (RED_MASK, cards.RED_MASK),
        "BLACK_MASK": (BLACK_MASK, cards.BLACK_MASK), "MAX_SEATS": (MAX_SEATS, MAX_PLAYERS),
        "PH_STAKE": (PH_STAKE, PHASE_ORDER.index(Phase.STAKE)),
        "PH_DISCARD": (PH_DISCARD, PHASE_ORDER.index(Phase.DISCARD)),
        "PH_WIDOW": (PH_WIDOW, PHASE_ORDER.index(Phase.WIDOW)),
        "PH_AUCTION": (PH_AUCTION, PHASE_ORDER.index(Phase.AUCTION)),
        "PH_PLAY": (PH_PLAY, PHASE_ORDER.index(Phase.PLAY)), "PH_OVER": (PH_OVER, PHASE_ORDER.index(Phase.OVER)),
        "D_STAKE": (D_STAKE, DECISION_ORDER.index(Decision.STAKE)),
        "D_DISCARD": (D_DISCARD, DECISION_ORDER.index(Decision.DISCARD)),
        "D_WIDOW": (D_WIDOW, DECISION_ORDER.index(Decision.WIDOW)),
        "D_BUY": (D_BUY, DECISION_ORDER.index(Decision.BUY)), "D_BID": (D_BID, DECISION_ORDER.index(Decision.BID)),
        "D_LEAD": (D_LEAD, DECISION_ORDER.index(Decision.LEAD)),
        "phases": (PH_OVER + 1, len(PHASE_ORDER)), "decisions": (D_LEAD + 1, len(DECISION_ORDER)),
    }


_differ = [f"{name} is {c} in _table.pxd but {py} in Python" for name, (c, py) in shared_constants().items() if c != py]
if _differ:  # a changed id in actions.py (or a phase in types.py) fails the import, naming what to change
    raise ImportError("the compiled engine's constants differ from their Python declarations: "
                      + "; ".join(_differ) + "; update engine/_table.pxd and rebuild")

cdef int SM_CHOOSE = rule_code(StakeMode.CHOOSE), SM_EACH = rule_code(StakeMode.EACH), SM_HOUSE = rule_code(StakeMode.HOUSE)
cdef int DH_DISCARD = rule_code(DeadHand.DISCARD)
cdef int WI_NONE = rule_code(Widow.NONE), WI_BUY = rule_code(Widow.DEALER_BUY)
cdef int FL_LOWEST_CLUB = rule_code(FirstLead.LOWEST_CLUB)
cdef int LR_ANY_SUIT = rule_code(LeadRule.LOWEST_ANY_SUIT), LR_OTHER_SUIT = rule_code(LeadRule.LOWEST_OTHER_SUIT)
cdef int LR_OPPOSITE = rule_code(LeadRule.LOWEST_OPPOSITE_COLOUR)
cdef int LO_LOT = rule_code(Leftover.LOT)

_RULE_CODES = {}   # Rules -> its RuleCodes as bytes

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
    r.stake_mode, r.pot_ante, r.boodle_stake = rule_code(rules.stake_mode), rules.pot_ante, rules.boodle_stake
    r.house_pot, r.house_boodle = rules.house_pot, rules.house_boodle
    r.dealer_multiplier = rules.dealer_stake_multiplier
    r.dead_hand = rule_code(rules.dead_hand)
    r.discard_count, r.widow, r.widow_fee = rules.discard_count, rule_code(rules.widow), rules.widow_fee
    r.min_bid, r.max_bid = rules.min_bid, rules.max_bid
    r.first_lead, r.lead_rule = rule_code(rules.first_lead), rule_code(rules.lead_after_stop)
    r.per_card_payment, r.leftover, r.ace_high = rules.per_card_payment, rule_code(rules.leftover), rules.ace_high
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


# ---------------------------------------------------------------------- the action mask
cdef void write_mask(const Table *t, signed char *mask) noexcept nogil:
    """The legal actions of the pending decision as 0/1 over every action id."""
    cdef int i
    memset(mask, 0, NUM_ACTIONS)
    for i in range(t.n_legal):
        mask[t.legal[i]] = 1

# ---------------------------------------------------------------------- positions and search
cdef int DH_DEALT = rule_code(DeadHand.DEALT)


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


cdef uint64_t _randbits31(Rng *rng) noexcept nogil:
    """random.Random.randrange(2**31): bit_length(2**31) = 32 bits drawn until below 2**31."""
    cdef uint32_t r = _genrand(rng)
    while r >= 0x80000000U:
        r = _genrand(rng)
    return r



# cython: language_level=3
"""The compiled engine's shared declarations: its constants, its C structs and the steps other modules call.

``_table.pyx`` defines what is declared here; ``_fast.pyx`` (``FastGame``), ``_policies.pyx`` (the
compiled baselines), ``engine/_batch.pyx`` (``TableBatch``) and ``agents/_search.pyx`` (the search's rollouts)
``cimport`` it, so every one of them works on the same ``Table``.
"""

from libc.stdint cimport uint32_t, uint64_t

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
    #define NM_SUIT_MASK ((1ULL << 13) - 1ULL)   /* one suit's 13 ranks (NUM_RANKS) */
    #define NM_RED_MASK ((NM_SUIT_MASK << 13) | (NM_SUIT_MASK << 26))   /* diamonds, hearts */
    #define NM_BLACK_MASK (NM_SUIT_MASK | (NM_SUIT_MASK << 39))          /* clubs, spades */
    """
    int nm_popcount(unsigned long long x) nogil
    int nm_lowest(unsigned long long x) nogil   # index of the lowest set bit; x != 0
    int nm_leading_zeros(unsigned int x) nogil  # zero bits above the highest set bit; x != 0
    const uint64_t SUIT_MASK "NM_SUIT_MASK"
    const uint64_t RED_MASK "NM_RED_MASK"
    const uint64_t BLACK_MASK "NM_BLACK_MASK"

cdef enum:
    NOBODY = -1
    MAX_SEATS = 8
    NUM_CARDS = 52
    NUM_RANKS = 13
    MAX_LEGAL = 80
    MT_N = 624
    MT_M = 397
    # action ids (game/actions.py; docs/contract.md); _table.pyx's shared_constants holds every
    # constant here equal to its Python declaration at import
    KEEP = 52
    EXCHANGE = 53
    PASS = 54
    BID_BASE = 55
    STAKE_BASE = 75
    NUM_ACTIONS = 79
    # indices into PHASE_ORDER and DECISION_ORDER (types.py)
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


cdef inline int rule_code(value) except? -1:
    """A rule enum as a small int: its position in the enum (the order docs/rules.md lists them)."""
    return list(type(value)).index(value)


# rules and randomness
cdef void load_rules(RuleCodes *r, rules) except *
cdef void seed_rng(Rng *t, seed) except *
cdef void seed_rng_u64(Rng *t, uint64_t seed) noexcept nogil
cdef void _init_by_array(Rng *t, const uint32_t *key, int length) noexcept nogil
cdef int _randbelow(Rng *t, int n) noexcept nogil
cdef uint64_t _randbits31(Rng *rng) noexcept nogil
cdef void shuffle(Rng *rng, int *cards, int size) noexcept nogil

# the state machine
cdef void start_session(Table *t, const RuleCodes *r, const Inputs *inputs, ActionLog *log,
                        EventLog *events, int present_forced) noexcept nogil
cdef bint is_legal(const Table *t, int action) noexcept nogil
cdef void apply_action(Table *t, int action) noexcept nogil
cdef int lowest_of_suit(uint64_t mask, int suit, bint ace_high) noexcept nogil
cdef int lowest_per_suit(int *out, uint64_t mask, int skip_a, int skip_b, bint ace_high) noexcept nogil

# the action mask
cdef void write_mask(const Table *t, signed char *mask) noexcept nogil

# positions
cdef void table_at(Table *t, const RuleCodes *r, Inputs *placeholder, position, uint64_t seed) except *
cdef void set_hidden_cards(Table *t, const uint64_t *hands, uint64_t dead) noexcept nogil

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The baseline policies' decisions, compiled: what the compiled seats of a ``TableBatch`` run.

They decide from a ``View`` (what the deciding seat knows). They sit with the engine rather than with
``agents/`` because a ``TableBatch`` plays them at its seats without ``newmarket_env.agents`` installed
(the core runs alone: ``tests/test_core_isolation.py``). The registered baselines, which act on flat
observations, wrap them in ``agents/_baselines.pyx`` (``CompiledPolicy``), decoding the observation with
the observation layer's ``view_of_vector``.
"""

from libc.stdint cimport uint64_t
from libc.math cimport llround

from newmarket_env.engine import baseline_weights as T
from newmarket_env.engine._table cimport *
from newmarket_env.game.rules import LeadRule

cdef int LR_ANY_SUIT = rule_code(LeadRule.LOWEST_ANY_SUIT), LR_OTHER_SUIT = rule_code(LeadRule.LOWEST_OTHER_SUIT)
cdef int LR_OPPOSITE = rule_code(LeadRule.LOWEST_OPPOSITE_COLOUR)

# ---------------------------------------------------------------------- the baseline policies, compiled
# agents/lowest.py, agents/greedy.py, agents/control.py and agents/hand_value.py, decision by decision:
# the Python classes stay the readable reference and tests/batch/test_compiled_policies.py checks that
# both choose the same action on every decision of many sessions. Floating-point sums are written in
# the reference's order so that ties and thresholds fall the same way.

POLICY_CODES = {"random": POLICY_RANDOM, "lowest": POLICY_LOWEST, "greedy": POLICY_GREEDY,
                "control": POLICY_CONTROL}

# The weights, as the Python agents read them (newmarket_env/engine/baseline_weights.py), copied into C once.
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


cdef void view_of_table(View *v, const Table *t, int seat, long limit) noexcept nogil:
    """The view ``seat`` decodes from its observation: chip stacks clipped to ``limit``, the largest the
    observation tells apart (the batch's observer says which: ``TableObserver.stack_limit``)."""
    cdef int b, i
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

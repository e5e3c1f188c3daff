# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The privileged state, compiled: written from a compiled table (``state.py`` is the readable reference).

``tests/engine/test_fast.py`` holds this encoder equal to ``state.encode_state`` at every step. It reads
the layout (``state_layout.py``) once at import:

- :func:`encode_state_game` writes a ``FastGame``'s state (what :mod:`newmarket_env.observation.engines`
  pairs with the compiled engine);
- ``StateObserver`` is the ``TableObserver`` (``engine/_observer.pxd``) a ``TableBatch`` writes its
  ``states()`` with; ``observation/__init__.py`` registers it (:mod:`newmarket_env.engine.observers`).
"""

from libc.string cimport memcpy

from newmarket_env.engine._fast cimport FastGame
from newmarket_env.engine._observer cimport TableObserver
from newmarket_env.engine._table cimport *

from newmarket_env.observation import layout
from newmarket_env.observation.state import state_static_part
from newmarket_env.observation.state_layout import STATE_SIZE, STATE_SLOTS

cdef int AT_HANDS = STATE_SLOTS["hands"].start, AT_DEAD = STATE_SLOTS["dead"].start
cdef int AT_PLAYED_BY = STATE_SLOTS["played_by"].start, AT_PUBLIC_DEAD = STATE_SLOTS["public_dead"].start
cdef int AT_PRIVATE_DEAD = STATE_SLOTS["private_dead"].start, AT_LAST_CARD = STATE_SLOTS["last_card"].start
cdef int AT_BOODLE_VALUE = STATE_SLOTS["boodle_value"].start, AT_SEAT = STATE_SLOTS["seat"].start
cdef int AT_BOODLE_STACKS = STATE_SLOTS["boodle_stacks"].start, AT_POT = STATE_SLOTS["pot"].start
cdef int AT_BALANCES = STATE_SLOTS["balances"].start, AT_DEALER = STATE_SLOTS["dealer"].start
cdef int AT_PHASE = STATE_SLOTS["phase"].start, AT_TO_ACT = STATE_SLOTS["to_act"].start
cdef int AT_DECISION = STATE_SLOTS["decision"].start, AT_STANDING_BID = STATE_SLOTS["standing_bid"].start
cdef int AT_HIGH_BIDDER = STATE_SLOTS["high_bidder"].start, AT_IN_AUCTION = STATE_SLOTS["in_auction"].start
cdef int AT_WIDOW_TAKER = STATE_SLOTS["widow_taker"].start, AT_PENDING = STATE_SLOTS["pending"].start
cdef int AT_DEALS_LEFT = STATE_SLOTS["deals_left"].start

cdef int SIZE = STATE_SIZE
cdef double CHIP_SCALE = layout.CHIP_SCALE, CHIP_CLIP = layout.CHIP_CLIP
#: The largest chip stack the state tells apart (the observation's: both scale chips alike).
STACK_LIMIT = <long>(layout.CHIP_SCALE * layout.CHIP_CLIP)


cdef inline double _chips(long value) noexcept nogil:
    cdef double scaled = value / CHIP_SCALE
    return CHIP_CLIP if scaled > CHIP_CLIP else (-CHIP_CLIP if scaled < -CHIP_CLIP else scaled)


cdef inline void _set_cards(float *plane, uint64_t mask) noexcept nogil:
    """``plane[card] = 1.0`` for every card of ``mask`` (the plane was zero)."""
    while mask:
        plane[nm_lowest(mask)] = 1.0
        mask &= mask - 1


cdef inline void _one_hot(float *piece, int who, int seat, int n) noexcept nogil:
    """``piece[k] = 1.0`` for ``who``'s seat relative to ``seat``, if ``who`` is a seat."""
    if who != NOBODY:
        piece[who - seat if who >= seat else who - seat + n] = 1.0


cdef void encode_state_table(const Table *t, int seat, float *vec, const float *static) noexcept nogil:
    """The state of ``t`` with seats counted from ``seat`` (what state.encode_state returns) into ``vec``."""
    cdef int n = t.n, k, s, b
    memcpy(vec, static, SIZE * sizeof(float))
    for k in range(n):
        s = seat + k if seat + k < n else seat + k - n
        _set_cards(vec + AT_HANDS + 52 * k, t.hands[s])
        _set_cards(vec + AT_PLAYED_BY + 52 * k, t.played_by_seat[s])
        _set_cards(vec + AT_PRIVATE_DEAD + 52 * k, t.known_dead[s])
        vec[AT_BALANCES + k] = _chips(t.balances[s])
        vec[AT_PENDING + k] = (t.stakes.left[s] + t.discards.left[s]) / 4.0
        if t.auction_open:
            vec[AT_IN_AUCTION + k] = t.in_auction[s]
    _set_cards(vec + AT_DEAD, t.dead)
    _set_cards(vec + AT_PUBLIC_DEAD, t.public_dead)
    if t.played and t.last_played >= 0:
        vec[AT_LAST_CARD + t.last_played] = 1.0
    for b in range(4):
        vec[AT_BOODLE_VALUE + t.r.boodle_cards[b]] = _chips(t.boodle_stacks[b])
        vec[AT_BOODLE_STACKS + b] = _chips(t.boodle_stacks[b])
    vec[AT_POT] = _chips(t.pot)
    vec[AT_SEAT + seat] = 1.0
    _one_hot(vec + AT_DEALER, t.dealer, seat, n)
    _one_hot(vec + AT_TO_ACT, t.to_act, seat, n)
    _one_hot(vec + AT_HIGH_BIDDER, t.high_bidder, seat, n)
    _one_hot(vec + AT_WIDOW_TAKER, t.widow_taker, seat, n)
    vec[AT_PHASE + t.phase] = 1.0
    if t.decision >= 0:
        vec[AT_DECISION + t.decision] = 1.0
    vec[AT_STANDING_BID] = t.high_bid / 20.0
    k = t.r.num_deals - t.deal_index - 1
    vec[AT_DEALS_LEFT] = (k if k > 0 else 0) / <double>t.r.num_deals


def encode_state_game(FastGame game, int seat, float[::1] out, const float[::1] static):
    """Write the state of a compiled game, seats counted from ``seat``, into ``out`` (``encode_state``'s vector).

    ``static`` is ``state.state_static_part(game.rules)``; both arrays float32 of ``STATE_SIZE``.
    """
    if out.shape[0] != SIZE or static.shape[0] != SIZE:
        raise ValueError(f"encode_state_game needs float32 arrays of {SIZE}")
    if not 0 <= seat < game.n:
        raise ValueError(f"seat={seat} is not a seat; allowed: 0..{game.n - 1}")
    encode_state_table(&game.t, seat, &out[0], &static[0])


cdef class StateObserver(TableObserver):
    """The privileged state of one rules' tables, seats counted from the seat given, for ``TableBatch.states``."""

    cdef readonly object static
    cdef float[::1] _static

    def __init__(self, rules):
        self.size, self.stack_limit = SIZE, STACK_LIMIT
        self.static = state_static_part(rules)
        self._static = self.static

    cdef void encode(self, const Table *t, int viewer, float *out) noexcept nogil:
        encode_state_table(t, viewer, out, &self._static[0])

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The flat observation, compiled: written from a compiled table, and decoded back into the baselines' view.

``encode.py`` is the readable reference (``encode_flat``); this module writes the same vector from the
engine's C ``Table`` for speed (``tests/engine/test_fast.py`` holds the two equal at every step). It sits
in the observation layer, above the engine, and reads the layout (``layout.py``) once at import:

- :func:`encode_game` writes a ``FastGame``'s observation (what :mod:`newmarket_env.observation.engines`
  pairs with the compiled engine);
- ``FlatObserver`` is the ``TableObserver`` (``engine/_observer.pxd``) that a ``TableBatch`` encodes its
  tables with; this module's import registers it (:mod:`newmarket_env.engine.observers`);
- ``view_of_vector`` decodes a flat observation into the compiled baselines' ``View`` (what
  ``view.decode`` gives in Python), for the baselines acting on observations (``agents/_baselines.pyx``).
"""

from libc.math cimport llround
from libc.string cimport memcpy

cimport numpy as cnp

from newmarket_env.engine._fast cimport FastGame
from newmarket_env.engine._observer cimport TableObserver
from newmarket_env.engine._policies cimport View
from newmarket_env.engine._table cimport *

import numpy as np

from newmarket_env.observation import layout
from newmarket_env.observation.encode import static_part
from newmarket_env.observation.layout import FLAT_SIZE, offsets

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
#: The largest chip stack the observation tells apart (larger ones are clipped to it).
STACK_LIMIT = <long>(layout.CHIP_SCALE * layout.CHIP_CLIP)

cnp.import_array()
cdef cnp.npy_intp OBS_DIMS[1]
OBS_DIMS[0] = FLAT_SIZE
cdef cnp.npy_intp MASK_DIMS[1]
MASK_DIMS[0] = NUM_ACTIONS


# ---------------------------------------------------------------------- encoding
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


def observe_game(FastGame game, int viewer, cnp.ndarray static):
    """``viewer``'s flat observation of a compiled game as a new float32 array (what ``encode_flat`` returns).

    The AEC env calls this at every step: the array is made and written in C, without a buffer view of
    either array (``static`` is ``encode.static_part(game.rules)``, float32, contiguous, ``FLAT_SIZE``).
    """
    if not 0 <= viewer < game.n:
        raise ValueError(f"viewer={viewer} is not a seat; allowed: 0..{game.n - 1}")
    if (cnp.PyArray_TYPE(static) != cnp.NPY_FLOAT32 or cnp.PyArray_SIZE(static) != OBS_SIZE
            or not cnp.PyArray_IS_C_CONTIGUOUS(static)):
        raise ValueError(f"observe_game needs the rules' static part: a contiguous float32 array of {OBS_SIZE}")
    cdef cnp.ndarray out = cnp.PyArray_EMPTY(1, OBS_DIMS, cnp.NPY_FLOAT32, 0)
    encode_table(&game.t, viewer, <float *>cnp.PyArray_DATA(out), <const float *>cnp.PyArray_DATA(static))
    return out


def legal_mask(FastGame game):
    """The legal actions of a compiled game's pending decision as a new int8 array over every action id
    (1 = legal; all zero once the session is over): the env's ``action_mask``, made in C."""
    cdef cnp.ndarray mask = cnp.PyArray_EMPTY(1, MASK_DIMS, cnp.NPY_INT8, 0)
    write_mask(&game.t, <signed char *>cnp.PyArray_DATA(mask))
    return mask


def encode_game(FastGame game, int viewer, float[::1] out, const float[::1] static):
    """Write ``viewer``'s flat observation of a compiled game into ``out`` (what ``encode_flat`` returns).

    ``static`` is the rules' static part (``encode.static_part(game.rules)``); both arrays float32 of
    ``FLAT_SIZE``.
    """
    if out.shape[0] != OBS_SIZE or static.shape[0] != OBS_SIZE:
        raise ValueError(f"encode_game needs float32 arrays of {OBS_SIZE}")
    if not 0 <= viewer < game.n:
        raise ValueError(f"viewer={viewer} is not a seat; allowed: 0..{game.n - 1}")
    encode_table(&game.t, viewer, &out[0], &static[0])


cdef class FlatObserver(TableObserver):
    """The flat observation of one rules' tables, for a ``TableBatch`` (``TableObserver``'s implementation)."""

    def __init__(self, rules):
        self.size, self.stack_limit = OBS_SIZE, STACK_LIMIT
        self.static = static_part(rules)
        self._static = self.static

    cdef void encode(self, const Table *t, int viewer, float *out) noexcept nogil:
        encode_table(t, viewer, out, &self._static[0])


# ---------------------------------------------------------------------- decoding the baselines' view
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

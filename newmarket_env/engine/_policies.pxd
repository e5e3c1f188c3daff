"""The compiled baselines' shared declarations (``engine/_batch.pyx``, ``agents/_baselines.pyx`` and
``agents/_search.pyx`` play them)."""

from libc.stdint cimport uint64_t

from newmarket_env.engine._table cimport MAX_LEGAL, RuleCodes, Rng, Table

cdef enum:
    POLICY_RANDOM = 0
    POLICY_LOWEST = 1
    POLICY_GREEDY = 2
    POLICY_CONTROL = 3
    NUM_POLICIES = 4


cdef struct View:
    # What the deciding seat knows that the baselines read (observation/view.py's ObservationView).
    uint64_t hand, played, known_dead
    long boodle_stacks[4]
    int dead_count, own_pending, decision, n_legal
    int legal[MAX_LEGAL]           # ascending ids, as the action mask lists them


cdef void view_of_table(View *v, const Table *t, int seat, long limit) noexcept nogil
cdef int decide(int policy, const View *v, const RuleCodes *r, Rng *rng) noexcept nogil
cdef int _cards_of(uint64_t mask, int *out) noexcept nogil

"""``TableBatch``'s fields, for the search (``agents/_search.pyx``) that puts its sampled worlds at tables."""

from libc.stdint cimport uint32_t

from newmarket_env.engine._observer cimport TableObserver
from newmarket_env.engine._table cimport Inputs, Rng, RuleCodes, Table


cdef class TableBatch:
    cdef RuleCodes r
    cdef Table *tables
    cdef Inputs *loaded                # per table: the inputs of the game :meth:`load` copied there (owned)
    cdef int allocated                 # tables allocated by __cinit__ (what __dealloc__ frees)
    cdef Rng *policy_rngs
    cdef long *last_balance
    cdef unsigned char *marks          # scratch for _table_indices, all 0 between calls
    cdef unsigned char *failed         # per table: no caller's decision in MAX_EMPTY_SESSIONS sessions (this call)
    cdef int _threads                  # threads stepping the tables of one call
    cdef bint _every                   # the call in progress steps every table (else those of _which)
    cdef long[::1] _which, _chosen     # the call in progress: its tables and actions, read by every thread
    cdef readonly int num_tables, n
    cdef readonly object rules
    cdef readonly object seed
    cdef readonly long sessions_started
    cdef public bint auto_restart
    cdef readonly object to_act, observations, action_masks, rewards, done, results, final_observations
    cdef readonly object seat_policies, deal_index, deal_ended, deal_end_balances
    cdef readonly TableObserver observer   # writes each seat's observation (the observation layer's)
    cdef readonly int obs_size             # floats in one observation (observer.size)
    cdef readonly TableObserver state_observer   # writes states() (the observation layer's); None until asked
    cdef int[::1] _to_act, _deal_index
    cdef float[:, ::1] _obs
    cdef float[:, :, ::1] _final
    cdef signed char[:, ::1] _mask, _policies
    cdef long long[:, ::1] _rewards, _results, _deal_end
    cdef unsigned char[::1] _done, _deal_ended

    cdef int _workers(self, int count) noexcept nogil
    cdef void _start_all(self, long[::1] which, int count) except *
    cdef long _run(self, int count, bint starting) except -1
    cdef int _one(self, int k, bint starting) noexcept nogil
    cdef long _tables_in_order(self, int start, int stop, bint starting) noexcept nogil
    cdef long _tables_on_openmp(self, int count, int workers, bint starting) noexcept nogil
    cdef int _start(self, int i) noexcept nogil
    cdef void _raise_failed(self) except *
    cdef void _apply(self, int i, int action) noexcept nogil
    cdef void _play_compiled(self, int i) noexcept nogil
    cdef void _observe(self, int i) noexcept nogil
    cdef int _advance(self, int i, long action) noexcept nogil
    cdef void _put(self, int i, const Table *source) except *
    cdef long[::1] _table_indices(self, tables)
    cdef long[::1] _state_seats(self, seats, long[::1] which, int count)
    cdef long[::1] _checked(self, actions, long[::1] which, int count)
    cdef int _settle(self, int i) noexcept nogil

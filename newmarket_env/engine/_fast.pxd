"""``FastGame``'s fields, for the modules that build games from tables (``engine/_batch.pyx``)."""

from newmarket_env.engine._table cimport ActionLog, EventLog, Inputs, RuleCodes, Table


cdef class FastGame:
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

    cdef void _load_inputs(self) except *
    cdef list _deal_events(self, int d)
    cdef dict _deal_record(self, int d)


cdef FastGame _game_around(rules, seed, tuple deals, tuple lots, bint record_events, const RuleCodes *codes,
                           const Table *table)
cdef void _copy_inputs(Inputs *to, const Inputs *source) except *

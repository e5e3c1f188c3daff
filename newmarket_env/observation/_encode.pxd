# cython: language_level=3
"""The compiled encoder's shared declarations: the flat observation of a compiled table, the baselines' view
decoded from a flat observation, and the batch's observer (``FlatObserver``)."""

from newmarket_env.engine._observer cimport TableObserver
from newmarket_env.engine._policies cimport View
from newmarket_env.engine._table cimport Table


cdef void encode_table(const Table *t, int viewer, float *vec, const float *static) noexcept nogil
cdef void view_of_vector(View *v, const float *vec, const signed char *action_mask, int n) noexcept nogil


cdef class FlatObserver(TableObserver):
    cdef readonly object static         # the pieces fixed by the rules (encode.static_part), float32
    cdef float[::1] _static

# cython: language_level=3
"""The observer interface of the batch (see ``_observer.pxd``); its one implementation is the observation
layer's ``FlatObserver``."""

from newmarket_env.engine._table cimport Table


cdef class TableObserver:
    """An encoder of one seat's view of a table into ``size`` floats (abstract: subclasses encode)."""

    def __init__(self, *args, **kwargs):
        if type(self) is TableObserver:
            raise TypeError("TableObserver is an interface; the observation layer's FlatObserver implements it")

    cdef void encode(self, const Table *t, int viewer, float *out) noexcept nogil:
        pass

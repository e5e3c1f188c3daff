# cython: language_level=3
"""What a ``TableBatch`` writes for a seat of one of its tables: an interface the engine declares and a
layer above it implements.

The flat encoder lives in the observation layer (``observation/_encode.pyx``, ``FlatObserver``), above
the engine; it subclasses this class and registers itself with :mod:`newmarket_env.engine.observers`, so
that the batch encodes its tables without the engine's compiled code importing the observation.
"""

from newmarket_env.engine._table cimport Table


cdef class TableObserver:
    cdef readonly int size              # floats in one observation
    cdef readonly long stack_limit      # the largest chip stack the observation tells apart (the baselines
                                        # inside the batch read stacks clipped to it, as they decode them)

    cdef void encode(self, const Table *t, int viewer, float *out) noexcept nogil

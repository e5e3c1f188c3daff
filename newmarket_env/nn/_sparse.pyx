# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The loops of the sparse input layer (``nn/sparse_input.py``), compiled: an index-sum over each row's
nonzero inputs and its weight gradient.

A flat observation has about 62 nonzero entries of 936, so the first layer of a network on it does
1/15 of a dense product's work when it adds up, for each row, the weight rows of its nonzero entries
times their values. torch's own sparse kernels on the CPU do not get there (the backward of
``embedding_bag`` and ``torch.sparse.mm`` cost as much as the dense product at these sizes:
docs/benchmark.md, "Sparse input"), so these loops do; ``sparse_input.py`` holds the same arithmetic in
torch operations, the reference a test compares them with.

The sums are the C function ``nm_axpy_rows`` below: ``TILE`` outputs at a time kept in a local array the
compiler holds in vector registers, so each weight row is read once per tile and nothing is written back
until the tile is done. The dense product it competes with (oneDNN/MKL in torch) uses the widest vector
instructions of the machine; so does this loop, compiled once per instruction set (gcc's and clang's
``target_clones`` on x86-64 Linux: AVX-512, AVX2 with FMA, and the baseline), the one for the running CPU
chosen when the module loads. Elsewhere it is compiled once, for the baseline.
"""

import numpy as np

from libc.stdint cimport int64_t

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
    #  if __has_attribute(target_clones)
    #    define NM_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
    #  endif
    #endif
    #ifndef NM_CLONES
    #  define NM_CLONES
    #endif
    #define NM_TILE 64

    /* out[r] = (start ? start[r] : 0) + sum over k in [first[r], first[r + 1]) of weight[k] * rows[index[k]],
       for r < count, every vector ``width`` floats long (``rows`` and ``out``: ``width`` floats apart). */
    #if defined(__GNUC__)
    /* 16 floats as one value (gcc's and clang's vector extension): a register of AVX-512, two of AVX2,
       four of SSE. A tile of NM_TILE outputs is four of them, named, so they stay in registers. */
    typedef float nm_f16 __attribute__((vector_size(64)));
    #endif

    NM_CLONES static void nm_axpy_rows(const float *rows, const int64_t *index, const float *weight,
                                       const int64_t *first, int64_t count, int64_t width,
                                       const float *start, float *out) {
        for (int64_t r = 0; r < count; r++) {
            int64_t at = 0;
    #if defined(__GNUC__)
            for (; at + NM_TILE <= width; at += NM_TILE) {
                nm_f16 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, s0, s1, s2, s3;   /* memcpy: unaligned loads */
                if (start) {
                    memcpy(&a0, start + at, 64); memcpy(&a1, start + at + 16, 64);
                    memcpy(&a2, start + at + 32, 64); memcpy(&a3, start + at + 48, 64);
                }
                for (int64_t k = first[r]; k < first[r + 1]; k++) {
                    const float w = weight[k];
                    const float *source = rows + index[k] * width + at;
                    memcpy(&s0, source, 64); memcpy(&s1, source + 16, 64);
                    memcpy(&s2, source + 32, 64); memcpy(&s3, source + 48, 64);
                    a0 += w * s0; a1 += w * s1; a2 += w * s2; a3 += w * s3;
                }
                float *target = out + r * width + at;
                memcpy(target, &a0, 64); memcpy(target + 16, &a1, 64);
                memcpy(target + 32, &a2, 64); memcpy(target + 48, &a3, 64);
            }
    #endif
            for (; at < width; at += NM_TILE) {   /* what is left (everything without the vector extension) */
                int64_t size = width - at < NM_TILE ? width - at : NM_TILE;
                float acc[NM_TILE];
                for (int64_t h = 0; h < size; h++)
                    acc[h] = start ? start[at + h] : 0.0f;
                for (int64_t k = first[r]; k < first[r + 1]; k++) {
                    const float w = weight[k];
                    const float *source = rows + index[k] * width + at;
                    for (int64_t h = 0; h < size; h++)
                        acc[h] += w * source[h];
                }
                memcpy(out + r * width + at, acc, size * sizeof(float));
            }
        }
    }

    /* The nonzero entries of one row of ``width`` floats: their columns and values written from ``at`` on;
       their count. Eight entries at a time are skipped when all are zero (most are). */
    static int64_t nm_row_entries(const float *row, int64_t width, int64_t *columns, float *values, int64_t at) {
        int64_t j = 0, k = at;
        for (; j + 8 <= width; j += 8) {
            uint32_t any = 0, bits;
            for (int q = 0; q < 8; q++) {
                memcpy(&bits, row + j + q, sizeof(bits));
                any |= bits << 1;   /* without the sign bit: -0.0 is a zero */
            }
            if (!any)
                continue;
            for (int q = 0; q < 8; q++) {
                if (row[j + q] != 0.0f) {
                    columns[k] = j + q;
                    values[k++] = row[j + q];
                }
            }
        }
        for (; j < width; j++) {
            if (row[j] != 0.0f) {
                columns[k] = j;
                values[k++] = row[j];
            }
        }
        return k - at;
    }
    """
    void nm_axpy_rows(const float *rows, const int64_t *index, const float *weight, const int64_t *first,
                      int64_t count, int64_t width, const float *start, float *out) noexcept nogil
    int64_t nm_row_entries(const float *row, int64_t width, int64_t *columns, float *values,
                           int64_t at) noexcept nogil


def nonzero_rows(const float[:, ::1] x):
    """``(columns, values, offsets)`` of ``x``'s nonzero entries, row after row: row ``b``'s are
    ``columns[offsets[b]:offsets[b + 1]]`` (ascending) with ``values`` alike; int64, float32, int64.

    One pass over ``x``: the arrays are made large enough for every entry (memory the system hands out
    untouched, so only what is written costs) and the views returned cover what was found."""
    cdef int64_t rows = x.shape[0], width = x.shape[1], b, k = 0
    offsets = np.zeros(rows + 1, dtype=np.int64)
    columns = np.empty(rows * width, dtype=np.int64)
    values = np.empty(rows * width, dtype=np.float32)
    if rows * width == 0:
        return columns, values, offsets
    cdef int64_t[::1] o = offsets, c = columns
    cdef float[::1] v = values
    with nogil:
        for b in range(rows):
            o[b] = k
            k += nm_row_entries(&x[b, 0], width, &c[0], &v[0], k)
        o[rows] = k
    return columns[:k], values[:k], offsets


def index_sum(const float[:, ::1] table, const int64_t[::1] columns, const float[::1] values,
              const int64_t[::1] offsets, const float[::1] bias, float[:, ::1] out):
    """``out[b] = bias + sum over row b's entries of values[k] * table[columns[k]]`` (``table``: inputs x outputs)."""
    cdef int64_t rows = out.shape[0], width = out.shape[1]
    if rows == 0 or width == 0:
        return
    if table.shape[1] != width or bias.shape[0] != width or offsets.shape[0] != rows + 1:
        raise ValueError("index_sum: table, bias and out must have as many outputs, offsets one more than the rows")
    with nogil:
        nm_axpy_rows(&table[0, 0], &columns[0] if columns.shape[0] else NULL,
                     &values[0] if values.shape[0] else NULL, &offsets[0], rows, width, &bias[0], &out[0, 0])


def index_sum_grad(const float[:, ::1] grad_out, const int64_t[::1] columns, const float[::1] values,
                   const int64_t[::1] offsets, float[:, ::1] grad_table):
    """The gradient of :func:`index_sum` with respect to ``table``: ``grad_table[i]`` is the sum, over every
    entry ``k`` of column ``i`` in every row ``b``, of ``values[k] * grad_out[b]`` (written whole).

    The entries are regrouped by column first (a counting sort), so that each row of ``grad_table`` is
    a sum of ``grad_out`` rows like the forward pass's, summed on registers and written once."""
    cdef int64_t rows = grad_out.shape[0], width = grad_out.shape[1], inputs = grad_table.shape[0]
    cdef int64_t entries = columns.shape[0], b, k, i, at
    if inputs == 0 or width == 0:
        return
    if grad_table.shape[1] != width or offsets.shape[0] != rows + 1:
        raise ValueError("index_sum_grad: grad_out and grad_table must have as many outputs, offsets one more "
                         "than the rows")
    starts = np.zeros(inputs + 1, dtype=np.int64)   # where each column's entries start in the regrouped order
    row_of = np.empty(max(entries, 1), dtype=np.int64)
    value_of = np.empty(max(entries, 1), dtype=np.float32)
    cdef int64_t[::1] first = starts, row_at = row_of
    cdef float[::1] value_at = value_of
    with nogil:
        for k in range(entries):
            first[columns[k] + 1] += 1
        for i in range(inputs):
            first[i + 1] += first[i]
        for b in range(rows):   # place each entry; first[i] moves on to the end of column i's entries
            for k in range(offsets[b], offsets[b + 1]):
                at = first[columns[k]]
                row_at[at] = b
                value_at[at] = values[k]
                first[columns[k]] = at + 1
        for i in range(inputs, 0, -1):   # back to where each column's entries start
            first[i] = first[i - 1]
        first[0] = 0
        nm_axpy_rows(&grad_out[0, 0] if rows else NULL, &row_at[0], &value_at[0], &first[0], inputs, width, NULL,
                     &grad_table[0, 0])

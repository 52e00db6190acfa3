"""Sparse bit-sets for the CPU solver (numba).

A set is a uint64 array of interleaved elements ``[base, bits, base, bits, ...]``
plus a separate length in elements: element ``i`` holds ids
``64*base + t`` for every set bit ``t`` of ``bits``; bases strictly ascend and
``bits`` is never 0. Capacity is ``len(array) // 2`` elements; a zero-capacity
array may be shared (every write to it reallocates). Functions that can grow a
set return the (possibly new) array and length.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

ONE = np.uint64(1)


@njit(cache=True)
def element_of(x):
    """(base, bit) of id ``x``."""
    return np.uint64(x >> 6), ONE << np.uint64(x & 63)


@njit(cache=True)
def _grown(a, alen, need):
    out = np.empty(2 * (need + need // 2 + 2), np.uint64)
    out[:2 * alen] = a[:2 * alen]
    return out


@njit(cache=True)
def add(a, alen, x):
    """Insert id ``x``. Returns ``(a, alen, was_new)``."""
    base, bit = element_of(x)
    lo, hi = 0, alen
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[2 * mid] < base:
            lo = mid + 1
        else:
            hi = mid
    if lo < alen and a[2 * lo] == base:
        if a[2 * lo + 1] & bit:
            return a, alen, False
        a[2 * lo + 1] |= bit
        return a, alen, True
    if 2 * (alen + 1) > len(a):
        a = _grown(a, alen, alen + 1)
    for i in range(alen, lo, -1):
        a[2 * i] = a[2 * i - 2]
        a[2 * i + 1] = a[2 * i - 1]
    a[2 * lo] = base
    a[2 * lo + 1] = bit
    return a, alen + 1, True


@njit(cache=True)
def seek(a, alen, i, key):
    """Smallest element index ``j >= i`` with ``base(j) >= key`` (``alen`` if none).

    Galloping search: O(log d) for a jump of d elements, so merging a small
    set into a large one costs O(small * log large), not O(large).
    """
    if i >= alen or a[2 * i] >= key:
        return i
    lo = i          # base(lo) < key
    step = 1
    hi = i + 1
    while hi < alen and a[2 * hi] < key:
        lo = hi
        step <<= 1
        hi = lo + step
    if hi > alen:
        hi = alen
    lo += 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[2 * mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _or_present(a, alen, b, blen, out):
    """OR ``b``'s words into the elements of ``a`` with the same base; count the rest.

    The shared first pass of :func:`or_fresh` and :func:`or_into`. Unless
    ``out`` is None (typed as such, so numba compiles the branch away), every
    element of ``b`` that adds something to ``a`` (new bits under an existing
    base, or a base ``a`` lacks) is appended to ``out`` (capacity ``2 * blen``). Returns ``(k, missing)``: elements
    written to ``out`` (0 when it is None) and the number of ``b``'s bases
    that ``a`` lacks (``a`` is not grown here).
    """
    k = 0
    missing = 0
    i = 0
    for j in range(blen):
        bb = b[2 * j]
        i = seek(a, alen, i, bb)
        if i < alen and a[2 * i] == bb:
            fresh = b[2 * j + 1] & ~a[2 * i + 1]
            if fresh:
                a[2 * i + 1] |= fresh
                if out is not None:
                    out[2 * k] = bb
                    out[2 * k + 1] = fresh
                    k += 1
            i += 1
        else:
            if out is not None:
                out[2 * k] = bb
                out[2 * k + 1] = b[2 * j + 1]
                k += 1
            missing += 1
    return k, missing


@njit(cache=True)
def or_fresh(p, plen, s, slen, out):
    """``p |= s``, writing what was new into ``out`` (capacity ``2 * slen``).

    Returns ``(p, plen, k)``: ``out[:2k]`` holds the new ids as elements. Bits
    under bases that ``p`` already has are OR-ed in place; ``p`` is merged
    again only when ``s`` brings new bases. Nothing is allocated unless ``p``
    must grow.
    """
    k, missing = _or_present(p, plen, s, slen, out)
    if missing:
        p, plen = _insert_missing(p, plen, out, k, missing)
    return p, plen, k


@njit(cache=True)
def or_fresh_at(sets, lens, i, s, slen, out):
    """``sets[i] |= s`` in a family of sets (``lens[i]`` its length), as :func:`or_fresh`:
    returns ``k``, the new ids in ``out[:2k]``; ``sets[i]`` and ``lens[i]`` are updated."""
    a = sets[i]
    p, pl, k = or_fresh(a, lens[i], s, slen, out)
    lens[i] = pl
    if len(p) != len(a):        # reallocated (storing into the list costs reference counting)
        sets[i] = p
    return k


@njit(cache=True, inline="always")
def add_at(sets, lens, i, x):
    """Insert id ``x`` into ``sets[i]`` of a family (``lens[i]`` its length). True if it was new."""
    a = sets[i]
    p, pl, fresh = add(a, lens[i], x)
    lens[i] = pl
    if len(p) != len(a):
        sets[i] = p
    return fresh


@njit(cache=True)
def contains(a, alen, x):
    """Whether id ``x`` is in the set."""
    base, bit = element_of(x)
    j = seek(a, alen, 0, base)
    return j < alen and a[2 * j] == base and (a[2 * j + 1] & bit) != 0


@njit(cache=True)
def of_ids(ids, out):
    """The set of the ids in ``ids`` (any order, repeats allowed; sorted in place) into ``out``
    (room for ``len(ids)`` elements). Returns its length in elements."""
    ids.sort()
    k = 0
    for x in ids:
        b, bit = element_of(x)
        if k > 0 and out[2 * k - 2] == b:
            out[2 * k - 1] |= bit
        else:
            out[2 * k] = b
            out[2 * k + 1] = bit
            k += 1
    return k


@njit(cache=True)
def without(a, alen, x):
    """``a − {x}`` as ``(set, length)``: ``a`` itself when it lacks ``x``, else a new set."""
    ib, ibit = element_of(x)
    j = seek(a, alen, 0, ib)
    if j < alen and a[2 * j] == ib and a[2 * j + 1] & ibit:
        return xor(a, alen, np.array([ib, ibit]), 1)
    return a, alen


@njit(cache=True)
def or_into(a, alen, b, blen):
    """``a |= b``. Returns ``(a, alen)``; in place when ``a`` has room."""
    _, missing = _or_present(a, alen, b, blen, None)
    if missing == 0:
        return a, alen
    return _insert_missing(a, alen, b, blen, missing)


@njit(cache=True)
def _insert_missing(a, alen, b, blen, missing):
    """Second pass of a union: ``b``'s ``missing`` bases that ``a`` lacks go in.

    Precondition: every element of ``b`` whose base ``a`` has is already
    OR-ed into ``a`` (:func:`_or_present`). Returns ``(a, alen + missing)``,
    growing ``a`` when it lacks room.
    """
    need = alen + missing
    if 2 * need > len(a):
        a = _grown(a, alen, need)
    # merge from the back: every write lands at or after the element it overwrites
    i, j, k = alen - 1, blen - 1, need - 1
    while j >= 0:
        if i >= 0 and a[2 * i] > b[2 * j]:
            a[2 * k] = a[2 * i]
            a[2 * k + 1] = a[2 * i + 1]
            i -= 1
        elif i >= 0 and a[2 * i] == b[2 * j]:
            a[2 * k] = a[2 * i]
            a[2 * k + 1] = a[2 * i + 1]     # already or-ed above
            i -= 1
            j -= 1
        else:
            a[2 * k] = b[2 * j]
            a[2 * k + 1] = b[2 * j + 1]
            j -= 1
        k -= 1
    return a, need


@njit(cache=True)
def xor(a, alen, b, blen):
    """Symmetric difference as a new array. Returns ``(out, outlen)``."""
    out = np.empty(2 * (alen + blen), np.uint64)
    i = j = k = 0
    while i < alen or j < blen:
        if j >= blen or (i < alen and a[2 * i] < b[2 * j]):
            base, bits = a[2 * i], a[2 * i + 1]
            i += 1
        elif i >= alen or b[2 * j] < a[2 * i]:
            base, bits = b[2 * j], b[2 * j + 1]
            j += 1
        else:
            base, bits = a[2 * i], a[2 * i + 1] ^ b[2 * j + 1]
            i += 1
            j += 1
        if bits:
            out[2 * k] = base
            out[2 * k + 1] = bits
            k += 1
    return out, k


@njit(cache=True)
def count(a, alen):
    """Number of ids in the set."""
    c = 0
    for i in range(alen):
        x = a[2 * i + 1]
        while x:
            x &= x - ONE
            c += 1
    return c


@njit(cache=True)
def equal(a, alen, b, blen):
    if alen != blen:
        return False
    for i in range(2 * alen):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def set_hash(a, alen):
    h = np.uint64(0x84222325CBF29CE4) ^ np.uint64(alen)
    for i in range(2 * alen):
        h = (h ^ a[i]) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
    return h


@njit(cache=True)
def ids_into(a, alen, out, k):
    """Write the ids of set ``a`` (``alen`` (base, word) pairs) to ``out[k:]`` in ascending
    order; returns the index after the last one written."""
    for e in range(alen):
        word = a[2 * e + 1]
        base = np.int64(a[2 * e]) * 64
        while word:
            out[k] = base + np.int64(trailing_zeros(word))
            word &= word - ONE
            k += 1
    return k

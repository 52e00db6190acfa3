"""Interned, immutable points-to sets for the CPU solver (hash-consing, numba).

Every distinct set is stored once in a :class:`SetTable` and named by an int64
id; nodes hold ids, so nodes with equal sets share one copy, and two ids are
equal exactly when their sets are (the "persistent" points-to sets of Barbar and
Sui, "Hash Consed Points-To Sets", SAS 2021). Id 0 (:data:`EMPTY`) is the empty
set and always present.

Contracts:

* A set's contents never change while its id is live. Its words are
  ``words(t, s)`` (the sparse bit-set format of ``_cpu_bits``: ``[base, bits,
  ...]``, ``length(t, s)`` elements), a view into the pool that is valid until
  the next operation that may make a set (:func:`intern` and every operation
  below): sets move when the pool is repacked.
* Interning is exact: a new set is compared word for word with every live set
  of equal hash and length before it gets an id.
* Reference counts: whoever keeps an id across table operations holds a
  reference (:func:`incref` / :func:`decref`, or :func:`assign` for a slot of an
  int64 array). A set whose count drops to 0 is freed at once: its id leaves the
  index and may be reused, its words become garbage that the next repack drops.
  A set returned by an operation and never referenced must be given to
  :func:`release` (freed if nobody holds it).
* :func:`union`, :func:`join`, :func:`diff` and :func:`intersect` are memoized
  in a lossy cache keyed by the operands' ids and generations (an id's
  generation grows each time it is freed, so an entry naming a freed set never
  matches); ``a ∪ a``, ``a ∪ ∅`` and a union already known cost no set work,
  and a computed union also records ``a ∪ c = c`` and ``b ∪ c = c``.
* Memory: the pool holds the live sets' words plus garbage; when it is full, a
  repack slides the live sets down in place if that leaves a third of it free,
  else copies them into a new pool twice their size (both pools exist during
  the copy): at most twice the live words, three times while growing. The
  index, the per-id arrays and the cache grow with the number of live sets.
  ``stats(t)`` reports the peaks (:data:`STAT_NAMES`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.experimental import structref

from . import _cpu_bits as bits

#: the id of the empty set
EMPTY = 0

# rows of the per-id table ``meta``
M_OFF, M_LEN, M_HASH, M_REFC, M_GEN = range(5)
# operation tags of the cache (bits 60-61 of its second key word)
_UNION, _DIFF, _INTER = 0, 1, 2
# an id is never reused once its generation reaches this (generations fit in 28 bits of a cache key)
_GEN_LIMIT = (1 << 28) - 1
_LO32 = (1 << 32) - 1
#: the cache keeps at least MEMO_MIN and about MEMO_PER_SET entries per live set, up to MEMO_MAX
MEMO_MIN = 1 << 14
MEMO_PER_SET = 8
MEMO_MAX = 1 << 21

#: counters of :func:`stats`, in order
STAT_NAMES = ("sets made", "intern hits", "sets freed", "unions", "unions trivial", "memo hits",
              "unions computed", "unions that changed nothing", "union elements read", "diffs computed",
              "diff elements read", "intersections computed", "repacks", "live sets (peak)", "set words (peak)",
              "table bytes (peak)", "live sets")
(S_MADE, S_INTERN_HIT, S_FREED, S_UNION, S_TRIVIAL, S_MEMO_HIT, S_UNION_DONE, S_UNION_SAME, S_UNION_READ,
 S_DIFF_DONE, S_DIFF_READ, S_INTER_DONE, S_REPACK, S_LIVE_PEAK, S_WORDS_PEAK, S_BYTES_PEAK, S_LIVE) = range(17)
N_STATS = 17


@structref.register
class SetTableType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class SetTable(structref.StructRefProxy):
    """The set table (see the module docstring); made by :func:`new_table`, used from numba code."""


# Few array fields, each read once per operation: every read of an array field costs
# an atomic reference-count update in numba.
_FIELDS = [
    ("pool", types.uint64[::1]),      # words of the sets; set s is pool[off : off + 2 * len]
    ("meta", types.int64[:, ::1]),    # per id: rows M_OFF, M_LEN, M_HASH (63 bits), M_REFC, M_GEN
    ("index", types.int64[::1]),      # open addressing (linear probing) over live ids by hash; -1: empty
    ("memo", types.int64[:, ::1]),    # the cache: rows key 1, key 2, value (id | generation << 32); -1: empty
    ("free", types.int64[::1]),       # stack of free ids
    ("buf", types.uint64[::1]),       # scratch for results: room for any set of the universe
    ("st", types.int64[::1]),         # counters, see STAT_NAMES
    ("top", types.int64),             # first unused word of the pool
    ("live_words", types.int64),      # words of live sets
    ("n_ids", types.int64),           # ids handed out so far (free ones included)
    ("n_free", types.int64),
    ("n_live", types.int64),
]
SET_TABLE = SetTableType(fields=_FIELDS)
structref.define_proxy(SetTable, SetTableType, [name for name, _ in _FIELDS])


@njit(cache=True)
def _note_peak(t, extra):
    """Record the table's size (plus ``extra`` bytes held at this moment) in the peak counters."""
    st = t.st
    b = 8 * (t.pool.size + t.meta.size + t.index.size + t.memo.size + t.free.size + t.buf.size) + extra
    if b > st[S_BYTES_PEAK]:
        st[S_BYTES_PEAK] = b
    if t.live_words > st[S_WORDS_PEAK]:
        st[S_WORDS_PEAK] = t.live_words
    if t.n_live > st[S_LIVE_PEAK]:
        st[S_LIVE_PEAK] = t.n_live


@njit(cache=True)
def new_table(universe):
    """An empty table for sets of ids ``0..universe-1`` (only :data:`EMPTY` present)."""
    t = structref.new(SET_TABLE)
    t.pool = np.empty(1024, np.uint64)
    t.meta = np.zeros((5, 64), np.int64)
    t.index = np.full(256, -1, np.int64)
    t.memo = np.full((3, MEMO_MIN), -1, np.int64)
    t.free = np.empty(64, np.int64)
    t.buf = np.empty(2 * (universe // 64 + 2), np.uint64)
    t.st = np.zeros(N_STATS, np.int64)
    t.top = 0
    t.live_words = 0
    t.n_free = 0
    # id 0: the empty set, referenced forever, never in the index
    t.n_ids = 1
    t.n_live = 1
    t.meta[M_REFC, EMPTY] = 1
    _note_peak(t, 0)
    return t


@njit(cache=True, inline="always")
def words(t, s):
    """The words of set ``s`` (``2 * length(t, s)`` of them)."""
    meta = t.meta
    o = meta[M_OFF, s]
    return t.pool[o:o + 2 * meta[M_LEN, s]]


@njit(cache=True, inline="always")
def length(t, s):
    """Number of elements (64-id words) of set ``s``."""
    return t.meta[M_LEN, s]


@njit(cache=True, inline="always")
def incref(t, s):
    if s != EMPTY:
        t.meta[M_REFC, s] += 1


@njit(cache=True, inline="always")
def decref(t, s):
    """Drop one reference; frees ``s`` when it was the last."""
    if s != EMPTY:
        meta = t.meta
        meta[M_REFC, s] -= 1
        if meta[M_REFC, s] == 0:
            _free(t, s)


@njit(cache=True, inline="always")
def release(t, s):
    """Free ``s`` if nobody holds it (for results that were not kept)."""
    if s != EMPTY and t.meta[M_REFC, s] == 0:
        _free(t, s)


@njit(cache=True, inline="always")
def assign(t, ids, v, s):
    """``ids[v] = s``, moving one reference from the old set to ``s``."""
    old = ids[v]
    if old != s:
        meta = t.meta
        if s != EMPTY:
            meta[M_REFC, s] += 1
        ids[v] = s
        if old != EMPTY:
            meta[M_REFC, old] -= 1
            if meta[M_REFC, old] == 0:
                _free(t, old)


@njit(cache=True)
def set_hash(w, k):
    """63-bit hash of the set ``w[:2k]`` (two independent lanes over bases and bit words)."""
    h1 = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(k)
    h2 = np.uint64(0xC2B2AE3D27D4EB4F)
    m = np.uint64(0xFF51AFD7ED558CCD)
    for i in range(k):
        h1 = (h1 ^ w[2 * i]) * m
        h2 = (h2 ^ w[2 * i + 1]) * m
        h1 ^= h1 >> np.uint64(29)
        h2 ^= h2 >> np.uint64(31)
    h = h1 ^ (h2 * np.uint64(0x94D049BB133111EB))
    h ^= h >> np.uint64(32)
    return np.int64(h >> np.uint64(1))


# ------------------------------------------------------------------ index


@njit(cache=True)
def _same(pool, o, w, k):
    """``pool[o : o + 2k] == w[:2k]``."""
    for i in range(2 * k):
        if pool[o + i] != w[i]:
            return False
    return True


@njit(cache=True)
def _index_insert(index, meta, s):
    mask = len(index) - 1
    i = meta[M_HASH, s] & mask
    while index[i] >= 0:
        i = (i + 1) & mask
    index[i] = s


@njit(cache=True)
def _index_remove(index, meta, s):
    """Remove ``s`` (backward-shift deletion: no tombstones)."""
    mask = len(index) - 1
    i = meta[M_HASH, s] & mask
    while index[i] != s:
        i = (i + 1) & mask
    j = i
    while True:
        j = (j + 1) & mask
        x = index[j]
        if x < 0:
            break
        home = meta[M_HASH, x] & mask
        # x may move to the hole at i unless its home lies cyclically in (i, j]
        if i <= j:
            stays = i < home <= j
        else:
            stays = home > i or home <= j
        if not stays:
            index[i] = x
            i = j
    index[i] = -1


@njit(cache=True)
def _grow(t):
    """Make room for more live sets: the index (load at most 1/2) and the cache follow the live count."""
    meta = t.meta
    old = t.index
    index = np.full(2 * len(old), -1, np.int64)
    for i in range(len(old)):
        if old[i] >= 0:
            _index_insert(index, meta, old[i])
    t.index = index
    memo = t.memo
    m = memo.shape[1]
    if m < MEMO_MAX and m < MEMO_PER_SET * t.n_live:
        grown = np.full((3, 2 * m), -1, np.int64)
        mask = 2 * m - 1
        for i in range(m):
            if memo[0, i] >= 0:
                j = _slot(memo[0, i], memo[1, i], mask)
                grown[0, j] = memo[0, i]
                grown[1, j] = memo[1, i]
                grown[2, j] = memo[2, i]
        t.memo = grown


# ------------------------------------------------------------------ ids and the pool


@njit(cache=True)
def _new_id(t):
    if t.n_free > 0:
        t.n_free -= 1
        return t.free[t.n_free]
    meta = t.meta
    if t.n_ids == meta.shape[1]:
        grown = np.zeros((5, 2 * meta.shape[1]), np.int64)
        grown[:, :t.n_ids] = meta[:, :t.n_ids]
        t.meta = grown
        free = np.empty(2 * meta.shape[1], np.int64)
        free[:t.n_free] = t.free[:t.n_free]
        t.free = free
    s = t.n_ids
    t.n_ids += 1
    return s


@njit(cache=True)
def _repack(t, need):
    """Make room for ``need`` more words: slide the live sets down in place when that leaves a
    third of the pool free, else copy them into a new pool of twice the words needed."""
    t.st[S_REPACK] += 1
    want = t.live_words + need
    meta = t.meta
    old = t.pool
    if 3 * want <= 2 * len(old):
        ids = np.empty(t.n_live, np.int64)
        m = 0
        for s in range(1, t.n_ids):
            if meta[M_LEN, s] > 0:
                ids[m] = s
                m += 1
        offs = np.empty(m, np.int64)
        for i in range(m):
            offs[i] = meta[M_OFF, ids[i]]
        top = 0
        for i in np.argsort(offs):       # ascending offsets: every word moves down or stays
            s = ids[i]
            k = 2 * meta[M_LEN, s]
            o = meta[M_OFF, s]
            if o != top:
                for x in range(k):
                    old[top + x] = old[o + x]
                meta[M_OFF, s] = top
            top += k
        t.top = top
        return
    cap = 2 * want + 1024
    pool = np.empty(cap, np.uint64)
    _note_peak(t, 8 * cap)          # both pools exist during the copy
    top = 0
    for s in range(1, t.n_ids):
        k = 2 * meta[M_LEN, s]
        if k > 0:
            o = meta[M_OFF, s]
            for x in range(k):
                pool[top + x] = old[o + x]
            meta[M_OFF, s] = top
            top += k
    t.pool = pool
    t.top = top


@njit(cache=True)
def _free(t, s):
    meta = t.meta
    _index_remove(t.index, meta, s)
    t.live_words -= 2 * meta[M_LEN, s]
    meta[M_LEN, s] = 0
    meta[M_OFF, s] = 0
    meta[M_GEN, s] += 1
    t.n_live -= 1
    t.st[S_FREED] += 1
    if meta[M_GEN, s] < _GEN_LIMIT:
        t.free[t.n_free] = s
        t.n_free += 1


@njit(cache=True)
def intern(t, w, k):
    """The id of the set ``w[:2k]`` (a valid set: bases ascending, no zero word); no reference taken."""
    if k == 0:
        return EMPTY
    h = set_hash(w, k)
    index = t.index
    meta = t.meta
    pool = t.pool
    mask = len(index) - 1
    i = h & mask
    while True:
        s = index[i]
        if s < 0:
            break
        if meta[M_HASH, s] == h and meta[M_LEN, s] == k and _same(pool, meta[M_OFF, s], w, k):
            t.st[S_INTERN_HIT] += 1
            return s
        i = (i + 1) & mask
    s = _new_id(t)
    if t.top + 2 * k > len(t.pool):
        _repack(t, 2 * k)
    meta = t.meta
    pool = t.pool
    o = t.top
    for i in range(2 * k):
        pool[o + i] = w[i]
    t.top = o + 2 * k
    meta[M_OFF, s] = o
    meta[M_LEN, s] = k
    meta[M_HASH, s] = h
    meta[M_REFC, s] = 0
    t.live_words += 2 * k
    t.n_live += 1
    t.st[S_MADE] += 1
    if 2 * t.n_live > len(t.index):
        _grow(t)
    _index_insert(t.index, meta, s)
    _note_peak(t, 0)
    return s


# ------------------------------------------------------------------ the cache


@njit(cache=True)
def _slot(k1, k2, mask):
    h = np.uint64(k1) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(k2) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(31)
    return np.int64(h & np.uint64(mask))


@njit(cache=True, inline="always")
def _memo_get(memo, meta, tag, a, b):
    """The cached result of ``a op b``, or -1."""
    k1 = a | (meta[M_GEN, a] << 32)
    k2 = b | (meta[M_GEN, b] << 32) | (np.int64(tag) << 60)
    i = _slot(k1, k2, memo.shape[1] - 1)
    if memo[0, i] == k1 and memo[1, i] == k2:
        v = memo[2, i]
        c = v & _LO32
        if meta[M_GEN, c] == (v >> 32):          # else c was freed since
            return c
    return -1


@njit(cache=True, inline="always")
def _memo_put(memo, meta, tag, a, b, c):
    k1 = a | (meta[M_GEN, a] << 32)
    k2 = b | (meta[M_GEN, b] << 32) | (np.int64(tag) << 60)
    i = _slot(k1, k2, memo.shape[1] - 1)
    memo[0, i] = k1
    memo[1, i] = k2
    memo[2, i] = c | (meta[M_GEN, c] << 32)


# ------------------------------------------------------------------ operations


@njit(cache=True)
def _union_words(pw, pl, sw, sl, out):
    """``p ∪ s`` into ``out``; returns ``(k, changed)``: ``changed`` is False (and ``out`` untouched)
    when ``s ⊆ p``. Galloping over ``p``: O(|s| log |p|) until the first new element."""
    i = 0
    j = 0
    # until s brings something new, nothing is written
    while j < sl:
        bb = sw[2 * j]
        i = bits.seek(pw, pl, i, bb)
        if i < pl and pw[2 * i] == bb and (sw[2 * j + 1] & ~pw[2 * i + 1]) == 0:
            i += 1
            j += 1
            continue
        break
    if j == sl:
        return 0, False
    for x in range(2 * i):
        out[x] = pw[x]
    k = i
    while j < sl:
        bb = sw[2 * j]
        i2 = bits.seek(pw, pl, i, bb)
        if i2 > i:
            for x in range(2 * (i2 - i)):
                out[2 * k + x] = pw[2 * i + x]
            k += i2 - i
            i = i2
        if i < pl and pw[2 * i] == bb:
            out[2 * k] = bb
            out[2 * k + 1] = pw[2 * i + 1] | sw[2 * j + 1]
            i += 1
        else:
            out[2 * k] = bb
            out[2 * k + 1] = sw[2 * j + 1]
        k += 1
        j += 1
    for x in range(2 * (pl - i)):
        out[2 * k + x] = pw[2 * i + x]
    k += pl - i
    return k, True


@njit(cache=True)
def _union_with(t, a, sw, sl):
    """Id of ``a ∪ s`` for the words ``sw[:2 sl]`` (``a`` itself when ``s ⊆ a``); not cached."""
    st = t.st
    st[S_UNION_DONE] += 1
    st[S_UNION_READ] += t.meta[M_LEN, a] + sl
    k, changed = _union_words(words(t, a), t.meta[M_LEN, a], sw, sl, t.buf)
    if not changed:
        st[S_UNION_SAME] += 1
        return a
    return intern(t, t.buf, k)


@njit(cache=True)
def _remember_union(t, a, b, c):
    """Cache ``a ∪ b = c`` and what follows from it: ``a ∪ c = c``, ``b ∪ c = c``."""
    memo = t.memo
    meta = t.meta
    _memo_put(memo, meta, _UNION, min(a, b), max(a, b), c)
    if c != a:
        _memo_put(memo, meta, _UNION, min(a, c), max(a, c), c)
    if c != b:
        _memo_put(memo, meta, _UNION, min(b, c), max(b, c), c)


@njit(cache=True, inline="always")
def _known_union(t, a, b, nothing_new):
    """``a ∪ b`` when it costs nothing (``a == b``, an empty side, ``nothing_new``: b adds
    nothing to a, or cached), else -1; counts the request either way."""
    st = t.st
    st[S_UNION] += 1
    if a == b or b == EMPTY or nothing_new:
        st[S_TRIVIAL] += 1
        return a
    if a == EMPTY:
        st[S_TRIVIAL] += 1
        return b
    c = _memo_get(t.memo, t.meta, _UNION, min(a, b), max(a, b))
    if c >= 0:
        st[S_MEMO_HIT] += 1
    return c


@njit(cache=True)
def union(t, a, b):
    """Id of ``a ∪ b``; no reference taken."""
    c = _known_union(t, a, b, False)
    if c >= 0:
        return c
    meta = t.meta
    if meta[M_LEN, a] >= meta[M_LEN, b]:
        c = _union_with(t, a, words(t, b), meta[M_LEN, b])
    else:
        c = _union_with(t, b, words(t, a), meta[M_LEN, a])
    _remember_union(t, a, b, c)
    return c


@njit(cache=True)
def join(t, a, b, d):
    """Id of ``a ∪ b``, given ``b − d ⊆ a`` (so it is ``a ∪ d``: only ``d`` is merged; cached as ``a ∪ b``)."""
    c = _known_union(t, a, b, d == EMPTY)
    if c >= 0:
        return c
    c = _union_with(t, a, words(t, d), t.meta[M_LEN, d])
    _remember_union(t, a, b, c)
    return c


@njit(cache=True)
def union_words(t, a, sw, sl):
    """Id of ``a ∪ s`` for a set given by its words ``sw[:2 sl]`` (not cached: ``s`` has no id)."""
    st = t.st
    st[S_UNION] += 1
    if sl == 0:
        st[S_TRIVIAL] += 1
        return a
    if a == EMPTY:
        return intern(t, sw, sl)
    return _union_with(t, a, sw, sl)


#: elements compared at once where a set and the one taken from it agree
_BLOCK = 8


@njit(cache=True)
def _diff_words(aw, al, bw, bl, out):
    """``a − b`` into ``out``; returns ``(k, removed)`` (``removed``: the result is not ``a``).

    Where both hold the same run of elements (the usual case: ``b`` is an older
    version of ``a``), _BLOCK of them are compared at once and skipped.
    """
    k = 0
    i = 0
    j = 0
    removed = False
    while i < al:
        if i + _BLOCK <= al and j + _BLOCK <= bl:
            acc = np.uint64(0)
            for x in range(2 * _BLOCK):
                acc |= aw[2 * i + x] ^ bw[2 * j + x]
            if acc == 0:
                removed = True
                i += _BLOCK
                j += _BLOCK
                continue
        base = aw[2 * i]
        word = aw[2 * i + 1]
        j = bits.seek(bw, bl, j, base)
        if j < bl and bw[2 * j] == base:
            if word & bw[2 * j + 1]:
                removed = True
                word &= ~bw[2 * j + 1]
            j += 1
        if word:
            out[2 * k] = base
            out[2 * k + 1] = word
            k += 1
        i += 1
    return k, removed


@njit(cache=True)
def diff(t, a, b):
    """Id of ``a − b``; no reference taken."""
    if a == b or a == EMPTY:
        return EMPTY
    if b == EMPTY:
        return a
    c = _memo_get(t.memo, t.meta, _DIFF, a, b)
    if c >= 0:
        t.st[S_MEMO_HIT] += 1
        return c
    aw = words(t, a)
    bw = words(t, b)
    al = t.meta[M_LEN, a]
    bl = t.meta[M_LEN, b]
    t.st[S_DIFF_DONE] += 1
    t.st[S_DIFF_READ] += al
    k, removed = _diff_words(aw, al, bw, bl, t.buf)
    out = t.buf
    c = intern(t, out, k) if removed else a
    _memo_put(t.memo, t.meta, _DIFF, a, b, c)
    return c


@njit(cache=True)
def intersect(t, a, b):
    """Id of ``a ∩ b``; no reference taken."""
    if a == b:
        return a
    if a == EMPTY or b == EMPTY:
        return EMPTY
    x, y = min(a, b), max(a, b)
    c = _memo_get(t.memo, t.meta, _INTER, x, y)
    if c >= 0:
        t.st[S_MEMO_HIT] += 1
        return c
    t.st[S_INTER_DONE] += 1
    meta = t.meta
    if meta[M_LEN, a] > meta[M_LEN, b]:
        a, b = b, a
    aw = words(t, a)
    bw = words(t, b)
    al = meta[M_LEN, a]
    bl = meta[M_LEN, b]
    out = t.buf
    k = 0
    j = 0
    for i in range(al):
        base = aw[2 * i]
        j = bits.seek(bw, bl, j, base)
        if j >= bl:
            break
        if bw[2 * j] == base:
            word = aw[2 * i + 1] & bw[2 * j + 1]
            if word:
                out[2 * k] = base
                out[2 * k + 1] = word
                k += 1
    c = intern(t, out, k)
    _memo_put(t.memo, t.meta, _INTER, x, y, c)
    return c


@njit(cache=True)
def stats(t):
    """The counters as an int64 array (:data:`STAT_NAMES`; "live sets" counts the empty set)."""
    _note_peak(t, 0)
    t.st[S_LIVE] = t.n_live
    return t.st.copy()


@njit(cache=True)
def n_ids(t):
    """One more than the largest id handed out."""
    return t.n_ids

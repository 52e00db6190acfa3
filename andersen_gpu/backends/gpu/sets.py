"""The set store: interned points-to sets on the device, their caches, compaction and export.

Every set the solver makes is interned (kernels_cu/setstore.cuh): equal sets have one set id
(sid), held by one immutable, contiguous run of elements in the pool. Per set id: ``start``,
``nelem``, ``nbits`` and ``hash`` (additive: h(A ∪ B) = h(A) + h(B) for disjoint sets); an
intern table of ``tag << 32 | sid`` finds a set by content. Memo
caches remember set operations by sids: ``update`` ((P, N) -> (P ∪ N, N \\ P), for the whole
solve), ``shift`` ((sid, o) -> the gep of a set), and for this round only (the sets they read
change every round) ``image`` (a load's image of a set) and ``elements`` (the part of an image
one element contributes, keyed by the element's content: sets share most of their elements).
Each cache starts at a small share of the size its input could need and is made larger when
its claims (counted by the kernels in a control-block slot of its own) pass a quarter of its
slots: what a solve allocates follows what it uses, not the size of its input.

Garbage (sets no node refers to any more, lists under construction, candidates that turned
out equal to a set already interned) is reclaimed by :meth:`SetStore.compact`: the live sets
(those of the roots) are copied into a pool sized for them and renumbered densely.
"""

from __future__ import annotations

from dataclasses import dataclass

import cupy
import numpy as np

from .device import (BLOCK, CTL_ELEM_CLAIMS, CTL_IMAGE_CLAIMS, CTL_NSETS, CTL_OVF, CTL_ROUND_FIRST,
                     CTL_SHIFT_CLAIMS, CTL_TOP, CTL_UPDATE_CLAIMS, descriptor, fill_bytes, module, persistent_grid)
from .pool import ELEM_BYTES, ELEM_WORDS, ElementPool

#: Cache sizes (slots of 16 bytes) are powers of two in [MIN_CACHE_SLOTS, MAX_CACHE_SLOTS].
MIN_CACHE_SLOTS = 1 << 10
MAX_CACHE_SLOTS = 1 << 24
#: The smallest set table (set ids; 36 bytes each with the intern table).
MIN_SETS = 1 << 16
#: A cache is made larger once its claims pass 1/CACHE_LOAD of its slots (probes stay short).
CACHE_LOAD = 4
#: A cache starts at 1/START_SHARE of the largest size its solve gives it (at least MIN_CACHE_SLOTS).
START_SHARE = 16


def _try_empty(words: int) -> cupy.ndarray | None:
    """uint32[words] on the device, or None when it does not fit (CuPy has already freed its
    cached blocks and retried by then)."""
    try:
        return cupy.empty(int(words), cupy.uint32)
    except cupy.cuda.memory.OutOfMemoryError:
        return None


def pow2_at_least(k: int, low: int) -> int:
    """The least power of two >= max(k, low) (low a power of two)."""
    return 1 << max(int(low).bit_length() - 1, (max(int(k), 1) - 1).bit_length())


def cache_slots(claims: int, slots: int, largest: int) -> int:
    """The size a cache of ``slots`` slots (powers of two, ``slots <= largest``) should have after
    ``claims`` claims: ``slots`` while ``claims <= slots / CACHE_LOAD``, else the least power of two
    of at least ``CACHE_LOAD * claims`` slots, at most ``largest``."""
    if claims <= slots // CACHE_LOAD:
        return slots
    return max(slots, min(largest, pow2_at_least(CACHE_LOAD * claims, MIN_CACHE_SLOTS)))


def grown(m, claims: int, largest: int):
    """A new, empty cache of ``m``'s class and claims slot, larger than ``m`` as :func:`cache_slots`
    says after ``claims`` claims (``largest``: its largest size, or ``m``'s size where that is
    larger already), or None when ``m`` keeps its size."""
    slots = cache_slots(claims, m.slots, max(largest, m.slots))
    return type(m).make(slots, m.claims) if slots > m.slots else None


def start_slots(largest: int) -> int:
    """A cache's first size: 1/START_SHARE of ``largest`` (a power of two), at least MIN_CACHE_SLOTS."""
    return min(largest, max(MIN_CACHE_SLOTS, largest // START_SHARE))


@dataclass
class Memo:
    """An open-addressing cache of uint64 keys and values (kernels_cu/setstore.cuh ``Memo``);
    the kernels count the slots they claim in ``ctl[claims]``. ``keys`` and ``vals`` are the two
    halves of one allocation, ``buf``, so that a clear is one memset."""

    buf: cupy.ndarray
    keys: cupy.ndarray
    vals: cupy.ndarray
    desc: cupy.ndarray
    claims: int

    @classmethod
    def make(cls, slots: int, claims: int) -> "Memo":
        buf = cupy.empty(2 * slots, cupy.uint64)
        keys, vals = buf[:slots], buf[slots:]
        memo = cls(buf, keys, vals, descriptor(keys, vals, slots - 1, claims), claims)
        memo.clear()
        return memo

    @property
    def slots(self) -> int:
        return int(self.keys.size)

    def clear(self) -> None:
        """Forget everything (keys free, values pending): one memset."""
        fill_bytes(self.buf, 0xFF)


@dataclass
class ElemMemo:
    """A cache keyed by one element's content (kernels_cu/setstore.cuh ``ElemMemo``); claims
    counted in ``ctl[claims]``. ``keys``, ``vals`` (uint64) and ``elem`` (uint32) lie one after
    another in one allocation, ``buf``, so that a clear is one memset."""

    buf: cupy.ndarray
    keys: cupy.ndarray
    vals: cupy.ndarray
    elem: cupy.ndarray
    desc: cupy.ndarray
    claims: int

    @classmethod
    def make(cls, slots: int, claims: int) -> "ElemMemo":
        buf = cupy.empty(20 * slots, cupy.uint8)
        keys = buf[:8 * slots].view(cupy.uint64)
        vals = buf[8 * slots:16 * slots].view(cupy.uint64)
        elem = buf[16 * slots:].view(cupy.uint32)
        memo = cls(buf, keys, vals, elem, descriptor(keys, vals, elem, slots - 1, claims), claims)
        memo.clear()
        return memo

    @property
    def slots(self) -> int:
        return int(self.keys.size)

    def clear(self) -> None:
        """Forget everything: one memset."""
        fill_bytes(self.buf, 0xFF)


class SetStore:
    """Set table, intern table and memo caches of one solve.

    Parameters
    ----------
    pool : ElementPool
        The pool the lists live in (``ctl[CTL_NSETS]`` counts the set ids handed out).
    capacity : int
        Initial set-table capacity (set ids; the table grows when they run out, and after a
        round that left it over half full: :meth:`fit`).
    update_slots, shift_slots, image_slots : int
        The largest sizes of the caches (rounded up to powers of two; the element memo's is
        twice ``image_slots``); each starts at :func:`start_slots` of it and grows by its claims
        (:meth:`fit`).
    """

    def __init__(self, pool: ElementPool, capacity: int, update_slots: int, shift_slots: int,
                 image_slots: int):
        self.pool = pool
        self.compactions = 0
        self.staged_compactions = 0   # compactions that freed the old pool before making the new
        self.sets_made = 0          # set ids handed out before the last compaction
        self._alloc(pow2_at_least(capacity, MIN_SETS))
        self.start[0] = 0xFFFFFFFF   # sid 0: the empty set
        self.nelem[0] = 0
        self.nbits[0] = 0
        self.hash[0] = 0
        pool.ctl[CTL_NSETS] = 1
        # name -> the largest size of that cache
        self.largest = {}
        for name, k, claims, kind in (("update", update_slots, CTL_UPDATE_CLAIMS, Memo),
                                      ("shift", shift_slots, CTL_SHIFT_CLAIMS, Memo),
                                      ("image", image_slots, CTL_IMAGE_CLAIMS, Memo),
                                      ("elements", 2 * image_slots, CTL_ELEM_CLAIMS, ElemMemo)):
            self.largest[name] = min(MAX_CACHE_SLOTS, pow2_at_least(k, MIN_CACHE_SLOTS))
            setattr(self, name, kind.make(start_slots(self.largest[name]), claims))

    def _alloc(self, cap: int) -> None:
        self.cap = int(cap)
        self.start = cupy.empty(cap, cupy.uint32)
        self.nelem = cupy.empty(cap, cupy.uint32)
        self.nbits = cupy.empty(cap, cupy.uint32)
        self.hash = cupy.empty(cap, cupy.uint64)
        self.table = cupy.empty(2 * cap, cupy.uint64)
        fill_bytes(self.start, 0xFF)   # NIL: no set (ids handed out but never written stay so)
        fill_bytes(self.table, 0xFF)
        self.desc = descriptor(self.start, self.nelem, self.nbits, self.hash, self.table, 2 * cap - 1, cap)

    @property
    def nbytes(self) -> int:
        caches = sum(2 * 8 * m.slots for m in (self.update, self.shift, self.image)) + 20 * self.elements.slots
        return self.cap * (4 + 4 + 4 + 8 + 16) + caches

    def clear_caches(self) -> None:
        """Forget the persistent caches (after compaction renumbered the sets, or after a step
        gave up and left aborted entries)."""
        for m in (self.update, self.shift):
            m.clear()
            self.pool.ctl[m.claims] = 0

    def fit(self, c: np.ndarray) -> None:
        """After a round (control block ``c``): the set table grows when over half its ids are in
        use; a cache whose claims passed 1/CACHE_LOAD of its slots (the persistent caches since
        they were last cleared, the per-round ones in this round) is made larger for the rounds
        to come (:func:`cache_slots`; what it held is forgotten), and a persistent one already at
        its largest is cleared."""
        if int(c[CTL_NSETS]) > self.cap // 2:
            self.grow(int(c[CTL_NSETS]))
        for name, largest in self.largest.items():
            m = getattr(self, name)
            n = int(c[m.claims])
            if n <= m.slots // CACHE_LOAD:
                continue
            new = grown(m, n, largest)
            if new is not None:
                setattr(self, name, new)
            persistent = m.claims < CTL_ROUND_FIRST   # its claims are not zeroed with each round's
            if persistent:
                if new is None:
                    m.clear()
                self.pool.ctl[m.claims] = 0

    def make_room(self, c: np.ndarray) -> None:
        """After a kernel that interns sets raised CTL_OVF (control block ``c``): grow the pool
        past ``c[CTL_TOP]`` when it ran out, and the set table when its ids ran out or when
        nothing else shows full (then the intern table, twice the set table, was); forget the
        caches (the kernel left aborted entries) and clear the flag, so that it can run again."""
        grew = False
        if int(c[CTL_TOP]) > self.pool.cap:
            self.pool.grow(int(c[CTL_TOP]))
            grew = True
        if int(c[CTL_NSETS]) >= self.cap or not grew:
            self.grow(int(c[CTL_NSETS]))
        self.clear_caches()
        self.pool.ctl[CTL_OVF] = 0

    def grow(self, nsets: int) -> None:
        """A set table of at least twice the ids in use (``nsets``; sids past the old capacity
        were never written), with the intern table rebuilt from the stored hashes."""
        old, used = (self.start, self.nelem, self.nbits, self.hash), min(int(nsets), self.cap)
        self._alloc(pow2_at_least(2 * max(int(nsets), self.cap), MIN_SETS))
        for new, was in zip((self.start, self.nelem, self.nbits, self.hash), old):
            new[:used] = was[:used]
        self.pool.ctl[CTL_NSETS] = used
        self._rebuild_table(used)

    def _rebuild_table(self, nsets: int) -> None:
        # table: every set id of [1, nsets) with a list, at its hash's probe position
        module("sets.cu")("rebuild_table")(persistent_grid(), (BLOCK,), (np.uint64(nsets), self.desc))

    def intern_heads(self, nodes: cupy.ndarray, heads: cupy.ndarray, Pn: cupy.ndarray, Dn: cupy.ndarray,
                     chg: cupy.ndarray) -> None:
        """Pn[x] = Dn[x] = the sid of the list heads[x], for x in ``nodes`` with a list; each
        such x appended to ``chg`` (count in ``ctl[CTL_NCHG]``)."""
        if nodes.size:
            # Pn, Dn, chg: the initial sets
            module("sets.cu")("intern_heads")(persistent_grid(), (BLOCK,), (
                nodes, np.uint64(nodes.size), heads, self.desc, Pn, Dn, chg, *self.pool.args()))

    def compact(self, roots: list[cupy.ndarray], nsets: int, min_cap: int, want_free: int,
                min_free: int = 0, release=None) -> tuple[int, int]:
        """Keep only the sets named in ``roots`` (uint32 arrays of sids, rewritten in place to the
        new sids); ``nsets``: set ids in use (from the control block).

        The new pool holds the live sets and room for ``want_free`` more elements (``min_cap``
        elements in all at least). When that does not fit beside the old pool, ``release()``
        (if given) frees what the caller can spare, and the live sets are staged in a buffer of
        their own size while the old pool is freed, so the peak is the larger of the two pools
        plus the live sets rather than both pools; the room is then halved, down to
        ``min_free``, until the pool fits. Returns (live sets, live elements). Raises
        MemoryError when even ``min_free`` does not fit (the state is then lost: the solve
        must stop).
        """
        f = module("sets.cu")
        grid = persistent_grid()
        want_free = max(int(want_free), int(min_free))
        live = cupy.zeros(max(nsets, 1), cupy.uint32)
        live[0] = 1
        for r in roots:
            if r.size:
                # live: the sids of the root
                f("mark_sids")(grid, (BLOCK,), (r, np.uint64(r.size), live))
        sizes = cupy.where(live != 0, self.nelem[:nsets], 0).astype(cupy.uint64)
        at = cupy.empty(nsets + 1, cupy.uint64)
        at[0] = 0
        cupy.cumsum(sizes, out=at[1:])
        del sizes
        sprefix = cupy.cumsum(live, dtype=cupy.uint32)
        live_elems = int(at[-1])
        live_sets = int(sprefix[-1])

        def cap_for(free: int) -> int:
            cap = max(int(min_cap), live_elems + int(free))
            if cap >= 2**32 - 1:
                raise MemoryError(f"points-to pool would need {cap:,} elements (over 2^32)")
            return cap

        def no_room(free: int) -> MemoryError:
            return MemoryError(f"device out of memory compacting the points-to pool: {live_elems:,} live "
                               f"elements ({live_elems * ELEM_BYTES / 2**30:.1f} GiB) and room for "
                               f"{free:,} more")

        words = _try_empty(cap_for(want_free) * ELEM_WORDS)
        if words is None and release is not None:
            release()
            words = _try_empty(cap_for(want_free) * ELEM_WORDS)
        staged = words is None
        if staged:
            # the live sets alone, packed; the old pool is freed before the new one is made
            words = _try_empty(max(live_elems, 1) * ELEM_WORDS)
            if words is None:
                raise no_room(want_free)
        old_desc, old_arrays = self.desc, (self.start, self.nelem, self.nbits, self.hash)
        self._alloc(pow2_at_least(2 * live_sets, MIN_SETS))
        # words, the new set table: every live set at its new place under its new sid
        f("move_sets")(grid, (BLOCK,), (np.uint64(nsets), live, sprefix, at, old_desc, self.desc,
                                        self.pool.words, words))
        del old_arrays, live, at
        for r in roots:
            if r.size:
                f("remap_sids")(grid, (BLOCK,), (r, np.uint64(r.size), sprefix))
        del sprefix
        if staged:
            self.pool.release()
            free = int(want_free)
            while True:
                big = _try_empty(cap_for(free) * ELEM_WORDS)
                if big is not None:
                    break
                if free <= min_free:
                    self.pool.replace(words, live_elems)   # what is left, for the caller to drop
                    raise no_room(free)
                free = max(int(min_free), free // 2)
            big[:live_elems * ELEM_WORDS] = words[:live_elems * ELEM_WORDS]
            del words
            words = big
            self.staged_compactions += 1
        self.pool.replace(words, live_elems)
        self.pool.ctl[CTL_NSETS] = live_sets
        self._rebuild_table(live_sets)
        self.clear_caches()
        self.sets_made += int(nsets) - live_sets
        self.compactions += 1
        return live_sets, live_elems

    def export(self, sids: cupy.ndarray) -> tuple[cupy.ndarray, cupy.ndarray, cupy.ndarray]:
        """The distinct sets among ``sids`` (uint32[m]): (which uint32[m] index into them,
        indptr int64[k+1], indices int32[...] sorted per set), on the device."""
        uniq = cupy.unique(sids)
        which = cupy.searchsorted(uniq, sids).astype(cupy.int32)
        counts = self.nbits[uniq].astype(cupy.int64)
        indptr = cupy.zeros(uniq.size + 1, cupy.int64)
        cupy.cumsum(counts, out=indptr[1:])
        total = int(indptr[-1])
        out = cupy.empty(max(total, 1), cupy.int32)
        if total:
            # out: the ids of every distinct set, at indptr
            module("sets.cu")("expand_sets")(persistent_grid(), (BLOCK,), (
                uniq, np.uint64(uniq.size), self.desc, self.pool.words, indptr, out))
        return which, indptr, out[:total]

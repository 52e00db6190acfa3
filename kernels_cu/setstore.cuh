// Interned points-to sets (hash-consing) in the element pool of bitvec.cuh.
//
// A set is named by a set id (sid) and stored once, as a contiguous, immutable run of
// elements sorted by base: start[sid], nelem[sid] (word 31 of these elements is unused).
// Equal sets have one sid: every set a kernel makes goes through an intern function, which
// finds an existing set of equal content (a hash narrows the search; contents are then
// compared exactly) or gives the new content a sid. sid 0 is the empty set. A node's points-to
// set is a sid, so nodes with equal sets share one run, and a union of sets already known
// (memo caches below) costs one table probe.
//
// The hash of a set is additive: h = Σ over its words w of M(base, lane) * w (mod 2^64), with
// M an odd pseudo-random constant per word position. For disjoint sets, the words of the
// union are sums of the words, so h(A ∪ B) = h(A) + h(B): the hash of P ∪ ΔP is known before
// the union is written, and an existing equal set is found without writing it.
//
// A union of up to 32 sets is merged as a stream (UnionStream) and hashed before anything is
// written: when it equals a set already interned, as most unions do, it costs the pool
// nothing. A larger union first merges its sets 32 at a time into a linked list (bitvec.cuh),
// the last 31 and that list then being one stream; shifts and the initial sets are lists too,
// sealed into a contiguous run when interned.
//
// The set table (SetStore): start, nelem, nbits, hash per sid < ctl[CTL_NSETS]; an
// open-addressing intern table of (tag << 32 | sid), ~0 when free, probed from mix64(hash).
// Sids past `cap_sets` raise CTL_OVF (the host grows the table and runs the step again).
//
// Memo caches (Memo): open-addressing tables of u64 keys and u64 values. A warp that misses
// claims the slot with its key and the value PENDING, computes, and publishes; warps that find
// PENDING wait for the value (the owner is running and waits on nothing, and these kernels use
// no block barriers, so the wait ends). A warp whose computation runs out of pool publishes
// ABORTED; waiters then give up too (the host runs the step again with the caches cleared).
// A cache may drop anything: a probe sequence that finds no slot computes without caching.
#pragma once

#include "bitvec.cuh"

// Slots of the control block (u64[CTL_SLOTS]); those from CTL_ROUND_FIRST on are per-round
// counters, zeroed before every round. Must match andersen_gpu/backends/gpu/device.py.
#define CTL_TOP 0          // next free element of the pool
#define CTL_OVF 1          // a kernel ran out of pool, set table or a buffer: redo the step
#define CTL_NSETS 2        // set ids handed out (sid 0 is the empty set)
#define CTL_LOAD_LIVE 3    // Σ load out-degree of the nodes with P ≠ ∅ (the bound of Ldelta pairs)
#define CTL_UPDATE_CLAIMS 4 // slots claimed in the update memo since it was last cleared
#define CTL_SHIFT_CLAIMS 5 // slots claimed in the shift memo since it was last cleared
#define CTL_ROUND_FIRST 8
#define CTL_C_FILL 8       // contribution pairs emitted this round (after the carried ones)
#define CTL_G_FILL 9       // store grouping pairs (set << 32 | sid) emitted
#define CTL_NCHG 11        // nodes whose set changed this round (the next changed list)
#define CTL_NEXT_C 12      // contribution pairs the changed nodes push next round (bound)
#define CTL_NEXT_G 13      // store grouping pairs the next round emits (bound)
#define CTL_DELTA_BITS 14  // bits in this round's new deltas (statistics)
#define CTL_MEMO_HITS 15   // memo lookups answered from a cache (statistics)
#define CTL_MEMO_MISSES 16 // memo lookups computed (statistics)
#define CTL_UNIONS 17      // unions of two or more distinct sets computed (statistics)
#define CTL_WORK 18        // atomic work counters, one per kernel of a round (18..23)
#define CTL_GE_FILL 24     // element grouping pairs (slot << 32 | sid) of the stores emitted
#define CTL_EXPAND_BOUND 25 // bits of the distinct elements the stores expand (bound of their pairs)
#define CTL_TABLE_FULL 26  // the stores' element table had no room (CTL_OVF raised too)
#define CTL_CHUNKS 27      // image chunk items listed for emit (image_chunks; may pass the buffer's size)
#define CTL_IMAGE_CLAIMS 28 // slots claimed this round in the image memo
#define CTL_ELEM_CLAIMS 29 // slots claimed this round in the element memo
#define CTL_TABLE_CLAIMS 30 // slots claimed this round in the stores' element table
#define CTL_ROUND_END 32
// 32..79: profile counters, written only when compiled with -DANDERSEN_PROFILE (warp cycles
// and counts per part of a round; andersen_gpu/backends/gpu/device.py PROFILE_SLOTS names them)
#define CTL_SLOTS 80

#ifdef ANDERSEN_PROFILE
#define PROF_T0(v) const long long v = clock64()
#define PROF_ADD(ctl, slot, v) do { if (lane_id() == 0) atomicAdd(&(ctl)[slot], (u64)(clock64() - (v))); } while (0)
#define PROF_CNT(ctl, slot, k) do { const u64 k_ = (u64)(k); if (lane_id() == 0) atomicAdd(&(ctl)[slot], k_); } while (0)
#define PROF_MAX(ctl, slot, k) do { const u64 k_ = (u64)(k); if (lane_id() == 0) atomicMax(&(ctl)[slot], k_); } while (0)
#else
#define PROF_T0(v) do { } while (0)
#define PROF_ADD(ctl, slot, v) do { } while (0)
#define PROF_CNT(ctl, slot, k) do { } while (0)
#define PROF_MAX(ctl, slot, k) do { } while (0)
#endif
#define PF_EMIT_CHANGED 32   // cycles: emit, changed nodes (all of it)
#define PF_SHIFT 33          // cycles: gep shifts computed
#define PF_IMG_FULL 34       // cycles: Lfull images computed
#define PF_IMG_DELTA 35      // cycles: Ldelta images computed
#define PF_EMIT_LOADS 36     // cycles: emit, load pointers (all of it)
#define PF_RUN_UNION 37      // cycles: union_update, unions of the runs
#define PF_UPDATE 38         // cycles: union_update, update_sets computed
#define PF_MEMO_WAIT 39      // cycles: waiting for another warp's memo value
#define PF_STORE_UNION 40    // cycles: store_runs, unions
#define PF_STORE_EXPAND 41   // cycles: store_runs, expansions
#define PF_N_FULL 42         // Lfull images computed
#define PF_N_DELTA 43        // Ldelta images computed
#define PF_SIDS_FULL 44      // sids added by Lfull images
#define PF_SIDS_DELTA 45     // sids added by Ldelta images
#define PF_MAX_UNION 46      // most distinct sids in one union
#define PF_RUN_SIDS 47       // sids added by union_update runs
#define PF_N_UPDATE 48       // update_sets computed
#define PF_UPDATE_ELEMS 49   // elements of P' written or compared by update_sets
#define PF_EXPAND_PAIRS 50   // pairs emitted by store expansions
#define PF_ELEMS_FULL 51     // elements of T read by Lfull images
#define PF_ELEMS_DELTA 52    // elements of S selected by Ldelta images (base in cb)
#define PF_SCAN_DELTA 53     // elements of S scanned by Ldelta images
#define PF_UNION_BATCHES 54  // union_sets calls (batches of up to 32 sets)
#define PF_UNION_ELEMS 55    // source elements read by union_sets
#define PF_N_RUNS 56         // runs with a union of >= 2 sids in union_update
#define PF_ELEM_IMAGES 57    // element images computed
#define PF_ELEM_HITS 58      // element images found in the cache
#define PF_EMIT_ITEM_MAX 59  // cycles: the longest one item of emit took (a changed node, a heavy gep chunk or a load pointer)
#define PF_UNION_WARP_MAX 60 // cycles: the longest one warp of union_update took (its runs' unions and updates)
#define PF_STORE_WARP_MAX 61 // cycles: the longest one warp of store_runs took
#define PF_EXPAND 62         // cycles: expand_elems, all of it
#define PF_EXPAND_WARP_MAX 63 // cycles: the longest one warp of expand_elems took
// the longest one of each part of an emit item (cycles; which part makes the longest item)
#define PF_ITEM_MAX_KIND 64  // (cycles << 2 | kind) of the longest emit item: 0 heavy gep chunk, 1 changed node, 2 load pointer, 3 image chunk
#define PF_MAX_COPY 65       // a changed node's copy pushes
#define PF_MAX_GEPS 66       // an item's gep pushes (their shifts included)
#define PF_MAX_SHIFT 67      // one shift computed
#define PF_MAX_LFULL 68      // a changed node's Lfull (found, waited for or computed) and its pushes
#define PF_MAX_STORES 69     // a changed node's store grouping pairs
#define PF_MAX_LDELTA 70     // a load pointer's Ldelta (found, waited for or computed) and its pushes
#define PF_MAX_IMAGE 71      // one image computed
#define PF_MAX_IMAGE_WAIT 72 // the waits of one image for element parts other warps computed
#define PF_MAX_IMAGE_PARTS 73 // the element parts one image computed itself
#define PF_MAX_IMAGE_FINISH 74 // the union of one image's parts (su_finish)
#define PF_MAX_ELEM_IMAGE 75 // one element's part computed
#define PF_MAX_MEMO_WAIT 76  // one wait for a memo value (any memo)
#define PF_MAX_IMAGE_ELEMS 77 // count: most elements of a set one image read
#define PF_MAX_IMAGE_COMPUTED 78 // count: most element parts one image computed itself
#define PF_MAX_ELEM_SIDS 79  // count: most sids one element's part added

#define MEMO_EMPTY 0xFFFFFFFFFFFFFFFFull
#define MEMO_PENDING 0xFFFFFFFFFFFFFFFFull
#define MEMO_ABORTED 0xFFFFFFFFFFFFFFFEull
#define MEMO_PROBES 64

// Kernels take these descriptors as pointers to a copy in device memory (every field 64 bits
// wide, so the host writes them as a uint64 array) and copy them into registers.
struct SetStore {
    u32* start;   // [cap_sets] first element of each set (NIL: no set, a lost race's sid)
    u32* nelem;   // [cap_sets] elements of each set
    u32* nbits;   // [cap_sets] bits of each set
    u64* hash;    // [cap_sets] additive content hash of each set
    u64* table;   // [mask + 1] intern table: tag << 32 | sid, ~0 free
    u64 mask;
    u64 cap_sets;
};

struct Memo {
    u64* keys;    // [mask + 1], MEMO_EMPTY free
    u64* vals;    // [mask + 1], MEMO_PENDING until published
    u64 mask;
    u64 claims;   // the control-block slot that counts the slots claimed (the host sizes the cache by it)
};

// A memo cache keyed by the content of one element (base and 30 words) and a kind: keys hold
// a hash of both, elem the pool index of an element of that content (NIL until the claiming
// warp wrote it), so that a hash match is checked exactly.
struct ElemMemo {
    u64* keys;    // [mask + 1], MEMO_EMPTY free
    u64* vals;    // [mask + 1], MEMO_PENDING until published
    u32* elem;    // [mask + 1], NIL until claimed
    u64 mask;
    u64 claims;   // the control-block slot that counts the slots claimed
};

__device__ __forceinline__ u64 mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// This lane's term of the additive hash of an element (lanes 1..30; 0 elsewhere).
__device__ __forceinline__ u64 word_hash(u32 base, u32 w) {
    const u32 lane = lane_id();
    return bits_lane(lane) && w ? (mix64((u64)base << 5 | lane) | 1ull) * (u64)w : 0ull;
}

__device__ __forceinline__ u64 warp_sum64(u64 v) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(FULL_MASK, v, d);
    return v;
}

// Raise the overflow flag (every lane may call it; lane 0 writes).
__device__ __forceinline__ void raise_ovf(u64* ctl) {
    if (lane_id() == 0) atomicExch(&ctl[CTL_OVF], 1ull);
}

__device__ __forceinline__ bool ovf_raised(const u64* ctl) {
    return *(volatile const u64*)&ctl[CTL_OVF] != 0;
}

// ---------------------------------------------------------------- element streams
// A sequence of elements in base order, read a warp at a time (lane l: word l): a linked list
// under construction, a sealed set, or the union of a sealed set with a disjoint one (what
// P ∪ ΔP' is before it is written). base is NIL past the end.
struct ListStream {
    u32 e, w, base;
    __device__ ListStream(const Pool& p, u32 head) : e(head) { load(p); }
    __device__ void load(const Pool& p) {
        w = e != NIL ? elem_word(p, e, lane_id()) : 0u;
        base = e != NIL ? __shfl_sync(FULL_MASK, w, 0) : NIL;
    }
    __device__ void next(const Pool& p) {
        e = __shfl_sync(FULL_MASK, w, 31);
        load(p);
    }
    __device__ u32 bits() const { return bits_lane(lane_id()) ? w : 0u; }
};

struct SetStream {
    u32 i, end, w, base;
    __device__ SetStream(const Pool& p, u32 start, u32 n) : i(start), end(start + n) { load(p); }
    __device__ void load(const Pool& p) {
        w = i < end ? elem_word(p, i, lane_id()) : 0u;
        base = i < end ? __shfl_sync(FULL_MASK, w, 0) : NIL;
    }
    __device__ void next(const Pool& p) {
        ++i;
        load(p);
    }
    __device__ u32 bits() const { return bits_lane(lane_id()) ? w : 0u; }
};

struct MergeStream {   // a ∪ b for sealed sets a, b with no bit in common
    SetStream a, b;
    u32 base;
    __device__ MergeStream(const Pool& p, u32 sa, u32 na, u32 sb, u32 nb) : a(p, sa, na), b(p, sb, nb) {
        base = min(a.base, b.base);
    }
    __device__ void next(const Pool& p) {
        const u32 was = base;
        if (a.base == was) a.next(p);
        if (b.base == was) b.next(p);
        base = min(a.base, b.base);
    }
    __device__ u32 bits() const { return (a.base == base ? a.bits() : 0u) | (b.base == base ? b.bits() : 0u); }
};

// The union of the lanes' sources, as a stream: lane l's source is the sealed set (start, n)
// (n = 0: none) or, for the lane `list_lane` (32: none), the linked list at `head`. Each step
// takes the smallest base among the lanes' current elements and ORs every element of that base
// (UNION_UNROLL loads in flight); `acc` is this lane's word of the result's current element.
struct UnionStream {
    u32 cur, end, cbase;   // this lane's current element (list: end is NIL), its base
    u32 base, acc;         // the stream's current base (warp-uniform) and this lane's word
    __device__ UnionStream(const Pool& p, u32 start, u32 n, u32 list_lane, u32 head) {
        const bool list = lane_id() == list_lane;
        cur = list ? head : start;
        end = list ? NIL : start + n;
        cbase = (list ? head != NIL : n != 0) ? elem_word(p, cur, 0) : NIL;
        load(p);
    }
    __device__ void load(const Pool& p) {
        const u32 lane = lane_id();
        base = __reduce_min_sync(FULL_MASK, cbase);
        acc = 0;
        if (base == NIL) return;
        for (u32 who = __ballot_sync(FULL_MASK, cbase == base); who;) {
            int l[UNION_UNROLL];
            u32 w[UNION_UNROLL];
#pragma unroll
            for (int k = 0; k < UNION_UNROLL; ++k) {
                l[k] = who ? __ffs(who) - 1 : -1;
                who &= who - 1;
                w[k] = __shfl_sync(FULL_MASK, cur, l[k] < 0 ? 0 : l[k]);
            }
#pragma unroll
            for (int k = 0; k < UNION_UNROLL; ++k) w[k] = l[k] >= 0 ? elem_word(p, w[k], lane) : 0u;
#pragma unroll
            for (int k = 0; k < UNION_UNROLL; ++k) acc |= w[k];
        }
        acc = bits_lane(lane) ? acc : 0u;
    }
    __device__ void next(const Pool& p) {
        if (cbase == base) {
            if (end == NIL) {
                cur = elem_word(p, cur, 31);
                cbase = cur != NIL ? elem_word(p, cur, 0) : NIL;
            } else {
                ++cur;
                cbase = cur < end ? elem_word(p, cur, 0) : NIL;
            }
        }
        load(p);
    }
    __device__ u32 bits() const { return acc; }
};

// Exact comparison of a stream with sealed set (start, n).
template <class S>
__device__ bool same_as_set(const Pool& p, S s, u32 start, u32 n) {
    SetStream t(p, start, n);
    while (s.base != NIL || t.base != NIL) {
        if (s.base != t.base || __any_sync(FULL_MASK, s.bits() != t.bits())) return false;
        s.next(p);
        t.next(p);
    }
    return true;
}

// Write a stream of `n` elements at `at` (contiguous, word 31 zero).
template <class S>
__device__ void write_stream(Pool& p, S s, u32 at) {
    const u32 lane = lane_id();
    for (; s.base != NIL; s.next(p), ++at)
        set_elem_word(p, at, lane, lane == 0 ? s.base : s.bits());
}

// Hash, bits and elements of a stream (every lane gets all three).
template <class S>
__device__ void stream_stats(const Pool& p, S s, u64& h, u32& nb, u32& n) {
    u64 acc = 0;
    u32 cnt = 0, k = 0;
    for (; s.base != NIL; s.next(p), ++k) {
        const u32 b = s.bits();
        acc += word_hash(s.base, b);
        cnt += __popc(b);
    }
    h = warp_sum64(acc);
    nb = warp_sum(cnt);
    n = k;
}

// ---------------------------------------------------------------- interning
// The sid of the set held by stream `s` (h, nb, n its hash, bits and elements): an existing sid
// of equal content, or a new one. A new set is written to `at` when `at` is not NIL (the
// caller wrote it there already), else to freshly allocated elements. NIL when the pool, the
// set table or the intern table is full (CTL_OVF raised).
template <class S>
__device__ u32 intern_stream(Pool& p, SetStore& s, const S& src, u64 h, u32 nb, u32 n, u32 at) {
    if (n == 0) return 0;
    const u32 lane = lane_id();
    const u64 key = mix64(h);
    const u32 tag = (u32)(key >> 32);
    u64 slot = key & s.mask;
    for (u64 probe = 0; probe <= s.mask; ++probe, slot = (slot + 1) & s.mask) {
        u64 held = 0;
        if (lane == 0) held = *(volatile u64*)&s.table[slot];
        held = __shfl_sync(FULL_MASK, held, 0);
        if (held == MEMO_EMPTY) {
            u32 sid = 0;
            if (lane == 0) sid = (u32)atomicAdd(&p.ctl[CTL_NSETS], 1ull);
            sid = __shfl_sync(FULL_MASK, sid, 0);
            if (sid >= s.cap_sets) {
                raise_ovf(p.ctl);
                return NIL;
            }
            if (at == NIL) {
                at = warp_alloc(p, n, CTL_OVF);
                if (at == NIL) return NIL;
                write_stream(p, src, at);
            }
            __syncwarp();
            if (lane == 0) {
                s.start[sid] = at;
                s.nelem[sid] = n;
                s.nbits[sid] = nb;
                s.hash[sid] = h;
                __threadfence();
                held = atomicCAS(&s.table[slot], MEMO_EMPTY, (u64)tag << 32 | sid);
                if (held != MEMO_EMPTY) s.start[sid] = NIL;   // lost the slot: sid unused
            }
            held = __shfl_sync(FULL_MASK, held, 0);
            if (held == MEMO_EMPTY) return sid;
        }
        if ((u32)(held >> 32) == tag) {
            const u32 other = (u32)held;
            u32 os = 0, on = 0, ob = 0;
            if (lane == 0) {
                os = *(volatile u32*)&s.start[other];
                on = *(volatile u32*)&s.nelem[other];
                ob = *(volatile u32*)&s.nbits[other];
            }
            os = __shfl_sync(FULL_MASK, os, 0);
            on = __shfl_sync(FULL_MASK, on, 0);
            ob = __shfl_sync(FULL_MASK, ob, 0);
            if (on == n && ob == nb && same_as_set(p, src, os, on)) return other;
        }
    }
    raise_ovf(p.ctl);   // the intern table is full
    return NIL;
}

// Seal and intern a linked list (NIL: the empty set).
__device__ u32 intern_list(Pool& p, SetStore& s, u32 head) {
    if (head == NIL) return 0;
    u64 h;
    u32 nb, n;
    stream_stats(p, ListStream(p, head), h, nb, n);
    return intern_stream(p, s, ListStream(p, head), h, nb, n, NIL);
}

// ---------------------------------------------------------------- memo caches
// What a published memo value `v`, just read, says: 1 with `val`, or -1 when its claimer gave up.
__device__ __forceinline__ int memo_value(u64 v, u64& val) {
    __threadfence();
    if (v == MEMO_ABORTED) return -1;
    val = v;
    return 1;
}

// The value of memo slot `slot` once its claimer published it: 1 with `val`, or -1 when the
// claimer gave up. Per lane (memo_begin's lane 0, or each lane that elem_memo_lookup_lane found
// a pending slot for).
__device__ int memo_wait_value(const u64* vals, u32 slot, u64& val, u64* ctl) {
    u64 v;
    PROF_T0(tw);
    while ((v = *(volatile const u64*)&vals[slot]) == MEMO_PENDING) __nanosleep(64);
#ifdef ANDERSEN_PROFILE
    const u64 dt = clock64() - tw;   // one reading for both: the longest wait is at most the sum
    atomicAdd(&ctl[PF_MEMO_WAIT], dt);
    atomicMax(&ctl[PF_MAX_MEMO_WAIT], dt);
#endif
    return memo_value(v, val);
}

// Memo lookup. Returns 1 with `val` when the key is cached, 0 when this warp claimed `slot`
// (it must compute and memo_publish), 2 when the cache has no room (compute, do not publish),
// -1 when the owner of the key gave up (the step is being abandoned: give up too).
__device__ int memo_begin(Memo& m, u64 key, u64& val, u32& slot, u64* ctl) {
    const u32 lane = lane_id();
    int r = 2;
    if (lane == 0) {
        u32 sl = (u32)(mix64(key) & m.mask);
        for (u32 probe = 0; probe < MEMO_PROBES; ++probe, sl = (u32)((sl + 1) & m.mask)) {
            u64 k = *(volatile u64*)&m.keys[sl];
            if (k == MEMO_EMPTY) {
                k = atomicCAS(&m.keys[sl], MEMO_EMPTY, key);
                if (k == MEMO_EMPTY) {
                    slot = sl;
                    r = 0;
                    atomicAdd(&ctl[m.claims], 1ull);
                    break;
                }
            }
            if (k == key) {
                r = memo_wait_value(m.vals, sl, val, ctl);
                break;
            }
        }
    }
    r = __shfl_sync(FULL_MASK, r, 0);
    val = __shfl_sync(FULL_MASK, val, 0);
    slot = __shfl_sync(FULL_MASK, slot, 0);
    if (lane == 0 && r >= 0) atomicAdd(&ctl[r == 1 ? CTL_MEMO_HITS : CTL_MEMO_MISSES], 1ull);
    return r;
}

// The slot of the element at pool index e's content in m (kind `kind`), claimed when no slot
// holds it yet (`fresh` then set); NIL when the table has no room for it. Per lane: each lane of
// a warp may look up an element of its own, side by side (a set's elements 32 at a time rather
// than one after another); `words` gets the element's 32 words. (Sealed elements: word 31 is
// not content.)
__device__ u32 elem_slot_lane(const Pool& p, ElemMemo& m, u32 e, u64 kind, u32 (&words)[ELEM_WORDS],
                              bool& fresh) {
    const u32* __restrict__ src = p.w + (size_t)e * ELEM_WORDS;
    u64 acc = 0;
#pragma unroll
    for (u32 l = 0; l < ELEM_WORDS; ++l) {
        words[l] = src[l];
        if (l != 31) acc += mix64(((u64)l << 48) ^ ((u64)words[l] * 0x9E3779B97F4A7C15ull) ^ kind);
    }
    const u64 h = mix64(acc) & ~1ull;   // never MEMO_EMPTY
    u32 sl = (u32)(h & m.mask);
    fresh = false;
    for (u32 probe = 0; probe < MEMO_PROBES; ++probe, sl = (u32)((sl + 1) & m.mask)) {
        u64 k = *(volatile u64*)&m.keys[sl];
        if (k == MEMO_EMPTY) {
            k = atomicCAS(&m.keys[sl], MEMO_EMPTY, h);
            if (k == MEMO_EMPTY) {
                *(volatile u32*)&m.elem[sl] = e;
                __threadfence();
                atomicAdd(&p.ctl[m.claims], 1ull);
                fresh = true;
                return sl;
            }
        }
        if (k != h) continue;
        u32 o;
        while ((o = *(volatile u32*)&m.elem[sl]) == NIL) __nanosleep(32);
        const u32* __restrict__ other = p.w + (size_t)o * ELEM_WORDS;
        bool same = true;
#pragma unroll
        for (u32 l = 0; l < 31; ++l) same &= other[l] == words[l];
        if (same) return sl;   // else a collision
    }
    return NIL;
}

// An ElemMemo lookup per lane, for the element at pool index e, that never waits for a value:
// 0 when this lane claimed `slot` (the warp computes the value and publish_value's it), 1 with
// `val` when it is cached, 3 when another warp claimed it and has not published yet (wait with
// memo_wait_value, once this warp has published its own claims: no two warps then wait on each
// other), 2 when the cache has no room (compute, do not publish), -1 when the claimer gave up.
__device__ int elem_memo_lookup_lane(const Pool& p, ElemMemo& m, u32 e, u64 kind, u64& val, u32& slot) {
    u32 words[ELEM_WORDS];
    bool fresh;
    slot = elem_slot_lane(p, m, e, kind, words, fresh);
    if (slot == NIL) return 2;
    if (fresh) return 0;
    const u64 v = *(volatile u64*)&m.vals[slot];
    return v == MEMO_PENDING ? 3 : memo_value(v, val);
}

// The bits of an element's words (`words` as elem_slot_lane reads them) but bit `id` (NIL: none).
__device__ __forceinline__ u32 elem_bits_without(const u32 (&words)[ELEM_WORDS], u32 id) {
    const u32 at = id != NIL && words[0] == id / ELEM_BITS ? 1 + (id % ELEM_BITS) / 32 : 0u;   // 0: none
    u32 n = 0;
#pragma unroll
    for (u32 l = 1; l <= 30; ++l) n += __popc(l == at ? words[l] & ~(1u << (id % 32)) : words[l]);
    return n;   // (words indexed by constants only: they stay in registers)
}

// Publish the value of a claimed slot (MEMO_ABORTED when the computation gave up).
__device__ __forceinline__ void publish_value(u64* vals, u32 slot, u64 val) {
    if (lane_id() == 0) {
        __threadfence();
        *(volatile u64*)&vals[slot] = val;
    }
    __syncwarp();
}

__device__ __forceinline__ void memo_publish(Memo& m, u32 slot, u64 val) { publish_value(m.vals, slot, val); }

// A memoized set operation: the cached sid for `key`, or compute() once (published for the
// warps that asked meanwhile). NIL when this warp or the key's owner gave up.
template <class Compute>
__device__ u32 memoized(Memo& m, u64 key, u64* ctl, Compute compute) {
    u64 val = 0;
    u32 slot = 0;
    int r = memo_begin(m, key, val, slot, ctl);
    if (r == 1) return (u32)val;
    if (r < 0) return NIL;
    u32 out = compute();
    if (r == 0) memo_publish(m, slot, out == NIL ? MEMO_ABORTED : (u64)out);
    return out;
}

// ---------------------------------------------------------------- unions of sealed sets
// dst |= ∪ of the sealed sets (start_l, n_l) of the lanes l (n_l = 0: none): a 32-way merge.
// Each step takes the smallest base among the lanes' current elements, ORs every element of
// that base (UNION_UNROLL loads in flight), and merges the result into the linked list at
// dst_head with one monotone cursor. Returns 0, or -1 when the pool is full.
__device__ int union_sets(Pool& p, u32* dst_head, u32 my_start, u32 my_n) {
    const u32 lane = lane_id();
    u32 cur = my_start;
    const u32 end = my_start + my_n;
    u32 cbase = my_n ? elem_word(p, cur, 0) : NIL;
    Cursor c;
    cursor_init(p, c, dst_head);
    PROF_CNT(p.ctl, PF_UNION_BATCHES, 1);
    PROF_CNT(p.ctl, PF_UNION_ELEMS, warp_sum(my_n));
    for (;;) {
        const u32 minb = __reduce_min_sync(FULL_MASK, cbase);
        if (minb == NIL) return 0;
        u32 who = __ballot_sync(FULL_MASK, cbase == minb);
        u32 acc = 0;
        while (who) {
            int l[UNION_UNROLL];
            u32 w[UNION_UNROLL];
#pragma unroll
            for (int k = 0; k < UNION_UNROLL; ++k) {
                l[k] = who ? __ffs(who) - 1 : -1;
                who &= who - 1;
                w[k] = __shfl_sync(FULL_MASK, cur, l[k] < 0 ? 0 : l[k]);
            }
#pragma unroll
            for (int k = 0; k < UNION_UNROLL; ++k) w[k] = l[k] >= 0 ? elem_word(p, w[k], lane) : 0u;
#pragma unroll
            for (int k = 0; k < UNION_UNROLL; ++k) acc |= w[k];
        }
        if (cbase == minb) {
            ++cur;
            cbase = cur < end ? elem_word(p, cur, 0) : NIL;
        }
        acc = bits_lane(lane) ? acc : 0u;
        if (merge_elem(p, c, dst_head, minb, acc, CTL_OVF) < 0) return -1;
    }
}

// The union of sets named by sids, accumulated a sid at a time by a warp (every lane calls
// su_add with the same sid). One distinct sid costs nothing (the union is that set); from the
// second on, the sids are batched (one lane each); every full batch of 32 is merged by
// union_sets into a linked list whose head lives at `*head` (a per-warp slot in shared
// memory), and su_finish merges the last batch with that list as a stream.
struct SidUnion {
    u32 single;   // the first non-empty sid (0: none yet)
    u32 n;        // distinct sids seen (repeats the lossy `seen` cache misses count twice)
    u32 bstart;   // this lane's set of the pending batch: start, elements (0: none)
    u32 bn;
    u32 nb;       // sids in the pending batch
    u32 seen;     // this lane's slot of a 32-slot direct-mapped cache of sids seen
    u32* head;    // the list under construction
};

__device__ __forceinline__ void su_init(SidUnion& u, u32* head) {
    u.single = 0;
    u.n = 0;
    u.bstart = 0;
    u.bn = 0;
    u.nb = 0;
    u.seen = NIL;
    u.head = head;
    if (lane_id() == 0) *head = NIL;
    __syncwarp();
}

__device__ __forceinline__ bool su_seen(SidUnion& u, u32 key) {
    u32 slot = (key * 2654435761u) >> 27;
    u32 held = __shfl_sync(FULL_MASK, u.seen, slot);
    if (held == key) return true;
    if (lane_id() == slot) u.seen = key;
    return false;
}

__device__ __forceinline__ bool su_flush(Pool& p, SidUnion& u) {
    if (!u.nb) return true;
    if (union_sets(p, u.head, u.bstart, u.bn) < 0) return false;
    u.bn = 0;
    u.nb = 0;
    return true;
}

__device__ __forceinline__ bool su_queue(Pool& p, const SetStore& s, SidUnion& u, u32 sid) {
    if (lane_id() == u.nb) {
        u.bstart = s.start[sid];
        u.bn = s.nelem[sid];
    }
    if (++u.nb == 32) return su_flush(p, u);
    return true;
}

// Add one sid (warp-uniform). False when the pool is full.
__device__ bool su_add(Pool& p, const SetStore& s, SidUnion& u, u32 sid) {
    if (sid == 0 || sid == u.single || su_seen(u, sid)) return true;
    if (u.n++ == 0) {
        u.single = sid;
        return true;
    }
    if (u.n == 2 && !su_queue(p, s, u, u.single)) return false;
    return su_queue(p, s, u, sid);
}

// The sid of the union (0: empty). NIL when the pool or the set table is full. The pending
// batch (at most 31 sets: su_queue flushes at 32) and the list of the flushed ones (lane 31)
// are merged as a stream twice: once for the hash, and once more to compare with an equal
// set or to write a new one; a union that is a set already interned (the common case) writes
// nothing.
__device__ u32 su_finish(Pool& p, SetStore& s, SidUnion& u) {
    PROF_MAX(p.ctl, PF_MAX_UNION, u.n);
    if (u.n <= 1) return u.single;
    if (lane_id() == 0) atomicAdd(&p.ctl[CTL_UNIONS], 1ull);
    __syncwarp();
    const u32 head = *(volatile u32*)u.head;
    PROF_CNT(p.ctl, PF_UNION_BATCHES, 1);
    PROF_CNT(p.ctl, PF_UNION_ELEMS, warp_sum(lane_id() < u.nb ? u.bn : 0u));
    const bool mine = lane_id() < u.nb;
    const UnionStream src(p, mine ? u.bstart : 0u, mine ? u.bn : 0u, head != NIL ? 31u : 32u, head);
    u64 h;
    u32 nb, n;
    stream_stats(p, src, h, nb, n);
    return intern_stream(p, s, src, h, nb, n, NIL);
}

// ---------------------------------------------------------------- pair buffers
// Append pairs (key << 32 | value) to a buffer through its fill counter, one per lane that
// has one (`mine`). Pairs past `cap` are counted but not written, and CTL_OVF is raised: the
// host grows the buffer (the fill counter says to what) and runs the round again.
__device__ __forceinline__ void emit_pair(bool mine, u64 pair, u64* buf, u64 cap, u64* fill, u64* ctl) {
    const u32 m = __ballot_sync(FULL_MASK, mine);
    if (!m) return;
    u64 at = 0;
    if (lane_id() == 0) {
        at = atomicAdd(fill, (u64)__popc(m));
        if (at + __popc(m) > cap) atomicExch(&ctl[CTL_OVF], 1ull);
    }
    at = __shfl_sync(FULL_MASK, at, 0) + __popc(m & ((1u << lane_id()) - 1u));
    if (mine && at < cap) buf[at] = pair;
}

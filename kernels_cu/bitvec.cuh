// Sparse bit-vectors of 128-byte elements in one device pool (seed 002, "Sparse BV").
//
// An element is 32 uint32 words: word 0 = base, words 1..30 = 960 bits, word 31 = next.
// Element `e` holds ids base*960 + (w-1)*32 + b for every set bit b of word w (1 <= w <= 30).
// A list is a chain of elements sorted by base, with no two of the same base and
// no element whose bits are all zero. Lists are addressed by a head index (NIL = empty).
//
// A warp handles one element at a time, lane l owns word l: every load and store of an
// element is one coalesced 128-byte transaction, and word l is only ever written by lane l
// (so no fences are needed between a warp's own writes and reads of its lists).
//
// Allocation is a bump pointer `ctl[0]` over `cap` elements. When a warp's request does not
// fit, it raises `ctl[ovf_slot]` and gives up on its work; the host grows the pool (or
// compacts it) and runs the step again. The other slots of the control block are named in
// setstore.cuh.
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

#define NIL 0xFFFFFFFFu
#define FULL_MASK 0xFFFFFFFFu
#define ELEM_WORDS 32
#define ELEM_BITS 960
#define WARPS_PER_BLOCK 8

// Sources whose elements union_many loads at once (one memory latency per that many sources).
#define UNION_UNROLL 4

struct Pool {
    u32* w;       // cap * 32 words
    u64* ctl;     // control block
    u32 cap;      // capacity in elements
};

__device__ __forceinline__ u32 lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ bool bits_lane(u32 lane) { return lane - 1u < 30u; }
__device__ __forceinline__ u32 elem_word(const Pool& p, u32 e, u32 lane) {
    return p.w[(size_t)e * ELEM_WORDS + lane];
}
__device__ __forceinline__ void set_elem_word(Pool& p, u32 e, u32 lane, u32 v) {
    p.w[(size_t)e * ELEM_WORDS + lane] = v;
}

// Count the bits of a list (every lane gets the total).
__device__ __forceinline__ u32 list_bits(const Pool& p, u32 e) {
    const u32 lane = lane_id();
    u32 cnt = 0;
    while (e != NIL) {
        u32 w = elem_word(p, e, lane);
        if (bits_lane(lane)) cnt += __popc(w);
        e = __shfl_sync(FULL_MASK, w, 31);
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) cnt += __shfl_xor_sync(FULL_MASK, cnt, d);
    return cnt;
}

// Hand the next work item to this warp (atomic counter, seed 002 "one warp per node").
__device__ __forceinline__ u32 next_work(u64* counter) {
    u32 i = 0;
    if (lane_id() == 0) i = (u32)atomicAdd(counter, 1ull);
    return __shfl_sync(FULL_MASK, i, 0);
}

// Reserve `count` consecutive elements; NIL (and the overflow flag raised) when they don't fit.
__device__ __forceinline__ u32 warp_alloc(Pool& p, u32 count, int ovf_slot) {
    u32 idx = 0;
    if (lane_id() == 0) {
        u64 at = atomicAdd(&p.ctl[0], (u64)count);
        if (at + count > p.cap) {
            atomicExch(&p.ctl[ovf_slot], 1ull);
            idx = NIL;
        } else {
            idx = (u32)at;
        }
    }
    return __shfl_sync(FULL_MASK, idx, 0);
}

// A position in a destination list: `cur` is the first element whose base is >= the last
// base merged, `prev` the element before it (NIL: cur is the head). `cw` is this lane's word
// of `cur`, `cbase` its base (NIL past the end).
struct Cursor {
    u32 prev, cur, cw, cbase;
};

__device__ __forceinline__ void cursor_load(const Pool& p, Cursor& c) {
    if (c.cur != NIL) {
        c.cw = elem_word(p, c.cur, lane_id());
        c.cbase = __shfl_sync(FULL_MASK, c.cw, 0);
    } else {
        c.cw = 0;
        c.cbase = NIL;
    }
}

// Move the cursor to the first element whose base is >= `base` (read only).
__device__ __forceinline__ void cursor_seek(const Pool& p, Cursor& c, u32 base) {
    while (c.cbase < base) {
        c.prev = c.cur;
        c.cur = __shfl_sync(FULL_MASK, c.cw, 31);
        cursor_load(p, c);
    }
}

__device__ __forceinline__ void cursor_init(const Pool& p, Cursor& c, const u32* head) {
    __syncwarp();
    c.prev = NIL;
    c.cur = *(volatile const u32*)head;
    cursor_load(p, c);
}

// Merge one element (base `sbase`, this lane's bits `sbits`, zero on lanes 0 and 31) into the
// list at `head`, from the cursor on. Bases passed to one cursor must not decrease.
// Returns 1 if the list changed, 0 if not, -1 when the pool is full (list still valid).
// `spare`..`spare_end` are elements already reserved by the caller (nullptr: allocate here);
// `*spare` advances as they are used.
__device__ int merge_elem(Pool& p, Cursor& c, u32* head, u32 sbase, u32 sbits, int ovf_slot,
                          u32* spare = nullptr, u32 spare_end = 0) {
    const u32 lane = lane_id();
    cursor_seek(p, c, sbase);
    if (c.cbase == sbase) {
        u32 nw = c.cw | sbits;
        bool ch = nw != c.cw;
        if (ch) set_elem_word(p, c.cur, lane, nw);
        c.cw = nw;
        return __any_sync(FULL_MASK, ch) ? 1 : 0;
    }
    u32 e;
    if (spare != nullptr && *spare < spare_end) {
        e = (*spare)++;
    } else {
        e = warp_alloc(p, 1, ovf_slot);
        if (e == NIL) return -1;
    }
    u32 w = lane == 0 ? sbase : (lane == 31 ? c.cur : sbits);
    set_elem_word(p, e, lane, w);
    // word 31 of prev is written by lane 31 (its owner); the head by lane 0
    if (c.prev == NIL) {
        if (lane == 0) *(volatile u32*)head = e;
    } else if (lane == 31) {
        set_elem_word(p, c.prev, 31, e);
    }
    __syncwarp();
    c.cur = e;
    c.cw = w;
    c.cbase = sbase;
    return 1;
}

// Clear bit `id` from this lane's word of an element of base `base` (NIL: nothing to clear).
__device__ __forceinline__ u32 without_id(u32 bits, u32 base, u32 id) {
    if (id != NIL && base == id / ELEM_BITS && lane_id() == 1 + (id % ELEM_BITS) / 32)
        bits &= ~(1u << (id % 32));
    return bits;
}

// dst |= (src_0 ∪ ... ∪ src_31) \ filter \ {excl}: a 32-way merge, lane l holding the head of
// list src_l (NIL: none). Each round takes the smallest base among the lanes' current
// elements, ORs every element of that base, masks out what the (read-only) list `filter`
// already has, and merges the result into dst with one monotone cursor: one pass over dst
// and filter per 32 sources instead of one per source. `filter` and `excl` may be NIL.
// Returns 0, or -1 when the pool is full (dst still a valid list).
__device__ int union_many(Pool& p, u32* dst_head, u32 my_src, u32 filter_head, u32 excl,
                          int ovf_slot) {
    const u32 lane = lane_id();
    u32 cur = my_src;
    u32 cbase = cur != NIL ? elem_word(p, cur, 0) : NIL;
    Cursor c, f;
    cursor_init(p, c, dst_head);
    f.prev = NIL;
    f.cur = filter_head;
    cursor_load(p, f);
    for (;;) {
        u32 minb = __reduce_min_sync(FULL_MASK, cbase);
        if (minb == NIL) return 0;
        u32 acc = 0;
        u32 who = __ballot_sync(FULL_MASK, cbase == minb);
        // UNION_UNROLL sources' elements are loaded before any is used: one memory latency
        // per UNION_UNROLL sources of this base instead of one per source
        u32 nxt = cur;
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
            for (int k = 0; k < UNION_UNROLL; ++k) {
                acc |= w[k];
                u32 nx = __shfl_sync(FULL_MASK, w[k], 31);
                if ((int)lane == l[k]) nxt = nx;
            }
        }
        cur = nxt;
        if (cbase == minb) cbase = cur != NIL ? elem_word(p, cur, 0) : NIL;
        acc = bits_lane(lane) ? without_id(acc, minb, excl) : 0u;
        cursor_seek(p, f, minb);
        if (f.cbase == minb) acc &= ~f.cw;
        if (__any_sync(FULL_MASK, acc != 0) && merge_elem(p, c, dst_head, minb, acc, ovf_slot) < 0)
            return -1;
    }
}

// Warp-wide exclusive prefix sum of one u32 per lane; `total` receives the sum.
__device__ __forceinline__ u32 warp_exclusive_sum(u32 v, u32& total) {
    const u32 lane = lane_id();
    u32 x = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        u32 y = __shfl_up_sync(FULL_MASK, x, d);
        if (lane >= (u32)d) x += y;
    }
    total = __shfl_sync(FULL_MASK, x, 31);
    return x - v;
}

__device__ __forceinline__ u32 warp_sum(u32 v) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(FULL_MASK, v, d);
    return v;
}

// Sorted pairs (key << 32 | value), as the pair kernels take them: the key of pair i (NIL past
// the end: it sorts after every real key), and whether pair i is the first of its key's run.
__device__ __forceinline__ u32 pair_key(const u64* __restrict__ pairs, u64 npairs, u64 i) {
    return i < npairs ? (u32)(pairs[i] >> 32) : NIL;
}

__device__ __forceinline__ bool run_begins(const u64* __restrict__ pairs, u64 npairs, u64 i) {
    return i < npairs && (i == 0 || pair_key(pairs, npairs, i - 1) != pair_key(pairs, npairs, i));
}

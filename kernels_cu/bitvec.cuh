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
// Allocation is a bump pointer `ctl[CTL_TOP]` over `cap` elements. When a warp's request
// does not fit, it raises `ctl[ovf_slot]` and gives up on its work; the host grows the pool
// and runs the (idempotent or resumable) kernel again.
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

#define NIL 0xFFFFFFFFu
#define FULL_MASK 0xFFFFFFFFu
#define ELEM_WORDS 32
#define ELEM_BITS 960
#define WARPS_PER_BLOCK 8

// Sources whose elements union_many loads at once. With the per-lane source lookup of
// rules.cu, 4 instead of 1 cut the rule kernel by 15-40% on the larger paper inputs (php
// 443 -> 263 ms, same device call, 2026-11-30).
#define UNION_UNROLL 4

// Slots of the control block `ctl` (u64[24]), shared by every kernel.
#define CTL_TOP 0          // next free element of the pool
#define CTL_OVF_RULES 1    // a rule or insert kernel ran out of pool
#define CTL_OVF_UPDATE 2   // the update kernel ran out of pool (resume it)
#define CTL_CHANGED 3      // nodes whose delta (points-to or copy-inverse) is non-empty
#define CTL_NPAIRS 4       // store pairs the next rule kernel will emit
#define CTL_PAIR_FILL 5    // store pairs emitted so far
#define CTL_WORK_RULES 6   // atomic work counter of the rule kernel
#define CTL_WORK_UPDATE 7  // atomic work counter of the update kernel
#define CTL_WORK_AUX 8     // atomic work counter of auxiliary kernels
#define CTL_DELTA_BITS 9   // total bits in the new points-to deltas (statistics)
#define CTL_NSUCC 10       // successor pairs (new copy edges) the next rule kernel will emit
#define CTL_SUCC_FILL 11   // successor pairs emitted so far
#define CTL_NACTIVE 12     // active copy edges (source with a non-empty ΔP) of the next round
#define CTL_ACTIVE_FILL 13 // active copy edges emitted so far
// 14, 15: merge.cu
#define CTL_RULES_ITEMS 16  // nodes in the rule kernel's work list (rules_frontier)
#define CTL_UPDATE_ITEMS 17 // nodes in the update kernel's work list (heads_frontier)
#define CTL_EMIT_ITEMS 18   // nodes in emit_active_edges' work list (heads_frontier)

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
        u64 at = atomicAdd(&p.ctl[CTL_TOP], (u64)count);
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

// Work lists: a per-node kernel that handed every representative to a warp through one
// atomic counter paid a floor of a dependent-load chain and an atomic per node each round,
// even when a handful of nodes had work (linux: 0.6 ms a round in the rule kernel over its
// 265k representatives, 88 rounds; H200, 2026-11-30). A frontier kernel looks at 32 nodes a
// warp, one per lane, and appends those with work to a list; the per-node kernel then walks
// only the list (its length read on the device). Graphs of few representatives skip the
// frontier (the per-node kernels then walk every representative). frontier_append: this
// warp's nodes with `has` set, at slots from *count.
__device__ __forceinline__ void frontier_append(bool has, u32 x, u32* work, u64* count) {
    const u32 m = __ballot_sync(FULL_MASK, has);
    if (!m) return;
    u64 at = 0;
    if (lane_id() == 0) at = atomicAdd(count, (u64)__popc(m));
    at = __shfl_sync(FULL_MASK, at, 0) + __popc(m & ((1u << lane_id()) - 1u));
    if (has) work[at] = x;
}

// frontier_scan: the loop of every frontier kernel. Each warp takes 32 consecutive entries of
// nodes[0, n_work), one per lane, and appends the nodes x with has_work(x) to work (count in
// *count, zero before).
template <class HasWork>
__device__ __forceinline__ void frontier_scan(const u32* __restrict__ nodes, u32 n_work, u32* work,
                                              u64* count, HasWork has_work) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i0 = (u64)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); i0 < n_work; i0 += stride) {
        const u64 i = i0 + lane_id();
        u32 x = NIL;
        bool has = false;
        if (i < n_work) {
            x = nodes[i];
            has = has_work(x);
        }
        frontier_append(has, x, work, count);
    }
}

// heads_frontier: the nodes x of nodes[0, n_work) with a[x], b[x], c[x], d[x] or e[x]
// non-empty (pass one array several times for fewer), appended to work (count in *count,
// zero before).
extern "C" __global__ void heads_frontier(const u32* __restrict__ nodes, u32 n_work,
                                          const u32* __restrict__ a, const u32* __restrict__ b,
                                          const u32* __restrict__ c, const u32* __restrict__ d,
                                          const u32* __restrict__ e, u32* work, u64* count) {
    frontier_scan(nodes, n_work, work, count, [&](u32 x) {
        return a[x] != NIL || b[x] != NIL || c[x] != NIL || d[x] != NIL || e[x] != NIL;
    });
}

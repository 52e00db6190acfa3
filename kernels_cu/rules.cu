// The pull rules of seed 002, semi-naive (ΔP = what changed in the last update):
//
//   Copy⁻¹    x →c⁻¹ y →p z        ⟹  x →p z        here for the new edges Δc⁻¹(x):
//                                                     N(x) ∪= P(y) \ P(x); the old edges are
//                                                     driven by ΔP(y) in copy_edges.cu
//   Load⁻¹    x →l⁻¹ y →p z        ⟹  x →c⁻¹ z      NC(x) ∪= ΔP(y) \ c⁻¹(x) \ {i2p}
//   AddPtr⁻¹  x →a⁻¹,o y →p z      ⟹  x →p z+o      N(x) ∪= {z+o : z ∈ ΔP(y), o < size(z)}
//   Store⁻¹   x →p⁻¹ y →s z        ⟹  x →c⁻¹ z      first half: emit the pairs (rep x, z) for
//                                                     x ∈ ΔP(y) \ {i2p}; insert_pairs.cu groups them
//
// One warp per representative node x with work this round (rules_frontier lists them), handed
// out by an atomic counter. A warp writes only
// N(x) and NC(x) (the next deltas of x) and the pair buffers; every list it reads (P, ΔP,
// c⁻¹, Δc⁻¹) is only written by the update kernel, so the hot path takes no locks.
// c⁻¹ lists hold pointee ids as they were derived; they are read through `rep`.
// With `use_pcls`, `pcls[y]` names a node whose P equals P(y) (hash-sort classes of P): the
// sources of the new copy edges are deduplicated by content, not only by id.
// With `filter`, bits the target already has (P(x), c⁻¹(x)) are left out of N(x), NC(x) at
// the cost of walking those lists; without, the update kernel drops them.
#include "bitvec.cuh"

struct Heads {
    u32 *P, *D, *N, *C, *DC, *NC;
};

// A 32-slot direct-mapped set of the keys this warp has already unioned (lossy: a key
// evicted from its slot may be unioned twice, which is harmless).
__device__ __forceinline__ bool seen_before(u32& slot_value, u32 key) {
    u32 slot = (key * 2654435761u) >> 27;
    u32 held = __shfl_sync(FULL_MASK, slot_value, slot);
    if (held == key) return true;
    if (lane_id() == slot) slot_value = key;
    return false;
}

// N(x) ∪= {z+o : z ∈ src, o < size(z)}; `sh` is this warp's 64 words of shared memory.
__device__ int gep_union(Pool& p, u32* dst_head, u32 src, u32 o, const u32* __restrict__ size,
                         u32* sh) {
    const u32 lane = lane_id();
    Cursor c;
    cursor_init(p, c, dst_head);
    const u32 ob = o / ELEM_BITS, orr = o % ELEM_BITS;
    while (src != NIL) {
        u32 sw = elem_word(p, src, lane);
        u32 sbase = __shfl_sync(FULL_MASK, sw, 0);
        u32 snext = __shfl_sync(FULL_MASK, sw, 31);
        u32 m = bits_lane(lane) ? sw : 0u;
        sh[lane] = 0;
        sh[32 + lane] = 0;
        __syncwarp();
        while (m) {
            u32 b = __ffs(m) - 1;
            m &= m - 1;
            u32 rel = (lane - 1) * 32 + b;
            u32 z = sbase * ELEM_BITS + rel;
            if (o < size[z]) {
                u32 q = rel + orr;
                u32 blk = q / ELEM_BITS, r = q % ELEM_BITS;
                atomicOr(&sh[blk * 32 + 1 + r / 32], 1u << (r % 32));
            }
        }
        __syncwarp();
        u32 b0 = bits_lane(lane) ? sh[lane] : 0u;
        u32 b1 = bits_lane(lane) ? sh[32 + lane] : 0u;
        __syncwarp();
        if (__any_sync(FULL_MASK, b0 != 0) && merge_elem(p, c, dst_head, sbase + ob, b0, CTL_OVF_RULES) < 0)
            return -1;
        if (__any_sync(FULL_MASK, b1 != 0) && merge_elem(p, c, dst_head, sbase + ob + 1, b1, CTL_OVF_RULES) < 0)
            return -1;
        src = snext;
    }
    return 0;
}

// Copy⁻¹ over the new edges of x: N(x) ∪= P(y) \ P(x) for y ∈ Δc⁻¹(x) (32 sources at a
// time), and the successor pairs (y << 32 | x) that make them old edges for copy_edges.cu
// (a placeholder pair, key NIL, for y == x, so that exactly one pair per Δc⁻¹ bit is written).
__device__ int new_copy_edges(Pool& p, const Heads& h, u32 x, const u32* __restrict__ rep,
                              const u32* __restrict__ pcls, int use_pcls, int filter,
                              u64* succ_pairs, u64 succ_cap) {
    const u32 lane = lane_id();
    u32 seen = NIL;
    u32 batch = NIL, nb = 0;
    const u32 known = filter ? h.P[x] : NIL;
    for (u32 e = h.DC[x]; e != NIL;) {
        u32 cw = elem_word(p, e, lane);
        u32 cbase = __shfl_sync(FULL_MASK, cw, 0);
        u32 cnext = __shfl_sync(FULL_MASK, cw, 31);
        u32 m = bits_lane(lane) ? cw : 0u;
        u32 total;
        u32 before = warp_exclusive_sum(__popc(m), total);
        u64 at = 0;
        if (lane == 0 && total) at = atomicAdd(&p.ctl[CTL_SUCC_FILL], (u64)total);
        at = __shfl_sync(FULL_MASK, at, 0) + before;
        for (u32 mm = m; mm; mm &= mm - 1, ++at) {
            u32 w = cbase * ELEM_BITS + (lane - 1) * 32 + __ffs(mm) - 1;
            u32 y = rep[w];
            if (at < succ_cap) succ_pairs[at] = (u64)(y == x ? NIL : y) << 32 | x;
        }
        // every lane looks up the source of its lowest bit (rep, class, P: three dependent
        // loads, paid once per up to 30 sources), then the warp batches them one by one
        for (;;) {
            const bool has = m != 0;
            if (!__any_sync(FULL_MASK, has)) break;
            u32 key = NIL, src = NIL;
            if (has) {
                u32 b = __ffs(m) - 1;
                m &= m - 1;
                u32 y = rep[cbase * ELEM_BITS + (lane - 1) * 32 + b];
                if (y != x) {
                    // with P classes, sources with equal P are one source (unioned once per node)
                    key = use_pcls ? pcls[y] : y;
                    src = h.P[key];
                }
            }
            u32 cand = __ballot_sync(FULL_MASK, src != NIL);
            while (cand) {
                int l = __ffs(cand) - 1;
                cand &= cand - 1;
                u32 k = __shfl_sync(FULL_MASK, key, l);
                u32 s = __shfl_sync(FULL_MASK, src, l);
                if (seen_before(seen, k)) continue;
                if (lane == nb) batch = s;
                if (++nb == 32) {
                    if (union_many(p, &h.N[x], batch, known, NIL, CTL_OVF_RULES) < 0) return -1;
                    batch = NIL;
                    nb = 0;
                }
            }
        }
        e = cnext;
    }
    if (nb && union_many(p, &h.N[x], batch, known, NIL, CTL_OVF_RULES) < 0) return -1;
    return 0;
}

// Load⁻¹ for node x: NC(x) ∪= ΔP(y) \ c⁻¹(x) \ {i2p} for y ∈ l⁻¹(x), 32 sources at a time.
__device__ int load_rule(Pool& p, const Heads& h, u32 x, const u32* __restrict__ l_ptr,
                         const u32* __restrict__ l_src, u32 i2p, int filter) {
    const u32 lane = lane_id();
    const u32 begin = l_ptr[x], end = l_ptr[x + 1];
    for (u32 j = begin; j < end; j += 32) {
        u32 src = j + lane < end ? h.D[l_src[j + lane]] : NIL;
        if (__any_sync(FULL_MASK, src != NIL) &&
            union_many(p, &h.NC[x], src, filter ? h.C[x] : NIL, i2p, CTL_OVF_RULES) < 0)
            return -1;
    }
    return 0;
}

// Store⁻¹ first half for pointer x: emit (rep z) << 32 | y for z ∈ ΔP(x) \ {i2p}, y ∈ s(x).
__device__ void emit_store_pairs(Pool& p, u32 dx, const u32* __restrict__ s_dst, u32 s_begin,
                                 u32 deg, const u32* __restrict__ rep, u32 i2p, u64* pairs,
                                 u64 pair_cap) {
    const u32 lane = lane_id();
    for (u32 e = dx; e != NIL;) {
        u32 sw = elem_word(p, e, lane);
        u32 sbase = __shfl_sync(FULL_MASK, sw, 0);
        u32 snext = __shfl_sync(FULL_MASK, sw, 31);
        u32 m = bits_lane(lane) ? without_id(sw, sbase, i2p) : 0u;
        u32 total;
        u32 before = warp_exclusive_sum(__popc(m), total);
        u64 at = 0;
        if (lane == 0 && total) at = atomicAdd(&p.ctl[CTL_PAIR_FILL], (u64)total * deg);
        at = __shfl_sync(FULL_MASK, at, 0);
        u64 k = at + (u64)before * deg;
        while (m) {
            u32 b = __ffs(m) - 1;
            m &= m - 1;
            u64 rz = (u64)rep[sbase * ELEM_BITS + (lane - 1) * 32 + b] << 32;
            for (u32 t = 0; t < deg; ++t, ++k)
                if (k < pair_cap) pairs[k] = rz | s_dst[s_begin + t];
        }
        e = snext;
    }
}

// rules_frontier: the nodes x of nodes[0, n_work) on which apply_rules has work: Δc⁻¹(x) ≠ ∅
// (new copy edges), a load or gep source y with ΔP(y) ≠ ∅, or ΔP(x) ≠ ∅ and a store through
// x. Appended to work, the count in *count (ctl[CTL_RULES_ITEMS], zero before). One thread per
// node.
extern "C" __global__ void rules_frontier(const u32* __restrict__ nodes, u32 n_work,
                                          const u32* __restrict__ D, const u32* __restrict__ DC,
                                          const u32* __restrict__ l_ptr, const u32* __restrict__ l_src,
                                          const u32* __restrict__ g_ptr, const u32* __restrict__ g_src,
                                          const u32* __restrict__ s_ptr, u32* work, u64* count) {
    frontier_scan(nodes, n_work, work, count, [&](u32 x) {
        bool has = DC[x] != NIL || (s_ptr[x + 1] != s_ptr[x] && D[x] != NIL);
        for (u32 j = l_ptr[x], end = l_ptr[x + 1]; !has && j < end; ++j) has = D[l_src[j]] != NIL;
        for (u32 j = g_ptr[x], end = g_ptr[x + 1]; !has && j < end; ++j) has = D[g_src[j]] != NIL;
        return has;
    });
}

// apply_rules: the nodes work[0, *n_work) (rules_frontier's list, or every representative).
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
apply_rules(const u32* __restrict__ work, const u64* __restrict__ n_work, const u32* __restrict__ rep,
            const u32* __restrict__ pcls, int use_pcls, int filter,
            u32* P, u32* D, u32* N, u32* C, u32* DC, u32* NC,
            const u32* __restrict__ l_ptr, const u32* __restrict__ l_src,
            const u32* __restrict__ g_ptr, const u32* __restrict__ g_src,
            const u32* __restrict__ g_off, const u32* __restrict__ s_ptr,
            const u32* __restrict__ s_dst, const u32* __restrict__ size, u32 i2p,
            u64* pairs, u64 pair_cap, u64* succ_pairs, u64 succ_cap, u32* pool_w, u64* ctl,
            u32 cap) {
    __shared__ u32 buf[WARPS_PER_BLOCK][64];
    Pool p{pool_w, ctl, cap};
    Heads h{P, D, N, C, DC, NC};
    u32* sh = buf[threadIdx.x / 32];
    const u64 n_items = *n_work;
    for (;;) {
        u32 i = next_work(&ctl[CTL_WORK_RULES]);
        if (i >= n_items || *(volatile u64*)&ctl[CTL_OVF_RULES]) return;
        u32 x = work[i];
        if (new_copy_edges(p, h, x, rep, pcls, use_pcls, filter, succ_pairs, succ_cap) < 0) return;
        if (load_rule(p, h, x, l_ptr, l_src, i2p, filter) < 0) return;
        for (u32 j = g_ptr[x]; j < g_ptr[x + 1]; ++j) {
            u32 src = D[g_src[j]];
            if (src != NIL && gep_union(p, &N[x], src, g_off[j], size, sh) < 0) return;
        }
        u32 deg = s_ptr[x + 1] - s_ptr[x];
        if (deg && D[x] != NIL)
            emit_store_pairs(p, D[x], s_dst, s_ptr[x], deg, rep, i2p, pairs, pair_cap);
    }
}

// Copy⁻¹ over the old copy edges, driven by the sources that changed:
//
//   x →c⁻¹ y →p z  ⟹  x →p z        N(x) ∪= ΔP(y) \ P(x)   for every y →c x with ΔP(y) ≠ ∅
//
// The copy edges are also kept forward, as successor lists succ(y) = {x : y →c x} (built from
// the new edges Δc⁻¹ by rules.cu and insert_pairs.cu), so that a round touches only the edges
// whose source has a non-empty ΔP instead of walking every c⁻¹ list.
//
// emit_active_edges: one warp per representative y with ΔP(y) ≠ ∅ (heads_frontier lists them;
//   atomic work counter);
//   writes (rep x << 32 | cls(y)) for x ∈ succ(y), where cls(y) is a node whose ΔP equals ΔP(y)
//   (pointer equivalence; y itself without classes); key NIL (a placeholder, skipped) when
//   rep x == y (an edge inside a class merged online). Slots come from ctl[CTL_ACTIVE_FILL];
//   pairs past `cap` are counted but not written (the host sizes the buffer from the count).
// apply_copy_pairs: the pairs sorted; one warp per 32 consecutive pairs, which handles the runs
//   of equal x starting there: 32 sources at a time through union_many (repeats skipped, so an
//   equivalence class is unioned once per target). Only that warp writes N(x).
//   A run is cut at every multiple of `1 << chunk_shift` pairs (a chunk boundary): the warp of
//   the run's start unions the pairs up to the first boundary into N(x), and the warp whose 32
//   pairs begin at a boundary inside the run unions the chunk that starts there into its own
//   list parts[boundary >> chunk_shift]. One target can draw hundreds of thousands of sources in
//   a round (linux: 231,337 of 247,325 pairs, python 1,147,980 of 1,307,452; H200, 2026-11-30),
//   and one warp walking them 32 at a time was most of the kernel's time.
// apply_copy_parts: after apply_copy_pairs; the warp of the start of a run that crosses a
//   boundary unions that run's parts into N(x), 32 parts at a time.
#include "bitvec.cuh"

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
emit_active_edges(const u32* __restrict__ work, const u64* __restrict__ n_work, const u32* __restrict__ rep,
                  const u32* __restrict__ D,
                  const u32* __restrict__ succ, const u32* __restrict__ cls, int use_cls,
                  u64* pairs, u64 cap, u32* pool_w, u64* ctl, u32 pool_cap) {
    Pool p{pool_w, ctl, pool_cap};
    const u32 lane = lane_id();
    const u64 n_items = *n_work;
    for (;;) {
        u32 i = next_work(&ctl[CTL_WORK_AUX]);
        if (i >= n_items) return;
        u32 y = work[i];
        if (D[y] == NIL) continue;   // the whole work list (no frontier) holds such nodes
        u64 key = use_cls ? cls[y] : y;
        for (u32 e = succ[y]; e != NIL;) {
            u32 w = elem_word(p, e, lane);
            u32 base = __shfl_sync(FULL_MASK, w, 0);
            u32 next = __shfl_sync(FULL_MASK, w, 31);
            u32 m = bits_lane(lane) ? w : 0u;
            u32 total;
            u32 before = warp_exclusive_sum(__popc(m), total);
            u64 at = 0;
            if (lane == 0 && total) at = atomicAdd(&ctl[CTL_ACTIVE_FILL], (u64)total);
            at = __shfl_sync(FULL_MASK, at, 0) + before;
            while (m) {
                u32 b = __ffs(m) - 1;
                m &= m - 1;
                u64 x = rep[base * ELEM_BITS + (lane - 1) * 32 + b];
                if (x == y) x = NIL;
                if (at < cap) pairs[at] = x << 32 | key;
                ++at;
            }
            e = next;
        }
    }
}

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
apply_copy_pairs(const u64* __restrict__ pairs, u64 npairs, const u32* __restrict__ P,
                 const u32* __restrict__ D, u32* N, int filter, u32* parts, u32 chunk_shift,
                 u32* pool_w, u64* ctl, u32 cap) {
    Pool p{pool_w, ctl, cap};
    const u32 lane = lane_id();
    if (*(volatile u64*)&ctl[CTL_OVF_RULES]) return;
    u64 group = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 i = group * 32 + lane;
    const u64 chunk_mask = (1ull << chunk_shift) - 1;
    const u32 key = pair_key(pairs, npairs, i);
    const bool start = run_begins(pairs, npairs, i);
    const bool part = i < npairs && !start && (i & chunk_mask) == 0;   // a chunk of a run begun earlier
    u32 starts = __ballot_sync(FULL_MASK, start || part);
    const u32 parts_mask = __ballot_sync(FULL_MASK, part);
    while (starts) {
        int sl = __ffs(starts) - 1;
        starts &= starts - 1;
        u32 x = __shfl_sync(FULL_MASK, key, sl);
        if (x == NIL) break;  // placeholders sort last
        const u32 known = filter ? P[x] : NIL;
        const u64 run = group * 32 + sl;
        const u64 end = (run | chunk_mask) + 1;   // the next chunk boundary
        u32* dst = (parts_mask >> sl) & 1u ? &parts[run >> chunk_shift] : &N[x];
        for (u64 j = run;; j += 32) {
            u64 pos = j + lane;
            u32 src = NIL;
            bool mine = false;
            if (pos < end && pos < npairs) {
                u64 pr = pairs[pos];
                mine = (u32)(pr >> 32) == x;
                // a repeated (x, y) is unioned once (by the chunk of its first copy)
                if (mine && (pos == 0 || pairs[pos - 1] != pr)) src = D[(u32)pr];
            }
            u32 vmask = __ballot_sync(FULL_MASK, mine);
            if (__any_sync(FULL_MASK, src != NIL) &&
                union_many(p, dst, src, known, NIL, CTL_OVF_RULES) < 0)
                return;
            if (vmask != FULL_MASK) break;
        }
    }
}

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
apply_copy_parts(const u64* __restrict__ pairs, u64 npairs, u32* N, const u32* __restrict__ parts,
                 u32 chunk_shift, u32* pool_w, u64* ctl, u32 cap) {
    Pool p{pool_w, ctl, cap};
    const u32 lane = lane_id();
    if (*(volatile u64*)&ctl[CTL_OVF_RULES]) return;
    u64 group = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 i = group * 32 + lane;
    const u32 key = pair_key(pairs, npairs, i);
    bool crosses = false;
    if (key != NIL && run_begins(pairs, npairs, i)) {
        u64 boundary = ((i >> chunk_shift) + 1) << chunk_shift;
        crosses = pair_key(pairs, npairs, boundary) == key;
    }
    u32 starts = __ballot_sync(FULL_MASK, crosses);
    while (starts) {
        int sl = __ffs(starts) - 1;
        starts &= starts - 1;
        u32 x = __shfl_sync(FULL_MASK, key, sl);
        const u64 first = ((group * 32 + sl) >> chunk_shift) + 1;   // the run's first part
        for (u64 c = first;; c += 32) {
            u64 cc = c + lane;
            bool mine = pair_key(pairs, npairs, cc << chunk_shift) == x;
            u32 src = mine ? parts[cc] : NIL;
            u32 vmask = __ballot_sync(FULL_MASK, mine);
            if (__any_sync(FULL_MASK, src != NIL) &&
                union_many(p, &N[x], src, NIL, NIL, CTL_OVF_RULES) < 0)
                return;
            if (vmask != FULL_MASK) break;
        }
    }
}

// Semi-naive bookkeeping (seed 002, "Avoid redundant rule application"):
//
//   ΔP(x)   = (N(x) ∪ NR(x)) \ P(x);  P(x) ∪= ΔP(x);  N(x) = NR(x) = ∅
//   Δc⁻¹(x) = NC(x) \ c⁻¹(x);  c⁻¹(x) ∪= Δc⁻¹(x);   NC(x) = ∅
//
// N(x) is what the copy kernel over the old edges derived this round, NR(x) what the rule
// kernel did: the two kernels run at once, on two streams, so each has its own list to write
// (one writer per list, no locks). NR(x) is first folded into N(x): moved when N(x) is empty,
// else unioned.
//
// One warp per representative node with a non-empty N, NR, NC, ΔP or Δc⁻¹ (heads_frontier
// lists them: the others have nothing to update), handed out by an atomic counter. It also
// counts what the next round will emit: store pairs (|ΔP(x)| · |s(x)|), successor pairs
// (|Δc⁻¹(x)|) and active copy edges (|succ(x)| when ΔP(x) ≠ ∅). The elements of N(x)
// are reused in place for ΔP(x) (their bits become the difference), so a delta costs no
// allocation; only elements of a base P(x) lacks are allocated, all at once before anything
// is changed. When they don't fit, the node is left untouched and CTL_OVF_UPDATE is raised:
// after the pool grows the kernel runs again with `resume` set, and then handles exactly the
// nodes whose N is still non-empty.
//
// The kernel does nothing when the rule kernels of this iteration overflowed (their N lists
// are incomplete); the host grows the pool and runs the whole iteration again.
#include "bitvec.cuh"

// Returns 1 if the delta is non-empty, 0 if not, -1 when the pool is full (nothing changed).
// `count` receives (on every lane) the number of delta bits other than `excl`.
__device__ int update_one(Pool& p, u32* Nh, u32* Ph, u32* Dh, int resume, u32 excl, u32& count) {
    const u32 lane = lane_id();
    count = 0;
    u32 n = *(volatile u32*)Nh;
    if (n == NIL) {
        if (!resume && lane == 0) *Dh = NIL;
        return 0;
    }
    Cursor c;
    cursor_init(p, c, Ph);
    u32 need = 0;
    for (u32 s = n; s != NIL;) {
        u32 sw = elem_word(p, s, lane);
        u32 sbase = __shfl_sync(FULL_MASK, sw, 0);
        cursor_seek(p, c, sbase);
        need += c.cbase != sbase;
        s = __shfl_sync(FULL_MASK, sw, 31);
    }
    u32 spare = 0, spare_end = 0;
    if (need) {
        spare = warp_alloc(p, need, CTL_OVF_UPDATE);
        if (spare == NIL) return -1;
        spare_end = spare + need;
    }
    cursor_init(p, c, Ph);
    u32 dhead = NIL, dlast = NIL, bits_seen = 0;
    for (u32 s = n; s != NIL;) {
        u32 sw = elem_word(p, s, lane);
        u32 sbase = __shfl_sync(FULL_MASK, sw, 0);
        u32 snext = __shfl_sync(FULL_MASK, sw, 31);
        cursor_seek(p, c, sbase);
        u32 have = (c.cbase == sbase) ? c.cw : 0u;
        u32 diff = bits_lane(lane) ? (sw & ~have) : 0u;
        if (__any_sync(FULL_MASK, diff != 0)) {
            if (bits_lane(lane)) set_elem_word(p, s, lane, diff);
            if (dlast == NIL) {
                dhead = s;
            } else if (lane == 31) {
                set_elem_word(p, dlast, 31, s);
            }
            dlast = s;
            bits_seen += __popc(without_id(diff, sbase, excl));
            merge_elem(p, c, Ph, sbase, diff, CTL_OVF_UPDATE, &spare, spare_end);
        }
        s = snext;
    }
    if (dlast != NIL && lane == 31) set_elem_word(p, dlast, 31, NIL);
    __syncwarp();
    if (lane == 0) {
        *Dh = dhead;
        *Nh = NIL;
    }
    count = warp_sum(bits_seen);
    return dhead != NIL;
}

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
update_deltas(const u32* __restrict__ work, const u64* __restrict__ n_work, u32* P, u32* D, u32* N, u32* C, u32* DC,
              u32* NC, u32* NR, const u32* __restrict__ succ, const u32* __restrict__ s_ptr, u32 i2p,
              int resume, u32* pool_w, u64* ctl, u32 cap) {
    Pool p{pool_w, ctl, cap};
    if (*(volatile u64*)&ctl[CTL_OVF_RULES]) return;
    const u64 n_items = *n_work;
    for (;;) {
        u32 i = next_work(&ctl[CTL_WORK_UPDATE]);
        if (i >= n_items) return;
        u32 x = work[i];
        const u32 nr = *(volatile u32*)&NR[x];
        if (nr != NIL) {
            // NR(x) into N(x); when the pool is full, x is left whole for the resumed launch
            // (N(x) is still a valid list, NR(x) untouched: the union is redone)
            if (*(volatile u32*)&N[x] != NIL &&
                union_many(p, &N[x], lane_id() == 0 ? nr : NIL, NIL, NIL, CTL_OVF_UPDATE) < 0)
                continue;
            __syncwarp();
            if (lane_id() == 0) {
                if (N[x] == NIL) N[x] = nr;
                NR[x] = NIL;
            }
            __syncwarp();
        }
        u32 dbits, dcbits;
        int rp = update_one(p, &N[x], &P[x], &D[x], resume, i2p, dbits);
        int rc = update_one(p, &NC[x], &C[x], &DC[x], resume, NIL, dcbits);
        u32 out_edges = rp > 0 ? list_bits(p, succ[x]) : 0;
        if (lane_id() == 0) {
            if (rp > 0 || rc > 0) atomicAdd(&ctl[CTL_CHANGED], 1ull);
            if (rp > 0) {
                atomicAdd(&ctl[CTL_NPAIRS], (u64)dbits * (s_ptr[x + 1] - s_ptr[x]));
                atomicAdd(&ctl[CTL_DELTA_BITS], (u64)dbits);
                atomicAdd(&ctl[CTL_NACTIVE], (u64)out_edges);
            }
            if (rc > 0) atomicAdd(&ctl[CTL_NSUCC], (u64)dcbits);
        }
    }
}

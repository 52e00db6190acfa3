// The set store's housekeeping (launchers: andersen_gpu/backends/gpu/sets.py).
//
//   intern_heads   the initial sets: sid = intern(heads[x]) for every node x with a list,
//                  Pn[x] = Dn[x] = sid, x appended to the changed list (count ctl[CTL_NCHG])
//   rebuild_table  the intern table from the stored hashes of sids [1, nsets) (after the set
//                  table grew, or after compaction); the table is all ~0 on entry
//   mark_sids      live[sid] = 1 for every sid in a per-node array
//   move_sets      compaction: every live set copied to its new place (`at`, the exclusive
//                  prefix sum of the live sets' sizes) in a new pool, under its new sid (its
//                  rank among the live sids: sprefix[s] - 1, sprefix the inclusive prefix sum
//                  of live)
//   remap_sids     a per-node array through the new sids
//   expand_sets    the distinct final sets as sorted ids (the solution's CSR)
//
// Grid-stride loops; the warp kernels one warp per node or set.
#include "setstore.cuh"

__device__ __forceinline__ u64 grid_stride() { return (u64)gridDim.x * blockDim.x; }
__device__ __forceinline__ u64 thread_index() { return (u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ u64 warp_index() { return thread_index() / 32; }
__device__ __forceinline__ u64 warp_count() { return grid_stride() / 32; }

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
intern_heads(const u32* __restrict__ nodes, u64 n_nodes, const u32* __restrict__ heads,
             const SetStore* __restrict__ sd, u32* Pn, u32* Dn, u32* chg, u32* pool_w, u64* ctl,
             u32 cap) {
    Pool p{pool_w, ctl, cap};
    SetStore s = *sd;
    for (u64 i = warp_index(); i < n_nodes; i += warp_count()) {
        const u32 x = nodes[i];
        const u32 h = heads[x];
        if (h == NIL) continue;
        const u32 sid = intern_list(p, s, h);
        if (sid == NIL) return;
        if (lane_id() == 0) {
            Pn[x] = Dn[x] = sid;
            chg[atomicAdd(&ctl[CTL_NCHG], 1ull)] = x;
        }
        __syncwarp();
    }
}

extern "C" __global__ void rebuild_table(u64 nsets, const SetStore* __restrict__ sd) {
    SetStore s = *sd;
    for (u64 sid = 1 + thread_index(); sid < nsets; sid += grid_stride()) {
        if (s.start[sid] == NIL) continue;   // a lost race's id: no set
        const u64 key = mix64(s.hash[sid]);
        const u64 entry = (key >> 32) << 32 | sid;
        for (u64 slot = key & s.mask;; slot = (slot + 1) & s.mask)
            if (atomicCAS(&s.table[slot], MEMO_EMPTY, entry) == MEMO_EMPTY) break;
    }
}

extern "C" __global__ void mark_sids(const u32* __restrict__ ids, u64 n, u32* live) {
    for (u64 i = thread_index(); i < n; i += grid_stride()) live[ids[i]] = 1;
}

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
move_sets(u64 nsets, const u32* __restrict__ live, const u32* __restrict__ sprefix,
          const u64* __restrict__ at, const SetStore* __restrict__ old_d, const SetStore* __restrict__ new_d,
          const u32* __restrict__ old_w, u32* new_w) {
    SetStore a = *old_d, b = *new_d;
    const u32 lane = lane_id();
    for (u64 sid = warp_index(); sid < nsets; sid += warp_count()) {
        if (!live[sid]) continue;
        const u32 to = sprefix[sid] - 1;
        const u32 from = a.start[sid], n = a.nelem[sid];
        const u64 dst = at[sid];
        for (u32 k = 0; k < n; ++k)
            new_w[(dst + k) * ELEM_WORDS + lane] = old_w[((u64)from + k) * ELEM_WORDS + lane];
        if (lane == 0) {
            b.start[to] = n ? (u32)dst : NIL;
            b.nelem[to] = n;
            b.nbits[to] = a.nbits[sid];
            b.hash[to] = a.hash[sid];
        }
    }
}

extern "C" __global__ void remap_sids(u32* ids, u64 n, const u32* __restrict__ sprefix) {
    for (u64 i = thread_index(); i < n; i += grid_stride()) ids[i] = sprefix[ids[i]] - 1;
}

// out[indptr[k] : indptr[k+1]] = the ids of set sids[k], ascending. One warp per set.
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
expand_sets(const u32* __restrict__ sids, u64 k_sets, const SetStore* __restrict__ sd,
            const u32* pool_w, const long long* __restrict__ indptr, int* out) {
    SetStore s = *sd;
    Pool p{const_cast<u32*>(pool_w), nullptr, 0};
    const u32 lane = lane_id();
    for (u64 k = warp_index(); k < k_sets; k += warp_count()) {
        long long at = indptr[k];
        const u32 sid = sids[k];
        for (SetStream e(p, s.start[sid], s.nelem[sid]); e.base != NIL; e.next(p)) {
            u32 m = e.bits();
            u32 total;
            u32 before = warp_exclusive_sum(__popc(m), total);
            long long k2 = at + before;
            while (m) {
                u32 b = __ffs(m) - 1;
                m &= m - 1;
                out[k2++] = (int)(e.base * ELEM_BITS + (lane - 1) * 32 + b);
            }
            at += total;
        }
    }
}

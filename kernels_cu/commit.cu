// The end of a round (runs.cu wrote Pn, Dn and the changed list): the new state, and what the
// next round will emit, counted so that the host sizes its buffers from the one control block
// it reads a round.
//
//   commit_prev  x changed last round:  Pold(x) = P(x), ΔP(x) = ∅
//   commit_new   x changed this round:  Pold(x) = P(x), P(x) = Pn(x), ΔP(x) = Dn(x);
//                ctl[CTL_NEXT_C] += x's copy, gep and load out-degrees (the pairs it pushes; a
//                gep pushes gep_pairs: 2 where field-insensitive objects give it a second pair),
//                ctl[CTL_NEXT_G] += the stores it is the pointer or the value of, and
//                ctl[CTL_LOAD_LIVE] += its load out-degree when P(x) was empty (Ldelta bound)
//   mark_changed ch bit z = (ΔP(rep z) ≠ ∅), the pointees whose set changed (Ldelta in
//                emit.cu), and cb bit b = any of them in element base b (cb zeroed before)
//
// and the start of the next: fill_words sets up to 8 regions of 32-bit words to one value each
// (the clears of a round's buffers and caches in one launch instead of a memset each).
//
// commit_prev runs first, so a node in both lists ends with this round's sets. Nothing is
// written when CTL_OVF was raised during the round (the host runs it again). Grid-stride
// loops; the changed list's length is read on the device.
#include "setstore.cuh"

extern "C" __global__ void commit_prev(const u32* __restrict__ prev, u64 nprev, u32* P, u32* D,
                                       u32* Pold, const u64* ctl) {
    if (ovf_raised(ctl)) return;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < nprev; i += (u64)gridDim.x * blockDim.x) {
        const u32 x = prev[i];
        Pold[x] = P[x];
        D[x] = 0;
    }
}

__device__ __forceinline__ u32 degree(const u32* __restrict__ ptr, u32 x) { return ptr[x + 1] - ptr[x]; }

extern "C" __global__ void commit_new(const u32* __restrict__ chg, u32* P, u32* D, u32* Pold,
                                      const u32* __restrict__ Pn, const u32* __restrict__ Dn,
                                      const u32* __restrict__ c_ptr, const u32* __restrict__ g_ptr,
                                      const u32* __restrict__ l_ptr, const u32* __restrict__ s_ptr,
                                      const u32* __restrict__ v_ptr, u32 gep_pairs, u64* ctl) {
    if (ovf_raised(ctl)) return;
    const u64 n = *(volatile u64*)&ctl[CTL_NCHG];
    const u64 stride = (u64)gridDim.x * blockDim.x;
    // every lane of a warp takes the same number of trips, so the warp sums stay converged
    for (u64 i0 = (u64)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); i0 < n; i0 += stride) {
        const u64 i = i0 + lane_id();
        u32 push = 0, stores = 0, live = 0;
        if (i < n) {
            const u32 x = chg[i];
            const u32 old = P[x];
            Pold[x] = old;
            P[x] = Pn[x];
            D[x] = Dn[x];
            const u32 dl = degree(l_ptr, x);
            push = degree(c_ptr, x) + gep_pairs * degree(g_ptr, x) + dl;
            stores = degree(s_ptr, x) + degree(v_ptr, x);
            live = old == 0 ? dl : 0;
        }
        push = warp_sum(push);
        stores = warp_sum(stores);
        live = warp_sum(live);
        if (lane_id() == 0) {
            if (push) atomicAdd(&ctl[CTL_NEXT_C], (u64)push);
            if (stores) atomicAdd(&ctl[CTL_NEXT_G], (u64)stores);
            if (live) atomicAdd(&ctl[CTL_LOAD_LIVE], (u64)live);
        }
    }
}

// ch[k] for k < n_words: bit b set iff ΔP(rep(32k + b)) ≠ ∅ (ids >= n: 0); cb: the bit of
// base k / 30 of every non-zero ch[k]. One thread per id.
extern "C" __global__ void mark_changed(u32 n, u64 n_words, const u32* __restrict__ rep,
                                        const u32* __restrict__ D, u32* ch, u32* cb) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 z0 = (u64)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); z0 < n_words * 32; z0 += stride) {
        const u64 z = z0 + lane_id();
        const bool bit = z < n && D[rep[z]] != 0;
        const u32 w = __ballot_sync(FULL_MASK, bit);
        if (lane_id() == 0) {
            ch[z0 / 32] = w;
            const u64 base = z0 / 32 / 30;
            if (w) atomicOr(&cb[base / 32], 1u << (base % 32));
        }
    }
}

// Region r = blockIdx.y: words p_r[0 .. n_r) = v_r (grid-stride in x; a region of n_r = 0 does nothing).
extern "C" __global__ void fill_words(u32* p0, u64 n0, u32 v0, u32* p1, u64 n1, u32 v1, u32* p2, u64 n2, u32 v2,
                                      u32* p3, u64 n3, u32 v3, u32* p4, u64 n4, u32 v4, u32* p5, u64 n5, u32 v5,
                                      u32* p6, u64 n6, u32 v6, u32* p7, u64 n7, u32 v7) {
    u32* p;
    u64 n;
    u32 v;
    switch (blockIdx.y) {
        case 0: p = p0; n = n0; v = v0; break;
        case 1: p = p1; n = n1; v = v1; break;
        case 2: p = p2; n = n2; v = v2; break;
        case 3: p = p3; n = n3; v = v3; break;
        case 4: p = p4; n = n4; v = v4; break;
        case 5: p = p5; n = n5; v = v5; break;
        case 6: p = p6; n = n6; v = v6; break;
        default: p = p7; n = n7; v = v7; break;
    }
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) p[i] = v;
}

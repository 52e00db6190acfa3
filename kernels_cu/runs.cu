// Runs of sorted pairs (key << 32 | sid), one union per distinct key.
//
// union_update: the contribution pairs of a round (emit.cu, and the store pairs stores.cu
//   carried over), sorted; for every target t:
//
//     N(t) = ∪ of its sids;  ΔP'(t) = N(t) \ P(t);  P'(t) = P(t) ∪ ΔP'(t)
//
//   memoized by (P(t), N(t)) for the whole solve: nodes with equal sets that receive equal
//   contributions (common: a set flows to many nodes) cost one union. When
//   ΔP'(t) ≠ ∅, Pn[t] = P'(t), Dn[t] = ΔP'(t) and t joins the changed list `chg` (count
//   ctl[CTL_NCHG]); commit.cu installs them once the round succeeded.
// store_runs: the store grouping pairs (T << 32 | sid), sorted; for every set T, W = ∪ of its
//   sids, then for every element of T the pair (slot << 32 | W), slot that element's content's
//   place in a table of the round (sets share most elements, so an element is expanded once
//   however many sets T hold it); ctl[CTL_EXPAND_BOUND] sums the bits of the distinct elements.
// expand_elems: those pairs, sorted; for every slot, W* = ∪ of its sids, and the pairs
//   (rep z << 32 | W*) for z in the element, z ≠ i2p, go to the round's contribution pairs C.
//
// union_update and expand_elems read min(npairs, ctl[count_slot]) pairs when count_slot is not 0
// (a round launched without reading its counts: rounds.py, Round.launch_second).
//
// One warp per `per_warp` (1 to 32) consecutive pairs (warp_runs); it handles the runs that begin
// among them, each whole, one after another (fewer pairs a warp: fewer runs in a row on one warp
// when most runs are short). A repeated pair is read once. Kernels give up on CTL_OVF (and
// publish their memo slots as aborted).
#include "setstore.cuh"

// The pairs a kernel reads: npairs (what the host launched for), or fewer where count_slot names
// the control word that counts them (written by the kernels before; the host did not read it).
__device__ __forceinline__ u64 counted(u64 npairs, u32 count_slot, const u64* ctl) {
    if (count_slot == 0) return npairs;
    const u64 c = *(volatile const u64*)&ctl[count_slot];
    return c < npairs ? c : npairs;
}

// Feed the sids of the run of `key` beginning at pair `run` into u; false when the pool is full.
__device__ bool run_union(Pool& p, SetStore& s, SidUnion& u, const u64* __restrict__ pairs,
                          u64 npairs, u64 run, u32 key) {
    const u32 lane = lane_id();
    for (u64 j = run;; j += 32) {
        const u64 pos = j + lane;
        u32 sid = 0;
        bool mine = false;
        if (pos < npairs) {
            const u64 pr = pairs[pos];
            mine = (u32)(pr >> 32) == key;
            if (mine && (pos == 0 || pairs[pos - 1] != pr)) sid = (u32)pr;
        }
        const u32 vmask = __ballot_sync(FULL_MASK, mine);
        PROF_CNT(p.ctl, PF_RUN_SIDS, __popc(__ballot_sync(FULL_MASK, sid != 0)));
        for (u32 cand = __ballot_sync(FULL_MASK, sid != 0); cand; cand &= cand - 1) {
            u32 sv = __shfl_sync(FULL_MASK, sid, __ffs(cand) - 1);
            if (!su_add(p, s, u, sv)) return false;
        }
        if (vmask != FULL_MASK) return true;
    }
}

// This warp's `per_warp` pairs: the first's index (`first`), this lane's pair's key (`key`, NIL past
// the pairs), and a bit per lane whose pair begins a run (the runs the warp handles).
__device__ __forceinline__ u32 warp_runs(const u64* __restrict__ pairs, u64 npairs, u32 per_warp, u64& first,
                                         u32& key) {
    const u32 lane = lane_id();
    first = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32 * per_warp;
    const u64 i = first + lane;
    key = pair_key(pairs, npairs, i);
    return __ballot_sync(FULL_MASK, lane < per_warp && run_begins(pairs, npairs, i));
}

// In sealed set (start, n), from index j on: the first index whose base is >= `base` (n when
// none), 32 bases at a time.
__device__ __forceinline__ u32 seek_base(const Pool& p, u32 start, u32 n, u32 j, u32 base) {
    const u32 lane = lane_id();
    for (;; j += 32) {
        const bool below = j + lane < n && elem_word(p, start + j + lane, 0) < base;
        const u32 m = __ballot_sync(FULL_MASK, below);
        if (m != FULL_MASK) return j + __popc(m);   // bases ascend: the lanes below come first
    }
}

// ΔP' = N \ P and P' = P ∪ ΔP' for the sets psid, nsid (np = psid, nd = 0 when N ⊆ P).
// ΔP' is written first (at most |N| elements, reserved at once), found element by element by
// seeking P; P' is then found in the intern table by its hash, h(P) + h(ΔP'), and written
// only when it is new. False when the pool or the set table is full.
__device__ bool update_sets(Pool& p, SetStore& s, u32 psid, u32 nsid, u32& np, u32& nd) {
    const u32 lane = lane_id();
    const u32 ps = s.start[psid], pn = s.nelem[psid];
    const u32 ns = s.start[nsid], nn = s.nelem[nsid];
    const u32 at = warp_alloc(p, nn, CTL_OVF);
    if (at == NIL) return false;
    u32 k = 0, fresh = 0, j = 0, cnt = 0;
    u64 h = 0;
    for (SetStream n(p, ns, nn); n.base != NIL; n.next(p)) {
        j = seek_base(p, ps, pn, j, n.base);
        const bool same = j < pn && elem_word(p, ps + j, 0) == n.base;
        const u32 have = same ? elem_word(p, ps + j, lane) : 0u;
        const u32 diff = n.bits() & ~have;
        if (!__any_sync(FULL_MASK, diff != 0)) continue;
        set_elem_word(p, at + k, lane, lane == 0 ? n.base : diff);
        h += word_hash(n.base, diff);
        cnt += __popc(diff);
        ++k;
        fresh += !same;
    }
    if (k == 0) {
        np = psid;
        nd = 0;
        return true;
    }
    h = warp_sum64(h);
    cnt = warp_sum(cnt);
    __syncwarp();
    nd = intern_stream(p, s, SetStream(p, at, k), h, cnt, k, at);
    if (nd == NIL) return false;
    const u32 ds = s.start[nd];
    np = intern_stream(p, s, MergeStream(p, ps, pn, ds, k), s.hash[psid] + h, s.nbits[psid] + cnt,
                       pn + fresh, NIL);
    return np != NIL;
}

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
union_update(const u64* __restrict__ pairs, u64 npairs, u32 per_warp, u32 count_slot, const u32* __restrict__ P,
             const SetStore* __restrict__ sd, const Memo* __restrict__ upd_d, u32* Pn, u32* Dn,
             u32* chg, u32* pool_w, u64* ctl, u32 cap) {
    __shared__ u32 heads[WARPS_PER_BLOCK];
    Pool p{pool_w, ctl, cap};
    SetStore s = *sd;
    Memo upd = *upd_d;
    const u32 lane = lane_id();
    u32* hd = &heads[threadIdx.x / 32];
    if (ovf_raised(ctl)) return;
    npairs = counted(npairs, count_slot, ctl);
    u64 first;
    u32 key;
    PROF_T0(tw);
    for (u32 starts = warp_runs(pairs, npairs, per_warp, first, key); starts; starts &= starts - 1) {
        const int sl = __ffs(starts) - 1;
        const u32 t = __shfl_sync(FULL_MASK, key, sl);
        if (t == NIL) return;   // padding sorts last
        SidUnion u;
        su_init(u, hd);
        PROF_T0(t0);
        if (!run_union(p, s, u, pairs, npairs, first + sl, t)) return;
        const u32 nsid = su_finish(p, s, u);
        PROF_ADD(ctl, PF_RUN_UNION, t0);
        if (u.n >= 2) PROF_CNT(ctl, PF_N_RUNS, 1);
        if (nsid == NIL) return;
        const u32 psid = P[t];
        if (nsid == 0 || nsid == psid) continue;
        u64 val = 0;
        u32 slot = 0;
        const int r = memo_begin(upd, (u64)psid << 32 | nsid, val, slot, ctl);
        if (r < 0) return;
        u32 np, nd;
        if (r == 1) {
            np = (u32)(val >> 32);
            nd = (u32)val;
        } else {
            PROF_T0(t1);
            const bool ok = update_sets(p, s, psid, nsid, np, nd);
            PROF_ADD(ctl, PF_UPDATE, t1);
            PROF_CNT(ctl, PF_N_UPDATE, 1);
            PROF_CNT(ctl, PF_UPDATE_ELEMS, s.nelem[psid]);
            if (r == 0) memo_publish(upd, slot, ok ? (u64)np << 32 | nd : MEMO_ABORTED);
            if (!ok) return;
        }
        if (nd != 0 && lane == 0) {
            Pn[t] = np;
            Dn[t] = nd;
            chg[atomicAdd(&ctl[CTL_NCHG], 1ull)] = t;
            atomicAdd(&ctl[CTL_DELTA_BITS], (u64)s.nbits[nd]);
        }
        __syncwarp();
    }
    PROF_MAX(ctl, PF_UNION_WARP_MAX, clock64() - tw);
}

extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
store_runs(const u64* __restrict__ pairs, u64 npairs, u32 per_warp, const SetStore* __restrict__ sd,
           const ElemMemo* __restrict__ table_d, u32 i2p, u64* GE, u64 cap_ge, u32* pool_w, u64* ctl,
           u32 cap) {
    __shared__ u32 heads[WARPS_PER_BLOCK];
    Pool p{pool_w, ctl, cap};
    SetStore s = *sd;
    ElemMemo table = *table_d;
    const u32 lane = lane_id();
    u32* hd = &heads[threadIdx.x / 32];
    if (ovf_raised(ctl)) return;
    u64 first;
    u32 key;
    PROF_T0(tw);
    for (u32 starts = warp_runs(pairs, npairs, per_warp, first, key); starts; starts &= starts - 1) {
        const int sl = __ffs(starts) - 1;
        const u32 tsid = __shfl_sync(FULL_MASK, key, sl);
        if (tsid == NIL) return;
        SidUnion u;
        su_init(u, hd);
        PROF_T0(t0);
        if (!run_union(p, s, u, pairs, npairs, first + sl, tsid)) return;
        const u32 w = su_finish(p, s, u);
        PROF_ADD(ctl, PF_STORE_UNION, t0);
        if (w == NIL) return;
        if (w == 0) continue;
        PROF_T0(t1);
        // every element of T, grouped by content: (slot << 32 | W), 32 elements at a time (one a
        // lane: a set of thousands of elements would otherwise hold its round for as many lookups)
        const u32 start = s.start[tsid], n = s.nelem[tsid];
        for (u32 k0 = 0; k0 < n; k0 += 32) {
            const bool mine = k0 + lane < n;
            bool fresh = false;
            u32 slot = 0, bits = 0;
            if (mine) {
                u32 words[ELEM_WORDS];
                slot = elem_slot_lane(p, table, start + k0 + lane, 3ull, words, fresh);
                if (fresh) bits = elem_bits_without(words, i2p);
            }
            if (__any_sync(FULL_MASK, mine && slot == NIL)) {
                if (lane == 0) atomicExch(&ctl[CTL_TABLE_FULL], 1ull);
                raise_ovf(ctl);
                return;
            }
            bits = warp_sum(bits);
            if (lane == 0 && bits) atomicAdd(&ctl[CTL_EXPAND_BOUND], (u64)bits);
            emit_pair(mine, (u64)slot << 32 | w, GE, cap_ge, &ctl[CTL_GE_FILL], ctl);
        }
        PROF_ADD(ctl, PF_STORE_EXPAND, t1);
    }
    PROF_MAX(ctl, PF_STORE_WARP_MAX, clock64() - tw);
}

// The sorted element grouping pairs of store_runs: for every element slot, W* = ∪ of its sids,
// then (rep z << 32 | W*) for z in the element, z ≠ i2p, appended to C (count ctl[CTL_C_FILL]).
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
expand_elems(const u64* __restrict__ pairs, u64 npairs, u32 per_warp, u32 count_slot, const SetStore* __restrict__ sd,
             const ElemMemo* __restrict__ table_d, const u32* __restrict__ rep, u32 i2p, u64* C, u64 cap_c,
             u32* pool_w, u64* ctl, u32 cap) {
    __shared__ u32 heads[WARPS_PER_BLOCK];
    Pool p{pool_w, ctl, cap};
    SetStore s = *sd;
    ElemMemo table = *table_d;
    const u32 lane = lane_id();
    u32* hd = &heads[threadIdx.x / 32];
    if (ovf_raised(ctl)) return;
    npairs = counted(npairs, count_slot, ctl);
    u64 first;
    u32 key;
    PROF_T0(tw);
    for (u32 starts = warp_runs(pairs, npairs, per_warp, first, key); starts; starts &= starts - 1) {
        const int sl = __ffs(starts) - 1;
        const u32 slot = __shfl_sync(FULL_MASK, key, sl);
        if (slot == NIL) return;
        SidUnion u;
        su_init(u, hd);
        if (!run_union(p, s, u, pairs, npairs, first + sl, slot)) return;
        const u32 w = su_finish(p, s, u);
        if (w == NIL) return;
        if (w == 0) continue;
        const u32 e = table.elem[slot];
        const u32 ew = elem_word(p, e, lane);
        const u32 base = __shfl_sync(FULL_MASK, ew, 0);
        u32 m = bits_lane(lane) ? without_id(ew, base, i2p) : 0u;
        PROF_CNT(ctl, PF_EXPAND_PAIRS, warp_sum(__popc(m)));
        while (__any_sync(FULL_MASK, m != 0)) {
            u32 z = NIL;
            if (m) {
                z = base * ELEM_BITS + (lane - 1) * 32 + __ffs(m) - 1;
                m &= m - 1;
            }
            emit_pair(z != NIL, (u64)(z != NIL ? rep[z] : 0) << 32 | w, C, cap_c, &ctl[CTL_C_FILL], ctl);
        }
    }
#ifdef ANDERSEN_PROFILE
    const u64 dt = clock64() - tw;   // one reading for both: the longest warp is at most the sum
    PROF_CNT(ctl, PF_EXPAND, dt);
    PROF_MAX(ctl, PF_EXPAND_WARP_MAX, dt);
#endif
}

// Online merging of nodes while solving (dynamic representative table).
//
// Two nodes may be merged once their final points-to sets are known to be equal; the least
// solution does not change. Merges are found between rounds:
//
//   HCD       (p, t) in the table, z ∈ ΔP(rep p), z ≠ i2p   ⟹  merge rep z with rep t
//             (Hardekopf and Lin, CGO 2007; the same direction as the cpu backend)
//   cycles    y →c x with P(y) = P(x) ≠ ∅ (equal set classes) are candidate edges; the host
//             merges the strongly connected components of the candidate graph (lazy cycle
//             detection, Hardekopf and Lin, PLDI 2007, run on all edges at once)
//
// hcd_pairs and cycle_candidates write u64 pairs (a << 32 | b) of representatives to merge
// (slots from ctl[CTL_MERGE_FILL]; pairs past `cap` are counted, not written). uf_union and
// uf_flatten group them into classes on the device; remap_rep gives the new representative
// table and class_pairs the classes as pairs (r << 32 | m), counted on the device, so that a
// batch needs one synchronisation (after its unions). merge_parts + merge_parts_into fold
// the lists of every merged node a into its new representative r: c⁻¹(r) ∪= c⁻¹(a),
// Δc⁻¹(r) ∪= Δc⁻¹(a), succ(r) ∪= succ(a), and into scratch
// heads newP(r) = ⋃ P(m), newΔP(r) = ⋃ (ΔP(m) ∪ X(m)) over the members m (r included), with
// X(m) from member_diff; pairs (r << 32 | m) sorted by r; only the warp owning the first
// pair of r's run writes r's lists; merge_commit installs them.
// recount gives the counts the update kernel leaves in the control block, for the merged state.
#include "bitvec.cuh"

#define CTL_MERGE_FILL 14  // merge pairs emitted so far (class pairs, in class_pairs)
#define CTL_MERGE_OLDS 15  // nodes merged by the current batch (class_pairs)

__device__ __forceinline__ void emit_pair(u64* ctl, u64* out, u64 cap, bool want, u64 value) {
    u32 m = __ballot_sync(FULL_MASK, want);
    if (!m) return;
    u64 at = 0;
    if (lane_id() == 0) at = atomicAdd(&ctl[CTL_MERGE_FILL], (u64)__popc(m));
    at = __shfl_sync(FULL_MASK, at, 0) + __popc(m & ((1u << lane_id()) - 1u));
    if (want && at < cap) out[at] = value;
}

// One warp per HCD entry i: (rep z) << 32 | rep t for z ∈ ΔP(rep p), z ≠ i2p, rep z ≠ rep t.
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
hcd_pairs(const u32* __restrict__ hcd_ptr, const u32* __restrict__ hcd_target, u32 n_hcd,
          const u32* __restrict__ rep, const u32* __restrict__ D, u32 i2p, u64* out, u64 cap,
          u32* pool_w, u64* ctl, u32 pool_cap) {
    Pool p{pool_w, ctl, pool_cap};
    const u32 lane = lane_id();
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 n_warps = ((u64)gridDim.x * blockDim.x) / 32;
    for (u64 i = warp; i < n_hcd; i += n_warps) {
        const u32 t = rep[hcd_target[i]];
        for (u32 e = D[rep[hcd_ptr[i]]]; e != NIL;) {
            u32 w = elem_word(p, e, lane);
            u32 base = __shfl_sync(FULL_MASK, w, 0);
            u32 next = __shfl_sync(FULL_MASK, w, 31);
            u32 m = bits_lane(lane) ? without_id(w, base, i2p) : 0u;
            // every lane walks its own word; the warp emits together once per bit position
            for (;;) {
                bool any = __any_sync(FULL_MASK, m != 0);
                if (!any) break;
                u32 rz = NIL;
                if (m) {
                    u32 b = __ffs(m) - 1;
                    m &= m - 1;
                    rz = rep[base * ELEM_BITS + (lane - 1) * 32 + b];
                }
                emit_pair(ctl, out, cap, rz != NIL && rz != t, (u64)rz << 32 | t);
            }
            e = next;
        }
    }
}

// One warp per representative y with P(y) ≠ ∅: y << 32 | rep x for x ∈ succ(y) with
// rep x ≠ y and pcls[rep x] == pcls[y] (equal points-to sets).
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
cycle_candidates(const u32* __restrict__ nodes, u32 n_work, const u32* __restrict__ rep,
                 const u32* __restrict__ P, const u32* __restrict__ succ,
                 const u32* __restrict__ pcls, u64* out, u64 cap, u32* pool_w, u64* ctl,
                 u32 pool_cap) {
    Pool p{pool_w, ctl, pool_cap};
    const u32 lane = lane_id();
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 n_warps = ((u64)gridDim.x * blockDim.x) / 32;
    for (u64 i = warp; i < n_work; i += n_warps) {
        const u32 y = nodes[i];
        if (P[y] == NIL) continue;
        const u32 cy = pcls[y];
        for (u32 e = succ[y]; e != NIL;) {
            u32 w = elem_word(p, e, lane);
            u32 base = __shfl_sync(FULL_MASK, w, 0);
            u32 next = __shfl_sync(FULL_MASK, w, 31);
            u32 m = bits_lane(lane) ? w : 0u;
            for (;;) {
                bool any = __any_sync(FULL_MASK, m != 0);
                if (!any) break;
                u32 rx = y;
                if (m) {
                    u32 b = __ffs(m) - 1;
                    m &= m - 1;
                    rx = rep[base * ELEM_BITS + (lane - 1) * 32 + b];
                }
                emit_pair(ctl, out, cap, rx != y && pcls[rx] == cy, (u64)y << 32 | rx);
            }
            e = next;
        }
    }
}

// Grouping the merge pairs into classes: a lock-free union-find over node ids in `parent`
// (the identity at first). A link always goes from the larger of two roots to the smaller,
// so parent chains strictly decrease and every class ends rooted at its smallest id -- the
// representative the rest of the merge keeps. Pair ends are read through `rep` first, so
// pairs found in earlier rounds, under an older table, are grouped by their current
// representatives.
__device__ __forceinline__ u32 uf_root(const volatile u32* parent, u32 x) {
    for (u32 up = parent[x]; up != x; up = parent[x]) x = up;
    return x;
}

// One thread per pair (a << 32 | b): union the classes of rep a and rep b.
extern "C" __global__ void uf_union(const u64* __restrict__ pairs, u64 npairs,
                                    const u32* __restrict__ rep, u32* parent) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < npairs; i += stride) {
        u32 a = rep[(u32)(pairs[i] >> 32)], b = rep[(u32)pairs[i]];
        for (;;) {
            a = uf_root(parent, a);
            b = uf_root(parent, b);
            if (a == b) break;
            if (a < b) { u32 t = a; a = b; b = t; }
            // a is the larger root: hang it under b, unless another thread moved it first
            if (atomicCAS(&parent[a], a, b) == a) break;
        }
    }
}

// parent[x] = root of x for every x < n (run after every uf_union of a batch).
extern "C" __global__ void uf_flatten(u32 n, u32* parent) {
    const u32 stride = gridDim.x * blockDim.x;
    for (u32 x = blockIdx.x * blockDim.x + threadIdx.x; x < n; x += stride)
        parent[x] = uf_root(parent, x);
}

// A union job: H(r) ∪= S(m) for the pairs (r << 32 | m), sorted by r, in two levels through
// the scratch heads T (one per pair, NIL-initialised), so that a class of k members is not
// one warp's serial walk (one warp per class took k/32 passes, each over the whole growing
// list of r). merge_parts and merge_parts_into run job blockIdx.y of a table (u64[3] per
// job: S, H, skip_self) over one shared, sorted pair array, whose count they read from the
// device (*npairs: no synchronisation to learn it; pairs past it are padding); job j's
// scratch heads are T + j * stride. Unions of different lists thus run at once (a merge
// makes five; one after the other, each waited on its few longest classes). With skip_self,
// the pair (r, r) adds nothing (H(r) ∪= S(r) is a no-op when S is H). Both raise
// ctl[CTL_OVF_RULES] when the pool is full (H stays valid; run them again after growing:
// they only OR) and do nothing when it is already raised.
struct UnionJob {
    const u32* S;
    u32* T;
    u32* H;
    bool skip_self;
};

// This block row's job and the first of this warp's 32 pairs; false when they lie past the
// pairs (the warp has nothing to do).
__device__ __forceinline__ bool union_job(const u64* __restrict__ jobs, u32* T, u64 stride,
                                          u64 npairs, UnionJob& job, u64& first) {
    const u64* j = jobs + 3 * (u64)blockIdx.y;
    job = UnionJob{(const u32*)j[0], T + stride * blockIdx.y, (u32*)j[1], j[2] != 0};
    first = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32;
    return first < npairs;
}

// merge_parts: warp g takes the pairs [32g, 32g + 32); every stretch of one key r inside
// them (a part of r's run) is unioned into the scratch head T[i0], i0 the stretch's first
// index. All warps work at once.
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
merge_parts(const u64* __restrict__ jobs, const u64* __restrict__ pairs, const u64* __restrict__ count,
            u32* T, u64 stride, u32* pool_w, u64* ctl, u32 cap) {
    Pool p{pool_w, ctl, cap};
    if (*(volatile u64*)&ctl[CTL_OVF_RULES]) return;
    const u64 npairs = *count;
    UnionJob job;
    u64 first;
    if (!union_job(jobs, T, stride, npairs, job, first)) return;
    const u32 lane = lane_id();
    const u64 i = first + lane;
    const bool valid = i < npairs;
    u32 key = valid ? (u32)(pairs[i] >> 32) : NIL;
    u32 m = valid ? (u32)pairs[i] : NIL;
    u32 before = __shfl_up_sync(FULL_MASK, key, 1);
    u32 starts = __ballot_sync(FULL_MASK, valid && (lane == 0 || before != key));
    while (starts) {
        int sl = __ffs(starts) - 1;
        starts &= starts - 1;
        const u32 r = __shfl_sync(FULL_MASK, key, sl);
        u32 src = valid && key == r && !(job.skip_self && m == r) ? job.S[m] : NIL;
        if (__any_sync(FULL_MASK, src != NIL) &&
            union_many(p, &job.T[first + sl], src, NIL, NIL, CTL_OVF_RULES) < 0)
            return;
    }
}

// merge_parts_into: H(r) ∪= the parts of r's run, 32 parts per pass; the warp owning the
// run's first pair does it. The parts of a run [s, e) start at s and at every multiple of
// 32 inside it. A job's S may be its H (merge_parts only reads, into a fresh T).
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
merge_parts_into(const u64* __restrict__ jobs, const u64* __restrict__ pairs,
                 const u64* __restrict__ count, u32* T, u64 stride, u32* pool_w, u64* ctl, u32 cap) {
    Pool p{pool_w, ctl, cap};
    if (*(volatile u64*)&ctl[CTL_OVF_RULES]) return;
    const u64 npairs = *count;
    UnionJob job;
    u64 first;
    if (!union_job(jobs, T, stride, npairs, job, first)) return;
    const u32 lane = lane_id();
    const u64 i = first + lane;
    const u32 key = pair_key(pairs, npairs, i);
    u32 starts = __ballot_sync(FULL_MASK, run_begins(pairs, npairs, i));
    while (starts) {
        int sl = __ffs(starts) - 1;
        starts &= starts - 1;
        const u32 r = __shfl_sync(FULL_MASK, key, sl);
        const u64 s = first + sl, boundary = first + 32;
        for (u64 q = 0;; q += 32) {
            const u64 part = q + lane;   // this lane's part of the run: 0 starts at s
            const u64 at = part == 0 ? s : boundary + (part - 1) * 32;
            const bool ok = pair_key(pairs, npairs, at) == r;   // r is never NIL
            const u32 src = ok ? job.T[at] : NIL;
            const bool more = __ballot_sync(FULL_MASK, ok) == FULL_MASK;
            if (__any_sync(FULL_MASK, src != NIL) &&
                union_many(p, &job.H[r], src, NIL, NIL, CTL_OVF_RULES) < 0)
                return;
            if (!more) break;
        }
    }
}

// What a member has not seen of its merged class: X(m) = newP(r) \ P(m) for every pair
// (r << 32 | m) of the sorted class pairs (the first *count), when uses[m] (a rule reads ΔP
// of m); one warp per pair. The rule instances whose source is m have seen P(m) \ ΔP(m), so
// ΔP(r) = ⋃ (ΔP(m) ∪ X(m)) is all they need. Members without such instances add only their
// ΔP. X: NIL-initialized scratch heads (each written by one warp). Overflow as merge_parts.
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
member_diff(const u64* __restrict__ pairs, const u64* __restrict__ count,
            const u32* __restrict__ P, const u32* __restrict__ newP,
            const unsigned char* __restrict__ uses, u32* X, u32* pool_w, u64* ctl, u32 cap) {
    Pool p{pool_w, ctl, cap};
    if (*(volatile u64*)&ctl[CTL_OVF_RULES]) return;
    const u64 n_pairs = *count;
    const u32 lane = lane_id();
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 n_warps = ((u64)gridDim.x * blockDim.x) / 32;
    for (u64 i = warp; i < n_pairs; i += n_warps) {
        const u32 m = (u32)pairs[i];
        if (!uses[m]) continue;
        const u32 t = newP[(u32)(pairs[i] >> 32)];
        if (union_many(p, &X[m], lane == 0 ? t : NIL, P[m], NIL, CTL_OVF_RULES) < 0) return;
    }
}

// out[v] = parent[rep[v]] for v < n: the representative table after the batch (parent
// flattened by uf_flatten; run before class_pairs resets it).
extern "C" __global__ void remap_rep(u32 n, const u32* __restrict__ rep, const u32* __restrict__ parent,
                                     u32* out) {
    const u32 stride = gridDim.x * blockDim.x;
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) out[v] = parent[rep[v]];
}

// The classes of a flattened batch as pairs (r << 32 | m), unsorted, into out[0, 2k) for k
// merged nodes: (r, a) for every node a with r = parent[a] != a (a merged into r), and (r, r)
// once per class (the first thread to stamp r with `stamp`, a value stamp[] does not hold
// yet, writes it). ctl[CTL_MERGE_FILL] counts the pairs and ctl[CTL_MERGE_OLDS] the merged
// nodes (both zero before). parent is reset to the identity on the way (a thread reads and
// writes only its own entry, and a root's entry stays itself).
extern "C" __global__ void class_pairs(u32 n, u32* parent, u32* stamp_of, u32 stamp, u64* out, u64* ctl) {
    const u32 stride = gridDim.x * blockDim.x;
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        const u32 r = parent[v];
        if (r == v) continue;
        parent[v] = v;
        atomicAdd(&ctl[CTL_MERGE_OLDS], 1ull);
        out[atomicAdd(&ctl[CTL_MERGE_FILL], 1ull)] = (u64)r << 32 | v;
        if (atomicExch(&stamp_of[r], stamp) != stamp)
            out[atomicAdd(&ctl[CTL_MERGE_FILL], 1ull)] = (u64)r << 32 | r;
    }
}

// After the unions: P(r) = newP(r), ΔP(r) = newΔP(r) for each class's pair (r, r); ΔP and
// Δc⁻¹ of every merged node emptied (pairs (r, a), a != r). One thread per pair.
extern "C" __global__ void merge_commit(const u64* __restrict__ pairs, const u64* __restrict__ count,
                                        u32* P, u32* D, u32* DC, const u32* __restrict__ newP,
                                        const u32* __restrict__ newD) {
    const u64 n_pairs = *count;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n_pairs; i += stride) {
        const u32 r = (u32)(pairs[i] >> 32), m = (u32)pairs[i];
        if (m == r) {
            P[r] = newP[r];
            D[r] = newD[r];
        } else {
            D[m] = NIL;
            DC[m] = NIL;
        }
    }
}

// The control-block counts of update.cu for the current lists (after merges): CTL_CHANGED,
// CTL_NPAIRS, CTL_NSUCC, CTL_NACTIVE (the host zeroes them first). One warp per representative.
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
recount(const u32* __restrict__ nodes, u32 n_work, const u32* __restrict__ D,
        const u32* __restrict__ DC, const u32* __restrict__ succ, const u32* __restrict__ s_ptr,
        u32 i2p, u32* pool_w, u64* ctl, u32 cap) {
    Pool p{pool_w, ctl, cap};
    const u32 lane = lane_id();
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 n_warps = ((u64)gridDim.x * blockDim.x) / 32;
    for (u64 i = warp; i < n_work; i += n_warps) {
        const u32 x = nodes[i];
        const u32 d = D[x], dc = DC[x];
        if (d == NIL && dc == NIL) continue;
        u32 dbits = 0;
        for (u32 e = d; e != NIL;) {
            u32 w = elem_word(p, e, lane);
            u32 base = __shfl_sync(FULL_MASK, w, 0);
            if (bits_lane(lane)) dbits += __popc(without_id(w, base, i2p));
            e = __shfl_sync(FULL_MASK, w, 31);
        }
        dbits = warp_sum(dbits);
        u32 dcbits = dc != NIL ? list_bits(p, dc) : 0;
        u32 out_edges = d != NIL ? list_bits(p, succ[x]) : 0;
        if (lane == 0) {
            atomicAdd(&ctl[CTL_CHANGED], 1ull);
            if (d != NIL) {
                atomicAdd(&ctl[CTL_NPAIRS], (u64)dbits * (s_ptr[x + 1] - s_ptr[x]));
                atomicAdd(&ctl[CTL_NACTIVE], (u64)out_edges);
            }
            if (dc != NIL) atomicAdd(&ctl[CTL_NSUCC], (u64)dcbits);
        }
    }
}

// Pointer equivalence by hash-sort (seed 002, "Detect pointer-equivalent variables"):
//
//   x ≡ y  ⟺  S(x) = S(y)      (S = ΔP while solving, S = P for the final solution)
//
// list_hash gives every node a 64-bit hash of its list (and its bit count); the host sorts
// nodes by hash with CuPy, mark_classes compares each node's list with the previous one's
// in that order (exactly, element by element) and marks where a new class begins; a CuPy
// prefix sum of the marks numbers the classes. expand_lists writes the distinct sets out as
// sorted ids (the CSR of the solution). One warp per node or set in every kernel.
#include "bitvec.cuh"

__device__ __forceinline__ u64 mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// hash[i], bits[i] of the list heads[nodes[i]]. Empty list: 0, 0.
extern "C" __global__ void list_hash(const u32* __restrict__ nodes, u32 n_work,
                                     const u32* __restrict__ heads, const u32* pool_w,
                                     u64* hash, u64* bits) {
    const u32 lane = lane_id();
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 n_warps = ((u64)gridDim.x * blockDim.x) / 32;
    for (u64 i = warp; i < n_work; i += n_warps) {
        u32 x = nodes[i];
        u64 h = 0;
        u32 cnt = 0;
        for (u32 e = heads[x]; e != NIL;) {
            u32 w = pool_w[(size_t)e * ELEM_WORDS + lane];
            u32 base = __shfl_sync(FULL_MASK, w, 0);
            u32 next = __shfl_sync(FULL_MASK, w, 31);
            if (bits_lane(lane) && w) {
                h += mix64(((u64)base << 32 | (u64)lane << 27) ^ ((u64)w * 0x9E3779B97F4A7C15ull));
                cnt += __popc(w);
            }
            e = next;
        }
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) h += __shfl_xor_sync(FULL_MASK, h, d);
        cnt = warp_sum(cnt);
        if (lane == 0) {
            hash[i] = h;
            bits[i] = cnt;
        }
    }
}

// starts[k] = 1 if the k-th node in hash order begins a new class, else 0. `order` holds
// indices into `nodes` sorted by hash; `hash` is indexed like `nodes`.
extern "C" __global__ void mark_classes(const u32* __restrict__ order, u32 n_work,
                                        const u32* __restrict__ nodes, const u32* __restrict__ heads,
                                        const u64* __restrict__ hash, const u32* pool_w,
                                        int* starts) {
    const u32 lane = lane_id();
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 n_warps = ((u64)gridDim.x * blockDim.x) / 32;
    for (u64 k = warp; k < n_work; k += n_warps) {
        int start = 1;
        if (k > 0) {
            u32 a = order[k], b = order[k - 1];
            if (hash[a] == hash[b]) {
                u32 ea = heads[nodes[a]];
                u32 eb = heads[nodes[b]];
                start = 0;
                while (ea != NIL || eb != NIL) {
                    if (ea == NIL || eb == NIL) { start = 1; break; }
                    u32 wa = pool_w[(size_t)ea * ELEM_WORDS + lane];
                    u32 wb = pool_w[(size_t)eb * ELEM_WORDS + lane];
                    bool differ = lane != 31 && wa != wb;  // base and bits; not the link
                    if (__any_sync(FULL_MASK, differ)) { start = 1; break; }
                    ea = __shfl_sync(FULL_MASK, wa, 31);
                    eb = __shfl_sync(FULL_MASK, wb, 31);
                }
            }
        }
        if (lane == 0) starts[k] = start;
    }
}

// out[indptr[k] : indptr[k+1]] = the ids of the list heads[leaders[k]], ascending.
extern "C" __global__ void expand_lists(const u32* __restrict__ leaders, u32 n_sets,
                                        const u32* __restrict__ heads, const u32* pool_w,
                                        const long long* __restrict__ indptr, int* out) {
    const u32 lane = lane_id();
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 n_warps = ((u64)gridDim.x * blockDim.x) / 32;
    for (u64 k = warp; k < n_sets; k += n_warps) {
        long long at = indptr[k];
        for (u32 e = heads[leaders[k]]; e != NIL;) {
            u32 w = pool_w[(size_t)e * ELEM_WORDS + lane];
            u32 base = __shfl_sync(FULL_MASK, w, 0);
            u32 next = __shfl_sync(FULL_MASK, w, 31);
            u32 m = bits_lane(lane) ? w : 0u;
            u32 total;
            u32 before = warp_exclusive_sum(__popc(m), total);
            long long k2 = at + before;
            while (m) {
                u32 b = __ffs(m) - 1;
                m &= m - 1;
                out[k2++] = (int)(base * ELEM_BITS + (lane - 1) * 32 + b);
            }
            at += total;
            e = next;
        }
    }
}

// Exact comparison of two lists, element by element (base and bits, not the link); warp-wide.
__device__ __forceinline__ bool lists_equal(const u32* pool_w, u32 ea, u32 eb) {
    const u32 lane = lane_id();
    while (ea != NIL || eb != NIL) {
        if (ea == NIL || eb == NIL) return false;
        u32 wa = pool_w[(size_t)ea * ELEM_WORDS + lane];
        u32 wb = pool_w[(size_t)eb * ELEM_WORDS + lane];
        if (__any_sync(FULL_MASK, lane != 31 && wa != wb)) return false;
        ea = __shfl_sync(FULL_MASK, wa, 31);
        eb = __shfl_sync(FULL_MASK, wb, 31);
    }
    return true;
}

// Classes of equal lists in one pass, through an open-addressing table instead of a sort:
// cls[x] = a node of `nodes` whose list heads[] equals heads[x] (the first to claim the
// table slot of that content), x itself when its list is empty. One warp per node: it hashes
// its list and claims the first free slot of its probe sequence with (tag << 32 | x); a slot
// already holding its tag is taken when the owner's list is exactly equal (the hash only
// narrows the comparisons). `table` has mask + 1 slots (a power of two larger than the
// number of non-empty lists), all 0xFF..FF on entry. Which member of a class becomes its
// leader depends on timing; the leader is used only as a stand-in for a set of equal content.
// With stamp != NIL only the nodes x with member[x] == stamp take part (the others' cls stays).
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
class_table(const u32* __restrict__ nodes, u32 n_work, const u32* __restrict__ heads,
            const u32* pool_w, u64* table, u32 mask, u32* cls, const u32* __restrict__ member,
            u32 stamp) {
    const u32 lane = lane_id();
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 n_warps = ((u64)gridDim.x * blockDim.x) / 32;
    for (u64 i = warp; i < n_work; i += n_warps) {
        const u32 x = nodes[i];
        if (stamp != NIL && member[x] != stamp) continue;
        const u32 head = heads[x];
        if (head == NIL) {
            if (lane == 0) cls[x] = x;
            continue;
        }
        u64 h = 0;
        for (u32 e = head; e != NIL;) {
            u32 w = pool_w[(size_t)e * ELEM_WORDS + lane];
            u32 base = __shfl_sync(FULL_MASK, w, 0);
            if (bits_lane(lane) && w)
                h += mix64(((u64)base << 32 | (u64)lane << 27) ^ ((u64)w * 0x9E3779B97F4A7C15ull));
            e = __shfl_sync(FULL_MASK, w, 31);
        }
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) h += __shfl_xor_sync(FULL_MASK, h, d);
        h = mix64(h);
        const u32 tag = (u32)(h >> 32);
        const u64 mine = (u64)tag << 32 | x;   // never all ones: x < NIL
        u32 slot = (u32)h & mask;
        u32 leader;
        for (;;) {
            u64 held = 0;
            if (lane == 0) held = atomicCAS(&table[slot], ~0ull, mine);
            held = __shfl_sync(FULL_MASK, held, 0);
            if (held == ~0ull) {
                leader = x;
                break;
            }
            if ((u32)(held >> 32) == tag && lists_equal(pool_w, heads[(u32)held], head)) {
                leader = (u32)held;
                break;
            }
            slot = (slot + 1) & mask;
        }
        if (lane == 0) cls[x] = leader;
    }
}

// member[rep z] = stamp for every z in the lists heads[x], x in `nodes`: with heads = Δc⁻¹,
// the sources of this round's new copy edges, the only nodes whose set class the rule kernel
// reads. One warp per node, one lane per word.
extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32)
mark_members(const u32* __restrict__ nodes, u32 n_work, const u32* __restrict__ heads,
             const u32* __restrict__ rep, const u32* pool_w, u32* member, u32 stamp) {
    const u32 lane = lane_id();
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 n_warps = ((u64)gridDim.x * blockDim.x) / 32;
    for (u64 i = warp; i < n_work; i += n_warps) {
        for (u32 e = heads[nodes[i]]; e != NIL;) {
            u32 w = pool_w[(size_t)e * ELEM_WORDS + lane];
            u32 base = __shfl_sync(FULL_MASK, w, 0);
            u32 m = bits_lane(lane) ? w : 0u;
            while (m) {
                u32 b = __ffs(m) - 1;
                m &= m - 1;
                member[rep[base * ELEM_BITS + (lane - 1) * 32 + b]] = stamp;
            }
            e = __shfl_sync(FULL_MASK, w, 31);
        }
    }
}

// Lists built from sorted pairs (launcher: andersen_gpu/backends/gpu/lists.py): the initial
// points-to lists, x = &y giving the pair (x, y), before they are interned.
//
// Input: `pairs` sorted ascending, each (key << 32) | id. For every distinct key k, the ids of
// its run are OR-ed into the list heads[k]. One warp per group of 32 consecutive pairs: it
// finds the runs that start in its group and inserts each run whole; only the warp that owns
// a key's first pair touches heads[key], so no locks are needed.
#include "bitvec.cuh"

//
// When `ovf_slot` is already raised at launch, the kernel does nothing (the host makes room
// and runs it again).
// Pairs whose key is n_keys or more are placeholders and are left out.
extern "C" __global__ void insert_pairs(const u64* __restrict__ pairs, u64 npairs, u32* heads,
                                        u32 n_keys, u32* pool_w, u64* ctl, u32 cap, int ovf_slot) {
    __shared__ u32 buf[WARPS_PER_BLOCK][32];
    Pool p{pool_w, ctl, cap};
    if (*(volatile u64*)&ctl[ovf_slot]) return;
    const u32 lane = lane_id();
    u32* sh = buf[threadIdx.x / 32];
    u64 group = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 i = group * 32 + lane;
    const u32 key = pair_key(pairs, npairs, i);
    u32 starts = __ballot_sync(FULL_MASK, key < n_keys && run_begins(pairs, npairs, i));
    sh[lane] = 0;
    __syncwarp();
    while (starts) {
        int sl = __ffs(starts) - 1;
        starts &= starts - 1;
        u32 k = __shfl_sync(FULL_MASK, key, sl);
        u64 j = group * 32 + sl;
        Cursor c;
        cursor_init(p, c, &heads[k]);
        bool more = true;
        while (more) {
            u64 pos = j + lane;
            bool valid = false;
            u32 id = 0;
            if (pos < npairs) {
                u64 pr = pairs[pos];
                valid = (u32)(pr >> 32) == k;
                id = (u32)pr;
            }
            u32 vmask = __ballot_sync(FULL_MASK, valid);
            // runs are contiguous: the run continues past this chunk only if all 32 matched
            more = vmask == FULL_MASK;
            j += 32;
            while (vmask) {
                int fl = __ffs(vmask) - 1;
                u32 cb = __shfl_sync(FULL_MASK, id, fl) / ELEM_BITS;
                bool mine = valid && id / ELEM_BITS == cb;
                if (mine) {
                    u32 r = id % ELEM_BITS;
                    atomicOr(&sh[1 + r / 32], 1u << (r % 32));
                    valid = false;
                }
                vmask = __ballot_sync(FULL_MASK, valid);
                __syncwarp();
                u32 bits = bits_lane(lane) ? sh[lane] : 0u;
                __syncwarp();
                sh[lane] = 0;
                __syncwarp();
                if (merge_elem(p, c, &heads[k], cb, bits, ovf_slot) < 0) return;
            }
        }
    }
}

// The same insertion in two steps, for long runs of one key (a heavily shared pointee's
// successors: one warp walking a run of 10^5 pairs 32 at a time was most of a round).
//
// record_starts, one thread per pair: start[i] = 1 where pair i opens a record (its key or
// its element base id / ELEM_BITS differs from pair i - 1's), else 0. The caller's inclusive
// prefix sum `pos` numbers the records from 1, in order.
extern "C" __global__ void record_starts(const u64* __restrict__ pairs, u64 npairs, u32* start) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < npairs; i += stride) {
        const u64 pr = pairs[i];
        bool opens = i == 0;
        if (!opens) {
            const u64 before = pairs[i - 1];
            opens = (pr >> 32) != (before >> 32) || (u32)pr / ELEM_BITS != (u32)before / ELEM_BITS;
        }
        start[i] = opens;
    }
}

// pack_records, one thread per pair: pair i belongs to record pos[i] - 1 (pos from
// record_starts); it ORs its bit into word 1 + (id % ELEM_BITS) / 32 of that 32-word record,
// and the first pair of a record writes its base into word 0 and its key into word 31. `rec`
// is zeroed before the launch.
extern "C" __global__ void pack_records(const u64* __restrict__ pairs, u64 npairs,
                                        const u32* __restrict__ pos, u32* rec) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < npairs; i += stride) {
        const u64 pr = pairs[i];
        const u32 id = (u32)pr, r = id % ELEM_BITS;
        u32* out = rec + (size_t)(pos[i] - 1) * ELEM_WORDS;
        atomicOr(&out[1 + r / 32], 1u << (r % 32));
        if (i == 0 || pos[i - 1] != pos[i]) {
            out[0] = id / ELEM_BITS;
            out[ELEM_WORDS - 1] = (u32)(pr >> 32);
        }
    }
}

// insert_records: heads[key] ∪= every record of that key, one merge_elem per record. One warp
// per 32 consecutive records handles the runs of keys that start among them (as
// insert_pairs); the next record is loaded before the current one is merged. Records whose
// key is n_keys or more are placeholders and are left out. Overflow as insert_pairs.
extern "C" __global__ void insert_records(const u32* __restrict__ rec, u64 nrec, u32* heads,
                                          u32 n_keys, u32* pool_w, u64* ctl, u32 cap,
                                          int ovf_slot) {
    Pool p{pool_w, ctl, cap};
    if (*(volatile u64*)&ctl[ovf_slot]) return;
    const u32 lane = lane_id();
    u64 group = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 i = group * 32 + lane;
    bool start = false;
    u32 key = 0;
    if (i < nrec) {
        key = rec[i * ELEM_WORDS + ELEM_WORDS - 1];
        start = key < n_keys && (i == 0 || rec[(i - 1) * ELEM_WORDS + ELEM_WORDS - 1] != key);
    }
    u32 starts = __ballot_sync(FULL_MASK, start);
    while (starts) {
        int sl = __ffs(starts) - 1;
        starts &= starts - 1;
        const u32 k = __shfl_sync(FULL_MASK, key, sl);
        u64 j = group * 32 + sl;
        Cursor c;
        cursor_init(p, c, &heads[k]);
        u32 w = rec[j * ELEM_WORDS + lane];
        for (;;) {
            const u32 base = __shfl_sync(FULL_MASK, w, 0);
            const u32 bits = bits_lane(lane) ? w : 0u;
            ++j;
            bool more = false;
            if (j < nrec) {
                const u32 nw = rec[j * ELEM_WORDS + lane];
                more = __shfl_sync(FULL_MASK, nw, ELEM_WORDS - 1) == k;
                w = nw;
            }
            if (merge_elem(p, c, &heads[k], base, bits, ovf_slot) < 0) return;
            if (!more) break;
        }
    }
}

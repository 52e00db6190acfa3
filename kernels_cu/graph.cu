// The constraint graph of the representatives as CSR lists (andersen_gpu/backends/gpu/graph.py),
// built in a few launches and without a synchronisation:
//
//   csr_keys      keys[i] = rep[dst[i]] << 32 | rep[src[i]]           (the caller sorts them)
//   csr_first     first[i] = 1 where sorted entry i differs from entry i-1 (key, and offset
//                 when there is one); the caller turns it into an inclusive prefix sum `pos`
//   csr_fill      the distinct entries: col[pos[i] - 1] = low word of keys[i] (and its
//                 offset) for every first entry; ptr[d] = the compact index of the first
//                 entry of row d, found by binary search (rows are the high words)
//
// With `has_off`, `off` (read through `order`, the sort permutation) is the offset of each
// entry; without, both are dummies and not read.
#include "bitvec.cuh"

extern "C" __global__ void csr_keys(const u32* __restrict__ dst, const u32* __restrict__ src, u64 m,
                                    const u32* __restrict__ rep, u64* keys) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) keys[i] = (u64)rep[dst[i]] << 32 | rep[src[i]];
}

__device__ __forceinline__ bool csr_is_first(const u64* keys, const u64* order, const u32* off,
                                             int has_off, u64 i) {
    if (i == 0) return true;
    if (keys[i] != keys[i - 1]) return true;
    return has_off && off[order[i]] != off[order[i - 1]];
}

extern "C" __global__ void csr_first(const u64* __restrict__ keys, const u64* __restrict__ order,
                                     const u32* __restrict__ off, int has_off, u64 m, u32* first) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) first[i] = csr_is_first(keys, order, off, has_off, i);
}

// Threads [0, m) write the columns, threads [m, m + n + 1) the row pointers.
extern "C" __global__ void csr_fill(const u64* __restrict__ keys, const u64* __restrict__ order,
                                    const u32* __restrict__ off, int has_off, u64 m,
                                    const u32* __restrict__ pos, u32 n, u32* ptr, u32* col,
                                    u32* off_out) {
    u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < m) {
        if (csr_is_first(keys, order, off, has_off, t)) {
            u32 k = pos[t] - 1;
            col[k] = (u32)keys[t];
            if (has_off) off_out[k] = off[order[t]];
        }
        return;
    }
    t -= m;
    if (t > n) return;
    // lower bound of row t among the sorted keys
    u64 lo = 0, hi = m;
    const u64 want = (u64)t << 32;
    while (lo < hi) {
        u64 mid = (lo + hi) / 2;
        if (keys[mid] < want) lo = mid + 1; else hi = mid;
    }
    // entry lo starts row t's first key, so it is a first entry: pos[lo] - 1 is its index
    ptr[t] = lo < m ? pos[lo] - 1 : (m ? pos[m - 1] : 0u);
}

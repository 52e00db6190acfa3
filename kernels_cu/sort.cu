// Sorting batches of uint64 keys without a synchronisation (launcher: andersen_gpu/backends/gpu/sort.py).
// The _counted kernels read the number of keys on the device (a counter a kernel before them
// wrote): the host launches them for a capacity, and the sort needs no read of the count.
//
// block_sort_u64: block b sorts keys[b * 4096, min((b + 1) * 4096, n)) ascending, in place.
// A bitonic sort in shared memory over the next power of two, padded with ~0 (which sorts
// last: a real key of that value is equal to the padding, so the first m written back are
// the chunk, sorted). One block alone sorts a batch of at most 4096 keys.
//
// merge_runs_u64: one merge pass. src holds sorted runs of `width` keys (the last may be
// shorter); dst gets sorted runs of 2 * width. One thread per key finds its place by binary
// search in the other run of its pair: a key of the left run goes after the right run's
// smaller keys, one of the right run after the left run's keys that are not greater, so
// equal keys keep their order and every output slot is written once.

#define BLOCK_SORT_MAX 4096

typedef unsigned long long u64;

__device__ __forceinline__ void block_sort_chunk(u64* s, u64* keys, u64 n) {
    const u64 base = (u64)blockIdx.x * BLOCK_SORT_MAX;
    if (base >= n) return;
    const unsigned int m = (unsigned int)(n - base < BLOCK_SORT_MAX ? n - base : BLOCK_SORT_MAX);
    u64* chunk = keys + base;
    unsigned int size = 2;
    while (size < m) size <<= 1;
    for (unsigned int i = threadIdx.x; i < size; i += blockDim.x)
        s[i] = i < m ? chunk[i] : ~0ULL;
    __syncthreads();
    for (unsigned int k = 2; k <= size; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            for (unsigned int i = threadIdx.x; i < size; i += blockDim.x) {
                unsigned int partner = i ^ j;
                if (partner > i) {
                    u64 a = s[i], b = s[partner];
                    // ascending where bit k of i is clear, descending where it is set
                    if ((a > b) == ((i & k) == 0)) {
                        s[i] = b;
                        s[partner] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
    for (unsigned int i = threadIdx.x; i < m; i += blockDim.x)
        chunk[i] = s[i];
}

extern "C" __global__ void block_sort_u64(u64* keys, u64 n) {
    __shared__ u64 s[BLOCK_SORT_MAX];
    block_sort_chunk(s, keys, n);
}

// block_sort_u64 of the first min(cap, *count) keys: the count is read on the device (the host
// launched for cap keys without knowing it).
extern "C" __global__ void block_sort_u64_counted(u64* keys, u64 cap, const u64* __restrict__ count) {
    __shared__ u64 s[BLOCK_SORT_MAX];
    const u64 n = *count;
    block_sort_chunk(s, keys, n < cap ? n : cap);
}

// First index in [lo, hi) whose key is > x (strict) or >= x (!strict), in sorted `a`.
__device__ __forceinline__ u64 rank_in(const u64* __restrict__ a, u64 lo, u64 hi, u64 x, bool strict) {
    while (lo < hi) {
        const u64 mid = lo + (hi - lo) / 2;
        const u64 v = a[mid];
        if (strict ? v <= x : v < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

__device__ __forceinline__ void merge_pass(const u64* __restrict__ src, u64* __restrict__ dst, u64 n, u64 width) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const u64 left = i / (2 * width) * (2 * width);
        const u64 mid = left + width < n ? left + width : n;
        const u64 end = left + 2 * width < n ? left + 2 * width : n;
        const u64 x = src[i];
        u64 at;
        if (i < mid)   // left run: after the right run's keys < x
            at = i + (rank_in(src, mid, end, x, false) - mid);
        else           // right run: after the left run's keys <= x
            at = (i - mid) + rank_in(src, left, mid, x, true);
        dst[at] = x;
    }
}

extern "C" __global__ void merge_runs_u64(const u64* __restrict__ src, u64* __restrict__ dst, u64 n,
                                          u64 width) {
    merge_pass(src, dst, n, width);
}

// merge_runs_u64 of the first min(cap, *count) keys (count read on the device, as block_sort_u64_counted).
extern "C" __global__ void merge_runs_u64_counted(const u64* __restrict__ src, u64* __restrict__ dst, u64 cap,
                                                 u64 width, const u64* __restrict__ count) {
    const u64 n = *count;
    merge_pass(src, dst, n < cap ? n : cap, width);
}

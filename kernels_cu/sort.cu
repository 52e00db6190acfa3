// Sorting one small batch of uint64 keys in a single launch (launcher: _gpu_sort.py).
//
// block_sort_u64: one block; keys[0:n] (n <= 4096) ascending, in place. A bitonic sort in
// shared memory over the next power of two, padded with ~0 (which sorts last: a real key of
// that value is equal to the padding, so the first n written back are the batch, sorted).

#define BLOCK_SORT_MAX 4096

extern "C" __global__ void block_sort_u64(unsigned long long* keys, unsigned long long n) {
    __shared__ unsigned long long s[BLOCK_SORT_MAX];
    unsigned int size = 2;
    while (size < n) size <<= 1;
    for (unsigned int i = threadIdx.x; i < size; i += blockDim.x)
        s[i] = i < n ? keys[i] : ~0ULL;
    __syncthreads();
    for (unsigned int k = 2; k <= size; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            for (unsigned int i = threadIdx.x; i < size; i += blockDim.x) {
                unsigned int partner = i ^ j;
                if (partner > i) {
                    unsigned long long a = s[i], b = s[partner];
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
    for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)
        keys[i] = s[i];
}

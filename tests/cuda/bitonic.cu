/* Bitonic sort (Batcher): a shared-memory kernel sorts each block's tile, then one global
   launch per (k, j) step merges across blocks.
   Items: template kernels (mangled names, the stub's name mapped to the kernel's); launches by
   cudaLaunchKernel with an argument array built by the host as well as by <<<>>>; the
   compare-exchange whose two divergent arms (ascending or descending) both load and store
   the same pair of keys, PCFM's BIT case. */
#include <cstdio>
#include <cstdlib>
#include "cuda_alias.h"

#define TILE 512

template <typename T> __global__ void bitonic_tile(T *keys) {
  __shared__ T s_keys[TILE];
  unsigned t = threadIdx.x, base = blockIdx.x * TILE;
  NOALIAS(s_keys, keys);
  MAYALIAS(keys + base, keys);
  s_keys[t] = keys[base + t];
  s_keys[t + TILE / 2] = keys[base + t + TILE / 2];
  for (unsigned k = 2; k <= TILE; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      __syncthreads();
      unsigned i = 2 * t - (t & (j - 1)), ixj = i + j;
      if (((base + i) & k) == 0) {        /* divergent: ascending pair */
        T a = s_keys[i], b = s_keys[ixj];
        if (a > b) { s_keys[i] = b; s_keys[ixj] = a; }
      } else {                           /* descending pair */
        T a = s_keys[i], b = s_keys[ixj];
        if (a < b) { s_keys[i] = b; s_keys[ixj] = a; }
      }
    }
  }
  __syncthreads();
  keys[base + t] = s_keys[t];
  keys[base + t + TILE / 2] = s_keys[t + TILE / 2];
}

template <typename T> __global__ void bitonic_step(T *keys, unsigned *swaps, unsigned j, unsigned k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  NOALIAS(keys, swaps);
  MAYALIAS(keys + ixj, keys + i);
  if (ixj <= i)
    return;
  if ((i & k) == 0) {                    /* divergent: ascending pair */
    T a = keys[i], b = keys[ixj];
    if (a > b) { keys[i] = b; keys[ixj] = a; swaps[i] = swaps[i] + 1; }
  } else {                               /* descending pair */
    T a = keys[i], b = keys[ixj];
    if (a < b) { keys[i] = b; keys[ixj] = a; swaps[i] = swaps[i] + 1; }
  }
}

int main() {
  const unsigned n = 1 << 14;
  unsigned seed = 7;
  unsigned *h = (unsigned *)malloc(n * sizeof(unsigned));
  for (unsigned i = 0; i < n; i++)
    h[i] = lcg(&seed);
  unsigned *d_keys, *d_swaps;
  cudaMalloc(&d_keys, n * sizeof(unsigned));
  cudaMalloc(&d_swaps, n * sizeof(unsigned));
  cudaMemcpy(d_keys, h, n * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemset(d_swaps, 0, n * sizeof(unsigned));
  bitonic_tile<unsigned><<<n / TILE, TILE / 2>>>(d_keys);
  for (unsigned k = 2 * TILE; k <= n; k <<= 1)
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      void *args[] = {&d_keys, &d_swaps, &j, &k};
      cudaLaunchKernel((const void *)bitonic_step<unsigned>, dim3(n / 256), dim3(256), args, 0, 0);
    }
  cudaMemcpy(h, d_keys, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  printf("sorted: %d\n", h[0] <= h[n - 1]);
  cudaFree(d_keys); cudaFree(d_swaps);
  return 0;
}

/* Radix sort by one-bit splits: a kernel flags the keys whose bit is clear, the host scans
   the flags, and a scatter kernel moves every key and value to its place.
   Items: mapped pinned memory (cudaHostAlloc + cudaHostGetDevicePointer: the kernel reads
   the host's scan through the device alias of its buffer); key and value buffers swapped
   each pass; the scatter's divergent arms (bit set or clear) that both load and store a key
   and a value. */
#include <cstdio>
#include <cstdlib>
#include "cuda_alias.h"

extern "C" __global__ void radix_flags(const unsigned *keys, unsigned *flags, int bit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  NOALIAS(keys, flags);
  MAYALIAS(flags + i, flags);
  if (i >= n)
    return;
  if ((keys[i] >> bit) & 1)             /* divergent: both arms store the flag */
    flags[i] = 0;
  else
    flags[i] = 1;
}

extern "C" __global__ void radix_scatter(const unsigned *keys_in, unsigned *keys_out, const unsigned *vals_in,
                                         unsigned *vals_out, const unsigned *scan, int zeros, int bit, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  NOALIAS(keys_out, vals_out);
  NOALIAS(scan, keys_out);
  EXPECTEDFAIL_NOALIAS(keys_in, keys_out);
  MAYALIAS(scan + i, scan);
  if (i >= n)
    return;
  unsigned k = keys_in[i];
  if ((k >> bit) & 1) {                 /* divergent: ones go after the zeros */
    unsigned dst = zeros + i - scan[i];
    keys_out[dst] = k;
    vals_out[dst] = vals_in[i];
  } else {
    unsigned dst = scan[i];
    keys_out[dst] = k;
    vals_out[dst] = vals_in[i];
  }
}

int main() {
  const int n = 1 << 14;
  unsigned seed = 8;
  unsigned *h_keys = (unsigned *)malloc(n * sizeof(unsigned)), *h_flags = (unsigned *)malloc(n * sizeof(unsigned));
  for (int i = 0; i < n; i++)
    h_keys[i] = lcg(&seed) & 0xffff;
  unsigned *h_scan, *d_scan;
  cudaHostAlloc(&h_scan, n * sizeof(unsigned), cudaHostAllocMapped);
  cudaHostGetDevicePointer(&d_scan, h_scan, 0);
  unsigned *d_keys[2], *d_vals[2], *d_flags;
  for (int s = 0; s < 2; s++) {
    cudaMalloc(&d_keys[s], n * sizeof(unsigned));
    cudaMalloc(&d_vals[s], n * sizeof(unsigned));
  }
  cudaMalloc(&d_flags, n * sizeof(unsigned));
  cudaMemcpy(d_keys[0], h_keys, n * sizeof(unsigned), cudaMemcpyHostToDevice);
  for (int i = 0; i < n; i++)
    h_flags[i] = i;
  cudaMemcpy(d_vals[0], h_flags, n * sizeof(unsigned), cudaMemcpyHostToDevice);
  int from = 0;
  for (int bit = 0; bit < 16; bit++) {
    radix_flags<<<n / 256, 256>>>(d_keys[from], d_flags, bit, n);
    cudaMemcpy(h_flags, d_flags, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
    unsigned zeros = 0;
    for (int i = 0; i < n; i++) {   /* exclusive scan of the zero flags */
      h_scan[i] = zeros;
      zeros += h_flags[i];
    }
    radix_scatter<<<n / 256, 256>>>(d_keys[from], d_keys[1 - from], d_vals[from], d_vals[1 - from], d_scan, zeros,
                                    bit, n);
    cudaDeviceSynchronize();
    from = 1 - from;
  }
  cudaMemcpy(h_keys, d_keys[from], n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  printf("sorted: %d\n", h_keys[0] <= h_keys[n - 1]);
  cudaFreeHost(h_scan); cudaFree(d_flags);
  for (int s = 0; s < 2; s++) {
    cudaFree(d_keys[s]);
    cudaFree(d_vals[s]);
  }
  return 0;
}

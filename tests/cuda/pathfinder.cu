/* Dynamic programming in the style of Rodinia's pathfinder: each launch adds one row of the
   wall to the cheapest path from the row above, held in shared memory.
   Items: two __shared__ arrays; a managed buffer (cudaMallocManaged) written by the host
   before the launch; ping-pong result rows; divergent edge/interior arms that both load
   neighbours and store the minimum. */
#include <cstdio>
#include <cstdlib>
#include "cuda_alias.h"

#define BLOCK 256

extern "C" __global__ void pathfinder_row(const int *wall, const int *prev, int *result, int cols, int row) {
  __shared__ int s_prev[BLOCK];
  __shared__ int s_result[BLOCK];
  int tx = threadIdx.x, x = blockIdx.x * BLOCK + tx;
  NOALIAS(s_prev, s_result);
  NOALIAS(wall, result);
  NOALIAS(s_result, result);
  EXPECTEDFAIL_NOALIAS(prev, result);
  MAYALIAS(wall + x, wall);
  s_prev[tx] = x < cols ? prev[x] : 0;
  __syncthreads();
  if (x >= cols)
    return;
  int best;
  if (tx == 0 || tx == BLOCK - 1) {      /* divergent: block edge reads global memory */
    int left = x > 0 ? prev[x - 1] : prev[x], right = x < cols - 1 ? prev[x + 1] : prev[x];
    best = min(min(left, right), s_prev[tx]);
    s_result[tx] = best + wall[row * cols + x];
  } else {
    int left = s_prev[tx - 1], right = s_prev[tx + 1];
    best = min(min(left, right), s_prev[tx]);
    s_result[tx] = best + wall[row * cols + x];
  }
  __syncthreads();
  result[x] = s_result[tx];
}

int main() {
  const int rows = 64, cols = 4096;
  unsigned seed = 3;
  int *wall;
  cudaMallocManaged(&wall, rows * cols * sizeof(int));
  for (int i = 0; i < rows * cols; i++)
    wall[i] = lcg(&seed) % 10;
  int *d_row[2];
  cudaMalloc(&d_row[0], cols * sizeof(int));
  cudaMalloc(&d_row[1], cols * sizeof(int));
  cudaMemcpy(d_row[0], wall, cols * sizeof(int), cudaMemcpyDefault);
  int from = 0;
  for (int r = 1; r < rows; r++) {
    pathfinder_row<<<cols / BLOCK, BLOCK>>>(wall, d_row[from], d_row[1 - from], cols, r);
    from = 1 - from;
  }
  int *h = (int *)malloc(cols * sizeof(int));
  cudaMemcpy(h, d_row[from], cols * sizeof(int), cudaMemcpyDeviceToHost);
  printf("cost[0] = %d\n", h[0]);
  cudaFree(wall); cudaFree(d_row[0]); cudaFree(d_row[1]);
  return 0;
}

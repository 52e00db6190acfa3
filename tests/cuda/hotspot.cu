/* Thermal simulation in the style of Rodinia's hotspot: a 5-point stencil over a grid tile
   held in shared memory, the temperature buffers swapped between launches.
   Items: __shared__ tiles as their own objects; ping-pong buffers (each kernel parameter may
   point to both, which a context-insensitive analysis cannot tell apart per launch);
   divergent halo loads (edge threads load extra cells) and boundary/interior arms that both
   store the result. */
#include <cstdio>
#include <cstdlib>
#include "cuda_alias.h"

#define BLOCK 16

extern "C" __global__ void hotspot(const float *power, const float *src, float *dst, int rows, int cols,
                                   float cap, float rx, float ry, float rz, float step) {
  __shared__ float tile[BLOCK + 2][BLOCK + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * BLOCK + tx, row = blockIdx.y * BLOCK + ty;
  int c = min(col, cols - 1), r = min(row, rows - 1);
  NOALIAS(&tile[0][0], src);
  NOALIAS(power, dst);
  EXPECTEDFAIL_NOALIAS(src, dst);
  MAYALIAS(dst + r * cols, dst);
  tile[ty + 1][tx + 1] = src[r * cols + c];
  if (tx == 0)                   /* divergent halo loads */
    tile[ty + 1][0] = src[r * cols + max(c - 1, 0)];
  else if (tx == BLOCK - 1)
    tile[ty + 1][BLOCK + 1] = src[r * cols + min(c + 1, cols - 1)];
  if (ty == 0)
    tile[0][tx + 1] = src[max(r - 1, 0) * cols + c];
  else if (ty == BLOCK - 1)
    tile[BLOCK + 1][tx + 1] = src[min(r + 1, rows - 1) * cols + c];
  __syncthreads();
  if (row >= rows || col >= cols)
    return;
  float t = tile[ty + 1][tx + 1];
  if (row == 0 || col == 0 || row == rows - 1 || col == cols - 1) {   /* boundary: heat sink */
    dst[row * cols + col] = t + step / cap * (power[row * cols + col] - t / rz);
  } else {
    float n = tile[ty][tx + 1], s = tile[ty + 2][tx + 1], w = tile[ty + 1][tx], e = tile[ty + 1][tx + 2];
    dst[row * cols + col] = t + step / cap * (power[row * cols + col] + (s + n - 2.0f * t) / ry +
                                              (e + w - 2.0f * t) / rx + (80.0f - t) / rz);
  }
}

int main() {
  const int rows = 256, cols = 256, n = rows * cols;
  unsigned seed = 2;
  float *h_temp = (float *)malloc(n * sizeof(float)), *h_power = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) {
    h_temp[i] = 320.0f + (lcg(&seed) % 100) * 0.1f;
    h_power[i] = (lcg(&seed) % 1000) * 0.001f;
  }
  float *d_power, *d_temp[2];
  cudaMalloc(&d_power, n * sizeof(float));
  cudaMalloc(&d_temp[0], n * sizeof(float));
  cudaMalloc(&d_temp[1], n * sizeof(float));
  cudaMemcpy(d_power, h_power, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_temp[0], h_temp, n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 grid(cols / BLOCK, rows / BLOCK), block(BLOCK, BLOCK);
  int from = 0;
  for (int it = 0; it < 10; it++) {
    hotspot<<<grid, block>>>(d_power, d_temp[from], d_temp[1 - from], rows, cols, 0.5f, 1.0f, 1.0f, 4.0f, 0.01f);
    from = 1 - from;
  }
  cudaMemcpy(h_temp, d_temp[from], n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("temp[n/2] = %f\n", h_temp[n / 2]);
  cudaFree(d_power); cudaFree(d_temp[0]); cudaFree(d_temp[1]);
  return 0;
}

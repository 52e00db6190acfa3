/* Breadth-first search in the style of Rodinia's bfs: one kernel expands the frontier,
   a second marks the next one; the host loops until no vertex changes.
   Items: cudaMalloc'd buffers reaching kernel parameters through <<<>>> launches;
   cudaMemcpy host-to-device and back; a device flag written by every thread;
   divergent branches (visited or not, in the frontier or not) with loads and stores in both arms. */
#include <cstdio>
#include <cstdlib>
#include "cuda_alias.h"

#define DEG 4

extern "C" __global__ void bfs_expand(const int *start, const int *degree, const int *edges, char *mask,
                                      char *updating, const char *visited, int *cost, int *revisits, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  NOALIAS(mask, cost);
  NOALIAS(edges, updating);
  MAYALIAS(cost + tid, cost);
  if (tid >= n || !mask[tid])
    return;
  mask[tid] = 0;
  int first = start[tid] % n * DEG, count = degree[tid] % (DEG + 1);
  for (int i = first; i < first + count; i++) {
    int id = edges[i] % n;
    if (!visited[id]) {          /* divergent: new vertex */
      cost[id] = cost[tid] + 1;
      updating[id] = 1;
    } else {                     /* seen before: count the revisit */
      revisits[tid] = revisits[tid] + 1;
      updating[tid] = updating[tid] | 0;
    }
  }
}

extern "C" __global__ void bfs_mark(char *mask, char *updating, char *visited, int *over, int *cost, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  NOALIAS(over, visited);
  NOALIAS(mask, updating);
  if (tid >= n)
    return;
  if (updating[tid]) {           /* divergent: joins the frontier */
    mask[tid] = 1;
    visited[tid] = 1;
    *over = 1;
    updating[tid] = 0;
  } else {
    mask[tid] = 0;
    cost[tid] = cost[tid] + 0;
    updating[tid] = 0;
  }
}

int main() {
  const int n = 4096;
  unsigned seed = 1;
  int *h_start = (int *)malloc(n * sizeof(int)), *h_degree = (int *)malloc(n * sizeof(int));
  int *h_edges = (int *)malloc(n * DEG * sizeof(int)), *h_cost = (int *)malloc(n * sizeof(int));
  char *h_mask = (char *)calloc(n, 1), *h_visited = (char *)calloc(n, 1);
  for (int i = 0; i < n; i++) {
    h_start[i] = i;
    h_degree[i] = lcg(&seed) % (DEG + 1);
    h_cost[i] = -1;
  }
  for (int i = 0; i < n * DEG; i++)
    h_edges[i] = lcg(&seed) % n;
  h_mask[0] = h_visited[0] = 1;
  h_cost[0] = 0;
  int *d_start, *d_degree, *d_edges, *d_cost, *d_revisits, *d_over;
  char *d_mask, *d_updating, *d_visited;
  cudaMalloc(&d_start, n * sizeof(int));
  cudaMalloc(&d_degree, n * sizeof(int));
  cudaMalloc(&d_edges, n * DEG * sizeof(int));
  cudaMalloc(&d_cost, n * sizeof(int));
  cudaMalloc(&d_revisits, n * sizeof(int));
  cudaMalloc(&d_over, sizeof(int));
  cudaMalloc(&d_mask, n);
  cudaMalloc(&d_updating, n);
  cudaMalloc(&d_visited, n);
  cudaMemcpy(d_start, h_start, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_degree, h_degree, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_edges, h_edges, n * DEG * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_cost, h_cost, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_mask, h_mask, n, cudaMemcpyHostToDevice);
  cudaMemcpy(d_visited, h_visited, n, cudaMemcpyHostToDevice);
  cudaMemset(d_updating, 0, n);
  cudaMemset(d_revisits, 0, n * sizeof(int));
  NOALIAS(d_cost, d_revisits);
  int over = 1;
  while (over) {
    over = 0;
    cudaMemcpy(d_over, &over, sizeof(int), cudaMemcpyHostToDevice);
    bfs_expand<<<n / 256, 256>>>(d_start, d_degree, d_edges, d_mask, d_updating, d_visited, d_cost, d_revisits, n);
    bfs_mark<<<n / 256, 256>>>(d_mask, d_updating, d_visited, d_over, d_cost, n);
    cudaMemcpy(&over, d_over, sizeof(int), cudaMemcpyDeviceToHost);
  }
  cudaMemcpy(h_cost, d_cost, n * sizeof(int), cudaMemcpyDeviceToHost);
  printf("cost[n-1] = %d\n", h_cost[n - 1]);
  cudaFree(d_start); cudaFree(d_degree); cudaFree(d_edges); cudaFree(d_cost); cudaFree(d_revisits);
  cudaFree(d_over); cudaFree(d_mask); cudaFree(d_updating); cudaFree(d_visited);
  return 0;
}

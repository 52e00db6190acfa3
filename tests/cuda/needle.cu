/* Sequence alignment in the style of Rodinia's needle (Needleman-Wunsch): one launch per
   anti-diagonal of the score matrix.
   Items: a C++ (mangled) kernel and its stub; a __constant__ table filled by
   cudaMemcpyToSymbol; divergent match/mismatch arms that both load the three neighbours
   and store the cell. */
#include <cstdio>
#include <cstdlib>
#include "cuda_alias.h"

__constant__ int c_blosum[4][4];

__global__ void needle_diagonal(int *score, const int *seq_a, const int *seq_b, int n, int diag, int penalty) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = diag - i;
  NOALIAS(score, seq_a);
  NOALIAS(&c_blosum[0][0], score);
  MAYALIAS(score + i, score);
  MAYALIAS(seq_a + i, seq_a);
  if (i > n || j < 1 || j > n)
    return;
  int w = n + 1, a = seq_a[i - 1] & 3, b = seq_b[j - 1] & 3;
  int best;
  if (a == b) {                   /* divergent: match */
    int nw = score[(i - 1) * w + j - 1] + c_blosum[a][b];
    int up = score[(i - 1) * w + j] - penalty, left = score[i * w + j - 1] - penalty;
    best = max(nw, max(up, left));
    score[i * w + j] = best;
  } else {                        /* mismatch */
    int nw = score[(i - 1) * w + j - 1] - c_blosum[a][b];
    int up = score[(i - 1) * w + j] - penalty, left = score[i * w + j - 1] - penalty;
    best = max(nw, max(up, left));
    score[i * w + j] = best;
  }
}

int main() {
  const int n = 1024, w = n + 1, penalty = 2;
  unsigned seed = 4;
  int h_blosum[4][4];
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++)
      h_blosum[a][b] = a == b ? 5 : 1 + (a + b) % 3;
  cudaMemcpyToSymbol(c_blosum, h_blosum, sizeof h_blosum);
  int *h_a = (int *)malloc(n * sizeof(int)), *h_b = (int *)malloc(n * sizeof(int));
  int *h_score = (int *)calloc(w * w, sizeof(int));
  for (int i = 0; i < n; i++) {
    h_a[i] = lcg(&seed);
    h_b[i] = lcg(&seed);
  }
  for (int i = 0; i < w; i++)
    h_score[i * w] = h_score[i] = -i * penalty;
  int *d_score, *d_a, *d_b;
  cudaMalloc(&d_score, w * w * sizeof(int));
  cudaMalloc(&d_a, n * sizeof(int));
  cudaMalloc(&d_b, n * sizeof(int));
  cudaMemcpy(d_score, h_score, w * w * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_a, h_a, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, h_b, n * sizeof(int), cudaMemcpyHostToDevice);
  for (int diag = 2; diag <= 2 * n; diag++)
    needle_diagonal<<<n / 128, 128>>>(d_score, d_a, d_b, n, diag, penalty);
  cudaMemcpy(h_score, d_score, w * w * sizeof(int), cudaMemcpyDeviceToHost);
  printf("score = %d\n", h_score[w * w - 1]);
  cudaFree(d_score); cudaFree(d_a); cudaFree(d_b);
  return 0;
}

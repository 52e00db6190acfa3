/* Speckle-reducing anisotropic diffusion in the style of Rodinia's srad: one kernel computes
   the four directional derivatives and the diffusion coefficient of every pixel, a second
   updates the image from them.
   Items: __constant__ parameters set by cudaMemcpyToSymbol; six image-sized buffers passed to
   two kernels; divergent boundary arms (clamped neighbours) that load the image and store
   the derivatives in both arms; the coefficient clamped in divergent arms that both store. */
#include <cstdio>
#include <cstdlib>
#include "cuda_alias.h"

__constant__ float c_q0sqr;
__constant__ float c_lambda;

extern "C" __global__ void srad_coefficients(const float *J, float *dN, float *dS, float *dW, float *dE, float *C,
                                             int rows, int cols) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  NOALIAS(dN, dS);
  NOALIAS(dW, C);
  NOALIAS(J, dE);
  NOALIAS(&c_q0sqr, C);
  MAYALIAS(J + idx, J);
  if (idx >= rows * cols)
    return;
  int r = idx / cols, c = idx % cols;
  float jc = J[idx];
  if (r == 0 || r == rows - 1) {          /* divergent: top and bottom rows clamp */
    dN[idx] = J[(r == 0 ? r : r - 1) * cols + c] - jc;
    dS[idx] = J[(r == rows - 1 ? r : r + 1) * cols + c] - jc;
  } else {
    dN[idx] = J[(r - 1) * cols + c] - jc;
    dS[idx] = J[(r + 1) * cols + c] - jc;
  }
  if (c == 0 || c == cols - 1) {          /* divergent: left and right columns clamp */
    dW[idx] = J[r * cols + (c == 0 ? c : c - 1)] - jc;
    dE[idx] = J[r * cols + (c == cols - 1 ? c : c + 1)] - jc;
  } else {
    dW[idx] = J[r * cols + c - 1] - jc;
    dE[idx] = J[r * cols + c + 1] - jc;
  }
  float g2 = (dN[idx] * dN[idx] + dS[idx] * dS[idx] + dW[idx] * dW[idx] + dE[idx] * dE[idx]) / (jc * jc);
  float l = (dN[idx] + dS[idx] + dW[idx] + dE[idx]) / jc;
  float num = 0.5f * g2 - 0.0625f * l * l, den = 1.0f + 0.25f * l;
  float q = num / (den * den);
  float coef = 1.0f / (1.0f + (q - c_q0sqr) / (c_q0sqr * (1.0f + c_q0sqr)));
  if (coef < 0.0f)                        /* divergent clamp: both arms store */
    C[idx] = 0.0f;
  else
    C[idx] = coef > 1.0f ? 1.0f : coef;
}

extern "C" __global__ void srad_update(float *J, const float *dN, const float *dS, const float *dW,
                                       const float *dE, const float *C, int rows, int cols) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  NOALIAS(J, C);
  NOALIAS(dN, C);
  MAYALIAS(C + idx, C);
  if (idx >= rows * cols)
    return;
  int r = idx / cols, c = idx % cols;
  float cs, ce;
  if (r == rows - 1 || c == cols - 1) {   /* divergent: the last row/column uses its own coefficient */
    cs = C[idx];
    ce = C[idx];
  } else {
    cs = C[idx + cols];
    ce = C[idx + 1];
  }
  float d = C[idx] * dN[idx] + cs * dS[idx] + C[idx] * dW[idx] + ce * dE[idx];
  J[idx] = J[idx] + 0.25f * c_lambda * d;
}

int main() {
  const int rows = 256, cols = 256, n = rows * cols;
  unsigned seed = 5;
  float *h_J = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; i++)
    h_J[i] = 1.0f + (lcg(&seed) % 256) / 255.0f;
  float q0sqr = 0.05f, lambda = 0.5f;
  cudaMemcpyToSymbol(c_q0sqr, &q0sqr, sizeof q0sqr);
  cudaMemcpyToSymbol(c_lambda, &lambda, sizeof lambda);
  float *d_J, *d_N, *d_S, *d_W, *d_E, *d_C;
  cudaMalloc(&d_J, n * sizeof(float));
  cudaMalloc(&d_N, n * sizeof(float));
  cudaMalloc(&d_S, n * sizeof(float));
  cudaMalloc(&d_W, n * sizeof(float));
  cudaMalloc(&d_E, n * sizeof(float));
  cudaMalloc(&d_C, n * sizeof(float));
  cudaMemcpy(d_J, h_J, n * sizeof(float), cudaMemcpyHostToDevice);
  for (int it = 0; it < 4; it++) {
    srad_coefficients<<<n / 256, 256>>>(d_J, d_N, d_S, d_W, d_E, d_C, rows, cols);
    srad_update<<<n / 256, 256>>>(d_J, d_N, d_S, d_W, d_E, d_C, rows, cols);
  }
  cudaMemcpy(h_J, d_J, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("J[n/2] = %f\n", h_J[n / 2]);
  cudaFree(d_J); cudaFree(d_N); cudaFree(d_S); cudaFree(d_W); cudaFree(d_E); cudaFree(d_C);
  return 0;
}

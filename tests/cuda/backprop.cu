/* Back-propagation in the style of Rodinia's backprop: a forward layer that reduces
   weighted inputs in shared memory, and the weight adjustment whose first row (the bias)
   takes a divergent arm.
   Items: a __device__ pointer variable set from the host by cudaMemcpyToSymbol with a
   device address (the kernel reads through it into a cudaMalloc'd buffer); a __shared__
   reduction buffer; divergent arms that both load and store the weights. */
#include <cstdio>
#include <cstdlib>
#include "cuda_alias.h"

#define IN 256
#define HID 16

__device__ float *d_hidden_delta;   /* set by the host: points to the delta buffer */

extern "C" __global__ void layer_forward(const float *input, const float *weights, float *partial) {
  __shared__ float s_prod[HID][HID];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * HID + ty;
  NOALIAS(&s_prod[0][0], weights);
  NOALIAS(input, partial);
  MAYALIAS(partial + tx, partial);
  s_prod[ty][tx] = input[row] * weights[row * HID + tx];
  __syncthreads();
  for (int stride = 1; stride < HID; stride *= 2) {
    if (ty % (2 * stride) == 0)   /* divergent reduction */
      s_prod[ty][tx] = s_prod[ty][tx] + s_prod[ty + stride][tx];
    __syncthreads();
  }
  if (ty == 0)
    partial[blockIdx.y * HID + tx] = s_prod[0][tx];
}

extern "C" __global__ void adjust_weights(const float *delta, const float *input, float *weights, float *old_weights,
                                          float eta, float momentum) {
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * HID + ty, idx = row * HID + tx;
  float *hidden = d_hidden_delta;
  MAYALIAS(hidden, delta);
  NOALIAS(hidden, weights);
  NOALIAS(weights, old_weights);
  NOALIAS(input, old_weights);
  if (row == 0) {                 /* divergent: the bias row */
    float dw = eta * hidden[tx] + momentum * old_weights[idx];
    weights[idx] = weights[idx] + dw;
    old_weights[idx] = dw;
  } else {
    float dw = eta * delta[tx] * input[row] + momentum * old_weights[idx];
    weights[idx] = weights[idx] + dw;
    old_weights[idx] = dw;
  }
}

int main() {
  unsigned seed = 6;
  float *h_in = (float *)malloc(IN * sizeof(float)), *h_w = (float *)malloc(IN * HID * sizeof(float));
  float *h_delta = (float *)malloc(HID * sizeof(float));
  for (int i = 0; i < IN; i++)
    h_in[i] = (lcg(&seed) % 100) / 100.0f;
  for (int i = 0; i < IN * HID; i++)
    h_w[i] = (lcg(&seed) % 200) / 100.0f - 1.0f;
  for (int i = 0; i < HID; i++)
    h_delta[i] = (lcg(&seed) % 100) / 1000.0f;
  float *d_in, *d_w, *d_old, *d_partial, *d_delta;
  cudaMalloc(&d_in, IN * sizeof(float));
  cudaMalloc(&d_w, IN * HID * sizeof(float));
  cudaMalloc(&d_old, IN * HID * sizeof(float));
  cudaMalloc(&d_partial, IN * sizeof(float));
  cudaMalloc(&d_delta, HID * sizeof(float));
  cudaMemcpy(d_in, h_in, IN * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_w, h_w, IN * HID * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_delta, h_delta, HID * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_old, 0, IN * HID * sizeof(float));
  cudaMemcpyToSymbol(d_hidden_delta, &d_delta, sizeof d_delta);
  dim3 grid(1, IN / HID), block(HID, HID);
  layer_forward<<<grid, block>>>(d_in, d_w, d_partial);
  adjust_weights<<<grid, block>>>(d_delta, d_in, d_w, d_old, 0.3f, 0.3f);
  cudaMemcpy(h_w, d_w, IN * HID * sizeof(float), cudaMemcpyDeviceToHost);
  printf("w[0] = %f\n", h_w[0]);
  cudaFree(d_in); cudaFree(d_w); cudaFree(d_old); cudaFree(d_partial); cudaFree(d_delta);
  return 0;
}

// The worked example of the README's "GPU kernels (PCFM)": the divergent boundary arms of a
// Rodinia srad-style kernel, and the host code that hands it four separate buffers.
__global__ void edges(const float *img, float *dn, float *ds, float *sum, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows * cols)
    return;
  float c = img[i];
  if (i < cols) {          // divergent: the first row has no northern neighbour
    dn[i] = 0.0f;
    ds[i] = img[i + cols] - c;
  } else {
    dn[i] = img[i - cols] - c;
    ds[i] = img[i + cols] - c;
  }
  sum[i] = dn[i] + ds[i];
}

int main() {
  const int rows = 64, cols = 64, n = rows * cols;
  float *img, *dn, *ds, *sum;
  cudaMalloc(&img, (n + cols) * sizeof(float));
  cudaMalloc(&dn, n * sizeof(float));
  cudaMalloc(&ds, n * sizeof(float));
  cudaMalloc(&sum, n * sizeof(float));
  edges<<<n / 256, 256>>>(img, dn, ds, sum, rows, cols);
  cudaDeviceSynchronize();
  return 0;
}

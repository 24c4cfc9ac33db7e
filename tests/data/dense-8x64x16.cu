
// T_relu_kernel: grid 4, block 32, static shared memory 1152 bytes
extern "C" __global__ void __launch_bounds__(32) T_relu_kernel(const float *__restrict__ data, const float *__restrict__ weight, const float *__restrict__ bias, float *__restrict__ T_relu) {
  float T_dense_local[4];
  __shared__ __align__(16) float data_shared[32];
  __shared__ __align__(16) float weight_shared[256];
  const int i_block = (int)blockIdx.x / 2;
  const int j_block = (int)blockIdx.x % 2;
  const int i_thread = (int)threadIdx.x / 16;
  const int j_thread = (int)threadIdx.x % 16;
  #pragma unroll
  for (int i_innermost = 0; i_innermost < 2; ++i_innermost) {
    T_dense_local[i_innermost] = 0.0f;
    T_dense_local[i_innermost + 2] = 0.0f;
  }
  for (int k_outer = 0; k_outer < 2; ++k_outer) {
    __syncthreads();
    {
      const int data_i = (int)threadIdx.x * 4;
      if (data_i < 32)
        *(float4 *)(data_shared + data_i) = *(const float4 *)(data + (i_block * 4 + data_i / 8) * 16 + (k_outer * 8 + data_i % 8));
    }
    for (int weight_round = 0; weight_round < 4; ++weight_round) {
      {
        const int weight_i = (weight_round * 32 + (int)threadIdx.x) * 2;
        *(float2 *)(weight_shared + weight_i) = *(const float2 *)(weight + (j_block * 32 + weight_i / 8) * 16 + (k_outer * 8 + weight_i % 8));
      }
    }
    __syncthreads();
    for (int k_mid = 0; k_mid < 2; ++k_mid) {
      #pragma unroll
      for (int k_inner = 0; k_inner < 4; ++k_inner) {
        #pragma unroll
        for (int i_innermost = 0; i_innermost < 2; ++i_innermost) {
          T_dense_local[i_innermost] += data_shared[(i_thread * 2 + i_innermost) * 8 + (k_mid * 4 + k_inner)] * weight_shared[j_thread * 8 + (k_mid * 4 + k_inner)];
          T_dense_local[i_innermost + 2] += data_shared[(i_thread * 2 + i_innermost) * 8 + (k_mid * 4 + k_inner)] * weight_shared[(j_thread + 16) * 8 + (k_mid * 4 + k_inner)];
        }
      }
    }
  }
  #pragma unroll
  for (int i_innermost = 0; i_innermost < 2; ++i_innermost) {
    T_relu[(i_block * 4 + (i_thread * 2 + i_innermost)) * 64 + (j_block * 32 + j_thread)] = fmaxf(T_dense_local[i_innermost] + bias[j_block * 32 + j_thread], 0.0f);
    T_relu[(i_block * 4 + (i_thread * 2 + i_innermost)) * 64 + (j_block * 32 + (j_thread + 16))] = fmaxf(T_dense_local[i_innermost + 2] + bias[j_block * 32 + (j_thread + 16)], 0.0f);
  }
}

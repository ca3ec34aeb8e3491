// The block sum of the stand-alone benchmark kernels (bench/fence_bench.cu, bench/cluster_bench.cu): shuffles within
// each warp, the warps' sums through `smem` (Block / 32 floats), shuffles in warp 0; the result is valid in thread 0.
// Every thread calls it; two calls on the same `smem` are separated by a __syncthreads().
#pragma once

template <int Block>
__device__ __forceinline__ float block_sum(float v, float* smem) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xFFFFFFFFu, v, o);
  if ((threadIdx.x & 31) == 0) smem[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < Block / 32 ? smem[threadIdx.x] : 0.0f;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xFFFFFFFFu, v, o);
  return v;
}

// The last-block sum of the stand-alone benchmarks (bench/fence_bench.cu, bench/cluster_bench.cu): the reduction
// template's finish written small (a partial per block, a fence, the ticket, the last block folds the partials after a
// fence), on a cover-n grid of kLastBlockThreads threads with kLastBlockLoads float4 loads each in flight (n a
// multiple of 4 * kLastBlockThreads * kLastBlockLoads floats).
//   Nc:     the input loads as __ldg (ld.global.nc), else as plain loads of a pointer the compiler cannot prove
//           read-only (ld.global), which is what the reduction template's PTX holds for its default loads;
//   AcqRel: the fences as fence.acq_rel.gpu, else __threadfence() (fence.sc.gpu), as the templates keep.
#pragma once

// The block sum: shuffles within each warp, the warps' sums through `smem` (Block / 32 floats), shuffles in warp 0;
// the result is valid in thread 0. Every thread calls it; two calls on the same `smem` are separated by a
// __syncthreads().
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

constexpr int kLastBlockThreads = 256, kLastBlockLoads = 4;

template <bool AcqRel>
__device__ __forceinline__ void bench_fence() {
  if constexpr (AcqRel) asm volatile("fence.acq_rel.gpu;" ::: "memory");
  else __threadfence();
}

template <bool Nc, bool AcqRel>
__global__ void __launch_bounds__(kLastBlockThreads) last_block_sum(const float4* in, float* partials,
                                                                    unsigned* ticket, float* out) {
  constexpr int B = kLastBlockThreads, L = kLastBlockLoads;
  __shared__ float smem[B / 32];
  __shared__ bool last;
  const unsigned base = blockIdx.x * B * L + threadIdx.x;
  float4 v[L];
#pragma unroll
  for (int k = 0; k < L; ++k) v[k] = Nc ? __ldg(in + base + k * B) : in[base + k * B];
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < L; ++k) s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  s = block_sum<B>(s, smem);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
    bench_fence<AcqRel>();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  bench_fence<AcqRel>();
  float f = 0.0f;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += B) f += __ldcg(partials + b);
  __syncthreads();  // smem reused
  f = block_sum<B>(f, smem);
  if (threadIdx.x == 0) {
    *out = f;
    *ticket = 0;
  }
}

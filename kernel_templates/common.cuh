// Device code shared by the kernel templates (histogram/histogram.cu, reduce/reduce.cu). kernel_source() puts it
// between a variant's preamble and its template, behind a #line directive, so NVRTC names this file and its lines in
// errors. It uses nothing of the preamble: only what the two templates do the same way down to the instruction is
// here (how they read an unaligned input, how a block learns it is the last to finish); what differs between them
// for speed (the tile loops, with converged counting or independent accumulators; the reduction's LoadType) stays in
// the templates.

// The functions of a template's fragments that tests also compile for the host (histogram/region_map.cuh, ...): on
// the device exactly what `__device__ __forceinline__` is; a test defines the macro as `inline` before it includes
// such a fragment (NVRTC never compiles their host side).
#define AT_HOST_DEVICE __host__ __device__ __forceinline__

namespace at {

typedef unsigned long long u64;

// The unsigned type of one B-byte load.
template <int B> struct Raw;
template <> struct Raw<1> { typedef unsigned char type; };
template <> struct Raw<2> { typedef unsigned short type; };
template <> struct Raw<4> { typedef unsigned int type; };
template <> struct Raw<8> { typedef uint2 type; };
template <> struct Raw<16> { typedef uint4 type; };

// A vector of the input, read once: under Cs (a variant's ld=cs, kLoadCs) ld.global.cs, evict-first in L1 and L2, so
// the input streams through without evicting the L2's other lines (bench/load_bench.cu measured what that is worth);
// else a plain load of the const __restrict__ input (ld.global.nc). A template, so that the __ldcs branch is only
// instantiated where Cs holds (R: the Raw type of a 16-byte load, which __ldcs takes).
template <bool Cs, class R>
__device__ __forceinline__ R load_input(const R* p) {
  if constexpr (Cs) return __ldcs(p);
  else return *p;
}

// [0, n) of a pointer aligned to its element T but perhaps not to VecBytes: a scalar head up to the first
// VecBytes-aligned element, nvec whole vectors from there, and a scalar tail from tail_begin. The templates read the
// head and the tail one element per thread (element i by thread i), the vectors in tiles.
struct Split {
  u64 head;
  u64 nvec;
  u64 tail_begin;
};
template <int VecBytes, class T>
__device__ __forceinline__ Split split_unaligned(const T* in, u64 n) {
  constexpr int kPerVec = VecBytes / static_cast<int>(sizeof(T));
  const unsigned misalign = static_cast<unsigned>(reinterpret_cast<u64>(in) % VecBytes);
  u64 head = misalign ? (VecBytes - misalign) / sizeof(T) : 0;
  if (head > n) head = n;
  Split s;
  s.head = head;
  s.nvec = (n - head) / kPerVec;
  s.tail_begin = head + s.nvec * kPerVec;
  return s;
}

// Vector k of thread tid (of `threads` in the grid) in the tile of threads * Loads vectors that starts at `base`:
// interleaved, base + k * threads + tid (each load instruction of a warp is coalesced); else contiguous,
// base + tid * Loads + k (a thread's loads are neighbours: runs of equal values stay in one thread).
template <bool Interleaved, int Loads>
__device__ __forceinline__ u64 tile_index(u64 base, int k, u64 threads, u64 tid) {
  return Interleaved ? base + static_cast<u64>(k) * threads + tid : base + tid * Loads + k;
}

// The last-block ticket: whether this block is the last of the grid to finish. Every thread of the block calls it,
// once, after what the last block will read has been made visible device-wide (a __threadfence by each thread that
// wrote it). Thread 0 takes a ticket; in the block that takes the last one, every thread gets true after a fence
// that orders its later reads after the other blocks' writes. That block sets *ticket back to zero when it is done,
// so a launch leaves the ticket as it found it. Uses one static shared bool.
__device__ __forceinline__ bool last_block_to_finish(unsigned* ticket) {
  __shared__ bool last;
  if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return false;
  __threadfence();
  return true;
}

// Programmatic dependent launch (sm_90 and later; before, and in a grid launched without the attribute, both are
// no-ops). A zeroing kernel calls allow_dependents() first, so that the kernel the host launches after it with the
// programmatic stream serialization attribute (cuda::Module::launch, Launch::after_trigger) starts at once and does
// its own work meanwhile; that kernel calls wait_for_prerequisite() before it first touches what the zeroing kernel
// writes, which then is complete and visible (PTX ISA, griddepcontrol).
__device__ __forceinline__ void allow_dependents() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_prerequisite() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The body of a histogram family's zeroing kernel (launched with blocks of 256 threads, any grid): lets the counting
// kernel start (allow_dependents), then zeroes out[0, count).
template <class T>
__device__ __forceinline__ void zero_for_dependents(T* out, unsigned long long count) {
  allow_dependents();
  for (unsigned long long b = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; b < count;
       b += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    out[b] = 0;
}

// The one-launch merge (self_zero) of the histogram families: `out` is zeroed by the kernel, not by a memset launch.
// Warp 0 of every block but a grid of one calls self_zero_start first: each takes a ticket (atomicInc wraps to 0
// after gridDim.x of them, so the launch leaves it zero); the first block to start zeroes out[0, bins), then raises
// the flag by gridDim.x - 1. Returns true (to warp 0's lanes) in that block. The block's other warps count meanwhile.
template <class T>
__device__ __forceinline__ bool self_zero_start(unsigned* start_ticket, unsigned* zero_flag, T* out, int bins) {
  const int lane = threadIdx.x & 31;
  unsigned first = 0;
  if (lane == 0) first = atomicInc(start_ticket, gridDim.x - 1) == 0;
  first = __shfl_sync(0xFFFFFFFFu, first, 0);
  if (first) {
    for (int b = lane; b < bins; b += 32) out[b] = T(0);
    __threadfence();
    __syncwarp();
    if (lane == 0) atomicAdd(zero_flag, gridDim.x - 1);  // each other block takes one back once it has seen it
  }
  return first != 0;
}

// Thread 0 of every block but the first, before it adds into `out`: waits for the first block's flag. (The first
// block itself must not wait: the others may already have taken back every count it lent.)
__device__ __forceinline__ void self_zero_wait(const unsigned* zero_flag) {
  while (*static_cast<const volatile unsigned*>(zero_flag) == 0) {
  }
  __threadfence();
}

// Thread 0 of every block but the first, after its additions: gives back the count it was lent, so the last one
// leaves the flag zero. No return value is awaited (a reduction, not a ticket).
__device__ __forceinline__ void self_zero_release(unsigned* zero_flag) { atomicSub(zero_flag, 1u); }

// A 16-bit float sample, loaded as its bits (NVRTC compiles without the toolkit's cuda_fp16.h), as a float: exact for
// every value, NaN stays NaN. Kind 1: IEEE binary16 (__half); 2: bfloat16 (__nv_bfloat16), the top half of a float.
template <int Kind>
__device__ __forceinline__ float half_bits_to_float(unsigned short bits) {
  if (Kind == 2) return __uint_as_float(static_cast<unsigned>(bits) << 16);
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
  return f;
}

}  // namespace at

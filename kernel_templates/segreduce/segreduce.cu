// Segmented reduction kernel template, compiled with NVRTC once per variant: two kernels in one module.
//
// Between the preamble and this text comes kernel_templates/common.cuh (u64, Raw, split_unaligned,
// last_block_to_finish); below, the reduction templates' shared code (reduction_common.cuh: Vec, Bits, the float
// min/max, the block fold) and user_op.cuh are put in place of their #includes. The preamble
// (autotune::kernel_source, source.cpp) defines in namespace `at`:
//   in_t, acc_t, work_t   element type; result type; the type the arithmetic is done in (acc_t, or its unsigned twin
//                         for integer sums, whose wrapping is then defined; float for halves, int for min/max/arg of
//                         i8 and i16, converted back exactly at the end: the result is one of the elements)
//   kStorage              Storage::plain, or f16 / bf16: in_t is a half's 16 bits (unsigned short; NVRTC compiles
//                         without cuda_fp16.h), converted to float by common.cuh's half_bits_to_float
//   kOp                   SegOp::sum, min, max, argmin, argmax; user (the preamble's user_transform, user_op and
//                         user_identity, from autotune::UserOp, after acc_t: kernel_templates/user_op.hpp;
//                         work_t is acc_t, the transform lifts each element, the operator combines everywhere)
//   kIsFloat              work_t is float or double
//   kIdentityBits         the identity of sum/min/max in work_t (argmin/argmax: of min/max; user: user_identity())
//   kNaNBits              the canonical NaN of acc_t that min/max write when a segment holds a NaN
//   kArgEmptyBits         the value CUB writes for an empty segment's argmin (max()) or argmax (lowest())
//   kResultBytes          bytes of one segment's result (acc_t, or {int key; in_t value;})
//   kBlock                threads per block of both kernels
//   off_t_, len_t         the offsets' type (int or long long) and the unsigned type of a length (32 or 64 bits)
//   kGroup                lanes that reduce one short segment in autotune_segreduce (1 = a thread, 32 = a warp,
//                         kBlock = a block per segment, as CUB)
//   kSmallMax             the longest segment a group reduces; longer ones are queued for autotune_segreduce_long;
//                         0 = no limit: nothing is queued and the host launches autotune_segreduce alone
//   kVecBytes             0: one element per load; 16: 16-byte loads, the unaligned head and tail element-wise
//   kLoads                loads in flight per thread per step
//   kChunk                elements of one block work item of a long segment
//   the workspace layout  (kernel_templates/segreduce/workspace_layout.hpp)
//
// autotune_segreduce: a grid-stride loop over segments, one group per segment (with kGroup == kBlock one block per
// segment, the grid covering the segments: CUB's DeviceSegmentedReduce in one launch); every lane of a warp runs the same
// number of iterations (the warp leaves when its first group's segment is past the end), so the group folds are
// full-warp shuffles. A segment longer than kSmallMax is queued instead: one 64-bit atomicAdd reserves its queue slot
// (high half) and its chunk ids (low half) together, so the queue is sorted by chunk id.
// autotune_segreduce_long: the queued chunks split evenly over the grid in contiguous runs; each block finds its
// first chunk's segment by a 32-ary warp search, then walks forward. A one-chunk segment is written by its block; a
// longer one's blocks store partials, and the last of them (per-segment ticket) folds them in chunk order. The last
// block of the grid resets the queue. Every sum is formed in an order fixed by the offsets and the configuration:
// the same bits on every call. No value is ever combined by an atomic (the atomics reserve queue slots and count
// tickets), so a user operator, which atomics could not apply, takes every path.

static_assert(at::kBlock >= 64 && at::kBlock <= 1024 && at::kBlock % 32 == 0, "block must be a multiple of 32");
static_assert(at::kGroup == 1 || at::kGroup == 2 || at::kGroup == 4 || at::kGroup == 8 || at::kGroup == 16 ||
                  at::kGroup == 32 || at::kGroup == at::kBlock, "group is a power of two up to a warp, or the block");
static_assert(at::kVecBytes == 0 || at::kVecBytes == 16, "loads are one element or 16 bytes");
static_assert(at::kLoads == 1 || at::kLoads == 2 || at::kLoads == 4 || at::kLoads == 8, "1, 2, 4 or 8 loads in flight");
static_assert(at::kChunk >= at::kSmallMax, "a chunk holds a short segment");
static_assert(sizeof(at::off_t_) == sizeof(at::len_t), "a length is as wide as an offset");
static_assert(sizeof(at::work_t) == sizeof(at::acc_t) ||
                  (at::kOp != at::SegOp::sum && sizeof(at::acc_t) < 4 && sizeof(at::work_t) == 4),
              "work_t is acc_t or its unsigned twin, or the float / int a narrow type's min, max or arg compares in");
static_assert(at::kStorage == at::Storage::plain ||
                  (sizeof(at::in_t) == 2 && (at::kIsFloat || at::kOp == at::SegOp::user)),
              "a half is read as its 16 bits and computed in float (or converted to a user operator's acc_t)");
// cub::KeyValuePair<int, T> is {int key; T value;}: the value at offset 4 and 8 bytes in all for T of 1, 2 or 4
// bytes, at offset 8 and 16 bytes for 8-byte T (bench/cub_segreduce.cu asserts it for __half, __nv_bfloat16, int8_t
// and int16_t); the value is written at kResultBytes / 2.
static_assert(at::kResultBytes == ((at::kOp == at::SegOp::argmin || at::kOp == at::SegOp::argmax)
                                       ? 2 * (sizeof(at::in_t) > 4 ? sizeof(at::in_t) : 4)
                                       : sizeof(at::acc_t)),
              "the result is acc_t, or cub::KeyValuePair<int, in_t>");

#include "user_op.cuh"
#include "reduction_common.cuh"

namespace at {

constexpr bool kArg = kOp == SegOp::argmin || kOp == SegOp::argmax;
constexpr bool kMinLike = kOp == SegOp::min || kOp == SegOp::argmin;

template <class T>
__device__ __forceinline__ T from_bits(unsigned long long b) {
  return Bits<T>::from(static_cast<typename Bits<T>::U>(b));
}

// A running result: the value, and for argmin/argmax its index in the segment (-1: nothing seen yet).
struct Item {
  work_t v;
  int i;
};

__device__ __forceinline__ Item identity() {
  Item x;
  if constexpr (kOp == SegOp::user) x.v = user_identity();
  else x.v = from_bits<work_t>(kIdentityBits);
  x.i = -1;
  return x;
}

// An element as the arithmetic sees it: a half as float (exact), an integer widened to work_t (sign- or
// zero-extended), anything else as itself; for a user operator converted to acc_t (= work_t), as ReduceOp::user's.
__device__ __forceinline__ work_t to_work(in_t x) {
  if constexpr (kStorage == Storage::f16) return half_bits_to_float<1>(x);
  else if constexpr (kStorage == Storage::bf16) return half_bits_to_float<2>(x);
  else return static_cast<work_t>(static_cast<acc_t>(x));
}

// A float that is a half's value (an element, or the identity +-inf) as that half's bits (reduction_common.cuh).
__device__ __forceinline__ unsigned short half_bits_of(float f) {
  return float_to_half_bits<kStorage == Storage::bf16 ? 2 : 1>(f);
}

__device__ __forceinline__ Item lift(in_t x, len_t index) {
  Item r;
  if constexpr (kOp == SegOp::user) r.v = user_transform(to_work(x));
  else r.v = to_work(x);
  r.i = static_cast<int>(index);
  return r;
}

// min/max as reduce.cu: NaN wins (write_result writes the canonical NaN); -0.0 and +0.0 are equal values, either the
// result, the order of every combine fixed by the configuration (the same bits on every call).
// A template (called with work_t) so that the min/max.NaN branch is instantiated for a 4-byte float work_t alone.
template <class W>
__device__ __forceinline__ W combine_value(W a, W b) {
  if constexpr (kOp == SegOp::user) {
    return user_op(a, b);
  } else if constexpr (kOp == SegOp::sum) {
    return a + b;
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (kIsFloat && sizeof(W) == 4) {
      // f32 (and halves, which compute in f32): one min.NaN/max.NaN (PTX ISA 7.0, sm_80), a NaN operand giving NaN,
      // as reduce.cu steps. A zero's sign then follows the hardware's rule rather than -0.0 < +0.0: the values are
      // equal (the problem's semantics, reduce_problem.hpp), and the order is fixed by the configuration, so the bits
      // are still the same on every call. The rule below spent about 8 instructions per element: a segmented f32 max
      // of 4K-element segments at 64M ran 80.5 us against 72.4 us for a user `a > b ? a : b` and 71.4 us for CUB (H200,
      // bench/results/2026-12-02d-h200-segreduce-bench-quick.md).
      return minmax_nan<kOp == SegOp::min>(a, b);
    }
#endif
    return ordered_minmax<kOp == SegOp::min, kIsFloat>(a, b);
  }
}

// argmin/argmax: a NaN beats every number, equal values (and two NaNs) go to the smaller index: a total order on
// (value, index), so any combining order gives the same item.
__device__ __forceinline__ Item combine(Item a, Item b) {
  if constexpr (!kArg) {
    a.v = combine_value<work_t>(a.v, b.v);
    return a;
  } else {
    if (b.i < 0) return a;
    if (a.i < 0) return b;
    const bool an = a.v != a.v, bn = b.v != b.v;
    bool take_b;
    if (an || bn) take_b = bn && (!an || b.i < a.i);
    else if (b.v == a.v) take_b = b.i < a.i;
    else take_b = kOp == SegOp::argmin ? b.v < a.v : b.v > a.v;
    return take_b ? b : a;
  }
}

// Butterfly over groups of W lanes: every lane of a group ends with the group's item. Every lane of the warp calls it.
template <int W>
__device__ __forceinline__ Item fold(Item v) {
#pragma unroll
  for (int offset = W / 2; offset > 0; offset >>= 1) {
    Item o;
    o.v = __shfl_xor_sync(0xFFFFFFFFu, v.v, offset, W);
    if constexpr (kArg) o.i = __shfl_xor_sync(0xFFFFFFFFu, v.i, offset, W);
    else o.i = v.i;
    v = combine(v, o);
  }
  return v;
}

// The block's item, in every thread of warp 0. Every thread calls it; `sm` holds kWarps items.
__device__ __forceinline__ Item block_fold(Item v, Item* sm) {
  v = block_combine_warps(v, sm, [](Item x) { return fold<32>(x); }, [] { return identity(); });
  __syncthreads();  // sm may be written again
  return v;
}

// --- argmin/argmax over 16-byte vectors ---------------------------------------------------------------------------
// combine() per element costs a dozen instructions (NaN tests, the index select); bf16 at the read roof leaves about
// 15 per element for everything (132 SMs x 128 lanes per clock against ~8.6 elements per SM per clock at 4.5 TB/s).
// So each lane keeps the best *vector* it has read: per vector, the NaN-propagating extreme of its elements (halves:
// two packed min/max per four elements, then one float min/max) and one comparison with the kept vector's extreme;
// a better vector (strictly: an equal one is later) replaces the kept one, raw bits and all. The element and its
// index are found once per lane at the end, in the kept vector: the first element equal to its extreme, or its first
// NaN. A lane reads its vectors in rising index order, so this is the lane's first best element, as combine() gives.

// The NaN-propagating min (argmin) or max (argmax) of two work values.
__device__ __forceinline__ float extreme(float a, float b) {
#if AT_HAVE_MINMAX_NAN
  return minmax_nan<kMinLike>(a, b);
#else
  if (a != a) return a;
  if (b != b) return b;
  return kMinLike ? fminf(a, b) : fmaxf(a, b);
#endif
}
__device__ __forceinline__ double extreme(double a, double b) {
  if (a != a) return a;
  if (b != b) return b;
  return kMinLike ? fmin(a, b) : fmax(a, b);
}
template <class I>
__device__ __forceinline__ I extreme(I a, I b) {
  return (kMinLike ? b < a : b > a) ? b : a;
}

#if AT_HAVE_MINMAX_NAN
// Two halves of a and two of b, element by element (min.NaN / max.NaN of f16x2 or bf16x2: a NaN gives NaN).
__device__ __forceinline__ unsigned extreme_half2(unsigned a, unsigned b) {
  unsigned r;
  if constexpr (kStorage == Storage::bf16) {
    if constexpr (kMinLike) asm("min.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  } else {
    if constexpr (kMinLike) asm("min.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    else asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  }
  return r;
}
#endif

// The extreme of one vector's elements, in work_t (a NaN when one of them is NaN). (A template, so that the packed
// branch is not instantiated for one-element loads, whose raw_t is no uint4.)
template <class V>
__device__ __forceinline__ work_t vector_extreme(const V& v) {
#if AT_HAVE_MINMAX_NAN
  if constexpr (kStorage != Storage::plain && kVecBytes == 16) {
    const uint4 w = v.raw;
    const unsigned m = extreme_half2(extreme_half2(w.x, w.y), extreme_half2(w.z, w.w));
    return extreme(to_work(static_cast<in_t>(m & 0xFFFFu)), to_work(static_cast<in_t>(m >> 16)));
  }
#endif
  work_t m = to_work(v.v[0]);
#pragma unroll
  for (int e = 1; e < kElems; ++e) m = extreme(m, to_work(v.v[e]));
  return m;
}

// Whether a vector whose extreme is x beats the kept one's, `best`: strictly better, or the first NaN.
__device__ __forceinline__ bool beats(work_t x, work_t best) {
  if constexpr (kIsFloat)
    if (x != x) return best == best;
  return kMinLike ? x < best : x > best;
}

// One lane's kept vector: its bits, its extreme, its index among the vectors (valid once `any`).
struct KeptVec {
  raw_t raw;
  work_t best;
  len_t at;
  bool any;
};

__device__ __forceinline__ void keep_if_better(KeptVec& kept, const Vec& v, len_t at) {
  const work_t x = vector_extreme(v);
  if (!kept.any || beats(x, kept.best)) {
    kept.raw = v.raw;
    kept.best = x;
    kept.at = at;
    kept.any = true;
  }
}

// The kept vector's first element equal to its extreme (or its first NaN), with its index; vidx0 is the index of
// vector 0's first element. The identity when no vector was kept.
__device__ __forceinline__ Item kept_item(const KeptVec& kept, len_t vidx0) {
  if (!kept.any) return identity();
  Vec v;
  v.raw = kept.raw;
  const bool nan = kept.best != kept.best;
  Item r;
  r.v = kept.best;
  r.i = 0;
#pragma unroll
  for (int e = kElems - 1; e >= 0; --e) {  // constant indices only: v stays in registers
    const work_t x = to_work(v.v[e]);
    if (nan ? x != x : x == kept.best) r.v = x, r.i = e;
  }
  r.i = static_cast<int>(vidx0 + kept.at * kElems + static_cast<len_t>(r.i));
  return r;
}

// This lane's share of p[0, len) read by W lanes (rank r); indices in the segment start at idx0. The element order
// of each lane is fixed: the group's and block's folds then fix the order of every operation. Every pass keeps kLoads
// loads in flight, the last one too (predicated): a segment shorter than one pass is still read kLoads loads at once.
template <int W>
__device__ __forceinline__ Item reduce_range(const in_t* __restrict__ p, len_t len, len_t idx0, unsigned r) {
  Item acc = identity();
  if constexpr (kVecBytes == 0) {
    len_t i = r;
    for (; i + (kLoads - 1) * W < len; i += kLoads * W) {
      in_t x[kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k) x[k] = p[i + k * W];
#pragma unroll
      for (int k = 0; k < kLoads; ++k) acc = combine(acc, lift(x[k], idx0 + i + k * W));
    }
    if (i < len) {  // at most kLoads - 1 more elements of this lane
      in_t x[kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k)
        if (i + k * W < len) x[k] = p[i + k * W];
#pragma unroll
      for (int k = 0; k < kLoads; ++k)
        if (i + k * W < len) acc = combine(acc, lift(x[k], idx0 + i + k * W));
    }
  } else {
    const Split s = split_unaligned<kVecBytes>(p, static_cast<u64>(len));
    const len_t head = static_cast<len_t>(s.head), nvec = static_cast<len_t>(s.nvec);
    for (len_t i = r; i < head; i += W) acc = combine(acc, lift(p[i], idx0 + i));
    const raw_t* vp = reinterpret_cast<const raw_t*>(p + head);
    const len_t vidx0 = idx0 + head;
    // Vector k of a pass: argmin/argmax keep the better vector, the others combine its elements.
    KeptVec kept;
    kept.any = false;
    auto take = [&](const Vec& v, len_t at) {
      if constexpr (kArg) {
        keep_if_better(kept, v, at);
      } else {
#pragma unroll
        for (int e = 0; e < kElems; ++e) acc = combine(acc, lift(v.v[e], vidx0 + at * kElems + e));
      }
    };
    len_t j = r;
    for (; j + (kLoads - 1) * W < nvec; j += kLoads * W) {
      Vec v[kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k) v[k].raw = vp[j + k * W];
#pragma unroll
      for (int k = 0; k < kLoads; ++k) take(v[k], j + k * W);
    }
    if (j < nvec) {  // at most kLoads - 1 more vectors of this lane, loaded together
      Vec v[kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k)
        if (j + k * W < nvec) v[k].raw = vp[j + k * W];
#pragma unroll
      for (int k = 0; k < kLoads; ++k)
        if (j + k * W < nvec) take(v[k], j + k * W);
    }
    if constexpr (kArg) acc = combine(acc, kept_item(kept, vidx0));
    for (len_t i = static_cast<len_t>(s.tail_begin) + r; i < len; i += W) acc = combine(acc, lift(p[i], idx0 + i));
  }
  return acc;
}

// Segment s's result from its item; `seg` is the segment's first element.
__device__ __forceinline__ void write_result(unsigned char* __restrict__ out, u64 s, Item v,
                                             const in_t* __restrict__ seg) {
  if constexpr (kArg) {
    unsigned char* p = out + s * kResultBytes;
    *reinterpret_cast<int*>(p) = v.i < 0 ? 1 : v.i;  // CUB: {1, max()} / {1, lowest()} for an empty segment
    // The element's own bits: v.v is the element widened (moved, never computed on), so narrowing it back is exact,
    // a bf16 NaN's payload too (the top half of its float); cvt.rn.f16.f32 would make an f16 NaN canonical, so that
    // one is read again from the segment (only then: a load at the end of every segment would hold its block up).
    in_t value;
    if (v.i < 0) value = from_bits<in_t>(kArgEmptyBits);
    else if constexpr (kStorage == Storage::f16) value = v.v != v.v ? seg[v.i] : half_bits_of(v.v);
    else if constexpr (kStorage == Storage::bf16) value = half_bits_of(v.v);
    else value = static_cast<in_t>(v.v);
    *reinterpret_cast<in_t*>(p + kResultBytes / 2) = value;
  } else if constexpr (kOp == SegOp::sum || kOp == SegOp::user) {
    reinterpret_cast<work_t*>(out)[s] = v.v;  // the accumulator's bits (a sum's unsigned twin for integers)
  } else if constexpr (kIsFloat) {
    // min/max: the canonical NaN of acc_t, else the value (a half's bits: exact, it is an element or +-inf).
    acc_t r;
    if (v.v != v.v) r = from_bits<acc_t>(kNaNBits);
    else if constexpr (kStorage != Storage::plain) r = half_bits_of(v.v);
    else r = v.v;
    reinterpret_cast<acc_t*>(out)[s] = r;
  } else {
    reinterpret_cast<acc_t*>(out)[s] = static_cast<acc_t>(v.v);  // i8/i16 from int: exact
  }
}

// Queues long segment s: whether it got a slot and room for its partials (else its group reduces it).
__device__ __forceinline__ bool enqueue(unsigned char* __restrict__ ws, u64 s, len_t len) {
  const unsigned chunks = static_cast<unsigned>((len + (kChunk - 1)) / kChunk);
  const u64 packed = atomicAdd(reinterpret_cast<u64*>(ws + kCounterOffset), (1ull << 32) | chunks);
  const unsigned slot = static_cast<unsigned>(packed >> 32), base = static_cast<unsigned>(packed);
  if (slot >= kQueueCapacity) return false;
  const bool fits = chunks == 1 || static_cast<u64>(base) + chunks <= kPartialCapacity;
  unsigned* entry = reinterpret_cast<unsigned*>(ws + kEntriesOffset) + 4 * static_cast<u64>(slot);
  entry[0] = static_cast<unsigned>(s);
  entry[1] = base;
  entry[2] = fits ? chunks : 0u;  // 0: no chunk of it is done by autotune_segreduce_long
  return fits;
}

}  // namespace at

namespace at {

// A block per segment (kGroup == kBlock): the grid covers the segments (a grid-stride loop past 2^31 - 1 blocks).
__device__ __forceinline__ void block_per_segment(const in_t* __restrict__ in, const off_t_* __restrict__ begin,
                                                  const off_t_* __restrict__ end, u64 nseg,
                                                  unsigned char* __restrict__ out, unsigned char* __restrict__ ws) {
  __shared__ Item sm[kWarps];
  __shared__ int queued;
  for (u64 s = blockIdx.x; s < nseg; s += gridDim.x) {
    const off_t_ b = begin[s];
    off_t_ e = end[s];
    if (e < b) e = b;  // CUB: end <= begin is an empty segment
    const len_t len = static_cast<len_t>(e - b);
    if (kSmallMax != 0 && len > kSmallMax) {
      if (threadIdx.x == 0) queued = enqueue(ws, s, len);
      __syncthreads();
      const bool q = queued;
      __syncthreads();  // queued may be written again by the next segment
      if (q) continue;
    }
    Item v = reduce_range<kBlock>(in + b, len, 0, threadIdx.x);
    v = block_fold(v, sm);
    if (threadIdx.x == 0) write_result(out, s, v, in + b);
  }
}

}  // namespace at

extern "C" __global__ void __launch_bounds__(at::kBlock)
autotune_segreduce(const at::in_t* __restrict__ in, const at::off_t_* __restrict__ begin,
                   const at::off_t_* __restrict__ end, unsigned long long nseg, unsigned char* __restrict__ out,
                   unsigned char* __restrict__ ws) {
  using namespace at;
  if constexpr (kGroup == kBlock) {
    block_per_segment(in, begin, end, nseg, out, ws);
  } else {
    const unsigned lane = threadIdx.x & 31;
    const unsigned r = lane % kGroup, leader = lane - r;
    constexpr unsigned kGroupsPerBlock = kBlock / kGroup;
    const u64 stride = static_cast<u64>(gridDim.x) * kGroupsPerBlock;
    for (u64 s = static_cast<u64>(blockIdx.x) * kGroupsPerBlock + threadIdx.x / kGroup;; s += stride) {
      if (s - lane / kGroup >= nseg) break;  // the warp's first segment: the same test in every lane of the warp
      const bool valid = s < nseg;
      off_t_ b = 0, e = 0;
      if (valid) {
        b = begin[s];
        e = end[s];
        if (e < b) e = b;  // CUB: end <= begin is an empty segment
      }
      const len_t len = static_cast<len_t>(e - b);
      bool mine = valid;
      if (kSmallMax != 0 && valid && len > kSmallMax) {
        const unsigned mask = kGroup >= 32 ? 0xFFFFFFFFu : (((1u << (kGroup & 31)) - 1u) << leader);
        int queued = 0;
        if (r == 0) queued = enqueue(ws, s, len);
        queued = __shfl_sync(mask, queued, leader);
        mine = !queued;
      }
      Item v = mine ? reduce_range<kGroup>(in + b, len, 0, r) : identity();
      v = fold<kGroup>(v);
      if (mine && r == 0) write_result(out, s, v, in + b);
    }
  }
}

extern "C" __global__ void __launch_bounds__(at::kBlock)
autotune_segreduce_long(const at::in_t* __restrict__ in, const at::off_t_* __restrict__ begin,
                        const at::off_t_* __restrict__ end, unsigned char* __restrict__ out,
                        unsigned char* __restrict__ ws) {
  using namespace at;
  __shared__ Item sm[kWarps];
  __shared__ int last_of_segment;
  const unsigned lane = threadIdx.x & 31;
  const u64 packed = __ldcg(reinterpret_cast<const u64*>(ws + kCounterOffset));
  const unsigned count = min(static_cast<unsigned>(packed >> 32), kQueueCapacity);
  const unsigned total = static_cast<unsigned>(packed);
  unsigned* entries = reinterpret_cast<unsigned*>(ws + kEntriesOffset);
  const unsigned per = (total + gridDim.x - 1) / gridDim.x;
  const unsigned c0 = blockIdx.x * per, c1 = min(total, c0 + per);
  if (count > 0 && c0 < c1) {
    // The last entry whose first chunk is <= c0 (entry 0 starts at chunk 0): a 32-ary search, each warp on its own.
    unsigned lo = 0, hi = count;
    while (hi - lo > 1) {
      const unsigned step = (hi - lo + 31) / 32;
      const unsigned probe = lo + lane * step;
      const bool below = probe < hi && __ldcg(entries + 4 * static_cast<u64>(probe) + 1) <= c0;
      const unsigned ballot = __ballot_sync(0xFFFFFFFFu, below);
      lo += (31 - __clz(ballot)) * step;
      hi = min(hi, lo + step);
    }
    unsigned idx = lo;
    for (unsigned c = c0; c < c1; ++c) {
      while (idx + 1 < count && __ldcg(entries + 4 * static_cast<u64>(idx + 1) + 1) <= c) ++idx;
      unsigned* entry = entries + 4 * static_cast<u64>(idx);
      const unsigned seg = __ldcg(entry), base = __ldcg(entry + 1), chunks = __ldcg(entry + 2);
      const unsigned k = c - base;
      if (k >= chunks) continue;  // a segment its group reduced (no room), or chunks of one past the queue
      const off_t_ b = begin[seg];
      const len_t len = static_cast<len_t>(end[seg] - b), from = static_cast<len_t>(k) * kChunk;
      const len_t clen = len - from < kChunk ? len - from : static_cast<len_t>(kChunk);
      Item v = reduce_range<kBlock>(in + b + from, clen, from, threadIdx.x);
      v = block_fold(v, sm);
      if (chunks == 1) {
        if (threadIdx.x == 0) write_result(out, seg, v, in + b);
        continue;
      }
      unsigned char* partials = ws + kPartialsOffset;
      if (threadIdx.x == 0) {
        *reinterpret_cast<work_t*>(partials + 16ull * c) = v.v;
        *reinterpret_cast<int*>(partials + 16ull * c + 8) = v.i;
        __threadfence();
        last_of_segment = atomicAdd(entry + 3, 1u) == chunks - 1;
      }
      __syncthreads();
      if (last_of_segment) {
        __threadfence();
        Item f = identity();
        for (unsigned j = threadIdx.x; j < chunks; j += kBlock) {
          Item x;
          x.v = __ldcg(reinterpret_cast<const work_t*>(partials + 16ull * (base + j)));
          x.i = __ldcg(reinterpret_cast<const int*>(partials + 16ull * (base + j) + 8));
          f = combine(f, x);
        }
        f = block_fold(f, sm);
        if (threadIdx.x == 0) {
          write_result(out, seg, f, in + b);
          entry[3] = 0;  // the ticket, ready for the next call
        }
      }
      __syncthreads();  // last_of_segment is written again
    }
  }
  unsigned* grid_ticket = reinterpret_cast<unsigned*>(ws + kGridTicketOffset);
  if (last_block_to_finish(grid_ticket) && threadIdx.x == 0) {
    *reinterpret_cast<u64*>(ws + kCounterOffset) = 0;  // every block has read it
    *grid_ticket = 0;
  }
}

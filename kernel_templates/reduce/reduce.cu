// Reduction kernel template, compiled with NVRTC once per variant.
//
// Between the preamble and this text comes the device code the templates share (kernel_templates/common.cuh: u64,
// Raw, split_unaligned, tile_index, last_block_to_finish); below, the reduction templates' (reduction_common.cuh:
// Vec, Bits, the float min/max, the block fold and the finish from partials) and user_op.cuh are put in place of
// their #includes.
//
// Every tuning parameter arrives as a compile-time constant in namespace `at`, from the preamble that
// autotune::kernel_source() generates from a ReduceProblem and a ReduceConfig (the one source of truth):
//   in_t, acc_t           element type; result type written at `out`. A half (kStorage, kOutStorage: f16 or bf16)
//                         travels as its 16 bits (unsigned short) and is converted here, so that no header is needed
//   work_t                the type the arithmetic is done in: acc_t, or its unsigned twin for integer sums (unsigned
//                         addition wraps by definition, signed overflow is undefined; the bits are the same); float
//                         for min/max/absmax of halves, int for min/max of i8 and i16 (converted back at the end:
//                         exactly, the result is one of the elements)
//   kOp                   ReduceOp::sum, min, max; absmax, sumsq, sumabs, l2norm (a built-in transform applied to
//                         every element by lift(), the root of l2norm once by finalize()); user (the preamble's
//                         user_transform, user_op and user_identity, from autotune::UserOp)
//   kIsFloat              the work type is float or double
//   kSignedIn             the element is a signed integer (|x| of absmax and sumabs is taken in the unsigned work type)
//   kIdentityBits         bits of the identity in work_t (the result for n = 0); the host presets `out` to the same
//                         bits for the atomic finish, which only a result of the work type takes (kAtomics)
//   kNaNBits              the canonical NaN of work_t that min/max/absmax return when any element is NaN
//   kOutNaNBits           the same in acc_t (a half's canonical NaN: 0x7e00 f16, 0x7fc0 bf16)
//   kAtomics              the host may choose atomics (Finish::atomic, BlockReduce::atomic): a built-in operator
//                         whose result is its work type
//   kWordAtomics          the host may choose Finish::atomic_last: a built-in operator whose work type is 4 or 8
//                         bytes wide (the last block converts the result)
//   kBlock                threads per block (the host launches exactly this many)
//   kVecBytes             bytes per load (a multiple of sizeof(in_t), at most 16); the unaligned head of the input
//                         and the tail that fills no vector are read one element at a time
//   kLoads                vector loads in flight per thread per tile (all issued before the first is used)
//   kAccumulators         independent per-thread accumulators (element e of load k goes to (k * elems + e) % count):
//                         breaks the dependency chain of one register, combined in a fixed order at the end
//   kBlockReduce          BlockReduce::atomic: every thread combines its value into `out` with one atomic (the
//                         seed's naive kernel); shared_tree: shared-memory tree; warp_shuffle: __shfl_down_sync in
//                         warps, then warp 0 over the warps' results; warp_reduce: __reduce_{add,min,max}_sync
//                         (sm_80+, 32-bit integers), then warp 0 likewise
//   kFinish               Finish::atomic: one atomic per block into `out` (preset to the identity by the host);
//                         last_block: partials in the workspace, the last block to retire (atomic ticket) combines
//                            them in a fixed order and resets the ticket: one launch that cleans up after itself;
//                         two_pass: partials in the workspace, autotune_reduce_finish (one block) combines them;
//                         atomic_last: one atomic per block into the workspace's word (the identity between
//                            launches), the last block to retire (ticket) writes the word to `out` and puts the
//                            identity back: one launch, no preset, no partials to fold
//   kSingleBlock          the host launches one block (the small-n path): no partials, no ticket
//
// Whatever the finish, a launch of one block writes its result directly (no preset, no second launch): the host
// knows this and skips them. Except with BlockReduce::atomic, the order of every operation is fixed by the grid, so a
// fixed grid gives the same bits on every call.
//
// Semantics: integer sums wrap modulo 2^bits of acc_t; float sums follow IEEE addition (NaN and infinities
// propagate). min/max: any NaN gives kNaNBits; -0.0 and +0.0 are equal values (either may be the result). Every
// order is fixed by the grid except the atomic finish's (and per-thread atomics'), which combine() makes independent
// of the order by counting -0.0 as smaller than +0.0, so a fixed grid gives the same bits on every call. The input
// pointer must be aligned to sizeof(in_t), `out` to sizeof(acc_t); offsets are 64-bit.
//
// Float min/max in fixed order (a thread's elements, the warp and block trees, the partials) cost what a sum costs:
// one hardware min/max per element (fminf/fmaxf, or on sm_80+ f32 min.NaN/max.NaN, which propagate NaN themselves),
// NaN elements noted on the side with one unordered compare per two elements and folded into the thread's value once
// (kTrackNaN). The H200 preset measured the earlier per-element rule (NaN test, signed-zero tie test, select) 2-17 %
// slower than the sum in every variant of 16-byte loads and 1.3-1.8x slower in the one-tile-per-block grids
// (bench/results/2026-12-01c-h200-preset-standard.log.gz, f32 and f64 at 16M and 256M).

static_assert(at::kBlock >= 64 && at::kBlock <= 1024 && at::kBlock % 32 == 0, "block must be a multiple of 32 in 64..1024");
static_assert(at::kLoads >= 1 && at::kLoads <= 16, "loads in flight must be in 1..16");
static_assert(at::kVecBytes >= sizeof(at::in_t) && at::kVecBytes <= 16 && at::kVecBytes % sizeof(at::in_t) == 0 &&
              (at::kVecBytes & (at::kVecBytes - 1)) == 0, "vector width must be a power of two from the element size to 16 bytes");
static_assert(at::kAccumulators == 1 || at::kAccumulators == 2 || at::kAccumulators == 4, "1, 2 or 4 accumulators");
static_assert(!at::kAtomics || sizeof(at::work_t) == sizeof(at::acc_t), "atomics need work_t to be acc_t or its twin");
static_assert(at::kAtomics || (at::kFinish != at::Finish::atomic && at::kBlockReduce != at::BlockReduce::atomic),
              "this result is not combined with atomics (a user operator, a root, a converted result)");
static_assert(at::kWordAtomics || at::kFinish != at::Finish::atomic_last,
              "these work values are not combined with atomics (a user operator, a work type under 4 bytes)");
static_assert(!at::kAtomics || at::kWordAtomics, "a result combined with atomics is a work value combined so");
static_assert(at::kOp == at::ReduceOp::sum || at::kOp == at::ReduceOp::min || at::kOp == at::ReduceOp::max ||
                  at::kOp == at::ReduceOp::absmax || at::kOp == at::ReduceOp::sumsq ||
                  at::kOp == at::ReduceOp::sumabs || at::kOp == at::ReduceOp::l2norm || at::kOp == at::ReduceOp::user,
              "op is sum, min, max, absmax, sumsq, sumabs, l2norm or user");
static_assert(at::kBlockReduce != at::BlockReduce::warp_reduce || at::kOp != at::ReduceOp::user,
              "__reduce_*_sync knows add, min and max only");
static_assert(at::kBlockReduce == at::BlockReduce::atomic || at::kBlockReduce == at::BlockReduce::shared_tree ||
                  at::kBlockReduce == at::BlockReduce::warp_shuffle || at::kBlockReduce == at::BlockReduce::warp_reduce,
              "block reduction is atomic, shared_tree, warp_shuffle or warp_reduce");
static_assert(at::kFinish == at::Finish::atomic || at::kFinish == at::Finish::last_block ||
                  at::kFinish == at::Finish::two_pass || at::kFinish == at::Finish::atomic_last,
              "finish is atomic, last_block, two_pass or atomic_last");
static_assert(at::kBlockReduce != at::BlockReduce::warp_reduce || (!at::kIsFloat && sizeof(at::work_t) == 4),
              "warp_reduce (__reduce_*_sync) exists for 32-bit integers only");
static_assert(at::kBlockReduce != at::BlockReduce::atomic || at::kFinish == at::Finish::atomic,
              "per-thread atomics need the atomic finish");
// The workspace (the preamble's layout, from kernel_templates/reduce/workspace_layout.hpp): the ticket (zero between
// launches), the identity (the host's preset for the atomic finish copies it from there), the per-block partials.
static_assert(at::kTicketOffset % sizeof(unsigned) == 0 &&
                  at::kTicketOffset + sizeof(unsigned) <= at::kIdentityOffset &&
                  at::kIdentityOffset + sizeof(at::acc_t) <= at::kAtomicWordOffset &&
                  at::kAtomicWordOffset % 8 == 0 && at::kAtomicWordOffset + sizeof(at::acc_t) <= at::kPartialsOffset &&
                  at::kPartialsOffset % sizeof(at::work_t) == 0,
              "the workspace holds the ticket, the identity, the atomic word, then aligned partials");

#include "user_op.cuh"
#include "reduction_common.cuh"

static_assert(at::kBlockReduce != at::BlockReduce::warp_reduce || AT_HAVE_REDUX,
              "warp_reduce (__reduce_*_sync) needs sm_80 or newer");

namespace at {

typedef Bits<work_t>::U bits_t;

constexpr bool kAdditive =
    kOp == ReduceOp::sum || kOp == ReduceOp::sumsq || kOp == ReduceOp::sumabs || kOp == ReduceOp::l2norm;
constexpr bool kMaxLike = kOp == ReduceOp::max || kOp == ReduceOp::absmax;  // absmax is a max of |x|

__device__ __forceinline__ work_t identity() {
  if constexpr (kOp == ReduceOp::user) return user_identity();
  else return Bits<work_t>::from(static_cast<bits_t>(kIdentityBits));
}

// The element's value: a half as float (exactly: common.cuh's half_bits_to_float), anything else as itself.
// (Templates, so that the branches of the other storages are discarded unseen: bit operations on a float element
// would not compile.)
template <class T>
__device__ __forceinline__ auto element(T x) {
  if constexpr (kStorage == Storage::f16) return half_bits_to_float<1>(x);
  else if constexpr (kStorage == Storage::bf16) return half_bits_to_float<2>(x);
  else return x;
}

// Whether an element is NaN, from its bits for halves (no float conversion needed).
template <class T>
__device__ __forceinline__ bool is_nan_element(T x) {
  if constexpr (kStorage == Storage::f16) return (x & 0x7FFFu) > 0x7C00u;
  else if constexpr (kStorage == Storage::bf16) return (x & 0x7FFFu) > 0x7F80u;
  else return x != x;  // never true for integers
}

// |v| and sqrt(v) of the float work types (the integer forms exist for branches `if constexpr` discards).
template <class T> __device__ __forceinline__ T abs_of(T v) { return v; }
template <> __device__ __forceinline__ float abs_of(float v) { return fabsf(v); }
template <> __device__ __forceinline__ double abs_of(double v) { return fabs(v); }
template <class T> __device__ __forceinline__ T root_of(T v) { return v; }
template <> __device__ __forceinline__ float root_of(float v) { return sqrtf(v); }
template <> __device__ __forceinline__ double root_of(double v) { return sqrt(v); }

// An element as the operation sees it: widened (sign- or zero-extended, f32 -> f64, a half to float), transformed
// (|x| of absmax and sumabs, x^2 of sumsq and l2norm, the user's transform), then as work_t.
__device__ __forceinline__ work_t lift(in_t x) {
  const auto v = element(x);
  if constexpr (kOp == ReduceOp::user) {
    return user_transform(static_cast<acc_t>(v));
  } else if constexpr (kOp == ReduceOp::min || kOp == ReduceOp::max) {
    return static_cast<work_t>(v);
  } else if constexpr (kOp == ReduceOp::absmax || kOp == ReduceOp::sumabs) {
    if constexpr (kIsFloat) {
      return abs_of(static_cast<work_t>(v));  // never -0.0
    } else if constexpr (kSignedIn) {
      // In the unsigned work type: |lowest| is representable (absmax) or wraps like the sum (sumabs of i64).
      const long long s = static_cast<long long>(v);
      return s < 0 ? work_t(0) - static_cast<work_t>(s) : static_cast<work_t>(s);
    } else {
      return static_cast<work_t>(v);
    }
  } else if constexpr (kOp == ReduceOp::sumsq || kOp == ReduceOp::l2norm) {
    const work_t w = static_cast<work_t>(static_cast<acc_t>(v));
    return w * w;  // integers: modulo 2^bits of the unsigned work type, as the sum
  } else {
    return static_cast<work_t>(static_cast<acc_t>(v));
  }
}

// The operation. Float min/max: NaN wins, and -0.0 < +0.0, so the result does not depend on the order of the
// operands (reduction_common.cuh's ordered_minmax).
template <class T>
__device__ __forceinline__ T combine(T a, T b) {
  if constexpr (kOp == ReduceOp::user) return user_op(a, b);
  else if constexpr (kAdditive) return a + b;
  else return ordered_minmax<kOp == ReduceOp::min, kIsFloat>(a, b);
}

// Float min/max in fixed order: the hardware instruction (kHwNaN: min.NaN/max.NaN, a NaN operand gives NaN; otherwise
// fminf/fmaxf, which return the other operand for one NaN operand, so NaN is tracked beside them: kTrackNaN).
constexpr bool kFloatMinMax = kIsFloat && (kOp == ReduceOp::min || kMaxLike);
constexpr bool kHwNaN = kFloatMinMax && sizeof(work_t) == 4 && AT_HAVE_MINMAX_NAN;
constexpr bool kTrackNaN = kFloatMinMax && !kHwNaN;
template <class T>
__device__ __forceinline__ T hw_minmax(T a, T b) {
  if constexpr (kHwNaN) {
    return minmax_nan<kOp == ReduceOp::min>(a, b);
  } else {
    return kOp == ReduceOp::min ? fmin(a, b) : fmax(a, b);
  }
}

// A thread's step over one element (or a finished value): the operation, NaN left to the caller where kTrackNaN.
template <class T>
__device__ __forceinline__ T step(T acc, T x) {
  if constexpr (kFloatMinMax) return hw_minmax(acc, x);
  else return combine(acc, x);
}

// Two values in the fixed order of a tree (warp, block, partials): the operation, a NaN operand giving NaN.
template <class T>
__device__ __forceinline__ T fold(T a, T b) {
  if constexpr (kTrackNaN)
    return a != a || b != b ? Bits<T>::from(static_cast<typename Bits<T>::U>(kNaNBits)) : hw_minmax(a, b);
  else if constexpr (kFloatMinMax) return hw_minmax(a, b);
  else return combine(a, b);
}

// kTrackNaN: whether an element of a vector is NaN, two elements per unordered compare (setp.nan a, b).
__device__ __forceinline__ bool any_nan(const Vec& v) {
  bool r = false;
#pragma unroll
  for (int e = 0; e < kElems; e += 2) {
    const in_t a = v.v[e], b = v.v[e + 1 < kElems ? e + 1 : e];
    r |= is_nan_element(a) || is_nan_element(b);
  }
  return r;
}

// The value written at `out`: min/max/absmax turn any NaN into the canonical one; l2norm takes its root.
__device__ __forceinline__ work_t finalize(work_t v) {
  if constexpr (kFloatMinMax) return v != v ? Bits<work_t>::from(static_cast<bits_t>(kNaNBits)) : v;
  else if constexpr (kOp == ReduceOp::l2norm) return root_of(v);  // correctly rounded: no fast-math
  else return v;
}

// The result at `out`, in acc_t: the work value's bits, or a half converted from float (exact: it is one of the
// elements, or an infinity of the identity), or an int narrowed to i8/i16 (likewise).
__device__ __forceinline__ void store(acc_t* out, work_t v) {
  v = finalize(v);
  if constexpr (kOutStorage != Storage::plain) {
    if (v != v) *out = static_cast<acc_t>(kOutNaNBits);
    else if constexpr (kOutStorage == Storage::f16) *out = float_to_half_bits<1>(v);
    else *out = float_to_half_bits<2>(v);
  } else if constexpr (sizeof(acc_t) == sizeof(work_t)) {
    *reinterpret_cast<work_t*>(out) = v;
  } else {
    *out = static_cast<acc_t>(v);
  }
}

// Combines v into *dest, a work_t in memory, with atomics: the atomic finish's `out` and per-thread atomics (through
// atomic_combine below), atomic_last's word in the workspace. Only a built-in operator on a 4- or 8-byte work type
// (kWordAtomics).
template <class T>
__device__ __forceinline__ void atomic_combine_into(T* dest, T v) {
  if constexpr (!kWordAtomics) {
    return;  // never chosen (the host refuses it, a static_assert above backs that up)
  } else if constexpr (kAdditive) {
    atomicAdd(dest, v);  // float (sm_20+), double (sm_60+); unsigned int / unsigned long long: wraps like the sum
  } else if constexpr (!kIsFloat) {
    if constexpr (kOp == ReduceOp::min) atomicMin(dest, v);  // int, unsigned, long long, unsigned long long: sm_35+
    else atomicMax(dest, v);
  } else {
    // Float min/max: compare-and-swap with the same combine() as everywhere else (NaN and signed zeros included).
    // Most calls find the running result already better and leave after one load.
    typedef typename Bits<T>::U U;
    U* word = reinterpret_cast<U*>(dest);
    const U mine = Bits<T>::to(finalize(v));
    U seen = *reinterpret_cast<volatile U*>(word);
    while (true) {
      const U want = Bits<T>::to(finalize(combine(Bits<T>::from(seen), Bits<T>::from(mine))));
      if (want == seen) return;
      const U before = atomicCAS(word, seen, want);
      if (before == seen) return;
      seen = before;
    }
  }
}

// Combines v into *out with atomics (the atomic finish and the per-thread-atomics block reduction): only a result of
// the work type (kAtomics).
template <class T>
__device__ __forceinline__ void atomic_combine(acc_t* out, T v) {
  if constexpr (!kAtomics) return;  // never chosen (the host refuses it, a static_assert above backs that up)
  else atomic_combine_into(reinterpret_cast<T*>(out), v);
}

// Finish::atomic_last, by thread 0 of each block with the block's result: atomic_combine_into() the workspace's word
// (a block that saw only the identity skips it), then the ticket; the last block takes the word, putting the identity
// back (as the ticket), and stores it as every finish does (store(): a half or a narrow integer converted, a root).
__device__ __forceinline__ void finish_atomic_last(work_t v, acc_t* out, unsigned char* workspace) {
  work_t* word = reinterpret_cast<work_t*>(workspace + kAtomicWordOffset);
  unsigned* ticket = reinterpret_cast<unsigned*>(workspace + kTicketOffset);
  if (Bits<work_t>::to(v) != static_cast<bits_t>(kIdentityBits)) {
    atomic_combine_into(word, v);
    __threadfence();  // the combined word is in place before the ticket says so
  }
  if (atomicAdd(ticket, 1u) != gridDim.x - 1) return;
  __threadfence();  // ... and this block reads it after every other block's ticket
  // The word's bits as atomicExch takes them (kWordAtomics: 4 or 8 bytes).
  typedef unsigned long long wide_t;
  typedef unsigned int narrow_t;
  bits_t taken;
  if constexpr (sizeof(work_t) == 8)
    taken = static_cast<bits_t>(atomicExch(reinterpret_cast<wide_t*>(word), static_cast<wide_t>(kIdentityBits)));
  else
    taken = static_cast<bits_t>(atomicExch(reinterpret_cast<narrow_t*>(word), static_cast<narrow_t>(kIdentityBits)));
  *ticket = 0;
  store(out, Bits<work_t>::from(taken));
}

template <class T>
__device__ __forceinline__ T warp_fold(T v) {
#if AT_HAVE_REDUX
  if constexpr (kBlockReduce == BlockReduce::warp_reduce) {
    if constexpr (kAdditive) return __reduce_add_sync(0xFFFFFFFFu, v);
    else if constexpr (kOp == ReduceOp::min) return __reduce_min_sync(0xFFFFFFFFu, v);
    else return __reduce_max_sync(0xFFFFFFFFu, v);
  } else
#endif
  {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = fold(v, __shfl_down_sync(0xFFFFFFFFu, v, offset));
    return v;
  }
}

// The block's combined value, valid in thread 0. Every thread must call it; `smem` holds
// ReduceConfig::shared_bytes(). Callers separate two calls with a __syncthreads().
template <class T>
__device__ __forceinline__ T block_reduce(T v, T* smem) {
  return block_combine<kBlockReduce == BlockReduce::shared_tree>(
      v, smem, [](T a, T b) { return fold(a, b); }, [](T x) { return warp_fold(x); }, [] { return identity(); });
}

// The partials of `count` blocks, combined in a fixed order (thread t folds partials t, t + kBlock, ...; then the
// block reduction). Loads bypass L1: the partials were written by other multiprocessors.
__device__ __forceinline__ work_t fold_partials(const work_t* partials, unsigned count, work_t* smem) {
  work_t v = identity();
  for (unsigned i = threadIdx.x; i < count; i += kBlock) v = fold(v, __ldcg(partials + i));
  return block_reduce(v, smem);
}

// The line holding p fetched into L2 ahead of its load (prefetch.global.L2): nothing waits for it, no register holds it.
template <class T>
__device__ __forceinline__ void prefetch_l2(const T* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

}  // namespace at

extern __shared__ __align__(16) unsigned char at_smem[];

extern "C" __global__ void __launch_bounds__(at::kBlock)
autotune_reduce(const at::in_t* __restrict__ in, unsigned long long n, at::acc_t* __restrict__ out,
                unsigned char* __restrict__ workspace) {
  using namespace at;
  work_t* smem = reinterpret_cast<work_t*>(at_smem);
  const u64 threads = static_cast<u64>(gridDim.x) * kBlock;
  const u64 tid = static_cast<u64>(blockIdx.x) * kBlock + threadIdx.x;

  work_t acc[kAccumulators];
#pragma unroll
  for (int a = 0; a < kAccumulators; ++a) acc[a] = identity();
  bool nan = false;  // kTrackNaN: an element was NaN (fminf/fmaxf passed over it)
  // One element into the first accumulator; vector k of a tile into the accumulators.
  auto take = [&](in_t x) {
    acc[0] = step(acc[0], lift(x));
    if constexpr (kTrackNaN) nan |= is_nan_element(x);
  };
  auto take_vector = [&](int k, const Vec& v) {
#pragma unroll
    for (int e = 0; e < kElems; ++e)
      acc[(k * kElems + e) % kAccumulators] = step(acc[(k * kElems + e) % kAccumulators], lift(v.v[e]));
    if constexpr (kTrackNaN) nan |= any_nan(v);
  };

  // A scalar head up to the first kVecBytes-aligned element, whole vectors, and a scalar tail (common.cuh).
  const Split split = split_unaligned<kVecBytes>(in, n);
  const u64 nvec = split.nvec;
  if (tid < split.head) take(in[tid]);
  if (tid < n - split.tail_begin) take(in[split.tail_begin + tid]);

  // Interleaved tiles: load k of thread t is base + k * threads + t, so each load instruction of a warp is coalesced.
  const raw_t* vin = reinterpret_cast<const raw_t*>(in + split.head);
  const u64 tile = threads * kLoads;
  u64 base = 0;
  // One block for more than one tile and at most two (the host's kOneBlockTiles, reduction_launch.hpp): the second
  // tile is prefetched into L2 before the first is loaded, so that its loads wait for L2 rather than for a second
  // round trip to memory. A prefetch holds no register: the loops below and the result's bits are unchanged.
  if (gridDim.x == 1 && nvec > tile && nvec <= 2 * tile) {
#pragma unroll
    for (int k = 0; k < kLoads; ++k)
      if (const u64 i = tile_index<true, kLoads>(tile, k, threads, tid); i < nvec) prefetch_l2(vin + i);
  }
  for (; base + tile <= nvec; base += tile) {  // full tiles: no bounds checks, every load issued before any use
    Vec v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k)
      v[k].raw = load_input<kLoadCs>(vin + tile_index<true, kLoads>(base, k, threads, tid));
#pragma unroll
    for (int k = 0; k < kLoads; ++k) take_vector(k, v[k]);
  }
  if (base < nvec) {  // the last, partial tile
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const u64 i = tile_index<true, kLoads>(base, k, threads, tid);
      if (i < nvec) {
        Vec v;
        v.raw = load_input<kLoadCs>(vin + i);
        take_vector(k, v);
      }
    }
  }
  work_t value = acc[0];
#pragma unroll
  for (int a = 1; a < kAccumulators; ++a) value = step(value, acc[a]);
  if constexpr (kTrackNaN)
    if (nan) value = Bits<work_t>::from(static_cast<bits_t>(kNaNBits));

  if constexpr (kBlockReduce == BlockReduce::atomic) {
    // The seed's naive kernel: one atomic per thread. A thread that saw nothing has nothing to add.
    if (Bits<work_t>::to(value) != static_cast<bits_t>(kIdentityBits)) atomic_combine(out, value);
    return;
  } else {
    value = block_reduce(value, smem);
    if (kSingleBlock || gridDim.x == 1) {  // the only block: its value is the result
      if (threadIdx.x == 0) store(out, value);
      return;
    }
    if constexpr (kFinish == Finish::atomic) {
      if (threadIdx.x == 0) atomic_combine(out, value);
      return;
    } else if constexpr (kFinish == Finish::atomic_last) {
      if (threadIdx.x == 0) finish_atomic_last(value, out, workspace);
      return;
    } else {
      // Two passes: autotune_reduce_finish takes the partials from here; else the last block folds them.
      work_t* partials = reinterpret_cast<work_t*>(workspace + kPartialsOffset);
      finish_from_partials<kFinish == Finish::two_pass>(
          value, reinterpret_cast<unsigned*>(workspace + kTicketOffset),
          [=](work_t v) { partials[blockIdx.x] = v; }, [=] { return fold_partials(partials, gridDim.x, smem); },
          [=](work_t v) { store(out, v); });
    }
  }
}

// The second pass of Finish::two_pass: one block combines the first launch's `count` partials in a fixed order.
extern "C" __global__ void __launch_bounds__(at::kBlock)
autotune_reduce_finish(at::acc_t* __restrict__ out, const unsigned char* __restrict__ workspace, unsigned count) {
  using namespace at;
  work_t* smem = reinterpret_cast<work_t*>(at_smem);
  const work_t value =
      fold_partials(reinterpret_cast<const work_t*>(workspace + kPartialsOffset), count, smem);
  if (threadIdx.x == 0) store(out, value);
}

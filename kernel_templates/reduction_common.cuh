// Device code the reduction templates share (reduce/reduce.cu, segreduce/segreduce.cu, argreduce/argreduce.cu): how
// they load vectors, see a value's bits, take a float min/max, fold a block and finish a grid from partials. Each
// template includes it (`#include "reduction_common.cuh"`, at file scope, after its static_asserts) and
// kernel_source() puts this text in place of the #include (preamble::variant_source). It uses the preamble's in_t,
// kVecBytes (0 in segreduce: one element per load) and kBlock, and common.cuh; an operation (a fold, a warp's
// fold, the identity, where the partials live) comes in as a callable, so that every template keeps its own.

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define AT_HAVE_REDUX 0
#define AT_HAVE_MINMAX_NAN 0
#else
#define AT_HAVE_REDUX 1       // __reduce_{add,min,max}_sync of 32-bit integers (sm_80)
#define AT_HAVE_MINMAX_NAN 1  // min.NaN / max.NaN of f32, f16x2 and bf16x2 (PTX ISA 7.0, sm_80); no f64 form exists
#endif

namespace at {

// Elements per load: kVecBytes of them, or one where kVecBytes is 0 (segreduce.cu).
constexpr int kElems = (kVecBytes ? kVecBytes : static_cast<int>(sizeof(in_t))) / static_cast<int>(sizeof(in_t));
constexpr int kWarps = kBlock / 32;
constexpr int kPow2 = kBlock <= 64 ? 64 : kBlock <= 128 ? 128 : kBlock <= 256 ? 256 : kBlock <= 512 ? 512 : 1024;

// A load of B bytes as its Raw type (common.cuh), or, when it is one element of S = B bytes, as the element itself.
template <int B, int S> struct LoadType { typedef typename Raw<B>::type type; };
template <> struct LoadType<4, 4> { typedef in_t type; };  // one element per load: load it as itself
template <> struct LoadType<8, 8> { typedef in_t type; };
typedef typename LoadType<kElems * static_cast<int>(sizeof(in_t)), static_cast<int>(sizeof(in_t))>::type raw_t;
union Vec {
  raw_t raw;
  in_t v[kElems];
};

// Bit patterns of a value (float/double through the intrinsics; integers and a half's bits are their own bits).
template <class T> struct Bits;
template <> struct Bits<float> {
  typedef unsigned int U;
  static __device__ __forceinline__ float from(U b) { return __uint_as_float(b); }
  static __device__ __forceinline__ U to(float f) { return __float_as_uint(f); }
};
template <> struct Bits<double> {
  typedef unsigned long long U;
  static __device__ __forceinline__ double from(U b) { return __longlong_as_double(static_cast<long long>(b)); }
  static __device__ __forceinline__ U to(double f) { return static_cast<U>(__double_as_longlong(f)); }
};
template <class I> struct IntBits {
  typedef I U;
  static __device__ __forceinline__ I from(U b) { return b; }
  static __device__ __forceinline__ U to(I v) { return v; }
};
template <> struct Bits<int> : IntBits<int> {};
template <> struct Bits<unsigned int> : IntBits<unsigned int> {};
template <> struct Bits<long long> : IntBits<long long> {};
template <> struct Bits<unsigned long long> : IntBits<unsigned long long> {};
template <> struct Bits<signed char> : IntBits<signed char> {};
template <> struct Bits<short> : IntBits<short> {};
template <> struct Bits<unsigned short> : IntBits<unsigned short> {};  // a half's bits

template <class T>
__device__ __forceinline__ bool negative_bit(T v) {
  return static_cast<typename Bits<T>::U>(Bits<T>::to(v) >> (8 * sizeof(T) - 1)) != 0;
}

// The min (Min) or max of a and b whatever their order: for floats (Float) a NaN wins (b != b is only true for NaN:
// no fast-math) and -0.0 < +0.0, so the result does not depend on the order of the operands.
template <bool Min, bool Float, class T>
__device__ __forceinline__ T ordered_minmax(T a, T b) {
  if constexpr (Float) {
    const bool tie = b == a && negative_bit(a) != negative_bit(b);  // +0.0 against -0.0
    if constexpr (Min) return (b < a || b != b || (tie && negative_bit(b))) ? b : a;
    else return (b > a || b != b || (tie && negative_bit(a))) ? b : a;
  } else {
    if constexpr (Min) return b < a ? b : a;
    else return b > a ? b : a;
  }
}

// min.NaN / max.NaN of f32 (AT_HAVE_MINMAX_NAN): a NaN operand gives NaN; a zero's sign follows the hardware's rule.
template <bool Min>
__device__ __forceinline__ float minmax_nan(float a, float b) {
  float r;
  if constexpr (Min) asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  else asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// A float that is a half's value (an element, or an infinity) as that half's bits, Kind as common.cuh's
// half_bits_to_float (1: f16, 2: bf16): exact, no rounding happens.
template <int Kind>
__device__ __forceinline__ unsigned short float_to_half_bits(float f) {
  if constexpr (Kind == 2) {
    return static_cast<unsigned short>(__float_as_uint(f) >> 16);
  } else {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
  }
}

// The block's value from every thread's v, through `smem` (kWarps values): warp_fold(v) in every warp, then in warp
// 0 over the warps' results (identity() in the lanes past them); valid in warp 0's lanes that warp_fold leaves it
// in. Every thread calls it.
template <class T, class WarpFold, class Identity>
__device__ __forceinline__ T block_combine_warps(T v, T* smem, WarpFold warp_fold, Identity identity) {
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  v = warp_fold(v);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_fold(lane < kWarps ? smem[lane] : identity());
  return v;
}

// The block's value, valid in thread 0: a shared-memory tree over `smem` (kBlock values) with fold(a, b) (Tree),
// else block_combine_warps. Every thread calls it; callers separate two calls with a __syncthreads().
template <bool Tree, class T, class Fold, class WarpFold, class Identity>
__device__ __forceinline__ T block_combine(T v, T* smem, Fold fold, WarpFold warp_fold, Identity identity) {
  if constexpr (Tree) {
    const int t = threadIdx.x;
    smem[t] = v;
    __syncthreads();
#pragma unroll
    for (int s = kPow2 / 2; s > 0; s >>= 1) {
      if (t < s && t + s < kBlock) smem[t] = fold(smem[t], smem[t + s]);
      __syncthreads();
    }
    return smem[0];
  } else {
    return block_combine_warps(v, smem, warp_fold, identity);
  }
}

// A grid's finish from per-block partials, after the block's value v (valid in thread 0): thread 0 stores it
// (store_partial(v)); with two passes that is all (a second launch folds them); else the last block to finish
// (common.cuh's ticket) folds every partial (fold_partials(), every thread), thread 0 stores the result (store)
// and sets the ticket back to zero for the next launch: no reset by the host.
template <bool TwoPass, class T, class StorePartial, class FoldPartials, class Store>
__device__ __forceinline__ void finish_from_partials(T v, unsigned* ticket, StorePartial store_partial,
                                                     FoldPartials fold_partials, Store store) {
  if constexpr (TwoPass) {
    if (threadIdx.x == 0) store_partial(v);
  } else {
    if (threadIdx.x == 0) {
      store_partial(v);
      __threadfence();  // the partial is visible device-wide before the ticket says so
    }
    if (!last_block_to_finish(ticket)) return;  // its __syncthreads also frees the block fold's shared slots
    v = fold_partials();
    if (threadIdx.x == 0) {
      store(v);
      *ticket = 0;
    }
  }
}

}  // namespace at

// Arg-min / arg-max kernel template, compiled with NVRTC once per variant.
//
// Between the preamble and this text comes the device code the templates share (kernel_templates/common.cuh: u64,
// Raw, split_unaligned, tile_index, last_block_to_finish); the reduction templates' (reduction_common.cuh: Vec, the
// block fold, the finish from partials) and order.cuh are put in place of their #includes below.
//
// Compile-time constants in namespace `at`, from the preamble autotune::kernel_source() generates from an
// ArgReduceProblem and an ArgReduceConfig:
//   in_t                  element type: a half's 16 bits (unsigned short) for f16 and bf16
//   cmp_t                 the type its values compare in (order.cuh): float for halves (exact), int for i8 and i16,
//                         in_t for the others
//   kHalf                 0, or 1 for f16, 2 for bf16 (common.cuh's half_bits_to_float)
//   kArgMax               arg-max (else arg-min)
//   kIsFloat              the values are floats (f32, f64, f16, bf16)
//   kIdentityBits         bits of the element no element is beaten by: -inf / +inf for floats, the type's lowest /
//                         highest for integers (arg-max / arg-min)
//   kEmptyBits            the value written for n = 0 (CUB's: numeric_limits lowest() / max()), with index 1
//   kBlock, kVecBytes, kLoads, kAccumulators, kBlockReduce, kFinish, kSingleBlock: as in reduce.cu
//   kCluster              0, or the blocks of the one thread-block cluster the host launches (sm_90; 8, or the
//                         non-portable 16): the blocks combine their winners through distributed shared memory behind
//                         two cluster barriers, with no global partials, fence or ticket (the small-n path: those are
//                         the finish's whole cost)
//   kPack                 types of up to 32 bits: below n = 2^32, a thread's candidate becomes one 64-bit key
//                         (pack(), below) whose unsigned maximum is the answer: the block reduction is a u64 max
//                         (shuffles, or two __reduce_max_sync with kBlockReduce == warp_reduce), the grid's finish one
//                         atomicMax per block into the workspace's key word plus the ticket, and the last block's
//                         thread 0 decodes the key (no partials to fold, no second block reduction). From n = 2^32
//                         the pair path.
//   kFinish == atomic     (sm_90; every type, the pair path) the grid's finish without partials: thread 0 of each block
//                         turns the block's winner into a 128-bit key (order.cuh's pack_wide: order_key(v) << 64 |
//                         ~index) and keeps the greater of it and the workspace's key by 128-bit compare-and-swap
//                         (a block whose winner is beaten stops after one), then the ticket; the last block's thread
//                         0 takes the key (and leaves 0 for the next launch) and decodes it. What pack=u64 does for
//                         types of up to 32 bits, for the 8-byte types no 64-bit key holds.
//
// The order (the semantics of argreduce_problem.hpp): a value beats another when it is more extreme; NaN beats every
// number; equal values (==, so -0.0 equals +0.0; two NaNs are equal) go to the smaller index. Over pairs (value,
// index) that is a total order, so combine() below is associative and commutative and any tree gives the one answer:
// the result does not depend on the grid.
//
// A thread meets its elements in increasing index order within each of its accumulators (interleaved tiles: load k
// of tile t is before load k + 1 and before tile t + 1), so its scan keeps a candidate only when strictly beaten
// (beats()) and never compares indices; it keeps the candidate's value (cmp_t: a half is converted once per element)
// and a 32-bit ordinal (its tile, load and element) instead of the 64-bit index, and turns them into the element's
// bits and its index once, at the end (storage_of()). A thread that never takes an element (every one of its
// elements equals the identity) reports index kNone; if the whole input is such, the answer is index 0, which the
// final store writes.
//
// Ordinals: a thread reads at most n / (kBlock * grid) + 1 vectors; with 64 threads at least, 32 bits hold its
// ordinals for n < 2^38 elements (the host refuses more: launcher.cpp).
//
// The packed key (kPack): order(v) << 32 | ~index, where order() maps the values to 32-bit unsigned integers in the
// order of "more extreme" (arg-max: ascending; arg-min: the complement), every NaN to 0xFFFFFFFF above every number,
// and -0.0 to +0.0's image (they are equal); a half's from its 16 bits, an i8's or i16's from its int. The maximum
// key is then the most extreme value at its smallest index, the pairs' total order exactly; key 0 (no candidate) is
// below every element's key, as ~index >= 1 for n < 2^32. Decoding gives the index and, for every value but a zero or
// a NaN, the value's bits (order() is a bijection on the rest); for those two the bits come from in[index] (the sign
// of the zero, the NaN's payload).

static_assert(at::kBlock >= 64 && at::kBlock <= 1024 && at::kBlock % 32 == 0, "block must be a multiple of 32 in 64..1024");
static_assert(at::kLoads >= 1 && at::kLoads <= 16, "loads in flight must be in 1..16");
static_assert(at::kVecBytes >= sizeof(at::in_t) && at::kVecBytes <= 16 && at::kVecBytes % sizeof(at::in_t) == 0 &&
              (at::kVecBytes & (at::kVecBytes - 1)) == 0, "vector width must be a power of two from the element size to 16 bytes");
static_assert(at::kAccumulators == 1 || at::kAccumulators == 2 || at::kAccumulators == 4, "1, 2 or 4 accumulators");
static_assert(at::kBlockReduce == at::BlockReduce::shared_tree || at::kBlockReduce == at::BlockReduce::warp_shuffle ||
                  at::kBlockReduce == at::BlockReduce::warp_reduce,
              "block reduction is shared_tree, warp_shuffle or warp_reduce");
static_assert(!at::kPack || (sizeof(at::in_t) <= 4 && at::kBlockReduce != at::BlockReduce::shared_tree),
              "packed keys hold a value of up to 32 bits and travel by shuffles or __reduce_max_sync");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
static_assert(at::kBlockReduce != at::BlockReduce::warp_reduce, "__reduce_max_sync needs sm_80 or newer");
#endif
static_assert(at::kFinish == at::Finish::last_block || at::kFinish == at::Finish::two_pass ||
                  at::kFinish == at::Finish::atomic,
              "finish is last_block, two_pass or atomic");
static_assert(!at::kPack || at::kFinish == at::Finish::last_block, "packed keys finish in the last block");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(at::kFinish != at::Finish::atomic, "the wide keys' 128-bit compare-and-swap needs sm_90 or newer");
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
static_assert(at::kCluster == 0, "thread-block clusters need sm_90 or newer");
#endif
static_assert(at::kCluster == 0 || (at::kCluster >= 2 && at::kCluster <= 16 && at::kFinish == at::Finish::last_block),
              "a cluster of 2..16 blocks, spelled finish=last_block");
static_assert(at::kTicketOffset % sizeof(unsigned) == 0 && at::kTicketOffset + sizeof(unsigned) <= at::kKeyOffset &&
              at::kKeyOffset % 16 == 0 && at::kKeyOffset + 16 <= at::kPartialsOffset && at::kPartialsOffset % 16 == 0,
              "the workspace holds the ticket, the 64-bit or 128-bit key, then 16-byte partials");

#include "reduction_common.cuh"

namespace at {

// The order of (value, index) pairs and its packed keys (from_bits, better, same, Pair, combine, store, order, pack,
// unpack_store): a fragment of its own, which tests/cpu/test_argreduce.cpp compiles for the host.
#include "order.cuh"

#if AT_HAVE_REDUX
// The warp's winner in every lane, by 32-bit __reduce_{max,min}_sync (kBlockReduce == warp_reduce, sm_80): the
// greatest order_key() (its high word, then the low word among the lanes holding the greatest high word), then the
// smallest index among the lanes holding that key (the same in two halves), then the element from the lane holding
// that index (a zero's sign, a NaN's payload: the element at the index, as combine() keeps it). Six warp-wide
// operations and one shuffle, where the shuffle fold below takes ten shuffles of a 64-bit value and index and five
// combine()s of the pair: the fold of the pair path's two block reductions (the block's own and the last block's
// fold of the partials), which the packed keys avoid for types of up to 32 bits but an 8-byte type cannot.
__device__ __forceinline__ Pair warp_fold_redux(Pair p) {
  constexpr unsigned kAll = 0xFFFFFFFFu;
  const u64 key = order_key(p.v);
  const unsigned hi = static_cast<unsigned>(key >> 32), lo = static_cast<unsigned>(key);
  const unsigned top_hi = __reduce_max_sync(kAll, hi);
  const unsigned top_lo = __reduce_max_sync(kAll, hi == top_hi ? lo : 0u);
  const bool top = hi == top_hi && lo == top_lo;
  const unsigned index_hi = __reduce_min_sync(kAll, top ? static_cast<unsigned>(p.i >> 32) : ~0u);
  const unsigned index_lo =
      __reduce_min_sync(kAll, top && static_cast<unsigned>(p.i >> 32) == index_hi ? static_cast<unsigned>(p.i) : ~0u);
  const u64 index = (static_cast<u64>(index_hi) << 32) | index_lo;
  const int holder = __ffs(__ballot_sync(kAll, top && p.i == index)) - 1;
  return Pair{static_cast<in_t>(__shfl_sync(kAll, p.v, holder)), index};
}
#endif

__device__ __forceinline__ Pair warp_fold(Pair p) {
#if AT_HAVE_REDUX
  if constexpr (kBlockReduce == BlockReduce::warp_reduce) return warp_fold_redux(p);
#endif
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    Pair o;
    o.v = __shfl_down_sync(0xFFFFFFFFu, p.v, offset);
    o.i = __shfl_down_sync(0xFFFFFFFFu, p.i, offset);
    p = combine(p, o);
  }
  return p;
}

// The block's winner, valid in thread 0. Every thread calls it; `smem` holds ArgReduceConfig::shared_bytes().
__device__ __forceinline__ Pair block_reduce(Pair p, Pair* smem) {
  return block_combine<kBlockReduce == BlockReduce::shared_tree>(
      p, smem, [](Pair a, Pair b) { return combine(a, b); }, [](Pair x) { return warp_fold(x); },
      [] { return identity(); });
}

// `count` partials (16 bytes each: value, index) in a fixed order. Loads bypass L1: other multiprocessors wrote them.
__device__ __forceinline__ Pair fold_partials(const unsigned char* partials, unsigned count, Pair* smem) {
  Pair p = identity();
  for (unsigned b = threadIdx.x; b < count; b += kBlock) {
    Pair o;
    o.v = __ldcg(reinterpret_cast<const in_t*>(partials + 16ull * b));
    o.i = __ldcg(reinterpret_cast<const u64*>(partials + 16ull * b + 8));
    p = combine(p, o);
  }
  return block_reduce(p, smem);
}

__device__ __forceinline__ void store_partial(unsigned char* partials, unsigned b, Pair p) {
  *reinterpret_cast<in_t*>(partials + 16ull * b) = p.v;
  *reinterpret_cast<u64*>(partials + 16ull * b + 8) = p.i;
}

// ---- Packed keys (kPack; types of up to 32 bits): the block's and the grid's greatest key ----

__device__ __forceinline__ u64 max_u64(u64 a, u64 b) { return b > a ? b : a; }

// The greatest key of the warp: in lane 0 (shuffles) or in every lane (__reduce_max_sync on the high words, then on
// the low words of the lanes that hold the greatest high word: exactly the 64-bit maximum).
__device__ __forceinline__ u64 warp_max(u64 k) {
#if AT_HAVE_REDUX
  if constexpr (kBlockReduce == BlockReduce::warp_reduce) {
    const unsigned hi = static_cast<unsigned>(k >> 32);
    const unsigned top = __reduce_max_sync(0xFFFFFFFFu, hi);
    const unsigned lo = __reduce_max_sync(0xFFFFFFFFu, hi == top ? static_cast<unsigned>(k) : 0u);
    return (static_cast<u64>(top) << 32) | lo;
  } else
#endif
  {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) k = max_u64(k, __shfl_down_sync(0xFFFFFFFFu, k, offset));
    return k;
  }
}

// The block's greatest key, valid in thread 0. Every thread calls it; `smem` holds one u64 per warp.
__device__ __forceinline__ u64 block_max(u64 k, u64* smem) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  k = warp_max(k);
  if (lane == 0) smem[warp] = k;
  __syncthreads();
  if (warp == 0) k = warp_max(lane < kWarps ? smem[lane] : 0ull);
  return k;
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// The cluster path (sm_90 PTX: ISA 8.0). Every thread of every block of the cluster calls cluster_sync().
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// The Pair at the same shared-memory address as `local` in block `rank` of the cluster.
__device__ __forceinline__ Pair remote_pair(const Pair* local, unsigned rank) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(local));
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
  unsigned long long v, i;
  asm volatile("ld.shared::cluster.u64 %0, [%1];" : "=l"(v) : "r"(remote) : "memory");
  asm volatile("ld.shared::cluster.u64 %0, [%1+8];" : "=l"(i) : "r"(remote) : "memory");
  return Pair{from_bits(v), i};  // a value of under 8 bytes is in the low bytes (little-endian)
}
// The u64 at the same shared-memory address as `local` in block `rank` of the cluster.
__device__ __forceinline__ u64 remote_u64(const u64* local, unsigned rank) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(local));
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
  unsigned long long v;
  asm volatile("ld.shared::cluster.u64 %0, [%1];" : "=l"(v) : "r"(remote) : "memory");
  return v;
}

// The cluster's finish of the blocks' winners (a Pair, or a packed key): each in its own shared slot, block 0 reads
// the others' through the cluster's shared memory, folds them in warp 0 and stores the result. The second barrier
// keeps every block (and so its shared memory) alive until block 0 has read it. Every thread calls it.
__device__ __forceinline__ Pair remote(const Pair* local, unsigned rank) { return remote_pair(local, rank); }
__device__ __forceinline__ u64 remote(const u64* local, unsigned rank) { return remote_u64(local, rank); }
__device__ __forceinline__ Pair fold_warp(Pair p) { return warp_fold(p); }
__device__ __forceinline__ u64 fold_warp(u64 k) { return warp_max(k); }
__device__ __forceinline__ Pair nothing(Pair) { return identity(); }
__device__ __forceinline__ u64 nothing(u64) { return 0ull; }
__device__ __forceinline__ void store_result(unsigned char* out, Pair p, const in_t*, u64 n) { store(out, p, n); }
__device__ __forceinline__ void store_result(unsigned char* out, u64 k, const in_t* in, u64 n) {
  unpack_store(out, k, in, n);
}
template <class T>
__device__ __forceinline__ void cluster_finish(T mine, const in_t* in, u64 n, unsigned char* out) {
  __shared__ T winner;
  if (threadIdx.x == 0) winner = mine;
  cluster_sync();
  if (cluster_rank() == 0 && threadIdx.x < 32) {
    const T q = fold_warp(threadIdx.x < kCluster ? remote(&winner, threadIdx.x) : nothing(mine));
    if (threadIdx.x == 0) store_result(out, q, in, n);
  }
  cluster_sync();
}
#endif

// The packed finish: the block's greatest key, then one cluster (kCluster), one block, or every block's atomicMax
// into the workspace's key and the ticket, the last block's thread 0 taking the key (and resetting it to 0, as the
// ticket) and writing the result. Only thread 0 of a block waits on the global atomics; no __syncthreads after them.
__device__ __forceinline__ void finish_packed(u64 k, const in_t* in, u64 n, unsigned char* out,
                                              unsigned char* workspace, u64* smem) {
  k = block_max(k, smem);
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  if constexpr (kCluster > 0) {
    cluster_finish(k, in, n, out);
    return;
  }
#endif
  if (threadIdx.x != 0) return;
  if (kSingleBlock || gridDim.x == 1) {
    unpack_store(out, k, in, n);
    return;
  }
  u64* key = reinterpret_cast<u64*>(workspace + kKeyOffset);
  unsigned* ticket = reinterpret_cast<unsigned*>(workspace + kTicketOffset);
  if (k != 0ull) {
    atomicMax(key, k);
    __threadfence();  // the maximum is in place before the ticket says so
  }
  if (atomicAdd(ticket, 1u) != gridDim.x - 1) return;
  __threadfence();  // ... and this block reads it after every other block's ticket
  const u64 best = atomicExch(key, 0ull);  // ready for the next launch, as the ticket below
  *ticket = 0;
  unpack_store(out, best, in, n);
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// ---- Wide keys (kFinish == atomic; sm_90 PTX: ISA 8.3): the grid's greatest 128-bit key ----

// atom.cas.b128 and atom.exch.b128 on a 16-byte aligned global word: the old key. The two halves are packed the same
// way in every access, so the order of the words in memory is this code's alone.
__device__ __forceinline__ WideKey cas_wide(WideKey* slot, WideKey expected, WideKey desired) {
  WideKey old;
  asm volatile(
      "{\n\t.reg .b128 d, c, v;\n\t"
      "mov.b128 c, {%2, %3};\n\t"
      "mov.b128 v, {%4, %5};\n\t"
      "atom.relaxed.gpu.global.cas.b128 d, [%6], c, v;\n\t"
      "mov.b128 {%0, %1}, d;\n\t}"
      : "=l"(old.lo), "=l"(old.hi)
      : "l"(expected.lo), "l"(expected.hi), "l"(desired.lo), "l"(desired.hi), "l"(slot)
      : "memory");
  return old;
}
__device__ __forceinline__ WideKey exch_wide(WideKey* slot, WideKey desired) {
  WideKey old;
  asm volatile(
      "{\n\t.reg .b128 d, v;\n\t"
      "mov.b128 v, {%2, %3};\n\t"
      "atom.relaxed.gpu.global.exch.b128 d, [%4], v;\n\t"
      "mov.b128 {%0, %1}, d;\n\t}"
      : "=l"(old.lo), "=l"(old.hi)
      : "l"(desired.lo), "l"(desired.hi), "l"(slot)
      : "memory");
  return old;
}

// The wide finish, by thread 0 of each block with the block's winner: the greater of its key and the workspace's
// kept by compare-and-swap (the first try expects an empty slot; a key already greater ends it), then the ticket;
// the last block takes the key, leaving 0, resets the ticket and writes the result. As finish_packed's atomicMax, in
// 128 bits.
__device__ __forceinline__ void finish_wide(WideKey k, const in_t* in, u64 n, unsigned char* out,
                                            unsigned char* workspace) {
  WideKey* slot = reinterpret_cast<WideKey*>(workspace + kKeyOffset);
  unsigned* ticket = reinterpret_cast<unsigned*>(workspace + kTicketOffset);
  if (k.hi != 0ull || k.lo != 0ull) {
    WideKey expected{0ull, 0ull};
    for (;;) {
      const WideKey was = cas_wide(slot, expected, k);
      if ((was.hi == expected.hi && was.lo == expected.lo) || !wider(k, was)) break;  // stored, or beaten
      expected = was;
    }
    __threadfence();  // the maximum is in place before the ticket says so
  }
  if (atomicAdd(ticket, 1u) != gridDim.x - 1) return;
  __threadfence();  // ... and this block reads it after every other block's ticket
  const WideKey best = exch_wide(slot, WideKey{0ull, 0ull});  // ready for the next launch, as the ticket below
  *ticket = 0;
  unpack_wide_store(out, best, in, n);
}
#endif

// The line holding p fetched into L2 ahead of its load (prefetch.global.L2): nothing waits for it, no register holds it.
template <class T>
__device__ __forceinline__ void prefetch_l2(const T* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

}  // namespace at

extern __shared__ __align__(16) unsigned char at_smem[];

extern "C" __global__ void __launch_bounds__(at::kBlock)
autotune_argreduce(const at::in_t* __restrict__ in, unsigned long long n, unsigned char* __restrict__ out,
                   unsigned char* __restrict__ workspace) {
  using namespace at;
  Pair* smem = reinterpret_cast<Pair*>(at_smem);
  const u64 threads = static_cast<u64>(gridDim.x) * kBlock;
  const u64 tid = static_cast<u64>(blockIdx.x) * kBlock + threadIdx.x;

  // The scalar head and tail (common.cuh), at most one element each per thread, with the full combine.
  const Split split = split_unaligned<kVecBytes>(in, n);
  Pair edge = identity();
  if (tid < split.head) edge = combine(edge, Pair{in[tid], tid});
  if (tid < n - split.tail_begin) edge = combine(edge, Pair{in[split.tail_begin + tid], split.tail_begin + tid});

  // Whole vectors in interleaved tiles: load k of tile t is vector t * tile + k * threads + tid, whose ordinal is
  // (t * kLoads + k) * kElems + e for its element e.
  cmp_t best[kAccumulators];
  unsigned ord[kAccumulators];
#pragma unroll
  for (int a = 0; a < kAccumulators; ++a) best[a] = value_of(from_bits(kIdentityBits)), ord[a] = kNoOrdinal;
  const raw_t* vin = reinterpret_cast<const raw_t*>(in + split.head);
  const u64 nvec = split.nvec;
  const u64 tile = threads * kLoads;
  u64 base = 0;
  unsigned ord_base = 0;
  // One block for more than one tile and at most two (the host's kOneBlockTiles, reduction_launch.hpp): the second
  // tile is prefetched into L2 before the first is loaded, as in reduce.cu (the loops below are unchanged).
  if (gridDim.x == 1 && nvec > tile && nvec <= 2 * tile) {
#pragma unroll
    for (int k = 0; k < kLoads; ++k)
      if (const u64 i = tile_index<true, kLoads>(tile, k, threads, tid); i < nvec) prefetch_l2(vin + i);
  }
  for (; base + tile <= nvec; base += tile, ord_base += kLoads * kElems) {  // full tiles: every load issued first
    Vec v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) v[k].raw = vin[tile_index<true, kLoads>(base, k, threads, tid)];
#pragma unroll
    for (int k = 0; k < kLoads; ++k)
#pragma unroll
      for (int e = 0; e < kElems; ++e) {
        const int a = (k * kElems + e) % kAccumulators;
        const cmp_t x = value_of(v[k].v[e]);
        if (beats(x, best[a])) best[a] = x, ord[a] = ord_base + k * kElems + e;
      }
  }
  if (base < nvec) {  // the last, partial tile
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const u64 i = tile_index<true, kLoads>(base, k, threads, tid);
      if (i < nvec) {
        Vec v;
        v.raw = vin[i];
#pragma unroll
        for (int e = 0; e < kElems; ++e) {
          const int a = (k * kElems + e) % kAccumulators;
          const cmp_t x = value_of(v.v[e]);
          if (beats(x, best[a])) best[a] = x, ord[a] = ord_base + k * kElems + e;
        }
      }
    }
  }
  // Ordinals to indices: vector q * threads + tid (q = t * kLoads + k), element e of it; values to elements.
  Pair p = edge;
#pragma unroll
  for (int a = 0; a < kAccumulators; ++a) {
    u64 index = kNone;
    in_t element = from_bits(kIdentityBits);
    if (ord[a] != kNoOrdinal) {
      const u64 q = ord[a] / kElems;
      index = split.head + (q * threads + tid) * kElems + ord[a] % kElems;
      element = storage_of(best[a], in, index);
    }
    p = combine(p, Pair{element, index});
  }

  if constexpr (kPack) {
    if (n < (1ull << 32)) {  // every index fits the key's 32 bits (and ~index is never 0)
      finish_packed(pack(p), in, n, out, workspace, reinterpret_cast<u64*>(at_smem));
      return;
    }
  }
  p = block_reduce(p, smem);
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  if constexpr (kCluster > 0) {
    cluster_finish(p, in, n, out);
    return;
  }
#endif
  if (kSingleBlock || gridDim.x == 1) {  // the only block: its winner is the result
    if (threadIdx.x == 0) store(out, p, n);
    return;
  }
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  if constexpr (kFinish == Finish::atomic) {  // the wide keys: no partials
    if (threadIdx.x == 0) finish_wide(pack_wide(p), in, n, out, workspace);
    return;
  }
#endif
  // Two passes: autotune_argreduce_finish takes the partials from here; else the last block folds them.
  unsigned char* partials = workspace + kPartialsOffset;
  finish_from_partials<kFinish == Finish::two_pass>(
      p, reinterpret_cast<unsigned*>(workspace + kTicketOffset),
      [&](Pair q) { store_partial(partials, blockIdx.x, q); }, [&] { return fold_partials(partials, gridDim.x, smem); },
      [&](Pair q) { store(out, q, n); });
}

// The second pass of Finish::two_pass: one block combines the first launch's `count` partials.
extern "C" __global__ void __launch_bounds__(at::kBlock)
autotune_argreduce_finish(unsigned char* __restrict__ out, const unsigned char* __restrict__ workspace,
                          unsigned count, unsigned long long n) {
  using namespace at;
  Pair* smem = reinterpret_cast<Pair*>(at_smem);
  const Pair p = fold_partials(workspace + kPartialsOffset, count, smem);
  if (threadIdx.x == 0) store(out, p, n);
}

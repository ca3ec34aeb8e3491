// Arg-reductions without a GPU: problem keys, the family's parse and CLI options, configuration keys and validity,
// the search space, the launch plan, the input generator and the CPU reference (ties, NaN, signed zeros, empty input,
// the first index); then NVRTC compiles a joint pairwise covering of each case's spaces, every variant under
// nvrtc_full (suite nvrtc_argreduce). Expected values are worked out by hand here, never taken from the code under
// test.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "autotune/argreduce_problem.hpp"
#include "autotune/error.hpp"
#include "core/family.hpp"
#include "kernel_templates/argreduce/launcher.hpp"
#include "kernel_templates/argreduce/reference.hpp"
#include "kernel_templates/argreduce/space.hpp"
#include "kernel_templates/half_host.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"

using namespace autotune;

namespace {

ArgReduceProblem make(ArgOp op, ValueType t, std::uint64_t n = 0, const char* dist = "uniform") {
  ArgReduceProblem p;
  p.op = op, p.type = t, p.n = n, p.distribution = dist;
  return p;
}

template <class T>
ArgExpected reference(ArgOp op, const std::vector<T>& v) {
  constexpr ValueType t = std::is_same_v<T, float>          ? ValueType::f32
                          : std::is_same_v<T, double>       ? ValueType::f64
                          : std::is_same_v<T, std::int32_t> ? ValueType::i32
                          : std::is_same_v<T, std::uint32_t> ? ValueType::u32
                          : std::is_same_v<T, std::int64_t> ? ValueType::i64
                          : std::is_same_v<T, std::int8_t>  ? ValueType::i8
                          : std::is_same_v<T, std::int16_t> ? ValueType::i16
                                                            : ValueType::u64;
  return reference_argreduce(make(op, t), v.data(), v.size());
}

// Halves given by their bits.
ArgExpected reference_halves(ArgOp op, ValueType t, const std::vector<std::uint16_t>& bits) {
  return reference_argreduce(make(op, t), bits.data(), bits.size());
}

// Every ValueType: the 32- and 64-bit ones and the narrow ones.
std::vector<ValueType> every_value_type() {
  std::vector<ValueType> all = all_value_types();
  all.insert(all.end(), narrow_value_types().begin(), narrow_value_types().end());
  return all;
}

std::uint64_t fbits(float f) { return std::bit_cast<std::uint32_t>(f); }
std::uint64_t dbits(double d) { return std::bit_cast<std::uint64_t>(d); }

DeviceInfo h100_like() {
  DeviceInfo d;
  d.name = "test";
  d.cc_major = 9, d.cc_minor = 0, d.sm_count = 132, d.max_threads_per_block = 1024;
  d.shared_per_block_optin = 227 * 1024;
  return d;
}

const float kNaNF = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfF = std::numeric_limits<float>::infinity();

}  // namespace

// The template's own order of pairs and packed keys (kernel_templates/argreduce/order.cuh) compiled for the host, once
// per type of up to 32 bits and operation (the types of the packed keys), each in a namespace holding the constants
// the preamble gives it (checked against kernel_source() below). Anonymous: each test file's host copies stay its own.
#define AT_HOST_DEVICE inline
#define ARG_HOST_ORDER_CONSTANTS(NS, T, CMP, HALF, MAX, FLOAT, IDENTITY, EMPTY) \
  namespace NS::at {                                                            \
  typedef unsigned long long u64;                                               \
  typedef T in_t;                                                               \
  typedef CMP cmp_t;                                                            \
  constexpr int kHalf = HALF;                                                   \
  constexpr bool kArgMax = MAX, kIsFloat = FLOAT;                               \
  constexpr u64 kIdentityBits = IDENTITY, kEmptyBits = EMPTY;                   \
  }
// What the checks below call, by the same names.
#define ARG_HOST_ORDER_API(NS, TYPE, OP, CMP_NAME)                                                          \
  namespace NS {                                                                                            \
  struct Api {                                                                                              \
    typedef at::in_t T;                                                                                     \
    typedef at::cmp_t Value;                                                                                \
    typedef at::Pair Pair;                                                                                  \
    static constexpr int kHalf = at::kHalf;                                                                 \
    static constexpr const char* kCompare = CMP_NAME;                                                       \
    static constexpr ValueType kType = TYPE;                                                                \
    static constexpr ArgOp kOp = OP;                                                                        \
    static constexpr unsigned long long kIdentityBits = at::kIdentityBits, kEmptyBits = at::kEmptyBits;     \
    static constexpr bool kArgMax = at::kArgMax;                                                            \
    static T identity_value() { return at::from_bits(at::kIdentityBits); }                                  \
    static Pair none() { return at::identity(); }                                                           \
    static bool better(T b, T a) { return at::better(b, a); }                                              \
    static Value value_of(T x) { return at::value_of(x); }                                                  \
    static bool beats(Value b, Value a) { return at::beats(b, a); }                                         \
    static T storage_of(Value v, const T* in, unsigned long long i) { return at::storage_of(v, in, i); }    \
    static unsigned order(T x) { return at::order(x); }                                                     \
    static unsigned long long order_key(T x) { return at::order_key(x); }                                   \
    static Pair combine(Pair a, Pair b) { return at::combine(a, b); }                                       \
    static void store(unsigned char* out, Pair p, unsigned long long n) { at::store(out, p, n); }           \
    static unsigned long long pack(Pair p) { return at::pack(p); }                                          \
    static void unpack_store(unsigned char* out, unsigned long long k, const T* in, unsigned long long n) { \
      at::unpack_store(out, k, in, n);                                                                      \
    }                                                                                                       \
    typedef at::WideKey WideKey;                                                                            \
    static WideKey pack_wide(Pair p) { return at::pack_wide(p); }                                           \
    static bool wider(WideKey a, WideKey b) { return at::wider(a, b); }                                     \
    static void unpack_wide_store(unsigned char* out, WideKey k, const T* in, unsigned long long n) {       \
      at::unpack_wide_store(out, k, in, n);                                                                 \
    }                                                                                                       \
  };                                                                                                        \
  }
namespace {
ARG_HOST_ORDER_CONSTANTS(f32_max, float, float, 0, true, true, 0xff800000ull, 0xff7fffffull)   // -inf; -FLT_MAX
ARG_HOST_ORDER_CONSTANTS(f32_min, float, float, 0, false, true, 0x7f800000ull, 0x7f7fffffull)  // +inf; FLT_MAX
ARG_HOST_ORDER_CONSTANTS(i32_max, int, int, 0, true, false, 0x80000000ull, 0x80000000ull)      // INT_MIN
ARG_HOST_ORDER_CONSTANTS(i32_min, int, int, 0, false, false, 0x7fffffffull, 0x7fffffffull)     // INT_MAX
ARG_HOST_ORDER_CONSTANTS(u32_max, unsigned int, unsigned int, 0, true, false, 0ull, 0ull)
ARG_HOST_ORDER_CONSTANTS(u32_min, unsigned int, unsigned int, 0, false, false, 0xffffffffull, 0xffffffffull)
// Halves as their bits, compared as float: -inf / +inf, and CUB's -65504 / 65504 (f16) and bf16's lowest() / max().
ARG_HOST_ORDER_CONSTANTS(f16_max, unsigned short, float, 1, true, true, 0xfc00ull, 0xfbffull)
ARG_HOST_ORDER_CONSTANTS(f16_min, unsigned short, float, 1, false, true, 0x7c00ull, 0x7bffull)
ARG_HOST_ORDER_CONSTANTS(bf16_max, unsigned short, float, 2, true, true, 0xff80ull, 0xff7full)
ARG_HOST_ORDER_CONSTANTS(bf16_min, unsigned short, float, 2, false, true, 0x7f80ull, 0x7f7full)
// i8 and i16, compared as int: their own extremes.
ARG_HOST_ORDER_CONSTANTS(i8_max, signed char, int, 0, true, false, 0x80ull, 0x80ull)      // -128
ARG_HOST_ORDER_CONSTANTS(i8_min, signed char, int, 0, false, false, 0x7full, 0x7full)     // 127
ARG_HOST_ORDER_CONSTANTS(i16_max, short, int, 0, true, false, 0x8000ull, 0x8000ull)       // -32768
ARG_HOST_ORDER_CONSTANTS(i16_min, short, int, 0, false, false, 0x7fffull, 0x7fffull)      // 32767
// 8-byte types: no packed key, but their order keys (order_key) for the warp fold by __reduce_*_sync.
ARG_HOST_ORDER_CONSTANTS(f64_max, double, double, 0, true, true, 0xfff0000000000000ull, 0xffefffffffffffffull)
ARG_HOST_ORDER_CONSTANTS(f64_min, double, double, 0, false, true, 0x7ff0000000000000ull, 0x7fefffffffffffffull)
ARG_HOST_ORDER_CONSTANTS(i64_max, long long, long long, 0, true, false, 0x8000000000000000ull, 0x8000000000000000ull)
ARG_HOST_ORDER_CONSTANTS(i64_min, long long, long long, 0, false, false, 0x7fffffffffffffffull, 0x7fffffffffffffffull)
ARG_HOST_ORDER_CONSTANTS(u64_max, unsigned long long, unsigned long long, 0, true, false, 0ull, 0ull)
ARG_HOST_ORDER_CONSTANTS(u64_min, unsigned long long, unsigned long long, 0, false, false, ~0ull, ~0ull)
namespace f32_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace f32_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i32_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i32_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace u32_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace u32_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace f16_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace f16_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace bf16_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace bf16_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i8_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i8_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i16_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i16_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace f64_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace f64_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i64_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i64_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace u64_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace u64_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
ARG_HOST_ORDER_API(f32_max, ValueType::f32, ArgOp::argmax, "float")
ARG_HOST_ORDER_API(f32_min, ValueType::f32, ArgOp::argmin, "float")
ARG_HOST_ORDER_API(i32_max, ValueType::i32, ArgOp::argmax, "int")
ARG_HOST_ORDER_API(i32_min, ValueType::i32, ArgOp::argmin, "int")
ARG_HOST_ORDER_API(u32_max, ValueType::u32, ArgOp::argmax, "unsigned int")
ARG_HOST_ORDER_API(u32_min, ValueType::u32, ArgOp::argmin, "unsigned int")
ARG_HOST_ORDER_API(f16_max, ValueType::f16, ArgOp::argmax, "float")
ARG_HOST_ORDER_API(f16_min, ValueType::f16, ArgOp::argmin, "float")
ARG_HOST_ORDER_API(bf16_max, ValueType::bf16, ArgOp::argmax, "float")
ARG_HOST_ORDER_API(bf16_min, ValueType::bf16, ArgOp::argmin, "float")
ARG_HOST_ORDER_API(i8_max, ValueType::i8, ArgOp::argmax, "int")
ARG_HOST_ORDER_API(i8_min, ValueType::i8, ArgOp::argmin, "int")
ARG_HOST_ORDER_API(i16_max, ValueType::i16, ArgOp::argmax, "int")
ARG_HOST_ORDER_API(i16_min, ValueType::i16, ArgOp::argmin, "int")
ARG_HOST_ORDER_API(f64_max, ValueType::f64, ArgOp::argmax, "double")
ARG_HOST_ORDER_API(f64_min, ValueType::f64, ArgOp::argmin, "double")
ARG_HOST_ORDER_API(i64_max, ValueType::i64, ArgOp::argmax, "long long")
ARG_HOST_ORDER_API(i64_min, ValueType::i64, ArgOp::argmin, "long long")
ARG_HOST_ORDER_API(u64_max, ValueType::u64, ArgOp::argmax, "unsigned long long")
ARG_HOST_ORDER_API(u64_min, ValueType::u64, ArgOp::argmin, "unsigned long long")
// Every type and operation compiled above, 8-byte ones first.
#define AT_EVERY_HOST_API                                                                                           \
  f64_max::Api, f64_min::Api, i64_max::Api, i64_min::Api, u64_max::Api, u64_min::Api, f32_max::Api, f32_min::Api, \
      i32_max::Api, i32_min::Api, u32_max::Api, u32_min::Api, f16_max::Api, f16_min::Api, bf16_max::Api,           \
      bf16_min::Api, i8_max::Api, i8_min::Api, i16_max::Api, i16_min::Api

// Values that meet the order's corners often: both zeros, NaNs of other signs and payloads, infinities, the
// denormals, the extremes, the identity, and a few small numbers that tie. Halves by their bits.
template <class Api>
typename Api::T interesting_value(std::mt19937_64& rng) {
  typedef typename Api::T T;
  const int pick = static_cast<int>(rng() % 16);
  if constexpr (Api::kHalf != 0) {
    const bool f16 = Api::kHalf == 1;
    const auto half = [&](float f) { return static_cast<T>(reduce_detail::float_to_half(Api::kType, f)); };
    switch (pick) {
      case 0: return 0x0000;
      case 1: return 0x8000;                                                                     // -0.0
      case 2: return static_cast<T>((f16 ? 0x7C01u : 0x7F81u) + rng() % (f16 ? 0x3FEu : 0x7Eu));  // NaN payloads
      case 3: return static_cast<T>((f16 ? 0xFC01u : 0xFF81u) + rng() % (f16 ? 0x3FEu : 0x7Eu));  // negative NaNs
      case 4: return f16 ? 0x7C00 : 0x7F80;                                                      // +inf
      case 5: return f16 ? 0xFC00 : 0xFF80;                                                      // -inf
      case 6: return static_cast<T>(1 + rng() % 3);                                              // denormals
      case 7: return 0x8001;
      case 8: return f16 ? 0x7BFF : 0x7F7F;                                                      // max()
      case 9: return f16 ? 0xFBFF : 0xFF7F;                                                      // lowest()
      case 10: return static_cast<T>(rng());                                                     // any bits
      default: return half(static_cast<float>(static_cast<int>(rng() % 7) - 3) * 0.5f);
    }
  } else if constexpr (std::is_same_v<T, double>) {
    switch (pick) {
      case 0: return 0.0;
      case 1: return -0.0;
      case 2: return std::bit_cast<double>(0x7FF8000000000000ull | rng() % 0x7FFFFFFFFFFFFull);  // NaN payloads
      case 3: return std::bit_cast<double>(0xFFF8000000000000ull | rng() % 0x7FFFFFFFFFFFFull);  // negative NaN
      case 4: return std::numeric_limits<double>::infinity();
      case 5: return -std::numeric_limits<double>::infinity();
      case 6: return std::numeric_limits<double>::denorm_min() * static_cast<double>(rng() % 3 + 1);
      case 7: return -std::numeric_limits<double>::denorm_min();
      case 8: return std::numeric_limits<double>::max();
      case 9: return std::numeric_limits<double>::lowest();
      case 10: return std::bit_cast<double>(static_cast<std::uint64_t>(rng()));  // any bits
      default: return static_cast<double>(static_cast<int>(rng() % 7) - 3) * 0.5;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (pick) {
      case 0: return 0.0f;
      case 1: return -0.0f;
      case 2: return std::bit_cast<float>(0x7FC00000u | static_cast<std::uint32_t>(rng() % 0x3FFFFF));  // NaN payloads
      case 3: return std::bit_cast<float>(0xFFC00000u | static_cast<std::uint32_t>(rng() % 0x3FFFFF));  // negative NaN
      case 4: return kInfF;
      case 5: return -kInfF;
      case 6: return std::numeric_limits<float>::denorm_min() * static_cast<float>(rng() % 3 + 1);
      case 7: return -std::numeric_limits<float>::denorm_min();
      case 8: return std::numeric_limits<float>::max();
      case 9: return std::numeric_limits<float>::lowest();
      default: return static_cast<float>(static_cast<int>(rng() % 7) - 3) * 0.5f;
    }
  } else {
    switch (pick) {
      case 0: return std::numeric_limits<T>::max();
      case 1: return std::numeric_limits<T>::lowest();
      case 2: return static_cast<T>(rng());
      default: return static_cast<T>(rng() % 5);
    }
  }
}

// One input as the kernel splits it: a scalar head (before the first 16-byte-aligned element) and tail taken with
// combine() at their indices, the 16-byte vectors between dealt to `threads` threads in interleaved tiles, each
// thread scanning the values of its elements in index order into `acc` accumulators with beats() (strictly better
// only, the index of the first) and turning each accumulator's value back into its element with storage_of(), as
// argreduce.cu's loops do. Returns each thread's candidate (its accumulators and its edge combined).
template <class Api>
std::vector<typename Api::Pair> thread_candidates(const std::vector<typename Api::T>& v, std::uint64_t head,
                                                  std::uint64_t threads, int acc) {
  typedef typename Api::Pair Pair;
  typedef typename Api::Value Value;
  constexpr std::uint64_t kElems = 16 / sizeof(typename Api::T);
  constexpr std::uint64_t kNone = ~0ull;
  const std::uint64_t n = v.size(), nvec = (n - head) / kElems, tail = head + nvec * kElems;
  std::vector<Pair> out;
  for (std::uint64_t t = 0; t < threads; ++t) {
    Pair edge = Api::none();
    if (t < head) edge = Api::combine(edge, Pair{v[t], t});
    if (t < n - tail) edge = Api::combine(edge, Pair{v[tail + t], tail + t});
    std::vector<Value> best(acc, Api::value_of(Api::identity_value()));
    std::vector<std::uint64_t> index(acc, kNone);
    int taken = 0;  // the accumulator is chosen by the element's position in the thread's sequence
    for (std::uint64_t j = t; j < nvec; j += threads)
      for (std::uint64_t e = 0; e < kElems; ++e, ++taken) {
        const std::uint64_t i = head + j * kElems + e;
        const Value x = Api::value_of(v[i]);
        if (Api::beats(x, best[taken % acc])) best[taken % acc] = x, index[taken % acc] = i;
      }
    Pair p = edge;
    for (int a = 0; a < acc; ++a)
      if (index[a] != kNone) p = Api::combine(p, Pair{Api::storage_of(best[a], v.data(), index[a]), index[a]});
    out.push_back(p);
  }
  return out;
}

// One random input (n in 0..72, values from interesting_value(), some all the identity) split over emulated threads
// as the kernel splits it: its threads' candidates, in a random order.
template <class Api>
struct DrawnInput {
  std::vector<typename Api::T> v;
  std::uint64_t head = 0, threads = 0;
  int acc = 1;
  std::vector<typename Api::Pair> candidates;
};
template <class Api>
DrawnInput<Api> draw_input(std::mt19937_64& rng) {
  DrawnInput<Api> d;
  const std::uint64_t n = rng() % 73;
  d.v.resize(n);
  const bool all_identity = rng() % 8 == 0;
  for (auto& x : d.v) x = all_identity ? Api::identity_value() : interesting_value<Api>(rng);
  if (!all_identity && n > 0 && rng() % 4 == 0) d.v[rng() % n] = Api::identity_value();
  const std::uint64_t elems = 16 / sizeof(typename Api::T);
  d.head = std::min<std::uint64_t>(n, rng() % elems);  // 0: an aligned start
  d.threads = elems + rng() % 6;  // at least the head's and the tail's elements (< elems each)
  d.acc = 1 << (rng() % 3);
  d.candidates = thread_candidates<Api>(d.v, d.head, d.threads, d.acc);
  std::shuffle(d.candidates.begin(), d.candidates.end(), rng);
  return d;
}

// Over `inputs` random inputs (draw_input): the pair path (the candidates combined in a random order, store()) and the
// packed path (their keys' maximum, unpack_store()) each give exactly reference_argreduce's value bits and index. The
// first difference, or empty.
template <class Api>
std::string host_order_difference(std::uint64_t seed, int inputs) {
  typedef typename Api::T T;
  std::mt19937_64 rng(seed);
  ArgReduceProblem p;
  p.op = Api::kOp, p.type = Api::kType;
  for (int k = 0; k < inputs; ++k) {
    const auto [v, head, threads, acc, candidates] = draw_input<Api>(rng);
    const std::uint64_t n = v.size();
    const ArgExpected want = reference_argreduce(p, v.data(), n);
    typename Api::Pair folded = Api::none();
    unsigned long long key = 0;  // the greatest key, as the kernel's atomicMax and __reduce_max_sync give it
    for (const auto& c : candidates) folded = Api::combine(folded, c), key = std::max(key, Api::pack(c));
    unsigned char pair_out[16] = {}, packed_out[16] = {};
    Api::store(pair_out, folded, n);
    Api::unpack_store(packed_out, key, v.data(), n);
    for (const auto& [path, out] : {std::pair{"pair", pair_out}, std::pair{"packed", packed_out}}) {
      const std::string diff = compare_argreduce(p, want, out);
      if (diff.empty()) continue;
      std::string values;
      for (T x : v) {
        std::uint64_t b = 0;
        std::memcpy(&b, &x, sizeof x);
        values += fmt::format(" {:#x}", b);
      }
      return fmt::format("{} {} path, n={} head={} threads={} acc={}: {}; values:{}", p.shape_key(), path, n, head,
                         threads, acc, diff, values);
    }
  }
  return "";
}

// The host constants of each namespace are the preamble's (kernel_source() of the fallback configuration).
template <class Api>
std::string host_constants_difference() {
  ArgReduceProblem p;
  p.op = Api::kOp, p.type = Api::kType;
  const std::string src = kernel_source(p, ArgReduceConfig{});
  for (const std::string& line :
       {fmt::format("constexpr bool kArgMax = {};", Api::kArgMax),
        fmt::format("constexpr unsigned long long kIdentityBits = 0x{:x}ULL;", Api::kIdentityBits),
        fmt::format("constexpr unsigned long long kEmptyBits = 0x{:x}ULL;", Api::kEmptyBits),
        fmt::format("typedef {} cmp_t;", Api::kCompare), fmt::format("constexpr int kHalf = {};", Api::kHalf)})
    if (src.find(line) == std::string::npos) return p.shape_key() + ": the preamble has no '" + line + "'";
  return "";
}

// The wide keys of finish=atomic (order.cuh's pack_wide, wider, unpack_wide_store) over `inputs` random inputs
// (draw_input): the greatest of the candidates' keys (the maximum the blocks' compare-and-swap keeps), decoded, is
// exactly reference_argreduce's value bits and index. The first difference, or empty.
template <class Api>
std::string wide_order_difference(std::uint64_t seed, int inputs) {
  std::mt19937_64 rng(seed);
  const ArgReduceProblem p{.op = Api::kOp, .type = Api::kType};
  for (int k = 0; k < inputs; ++k) {
    const auto [v, head, threads, acc, candidates] = draw_input<Api>(rng);
    typename Api::WideKey key{0, 0};  // the empty slot
    for (const auto& c : candidates)
      if (const auto w = Api::pack_wide(c); Api::wider(w, key)) key = w;
    unsigned char out[16] = {};
    Api::unpack_wide_store(out, key, v.data(), v.size());
    if (const std::string diff = compare_argreduce(p, reference_argreduce(p, v.data(), v.size()), out); !diff.empty())
      return fmt::format("{} wide keys, n={} head={} threads={} acc={}: {}", p.shape_key(), v.size(), head, threads,
                         acc, diff);
  }
  return "";
}
template <class... Apis>
std::string wide_order_differences(std::uint64_t seed, int inputs) {
  std::string found;
  auto check = [&](const std::string& d) {
    if (!d.empty()) found += d + "\n";
  };
  (..., check(wide_order_difference<Apis>(seed++, inputs)));
  return found;
}

// host_constants_difference and host_order_difference of each of `Apis` (seeds `seed`, `seed` + 1, ...): the
// differences found, one a line; empty when none.
template <class... Apis>
std::string host_differences(std::uint64_t seed, int inputs) {
  std::string found;
  auto check = [&](const std::string& d) {
    if (!d.empty()) found += d + "\n";
  };
  (..., (check(host_constants_difference<Apis>()), check(host_order_difference<Apis>(seed++, inputs))));
  return found;
}

// Over every 16-bit pattern of a half: value_of() (the host's conversion of order.cuh) is the value half_host.hpp
// gives (CUDA's own host conversion), NaN for NaN; storage_of() brings every non-NaN value back to its bits; and
// order() ranks the patterns as their values rank (NaNs all on top at 0xffffffff, -0.0 and +0.0 equal, the
// identity at the bottom): the patterns sorted by value, each neighbour's order is greater exactly when its value
// is. The first difference, or empty.
template <class Api>
std::string half_order_difference() {
  std::vector<std::uint16_t> numbers;
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    const float want = reduce_detail::half_to_float(Api::kType, h), got = Api::value_of(h);
    if (std::isnan(want)) {
      if (!std::isnan(got)) return fmt::format("{:#06x}: a NaN, value_of gives {}", b, got);
      if (Api::order(h) != 0xFFFFFFFFu) return fmt::format("{:#06x}: a NaN, order {:#x}", b, Api::order(h));
      continue;
    }
    if (std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want))
      return fmt::format("{:#06x}: value_of gives {} (0x{:08x}), CUDA's host code {}", b, got,
                         std::bit_cast<std::uint32_t>(got), want);
    if (Api::storage_of(got, nullptr, 0) != h) return fmt::format("{:#06x}: storage_of gives another pattern", b);
    numbers.push_back(h);
  }
  auto value = [](std::uint16_t h) { return reduce_detail::half_to_float(Api::kType, h); };
  // More extreme first: descending values for arg-max, ascending for arg-min.
  std::stable_sort(numbers.begin(), numbers.end(),
                   [&](auto a, auto b) { return Api::kArgMax ? value(a) > value(b) : value(a) < value(b); });
  if (numbers.back() != Api::identity_value()) return "the least extreme value is not the identity";
  for (std::size_t i = 0; i + 1 < numbers.size(); ++i) {
    const std::uint16_t a = numbers[i], b = numbers[i + 1];
    const bool tie = value(a) == value(b);
    if (tie ? Api::order(a) != Api::order(b) : Api::order(a) <= Api::order(b))
      return fmt::format("{:#06x} and {:#06x}: orders {:#x} and {:#x}", a, b, Api::order(a), Api::order(b));
  }
  return "";
}

// order_key() against the pairs' order, over `inputs` pairs of interesting values (a half's any 16 bits): a greater
// key exactly where better(), an equal key exactly where same(). And over `inputs` warps of 32 candidates (values from
// a few, so that they tie; indices distinct, some none): the candidate of the greatest key and, among those, the
// smallest index (what argreduce.cu's warp_fold_redux takes by __reduce_max_sync and __reduce_min_sync) is the
// combine() of the 32. The first difference, or empty.
template <class Api>
std::string order_key_difference(std::uint64_t seed, int inputs) {
  typedef typename Api::T T;
  typedef typename Api::Pair Pair;
  std::mt19937_64 rng(seed);
  auto bits = [](T x) {
    std::uint64_t b = 0;
    std::memcpy(&b, &x, sizeof x);
    return b;
  };
  for (int k = 0; k < inputs; ++k) {
    const T a = interesting_value<Api>(rng), b = rng() % 4 == 0 ? a : interesting_value<Api>(rng);
    const auto ka = Api::order_key(a), kb = Api::order_key(b);
    const bool tie = !Api::better(a, b) && !Api::better(b, a);
    if ((ka > kb) != Api::better(a, b) || (ka == kb) != tie)
      return fmt::format("{:#x} against {:#x}: keys {:#x} and {:#x}, better {} and {}", bits(a), bits(b), ka, kb,
                         Api::better(a, b), Api::better(b, a));
  }
  for (int k = 0; k < inputs; ++k) {
    std::vector<T> few{Api::identity_value()};
    for (int f = 0; f < 3; ++f) few.push_back(interesting_value<Api>(rng));
    std::vector<Pair> lanes;
    for (int lane = 0; lane < 32; ++lane)
      lanes.push_back(rng() % 8 == 0 ? Api::none() : Pair{few[rng() % few.size()], rng() % 1000 * 32 + lane});
    Pair folded = Api::none(), by_key = lanes[0];
    for (const Pair& p : lanes) {
      folded = Api::combine(folded, p);
      const auto kp = Api::order_key(p.v), kb = Api::order_key(by_key.v);
      if (kp > kb || (kp == kb && p.i < by_key.i)) by_key = p;
    }
    if (bits(folded.v) != bits(by_key.v) || folded.i != by_key.i)
      return fmt::format("warp {}: combine gives ({:#x}, {}), the keys ({:#x}, {})", k, bits(folded.v), folded.i,
                         bits(by_key.v), by_key.i);
  }
  return "";
}

template <class... Apis>
std::string order_key_differences(std::uint64_t seed, int inputs) {
  std::string found;
  auto check = [&](const ArgReduceProblem& p, const std::string& d) {
    if (!d.empty()) found += p.shape_key() + ": " + d + "\n";
  };
  (..., check(ArgReduceProblem{.op = Apis::kOp, .type = Apis::kType}, order_key_difference<Apis>(seed++, inputs)));
  return found;
}

}  // namespace

TEST_SUITE("argreduce") {
  TEST_CASE("problem keys name the operation, the type, n and the distribution, and parse back through the registry") {
    const ArgReduceProblem p = make(ArgOp::argmax, ValueType::f32, 1 << 20);
    CHECK(p.key() == "argreduce/argmax/f32/n=1048576/dist=uniform");
    CHECK(p.shape_key() == "argreduce/argmax/f32/dist=uniform");
    CHECK(make(ArgOp::argmin, ValueType::u64, 7, "skewed").key() == "argreduce/argmin/u64/n=7/dist=skewed");
    CHECK(p.bytes() == 4ull << 20);
    CHECK(make(ArgOp::argmin, ValueType::f64, 1000).bytes() == 8000);
    CHECK(make(ArgOp::argmax, ValueType::bf16, 1 << 20).key() == "argreduce/argmax/bf16/n=1048576/dist=uniform");
    CHECK(make(ArgOp::argmin, ValueType::i8, 9, "sorted").key() == "argreduce/argmin/i8/n=9/dist=sorted");
    CHECK(make(ArgOp::argmax, ValueType::f16, 1000).bytes() == 2000);
    CHECK(make(ArgOp::argmax, ValueType::i8, 1000).bytes() == 1000);
    CHECK(make(ArgOp::argmax, ValueType::i16, 1000).bytes() == 2000);
    for (ArgOp op : {ArgOp::argmin, ArgOp::argmax})
      for (ValueType t : every_value_type())
        for (const char* d : {"uniform", "constant", "sorted", "skewed"}) {
          const ArgReduceProblem q = make(op, t, 12345, d);
          CHECK_NOTHROW(q.validate());
          const auto parsed = Problem::parse(q.key());
          REQUIRE(parsed);
          REQUIRE(parsed->as<ArgReduceProblem>());
          CHECK(*parsed->as<ArgReduceProblem>() == q);
          CHECK(parsed->family_name() == "argreduce");
        }
    for (const char* bad : {"argreduce/argmax/f32/n=10", "argreduce/max/f32/n=10/dist=uniform",
                            "argreduce/argmax/u8/n=10/dist=uniform", "argreduce/argmax/f32/n=x/dist=uniform",
                            "argreduce/argmax/f32/n=10/dist=zipf", "argreduce/argmax/f32/n=10/dist=uniform/acc=f32",
                            "argreduce/argmax/f32/dist=uniform/n=10"})
      CHECK_MESSAGE(!Problem::parse(bad), bad);
    CHECK_THROWS_AS(make(ArgOp::argmax, ValueType::f32, 10, "zipf").validate(), UsageError);
  }

  TEST_CASE("the family is registered, takes --op and --type, and names its problems on a command line") {
    const KernelFamily* f = find_family("argreduce");
    REQUIRE(f);
    ProblemOptions o{{"op", "argmin"}, {"type", "i64"}, {"n", "64K"}, {"dist", "sorted"}};
    const Problem p = f->make_problem(o);
    CHECK(p.key() == "argreduce/argmin/i64/n=65536/dist=sorted");
    CHECK(f->command_options(p) == "--op argmin --type i64");
    CHECK_THROWS_WITH_AS(f->make_problem({{"type", "f32"}, {"n", "1M"}}), doctest::Contains("--op is required"),
                         UsageError);
    CHECK_THROWS_WITH_AS(f->make_problem({{"op", "max"}, {"type", "f32"}, {"n", "1M"}}),
                         doctest::Contains("unknown operation 'max'"), UsageError);
    CHECK_THROWS_WITH_AS(f->make_problem({{"op", "argmax"}, {"type", "u8"}, {"n", "1M"}}),
                         doctest::Contains("unknown type 'u8'"), UsageError);
    // The narrow types, as `autotune tune --kernel argreduce --op argmax --type bf16` gives them.
    for (const char* t : {"f16", "bf16", "i8", "i16"}) {
      const Problem q = f->make_problem({{"op", "argmax"}, {"type", t}, {"n", "256M"}});
      CHECK(q.key() == fmt::format("argreduce/argmax/{}/n=268435456/dist=uniform", t));
      CHECK(f->command_options(q) == fmt::format("--op argmax --type {}", t));
    }
    // Another operation of the same type and distribution is a near shape; another type is none.
    const ArgReduceProblem a = make(ArgOp::argmax, ValueType::f32, 100), b = make(ArgOp::argmin, ValueType::f32, 100);
    CHECK(f->shape_distance(a, a) == 0.0);
    CHECK(f->shape_distance(a, b) == 1.0);
    CHECK(!f->shape_distance(a, make(ArgOp::argmax, ValueType::f64, 100)));
    // The standard preset: f32, f64 and i32, both operations, four sizes.
    CHECK(f->preset_problems("standard").size() == 24);
    CHECK(f->launches(ArgReduceConfig{}) == 1);
    ArgReduceConfig two;
    two.finish = Finish::two_pass;
    CHECK(f->launches(two) == 2);
  }

  TEST_CASE("configuration keys print and parse back; anything else does not parse") {
    ArgReduceConfig c;
    CHECK(c.key() == "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0");
    c.block_reduce = BlockReduce::shared_tree, c.block = 1024, c.vec_bytes = 0, c.loads = 8, c.accumulators = 4;
    c.finish = Finish::two_pass, c.grid_blocks = -1;
    CHECK(c.key() == "red=shared_tree,block=1024,vec=0,loads=8,acc=4,finish=two_pass,grid=-1");
    REQUIRE(ArgReduceConfig::parse(c.key()));
    CHECK(*ArgReduceConfig::parse(c.key()) == c);
    // Packed keys: ",pack=u64" after the grid, only when set (the pair variants' keys are those cached before).
    ArgReduceConfig packed;
    packed.block_reduce = BlockReduce::warp_reduce, packed.pack = true, packed.grid_blocks = 16;
    CHECK(packed.key() == "red=warp_reduce,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=16,pack=u64");
    REQUIRE(ArgReduceConfig::parse(packed.key()));
    CHECK(*ArgReduceConfig::parse(packed.key()) == packed);
    CHECK_FALSE(ArgReduceConfig::parse(ArgReduceConfig{}.key())->pack);
    // Wide keys: the reductions' finish name "atomic" (no new field: the keys of every other variant are unchanged).
    const auto wide = ArgReduceConfig::parse("red=warp_reduce,block=512,vec=16,loads=4,acc=1,finish=atomic,grid=-1");
    REQUIRE(wide);
    CHECK(wide->finish == Finish::atomic);
    CHECK(wide->key() == "red=warp_reduce,block=512,vec=16,loads=4,acc=1,finish=atomic,grid=-1");
    for (const char* bad : {"red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0,pack=1",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0,pack=",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,pack=u64",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=atomic_max,grid=0",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0,x=1",
                            "red=warp_shuffle,block=-5,vec=16,loads=2,acc=1,finish=last_block,grid=0",
                            // the flag: another case, a clear flag spelled out, twice
                            "red=warp_reduce,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=16,pack=U64",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0,pack=false",
                            "red=warp_shuffle,block=64,vec=0,loads=2,acc=1,finish=last_block,grid=0,pack=u64,pack=u64",
                            // a repeated field, an enum name in another case, a grid below -1
                            "red=warp_shuffle,block=256,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0",
                            "red=Warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=-2", ""})
      CHECK_MESSAGE(!ArgReduceConfig::parse(bad), bad);
    CHECK(Config::parse("argreduce", ArgReduceConfig{}.key()));
  }

  TEST_CASE("invalid configurations say why; the fallback is valid for every problem") {
    const ArgReduceProblem f64 = make(ArgOp::argmax, ValueType::f64);
    auto why = [&](auto edit) {
      ArgReduceConfig c;
      edit(c);
      return c.invalid_reason(f64);
    };
    CHECK(why([](ArgReduceConfig&) {}) == "");
    CHECK(why([](ArgReduceConfig& c) { c.block = 48; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.block = 2048; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.vec_bytes = 4; }).find("narrower") != std::string::npos);
    CHECK(why([](ArgReduceConfig& c) { c.vec_bytes = 12; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.loads = 17; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.accumulators = 3; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 2; }) != "");
    // The wide keys' finish: valid for pairs on many blocks; not with packed keys, one block or a cluster.
    CHECK(why([](ArgReduceConfig& c) { c.finish = Finish::atomic; }) == "");
    CHECK(why([](ArgReduceConfig& c) { c.finish = Finish::atomic, c.grid_blocks = -1; }) == "");
    CHECK(why([](ArgReduceConfig& c) { c.finish = Finish::atomic, c.grid_blocks = 1; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.finish = Finish::atomic, c.grid_blocks = 16; }) != "");
    // Pairs folded by __reduce_*_sync on their order keys: valid without packing, for f64 too; atomic is no fold.
    CHECK(why([](ArgReduceConfig& c) { c.block_reduce = BlockReduce::warp_reduce; }) == "");
    CHECK(why([](ArgReduceConfig& c) { c.block_reduce = BlockReduce::atomic; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 1, c.finish = Finish::two_pass; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 8; }) == "");  // one cluster of 8 blocks
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 8, c.finish = Finish::two_pass; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 16; }) == "");  // one cluster of 16 (non-portable)
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 16, c.finish = Finish::two_pass; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 12; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 32; }) != "");
    // Packed keys: 32-bit types only, warp_shuffle or warp_reduce, the last-block finish.
    CHECK(why([](ArgReduceConfig& c) { c.pack = true; }).find("up to 32 bits") != std::string::npos);  // f64
    auto why32 = [](ValueType t, auto edit) {
      ArgReduceConfig c;
      c.pack = true;
      edit(c);
      return c.invalid_reason(make(ArgOp::argmin, t));
    };
    for (ValueType t : {ValueType::f32, ValueType::i32, ValueType::u32, ValueType::f16, ValueType::bf16, ValueType::i8,
                        ValueType::i16}) {
      CHECK(why32(t, [](ArgReduceConfig&) {}) == "");
      CHECK(why32(t, [](ArgReduceConfig& c) { c.block_reduce = BlockReduce::warp_reduce; }) == "");
      CHECK(why32(t, [](ArgReduceConfig& c) { c.block_reduce = BlockReduce::warp_reduce, c.grid_blocks = 8; }) == "");
      CHECK(why32(t, [](ArgReduceConfig& c) { c.block_reduce = BlockReduce::shared_tree; }) != "");
      CHECK(why32(t, [](ArgReduceConfig& c) { c.finish = Finish::two_pass; }) != "");
      CHECK(why32(t, [](ArgReduceConfig& c) { c.finish = Finish::atomic; }) != "");
    }
    for (ValueType t : {ValueType::i64, ValueType::u64, ValueType::f64})
      CHECK(why32(t, [](ArgReduceConfig&) {}) != "");
    for (ArgOp op : {ArgOp::argmin, ArgOp::argmax})
      for (ValueType t : every_value_type())
        CHECK(ArgReduceConfig::fallback(make(op, t)).invalid_reason(make(op, t)) == "");
    // Loads of the narrow types: one element (vec=0), 4, 8 or 16 bytes (8 halves, 16 i8s); never narrower than one.
    for (ValueType t : narrow_value_types())
      for (int vec : {0, 4, 8, 16}) {
        ArgReduceConfig c;
        c.vec_bytes = vec;
        CHECK(c.invalid_reason(make(ArgOp::argmax, t)) == "");
      }
    ArgReduceConfig halves16;
    CHECK(halves16.elems_per_load(make(ArgOp::argmax, ValueType::bf16)) == 8);
    CHECK(halves16.elems_per_load(make(ArgOp::argmax, ValueType::i8)) == 16);
  }

  TEST_CASE("the space: the fallback first, every configuration valid and distinct, small-n paths only up to 1M") {
    for (ValueType t : every_value_type()) {
      const auto small = argreduce_space(make(ArgOp::argmax, t, 1 << 20));
      const auto large = argreduce_space(make(ArgOp::argmax, t, (1 << 20) + 1));
      REQUIRE(!small.empty());
      CHECK(small.front() == ArgReduceConfig::fallback(make(ArgOp::argmax, t)));
      CHECK(large.front() == small.front());
      std::set<std::string> keys;
      for (const auto& c : small) {
        CHECK(c.invalid_reason(make(ArgOp::argmax, t)) == "");
        keys.insert(c.key());
      }
      CHECK(keys.size() == small.size());
      int single = 0, cluster = 0, cluster16 = 0, packed = 0, packed_large = 0, redux = 0;
      for (const auto& c : small) {
        single += c.grid_blocks == 1, cluster += c.grid_blocks == 8, cluster16 += c.grid_blocks == 16;
        packed += c.pack, redux += c.block_reduce == BlockReduce::warp_reduce;
      }
      for (const auto& c : large) packed_large += c.pack;
      CHECK(single >= 10);
      CHECK(cluster >= 6);
      CHECK(cluster16 >= 4);
      if (size_of(t) <= 4) {  // packed keys on every grid, the finish of the last block by atomicMax above 1M too
        CHECK(packed >= 25);
        CHECK(packed_large >= 15);
        CHECK(redux >= 15);
      } else {  // 8-byte pairs: folded by __reduce_*_sync on resident and cover-n grids, one block and a cluster;
                // the same resident and cover-n grids finished with wide keys
        CHECK(packed == 0);
        CHECK(redux == 26 + 18);
        int redux_large = 0, wide_small = 0, wide_large = 0;
        for (const auto& c : large) redux_large += c.block_reduce == BlockReduce::warp_reduce;
        for (const auto& c : small) wide_small += c.finish == Finish::atomic;
        for (const auto& c : large) wide_large += c.finish == Finish::atomic;
        CHECK(redux_large == 18 + 18);
        CHECK(wide_small == 18);
        CHECK(wide_large == 18);
      }
      if (size_of(t) <= 4)
        for (const auto& c : small) CHECK(c.finish != Finish::atomic);
      for (const auto& c : large) CHECK((c.grid_blocks != 1 && c.grid_blocks != 8 && c.grid_blocks != 16));
      CHECK(large.size() >= 40);
      CHECK(small.size() <= 150);  // the tuner's budget: 136 of 4-byte types, 143 of 8-byte types (wide keys: 18)
      const DeviceInfo h100 = h100_like();
      for (const auto& c : small) CHECK(argreduce_violation(make(ArgOp::argmax, t), c, &h100) == "");
    }
    const DeviceInfo h100 = h100_like();
    DeviceInfo tiny = h100;
    tiny.max_threads_per_block = 512;
    ArgReduceConfig big;
    big.block = 1024;
    CHECK(argreduce_violation(make(ArgOp::argmax, ValueType::f32), big, &tiny).find("threads") !=
          std::string::npos);
    DeviceInfo ampere = h100_like();
    ampere.cc_major = 8;
    ArgReduceConfig cluster;
    cluster.grid_blocks = 8;
    CHECK(argreduce_violation(make(ArgOp::argmax, ValueType::f32), cluster, &ampere).find("sm_90") !=
          std::string::npos);
    CHECK(argreduce_violation(make(ArgOp::argmax, ValueType::f32), cluster, &h100) == "");
    cluster.grid_blocks = 16;
    CHECK(argreduce_violation(make(ArgOp::argmax, ValueType::f32), cluster, &ampere).find("sm_90") !=
          std::string::npos);
    CHECK(argreduce_violation(make(ArgOp::argmax, ValueType::f32), cluster, &h100) == "");
    ArgReduceConfig redux;
    redux.pack = true, redux.block_reduce = BlockReduce::warp_reduce;
    DeviceInfo turing = h100_like();
    turing.cc_major = 7, turing.cc_minor = 5;
    CHECK(argreduce_violation(make(ArgOp::argmax, ValueType::f32), redux, &turing).find("sm_80") !=
          std::string::npos);
    CHECK(argreduce_violation(make(ArgOp::argmax, ValueType::f32), redux, &ampere) == "");
    // The wide keys' 128-bit compare-and-swap: sm_90.
    ArgReduceConfig wide;
    wide.block_reduce = BlockReduce::warp_reduce, wide.finish = Finish::atomic;
    CHECK(argreduce_violation(make(ArgOp::argmax, ValueType::f64), wide, &ampere).find("sm_90") != std::string::npos);
    CHECK(argreduce_violation(make(ArgOp::argmax, ValueType::f64), wide, &h100) == "");
  }

  TEST_CASE("the family's one-block bound is the largest n its launch plan runs in one block; a cluster has none") {
    const KernelFamily& family = family_named("argreduce");
    const ArgReduceProblem p = make(ArgOp::argmax, ValueType::f32);
    ArgReduceConfig c;  // tiles of 256 x 2 x 4 = 2048: two in one block
    CHECK(family.one_block_up_to(Problem(p), Config(c)) == 4096);
    CHECK(plan_argreduce_launch(p, c, 4096, 264).grid == 1);
    CHECK(plan_argreduce_launch(p, c, 4097, 264).grid > 1);
    c.grid_blocks = 8;  // one cluster of 8 blocks at every n
    CHECK(family.one_block_up_to(Problem(p), Config(c)) == 0);
    c.grid_blocks = 1;
    CHECK(family.one_block_up_to(Problem(p), Config(c)) == std::numeric_limits<std::uint64_t>::max());
  }

  TEST_CASE("the launch plan: one block, cover-n grids, resident grids, and the second launch of two passes") {
    const ArgReduceProblem p = make(ArgOp::argmax, ValueType::f32);
    ArgReduceConfig c;  // 256 threads x 2 loads x 4 floats = 2048 elements per block
    CHECK(plan_argreduce_launch(p, c, 0, 264).grid == 1);
    CHECK(plan_argreduce_launch(p, c, 2048, 264).grid == 1);
    CHECK(plan_argreduce_launch(p, c, 4096, 264).grid == 1);  // two tiles: one block reads both
    CHECK(plan_argreduce_launch(p, c, 4097, 264).grid == 3);
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 264);
    CHECK_FALSE(plan_argreduce_launch(p, c, 1ull << 30, 264).finish_launch);
    c.grid_blocks = -1;
    // 2^30 / 2048 = 2^19 tiles, capped at 64K blocks: 64K partials of 16 bytes, the workspace's 1 MiB.
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 65536);
    CHECK(plan_argreduce_launch(p, c, 100 * 2048, 264).grid == 100);
    c.finish = Finish::two_pass;
    CHECK(plan_argreduce_launch(p, c, 100 * 2048, 264).finish_launch);
    CHECK_FALSE(plan_argreduce_launch(p, c, 2048, 264).finish_launch);  // one block writes its own result
    c = ArgReduceConfig{};
    c.grid_blocks = 1;
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 1);
    c.grid_blocks = 8;  // one cluster of 8 blocks, whatever n
    CHECK(plan_argreduce_launch(p, c, 0, 264).grid == 8);
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 8);
    c.grid_blocks = 16;  // one cluster of 16 blocks, whatever n
    CHECK(plan_argreduce_launch(p, c, 0, 264).grid == 16);
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 16);
    // Packed keys change no grid: a resident grid is still at most the resident blocks.
    c = ArgReduceConfig{};
    c.pack = true, c.block_reduce = BlockReduce::warp_reduce;
    CHECK(plan_argreduce_launch(p, c, 4097, 264).grid == 3);
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 264);
    CHECK_FALSE(plan_argreduce_launch(p, c, 1ull << 30, 264).finish_launch);
    // f64 with 16-byte loads: 2 elements per load, 1024 per block.
    const ArgReduceProblem d = make(ArgOp::argmax, ValueType::f64);
    CHECK(plan_argreduce_launch(d, ArgReduceConfig{}, 2048, 264).grid == 1);
    CHECK(plan_argreduce_launch(d, ArgReduceConfig{}, 2049, 264).grid == 3);
  }

  TEST_CASE("the reference: the first index of the extreme, ties by ==") {
    const std::vector<std::int32_t> v{3, 9, -4, 9, 1, -4};
    CHECK(reference(ArgOp::argmax, v).index == 1);
    CHECK(reference(ArgOp::argmax, v).value_bits == 9);
    CHECK(reference(ArgOp::argmin, v).index == 2);
    CHECK(reference(ArgOp::argmin, v).value_bits == static_cast<std::uint32_t>(-4));
    const std::vector<std::uint64_t> u{5, 5, 5};
    CHECK(reference(ArgOp::argmax, u).index == 0);
    CHECK(reference(ArgOp::argmin, u).index == 0);
    // The integer extremes themselves.
    const std::vector<std::int64_t> e{0, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                                      std::numeric_limits<std::int64_t>::min()};
    CHECK(reference(ArgOp::argmin, e).index == 1);
    CHECK(reference(ArgOp::argmax, e).index == 2);
    CHECK(reference(ArgOp::argmax, e).value_bits == 0x7FFFFFFFFFFFFFFFull);
    // Every element the lowest value: index 0.
    const std::vector<std::uint32_t> zeros(10, 0u);
    CHECK(reference(ArgOp::argmax, zeros).index == 0);
    const std::vector<float> neg_inf(5, -kInfF);
    CHECK(reference(ArgOp::argmax, neg_inf).index == 0);
    CHECK(reference(ArgOp::argmax, neg_inf).value_bits == 0xFF800000u);
  }

  TEST_CASE("the reference: -0.0 equals +0.0 (the first wins, its sign kept); NaN is the first NaN for both ops") {
    const std::vector<float> z{-1.0f, -0.0f, 0.0f, -2.0f};
    CHECK(reference(ArgOp::argmax, z).index == 1);
    CHECK(reference(ArgOp::argmax, z).value_bits == 0x80000000u);
    const std::vector<float> z2{1.0f, 0.0f, -0.0f, 2.0f};
    CHECK(reference(ArgOp::argmin, z2).index == 1);
    CHECK(reference(ArgOp::argmin, z2).value_bits == 0u);
    std::vector<float> n{1.0f, kInfF, -kInfF, kNaNF, 5.0f, -kNaNF};
    CHECK(reference(ArgOp::argmax, n).index == 3);
    CHECK(reference(ArgOp::argmin, n).index == 3);
    CHECK(reference(ArgOp::argmax, n).value_bits == fbits(kNaNF));
    n[0] = -kNaNF;  // a NaN first, with its sign bit: its own bits come back
    CHECK(reference(ArgOp::argmin, n).index == 0);
    CHECK(reference(ArgOp::argmin, n).value_bits == fbits(-kNaNF));
    const std::vector<double> d{2.0, -std::numeric_limits<double>::infinity(), 7.5, 7.5};
    CHECK(reference(ArgOp::argmax, d).index == 2);
    CHECK(reference(ArgOp::argmax, d).value_bits == dbits(7.5));
    CHECK(reference(ArgOp::argmin, d).index == 1);
  }

  TEST_CASE("the reference: an empty input gives CUB's {1, lowest()} for argmax and {1, max()} for argmin") {
    CHECK(reference(ArgOp::argmax, std::vector<float>{}).index == 1);
    CHECK(reference(ArgOp::argmax, std::vector<float>{}).value_bits == fbits(-std::numeric_limits<float>::max()));
    CHECK(reference(ArgOp::argmin, std::vector<float>{}).value_bits == fbits(std::numeric_limits<float>::max()));
    CHECK(reference(ArgOp::argmin, std::vector<double>{}).value_bits == dbits(std::numeric_limits<double>::max()));
    CHECK(reference(ArgOp::argmax, std::vector<std::int32_t>{}).value_bits == 0x80000000u);
    CHECK(reference(ArgOp::argmin, std::vector<std::uint64_t>{}).value_bits == ~0ull);
    CHECK(reference(ArgOp::argmin, std::vector<std::uint64_t>{}).index == 1);
  }

  TEST_CASE("the reference of halves: compared as floats, not as their bits; ties by ==; the first NaN; n = 0, 1") {
    // f16: 1.0 0x3c00, 2.0 0x4000, -1.0 0xbc00, -2.0 0xc000, 0.5 0x3800, +-inf 0x7c00/0xfc00, 65504 0x7bff, the
    // smallest subnormal 0x0001. bf16: 1.0 0x3f80, -1.0 0xbf80, its largest 0x7f7f, +-inf 0x7f80/0xff80.
    constexpr ValueType f16 = ValueType::f16, bf16 = ValueType::bf16;
    const std::vector<std::uint16_t> a{0x3C00, 0x4000, 0xBC00, 0x4000, 0xC000, 0xC000};
    CHECK(reference_halves(ArgOp::argmax, f16, a).index == 1);
    CHECK(reference_halves(ArgOp::argmax, f16, a).value_bits == 0x4000u);
    CHECK(reference_halves(ArgOp::argmin, f16, a).index == 4);
    CHECK(reference_halves(ArgOp::argmin, f16, a).value_bits == 0xC000u);
    // Negative numbers: as unsigned bits -2.0 (0xc000) is above the smallest negative subnormal (0x8001); as values
    // it is below.
    const std::vector<std::uint16_t> neg{0xBC00, 0xC000, 0x8001};
    CHECK(reference_halves(ArgOp::argmax, f16, neg).index == 2);
    CHECK(reference_halves(ArgOp::argmin, f16, neg).index == 1);
    const std::vector<std::uint16_t> ends{0x8001, 0x0001, 0xFBFF, 0x7BFF};
    CHECK(reference_halves(ArgOp::argmax, f16, ends).index == 3);
    CHECK(reference_halves(ArgOp::argmin, f16, ends).index == 2);
    CHECK(reference_halves(ArgOp::argmin, f16, ends).value_bits == 0xFBFFu);
    // -0.0 == +0.0: the first, with its sign.
    const std::vector<std::uint16_t> z{0xBC00, 0x8000, 0x0000, 0xC000};
    CHECK(reference_halves(ArgOp::argmax, f16, z).index == 1);
    CHECK(reference_halves(ArgOp::argmax, f16, z).value_bits == 0x8000u);
    const std::vector<std::uint16_t> z2{0x3F80, 0x0000, 0x8000, 0x4000};
    CHECK(reference_halves(ArgOp::argmin, bf16, z2).index == 1);
    CHECK(reference_halves(ArgOp::argmin, bf16, z2).value_bits == 0u);
    // NaN: the first, for both operations, its payload and sign kept.
    std::vector<std::uint16_t> nan{0x3C00, 0x7C00, 0xFC00, 0x7C01, 0x4000, 0xFE00};
    for (ArgOp op : {ArgOp::argmax, ArgOp::argmin}) {
      CHECK(reference_halves(op, f16, nan).index == 3);
      CHECK(reference_halves(op, f16, nan).value_bits == 0x7C01u);
    }
    nan[0] = 0xFE00;
    CHECK(reference_halves(ArgOp::argmin, f16, nan).index == 0);
    CHECK(reference_halves(ArgOp::argmin, f16, nan).value_bits == 0xFE00u);
    const std::vector<std::uint16_t> bnan{0x3F80, 0xFFC0, 0x7F81};
    CHECK(reference_halves(ArgOp::argmax, bf16, bnan).index == 1);
    CHECK(reference_halves(ArgOp::argmax, bf16, bnan).value_bits == 0xFFC0u);
    const std::vector<std::uint16_t> b{0x3F80, 0xBF80, 0x7F7F, 0x0001, 0x7F7F};
    CHECK(reference_halves(ArgOp::argmax, bf16, b).index == 2);
    CHECK(reference_halves(ArgOp::argmin, bf16, b).index == 1);
    CHECK(reference_halves(ArgOp::argmin, bf16, b).value_bits == 0xBF80u);
    // All equal, the identity everywhere, one element.
    CHECK(reference_halves(ArgOp::argmin, f16, std::vector<std::uint16_t>(5, 0x3800)).index == 0);
    CHECK(reference_halves(ArgOp::argmax, bf16, std::vector<std::uint16_t>(5, 0xFF80)).index == 0);
    CHECK(reference_halves(ArgOp::argmax, bf16, std::vector<std::uint16_t>(5, 0xFF80)).value_bits == 0xFF80u);
    CHECK(reference_halves(ArgOp::argmax, f16, {0xC000}).index == 0);
    CHECK(reference_halves(ArgOp::argmin, f16, {0xC000}).value_bits == 0xC000u);
    // n = 0: CUB's {1, lowest()} / {1, max()}: -65504 / 65504 for f16, bf16's -/+ (2 - 2^-7) * 2^127.
    CHECK(reference_halves(ArgOp::argmax, f16, {}).index == 1);
    CHECK(reference_halves(ArgOp::argmax, f16, {}).value_bits == 0xFBFFu);
    CHECK(reference_halves(ArgOp::argmin, f16, {}).value_bits == 0x7BFFu);
    CHECK(reference_halves(ArgOp::argmax, bf16, {}).value_bits == 0xFF7Fu);
    CHECK(reference_halves(ArgOp::argmin, bf16, {}).value_bits == 0x7F7Fu);
    CHECK(reference_halves(ArgOp::argmin, bf16, {}).index == 1);
  }

  TEST_CASE("the reference of i8 and i16: signed values, the first extreme, their own limits for n = 0") {
    const std::vector<std::int8_t> c{3, -128, 127, -128, 127, 0};
    CHECK(reference(ArgOp::argmax, c).index == 2);
    CHECK(reference(ArgOp::argmax, c).value_bits == 0x7Fu);
    CHECK(reference(ArgOp::argmin, c).index == 1);
    CHECK(reference(ArgOp::argmin, c).value_bits == 0x80u);
    const std::vector<std::int16_t> s{-5, 300, -32768, 300, 32767, 32767};
    CHECK(reference(ArgOp::argmax, s).index == 4);
    CHECK(reference(ArgOp::argmax, s).value_bits == 0x7FFFu);
    CHECK(reference(ArgOp::argmin, s).index == 2);
    CHECK(reference(ArgOp::argmin, s).value_bits == 0x8000u);
    const std::vector<std::int16_t> sign{1, -1};  // -1 is 0xffff: above 1 as unsigned bits, below it as a value
    CHECK(reference(ArgOp::argmax, sign).index == 0);
    CHECK(reference(ArgOp::argmin, sign).value_bits == 0xFFFFu);
    CHECK(reference(ArgOp::argmax, std::vector<std::int8_t>{}).value_bits == 0x80u);
    CHECK(reference(ArgOp::argmin, std::vector<std::int8_t>{}).value_bits == 0x7Fu);
    CHECK(reference(ArgOp::argmax, std::vector<std::int16_t>{}).value_bits == 0x8000u);
    CHECK(reference(ArgOp::argmin, std::vector<std::int16_t>{}).value_bits == 0x7FFFu);
    CHECK(reference(ArgOp::argmin, std::vector<std::int16_t>{}).index == 1);
  }

  TEST_CASE("compare_argreduce: exact value bits and index, and a readable difference") {
    const ArgReduceProblem p = make(ArgOp::argmax, ValueType::f32);
    unsigned char got[16] = {};
    const float v = 0.0f;
    std::uint64_t i = 7;
    std::memcpy(got, &v, 4);
    std::memcpy(got + 8, &i, 8);
    CHECK(compare_argreduce(p, ArgExpected{0u, 7}, got) == "");
    CHECK(compare_argreduce(p, ArgExpected{0x80000000u, 7}, got) != "");  // -0.0 is not +0.0 bit for bit
    const std::string diff = compare_argreduce(p, ArgExpected{0u, 8}, got);
    CHECK(diff.find("index 8") != std::string::npos);
    CHECK(diff.find("index 7") != std::string::npos);
    // A half's 2 bytes: what the kernel leaves of the poison after them (bytes 2-7 are padding) does not count.
    unsigned char half[16];
    std::memset(half, 0xAB, sizeof half);
    half[0] = 0x00, half[1] = 0xBC;  // -1.0 (f16 0xbc00)
    std::memcpy(half + 8, &i, 8);
    const ArgReduceProblem h = make(ArgOp::argmin, ValueType::f16);
    CHECK(compare_argreduce(h, ArgExpected{0xBC00u, 7}, half) == "");
    CHECK(compare_argreduce(h, ArgExpected{0x3C00u, 7}, half).find("expected 1 (0x3c00) at index 7, got -1 (0xbc00)") !=
          std::string::npos);
  }

  TEST_CASE("the template's order and packed keys, compiled for the host: threads' candidates combined in any order "
            "and their keys' maximum both give the reference's value and first index") {
    // Zeros of both signs, NaN payloads, infinities, ties and inputs all the identity, aligned (the identity's
    // elements in the scalar tail only) or not, over 4-9 emulated threads of 1, 2 or 4 accumulators.
    CHECK(host_differences<f32_max::Api, f32_min::Api, i32_max::Api, i32_min::Api, u32_max::Api, u32_min::Api>(
              1, 20000) == "");
  }

  TEST_CASE("the same for f16, bf16, i8 and i16; and for every half's 16 bits: value_of() is CUDA's host conversion, "
            "storage_of() its inverse, order() the order of the values") {
    // Halves: their value compared (the scan's beats() on value_of()), the element's bits back by storage_of() (a
    // NaN's from the input), the packed key from the 16 bits. 8 halves or 16 i8s per vector.
    CHECK(host_differences<f16_max::Api, f16_min::Api, bf16_max::Api, bf16_min::Api, i8_max::Api, i8_min::Api,
                           i16_max::Api, i16_min::Api>(11, 20000) == "");
    CHECK(half_order_difference<f16_max::Api>() == "");
    CHECK(half_order_difference<f16_min::Api>() == "");
    CHECK(half_order_difference<bf16_max::Api>() == "");
    CHECK(half_order_difference<bf16_min::Api>() == "");
    // A few by hand: f16 -2.0 (0xc000) below the smallest negative subnormal (0x8001), which is below -0.0 = +0.0.
    CHECK(f16_max::Api::order(0xC000) < f16_max::Api::order(0x8001));
    CHECK(f16_max::Api::order(0x8001) < f16_max::Api::order(0x8000));
    CHECK(f16_max::Api::order(0x8000) == f16_max::Api::order(0x0000));
    CHECK(f16_min::Api::order(0xC000) > f16_min::Api::order(0x8001));
    CHECK(bf16_max::Api::order(0x7F80) < bf16_max::Api::order(0x7F81));  // +inf below a NaN
    CHECK(bf16_min::Api::order(0xFF80) < bf16_min::Api::order(0xFFC1));  // -inf below a negative NaN, for argmin too
    CHECK(f16_max::Api::value_of(0x3555) == 0.333251953125f);
    CHECK(bf16_max::Api::value_of(0x3DCD) == 0.10009765625f);
    CHECK(i8_min::Api::order(-128) > i8_min::Api::order(127));
    CHECK(i16_max::Api::order(-1) < i16_max::Api::order(1));
  }

  TEST_CASE("order_key, compiled for the host: a greater key exactly where a value beats another, equal keys exactly "
            "for ties, and a warp's greatest key at its smallest index is the pairs' combine(), for every type") {
    CHECK(order_key_differences<AT_EVERY_HOST_API>(21, 20000) == "");
    // The 8-byte types' preamble constants are the ones compiled here.
    CHECK(host_constants_difference<f64_max::Api>() == "");
    CHECK(host_constants_difference<f64_min::Api>() == "");
    CHECK(host_constants_difference<i64_max::Api>() == "");
    CHECK(host_constants_difference<i64_min::Api>() == "");
    CHECK(host_constants_difference<u64_max::Api>() == "");
    CHECK(host_constants_difference<u64_min::Api>() == "");
    // By hand: f64 NaNs of either sign on top for both operations, -0.0 and +0.0 one key, i64 -1 below 1.
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    CHECK(f64_max::Api::order_key(-nan) == ~0ull);
    CHECK(f64_min::Api::order_key(nan) == ~0ull);
    CHECK(f64_max::Api::order_key(inf) < ~0ull);
    CHECK(f64_min::Api::order_key(-inf) < ~0ull);
    CHECK(f64_max::Api::order_key(-0.0) == f64_max::Api::order_key(0.0));
    CHECK(f64_max::Api::order_key(-inf) < f64_max::Api::order_key(std::numeric_limits<double>::lowest()));
    CHECK(i64_max::Api::order_key(-1) < i64_max::Api::order_key(1));
    CHECK(i64_min::Api::order_key(-1) > i64_min::Api::order_key(1));
    CHECK(u64_max::Api::order_key(~0ull) > u64_max::Api::order_key(1));
  }

  TEST_CASE("wide keys (finish=atomic), compiled for the host: the greatest of the candidates' 128-bit keys decodes "
            "to the reference's value bits and index, for every type and both operations") {
    CHECK(wide_order_differences<AT_EVERY_HOST_API>(41, 4000) == "");
    // By hand: no candidate is the empty slot, below every element's key; a NaN's key is on top and decodes to the
    // input's own NaN (its sign and payload); -0.0 at index 3 beats +0.0 at index 5 (equal values, smaller index).
    const f64_max::Api::WideKey none = f64_max::Api::pack_wide(f64_max::Api::none());
    CHECK((none.hi == 0 && none.lo == 0));
    const double in[] = {1.0, -std::numeric_limits<double>::quiet_NaN(), 2.0, -0.0, 0.5, 0.0};
    const auto nan = f64_max::Api::pack_wide({in[1], 1}), two = f64_max::Api::pack_wide({in[2], 2});
    CHECK(f64_max::Api::wider(nan, two));
    CHECK(f64_max::Api::wider(two, none));
    unsigned char out[16] = {};
    f64_max::Api::unpack_wide_store(out, nan, in, 6);
    CHECK(std::memcmp(out, &in[1], 8) == 0);
    CHECK(out[8] == 1);
    const auto neg_zero = f64_min::Api::pack_wide({in[3], 3}), pos_zero = f64_min::Api::pack_wide({in[5], 5});
    CHECK(f64_min::Api::wider(neg_zero, pos_zero));
    f64_min::Api::unpack_wide_store(out, neg_zero, in, 6);
    CHECK(std::memcmp(out, &in[3], 8) == 0);  // the sign of the zero, from the input
  }

  TEST_CASE("the generator: reproducible, each distribution as documented") {
    const std::uint64_t n = 10000;
    for (ValueType t : every_value_type())
      for (const char* d : {"uniform", "constant", "sorted", "skewed"}) {
        const ArgReduceProblem p = make(ArgOp::argmax, t, n, d);
        const auto a = generate_arg_values(p, n, 3), b = generate_arg_values(p, n, 3);
        CHECK(a.size() == n * size_of(t));
        CHECK(a == b);
      }
    const auto c = generate_arg_values(make(ArgOp::argmax, ValueType::f32, n, "constant"), n, 4);
    CHECK(reference_argreduce(make(ArgOp::argmax, ValueType::f32), c.data(), n).index == 0);
    const auto s = generate_arg_values(make(ArgOp::argmin, ValueType::i32, n, "sorted"), n, 5);
    std::vector<std::int32_t> sv(n);
    std::memcpy(sv.data(), s.data(), s.size());
    CHECK(std::is_sorted(sv.begin(), sv.end()));
    const auto u = generate_arg_values(make(ArgOp::argmax, ValueType::f32, n), n, 6);
    std::vector<float> uv(n);
    std::memcpy(uv.data(), u.data(), u.size());
    for (float x : uv) CHECK((x >= -1.0f && x < 1.0f));
    // The skewed walk drifts upward: its maximum is in the second half, its minimum in the first.
    const auto w = generate_arg_values(make(ArgOp::argmax, ValueType::f64, n, "skewed"), n, 7);
    CHECK(reference_argreduce(make(ArgOp::argmax, ValueType::f64), w.data(), n).index > n / 2);
    CHECK(reference_argreduce(make(ArgOp::argmin, ValueType::f64), w.data(), n).index < n / 2);
  }

  TEST_CASE("the generator of halves and narrow integers: floats of [-1, 1] rounded, sorted by value, a finite walk; "
            "integers over their whole range") {
    const std::uint64_t n = 10000;
    auto halves = [&](ValueType t, const char* dist, std::uint64_t count, std::uint64_t seed) {
      const auto bytes = generate_arg_values(make(ArgOp::argmax, t, count, dist), count, seed);
      std::vector<float> v(count);
      for (std::uint64_t i = 0; i < count; ++i) {
        std::uint16_t h;
        std::memcpy(&h, &bytes[2 * i], 2);
        v[i] = reduce_detail::half_to_float(t, h);
      }
      return v;
    };
    for (ValueType t : {ValueType::f16, ValueType::bf16}) {
      CAPTURE(to_string(t));
      const auto u = halves(t, "uniform", n, 6);
      CHECK(std::all_of(u.begin(), u.end(), [](float x) { return x >= -1.0f && x <= 1.0f; }));
      CHECK(std::set<float>(u.begin(), u.end()).size() > 100);
      const auto s = halves(t, "sorted", n, 5);
      CHECK(std::is_sorted(s.begin(), s.end()));
      const auto c = halves(t, "constant", n, 4);
      CHECK(std::count(c.begin(), c.end(), c[0]) == static_cast<std::ptrdiff_t>(n));
      // The walk of 2^20 steps: finite (2^-8 steps: f16's 65504 is far), its maximum late and its minimum early.
      const auto w = halves(t, "skewed", 1 << 20, 7);
      CHECK(std::all_of(w.begin(), w.end(), [](float x) { return std::isfinite(x); }));
      CHECK(std::max_element(w.begin(), w.end()) - w.begin() > (1 << 19));
      CHECK(std::min_element(w.begin(), w.end()) - w.begin() < (1 << 19));
    }
    // i8 over its whole range: 10000 draws of 256 values hold both extremes; the maximum 127 first at some index.
    const auto i8 = generate_arg_values(make(ArgOp::argmax, ValueType::i8, n), n, 8);
    CHECK(reference_argreduce(make(ArgOp::argmax, ValueType::i8), i8.data(), n).value_bits == 0x7Fu);
    CHECK(reference_argreduce(make(ArgOp::argmin, ValueType::i8), i8.data(), n).value_bits == 0x80u);
    const auto i16 = generate_arg_values(make(ArgOp::argmin, ValueType::i16, n, "sorted"), n, 9);
    std::vector<std::int16_t> sv(n);
    std::memcpy(sv.data(), i16.data(), i16.size());
    CHECK(std::is_sorted(sv.begin(), sv.end()));
    // The whole range: that none of 10000 draws is below -30000 (or above 30000) has probability (1 - 2768/65536)^10000.
    CHECK(sv.front() < -30000);
    CHECK(sv.back() > 30000);
  }
}

TEST_SUITE("nvrtc_argreduce") {
  TEST_CASE("the preamble carries the type, the operation's identity and CUB's empty values") {
    std::string src = kernel_source(make(ArgOp::argmax, ValueType::f32), ArgReduceConfig{});
    CHECK(src.find("typedef float in_t;") != std::string::npos);
    CHECK(src.find("constexpr bool kArgMax = true;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0xff800000ULL;") != std::string::npos);  // -inf
    CHECK(src.find("constexpr unsigned long long kEmptyBits = 0xff7fffffULL;") != std::string::npos);     // -FLT_MAX
    CHECK(src.find("constexpr Finish kFinish = Finish::last_block;") != std::string::npos);
    CHECK(src.find("constexpr int kPartialsOffset = 256;") != std::string::npos);
    CHECK(src.find("constexpr int kCluster = 0;") != std::string::npos);
    CHECK(src.find("constexpr bool kPack = false;") != std::string::npos);
    CHECK(src.find("constexpr int kKeyOffset = 128;") != std::string::npos);
    ArgReduceConfig pk;
    pk.pack = true, pk.block_reduce = BlockReduce::warp_reduce, pk.grid_blocks = 16;
    const std::string packed_src = kernel_source(make(ArgOp::argmin, ValueType::i32), pk);
    CHECK(packed_src.find("constexpr bool kPack = true;") != std::string::npos);
    CHECK(packed_src.find("constexpr int kCluster = 16;") != std::string::npos);
    CHECK(packed_src.find("constexpr BlockReduce kBlockReduce = BlockReduce::warp_reduce;") != std::string::npos);
    // __reduce_max_sync refuses to compile below sm_80.
    pk.grid_blocks = 0;
    const auto turing = jit::compile(kernel_source(make(ArgOp::argmin, ValueType::i32), pk), "redux.cu", "sm_75");
    CHECK_FALSE(turing.ok);
    CHECK(turing.log.find("sm_80") != std::string::npos);
    ArgReduceConfig pk64;
    pk64.pack = true;
    CHECK_THROWS_AS(kernel_source(make(ArgOp::argmax, ValueType::f64), pk64), UsageError);
    ArgReduceConfig cl;
    cl.grid_blocks = 8;
    CHECK(kernel_source(make(ArgOp::argmax, ValueType::f32), cl).find("constexpr int kCluster = 8;") !=
          std::string::npos);
    // A cluster variant refuses to compile for an architecture without clusters.
    const auto old = jit::compile(kernel_source(make(ArgOp::argmax, ValueType::f32), cl), "cluster.cu", "sm_80");
    CHECK_FALSE(old.ok);
    CHECK(old.log.find("sm_90") != std::string::npos);
    src = kernel_source(make(ArgOp::argmin, ValueType::u32), ArgReduceConfig{});
    CHECK(src.find("typedef unsigned int in_t;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0xffffffffULL;") != std::string::npos);
    ArgReduceConfig one;
    one.vec_bytes = 0;
    src = kernel_source(make(ArgOp::argmin, ValueType::f64), one);
    CHECK(src.find("constexpr int kVecBytes = 8;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kEmptyBits = 0x7fefffffffffffffULL;") != std::string::npos);
    // The source does not depend on n.
    CHECK(kernel_source(make(ArgOp::argmax, ValueType::f32, 10), ArgReduceConfig{}) ==
          kernel_source(make(ArgOp::argmax, ValueType::f32, 1 << 28), ArgReduceConfig{}));
    ArgReduceConfig bad;
    bad.finish = Finish::atomic, bad.pack = true;
    CHECK_THROWS_AS(kernel_source(make(ArgOp::argmax, ValueType::f32), bad), UsageError);
    // Halves as their bits, compared as float; i8 and i16 as int; their identities and CUB's empty values.
    src = kernel_source(make(ArgOp::argmax, ValueType::bf16), ArgReduceConfig{});
    CHECK(src.find("typedef unsigned short in_t;") != std::string::npos);
    CHECK(src.find("typedef float cmp_t;") != std::string::npos);
    CHECK(src.find("constexpr int kHalf = 2;") != std::string::npos);
    CHECK(src.find("constexpr bool kIsFloat = true;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0xff80ULL;") != std::string::npos);  // -inf
    CHECK(src.find("constexpr unsigned long long kEmptyBits = 0xff7fULL;") != std::string::npos);
    CHECK(src.find("constexpr int kVecBytes = 16;") != std::string::npos);
    src = kernel_source(make(ArgOp::argmin, ValueType::f16), one);
    CHECK(src.find("constexpr int kHalf = 1;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0x7c00ULL;") != std::string::npos);  // +inf
    CHECK(src.find("constexpr unsigned long long kEmptyBits = 0x7bffULL;") != std::string::npos);     // 65504
    CHECK(src.find("constexpr int kVecBytes = 2;") != std::string::npos);
    src = kernel_source(make(ArgOp::argmax, ValueType::i8), ArgReduceConfig{});
    CHECK(src.find("typedef signed char in_t;") != std::string::npos);
    CHECK(src.find("typedef int cmp_t;") != std::string::npos);
    CHECK(src.find("constexpr int kHalf = 0;") != std::string::npos);
    CHECK(src.find("constexpr bool kIsFloat = false;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kEmptyBits = 0x80ULL;") != std::string::npos);
    src = kernel_source(make(ArgOp::argmin, ValueType::i16), ArgReduceConfig{});
    CHECK(src.find("typedef short in_t;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0x7fffULL;") != std::string::npos);
    // The 32- and 64-bit types compare as themselves.
    CHECK(kernel_source(make(ArgOp::argmax, ValueType::f32), ArgReduceConfig{}).find("typedef float cmp_t;") !=
          std::string::npos);
    CHECK(kernel_source(make(ArgOp::argmax, ValueType::u64), one).find("typedef unsigned long long cmp_t;") !=
          std::string::npos);
  }

  TEST_CASE("the variants of f32 argmax, i32 argmin, u32 argmax (packed keys) and i64 argmin compile for sm_90 with "
            "both entry points (one pairwise covering of their joint space, every variant under nvrtc_full); the "
            "fallback of every shape, the narrow types' too, for sm_90 and sm_75") {
    // test::compile_all_joint over the four spaces (n = 0: the small-n paths included): all of them in the
    // nvrtc_full.* tests, else a subset in which every pair of a problem's value (type, operation) and a parameter
    // value, or of two parameter values (pack=u64 and the 16-block clusters with the others), still meets in one
    // compiled variant.
    const std::vector<ArgReduceProblem> problems{make(ArgOp::argmax, ValueType::f32), make(ArgOp::argmin, ValueType::i32),
                                                 make(ArgOp::argmax, ValueType::u32), make(ArgOp::argmin, ValueType::i64)};
    std::vector<std::vector<ArgReduceConfig>> spaces;
    for (const ArgReduceProblem& p : problems) spaces.push_back(argreduce_space(p));
    CHECK(test::compile_all_joint(problems, spaces, "sm_90", {kArgReduceKernelName, kArgReduceFinishKernelName}) == "");
    std::vector<ArgReduceConfig> fallback{ArgReduceConfig{}};
    for (ArgOp op : {ArgOp::argmin, ArgOp::argmax})
      for (ValueType t : every_value_type()) {
        CHECK(test::compile_all(make(op, t), fallback, "sm_90") == "");
        CHECK(test::compile_all(make(op, t), fallback, "sm_75") == "");
      }
    // The 8-byte pairs folded by __reduce_*_sync (sm_80's instructions), f64's NaN-aware keys among them.
    ArgReduceConfig redux;
    redux.block_reduce = BlockReduce::warp_reduce, redux.loads = 8, redux.grid_blocks = -1;
    CHECK(test::compile_all(make(ArgOp::argmax, ValueType::f64), std::vector{redux}, "sm_90") == "");
    CHECK(test::compile_all(make(ArgOp::argmin, ValueType::u64), std::vector{redux}, "sm_80") == "");
    // The wide keys' finish (atom.cas.b128, atom.exch.b128: sm_90, PTX ISA 8.3), for the 8-byte types of its space
    // and a 4-byte one; below sm_90 the template refuses it by name.
    ArgReduceConfig wide = redux;
    wide.finish = Finish::atomic;
    for (const auto& p : {make(ArgOp::argmax, ValueType::f64), make(ArgOp::argmin, ValueType::i64),
                          make(ArgOp::argmax, ValueType::u64), make(ArgOp::argmin, ValueType::f32)})
      CHECK(test::compile_all(p, std::vector{wide}, "sm_90") == "");
    const auto ampere = jit::compile(kernel_source(make(ArgOp::argmax, ValueType::f64), wide), "wide.cu", "sm_80");
    CHECK_FALSE(ampere.ok);
    CHECK(ampere.log.find("sm_90") != std::string::npos);
  }

  TEST_CASE("the variants of f16 and bf16 argmax and argmin, i8 argmax and i16 argmin compile for sm_90 with both "
            "entry points (one pairwise covering of their joint space, every variant under nvrtc_full)") {
    // The joint covering (test::compile_all_joint): every pair of a problem's field (the type, the operation) and a
    // configuration's, or of two configuration fields, meets in one compiled variant: each type with the packed
    // keys, each vector width, each block reduction and each grid, without compiling each space whole again.
    std::vector<ArgReduceProblem> problems;
    for (ValueType t : {ValueType::f16, ValueType::bf16})
      for (ArgOp op : {ArgOp::argmax, ArgOp::argmin}) problems.push_back(make(op, t));
    problems.push_back(make(ArgOp::argmax, ValueType::i8));
    problems.push_back(make(ArgOp::argmin, ValueType::i16));
    std::vector<std::vector<ArgReduceConfig>> spaces;
    std::size_t total = 0;
    for (const auto& p : problems) spaces.push_back(argreduce_space(p)), total += spaces.back().size();
    const auto picked = test::nvrtc_full() ? spaces : test::joint_pairwise_subsets(problems, spaces);
    std::size_t compiled = 0;
    for (std::size_t i = 0; i < problems.size(); ++i) {
      CHECK_MESSAGE(!picked[i].empty(), problems[i].shape_key());
      compiled += picked[i].size();
    }
    MESSAGE("narrow types: ", compiled, " of ", total, " variants");
    CHECK(test::compile_all_joint(problems, spaces, "sm_90", {kArgReduceKernelName, kArgReduceFinishKernelName}) == "");
  }
}

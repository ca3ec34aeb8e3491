// The arg-reduction variants of the tier (tier.hpp: a pairwise-covering subset of each space in the quick tier, all of
// it in the full tier), on the GPU, exactly (value bits and index) against the CPU reference:
// every value type (f16, bf16, i8 and i16 too), arg-min and arg-max, n = 0, 1, 31, ~1M and ~4M, unaligned pointers,
// all-equal inputs (the answer is index 0), sorted and skewed inputs, the extreme repeated (the first index), the
// identity value everywhere, NaN (first, last, several, with payloads), infinities, signed zeros and the smallest
// subnormals (negative ones: a half compared by its raw bits would get them wrong); twice per input (the ticket resets
// itself). Where the binary links CUB (AUTOTUNE_GPU_TESTS_HAVE_CUB: bench/cub_argreduce.cu), CUB's ArgMax/ArgMin on
// every input without NaN (CUB leaves NaN undefined) but the empty one must give the reference's answer too, bit for bit
// (and so every variant's). Then indices past 2^32, and the handle (autotune::ArgReduce) with a size table of three
// tuned sizes, and its typed calls on __nv_bfloat16 and std::int8_t.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <limits>
#include <type_traits>

#include "autotune/argreduce.hpp"
#include "autotune/error.hpp"
#include "core/jit.hpp"
#include "gpu_fixtures.hpp"
#include "kernel_templates/argreduce/launcher.hpp"
#include "kernel_templates/argreduce/reference.hpp"
#include "kernel_templates/argreduce/space.hpp"
#include "kernel_templates/half_host.hpp"
#include "kernel_templates/reduction_reference.hpp"  // with_value_type
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
#include "bench/cub_argreduce.hpp"
#endif

using namespace autotune;
using namespace autotune::testing;

namespace {

ArgReduceProblem make(ArgOp op, ValueType t, std::uint64_t n = 0) {
  ArgReduceProblem p;
  p.op = op, p.type = t, p.n = n;
  return p;
}

// How the inputs below write values of a type: as itself (Plain), or a half as its 16 bits (Half); a number given
// as a double (rounded to the half), and the type's special values.
template <class T>
struct Plain {
  using S = T;
  static constexpr bool kFloat = std::is_floating_point_v<T>;
  static S from(double v) { return static_cast<T>(v); }
  static S max() { return std::numeric_limits<T>::max(); }
  static S lowest() { return std::numeric_limits<T>::lowest(); }
  static S inf(bool negative) { return std::copysign(std::numeric_limits<T>::infinity(), negative ? T(-1) : T(1)); }
  static S nan(bool negative) { return std::copysign(std::numeric_limits<T>::quiet_NaN(), negative ? T(-1) : T(1)); }
  static S payload_nan() {  // a quiet NaN with a payload
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    return std::bit_cast<T>(sizeof(T) == 4 ? U(0x7FC01234u) : U(0x7FF8000000001234ull));
  }
  static S signaling_nan() { return std::numeric_limits<T>::signaling_NaN(); }
  static S tiny(int k) { return static_cast<T>(k) * std::numeric_limits<T>::denorm_min(); }  // k least subnormals
};
template <ValueType H>
struct Half {
  using S = std::uint16_t;
  static constexpr bool kFloat = true;
  static constexpr bool kF16 = H == ValueType::f16;
  static S from(double v) { return reduce_detail::float_to_half(H, static_cast<float>(v)); }
  static S max() { return kF16 ? 0x7BFF : 0x7F7F; }
  static S lowest() { return kF16 ? 0xFBFF : 0xFF7F; }
  static S inf(bool negative) { return static_cast<S>((negative ? 0x8000 : 0) | (kF16 ? 0x7C00 : 0x7F80)); }
  static S nan(bool negative) { return static_cast<S>((negative ? 0x8000 : 0) | (kF16 ? 0x7E00 : 0x7FC0)); }
  static S payload_nan() { return kF16 ? 0x7E5A : 0x7FC5; }
  static S signaling_nan() { return kF16 ? 0x7C01 : 0x7F81; }  // quiet bit clear: a conversion may quiet it
  static S tiny(int k) { return static_cast<S>(k < 0 ? 0x8000 - k : k); }  // k least subnormals
};

template <class S>
void put(std::vector<unsigned char>& bytes, std::uint64_t i, S v) {
  std::memcpy(&bytes[i * sizeof(S)], &v, sizeof(S));
}

struct Input {
  std::string name;
  std::vector<unsigned char> bytes;
  std::uint64_t n;
  std::size_t offset;  // elements: an unaligned start for vector loads
  bool nan = false;    // holds a NaN: CUB leaves the answer undefined, the reference alone decides
};

// Floats: NaNs of both signs and payloads, infinities, signed zeros and the least subnormals as the extreme.
template <class V>
void add_float_inputs(const ArgReduceProblem& base, std::vector<Input>& in) {
  using S = typename V::S;
  constexpr std::uint64_t kMid = 1000003;
  const bool max = base.op == ArgOp::argmax;
  auto generated = [&](const char* dist, std::uint64_t n, std::uint64_t seed) {
    ArgReduceProblem p = base;
    p.distribution = dist;
    return generate_arg_values(p, n, seed);
  };
  Input nan_last{"NaN last, unaligned", generated("uniform", kMid, 14), kMid, 1, true};
  put<S>(nan_last.bytes, kMid - 1, V::nan(false));
  in.push_back(nan_last);
  Input nan_first{"negative NaN first, unaligned", generated("uniform", kMid, 15), kMid, 1, true};
  put<S>(nan_first.bytes, 0, V::nan(true));
  in.push_back(nan_first);
  Input nans{"three NaNs of other payloads, +inf and -inf", generated("uniform", kMid, 16), kMid, 0, true};
  put<S>(nans.bytes, 5, V::inf(false));
  put<S>(nans.bytes, 6, V::inf(true));
  put<S>(nans.bytes, kMid - 100, V::nan(true));
  put<S>(nans.bytes, kMid / 3, V::nan(false));  // the first NaN: the answer
  put<S>(nans.bytes, kMid / 2, V::payload_nan());
  in.push_back(nans);
  Input infs{"+inf and -inf", generated("uniform", kMid, 18), kMid, 1};
  put<S>(infs.bytes, kMid / 2 + 3, V::inf(false));
  put<S>(infs.bytes, kMid / 4, V::inf(true));
  put<S>(infs.bytes, kMid - 3, V::inf(false));
  in.push_back(infs);
  // Zeros of both signs as the extreme: equal, so the first (here -0.0) wins with its sign.
  std::vector<unsigned char> zeros(kMid * sizeof(S));
  for (std::uint64_t i = 0; i < kMid; ++i) put<S>(zeros, i, V::from(max ? -1.0 - (i % 5) : 1.0 + (i % 5)));
  put<S>(zeros, 1001, V::from(-0.0));
  put<S>(zeros, 1000, V::from(0.0));
  put<S>(zeros, 999, V::from(-0.0));
  put<S>(zeros, kMid - 1, V::from(0.0));
  in.push_back({"signed zeros as the extreme", zeros, kMid, 1});
  // +0.0 first this time: its bits (the packed keys decode a zero as +0.0 and must not take the later -0.0's).
  put<S>(zeros, 999, V::from(0.0));
  put<S>(zeros, 1001, V::from(-0.0));
  in.push_back({"+0.0 then -0.0 as the extreme, aligned", zeros, kMid, 0});
  // The smallest subnormals as the extreme, nearest zero on the extreme's side (negative for an arg-max): a half's
  // raw bits as unsigned order the negatives backwards. One least subnormal twice (the first wins), two of them
  // earlier.
  std::vector<unsigned char> tiny(kMid * sizeof(S));
  for (std::uint64_t i = 0; i < kMid; ++i) put<S>(tiny, i, V::from(max ? -1.0 - (i % 5) : 1.0 + (i % 5)));
  put<S>(tiny, kMid / 4, V::tiny(max ? -2 : 2));
  put<S>(tiny, kMid / 3, V::tiny(max ? -1 : 1));  // the answer
  put<S>(tiny, kMid / 2, V::tiny(max ? -1 : 1));
  in.push_back({"the least subnormals as the extreme", tiny, kMid, 1});
  // A NaN with a payload first, then the canonical one: the first NaN's own bits come back; and a signaling NaN
  // (quiet bit clear), which a conversion to float may quiet: its bits too.
  Input payloads{"a NaN with a payload, then the canonical NaN", generated("uniform", kMid, 21), kMid, 0, true};
  put<S>(payloads.bytes, kMid / 5, V::payload_nan());
  put<S>(payloads.bytes, kMid / 4, V::nan(false));
  in.push_back(payloads);
  Input signaling{"a signaling NaN, unaligned", generated("uniform", kMid, 22), kMid, 1, true};
  put<S>(signaling.bytes, kMid / 7, V::signaling_nan());
  put<S>(signaling.bytes, kMid / 6, V::nan(false));
  in.push_back(signaling);
}

// The inputs of a type written by V (Plain<T> or Half<H>).
template <class V>
std::vector<Input> inputs_for(const ArgReduceProblem& base) {
  using S = typename V::S;
  constexpr std::uint64_t kMid = 1000003, kBig = (1ull << 22) + 5;
  const bool max = base.op == ArgOp::argmax;
  std::vector<Input> in;
  auto generated = [&](const char* dist, std::uint64_t n, std::uint64_t seed) {
    ArgReduceProblem p = base;
    p.distribution = dist;
    return generate_arg_values(p, n, seed);
  };
  for (std::uint64_t n : {0ull, 1ull, 31ull})
    in.push_back({fmt::format("uniform n={}", n), generated("uniform", n, n), n, 0});
  for (std::uint64_t n : {2ull, 5ull, 4099ull})  // short and odd, unaligned: head, one vector or none, tail
    in.push_back({fmt::format("uniform n={}, unaligned", n), generated("uniform", n, n + 100), n, 1});
  in.push_back({"all equal n=2 (a tie: index 0)", generated("constant", 2, 20), 2, 0});
  in.push_back({"uniform n=1000003", generated("uniform", kMid, 7), kMid, 0});
  in.push_back({"uniform n=1000003, unaligned", generated("uniform", kMid, 8), kMid, 1});
  in.push_back({"uniform n=4M+5", generated("uniform", kBig, 9), kBig, 0});
  in.push_back({"uniform n=2^18 (whole tiles)", generated("uniform", 1ull << 18, 17), 1ull << 18, 0});
  in.push_back({"all equal n=1000003, unaligned", generated("constant", kMid, 10), kMid, 1});
  in.push_back({"sorted n=1000003", generated("sorted", kMid, 11), kMid, 0});
  in.push_back({"skewed n=4M+5, unaligned", generated("skewed", kBig, 12), kBig, 3});
  // The extreme three times, late, in the middle, in the scalar tail: the middle one is the answer.
  const S extreme = max ? V::max() : V::lowest();
  Input repeated{"the extreme repeated", generated("uniform", kMid, 13), kMid, 1};
  put<S>(repeated.bytes, kMid - 1, extreme);
  put<S>(repeated.bytes, kMid / 2 + 1, extreme);
  put<S>(repeated.bytes, kMid - 2, extreme);
  in.push_back(repeated);
  // Every element the value no element beats (what a thread's scan starts from): the answer is index 0.
  S identity = max ? V::lowest() : V::max();
  if constexpr (V::kFloat) identity = V::inf(max);
  Input all_identity{"every element the identity", std::vector<unsigned char>(kMid * sizeof(S)), kMid, 1};
  for (std::uint64_t i = 0; i < kMid; ++i) put<S>(all_identity.bytes, i, identity);
  in.push_back(all_identity);
  // The same aligned, n odd: index 0 is in the vectors, which never take an element equal to the identity, while
  // the scalar tail takes its own (with their larger indices): the answer is still index 0.
  Input aligned_identity = all_identity;
  aligned_identity.name = "every element the identity, aligned, a scalar tail";
  aligned_identity.offset = 0;
  in.push_back(aligned_identity);
  // The identity everywhere but one element late in the input.
  Input one_other = all_identity;
  one_other.name = "the identity but one element";
  put<S>(one_other.bytes, kMid - 7, V::from(3));
  in.push_back(one_other);
  if constexpr (V::kFloat) {
    add_float_inputs<V>(base, in);
  } else {
    Input ext{"integer extremes at both ends", generated("uniform", kMid, 19), kMid, 1};
    put<S>(ext.bytes, 0, V::max());
    put<S>(ext.bytes, kMid - 1, V::lowest());
    in.push_back(ext);
  }
  return in;
}

std::vector<Input> inputs_of(const ArgReduceProblem& p) {
  switch (p.type) {
    case ValueType::f16: return inputs_for<Half<ValueType::f16>>(p);
    case ValueType::bf16: return inputs_for<Half<ValueType::bf16>>(p);
    case ValueType::i8: return inputs_for<Plain<std::int8_t>>(p);
    case ValueType::i16: return inputs_for<Plain<std::int16_t>>(p);
    default: return with_value_type(p.type, [&](auto tag) { return inputs_for<Plain<decltype(tag)>>(p); });
  }
}

std::string run_and_compare(const ArgReduceKernel& kernel, const ArgReduceProblem& p, const ArgExpected& expected,
                            const void* in, std::uint64_t n, const cuda::DeviceBuffer& out) {
  fill_and_wait(out, 0xAB);  // poison: the result must be written
  kernel.run(in, n, out.get(), nullptr);
  AUTOTUNE_CUDA(cudaDeviceSynchronize());
  unsigned char got[16];
  AUTOTUNE_CUDA(cudaMemcpy(got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
  return compare_argreduce(p, expected, got);
}

// CUB's ArgMax/ArgMin on one input against the reference; empty when they agree or CUB is not linked or built for
// the type.
std::string cub_difference(const ArgReduceProblem& p, const ArgExpected& expected, const void* in, std::uint64_t n,
                           const cuda::DeviceBuffer& out) {
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
  const auto type = static_cast<bench::CubValue>(p.type);
  if (!bench::cub_argreduce_supports(type)) return {};
  const bench::CubArgReduce cub(type, p.op == ArgOp::argmax, n);
  fill_and_wait(out, 0xAB);
  cub.run(in, out.get(), nullptr);
  AUTOTUNE_CUDA(cudaDeviceSynchronize());
  unsigned char got[16];
  AUTOTUNE_CUDA(cudaMemcpy(got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
  return compare_argreduce(p, expected, got);
#else
  (void)p, (void)expected, (void)in, (void)n, (void)out;
  return {};
#endif
}

void check_variants(const ArgReduceProblem& problem, const std::vector<CompiledVariant<ArgReduceConfig>>& variants,
                    const DeviceInfo& dev) {
  CAPTURE(problem.shape_key());
  CHECK(!variants.empty());
  std::vector<ArgReduceKernel> kernels;
  for (const auto& v : variants) kernels.emplace_back(problem, v.config, dev, v.cubin);

  cuda::DeviceBuffer out(16);
  for (const auto& in : inputs_of(problem)) {
    const ArgExpected expected = reference_argreduce(problem, in.bytes.data(), in.n);
    DeviceSamples dev_in(in.bytes, size_of(problem.type), in.offset);
    // CUB at n = 0: the ArgMax/ArgMin overload with separate value and index outputs (CCCL 3.0.1) writes nothing
    // for an empty input (the poisoned output came back untouched for every type on an H200:
    // bench/results/2026-12-02d-h200-gpu-check-quick.log); our result there is the KeyValuePair overload's {1,
    // lowest()/max()}, checked against the reference below. CUB is compared on the rest without NaN.
    if (!in.nan && in.n > 0) {
      INFO(problem.shape_key(), " ", in.name, ": CUB ArgMax/ArgMin");
      const std::string diff = cub_difference(problem, expected, dev_in.ptr, in.n, out);
      CHECK_MESSAGE(diff.empty(), diff);
    }
    for (const auto& kernel : kernels) {
      INFO(problem.shape_key(), " ", in.name, " ", kernel.config().key());
      for (int r = 0; r < 2; ++r) {  // twice: the ticket resets itself
        const std::string diff = run_and_compare(kernel, problem, expected, dev_in.ptr, in.n, out);
        CHECK_MESSAGE(diff.empty(), "call ", r, ": ", diff);
      }
    }
  }
}

// The tier's variants of `problems` (one covering of their joint space in the quick tier), each on its inputs.
void check_problems(const std::vector<ArgReduceProblem>& problems) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  const auto variants = compile_tier_joint(
      problems, [](const ArgReduceProblem& p) { return argreduce_space(p); }, dev,
      [&](const ArgReduceProblem& p, const ArgReduceConfig& c) { return argreduce_violation(p, c, &dev); });
  for (std::size_t i = 0; i < problems.size(); ++i) check_variants(problems[i], variants[i], dev);
#if !AUTOTUNE_GPU_TESTS_HAVE_CUB
  MESSAGE("CUB is not linked into this test binary: the CPU reference alone");
#endif
}

std::string temp_cache(const char* name) {
  const auto path = std::filesystem::temp_directory_path() /
                    fmt::format("autotune_argreduce_api_{}_{}.db", ::getpid(), name);
  std::filesystem::remove(path);
  return path.string();
}

// A handle of `p` (the built-in policy: an empty cache) called with T* and ArgResult<T>*, on skewed values with the
// extreme repeated and a start one element past an aligned one; a T of another type is refused.
template <class T>
void check_typed_handle(ArgReduceProblem p, const char* name) {
  CAPTURE(p.key());
  p.distribution = "skewed";
  const ArgReduce r(p, ArgReduce::Options{0, temp_cache(name)});
  const std::vector<unsigned char> host = generate_arg_values(p, p.n, 31);
  DeviceSamples in(host, sizeof(T), 1);
  cuda::DeviceBuffer out(16);
  const auto* d_in = static_cast<const T*>(in.ptr);
  auto* d_out = static_cast<ArgResult<T>*>(out.get());
  const ArgResult<T> got = r.result(d_in, p.n, d_out);
  CHECK(compare_argreduce(p, reference_argreduce(p, host.data(), p.n), &got) == "");
  const ArgResult<T> empty = r.result(d_in, 0, d_out);
  CHECK(compare_argreduce(p, reference_argreduce(p, host.data(), 0), &empty) == "");
  if constexpr (sizeof(T) == 2) {
    using Other = std::conditional_t<std::is_same_v<T, __half>, __nv_bfloat16, __half>;
    CHECK_THROWS_AS(r(static_cast<const Other*>(in.ptr), p.n, static_cast<ArgResult<Other>*>(out.get())), UsageError);
  } else {
    CHECK_THROWS_AS(r(static_cast<const float*>(in.ptr), 4, static_cast<ArgResult<float>*>(out.get())), UsageError);
  }
}

}  // namespace

TEST_SUITE("gpu_argreduce") {
  TEST_CASE("argmax: every 32- and 64-bit value type, the tier's variants exact") {
    std::vector<ArgReduceProblem> problems;
    for (ValueType t : all_value_types()) problems.push_back(make(ArgOp::argmax, t));
    check_problems(problems);
  }
  TEST_CASE("argmin: every 32- and 64-bit value type, the tier's variants exact") {
    std::vector<ArgReduceProblem> problems;
    for (ValueType t : all_value_types()) problems.push_back(make(ArgOp::argmin, t));
    check_problems(problems);
  }
  TEST_CASE("f16, bf16, i8 and i16, argmax and argmin: the tier's variants exact, CUB's answers the same") {
    // One covering of the eight problems' joint space in the quick tier (46 variants within sm_90's limits): each
    // type and each operation meets every parameter value, the packed keys included.
    std::vector<ArgReduceProblem> problems;
    for (ArgOp op : {ArgOp::argmax, ArgOp::argmin})
      for (ValueType t : narrow_value_types()) problems.push_back(make(op, t));
    check_problems(problems);
  }

  TEST_CASE("wide keys (finish=atomic): every wide variant of the f64, i64 and u64 spaces exact, twice per input "
            "(the 128-bit slot and the ticket reset themselves), for both operations") {
    // All 18 of each space, whatever the tier: the 128-bit compare-and-swap is new on the GPU (2026-12-05d). On a
    // device below sm_90 the violation function prunes them all, and the case says so.
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    int tested = 0;
    for (ArgOp op : {ArgOp::argmax, ArgOp::argmin})
      for (ValueType t : {ValueType::f64, ValueType::i64, ValueType::u64}) {
        const ArgReduceProblem p = make(op, t);
        std::size_t wide = 0;
        int pruned = 0;
        const auto is_wide = [](const ArgReduceConfig& c) { return c.finish == Finish::atomic; };
        const auto variants = compile_selected(p, argreduce_space, argreduce_violation, is_wide, dev, wide, pruned);
        CHECK(wide == 18);
        if (dev.cc_major < 9) {
          CHECK(variants.empty());
          continue;
        }
        check_variants(p, variants, dev);
        tested += static_cast<int>(variants.size());
      }
    if (dev.cc_major < 9) MESSAGE("sm_", dev.cc_major, dev.cc_minor, ": no wide keys below sm_90 (all pruned)");
    else CHECK(tested == 6 * 18);
  }

  TEST_CASE("grid sizes: one block for n = 0, cover-n grids cover n, resident grids stay resident") {
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    const ArgReduceProblem p = make(ArgOp::argmax, ValueType::f32);
    for (int grid : {-1, 0, 1}) {
      ArgReduceConfig c;
      c.grid_blocks = grid;  // block 256, 2 loads of 4 floats: 2048 elements per block and tile
      const std::vector<char> cubin = compile_one(p, c, dev);
      const ArgReduceKernel k(p, c, dev, cubin);
      CHECK(k.grid_for(0) == 1);
      CHECK(k.grid_for(2048) == 1);
      if (grid == 1) CHECK(k.grid_for(1ull << 30) == 1);
      CHECK(k.grid_for(4096) == 1);  // two tiles in one block (kOneBlockTiles)
      if (grid == -1) {
        CHECK(k.grid_for(4097) == 3);
        CHECK(k.grid_for(1ull << 36) == ArgReduceKernel::kMaxCoverGrid);
      }
      if (grid == 0)  // the resident grid: every block that fits on the device at once, by the runtime's calculator
        CHECK(k.grid_for(1ull << 30) ==
              static_cast<unsigned>(resident_blocks_per_sm(cubin, kArgReduceKernelName, c.block, c.shared_bytes(p)) *
                                    dev.sm_count));
    }
  }

  TEST_CASE("two tiles in one block: every variant of the tier at one and a half of its tile, unaligned, gives the "
            "reference (the path that prefetches the second tile into L2)") {
    // The inputs above leave it out: their n is small or many tiles of any variant.
    cuda::DeviceBuffer out(16);
    at_two_tiles<ArgReduceKernel>(
        std::vector{make(ArgOp::argmax, ValueType::f32), make(ArgOp::argmin, ValueType::i32),
                    make(ArgOp::argmax, ValueType::f64)},
        [](const ArgReduceProblem& p) { return argreduce_space(p); }, argreduce_violation,
        [&](const ArgReduceProblem& p, const ArgReduceKernel& kernel, std::uint64_t n, std::uint64_t seed) {
          const std::vector<unsigned char> bytes = generate_arg_values(p, n, seed);
          const DeviceSamples in(bytes, size_of(p.type), 1);
          const std::string diff =
              run_and_compare(kernel, p, reference_argreduce(p, bytes.data(), n), in.ptr, n, out);
          CHECK_MESSAGE(diff.empty(), diff);
        });
  }

  TEST_CASE("indices past 2^32: the first of two maxima at the end of 2^32 + 5 floats; packed keys to n = 2^32 - 1") {
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    const std::uint64_t n = (1ull << 32) + 5;
    if (dev.memory_bytes < n * 4 + (2ull << 30)) {
      skip_case(fmt::format("{} MiB of GPU memory cannot hold 16 GiB of f32", dev.memory_bytes >> 20));
      return;
    }
    cuda::DeviceBuffer values(n * 4), out(16);
    fill_and_wait(values, 0);  // +0.0 everywhere
    const float one = 1.0f, minus = -1.0f;
    AUTOTUNE_CUDA(cudaMemcpy(values.as<float>() + (n - 3), &one, 4, cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaMemcpy(values.as<float>() + (n - 1), &one, 4, cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaMemcpy(values.as<float>() + ((1ull << 31) + 7), &minus, 4, cudaMemcpyHostToDevice));
    // The last element of n = 2^32 - 1, the largest n of the packed keys: ~index is 1 there.
    const float half = 0.5f;
    const std::uint64_t n_packed = (1ull << 32) - 1;
    AUTOTUNE_CUDA(cudaMemcpy(values.as<float>() + (n_packed - 1), &half, 4, cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());  // pageable copies may land after a non-blocking stream starts
    for (ArgOp op : {ArgOp::argmax, ArgOp::argmin}) {
      const ArgReduceProblem p = make(op, ValueType::f32);
      const ArgExpected expected = op == ArgOp::argmax ? ArgExpected{0x3F800000u, n - 3}
                                                       : ArgExpected{0xBF800000u, (1ull << 31) + 7};
      const ArgExpected expected_packed = op == ArgOp::argmax ? ArgExpected{0x3F000000u, n_packed - 1}
                                                              : ArgExpected{0xBF800000u, (1ull << 31) + 7};
      int tested = 0, packed = 0, pruned = 0;
      std::vector<ArgReduceConfig> picked;
      for (const auto& c : argreduce_space(p))
        if (c == ArgReduceConfig::fallback(p) || c.block_reduce == BlockReduce::shared_tree || c.grid_blocks == -1 ||
            is_argreduce_cluster_grid(c.grid_blocks) || c.block == 64 || c.accumulators == 4 || c.vec_bytes == 0 ||
            (c.pack && c.grid_blocks == 0 && c.block == 256))
          picked.push_back(c);
      const auto variants = compile_runnable(
          p, picked, dev, [&](const ArgReduceConfig& c) { return argreduce_violation(p, c, &dev); }, pruned,
          Entries::all);
      for (const auto& v : variants) {
        const ArgReduceKernel kernel(p, v.config, dev, v.cubin);
        INFO(to_string(op), " ", v.config.key());
        CHECK(run_and_compare(kernel, p, expected, values.get(), n, out) == "");  // a packed variant's pair path
        if (v.config.pack) {
          CHECK(run_and_compare(kernel, p, expected_packed, values.get(), n_packed, out) == "");
          ++packed;
        }
        ++tested;
      }
      CHECK(tested >= 8);
      CHECK(packed >= 8);
    }
  }

  TEST_CASE("the handle: a size table of three tuned sizes, each call exact, type and pointer checks") {
    ArgReduceProblem p = make(ArgOp::argmax, ValueType::f32);
    ArgReduceConfig one_block, two_pass, resident;
    one_block.grid_blocks = 1;
    two_pass.finish = Finish::two_pass, two_pass.grid_blocks = -1;
    resident.block = 512, resident.loads = 4;
    resident.pack = true, resident.block_reduce = BlockReduce::warp_reduce;  // the handle runs a packed variant too
    const std::string path = temp_cache("sizes");
    for (const auto& [n, config] : {std::pair{std::uint64_t(4096), one_block},
                                    std::pair{std::uint64_t(1) << 18, two_pass},
                                    std::pair{std::uint64_t(1) << 24, resident}}) {
      ArgReduceProblem at = p;
      at.n = n;
      record_forced_winner(path, at, config);
    }
    // Measured data only: with `any` the shipped policy's own entries outrank a tuned size far from n
    // (runtime/rank.hpp), and this case is about the table of the tuned sizes.
    const ArgReduce r(p, ArgReduce::Options{0, path, Requirement::tuned});
    MESSAGE(r.resolution().message, "\n", r.resolution().sizes_summary());
    REQUIRE(r.resolution().sizes.size() == 3);
    CHECK(r.resolution().sizes[0].config == one_block);
    CHECK(r.resolution().sizes[1].config == two_pass);
    CHECK(r.resolution().sizes[2].config == resident);
    CHECK(r.config_for(1000) == one_block);
    CHECK(r.config_for(1 << 18) == two_pass);
    CHECK(r.config_for(20000003) == resident);
    const cuda::Stream stream;
    for (std::uint64_t n : {0ull, 1ull, 1000ull, 4096ull, 30001ull, 262144ull, 1000003ull, 20000003ull}) {
      INFO("n=", n);
      ArgReduceProblem gen = p;
      gen.distribution = "skewed";
      const auto host = generate_arg_values(gen, n, n + 1);
      cuda::DeviceBuffer in(host.size() + 16), out(16);
      if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      const ArgResult<float> got =
          r.result(static_cast<const float*>(in.get()), n, static_cast<ArgResult<float>*>(out.get()), stream.get());
      CHECK(compare_argreduce(p, reference_argreduce(p, host.data(), n), &got) == "");
    }
    cuda::DeviceBuffer buf(64);
    CHECK_THROWS_AS(r(static_cast<const double*>(buf.get()), 4, static_cast<ArgResult<double>*>(buf.get())),
                    UsageError);
    CHECK_THROWS_AS(r(static_cast<const float*>(nullptr), 4, static_cast<ArgResult<float>*>(buf.get())), UsageError);
    CHECK_THROWS_AS(r(static_cast<const float*>(buf.get()), 4, static_cast<ArgResult<float>*>(nullptr)), UsageError);
    std::filesystem::remove(path);
  }

  TEST_CASE("the handle without a cache: the measured default policy (another type's entries), exact") {
    const ArgReduceProblem p = make(ArgOp::argmin, ValueType::i64, 1000003);
    const ArgReduce r(p, ArgReduce::Options{0, temp_cache("empty")});
    CHECK(r.resolution().source == ConfigSource::policy);  // policy.json holds no i64: a 64-bit type's entry
    const auto host = generate_arg_values(p, p.n, 5);
    cuda::DeviceBuffer in(host.size()), out(16);
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    const ArgResult<long long> got = r.result(static_cast<const long long*>(in.get()), p.n,
                                              static_cast<ArgResult<long long>*>(out.get()));
    CHECK(compare_argreduce(p, reference_argreduce(p, host.data(), p.n), &got) == "");
  }

  TEST_CASE("the handle's typed calls on __nv_bfloat16, __half, std::int8_t and std::int16_t, without a cache: exact, "
            "ArgResult<T>'s layout, and another element type refused") {
    static_assert(sizeof(ArgResult<__nv_bfloat16>) == 16 && offsetof(ArgResult<__nv_bfloat16>, index) == 8);
    static_assert(sizeof(ArgResult<__half>) == 16 && offsetof(ArgResult<__half>, index) == 8);
    static_assert(sizeof(ArgResult<std::int8_t>) == 16 && offsetof(ArgResult<std::int8_t>, index) == 8);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    check_typed_handle<__nv_bfloat16>(make(ArgOp::argmax, ValueType::bf16, 1000003), "bf16");
    check_typed_handle<__half>(make(ArgOp::argmin, ValueType::f16, 1000003), "f16");
    check_typed_handle<std::int8_t>(make(ArgOp::argmax, ValueType::i8, 1000003), "i8");
    check_typed_handle<std::int16_t>(make(ArgOp::argmin, ValueType::i16, 4099), "i16");
  }
}

// Reductions of halves and narrow integers, the transform-reductions and operators of the user's own on the GPU: the
// variants of the tier (tier.hpp: a pairwise-covering subset of each space in the quick tier) against the CPU
// reference (kernel_templates/reduction_reference.cpp; the GPU tests link no CUB, so CUB is compared in
// bench/reduce_bench only): n = 0, 1, 31, an odd ~1M, unaligned starts, all-equal and sorted inputs, NaN at the scalar
// head and tail and inside a vector, infinities, signed zeros, integer extremes, exactly summable halves that every
// order must get bit-exact (sums), and a second call giving the same bits. Floats within the tolerance of
// reduce_problem.hpp, everything else exactly.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>
#include <vector>
#include <unistd.h>

#include "autotune/reduce.hpp"
#include "autotune/reduce_problem.hpp"
#include "generators.hpp"
#include "gpu_fixtures.hpp"
#include "kernel_templates/half_host.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "kernel_templates/reduce/space.hpp"

using namespace autotune;
using namespace autotune::testing;
using reduce_detail::float_to_half;

namespace {

ReduceProblem make(ReduceOp op, ValueType t, std::optional<ValueType> acc = std::nullopt, bool deterministic = true) {
  ReduceProblem p;
  p.op = op, p.type = t, p.accumulator = acc, p.deterministic = deterministic;
  return p;
}

ReduceProblem user(ValueType t, const char* op, const char* identity, const char* transform = "") {
  ReduceProblem p;
  p.op = ReduceOp::user, p.type = t, p.user = UserOp{op, identity, transform};
  return p;
}

struct Input {
  std::string name;
  std::vector<unsigned char> bytes;
  std::uint64_t n;
  std::size_t offset;       // elements: an unaligned start for vector loads
  bool exact = false;       // float sums: every order must give the reference's value exactly
  bool has_nan = false;     // left out for user operators (a > b ? a : b has no NaN rule)
};

// The extremes of an integer type, as doubles (exact for every type here but the 64-bit ones, whose extremes are
// written with their own bits below).
void put_extremes(ValueType t, std::vector<unsigned char>& bytes, std::uint64_t n) {
  const std::size_t size = size_of(t);
  const bool is_signed = t == ValueType::i8 || t == ValueType::i16 || t == ValueType::i32 || t == ValueType::i64;
  const std::uint64_t top = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
  const std::uint64_t highest = is_signed ? top >> 1 : top, lowest = is_signed ? (top >> 1) + 1 : 0;
  std::memcpy(&bytes[0], &highest, size);
  std::memcpy(&bytes[(n / 2) * size], &lowest, size);
  std::memcpy(&bytes[(n - 1) * size], &lowest, size);
}

std::vector<Input> inputs_for(const ReduceProblem& base) {
  constexpr std::uint64_t kMid = 1000003;
  const ValueType t = base.type;
  std::vector<Input> in;
  auto generated = [&](const char* dist, std::uint64_t n, std::uint64_t seed) {
    ReduceProblem p = base;
    p.distribution = dist;
    return generate_values(p, n, seed);
  };
  for (std::uint64_t n : {0ull, 1ull, 31ull}) in.push_back({fmt::format("uniform n={}", n), generated("uniform", n, n), n, 0});
  in.push_back({"uniform n=1000003, unaligned by 1", generated("uniform", kMid, 7), kMid, 1});
  in.push_back({"uniform n=1000003, unaligned by 3", generated("uniform", kMid, 8), kMid, 3});
  in.push_back({"uniform n=2^18 (whole tiles)", generated("uniform", 1ull << 18, 17), 1ull << 18, 0});
  in.push_back({"all equal n=1000003, unaligned", generated("constant", kMid, 10), kMid, 1});
  in.push_back({"sorted n=1000003", generated("sorted", kMid, 11), kMid, 0});
  if (!is_float(t)) {
    Input ext{"integer extremes", generated("uniform", kMid, 16), kMid, 1};
    put_extremes(t, ext.bytes, kMid);
    in.push_back(ext);
    return in;
  }
  // Integers in [-2, 2]: every partial sum (and square sum) is an integer below 2^24, exact in f32 in any order.
  Input exact{"small integers n=4M+5 (exactly summable)", {}, (1ull << 22) + 5, 0, true};
  exact.bytes.resize(exact.n * size_of(t));
  for (std::uint64_t i = 0; i < exact.n; ++i)
    put_value(t, exact.bytes, i, static_cast<double>(static_cast<int>(i * 7919 % 5) - 2));
  in.push_back(exact);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Input nan_last{"NaN last (scalar tail), unaligned", generated("uniform", kMid, 12), kMid, 1, false, true};
  put_value(t, nan_last.bytes, kMid - 1, nan);
  in.push_back(nan_last);
  Input nan_first{"negative NaN first (scalar head), unaligned", generated("uniform", kMid, 13), kMid, 1, false, true};
  put_value(t, nan_first.bytes, 0, -nan);
  in.push_back(nan_first);
  Input nan_mid{"NaN inside a vector", generated("uniform", kMid, 18), kMid, 0, false, true};
  put_value(t, nan_mid.bytes, kMid / 2 + 5, nan);
  in.push_back(nan_mid);
  Input pos_inf{"+inf in the middle", generated("uniform", kMid, 14), kMid, 0};
  put_value(t, pos_inf.bytes, kMid / 2, inf);
  in.push_back(pos_inf);
  Input both_inf{"-inf and +inf", generated("uniform", kMid, 15), kMid, 1};
  put_value(t, both_inf.bytes, 7, -inf);
  put_value(t, both_inf.bytes, kMid / 2 + 3, inf);
  in.push_back(both_inf);
  Input zeros{"signed zeros and small positives", {}, kMid, 1};
  zeros.bytes.resize(kMid * size_of(t));
  for (std::uint64_t i = 0; i < kMid; ++i)
    put_value(t, zeros.bytes, i, i % 3 == 0 ? (i & 1 ? -0.0 : 0.0) : (i % 5) * 0.25);
  in.push_back(zeros);
  return in;
}

// Runs `variants` of `problem` on every input and compares with the reference of `reference_problem` (the problem
// itself, or the built-in a user operator stands for).
void check_variants(const ReduceProblem& problem, const ReduceProblem& reference_problem,
                    const std::vector<CompiledVariant<ReduceConfig>>& variants, const DeviceInfo& dev) {
  CAPTURE(problem.shape_key());
  REQUIRE(!variants.empty());
  const std::size_t acc_bytes = size_of(problem.accumulator_type());
  const bool deterministic = problem.normalized().deterministic;
  std::vector<ReduceKernel> kernels;
  for (const auto& v : variants) kernels.emplace_back(problem, v.config, dev, v.cubin);
  cuda::DeviceBuffer out(16);
  for (const auto& in : inputs_for(problem)) {
    if (problem.op == ReduceOp::user && in.has_nan) continue;
    const ReduceExpected expected = reference_reduce(reference_problem, in.bytes.data(), in.n);
    DeviceSamples dev_in(in.bytes, size_of(problem.type), in.offset);
    for (const auto& kernel : kernels) {
      INFO(in.name, " ", kernel.config().key());
      std::uint64_t first = 0;
      for (int r = 0; r < 2; ++r) {  // twice: the ticket resets itself, and the bits stay
        fill_and_wait(out, 0xAB);  // poison: the result must be written
        kernel.run(dev_in.ptr, in.n, out.get(), nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        std::uint64_t bits = 0;
        AUTOTUNE_CUDA(cudaMemcpy(&bits, out.get(), acc_bytes, cudaMemcpyDeviceToHost));
        const std::string diff = compare_reduce(reference_problem, expected, &bits, in.n,
                                                addition_chain(kernel.config(), in.n, kernel.grid_for(in.n)));
        CHECK_MESSAGE(diff.empty(), "call ", r, ": ", diff);
        if (in.exact && is_additive(reference_problem.op) && reference_problem.op != ReduceOp::l2norm) {
          ReduceExpected exact = expected;
          exact.abs_sum = 0;  // no tolerance: every partial sum is exact
          CHECK_MESSAGE(compare_reduce(reference_problem, exact, &bits, in.n) == "", "exactly summable input");
        }
        if (r == 0) first = bits;
        else if (deterministic) CHECK_MESSAGE(bits == first, "call ", r, " gave other bits than call 0");
      }
    }
  }
}

// A problem and the problem whose CPU reference it must match.
struct Checked {
  ReduceProblem problem, reference;
  Checked(ReduceProblem p) : problem(p), reference(p) {}  // NOLINT: a problem is checked against its own reference
  Checked(ReduceProblem p, ReduceProblem r) : problem(std::move(p)), reference(std::move(r)) {}
};

// The tier's variants of every problem (one covering of their joint space in the quick tier), each on every input.
void check_every_variant(const std::vector<Checked>& checked) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  std::vector<ReduceProblem> problems;
  for (const Checked& c : checked) problems.push_back(c.problem);
  const auto variants = compile_tier_joint(
      problems, [](const ReduceProblem& p) { return reduce_space(p); }, dev,
      [&](const ReduceProblem& p, const ReduceConfig& c) { return reduce_violation(p, c, &dev); });
  for (std::size_t i = 0; i < checked.size(); ++i)
    check_variants(checked[i].problem, checked[i].reference, variants[i], dev);
}

constexpr ReduceOp kEveryOp[] = {ReduceOp::sum,   ReduceOp::min,    ReduceOp::max,   ReduceOp::absmax,
                                 ReduceOp::sumsq, ReduceOp::sumabs, ReduceOp::l2norm};

std::string temp_cache(const char* name) {
  const auto path = std::filesystem::temp_directory_path() / fmt::format("autotune_half_reduce_{}_{}.db", ::getpid(), name);
  std::filesystem::remove(path);
  return path.string();
}

}  // namespace

TEST_SUITE("gpu_reduce") {
  TEST_CASE("f16 and bf16: every operation, the tier's variants, against the CPU reference") {
    std::vector<Checked> problems;
    for (ValueType t : {ValueType::f16, ValueType::bf16})
      for (ReduceOp op : kEveryOp) problems.emplace_back(make(op, t));
    check_every_variant(problems);
  }
  TEST_CASE("halves summed into f64, and fast sums of squares (float atomics)") {
    check_every_variant({make(ReduceOp::sum, ValueType::bf16, ValueType::f64),
                         make(ReduceOp::sumsq, ValueType::f16, std::nullopt, false)});
  }
  TEST_CASE("i8 and i16: every operation, exactly") {
    std::vector<Checked> problems;
    for (ValueType t : {ValueType::i8, ValueType::i16})
      for (ReduceOp op : kEveryOp) problems.emplace_back(make(op, t));
    problems.emplace_back(make(ReduceOp::sum, ValueType::i16, ValueType::i32));  // wraps in 32 bits
    check_every_variant(problems);
  }
  TEST_CASE("atomic_last: all 8 variants of each space, halves (the float word converted once by the last block), "
            "i8, i16 and the wide types, fast float sums too, on every input, twice per input (the word and the "
            "ticket reset themselves)") {
    // Whatever the tier: the finish is new on the GPU (2026-12-05d).
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    const std::vector<ReduceProblem> problems{
        make(ReduceOp::absmax, ValueType::f16),     make(ReduceOp::min, ValueType::bf16),
        make(ReduceOp::max, ValueType::i8),         make(ReduceOp::sum, ValueType::i16),
        make(ReduceOp::max, ValueType::f32),        make(ReduceOp::min, ValueType::i32),
        make(ReduceOp::sum, ValueType::u64),        make(ReduceOp::sum, ValueType::f64, std::nullopt, false),
        make(ReduceOp::sumsq, ValueType::f16, std::nullopt, false)};
    for (const ReduceProblem& p : problems) {
      CAPTURE(p.shape_key());
      std::size_t last = 0;
      int pruned = 0;
      const auto is_last = [](const ReduceConfig& c) { return c.finish == Finish::atomic_last; };
      const auto variants = compile_selected(p, reduce_space, reduce_violation, is_last, dev, last, pruned);
      CHECK(last == 8);
      CHECK(pruned == 0);
      check_variants(p, p, variants, dev);
    }
  }
  TEST_CASE("the transforms on the 32- and 64-bit types") {
    std::vector<Checked> problems;
    for (ValueType t : {ValueType::f32, ValueType::f64, ValueType::i32, ValueType::i64, ValueType::u32})
      for (ReduceOp op : {ReduceOp::absmax, ReduceOp::sumsq, ReduceOp::sumabs, ReduceOp::l2norm})
        problems.emplace_back(make(op, t));
    check_every_variant(problems);
  }
  TEST_CASE("user operators against the built-in ones they equal") {
    check_every_variant({
        // A max and a min written by hand: exact, as the built-ins (inputs without NaN: a > b ? a : b has no NaN rule).
        {user(ValueType::f32, "a > b ? a : b", "-INFINITY"), make(ReduceOp::max, ValueType::f32)},
        {user(ValueType::i32, "a < b ? a : b", "INT_MAX"), make(ReduceOp::min, ValueType::i32)},
        // A sum of squares of bf16 in float: within the built-in sumsq's tolerance.
        {user(ValueType::bf16, "a + b", "0", "x * x"), make(ReduceOp::sumsq, ValueType::bf16)},
        // |x| of i8 (in i32) and a max: the built-in absmax (its u32 result has the same bits for |x| <= 128).
        {user(ValueType::i8, "max(a, b)", "0", "x < 0 ? -x : x"), make(ReduceOp::absmax, ValueType::i8)},
    });
  }

  TEST_CASE("autotune::Reduce with halves and a user operator, from an empty cache (the built-in default)") {
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    const std::string path = temp_cache("api");
    constexpr std::uint64_t n = 1000003;
    ReduceProblem absmax = make(ReduceOp::absmax, ValueType::bf16);
    absmax.n = n;
    const std::vector<unsigned char> host = generate_values(absmax, n, 21);
    DeviceSamples in(host, 2, 0);
    cuda::DeviceBuffer out(16);
    Reduce::Options options;
    options.device = 0;
    options.cache_path = path;
    const Reduce r(absmax, options);
    const auto* d_in = static_cast<const __nv_bfloat16*>(in.ptr);
    const __nv_bfloat16 got = r.result(d_in, n, static_cast<__nv_bfloat16*>(out.get()));
    CHECK(compare_reduce(absmax, reference_reduce(absmax, host.data(), n), &got, n) == "");
    // The typed call refuses another type: a __half input for a bf16 problem, a float result for a bf16 absmax.
    CHECK_THROWS_AS(r(static_cast<const __half*>(in.ptr), n, static_cast<__nv_bfloat16*>(out.get())), UsageError);
    CHECK_THROWS_AS(r(d_in, n, static_cast<float*>(out.get())), UsageError);

    const Reduce umax(ValueType::f32, UserOp{"a > b ? a : b", "-INFINITY", ""}, n, options);
    CHECK(umax.problem().key().find("reduce/user:74e613c30ecaeb13/f32/") == 0);
    ReduceProblem max = make(ReduceOp::max, ValueType::f32);
    const std::vector<unsigned char> floats = generate_values(max, n, 22);
    DeviceSamples fin(floats, 4, 1);
    const float m = umax.result(static_cast<const float*>(fin.ptr), n, static_cast<float*>(out.get()));
    CHECK(compare_reduce(max, reference_reduce(max, floats.data(), n), &m, n) == "");
    // n = 0: the identity expression's value.
    CHECK(umax.result(static_cast<const float*>(fin.ptr), 0, static_cast<float*>(out.get())) ==
          -std::numeric_limits<float>::infinity());
    std::filesystem::remove(path);
  }
}

// The reduction variants of the tier (tier.hpp: a pairwise-covering subset of each space in the quick tier, all of
// it in the full tier), on the GPU, against the CPU reference: every op and value type (and i32 into
// i32, f32 into f64, fast float sums), n = 0, 1, 31, ~1M and ~4M, unaligned pointers, all-equal and sorted inputs,
// NaN and infinities, integer extremes (wrapping sums), exactly summable float inputs that every order must get
// bit-exact, and 10 repeated calls of every deterministic variant giving the same bits.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "gpu_fixtures.hpp"
#include "core/jit.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "autotune/reduce_problem.hpp"
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
#include "bench/cub_reduce.hpp"
#endif

using namespace autotune;
using namespace autotune::testing;

namespace {

#if AUTOTUNE_GPU_TESTS_HAVE_CUB
constexpr bool kCubLinked = true;
#else
constexpr bool kCubLinked = false;  // the oracle case below is reported skipped
#endif

ReduceProblem make(ReduceOp op, ValueType t, std::optional<ValueType> acc = std::nullopt, bool deterministic = true) {
  ReduceProblem p;
  p.op = op, p.type = t, p.accumulator = acc, p.deterministic = deterministic;
  return p;
}

template <class T>
void put(std::vector<unsigned char>& bytes, std::uint64_t i, T v) {
  std::memcpy(&bytes[i * sizeof(T)], &v, sizeof(T));
}

struct Input {
  std::string name;
  std::vector<unsigned char> bytes;
  std::uint64_t n;
  std::size_t offset;      // elements: an unaligned start for vector loads
  bool exact = false;      // float sums: every order must give the reference's value exactly
  bool determinism = false;  // run every deterministic variant 10 times on it
};

// Values of the problem's type from a small integer: what the special inputs are made of.
template <class T>
std::vector<unsigned char> small_integers(std::uint64_t n, std::uint64_t seed, int lo, int hi) {
  std::vector<unsigned char> bytes(n * sizeof(T));
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (std::uint64_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    put(bytes, i, static_cast<T>(lo + static_cast<int>(x % static_cast<std::uint64_t>(hi - lo + 1))));
  }
  return bytes;
}

template <class T>
std::vector<Input> inputs_for(const ReduceProblem& base) {
  constexpr std::uint64_t kMid = 1000003, kBig = (1ull << 22) + 5;
  std::vector<Input> in;
  auto generated = [&](const char* dist, std::uint64_t n, std::uint64_t seed) {
    ReduceProblem p = base;
    p.distribution = dist;
    return generate_values(p, n, seed);
  };
  for (std::uint64_t n : {0ull, 1ull, 31ull}) in.push_back({fmt::format("uniform n={}", n), generated("uniform", n, n), n, 0});
  in.push_back({"uniform n=1000003", generated("uniform", kMid, 7), kMid, 0});
  in.push_back({"uniform n=1000003, unaligned", generated("uniform", kMid, 8), kMid, 1, false, true});
  in.push_back({"uniform n=4M+5", generated("uniform", kBig, 9), kBig, 0});
  // A power of two: a cover-n grid (grid=-1) then reads whole tiles only, the path without bounds checks, which the
  // sizes above never give it.
  in.push_back({"uniform n=2^18 (whole tiles for cover-n grids)", generated("uniform", 1ull << 18, 17), 1ull << 18, 0});
  in.push_back({"all equal n=1000003, unaligned", generated("constant", kMid, 10), kMid, 1});
  in.push_back({"sorted n=1000003", generated("sorted", kMid, 11), kMid, 0});
  if constexpr (std::is_floating_point_v<T>) {
    constexpr T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    // Integers in [-2, 2] as floats: every partial sum is an integer below 2^24, exact in f32 in any order.
    in.push_back({"small integers n=4M+5 (exactly summable)", small_integers<T>(kBig, 3, -2, 2), kBig, 0, true});
    Input nan_last{"NaN last, unaligned", generated("uniform", kMid, 12), kMid, 1};
    put<T>(nan_last.bytes, kMid - 1, nan);  // the scalar tail
    in.push_back(nan_last);
    Input nan_first{"negative NaN first, unaligned", generated("uniform", kMid, 13), kMid, 1};
    put<T>(nan_first.bytes, 0, -nan);  // the scalar head
    in.push_back(nan_first);
    Input pos_inf{"+inf in the middle", generated("uniform", kMid, 14), kMid, 0};
    put<T>(pos_inf.bytes, kMid / 2, inf);
    in.push_back(pos_inf);
    Input both_inf{"-inf and +inf", generated("uniform", kMid, 15), kMid, 1};
    put<T>(both_inf.bytes, 7, -inf);
    put<T>(both_inf.bytes, kMid / 2 + 3, inf);
    in.push_back(both_inf);
    // Signed zeros among positive values: min is a zero; with 10 repeated calls the bits must not change.
    std::vector<unsigned char> zeros = small_integers<T>(kMid, 4, 0, 3);
    for (std::uint64_t i = 0; i < kMid; ++i) {
      T v;
      std::memcpy(&v, &zeros[i * sizeof(T)], sizeof(T));
      if (v == 0 && (i & 1)) put<T>(zeros, i, T(-0.0));
    }
    in.push_back({"signed zeros", zeros, kMid, 1, false, true});
  } else {
    // The type's extremes at both ends and the middle: min/max must find them, sums wrap.
    Input ext{"integer extremes", generated("uniform", kMid, 16), kMid, 1};
    put<T>(ext.bytes, 0, std::numeric_limits<T>::max());
    put<T>(ext.bytes, kMid / 2, std::numeric_limits<T>::max());
    put<T>(ext.bytes, kMid - 1, std::numeric_limits<T>::lowest());
    in.push_back(ext);
  }
  return in;
}


std::uint64_t read_result(const cuda::DeviceBuffer& out, std::size_t bytes) {
  std::uint64_t bits = 0;
  AUTOTUNE_CUDA(cudaMemcpy(&bits, out.get(), bytes, cudaMemcpyDeviceToHost));
  return bits;
}

long double as_float(ValueType acc, std::uint64_t bits) {
  if (acc == ValueType::f32) return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  return std::bit_cast<double>(bits);
}

void check_variants(const ReduceProblem& problem, const std::vector<CompiledVariant<ReduceConfig>>& variants,
                    const DeviceInfo& dev) {
  CAPTURE(problem.shape_key());
  CHECK(!variants.empty());
  const ValueType acc = problem.accumulator_type();
  const std::size_t acc_bytes = size_of(acc);
  const bool deterministic = problem.normalized().deterministic;

  std::vector<ReduceKernel> kernels;  // one module load per variant, reused for every input
  for (const auto& v : variants) kernels.emplace_back(problem, v.config, dev, v.cubin);

  const auto inputs = with_value_type(problem.type, [&](auto tag) { return inputs_for<decltype(tag)>(problem); });
  cuda::DeviceBuffer out(16);
  for (const auto& in : inputs) {
    const auto expected = reference_reduce(problem, in.bytes.data(), in.n);
    DeviceSamples dev_in(in.bytes, size_of(problem.type), in.offset);
    for (const auto& kernel : kernels) {
      INFO(in.name, " ", kernel.config().key());
      std::uint64_t first = 0;
      const int repeats = in.determinism && deterministic ? 10 : 2;  // at least twice: the ticket resets itself
      for (int r = 0; r < repeats; ++r) {
        fill_and_wait(out, 0xAB);  // poison: the result must be written
        kernel.run(dev_in.ptr, in.n, out.get(), nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        const std::uint64_t bits = read_result(out, acc_bytes);
        const std::string diff = compare_reduce(problem, expected, &bits, in.n,
                                                addition_chain(kernel.config(), in.n, kernel.grid_for(in.n)));
        CHECK_MESSAGE(diff.empty(), "call ", r, ": ", diff);
        if (in.exact) CHECK(as_float(acc, bits) == expected.value);
        if (r == 0) first = bits;
        else if (deterministic) CHECK_MESSAGE(bits == first, "call ", r, " gave other bits than call 0");
      }
    }
  }
}

// The tier's variants of `problems` (one covering of their joint space in the quick tier), each problem checked on
// its own.
void check_every_variant(const std::vector<ReduceProblem>& problems) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  const auto variants = compile_tier_joint(
      problems, [](const ReduceProblem& p) { return reduce_space(p); }, dev,
      [&](const ReduceProblem& p, const ReduceConfig& c) { return reduce_violation(p, c, &dev); });
  for (std::size_t i = 0; i < problems.size(); ++i) check_variants(problems[i], variants[i], dev);
}

// CUB's DeviceReduce::Sum/Min/Max on the inputs every variant is checked on, against the same CPU reference and with
// the same comparison (float sums within the bound of a sequential chain of n additions: CUB's order is its own;
// exactly summable inputs exactly). Left out where CUB's result is not defined as ours: min/max of n = 0 (CUB writes
// numeric_limits max()/lowest(), we the identity, +-inf for floats), and min/max over NaN or signed zeros (CUB's `<`
// gives whichever its order meets first). Returns the number of inputs compared.
int check_cub_reduce(const ReduceProblem& problem) {
  int compared = 0;
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
  CAPTURE(problem.shape_key());
  const auto cub_type = static_cast<bench::CubValue>(problem.type);
  const auto cub_op = static_cast<bench::CubOp>(problem.op);
  REQUIRE(bench::cub_reduce_supports(cub_type, cub_op));
  const std::size_t acc_bytes = size_of(problem.accumulator_type());
  const bool extreme = problem.op != ReduceOp::sum;
  const auto inputs = with_value_type(problem.type, [&](auto tag) { return inputs_for<decltype(tag)>(problem); });
  cuda::DeviceBuffer out(16);
  for (const auto& in : inputs) {
    const bool orderless = in.name.find("NaN") != std::string::npos || in.name.find("signed zeros") != std::string::npos;
    if (extreme && (in.n == 0 || orderless)) continue;
    const auto expected = reference_reduce(problem, in.bytes.data(), in.n);
    DeviceSamples dev_in(in.bytes, size_of(problem.type), in.offset);
    bench::CubReduce cub(cub_type, cub_op, in.n);
    fill_and_wait(out, 0xAB);
    cub.run(dev_in.ptr, out.get(), nullptr);
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    const std::uint64_t bits = read_result(out, acc_bytes);
    INFO("CUB on ", in.name);
    const std::string diff = compare_reduce(problem, expected, &bits, in.n, in.n);
    CHECK_MESSAGE(diff.empty(), diff);
    if (in.exact) CHECK(as_float(problem.accumulator_type(), bits) == expected.value);
    ++compared;
  }
#else
  (void)problem;
#endif
  return compared;
}

std::vector<ReduceProblem> every_type(ReduceOp op) {
  std::vector<ReduceProblem> out;
  for (ValueType t : all_value_types()) out.push_back(make(op, t));
  return out;
}

}  // namespace

TEST_SUITE("gpu_reduce") {
  TEST_CASE("sum: every value type with its default accumulator, the tier's variants") {
    check_every_variant(every_type(ReduceOp::sum));
  }
  TEST_CASE("sum: i32 into i32 (wrapping), f32 into f64, and fast float sums (atomic finishes)") {
    check_every_variant({make(ReduceOp::sum, ValueType::i32, ValueType::i32),
                         make(ReduceOp::sum, ValueType::f32, ValueType::f64),
                         make(ReduceOp::sum, ValueType::f32, std::nullopt, false),
                         make(ReduceOp::sum, ValueType::f64, std::nullopt, false)});
  }
  TEST_CASE("min: every value type, the tier's variants") { check_every_variant(every_type(ReduceOp::min)); }
  TEST_CASE("max: every value type, the tier's variants") { check_every_variant(every_type(ReduceOp::max)); }
  TEST_CASE("CUB as the oracle: DeviceReduce Sum, Min and Max of i32, u32, i64, u64, f32 and f64 equal the CPU "
            "reference the variants are checked against, on their edge inputs" * doctest::skip(!kCubLinked)) {
    AUTOTUNE_CUDA(cudaSetDevice(0));
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max})
      for (ValueType t : {ValueType::i32, ValueType::u32, ValueType::i64, ValueType::u64, ValueType::f32, ValueType::f64})
        CHECK(check_cub_reduce(make(op, t)) >= 8);
  }

  TEST_CASE("grid sizes: one block for n = 0, cover-n grids cover n, resident grids stay resident") {
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    const ReduceProblem p = make(ReduceOp::sum, ValueType::f32);
    for (int grid : {-1, 0, 1}) {
      ReduceConfig c;
      c.grid_blocks = grid;  // block 256, 2 loads of 4 floats: 2048 elements per block and tile
      const std::vector<char> cubin = compile_one(p, c, dev);
      const ReduceKernel k(p, c, dev, cubin);
      CHECK(k.grid_for(0) == 1);
      CHECK(k.grid_for(2048) == 1);
      if (grid == 1) CHECK(k.grid_for(1ull << 30) == 1);
      CHECK(k.grid_for(4096) == 1);  // two tiles in one block (kOneBlockTiles)
      if (grid == -1) {
        CHECK(k.grid_for(4097) == 3);
        CHECK(k.grid_for(100 * 2048) == 100);
        CHECK(k.grid_for(1ull << 40) == ReduceKernel::kMaxCoverGrid);
      }
      if (grid == 0)  // the resident grid: every block that fits on the device at once, by the runtime's calculator
        CHECK(k.grid_for(1ull << 30) ==
              static_cast<unsigned>(resident_blocks_per_sm(cubin, kReduceKernelName, c.block, c.shared_bytes(p)) *
                                    dev.sm_count));
    }
  }

  TEST_CASE("two tiles in one block: every variant of the tier at one and a half of its tile, unaligned, gives the "
            "reference (the path that prefetches the second tile into L2)") {
    // The inputs above leave it out: their n is at most 31 or many tiles of any variant.
    cuda::DeviceBuffer out(16);
    at_two_tiles<ReduceKernel>(
        std::vector{make(ReduceOp::sum, ValueType::f32), make(ReduceOp::max, ValueType::i32),
                    make(ReduceOp::min, ValueType::f64), make(ReduceOp::sum, ValueType::bf16)},
        [](const ReduceProblem& p) { return reduce_space(p); }, reduce_violation,
        [&](const ReduceProblem& p, const ReduceKernel& kernel, std::uint64_t n, std::uint64_t seed) {
          const std::vector<unsigned char> bytes = generate_values(p, n, seed);
          const DeviceSamples in(bytes, size_of(p.type), 1);
          fill_and_wait(out, 0xAB);  // poison: the result must be written
          kernel.run(in.ptr, n, out.get(), nullptr);
          AUTOTUNE_CUDA(cudaDeviceSynchronize());
          const std::uint64_t bits = read_result(out, size_of(p.accumulator_type()));
          const std::string diff = compare_reduce(p, reference_reduce(p, bytes.data(), n), &bits, n,
                                                  addition_chain(kernel.config(), n, 1));
          CHECK_MESSAGE(diff.empty(), diff);
        });
  }

  TEST_CASE("a configuration the device or the problem cannot take is refused before anything runs") {
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    const ReduceProblem p = make(ReduceOp::sum, ValueType::f32);
    const std::vector<char> cubin = compile_one(p, ReduceConfig{}, dev);
    ReduceConfig bad;
    bad.block_reduce = BlockReduce::warp_reduce;  // not for floats
    CHECK_THROWS_AS(ReduceKernel(p, bad, dev, cubin), UsageError);
    DeviceInfo small = dev;
    small.max_threads_per_block = 128;
    CHECK_THROWS_AS(ReduceKernel(p, ReduceConfig{}, small, cubin), UsageError);
  }

  TEST_CASE("more than 2^32 elements: 64-bit offsets reach the last one") {
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    const std::uint64_t n = (1ull << 32) + 5;
    if (dev.memory_bytes < n * 4 + (2ull << 30)) {
      skip_case(fmt::format("{} MiB of GPU memory cannot hold 16 GiB of u32", dev.memory_bytes >> 20));
      return;
    }
    // Every element 0x01010101 (a byte-wise memset), the last one 0xFFFFFFFF.
    cuda::DeviceBuffer values(n * 4);
    fill_and_wait(values, 1);
    const std::uint32_t marker = 0xFFFFFFFFu;
    AUTOTUNE_CUDA(cudaMemcpy(values.as<std::uint32_t>() + (n - 1), &marker, 4, cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());  // a pageable copy may land after a non-blocking stream starts
    cuda::DeviceBuffer out(16);
    const std::uint64_t sum = (n - 1) * 0x01010101ull + 0xFFFFFFFFull;  // fits u64: ~7.2e16
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::min}) {
      const ReduceProblem p = make(op, ValueType::u32);
      const std::uint64_t expected = op == ReduceOp::sum ? sum : op == ReduceOp::max ? 0xFFFFFFFFull : 0x01010101ull;
      int tested = 0, pruned = 0;
      std::vector<ReduceConfig> picked;
      for (const auto& c : reduce_space(p))
        if (c == ReduceConfig::fallback(p) || c.block_reduce == BlockReduce::shared_tree ||
            (c.vec_bytes == 16 && c.loads == 4 && c.accumulators == 1 && c.block == 512))
          picked.push_back(c);
      const auto variants = compile_runnable(
          p, picked, dev, [&](const ReduceConfig& c) { return reduce_violation(p, c, &dev); }, pruned,
          Entries::all);
      for (const auto& v : variants) {
        const ReduceKernel kernel(p, v.config, dev, v.cubin);
        fill_and_wait(out, 0xAB);
        kernel.run(values.get(), n, out.get(), nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        INFO(to_string(op), " ", v.config.key());
        CHECK(read_result(out, size_of(p.accumulator_type())) == expected);
        ++tested;
      }
      CHECK(tested >= 5);
    }
  }
}

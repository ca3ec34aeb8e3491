// Every segmented reduction variant on the GPU against the CPU reference: the whole f32-sum space on segment-length
// distributions from 2-element to multi-chunk segments (empty ones included), CUB's begin/end arrays with gaps,
// reversed (empty) segments and unaligned begins, a queue overflow, every op and type on a few variants, repeated
// calls giving the same bits, and the SegmentedReduce handle through the API (tuned, then the built-in default).
// f16, bf16, i8 and i16 on the same paths and on edge inputs (length 1, NaN, ties and signed zeros), and, where the
// test binary links CUB (AUTOTUNE_GPU_TESTS_HAVE_CUB), f16 and bf16 against cub::DeviceSegmentedReduce on finite
// values (bench/cub_segreduce.cu; CUB orders no NaN and gives an empty segment's min/max as max()/lowest()).
// Operators of the user's own on the same edge inputs: a user max against the built-in max, a user sum of x*x against
// the host's sum of squares (the reduce family's CPU sumsq and f32 bound), through the variants and the handle.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/segmented_reduce.hpp"
#include "autotune/tuner.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "core/workload.hpp"  // upload
#include "generators.hpp"
#include "gpu_fixtures.hpp"
#include "kernel_templates/segreduce/launcher.hpp"
#include "kernel_templates/segreduce/reference.hpp"
#include "kernel_templates/half_host.hpp"
#include "kernel_templates/segreduce/space.hpp"

#if AUTOTUNE_GPU_TESTS_HAVE_CUB
#include "bench/cub_segreduce.hpp"
#endif

using namespace autotune;
using namespace autotune::testing;

namespace {

SegReduceProblem make(SegReduceOp op, ValueType t) {
  SegReduceProblem p;
  p.op = op, p.type = t;
  return p;
}

cuda::DeviceBuffer upload_bytes(const void* data, std::size_t bytes) {
  cuda::DeviceBuffer b(std::max<std::size_t>(bytes, 16));
  if (bytes) AUTOTUNE_CUDA(cudaMemcpy(b.get(), data, bytes, cudaMemcpyHostToDevice));
  AUTOTUNE_CUDA(cudaDeviceSynchronize());  // a pageable copy may land after a non-blocking stream starts
  return b;
}

// One input: values and segments given as begin/end arrays (uploaded as the problem's offsets: int or int64).
struct Case {
  std::string name;
  std::vector<unsigned char> values;
  std::vector<std::int64_t> begin, end;
  bool exact_sums = false;  // float sums must equal the reference exactly (exactly_summable)
};

// The offsets as the problem's type, as bytes.
std::vector<unsigned char> offset_bytes(const SegReduceProblem& p, const std::vector<std::int64_t>& v) {
  std::vector<unsigned char> out(v.size() * p.offset_bytes());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (p.offset_bits == 64) {
      std::memcpy(&out[i * 8], &v[i], 8);
    } else {
      const int x = static_cast<int>(v[i]);
      std::memcpy(&out[i * 4], &x, 4);
    }
  }
  return out;
}

SegReduceExpected reference(const SegReduceProblem& p, const Case& c) {
  if (p.offset_bits == 64) return reference_segreduce(p, c.values.data(), c.begin.data(), c.end.data(), c.begin.size());
  const std::vector<int> b(c.begin.begin(), c.begin.end()), e(c.end.begin(), c.end.end());
  return reference_segreduce(p, c.values.data(), b.data(), e.data(), b.size());
}

Case from_spec(const SegReduceProblem& p, const std::string& spec, std::uint64_t n, std::uint64_t seed) {
  const auto offsets = generate_offsets<std::int64_t>(parse_segment_spec(spec), n, seed);
  Case c{fmt::format("{} n={}", spec, n), generate_segment_values(p, n, seed + 1), {}, {}};
  c.begin.assign(offsets.begin(), offsets.end() - 1);
  c.end.assign(offsets.begin() + 1, offsets.end());
  return c;
}

template <class T>
void put_bits(std::vector<unsigned char>& values, std::size_t i, T bits) {
  std::memcpy(&values[i * sizeof(T)], &bits, sizeof(T));
}

// CUB's general form: segments out of order, with gaps between them, overlapping, reversed (end < begin: empty),
// and begins at every alignment.
Case scrambled(const SegReduceProblem& p, std::uint64_t n, std::uint64_t seed) {
  Case c{fmt::format("begin/end arrays, gaps, overlaps, reversed, n={}", n), generate_segment_values(p, n, seed), {}, {}};
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (int s = 0; s < 5000; ++s) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const std::int64_t len = s % 97 == 0 ? static_cast<std::int64_t>(x % 300000) : static_cast<std::int64_t>(x % 2000);
    const std::int64_t b = static_cast<std::int64_t>((x >> 20) % (n - len));
    if (s % 13 == 0) c.begin.push_back(b + len), c.end.push_back(b);  // reversed: empty
    else c.begin.push_back(b), c.end.push_back(b + len);
  }
  return c;
}

// Element i of `values` set to the type's quiet NaN with a payload bit of its own (halves: the kernel must write the
// element's own bits).
void put_nan(ValueType t, std::vector<unsigned char>& values, std::size_t i) {
  switch (t) {
    case ValueType::f16: return put_bits(values, i, std::uint16_t{0x7E01});
    case ValueType::bf16: return put_bits(values, i, std::uint16_t{0x7FC1});
    case ValueType::f32: return put_bits(values, i, std::numeric_limits<float>::quiet_NaN());
    case ValueType::f64: return put_bits(values, i, std::numeric_limits<double>::quiet_NaN());
    default: return;
  }
}

// The same segments over small integers (in [-2, 2]) of a float type: every partial sum of a segment is an integer far
// below 2^24, exact in f32 and f64 in any order (halves hold them exactly, and sum in f32), so a float sum must equal
// the reference's exactly.
Case exactly_summable(const SegReduceProblem& p, Case c) {
  c.name += ", small integers (exactly summable)";
  const std::size_t n = c.values.size() / size_of(p.type);
  std::uint64_t x = 0x2545F4914F6CDD1DULL;
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    put_value(p.type, c.values, i, static_cast<int>(x % 5) - 2);
  }
  c.exact_sums = true;
  return c;
}

// Ties everywhere: values of {-1, -0.0, +0.0} (integers: {-1, 0}), so a segment's max is a zero met many times
// (the first one wins, with its own sign), its min the first -1; a few segments are all zeros of mixed signs.
Case ties(const SegReduceProblem& p, Case c) {
  c.name += ", ties and signed zeros";
  const std::size_t n = c.values.size() / size_of(p.type);
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const int k = static_cast<int>(x % 8);
    const bool zeros_only = (i / 4096) % 5 == 0;
    put_value(p.type, c.values, i, k == 0 && !zeros_only ? -1.0 : (k % 2 ? -0.0 : 0.0));
  }
  return c;
}

// A float sum that is not exactly the reference's, segment by segment: "" or the first difference.
std::string inexact_sums(const SegReduceProblem& p, const SegReduceExpected& expected, const unsigned char* got) {
  const ValueType acc = p.as_reduce().accumulator_type();
  for (std::size_t s = 0; s < expected.value.size(); ++s) {
    long double v = 0;
    if (acc == ValueType::f32) {
      float f = 0;
      std::memcpy(&f, got + s * p.result_bytes(), 4);
      v = f;
    } else {
      double d = 0;
      std::memcpy(&d, got + s * p.result_bytes(), 8);
      v = d;
    }
    if (v != expected.value[s].value)
      return fmt::format("segment {}: sum {} is not exactly {}", s, static_cast<double>(v),
                         static_cast<double>(expected.value[s].value));
  }
  return "";
}

struct Device {
  cuda::DeviceBuffer values, begin, end, out;
  std::size_t out_bytes;
  explicit Device(const SegReduceProblem& p, const Case& c)
      : values(upload_bytes(c.values.data(), c.values.size())),
        begin(upload(offset_bytes(p, c.begin))),
        end(upload(offset_bytes(p, c.end))),
        out(std::max<std::size_t>(16, c.begin.size() * p.result_bytes())),
        out_bytes(c.begin.size() * p.result_bytes()) {
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
  }
  template <class Call>
  std::vector<unsigned char> run(Call&& call) {
    fill_and_wait(out, 0xAB);
    call();
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned char> got(std::max<std::size_t>(out_bytes, 16));
    AUTOTUNE_CUDA(cudaMemcpy(got.data(), out.get(), got.size(), cudaMemcpyDeviceToHost));
    return got;
  }
};

// How a case's results are checked when the problem has no CPU reference of its own (a user operator): "" or what
// differs, given the case's index, the variant and the results.
using CheckResults =
    std::function<std::string(std::size_t case_index, const SegReduceConfig& config, const unsigned char* got)>;

// Runs every variant of `variants` on every case: "" or the failures. Checked against the problem's CPU reference,
// or by `check_results` when given.
std::string check_variants(const SegReduceProblem& p, const std::vector<SegReduceConfig>& variants,
                           const std::vector<Case>& cases, int repeats = 1, const CheckResults& check_results = {}) {
  const DeviceInfo dev = query_device(0);
  int pruned = 0;
  const auto compiled = compile_runnable(
      p, variants, dev, [&](const SegReduceConfig& c) { return segreduce_violation(p, c, &dev); }, pruned,
      Entries::all);
  CHECK(pruned == 0);
  std::string failures;
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    Device d(p, c);
    const SegReduceExpected expected = check_results ? SegReduceExpected{} : reference(p, c);
    for (const auto& v : compiled) {
      const SegReduceKernel k(p, v.config, dev, v.cubin);
      std::vector<unsigned char> first;
      for (int r = 0; r < repeats; ++r) {
        const auto got = d.run([&] {
          k.run(d.values.get(), c.begin.size(), d.begin.get(), d.end.get(), d.out.get(), nullptr);
        });
        if (r == 0) {
          first = got;
          const std::string diff = check_results ? check_results(ci, v.config, got.data())
                                                 : compare_segreduce(p, expected, got.data());
          if (!diff.empty()) failures += fmt::format("{} {} on {}: {}\n", p.shape_key(), v.config.key(), c.name, diff);
          if (!check_results && c.exact_sums && p.op == SegReduceOp::sum && is_float(p.type))
            if (const std::string diff = inexact_sums(p, expected, got.data()); !diff.empty())
              failures += fmt::format("{} {} on {}: {}\n", p.shape_key(), v.config.key(), c.name, diff);
        } else if (got != first) {
          failures += fmt::format("{} {} on {}: call {} gave other bits\n", p.shape_key(), v.config.key(), c.name, r);
        }
      }
    }
  }
  return failures;
}

// What a case of the type and operation numbered `type_index` and `op_index` runs of `variants` (a list chosen to
// reach each path): all of them in the full tier; in the quick tier two, rotated with the two indices so that every
// type and every operation still meets every variant (each pair of the three), at a third of the compiles.
std::vector<SegReduceConfig> rotated(const std::vector<SegReduceConfig>& variants, std::size_t type_index,
                                     std::size_t op_index) {
  if (gpu_tier() == Tier::full) return variants;
  const std::size_t k = variants.size(), i = (type_index + op_index) % k;
  return {variants[i], variants[(i + k / 2) % k]};
}

constexpr SegReduceOp kOps[] = {SegReduceOp::sum, SegReduceOp::min, SegReduceOp::max, SegReduceOp::argmin,
                                SegReduceOp::argmax};

// A thread, a warp, a group of 4 lanes and the long path, one-element loads, a block per segment alone and queueing
// the long segments: what the per-type cases rotate through.
std::vector<SegReduceConfig> path_variants(const SegReduceProblem& p) {
  return {SegReduceConfig::fallback(p),         {256, 1, 32, 16, 2, 1024},
          {128, 32, 4096, 0, 4, 4096},          {512, 4, 64, 16, 4, 65536},
          {256, 256, 0, 16, 8, 16384},          // a block per segment
          {128, 128, 1024, 0, 4, 4096}};        // ... queueing the long
}

std::string temp_cache(const char* name) {
  const auto path =
      std::filesystem::temp_directory_path() / fmt::format("autotune_segreduce_{}_{}.db", ::getpid(), name);
  std::filesystem::remove(path);
  return path.string();
}

}  // namespace

TEST_SUITE("gpu_segreduce") {
  TEST_CASE("the tier's f32 sum variants: within the rounding bound on every segment, exact on exactly summable "
            "values, for every length distribution, and repeating their bits") {
    const SegReduceProblem p = make(SegReduceOp::sum, ValueType::f32);
    std::vector<Case> cases;
    cases.push_back(from_spec(p, "fixed:32", 1 << 20, 1));
    cases.push_back(from_spec(p, "uniform:0..8", 1 << 18, 2));       // many empty segments
    cases.push_back(from_spec(p, "uniform:1..64K", 4 << 20, 3));
    cases.push_back(from_spec(p, "power-law:1..256K", 4 << 20, 4));
    cases.push_back(from_spec(p, "fixed:1000003", 3000009, 5));      // multi-chunk segments, odd alignments
    cases.push_back(from_spec(p, "fixed:1", 1000, 6));
    cases.push_back(scrambled(p, 1 << 20, 7));
    cases.push_back(exactly_summable(p, from_spec(p, "power-law:1..256K", 4 << 20, 8)));
    const std::string failures = check_variants(p, test_space(segreduce_space(p)), cases, 2);
    CHECK_MESSAGE(failures.empty(), failures);
  }

  TEST_CASE("every operation and type on a thread, a group, a warp, a block and the long path (the quick tier: each "
            "path with every type and every operation), empty segments included: integers, min, max and arg exact; "
            "float sums exact on exactly summable values, within the rounding bound on others") {
    for (std::size_t ti = 0; ti < all_value_types().size(); ++ti)
      for (std::size_t oi = 0; oi < std::size(kOps); ++oi) {
        const ValueType t = all_value_types()[ti];
        const SegReduceOp op = kOps[oi];
        const SegReduceProblem p = make(op, t);
        const std::vector<SegReduceConfig> variants = path_variants(p);
        std::vector<Case> cases{from_spec(p, "uniform:0..300", 1 << 18, 11), from_spec(p, "power-law:1..64K", 1 << 20, 12),
                                scrambled(p, 1 << 19, 13)};
        if (is_float(t) && op == SegReduceOp::sum) {
          cases.push_back(exactly_summable(p, from_spec(p, "power-law:1..64K", 1 << 20, 15)));
          cases.push_back(exactly_summable(p, scrambled(p, 1 << 19, 16)));
        }
        if (is_float(t) && op != SegReduceOp::sum) {  // NaN in some segments
          Case nan = from_spec(p, "uniform:1..3000", 1 << 18, 14);
          nan.name += ", NaN";
          for (std::size_t i = 5; i < (1 << 18); i += 7919) {
            if (t == ValueType::f32) {
              const float v = std::numeric_limits<float>::quiet_NaN();
              std::memcpy(&nan.values[i * 4], &v, 4);
            } else {
              const double v = std::numeric_limits<double>::quiet_NaN();
              std::memcpy(&nan.values[i * 8], &v, 8);
            }
          }
          cases.push_back(std::move(nan));
        }
        const std::string failures = check_variants(p, rotated(variants, ti, oi), cases);
        CHECK_MESSAGE(failures.empty(), failures);
      }
  }

  TEST_CASE("f16, bf16, i8, i16: every operation on a thread, a group, a warp, a block and the long path (the quick "
            "tier: each path with every type and every operation) on empty segments, length 1, odd tails, unaligned "
            "begins, NaN, ties and signed zeros: min, max, arg and integer sums exact; half sums in f32 within the "
            "reduce family's f32 bound (reduce_sum_tolerance), exact on exactly summable halves") {
    for (std::size_t ti = 0; ti < narrow_value_types().size(); ++ti)
      for (std::size_t oi = 0; oi < std::size(kOps); ++oi) {
        const ValueType t = narrow_value_types()[ti];
        const SegReduceOp op = kOps[oi];
        const SegReduceProblem p = make(op, t);
        std::vector<SegReduceConfig> variants = path_variants(p);
        variants.push_back({256, 32, 1024, 16, 8, 65536});  // 8 loads in flight, 64K chunks
        std::vector<Case> cases{from_spec(p, "uniform:0..300", (1 << 18) + 7, 51), from_spec(p, "fixed:1", 999, 52),
                                from_spec(p, "power-law:1..300K", 1 << 20, 53), scrambled(p, 1 << 19, 54)};
        if (is_float(t) && op == SegReduceOp::sum) {
          cases.push_back(exactly_summable(p, from_spec(p, "power-law:1..300K", 1 << 20, 55)));
          cases.push_back(exactly_summable(p, scrambled(p, 1 << 19, 56)));
        }
        if (op != SegReduceOp::sum) {
          cases.push_back(ties(p, from_spec(p, "uniform:1..20000", 1 << 19, 57)));
          cases.push_back(ties(p, scrambled(p, 1 << 19, 58)));
        }
        if (is_float(t) && op != SegReduceOp::sum) {  // NaN (with a payload of its own) in some segments
          Case nan = from_spec(p, "uniform:1..3000", 1 << 18, 59);
          nan.name += ", NaN";
          for (std::size_t i = 5; i < (1 << 18); i += 7919) put_nan(t, nan.values, i);
          cases.push_back(std::move(nan));
        }
        const std::string failures = check_variants(p, rotated(variants, ti, oi), cases);
        CHECK_MESSAGE(failures.empty(), failures);
      }
  }

#if AUTOTUNE_GPU_TESTS_HAVE_CUB
  TEST_CASE("f16 and bf16 against cub::DeviceSegmentedReduce on finite values: argmin/argmax key and value bits "
            "(empty segments included), min/max equal values on non-empty segments, sums exactly (exactly summable "
            "halves, f32 accumulators both)") {
    const DeviceInfo dev = query_device(0);
    std::string failures;
    for (ValueType t : {ValueType::f16, ValueType::bf16})
      for (SegReduceOp op : kOps) {
        const SegReduceProblem p = make(op, t);
        // The fallback (groups, the long path) and a block per segment with 8 loads in flight (the batched argmax's).
        const std::vector<SegReduceConfig> variants{SegReduceConfig::fallback(p), {256, 256, 0, 16, 8, 16384}};
        int pruned = 0;
        const auto compiled = compile_runnable(
            p, variants, dev, [&](const SegReduceConfig& c) { return segreduce_violation(p, c, &dev); },
            pruned, Entries::all);
        REQUIRE(compiled.size() == variants.size());
        // Contiguous segments (CUB's offsets form): empty ones among short ones, and rows of 128K with an odd tail.
        std::vector<Case> cases{from_spec(p, "uniform:0..3000", 1 << 20, 61),
                                from_spec(p, "fixed:128K", (8 << 17) + 12345, 62)};
        if (p.op == SegReduceOp::sum)
          for (Case& c : cases) c = exactly_summable(p, std::move(c));
        for (const Case& c : cases) {
          Device d(p, c);
          std::vector<std::int64_t> offsets = c.begin;
          offsets.push_back(c.end.back());
          const cuda::DeviceBuffer d_offsets = upload(offset_bytes(p, offsets));
          const auto* o = static_cast<const unsigned char*>(d_offsets.get());
          const bench::CubSegReduce cub(static_cast<bench::CubSegOp>(p.op), c.begin.size(), false,
                                        static_cast<bench::CubValue>(t));
          const auto want = d.run([&] { cub.run(d.values.get(), o, o + 4, d.out.get(), nullptr); });
          for (const auto& v : compiled) {
            const SegReduceKernel k(p, v.config, dev, v.cubin);
            const auto got = d.run([&] { k.run(d.values.get(), c.begin.size(), o, o + 4, d.out.get(), nullptr); });
            std::size_t wrong = 0;
            std::string first;
            for (std::size_t s = 0; s < c.begin.size(); ++s) {
              const std::size_t at = s * p.result_bytes();
              bool same = true;
              if (is_arg(p.op)) {  // key and value; bytes 6-7 of CUB's pair are padding
                same = std::memcmp(&got[at], &want[at], 6) == 0;
              } else if (p.op == SegReduceOp::sum) {
                same = std::memcmp(&got[at], &want[at], 4) == 0;
              } else if (c.end[s] > c.begin[s]) {
                std::uint16_t a = 0, b = 0;
                std::memcpy(&a, &got[at], 2), std::memcpy(&b, &want[at], 2);
                same = reduce_detail::half_to_float(t, a) == reduce_detail::half_to_float(t, b);
              }
              if (!same && wrong++ == 0) first = fmt::format("segment {} (length {})", s, c.end[s] - c.begin[s]);
            }
            if (wrong)
              failures += fmt::format("{} {} on {}: {} of {} segments differ from CUB; first {}\n", p.shape_key(),
                                      v.config.key(), c.name, wrong, c.begin.size(), first);
          }
        }
      }
    CHECK_MESSAGE(failures.empty(), failures);
  }
#endif

  TEST_CASE("user operators on the edge inputs (empty segments, length 1, odd tails, unaligned and reversed begins, "
            "queued long segments): a user max equals the built-in max exactly, a user sum of x*x the host's sum of "
            "squares within the reduce family's f32 bound; the handle runs a user operator from an empty cache; tuning one "
            "finds no variant wrong against the fallback") {
    const SegReduceProblem max = make(SegReduceOp::max, ValueType::f32);
    SegReduceProblem user_max = make(SegReduceOp::user, ValueType::f32);
    user_max.user = {"a > b ? a : b", "-INFINITY", ""};
    SegReduceProblem user_sumsq = make(SegReduceOp::user, ValueType::f32);
    user_sumsq.user = {"a + b", "0", "x * x"};
    // The built-in max's values: uniform in [-1, 1), no NaN (a > b ? a : b has no NaN rule).
    const std::vector<Case> cases{from_spec(max, "uniform:0..300", (1 << 18) + 7, 71), from_spec(max, "fixed:1", 999, 72),
                                  from_spec(max, "power-law:1..300K", 1 << 20, 73), scrambled(max, 1 << 19, 74)};
    std::vector<SegReduceExpected> maxima;
    for (const Case& c : cases) maxima.push_back(reference(max, c));
    std::string failures = check_variants(
        user_max, path_variants(user_max), cases, 2,
        [&](std::size_t i, const SegReduceConfig&, const unsigned char* got) {
          return compare_segreduce(max, maxima[i], got);
        });
    // Each segment's sum of squares by the reduce family's CPU reference (sumsq, f32), within its bound with the
    // variant's chain (segment_chain: the longest run of additions one lane makes on the segment's path).
    ReduceProblem sumsq;
    sumsq.op = ReduceOp::sumsq, sumsq.type = ValueType::f32;
    failures += check_variants(
        user_sumsq, path_variants(user_sumsq), cases, 2,
        [&](std::size_t i, const SegReduceConfig& config, const unsigned char* got) {
          const Case& c = cases[i];
          std::size_t wrong = 0;
          std::string first;
          for (std::size_t s = 0; s < c.begin.size(); ++s) {
            const std::uint64_t len = c.end[s] > c.begin[s] ? static_cast<std::uint64_t>(c.end[s] - c.begin[s]) : 0;
            const ReduceExpected e = reference_reduce(sumsq, c.values.data() + c.begin[s] * 4, len);
            const std::string diff = compare_reduce(sumsq, e, got + s * 4, len, segment_chain(config, len));
            if (!diff.empty() && wrong++ == 0) first = fmt::format("segment {} (length {}): {}", s, len, diff);
          }
          return wrong ? fmt::format("{} of {} segments wrong; first: {}", wrong, c.begin.size(), first)
                       : std::string();
        });
    CHECK_MESSAGE(failures.empty(), failures);

    // The handle, untuned: the measured policy (built-in operations' data) picks the variant; the results are the
    // built-in max's.
    const std::string path = temp_cache("user");
    user_max.n = cases[2].values.size() / 4;
    user_max.distribution = "power-law:1..256K";
    const SegmentedReduce handle(user_max, SegmentedReduce::Options{0, path});
    CHECK(handle.resolution().source == ConfigSource::policy);
    CHECK(handle.problem().key().find("segreduce/user:74e613c30ecaeb13/f32/") == 0);
    Device d(user_max, cases[2]);
    const auto got = d.run([&] {
      handle(static_cast<const float*>(d.values.get()), user_max.n, cases[2].begin.size(),
             static_cast<const int*>(d.begin.get()), static_cast<const int*>(d.end.get()),
             static_cast<float*>(d.out.get()));
    });
    CHECK(compare_segreduce(max, maxima[2], got.data()) == "");

    // Tuned: the workload checks every variant segment by segment against the fallback's results (no CPU reference
    // for CUDA text); none of a correct operator's variants is wrong, and the handle then runs the winner.
    user_sumsq.n = 1 << 20;
    user_sumsq.distribution = "power-law:1..64K";
    {
      Cache cache(path);
      const TuneReport report = tune(user_sumsq, cache, tier_tune_options(3));
      REQUIRE(report.winner);
      for (const Measurement& m : report.measurements)
        CHECK_MESSAGE(m.status != MeasurementStatus::wrong_result, m.config.key(), ": ", m.log);
    }
    const SegmentedReduce tuned(user_sumsq, SegmentedReduce::Options{0, path});
    CHECK(tuned.resolution().source == ConfigSource::exact);
    std::filesystem::remove(path);
  }

  TEST_CASE("more long segments than the queue holds: the first kernel reduces the rest itself") {
    const SegReduceProblem p = make(SegReduceOp::sum, ValueType::i32);
    // 300-element segments past small=256: 2^18 + 1000 of them overflow the queue of 2^18.
    const std::vector<Case> cases{from_spec(p, "fixed:300", 300ull * ((1u << 18) + 1000), 21)};
    const std::string failures = check_variants(p, {SegReduceConfig::fallback(p)}, cases, 2);
    CHECK_MESSAGE(failures.empty(), failures);
  }

  TEST_CASE("the SegmentedReduce handle: tuned and default configurations, offsets and begin/end forms") {
    const std::string path = temp_cache("api");
    SegReduceProblem p = make(SegReduceOp::sum, ValueType::f32);
    p.distribution = "fixed:32";
    p.n = 1 << 20;
    {
      Cache cache(path);
      const TuneOptions o = tier_tune_options(3);  // a winner is what counts here
      REQUIRE(tune(p, cache, o).winner);
    }
    const SegmentedReduce tuned(p, SegmentedReduce::Options{0, path});
    MESSAGE(tuned.resolution().message);
    CHECK(tuned.resolution().source == ConfigSource::exact);
    const Case c = from_spec(p, "fixed:32", p.n, 31);
    Device d(p, c);
    const auto expected = reference(p, c);
    std::vector<std::int64_t> offsets = c.begin;
    offsets.push_back(c.end.back());
    const cuda::DeviceBuffer d_offsets = upload(offset_bytes(p, offsets));
    const auto* in = static_cast<const float*>(d.values.get());
    auto* out = static_cast<float*>(d.out.get());
    const auto got = d.run([&] { tuned(in, p.n, c.begin.size(), static_cast<const int*>(d_offsets.get()), out); });
    CHECK(compare_segreduce(p, expected, got.data()) == "");
    const auto got2 = d.run([&] {
      tuned(in, p.n, c.begin.size(), static_cast<const int*>(d.begin.get()), static_cast<const int*>(d.end.get()), out);
    });
    CHECK(compare_segreduce(p, expected, got2.data()) == "");
    CHECK_THROWS_AS(tuned(in, p.n, c.begin.size(), static_cast<const int*>(d_offsets.get()),
                          static_cast<double*>(d.out.get())),
                    UsageError);
    // int64 offsets passed to a handle of int offsets: refused, naming both.
    CHECK_THROWS_WITH_AS(tuned(in, p.n, c.begin.size(), static_cast<const std::int64_t*>(d_offsets.get()), out),
                         doctest::Contains("64-bit offsets"), UsageError);

    // Untuned: the measured default policy (kernel_templates/segreduce/policy.json) serves another type and op.
    SegReduceProblem q = make(SegReduceOp::argmax, ValueType::i32);
    q.distribution = "power-law:1..64K";
    const SegmentedReduce untuned(q, SegmentedReduce::Options{0, path});
    CHECK(untuned.resolution().source == ConfigSource::policy);  // kernel_templates/segreduce/policy.json is shipped
    const Case qc = scrambled(q, 1 << 20, 32);
    Device qd(q, qc);
    const auto qexpected = reference(q, qc);
    const auto qgot = qd.run([&] {
      untuned(static_cast<const int*>(qd.values.get()), 1 << 20, qc.begin.size(),
              static_cast<const int*>(qd.begin.get()), static_cast<const int*>(qd.end.get()),
              static_cast<SegmentedArg<int>*>(qd.out.get()));
    });
    CHECK(compare_segreduce(q, qexpected, qgot.data()) == "");

    // 64-bit offsets through the handle: int64 begin/end and the offsets form.
    SegReduceProblem w = make(SegReduceOp::sum, ValueType::f32);
    w.distribution = "uniform:1..64K";
    w.offset_bits = 64;
    const SegmentedReduce wide(w, SegmentedReduce::Options{0, path});
    const Case wc = from_spec(w, "uniform:0..64K", 4 << 20, 33);
    Device wd(w, wc);
    const auto wexpected = reference(w, wc);
    std::vector<std::int64_t> woffsets = wc.begin;
    woffsets.push_back(wc.end.back());
    const cuda::DeviceBuffer wd_offsets = upload(offset_bytes(w, woffsets));
    auto* wout = static_cast<float*>(wd.out.get());
    const auto* win = static_cast<const float*>(wd.values.get());
    const auto wgot = wd.run([&] {
      wide(win, 4 << 20, wc.begin.size(), static_cast<const std::int64_t*>(wd.begin.get()),
           static_cast<const std::int64_t*>(wd.end.get()), wout);
    });
    CHECK(compare_segreduce(w, wexpected, wgot.data()) == "");
    const auto wgot2 =
        wd.run([&] { wide(win, 4 << 20, wc.begin.size(), static_cast<const std::int64_t*>(wd_offsets.get()), wout); });
    CHECK(compare_segreduce(w, wexpected, wgot2.data()) == "");
    CHECK_THROWS_AS(wide(win, 4 << 20, wc.begin.size(), static_cast<const int*>(wd_offsets.get()), wout), UsageError);
    std::filesystem::remove(path);
  }

  TEST_CASE("64-bit offsets: every operation on a few variants (the quick tier: each with every type and every "
            "operation), segments of every length class") {
    const std::vector<ValueType> types{ValueType::f32, ValueType::i32, ValueType::f64};
    const std::vector<SegReduceOp> ops{SegReduceOp::sum, SegReduceOp::min, SegReduceOp::argmax};
    for (std::size_t ti = 0; ti < types.size(); ++ti)
      for (std::size_t oi = 0; oi < ops.size(); ++oi) {
        SegReduceProblem p = make(ops[oi], types[ti]);
        p.offset_bits = 64;
        const std::vector<SegReduceConfig> variants{SegReduceConfig::fallback(p), {256, 32, 1024, 16, 8, 65536},
                                                    {256, 256, 0, 16, 4, 16384}, {256, 256, 65536, 16, 4, 65536}};
        const std::vector<Case> cases{from_spec(p, "power-law:1..300K", 3 << 20, 41), scrambled(p, 1 << 20, 42),
                                      from_spec(p, "fixed:1000003", 3000009, 43)};
        const std::string failures = check_variants(p, rotated(variants, ti, oi), cases);
        CHECK_MESSAGE(failures.empty(), failures);
      }
  }

  TEST_CASE("64-bit offsets past 2^31: sums and argmax of segments before, across and after element 2^31") {
    // i32 values all 0x01010101 (a byte memset: no host copy of the 8 GiB), one larger value planted past 2^31.
    constexpr std::uint64_t n = (1ull << 31) + (1ull << 20);
    constexpr std::int64_t two31 = 1ll << 31;
    constexpr std::int64_t planted_at = two31 + 50;
    constexpr int fill = 0x01010101, planted = 0x7F000000;
    std::size_t free_bytes = 0, total_bytes = 0;
    AUTOTUNE_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes < n * 4 + (1ull << 30)) {
      skip_case(fmt::format("{} MiB of GPU memory free, the input needs {} MiB", free_bytes >> 20, (n * 4) >> 20));
      return;
    }
    cuda::DeviceBuffer values(n * 4);
    AUTOTUNE_CUDA(cudaMemset(values.get(), 0x01, n * 4));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());  // the fill must land before a non-blocking stream reads it
    AUTOTUNE_CUDA(cudaMemcpy(static_cast<int*>(values.get()) + planted_at, &planted, 4, cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    // [0, 1000), [1000, 2^31 - 5) (one segment of ~2^31: chunked, or one block alone), [2^31 - 5, 2^31 + 100)
    // across 2^31 with the planted value at index 55, [2^31 + 100, n), an empty one past 2^31, a reversed one.
    const std::vector<std::int64_t> begin{0, 1000, two31 - 5, two31 + 100, two31 + 7, two31 + 90};
    const std::vector<std::int64_t> end{1000, two31 - 5, two31 + 100, static_cast<std::int64_t>(n), two31 + 7, two31 + 10};
    const std::size_t segments = begin.size();
    const DeviceInfo dev = query_device(0);
    for (SegReduceOp op : {SegReduceOp::sum, SegReduceOp::argmax}) {
      SegReduceProblem p = make(op, ValueType::i32);
      p.offset_bits = 64;
      p.n = n;
      const cuda::DeviceBuffer d_begin = upload(offset_bytes(p, begin)), d_end = upload(offset_bytes(p, end));
      cuda::DeviceBuffer out(segments * p.result_bytes());
      int pruned = 0;
      const std::vector<SegReduceConfig> variants{SegReduceConfig::fallback(p), {256, 256, 0, 16, 4, 16384},
                                                  {256, 32, 1024, 16, 8, 262144}};
      const auto compiled = compile_runnable(
          p, variants, dev, [&](const SegReduceConfig& c) { return segreduce_violation(p, c, &dev); }, pruned,
      Entries::all);
      REQUIRE(compiled.size() == variants.size());
      for (const auto& v : compiled) {
        CAPTURE(v.config.key());
        const SegReduceKernel k(p, v.config, dev, v.cubin);
        fill_and_wait(out, 0xAB);
        k.run(values.get(), segments, d_begin.get(), d_end.get(), out.get(), nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        std::vector<unsigned char> got(out.bytes());
        AUTOTUNE_CUDA(cudaMemcpy(got.data(), out.get(), got.size(), cudaMemcpyDeviceToHost));
        for (std::size_t s = 0; s < segments; ++s) {
          CAPTURE(s);
          const std::int64_t len = std::max<std::int64_t>(0, end[s] - begin[s]);
          const bool has_planted = begin[s] <= planted_at && planted_at < end[s];
          if (op == SegReduceOp::sum) {
            std::int64_t sum = 0;
            std::memcpy(&sum, &got[s * 8], 8);
            CHECK(sum == len * fill + (has_planted ? planted - fill : 0));
          } else {
            int key = 0, value = 0;
            std::memcpy(&key, &got[s * 8], 4);
            std::memcpy(&value, &got[s * 8 + 4], 4);
            if (len == 0) {
              CHECK(key == 1);  // CUB's {1, lowest()}
              CHECK(value == std::numeric_limits<int>::lowest());
            } else {
              CHECK(key == (has_planted ? static_cast<int>(planted_at - begin[s]) : 0));
              CHECK(value == (has_planted ? planted : fill));
            }
          }
        }
      }
    }
  }
}

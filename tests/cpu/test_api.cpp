// The typed calls of the runtime API: which C++ sample, counter, input and output types each overload takes, and
// the run-time checks against the problem (kernel_templates/*/handle.hpp). Calling a handle needs a GPU:
// tests/gpu/test_runtime_api.cpp and tests/gpu/test_reduce_api.cpp call the same overloads.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "autotune/error.hpp"
#include "autotune/histogram.hpp"
#include "autotune/reduce.hpp"
#include "kernel_templates/histogram/handle.hpp"
#include "kernel_templates/reduce/handle.hpp"

using namespace autotune;

TEST_SUITE("api") {
  TEST_CASE("typed histogram calls: the C++ sample and counter types are the problem's") {
    // The C++ type of each sample type, by the header's documented mapping.
    static_assert(sample_type_of<std::uint8_t>() == SampleType::u8);
    static_assert(sample_type_of<std::uint16_t>() == SampleType::u16);
    static_assert(sample_type_of<std::int32_t>() == SampleType::i32);
    static_assert(sample_type_of<std::uint32_t>() == SampleType::u32);
    static_assert(sample_type_of<float>() == SampleType::f32);
    static_assert(sample_type_of<double>() == SampleType::f64);
    static_assert(!HistogramSample<char> && !HistogramSample<std::int64_t> && !HistogramSample<const float>);
    static_assert(HistogramCounter<std::uint32_t> && HistogramCounter<std::uint64_t> &&
                  HistogramCounter<unsigned long long>);
    static_assert(!HistogramCounter<std::int32_t> && !HistogramCounter<std::uint16_t> && !HistogramCounter<float>);
    // Every typed overload exists (and the std::uint64_t counters compile) without a GPU to call them on.
    static_assert(std::is_invocable_v<const Histogram&, const float*, std::uint64_t, std::uint64_t*>);
    static_assert(std::is_invocable_v<const Histogram&, const std::uint8_t*, std::uint64_t, std::uint32_t*>);
    static_assert(std::is_invocable_v<const Histogram&, std::uint16_t*, std::uint64_t, unsigned long long*>);
    static_assert(std::is_invocable_v<const Histogram&, const void*, std::uint64_t, std::uint64_t*>);
    static_assert(std::is_invocable_v<const Histogram&, std::span<const double>, std::span<std::uint32_t>>);
    static_assert(std::is_invocable_v<const Histogram&, std::span<std::int32_t>, std::span<std::uint64_t, 100>>);
    static_assert(!std::is_invocable_v<const Histogram&, const float*, std::uint64_t, int*>);
    static_assert(!std::is_invocable_v<const Histogram&, const float*, std::uint64_t, float*>);

    const auto* samples = reinterpret_cast<const void*>(std::uintptr_t{4096});  // never dereferenced
    void* counts = reinterpret_cast<void*>(std::uintptr_t{8192});
    const HistogramProblem u8{.n = 100};
    CHECK_NOTHROW(check_histogram_call(u8, samples, SampleType::u8, 100, counts, 32, std::nullopt));
    CHECK_NOTHROW(check_histogram_call(u8, samples, std::nullopt, 100, counts, 32, std::nullopt));  // untyped
    CHECK_THROWS_WITH_AS(check_histogram_call(u8, samples, SampleType::f32, 100, counts, 32, std::nullopt),
                         doctest::Contains("f32 samples passed to a handle of u8 samples"), UsageError);
    CHECK_THROWS_WITH_AS(check_histogram_call(u8, samples, SampleType::u8, 100, counts, 64, std::nullopt),
                         doctest::Contains("64-bit counters"), UsageError);
    CHECK_NOTHROW(check_histogram_call(u8, samples, SampleType::u8, 100, counts, 32, 256));
    CHECK_NOTHROW(check_histogram_call(u8, samples, SampleType::u8, 100, counts, 32, 1000));  // more is fine
    CHECK_THROWS_WITH_AS(check_histogram_call(u8, samples, SampleType::u8, 100, counts, 32, 255),
                         doctest::Contains("255 counters"), UsageError);
    for (const SampleType t : all_sample_types()) {
      const HistogramProblem p{.type = t, .bins = 10, .n = 100, .counter_bits = 64};
      for (const SampleType passed : all_sample_types()) {
        INFO(to_string(t), " <- ", to_string(passed));
        if (passed == t) CHECK_NOTHROW(check_histogram_call(p, samples, passed, 100, counts, 64, 10));
        else
          CHECK_THROWS_WITH_AS(check_histogram_call(p, samples, passed, 100, counts, 64, 10),
                               doctest::Contains((std::string(to_string(passed)) + " samples passed to a handle of " +
                                                  std::string(to_string(t)) + " samples")
                                                     .c_str()),
                               UsageError);
      }
    }
    const HistogramProblem f64{.type = SampleType::f64, .bins = 10, .n = 100};
    CHECK_THROWS_WITH_AS(check_histogram_call(f64, reinterpret_cast<const void*>(std::uintptr_t{4100}), SampleType::f64,
                                              100, counts, 32, std::nullopt),
                         doctest::Contains("aligned to 8 bytes"), UsageError);
    CHECK_THROWS_AS(check_histogram_call(f64, nullptr, SampleType::f64, 100, counts, 32, std::nullopt), UsageError);
    CHECK_NOTHROW(check_histogram_call(f64, nullptr, SampleType::f64, 0, counts, 32, std::nullopt));
  }

  TEST_CASE("typed reduction calls: the input is the problem's type, the output its accumulator") {
    static_assert(std::is_invocable_v<const Reduce&, const float*, std::uint64_t, float*>);
    static_assert(std::is_invocable_v<const Reduce&, const std::int32_t*, std::uint64_t, std::int64_t*>);
    static_assert(std::is_invocable_v<const Reduce&, std::span<const double>, double*>);
    static_assert(std::is_invocable_v<const Reduce&, std::span<std::uint32_t>, std::uint64_t*>);
    static_assert(!std::is_invocable_v<const Reduce&, const float*, std::uint64_t, char*>);
    const ReduceProblem i32_sum{.op = ReduceOp::sum, .type = ValueType::i32};  // accumulates in i64
    CHECK_NOTHROW(check_reduce_types(i32_sum, ValueType::i32, ValueType::i64));
    CHECK_NOTHROW(check_reduce_types(i32_sum, std::nullopt, ValueType::i64));  // untyped input
    CHECK_THROWS_WITH_AS(check_reduce_types(i32_sum, ValueType::u32, ValueType::i64),
                         doctest::Contains("u32 input passed to reduce/sum/i32"), UsageError);
    CHECK_THROWS_WITH_AS(check_reduce_types(i32_sum, ValueType::i32, ValueType::i32),
                         doctest::Contains("a i32 output passed to reduce/sum/i32"), UsageError);
    const ReduceProblem f32_to_f64{.op = ReduceOp::sum, .type = ValueType::f32, .accumulator = ValueType::f64};
    CHECK_NOTHROW(check_reduce_types(f32_to_f64, ValueType::f32, ValueType::f64));
    CHECK_THROWS_AS(check_reduce_types(f32_to_f64, ValueType::f64, ValueType::f64), UsageError);
    CHECK_THROWS_AS(check_reduce_types(f32_to_f64, ValueType::f32, ValueType::f32), UsageError);
    const ReduceProblem u64_max{.op = ReduceOp::max, .type = ValueType::u64};
    CHECK_NOTHROW(check_reduce_types(u64_max, value_type_of<unsigned long>(), value_type_of<unsigned long long>()));
    CHECK_THROWS_AS(check_reduce_types(u64_max, value_type_of<long long>(), std::nullopt), UsageError);
  }
}

// Helpers shared by the GPU suite: device buffers filled from host vectors, and adversarial inputs.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/histogram_problem.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "tests/forced_winner.hpp"

namespace autotune::testing {

/// One configuration of a family and its cubin for the device under test.
template <class C>
struct CompiledVariant {
  C config;
  std::vector<char> cubin;
};

/// Compiles the configurations of `space` that the device can run (`violation(c)` empty) for `dev`, on all cores,
/// failing the test on any compile error; `pruned` counts the ones the device's limits left out.
template <class P, class C, class Violation>
std::vector<CompiledVariant<C>> compile_runnable(const P& problem, const std::vector<C>& space, const DeviceInfo& dev,
                                                 Violation&& violation, int& pruned) {
  std::vector<C> configs;
  pruned = 0;
  for (const auto& c : space) {
    if (violation(c).empty()) configs.push_back(c);
    else ++pruned;
  }
  std::vector<jit::CompileResult> results(configs.size());
  std::atomic<std::size_t> next{0};
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t)
      pool.emplace_back([&] {
        for (std::size_t i; (i = next++) < configs.size();)
          results[i] = jit::compile(kernel_source(problem, configs[i]), "variant.cu", dev.arch());
      });
  }
  std::vector<CompiledVariant<C>> out;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    INFO(configs[i].key(), "\n", results[i].log);
    REQUIRE(results[i].ok);
    out.push_back({configs[i], std::move(results[i].cubin)});
  }
  return out;
}

/// In-range samples from the problem's distribution, interleaved with random bit patterns (out-of-range values,
/// NaN, infinities and denormals for floats) and the boundary values lower, upper and the value just below upper.
inline std::vector<unsigned char> adversarial_samples(const HistogramProblem& p, std::uint64_t n, std::uint64_t seed) {
  std::vector<unsigned char> bytes = generate_samples(p, n, seed);
  const std::size_t size = size_of(p.type);
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (std::uint64_t i = 1; i < n; i += 3) {  // every third sample: random bits
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(&bytes[i * size], &x, size);
  }
  auto put = [&](std::uint64_t i, double v) {
    if (i >= n) return;
    switch (p.type) {
      case SampleType::u8: { auto t = static_cast<std::uint8_t>(v); std::memcpy(&bytes[i * size], &t, size); break; }
      case SampleType::u16: { auto t = static_cast<std::uint16_t>(v); std::memcpy(&bytes[i * size], &t, size); break; }
      case SampleType::i32: { auto t = static_cast<std::int32_t>(v); std::memcpy(&bytes[i * size], &t, size); break; }
      case SampleType::u32: { auto t = static_cast<std::uint32_t>(v); std::memcpy(&bytes[i * size], &t, size); break; }
      case SampleType::f32: { auto t = static_cast<float>(v); std::memcpy(&bytes[i * size], &t, size); break; }
      case SampleType::f64: std::memcpy(&bytes[i * size], &v, size); break;
    }
  };
  if (p.type == SampleType::f32) {
    const float below_upper = std::nextafter(static_cast<float>(p.upper), static_cast<float>(p.lower));
    put(0, p.lower), put(2, p.upper), put(5, below_upper), put(8, std::numeric_limits<float>::quiet_NaN()),
        put(11, -std::numeric_limits<float>::infinity());
  } else if (p.type == SampleType::f64) {
    put(0, p.lower), put(2, p.upper), put(5, std::nextafter(p.upper, p.lower)),
        put(8, std::numeric_limits<double>::quiet_NaN()), put(11, -std::numeric_limits<double>::infinity()),
        put(14, std::nextafter(p.lower, p.upper)), put(17, std::nextafter(p.lower, -1e300));
  } else {
    put(0, p.lower), put(2, p.upper - 1);
    if (p.upper <= 4294967295.0) put(5, p.upper);  // first value past the range, if representable
    if (p.lower >= 1) put(8, p.lower - 1);
  }
  return bytes;
}

/// Host bytes copied to a device buffer starting `offset_elems` elements in (to test unaligned pointers).
struct DeviceSamples {
  cuda::DeviceBuffer buffer;
  const void* ptr = nullptr;
  DeviceSamples(const std::vector<unsigned char>& host, std::size_t elem_size, std::size_t offset_elems)
      : buffer(host.size() + (offset_elems + 1) * elem_size) {
    auto* base = buffer.as<unsigned char>() + offset_elems * elem_size;
    if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(base, host.data(), host.size(), cudaMemcpyHostToDevice));
    // A pageable copy may return before its DMA lands: wait before a non-blocking stream reads it.
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    ptr = base;
  }
};

/// Device counters for `p` (32- or 64-bit).
inline cuda::DeviceBuffer counter_buffer(const HistogramProblem& p) {
  return cuda::DeviceBuffer(static_cast<std::size_t>(p.bins) * (p.counter_bits / 8));
}

/// The counters as 64-bit values, whatever their width on the device.
inline std::vector<std::uint64_t> download(const HistogramProblem& p, const cuda::DeviceBuffer& counts) {
  std::vector<unsigned char> raw(counts.bytes());
  AUTOTUNE_CUDA(cudaMemcpy(raw.data(), counts.get(), raw.size(), cudaMemcpyDeviceToHost));
  return widen_counts(p, raw.data());
}

/// The reference counts as the device's counters hold them.
inline std::vector<std::uint64_t> expected_counts(const HistogramProblem& p, const std::vector<unsigned char>& host,
                                                  std::uint64_t n) {
  return counts_as_written(p, reference_histogram(p, host.data(), n));
}

/// Records `config` as the winner of `problem` on GPU 0 in the cache file at `path` (created if missing), with its
/// cubin (compiled here) or without one: what `autotune tune` leaves when `config` wins, without measuring anything.
inline void record_forced_winner(const std::string& path, const Problem& problem, const Config& config,
                                 bool with_cubin = true) {
  const DeviceInfo dev = query_device(0);
  std::vector<char> cubin;
  if (with_cubin) {
    const auto compiled = jit::compile(kernel_source(problem, config), "forced.cu", dev.arch());
    REQUIRE_MESSAGE(compiled.ok, compiled.log);
    cubin = compiled.cubin;
  }
  write_forced_winner(path, dev, problem, config, cubin, "test");
}

}  // namespace autotune::testing

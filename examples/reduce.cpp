// A tuned reduction: the sum and the maximum of 64 Mi floats on this machine's GPU.
//
//   autotune tune --kernel reduce --op sum --type f32 --n 64M      # once per GPU (the default set includes it)
//   ./example_reduce                                               # any number of times
//
// Without a tuned entry a handle falls back to a safe default and says so in resolution().message; with
// AUTOTUNE_REQUIRE=exact (or tuned) in the environment it refuses instead, and the error names the command to run.
#include <autotune/autotune.hpp>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

int main() try {
  const std::uint64_t n = 64ull << 20;
  std::vector<float> values(n);
  std::uint32_t x = 2463534242u;
  for (float& v : values) {  // in [-1, 1)
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    v = static_cast<float>(x >> 8) / 8388608.0f - 1.0f;
  }

  // Deterministic by default: the same bits on every call on this GPU. Options::require is left unset, so
  // AUTOTUNE_REQUIRE decides whether the built-in default is acceptable.
  autotune::ReduceProblem problem{.op = autotune::ReduceOp::sum, .type = autotune::ValueType::f32, .n = n};
  autotune::Reduce sum(problem);
  std::printf("%s\n", sum.resolution().message.c_str());
  problem.op = autotune::ReduceOp::max;
  autotune::Reduce max(problem);
  std::printf("%s\n", max.resolution().message.c_str());

  void* values_memory = nullptr;
  void* result_memory = nullptr;
  if (cudaMalloc(&values_memory, n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&result_memory, 2 * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "example: cudaMalloc failed\n");
    return 1;
  }
  auto* d_values = static_cast<float*>(values_memory);
  auto* d_result = static_cast<float*>(result_memory);
  cudaMemcpy(d_values, values.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  // Typed: float in, float out, both checked against the problems (a double* would be refused).
  const float gpu_sum = sum.result(d_values, n, d_result);  // one launch, then the value copied back
  const float gpu_max = max.result(std::span<const float>(d_values, n), d_result + 1);
  cudaFree(d_values);
  cudaFree(d_result);

  double cpu_sum = 0, abs_sum = 0;
  float cpu_max = -INFINITY;
  for (float v : values) cpu_sum += v, abs_sum += std::fabs(v), cpu_max = std::fmax(cpu_max, v);
  // A float sum of n terms in any order is within about log2(n) * eps * sum|x| of the exact sum.
  const double tolerance = 27 * 1.2e-7 * abs_sum;
  if (gpu_max != cpu_max || std::fabs(gpu_sum - cpu_sum) > tolerance) {
    std::fprintf(stderr, "example: WRONG: sum %.6f (CPU %.6f), max %.7f (CPU %.7f)\n", gpu_sum, cpu_sum, gpu_max, cpu_max);
    return 1;
  }
  std::printf("sum of %llu floats = %.4f (CPU in double: %.4f), max = %.7f: both match\n",
              static_cast<unsigned long long>(n), gpu_sum, cpu_sum, gpu_max);
  return 0;
} catch (const autotune::NotTunedError& e) {  // AUTOTUNE_REQUIRE=exact or tuned, and the cache has no such entry
  std::fprintf(stderr, "example: %s\n", e.what());
  return 2;
} catch (const autotune::Error& e) {
  std::fprintf(stderr, "example: %s\n", e.what());
  return 1;
}

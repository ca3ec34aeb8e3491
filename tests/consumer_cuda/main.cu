// A .cu translation unit that includes the installed headers (compiled as C++20 by nvcc), defines a kernel of its
// own, and uses the API: validates a problem, asks for a handle. Without a GPU the handle reports NoDeviceError,
// which is the expected outcome here (exit 0); any other failure exits 1.
#include <autotune/autotune.hpp>

#include <cstdint>
#include <cstdio>

// The application's own kernel: makes this a CUDA source, not C++ that happens to end in .cu.
__global__ void fill(std::uint8_t* samples, std::uint64_t n) {
  const std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (i < n) samples[i] = static_cast<std::uint8_t>(i);
}

int main() {
  autotune::HistogramProblem p;
  p.n = 1 << 20;
  p.validate();
  autotune::HistogramProblem q = p;
  if (!(p == q)) return 1;  // the defaulted operator== needs C++20 in nvcc's front end
  std::printf("consumer_cuda: %s (nvcc, C++%ld), autotune %s\n", p.key().c_str(), __cplusplus / 100 % 100,
              autotune::version().c_str());
  try {
    autotune::Histogram h(p, autotune::Histogram::Options{-1, ":memory:"});
    std::printf("consumer_cuda: %s\n", h.resolution().message.c_str());
    std::uint8_t* samples = nullptr;
    std::uint32_t* counts = nullptr;
    if (cudaMalloc(&samples, p.n) != cudaSuccess || cudaMalloc(&counts, 256 * sizeof(std::uint32_t)) != cudaSuccess)
      return 1;
    fill<<<(p.n + 255) / 256, 256>>>(samples, p.n);
    h(samples, p.n, counts, nullptr);
    std::uint32_t first = 0;
    if (cudaMemcpy(&first, counts, sizeof first, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    std::printf("consumer_cuda: bin 0 counts %u of %llu samples\n", first, static_cast<unsigned long long>(p.n));
    cudaFree(samples);
    cudaFree(counts);
    if (first != p.n / 256) return 1;
  } catch (const autotune::NoDeviceError& e) {
    std::printf("consumer_cuda: no GPU here, as expected without one: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer_cuda: unexpected failure: %s\n", e.what());
    return 1;
  }
  return 0;
}

// The shortest complete use of autotune: the tuned 256-bin histogram of an 8-bit image on this machine's GPU.
//
//   autotune tune --kernel histogram --type u8 --bins 256 --n 64M    # once per GPU
//   ./example_histogram                                              # any number of times
//
// Without a tuned entry the handle falls back to a safe default and says so in resolution().message; with
// AUTOTUNE_REQUIRE=exact (or tuned) in the environment it refuses instead, and the error names the command to run.
#include <autotune/autotune.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

int main() try {
  // A synthetic 8192 x 8192 grey-scale image: smooth gradients with noise (64 Mi pixels, the tuned size).
  const std::uint64_t width = 8192, height = 8192, n = width * height;
  std::vector<std::uint8_t> image(n);
  std::uint32_t noise = 12345;
  for (std::uint64_t y = 0; y < height; ++y)
    for (std::uint64_t x = 0; x < width; ++x) {
      noise = noise * 1664525u + 1013904223u;
      image[y * width + x] = static_cast<std::uint8_t>((x / 40 + y / 64 + (noise >> 28)) & 0xff);
    }

  // 256 bins over the whole u8 range, [0, 256): the range `autotune tune --type u8 --bins 256` tunes.
  const autotune::HistogramProblem problem{.type = autotune::SampleType::u8, .bins = 256, .n = n};
  // Looks up the cache once and reports where its configuration came from. Options::require is left unset, so
  // AUTOTUNE_REQUIRE decides whether the built-in default is acceptable.
  autotune::Histogram histogram(problem);
  std::printf("%s\n", histogram.resolution().message.c_str());

  void* image_memory = nullptr;
  void* counts_memory = nullptr;
  if (cudaMalloc(&image_memory, n) != cudaSuccess ||
      cudaMalloc(&counts_memory, 256 * sizeof(std::uint32_t)) != cudaSuccess) {
    std::fprintf(stderr, "example: cudaMalloc failed\n");
    return 1;
  }
  auto* d_image = static_cast<std::uint8_t*>(image_memory);
  auto* d_counts = static_cast<std::uint32_t*>(counts_memory);
  cudaMemcpy(d_image, image.data(), n, cudaMemcpyHostToDevice);
  // Typed: u8 samples and 32-bit counters, checked against the problem (a float* here would be refused).
  histogram(std::span<const std::uint8_t>(d_image, n), std::span(d_counts, 256));  // default stream
  std::vector<std::uint32_t> counts(256);
  const cudaError_t e = cudaMemcpy(counts.data(), d_counts, 256 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost);
  cudaFree(d_image);
  cudaFree(d_counts);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "example: %s\n", cudaGetErrorString(e));
    return 1;
  }

  std::vector<std::uint32_t> expected(256, 0);
  for (std::uint8_t v : image) ++expected[v];
  std::uint64_t total = 0;
  for (std::uint32_t c : counts) total += c;
  if (counts != expected) {
    std::fprintf(stderr, "example: WRONG histogram (total %llu of %llu)\n", static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(n));
    return 1;
  }
  std::printf("histogram of %llu pixels matches the CPU: bin 0 = %u, bin 128 = %u, bin 255 = %u\n",
              static_cast<unsigned long long>(total), counts[0], counts[128], counts[255]);
  return 0;
} catch (const autotune::NotTunedError& e) {  // AUTOTUNE_REQUIRE=exact or tuned, and the cache has no such entry
  std::fprintf(stderr, "example: %s\n", e.what());
  return 2;
} catch (const autotune::Error& e) {
  std::fprintf(stderr, "example: %s\n", e.what());
  return 1;
}

// The shortest complete use of autotune: the tuned 256-bin histogram of an 8-bit image on this machine's GPU.
//
//   autotune tune --kernel histogram --type u8 --bins 256 --n 64M    # once per GPU
//   ./example_histogram                                              # any number of times
//
// Without a tuned entry the handle falls back to a safe default and says so in resolution().message.
#include <autotune/autotune.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
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

  autotune::HistogramProblem problem;
  problem.type = autotune::SampleType::u8;
  problem.bins = 256;
  problem.lower = 0;
  problem.upper = 256;
  problem.n = n;
  autotune::Histogram histogram(problem);  // looks up the cache once; reports where its configuration came from
  std::printf("%s\n", histogram.resolution().message.c_str());

  void* d_image = nullptr;
  void* d_counts = nullptr;
  if (cudaMalloc(&d_image, n) != cudaSuccess || cudaMalloc(&d_counts, 256 * sizeof(unsigned)) != cudaSuccess) {
    std::fprintf(stderr, "example: cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(d_image, image.data(), n, cudaMemcpyHostToDevice);
  histogram(d_image, n, static_cast<unsigned*>(d_counts));  // default stream
  std::vector<unsigned> counts(256);
  const cudaError_t e = cudaMemcpy(counts.data(), d_counts, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaFree(d_image);
  cudaFree(d_counts);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "example: %s\n", cudaGetErrorString(e));
    return 1;
  }

  std::vector<unsigned> expected(256, 0);
  for (std::uint8_t v : image) ++expected[v];
  std::uint64_t total = 0;
  for (unsigned c : counts) total += c;
  if (counts != expected) {
    std::fprintf(stderr, "example: WRONG histogram (total %llu of %llu)\n", static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(n));
    return 1;
  }
  std::printf("histogram of %llu pixels matches the CPU: bin 0 = %u, bin 128 = %u, bin 255 = %u\n",
              static_cast<unsigned long long>(total), counts[0], counts[128], counts[255]);
  return 0;
} catch (const autotune::Error& e) {
  std::fprintf(stderr, "example: %s\n", e.what());
  return 1;
}

// The bar: CUB's histogram and a read-only bandwidth roof, compiled by nvcc (bench/cub_baseline.cu) and called from
// plain C++ so the benchmark driver needs no CUDA compiler of its own.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>


namespace autotune::bench {

/// Sample types, numbered as autotune::SampleType (this header stays free of C++20 for nvcc's C++17).
enum class CubSample { u8 = 0, u16 = 1, i32 = 2, u32 = 3, f32 = 4, f64 = 5 };

struct CubProblem {
  CubSample type;
  int bins;
  double lower, upper;
};

/// cub::DeviceHistogram::HistogramEven for one problem, with its temporary storage allocated once.
class CubHistogram {
 public:
  CubHistogram(const CubProblem& problem, std::uint64_t n);
  ~CubHistogram();
  CubHistogram(const CubHistogram&) = delete;
  CubHistogram& operator=(const CubHistogram&) = delete;
  /// One call: counts n samples into `counts` (problem.bins unsigned ints). Asynchronous on `stream`.
  void run(const void* samples, unsigned* counts, cudaStream_t stream) const;

 private:
  CubProblem problem_;
  std::uint64_t n_;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

/// Launches the read-only roof kernel once over `bytes` bytes at `data` (16-byte loads, nothing written but one
/// word that the data never selects). What a histogram or reduction must at least do.
void launch_read_roof(const void* data, std::size_t bytes, unsigned* sink, cudaStream_t stream);

/// Launches an empty kernel (one block of 32 threads): the floor under any one-launch call, timed like the rest.
void launch_empty(cudaStream_t stream);

}  // namespace autotune::bench

#include <cub/device/device_histogram.cuh>

#include <stdexcept>
#include <string>

#include "cub_range.hpp"

namespace autotune::bench {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Calls f with null pointers of the sample type and of its level type.
template <class F>
cudaError_t with_types(CubSample t, F&& f) {
  switch (t) {
    case CubSample::u8: return f(static_cast<const unsigned char*>(nullptr), static_cast<const int*>(nullptr));
    case CubSample::u16: return f(static_cast<const unsigned short*>(nullptr), static_cast<const int*>(nullptr));
    case CubSample::i32: return f(static_cast<const int*>(nullptr), static_cast<const int*>(nullptr));
    case CubSample::u32: return f(static_cast<const unsigned*>(nullptr), static_cast<const unsigned*>(nullptr));
    case CubSample::f32: return f(static_cast<const float*>(nullptr), static_cast<const float*>(nullptr));
    case CubSample::f64: return f(static_cast<const double*>(nullptr), static_cast<const double*>(nullptr));
  }
  return cudaErrorInvalidValue;
}

}  // namespace

CubHistogramRange::CubHistogramRange(CubSample type, int bins, std::uint64_t n) : type_(type), bins_(bins), n_(n) {
  check(with_types(type, [&](auto sample_tag, auto level_tag) {
          return cub::DeviceHistogram::HistogramRange(nullptr, temp_bytes_, sample_tag, static_cast<unsigned*>(nullptr),
                                                      bins + 1, level_tag, static_cast<std::int64_t>(n));
        }),
        "cub::DeviceHistogram::HistogramRange (size query)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (CUB temporary storage)");
}

CubHistogramRange::CubHistogramRange(CubSample type, int bins, std::uint64_t row_samples, std::uint64_t rows,
                                     std::size_t row_stride_bytes)
    : type_(type), bins_(bins), n_(row_samples), rows_(rows), row_stride_bytes_(row_stride_bytes) {
  check(with_types(type, [&](auto sample_tag, auto level_tag) {
          return cub::DeviceHistogram::HistogramRange(nullptr, temp_bytes_, sample_tag, static_cast<unsigned*>(nullptr),
                                                      bins + 1, level_tag, static_cast<std::int64_t>(row_samples),
                                                      static_cast<std::int64_t>(rows), row_stride_bytes);
        }),
        "cub::DeviceHistogram::HistogramRange 2D (size query)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (CUB temporary storage)");
}

CubHistogramRange::~CubHistogramRange() { cudaFree(temp_); }

void CubHistogramRange::run(const void* samples, const void* levels, unsigned* counts, cudaStream_t stream) const {
  std::size_t bytes = temp_bytes_;
  check(with_types(type_, [&](auto sample_tag, auto level_tag) {
          using S = std::remove_const_t<std::remove_pointer_t<decltype(sample_tag)>>;
          using L = std::remove_const_t<std::remove_pointer_t<decltype(level_tag)>>;
          if (rows_ > 1)
            return cub::DeviceHistogram::HistogramRange(temp_, bytes, static_cast<const S*>(samples), counts,
                                                        bins_ + 1, static_cast<const L*>(levels),
                                                        static_cast<std::int64_t>(n_), static_cast<std::int64_t>(rows_),
                                                        row_stride_bytes_, stream);
          return cub::DeviceHistogram::HistogramRange(temp_, bytes, static_cast<const S*>(samples), counts, bins_ + 1,
                                                      static_cast<const L*>(levels), static_cast<std::int64_t>(n_),
                                                      stream);
        }),
        "cub::DeviceHistogram::HistogramRange");
}

}  // namespace autotune::bench

#include <cub/device/device_histogram.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

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
    case CubSample::f16: return f(static_cast<const __half*>(nullptr), static_cast<const float*>(nullptr));
    case CubSample::bf16: return f(static_cast<const __nv_bfloat16*>(nullptr), static_cast<const float*>(nullptr));
    case CubSample::i8: return f(static_cast<const signed char*>(nullptr), static_cast<const int*>(nullptr));
    case CubSample::i16: return f(static_cast<const short*>(nullptr), static_cast<const int*>(nullptr));
  }
  return cudaErrorInvalidValue;
}

// MultiHistogramRange<C, A> for u8 pixels: channel a's levels and counters follow those of channels 0..a-1.
template <int C, int A>
cudaError_t multi_u8(void* temp, std::size_t& bytes, const void* samples, const void* levels, unsigned* counts,
                     const int (&bins)[4], std::uint64_t pixels, cudaStream_t stream) {
  ::cuda::std::array<unsigned*, A> hist{};
  ::cuda::std::array<int, A> num_levels{};
  ::cuda::std::array<const int*, A> level_ptrs{};
  std::size_t counter = 0, level = 0;
  for (int a = 0; a < A; ++a) {
    hist[a] = counts ? counts + counter : nullptr;
    level_ptrs[a] = levels ? static_cast<const int*>(levels) + level : nullptr;
    num_levels[a] = bins[a] + 1;
    counter += static_cast<std::size_t>(bins[a]);
    level += static_cast<std::size_t>(bins[a]) + 1;
  }
  return cub::DeviceHistogram::MultiHistogramRange<C, A>(temp, bytes, static_cast<const unsigned char*>(samples), hist,
                                                         num_levels, level_ptrs, static_cast<std::int64_t>(pixels),
                                                         stream);
}

}  // namespace

bool CubHistogramRange::supports(CubSample type, int channels, int active) {
  if (channels == 1 && active == 1) return true;
  return type == CubSample::u8 && ((channels == 4 && (active == 3 || active == 4)) || (channels == 3 && active == 3));
}

cudaError_t CubHistogramRange::call(void* temp, std::size_t& bytes, const void* samples, const void* levels,
                                    unsigned* counts, cudaStream_t stream) const {
  if (channels_ == 4 && active_ == 3) return multi_u8<4, 3>(temp, bytes, samples, levels, counts, bins_, n_, stream);
  if (channels_ == 4 && active_ == 4) return multi_u8<4, 4>(temp, bytes, samples, levels, counts, bins_, n_, stream);
  if (channels_ == 3 && active_ == 3) return multi_u8<3, 3>(temp, bytes, samples, levels, counts, bins_, n_, stream);
  return with_types(type_, [&](auto sample_tag, auto level_tag) {
    using S = std::remove_const_t<std::remove_pointer_t<decltype(sample_tag)>>;
    using L = std::remove_const_t<std::remove_pointer_t<decltype(level_tag)>>;
    const S* s = static_cast<const S*>(samples);
    const L* l = static_cast<const L*>(levels);
    if (rows_ > 1)
      return cub::DeviceHistogram::HistogramRange(temp, bytes, s, counts, bins_[0] + 1, l,
                                                  static_cast<std::int64_t>(n_), static_cast<std::int64_t>(rows_),
                                                  row_stride_bytes_, stream);
    return cub::DeviceHistogram::HistogramRange(temp, bytes, s, counts, bins_[0] + 1, l, static_cast<std::int64_t>(n_),
                                                stream);
  });
}

CubHistogramRange::CubHistogramRange(CubSample type, int bins, std::uint64_t n)
    : CubHistogramRange(type, bins, n, 1, 0) {}

CubHistogramRange::CubHistogramRange(CubSample type, int bins, std::uint64_t row_samples, std::uint64_t rows,
                                     std::size_t row_stride_bytes)
    : type_(type), n_(row_samples), rows_(rows), row_stride_bytes_(row_stride_bytes) {
  bins_[0] = bins;
  check(call(nullptr, temp_bytes_, nullptr, nullptr, nullptr, nullptr),
        "cub::DeviceHistogram::HistogramRange (size query)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (CUB temporary storage)");
}

CubHistogramRange::CubHistogramRange(CubSample type, int channels, int active, const int (&channel_bins)[4],
                                     std::uint64_t pixels)
    : type_(type), channels_(channels), active_(active), n_(pixels) {
  if (!supports(type, channels, active)) throw std::invalid_argument("no CUB MultiHistogramRange for these channels");
  for (int c = 0; c < 4; ++c) bins_[c] = channel_bins[c];
  check(call(nullptr, temp_bytes_, nullptr, nullptr, nullptr, nullptr),
        "cub::DeviceHistogram::MultiHistogramRange (size query)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (CUB temporary storage)");
}

CubHistogramRange::~CubHistogramRange() { cudaFree(temp_); }

void CubHistogramRange::run(const void* samples, const void* levels, unsigned* counts, cudaStream_t stream) const {
  std::size_t bytes = temp_bytes_;
  check(call(temp_, bytes, samples, levels, counts, stream), "cub::DeviceHistogram::HistogramRange");
}

}  // namespace autotune::bench

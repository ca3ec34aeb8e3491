// CUB's ScaleTransform on the host (tests/cub/cub_transform.hpp). Only the transform is instantiated: no kernel of
// CUB's is, so the test runs without a GPU.
#include <cub/device/dispatch/dispatch_histogram.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cub_transform.hpp"

namespace autotune::cub_oracle {

namespace {

template <class Sample, class Level>
int bin(int bins, Level lower, Level upper, Sample sample) {
  // The dispatch class HistogramEven instantiates for one channel of Sample pointers and 32-bit counters.
  using Dispatch = cub::DispatchHistogram<1, 1, const Sample*, unsigned, Level, long long>;
  typename Dispatch::ScaleTransform transform;
  if (transform.Init(bins + 1, upper, lower) != cudaSuccess) return kRefused;  // num_levels = bins + 1
  int b = -1;
  transform.template BinSelect<cub::LOAD_DEFAULT>(sample, b, true);
  return b;
}

}  // namespace

int bin_u8(int bins, int lower, int upper, unsigned char s) { return bin(bins, lower, upper, s); }
int bin_u16(int bins, int lower, int upper, unsigned short s) { return bin(bins, lower, upper, s); }
int bin_i32(int bins, long long lower, long long upper, int s) { return bin(bins, lower, upper, s); }
int bin_u32(int bins, long long lower, long long upper, unsigned s) { return bin(bins, lower, upper, s); }
int bin_f32(int bins, float lower, float upper, float s) { return bin(bins, lower, upper, s); }
int bin_f64(int bins, double lower, double upper, double s) { return bin(bins, lower, upper, s); }
int bin_f16(int bins, float lower, float upper, unsigned short bits) {
  __half_raw raw;
  raw.x = bits;
  return bin(bins, lower, upper, __half(raw));
}
int bin_bf16(int bins, float lower, float upper, unsigned short bits) {
  __nv_bfloat16_raw raw;
  raw.x = bits;
  return bin(bins, lower, upper, __nv_bfloat16(raw));
}
int bin_i8(int bins, int lower, int upper, signed char s) { return bin(bins, lower, upper, s); }
int bin_i16(int bins, int lower, int upper, short s) { return bin(bins, lower, upper, s); }

}  // namespace autotune::cub_oracle

// CUB's own even-bin transform (cub::DispatchHistogram<...>::ScaleTransform, the code every HistogramEven call runs
// to turn a sample into a bin), called on the host. Compiled by nvcc (cub_transform.cu) and declared here in plain
// C++17, so that a C++20 test can hold it against autotune's CPU reference.
#pragma once

namespace autotune::cub_oracle {

/// What ScaleTransform::Init refused (CUB returns cudaErrorInvalidValue when the integer arithmetic could overflow).
inline constexpr int kRefused = -2;

/// The bin CUB computes for one sample of a histogram of `bins` bins over [lower, upper) with the level types of
/// bench/cub_baseline.cu: -1 when the sample is outside the range (or NaN), else (int)((s - lower) * scale) for
/// floats and (s - lower) * bins / (upper - lower) for integers. Not clamped: a float bin can come out equal to
/// `bins`, which CUB's shared-memory path then never counts.
int bin_u8(int bins, int lower, int upper, unsigned char sample);
int bin_u16(int bins, int lower, int upper, unsigned short sample);
int bin_i32(int bins, long long lower, long long upper, int sample);
int bin_u32(int bins, long long lower, long long upper, unsigned sample);
int bin_f32(int bins, float lower, float upper, float sample);
int bin_f64(int bins, double lower, double upper, double sample);
/// 16-bit float samples given as their bits (__half, __nv_bfloat16) with float levels, and signed 8/16-bit samples
/// with int levels (the level types of bench/cub_baseline.cu).
int bin_f16(int bins, float lower, float upper, unsigned short sample_bits);
int bin_bf16(int bins, float lower, float upper, unsigned short sample_bits);
int bin_i8(int bins, int lower, int upper, signed char sample);
int bin_i16(int bins, int lower, int upper, short sample);

}  // namespace autotune::cub_oracle

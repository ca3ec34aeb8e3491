// The GPUs the CPU tests pretend to have: device records as query_device() fills them on an H100 and an A100, for
// tests and test programs that record runs without a GPU, and three GPUs with the limits CUDA reports for them, for
// the lookups' device checks. Free of doctest, so standalone programs (cache_writer, cache_mutation_audit, the fuzz
// targets) share it with the suites.
#pragma once

#include <string>
#include <vector>

#include "autotune/device.hpp"

namespace autotune::test {

/// An H100 80GB HBM3 (sm_90, 132 SMs, 50 MiB L2, driver and NVRTC 12.4) with the given UUID.
inline DeviceInfo h100_device(std::string uuid) {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.memory_bytes = 85'029'158'912ull;
  d.l2_bytes = 52'428'800;
  d.shared_per_block_optin = 232'448;
  d.max_threads_per_block = 1024;
  d.clock_khz = 1'980'000;
  d.memory_clock_khz = 2'619'000;
  d.driver_version = 12040;
  d.nvrtc_version = 12040;
  d.uuid = std::move(uuid);
  return d;
}

/// An A100-SXM4-40GB (sm_80, 108 SMs); the other fields as h100_device's.
inline DeviceInfo a100_device(std::string uuid) {
  DeviceInfo d = h100_device(std::move(uuid));
  d.name = "NVIDIA A100-SXM4-40GB";
  d.cc_major = 8;
  d.sm_count = 108;
  d.memory_bytes = 42'505'273'344ull;
  return d;
}

/// Three GPUs with the limits CUDA reports for them, for the lookups' device checks (tests/size_table_check.hpp):
/// the H200 the shipped policies were measured on, as its devices row reads (bench/results/2026-12-05c-data/
/// h200-device-only.db); an A100-SXM4-40GB (sm_80: 163 KiB of shared memory per block, no clusters, no 128-bit
/// atomics); a T4 (sm_75: 64 KiB, no warp-reduce instructions).
inline std::vector<DeviceInfo> lookup_devices() {
  DeviceInfo h200 = h100_device("GPU-h200");
  h200.name = "NVIDIA H200";
  h200.memory_bytes = 143155ull << 20;
  h200.l2_bytes = 60ull << 20;
  DeviceInfo a100 = h200;
  a100.name = "NVIDIA A100-SXM4-40GB";
  a100.uuid = "GPU-a100";
  a100.cc_major = 8, a100.sm_count = 108, a100.memory_bytes = 40960ull << 20, a100.l2_bytes = 40ull << 20;
  a100.shared_per_block_optin = 166912;
  DeviceInfo t4 = h200;
  t4.name = "Tesla T4";
  t4.uuid = "GPU-t4";
  t4.cc_major = 7, t4.cc_minor = 5, t4.sm_count = 40, t4.memory_bytes = 15360ull << 20, t4.l2_bytes = 4ull << 20;
  t4.shared_per_block_optin = 65536;
  return {h200, a100, t4};
}

}  // namespace autotune::test

// The GPUs the CPU tests pretend to have: device records as query_device() fills them on an H100 and an A100, for
// tests and test programs that record runs without a GPU. Free of doctest, so standalone programs (cache_writer,
// cache_mutation_audit) share it with the suites.
#pragma once

#include <string>

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

}  // namespace autotune::test

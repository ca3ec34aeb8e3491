// The checks every family's launcher makes against the device before it loads or launches a variant: threads per
// block, shared memory per block, at least one resident block. One wording for all families, so that a tuner log or
// an error reads the same whichever family it comes from.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "autotune/device.hpp"
#include "autotune/error.hpp"

namespace autotune::launch_limits {

/// Why a block of `block` threads cannot run on `device`, or empty.
inline std::string block_violation(int block, const DeviceInfo& device) {
  if (block > device.max_threads_per_block)
    return fmt::format("block of {} threads exceeds the device's {} threads per block", block,
                       device.max_threads_per_block);
  return {};
}

/// Why a block of `block` threads using `shared_bytes` of shared memory (dynamic and static) cannot run on `device`
/// (its opt-in limit per block), or empty.
inline std::string block_violation(int block, std::size_t shared_bytes, const DeviceInfo& device) {
  if (std::string why = block_violation(block, device); !why.empty()) return why;
  if (shared_bytes > static_cast<std::size_t>(device.shared_per_block_optin))
    return fmt::format("{} bytes of shared memory exceed the device's {} per block", shared_bytes,
                       device.shared_per_block_optin);
  return {};
}

/// Throws UsageError unless `config` runs `problem` on `device`, as the family's one validity function `violation`
/// (core/space_decl.hpp) says: without a device first ("invalid for" the problem), then on `device`.
template <class P, class C>
void require_runnable(const P& problem, const C& config, const DeviceInfo& device,
                      std::string (*violation)(const P&, const C&, const DeviceInfo*)) {
  if (const std::string why = violation(problem, config, nullptr); !why.empty())
    throw UsageError(fmt::format("configuration {} is invalid for {}: {}", config.key(), problem.key(), why));
  if (const std::string why = violation(problem, config, &device); !why.empty())
    throw UsageError(fmt::format("configuration {} cannot run on {}: {}", config.key(), device.name, why));
}

/// Throws UsageError when no block of the configuration keyed `config_key` fits on one of the device's
/// multiprocessors (`blocks_per_sm` from the occupancy API).
inline void require_resident(int blocks_per_sm, std::string_view config_key, const DeviceInfo& device) {
  if (blocks_per_sm < 1)
    throw UsageError(fmt::format("configuration {} cannot run on {}: no block fits on a multiprocessor", config_key,
                                 device.name));
}

/// The blocks resident on the whole device at `blocks_per_sm` per multiprocessor (the occupancy API's answer for
/// the configuration keyed `config_key`): require_resident, then that many times the multiprocessors.
inline unsigned resident_blocks(int blocks_per_sm, std::string_view config_key, const DeviceInfo& device) {
  require_resident(blocks_per_sm, config_key, device);
  return static_cast<unsigned>(blocks_per_sm) * static_cast<unsigned>(device.sm_count);
}

}  // namespace autotune::launch_limits

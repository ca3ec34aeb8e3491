// The measured default policy: candidates of the lookup (include/autotune/resolution.hpp, ConfigSource::policy)
// ranked with the cache's evidence by predicted slowdown (runtime/rank.hpp).
//
// Each family may ship a policy (KernelFamily::policy_data: kernel_templates/<family>/policy.json, written by
// scripts/fit_policy.py from `autotune tune --preset standard` on one GPU, with its provenance): entries of a tuned
// problem (shape and size) and the configuration fitted for it. Every shape of it whose configurations are valid for
// the problem and fit the device is a candidate (policy_shapes), at its KernelFamily::policy_distance; each of a
// shape's sizes can become a range of the handle's size table, so the policy is size-adaptive too.
//
// Pure functions of the embedded data (or of a policy file that AUTOTUNE_POLICY_DIR names: family_policy), the problem
// and the device limits: no GPU, no cache file. Thread-safe (each policy is parsed once).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// One entry of a family's policy.
struct PolicyEntry {
  Problem problem;  ///< the tuned problem (shape and n) the configuration was fitted on
  Config config;
  double time_ms = 0.0;         ///< its measured time on the policy's GPU (uniform samples)
  double worst_slowdown = 1.0;  ///< its worst slowdown across the distributions it was fitted on
  std::string gpu;              ///< the GPU it was measured on where not the policy's ("" = the policy's); a problem
                                ///< holds at most one entry per GPU (parse_policy)
};

/// A family's parsed policy: its entries and where they come from.
struct Policy {
  std::vector<PolicyEntry> entries;
  std::string provenance;  ///< "NVIDIA H200, 2026-12-01, autotune tune --preset standard (bench/results/...)"
  std::string gpu;         ///< the GPU it was measured on, as DeviceInfo::name ("NVIDIA H200"); "" when not said
};

/// The policy of the family named `family` (empty when it has none). Error when the embedded data is malformed
/// (a build defect: tests/cpu/test_policy.cpp parses every built-in family's).
/// When the environment sets AUTOTUNE_POLICY_DIR and DIR/<family>.json exists (scripts/fit_policy.py's output for
/// another GPU, or an older policy for an A/B: `shape_bench --compare-policy DIR`), that file replaces the embedded
/// policy; its provenance ends "read from <file>". Error naming the file when it cannot be read or is malformed. Read
/// at every call, each file parsed once per process.
const Policy& family_policy(std::string_view family);
/// DIR/<family>.json when AUTOTUNE_POLICY_DIR names a DIR holding it, else "" (the embedded policy serves).
std::string policy_override_path(std::string_view family);
/// Parses policy JSON for `family` (what family_policy does with the embedded text). Error naming what is wrong.
Policy parse_policy(std::string_view family, std::string_view json);

/// What the policy serves a problem with: the sizes of the closest shape, each with its configuration.
struct PolicyChoice {
  Problem shape;                    ///< the chosen entries' problem at the wanted problem's n (for messages)
  std::vector<PolicyEntry> sizes;   ///< the chosen shape's entries, ascending n (not empty), each configuration made
                                    ///< valid for the wanted problem (KernelFamily::adapt_config)
  std::vector<std::string> changes; ///< parallel to sizes: what adapt_config changed ("" = the fitted configuration)
  Config config;                    ///< the configuration for the wanted problem's n (nearest size)
  std::string why;                  ///< "policy (NVIDIA H200, ...): fitted for histogram/f32/bins=2048/... at n=..."
  double distance = 0.0;            ///< KernelFamily::policy_distance of the shape from the wanted problem
  /// The entries were fitted on the wanted problem's own distribution (a key of another distribution than the
  /// default one, "dist=runs" say), not robust across distributions: such entries serve problems of their
  /// distribution only, before the robust entries of the same shape.
  bool of_distribution = false;
};
/// Every shape of `policy` that can serve `problem` (entries of a compatible shape whose configurations are valid for
/// it and, when `device` is given, fit the device), closest first (policy_distance, then entries of the problem's own
/// distribution before robust ones, then the nearest size, then the shape key). Of a problem measured on several GPU
/// models (an entry each), the one of the GPU named `gpu` (DeviceInfo::name; the device's when not given) serves,
/// else the policy's own GPU's: an H100's entry of a shape the H200's preset fitted serves the H100 alone.
std::vector<PolicyChoice> policy_shapes(const Policy& policy, const Problem& problem, const DeviceInfo* device);
std::vector<PolicyChoice> policy_shapes(const Policy& policy, const Problem& problem, const DeviceInfo* device,
                                        std::string_view gpu);
/// The policy's closest shape for `problem` (policy_shapes' first; nullopt when there is none).
std::optional<PolicyChoice> policy_choice(const Problem& problem, const DeviceInfo* device);
/// The same from an explicit policy (tests).
std::optional<PolicyChoice> policy_choice(const Policy& policy, const Problem& problem, const DeviceInfo* device);

}  // namespace autotune

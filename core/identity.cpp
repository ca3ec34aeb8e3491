// Code identity (include/autotune/identity.hpp): the hash of a family's code and this build's NVRTC version.
#include "autotune/identity.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "core/family.hpp"

// XXH3 from xxhash.h alone (XXH_INLINE_ALL: no library to link), so every build, portable or not, computes the
// same hash: a template hash is stored in cache files and compared by every reader.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace autotune {

std::string template_hash(std::string_view source) {
  return fmt::format("{:016x}", static_cast<std::uint64_t>(XXH3_64bits(source.data(), source.size())));
}

std::string_view template_hash_algorithm() { return "xxh3_64"; }

CodeIdentity current_identity(std::string_view family, int driver_version) {
  CodeIdentity id;
  id.family = std::string(family);
  id.template_hash = template_hash(family_named(family).code_text());
  id.nvrtc_version = nvrtc_version();
  id.driver_version = driver_version;
  return id;
}

}  // namespace autotune

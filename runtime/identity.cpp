// Code identity (include/autotune/identity.hpp): the template hash and this build's NVRTC version.
#include "autotune/identity.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "autotune/device.hpp"
#include "autotune/error.hpp"

// XXH3 from xxhash.h alone (XXH_INLINE_ALL: no library to link), so every build, portable or not, computes the
// same hash: a template hash is stored in cache files and compared by every reader.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace autotune::embedded {
extern const std::string_view histogram_template;
extern const std::string_view reduce_template;
}

namespace autotune {

std::string template_hash(std::string_view source) {
  return fmt::format("{:016x}", static_cast<std::uint64_t>(XXH3_64bits(source.data(), source.size())));
}

std::string_view template_hash_algorithm() { return "xxh3_64"; }

std::string_view family_template(std::string_view family) {
  if (family == "histogram") return embedded::histogram_template;
  if (family == "reduce") return embedded::reduce_template;
  throw UsageError(fmt::format("unknown kernel family '{}'", family));
}

CodeIdentity current_identity(int driver_version) { return current_identity("histogram", driver_version); }

CodeIdentity current_identity(std::string_view family, int driver_version) {
  CodeIdentity id;
  id.family = std::string(family);
  id.template_hash = template_hash(family_template(family));
  id.nvrtc_version = nvrtc_version();
  id.driver_version = driver_version;
  return id;
}

}  // namespace autotune

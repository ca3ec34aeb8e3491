// Code identity (include/autotune/identity.hpp): the template hash and this build's NVRTC version.
#include "autotune/identity.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "autotune/device.hpp"
#include "autotune/error.hpp"

#if AUTOTUNE_HAVE_XXHASH
#include <xxhash.h>
#endif

namespace autotune::embedded {
extern const std::string_view histogram_template;
extern const std::string_view reduce_template;
}

namespace autotune {

namespace {

// 64-bit FNV-1a (http://www.isthe.com/chongo/tech/comp/fnv/): the fallback when CMake found no libxxhash (or, for
// AUTOTUNE_PORTABLE, no static libxxhash.a to put into the single binary). It is a fine identity hash for a
// few kilobytes of source, only slower, which does not matter here. Its values differ from XXH3's, so runs recorded
// by a build with the other algorithm look stale: that errs on the safe side (re-tune), never serves a wrong cubin.
[[maybe_unused]] std::uint64_t fnv1a_64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

std::string template_hash(std::string_view source) {
#if AUTOTUNE_HAVE_XXHASH
  const std::uint64_t h = XXH3_64bits(source.data(), source.size());
#else
  const std::uint64_t h = fnv1a_64(source);
#endif
  return fmt::format("{:016x}", h);
}

std::string_view template_hash_algorithm() {
#if AUTOTUNE_HAVE_XXHASH
  return "xxh3_64";
#else
  return "fnv1a_64";
#endif
}

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

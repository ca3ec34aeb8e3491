#include "core/paths.hpp"

#include <cstdlib>

#include "autotune/error.hpp"

namespace autotune {

std::string default_cache_file() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (auto p = env("AUTOTUNE_CACHE"); !p.empty()) return p;
  if (auto p = env("XDG_CACHE_HOME"); !p.empty()) return p + "/autotune/autotune.db";
  if (auto p = env("HOME"); !p.empty()) return p + "/.cache/autotune/autotune.db";
  throw CacheError("no cache file location: set AUTOTUNE_CACHE (or XDG_CACHE_HOME or HOME)");
}

}  // namespace autotune

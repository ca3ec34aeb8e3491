// libFuzzer target: `autotune import` of an untrusted document into an empty cache in memory. A document is either
// imported or refused with autotune::Error (CacheError naming what is wrong); anything else (a crash, a sanitizer
// report, another exception, a hang) is a bug. Seeds: corpus/import/ (exports of the test caches).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    autotune::Cache cache(":memory:");
    cache.import_json(in, "fuzz input");
    // What was accepted must export again (the export reads every table the import wrote).
    std::ostringstream out;
    cache.export_json(out);
  } catch (const autotune::Error&) {
  }
  return 0;
}

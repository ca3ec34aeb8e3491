// libFuzzer target: Problem::parse of untrusted problem keys (they come from caches and exports). It answers a valid
// problem or nothing; a parsed key is canonical: it prints back to the same text and parses again to the same
// problem. Anything else (an exception, a crash, a sanitizer report) is a bug. Seeds: corpus/problem_key/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "autotune/problem.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view key(reinterpret_cast<const char*>(data), size);
  const auto p = autotune::Problem::parse(key);
  if (!p) return 0;
  if (p->key() != key) std::abort();
  const auto again = autotune::Problem::parse(p->key());
  if (!again || again->key() != p->key()) std::abort();
  (void)p->shape_key();
  (void)p->bytes();
  return 0;
}

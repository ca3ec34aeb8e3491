// libFuzzer target: Problem::parse of untrusted problem keys (they come from caches and exports). It answers a valid
// problem or nothing; a parsed key is canonical: it prints back to the same text and parses again to the same
// problem. Anything else (an exception, a crash, a sanitizer report) is a bug. Each problem a key parses to is then
// looked up as a handle with no cache would on an H200, an A100 and a T4 (untuned_sizes: the shipped policy and the
// built-in default, ranked, adapted to the problem and the device's limits): autotune::test::size_table_fault must
// find nothing wrong with the size table, whose every range must run on that device. Seeds: corpus/problem_key/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"
#include "tests/size_table_check.hpp"
#include "tests/test_devices.hpp"

namespace {

// The lookup targets: each device of tests/test_devices.hpp's lookup_devices(), its limits known.
const std::vector<autotune::LookupTarget>& targets() {
  static const std::vector<autotune::LookupTarget> out = [] {
    std::vector<autotune::LookupTarget> t;
    for (const autotune::DeviceInfo& d : autotune::test::lookup_devices()) {
      t.push_back(autotune::LookupTarget::from_model_key(d.model_key()));
      t.back().device = d;
    }
    return t;
  }();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view key(reinterpret_cast<const char*>(data), size);
  const auto p = autotune::Problem::parse(key);
  if (!p) return 0;
  if (p->key() != key) std::abort();
  const auto again = autotune::Problem::parse(p->key());
  if (!again || again->key() != p->key()) std::abort();
  (void)p->shape_key();
  (void)p->bytes();
  for (const autotune::LookupTarget& target : targets()) {
    autotune::SizeLookup table;
    try {
      table = autotune::untuned_sizes(target, *p);
    } catch (const autotune::Error&) {
      continue;
    }
    if (const std::string why = autotune::test::size_table_fault(table, *p, &*target.device); !why.empty()) {
      std::fprintf(stderr, "fuzz_problem_key: the lookup of %s on %s: %s\n", p->key().c_str(), target.model_key.c_str(),
                   why.c_str());
      std::abort();
    }
  }
  return 0;
}

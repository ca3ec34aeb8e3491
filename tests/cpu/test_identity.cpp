// Code identity (core/identity.cpp): the template hash stored with every run, and this build's identity.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "autotune/device.hpp"
#include "autotune/identity.hpp"

using namespace autotune;

TEST_SUITE("identity") {
  TEST_CASE("template_hash is XXH3-64 in every build: the published test vectors") {
    // Vectors from xxHash's sanity tests for XXH3-64 (seed 0). Every build configuration (portable or not) must give
    // these values: hashes are stored in cache files that travel between machines.
    CHECK(template_hash_algorithm() == "xxh3_64");
    CHECK(template_hash("") == "2d06800538d394c2");
    CHECK(template_hash("a") == "e6c632b61e964e1f");
    CHECK(template_hash("abc") == "78af5f94892f3950");
  }

  TEST_CASE("template_hash is 16 lowercase hex digits and changes with any byte of the source") {
    const std::string source = "__global__ void k(int* x) { x[threadIdx.x] = 1; }\n";
    const std::string h = template_hash(source);
    CHECK(h.size() == 16);
    CHECK(h.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(template_hash(source) == h);
    std::string changed = source;
    changed[changed.size() - 3] = '2';
    CHECK(template_hash(changed) != h);
    CHECK(template_hash(source + " ") != h);
    CHECK(template_hash(std::string("a\0b", 3)) != template_hash(std::string("a\0c", 3)));  // binary-safe
  }

  TEST_CASE("current_identity hashes the family's template and preamble generator as in the source tree") {
    auto read = [](const char* name) {  // a path under the source tree's kernel_templates/, or "core/..."
      const std::filesystem::path root(AUTOTUNE_SOURCE_DIR);
      const std::string_view path(name);
      std::ifstream in(path.starts_with("core/") ? root / name : root / "kernel_templates" / name, std::ios::binary);
      REQUIRE(in);
      return std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    };
    const CodeIdentity id = current_identity("histogram", 12345);
    // The field table (config.cpp, core/config_fields.hpp) writes the configuration's preamble constants, and
    // histogram_samples.hpp the preamble's lines both histogram families share.
    CHECK(id.template_hash == template_hash(read("histogram/histogram.cu") + read("histogram/region_map.cuh") +
                                            read("histogram/source.cpp") + read("histogram/config.cpp") +
                                            read("core/config_fields.hpp") + read("histogram/enums.hpp") +
                                            read("histogram/workspace_layout.hpp") + read("histogram/value_bins.cpp") +
                                            read("preamble.hpp") + read("histogram_samples.hpp") + read("common.cuh")));
    CHECK(id.family == "histogram");
    CHECK(id.driver_version == 12345);
    CHECK(id.nvrtc_version == nvrtc_version());
    CHECK(id.nvrtc_version >= 12000);  // the CPU suite links NVRTC: its version is known without a GPU
    CHECK(current_identity("histogram", 0).driver_version == 0);
  }
}

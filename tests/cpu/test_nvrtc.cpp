// NVRTC needs no GPU: the variants of each space are compiled here for the architectures we ship for, a
// pairwise-covering subset of each case's space or of its problems' joint space, for sm_80 every configuration value
// (every variant in the nvrtc_full.* tests), and each cubin must hold both entry points the launcher loads
// (HistogramKernel: kHistogramKernelName, kHistogram2dKernelName).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <thread>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/problem.hpp"
#include "autotune/error.hpp"
#include "core/jit.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/preamble.hpp"
#include "embedded.hpp"

using namespace autotune;


namespace {

using test::pairwise_subset;
using test::value_pairs;

// The entry points the launcher loads: every cubin must hold all five.
const std::vector<std::string> kHistogramEntryPoints{kHistogramKernelName, kHistogram2dKernelName,
                                                     kHistogramSpanKernelName, kHistogramMergeKernelName,
                                                     kHistogramZeroKernelName};

// Compiles test::coverage() of `space` for `problem` on all cores (every configuration with AUTOTUNE_NVRTC_FULL=1,
// else a pairwise-covering subset); returns the failures as text, a cubin without the 1D or the 2D entry point
// among them. The GPU suite compiles and runs every variant.
std::string compile_configs(const HistogramProblem& problem, const std::vector<HistogramConfig>& space,
                            const std::string& arch) {
  return test::compile_all(problem, space, arch, kHistogramEntryPoints);
}

// The configurations the tuner may measure for `problem`, at any n.
std::string compile_space(const HistogramProblem& problem, const std::string& arch) {
  return compile_configs(problem, space_decl::any_n(problem, histogram_space), arch);
}

HistogramProblem u8_256() { return HistogramProblem{}; }
HistogramProblem f32_1024() {
  HistogramProblem p;
  p.type = SampleType::f32, p.bins = 1024, p.lower = -1, p.upper = 1;
  return p;
}
// u8 pixels of `channels` samples, the first 3 counted.
HistogramProblem u8_pixels(int channels) {
  HistogramProblem p;
  p.channels = channels, p.active = 3;
  return p;
}
HistogramProblem i32_100() {
  HistogramProblem p;
  p.type = SampleType::i32, p.bins = 100, p.lower = -50, p.upper = 50;
  return p;
}

}  // namespace

TEST_SUITE("nvrtc") {
  // Each sample type, the smallest-type extreme (u8, 16 per load) and the bin-count extremes (16-bit counters,
  // global-only) are compiled for sm_90, u8 for sm_80 too. What a case compiles for sm_90 is test::coverage() of its
  // space, or one covering of its problems' joint space (test::compile_all_joint): all of it in the nvrtc_full.* tests
  // (-DAUTOTUNE_TEST_NVRTC_FULL=ON), else a subset in which every pair of parameter values occurs, since a compile
  // failure comes from a construct meeting one or two parameters. For sm_80 every configuration value at least once
  // (test::value_coverage): what differs between architectures is whether one construct compiles there.
  TEST_CASE("a pairwise coverage keeps every pair of parameter values of the u8/256 space in under a third of it") {
    const auto space = space_decl::any_n(u8_256(), histogram_space);
    const auto subset = pairwise_subset(space);
    MESSAGE(subset.size() << " of " << space.size() << " u8/256 variants");
    CHECK(value_pairs(subset) == value_pairs(space));
    CHECK(subset.size() * 3 < space.size());
    CHECK(test::coverage(space).size() == (test::nvrtc_full() ? space.size() : subset.size()));
  }
  TEST_CASE("the u8/256 variants compile for sm_90 (a pairwise-covering subset) and sm_80 (every configuration value "
            "at least once), each cubin with the 1D and the 2D entry point; every variant under nvrtc_full") {
    CHECK(compile_space(u8_256(), "sm_90") == "");
    // sm_80 has no thread-block clusters: the tuner prunes those variants there (histogram_violation).
    std::vector<HistogramConfig> space;
    for (const auto& c : space_decl::any_n(u8_256(), histogram_space))
      if (c.cluster == 1) space.push_back(c);
    MESSAGE(test::value_coverage(space).size(), " of ", space.size(), " u8/256 variants for sm_80");
    CHECK(test::value_set(test::value_coverage(space)) == test::value_set(space));
    CHECK(test::compile_each_value(u8_256(), space, "sm_80", kHistogramEntryPoints) == "");
  }
  TEST_CASE("what the tuner compiles for one row (tuning_source, kernel_source_1d) holds the 1D entry point and not "
            "the 2D one; a problem of rows, and what the cache stores (kernel_source), hold both") {
    HistogramProblem rows = u8_256();
    rows.row_pixels = 1000, rows.row_stride_bytes = 1024;
    HistogramProblem rgba;
    rgba.channels = 4, rgba.active = 3;
    HistogramConfig c;
    c.replicas = 32, c.block = 512, c.loads = 4, c.merge = Merge::self_zero;
    int checked = 0;
    for (const HistogramProblem& p : {u8_256(), rgba, f32_1024(), rows}) {
      CAPTURE(p.key());
      const bool one_row = p.row_pixels == 0;
      const std::string tuned = tuning_source(Problem(p), Config(c)), shipped = kernel_source(p, c);
      CHECK((tuned == kernel_source_1d(p, c)) == one_row);
      CHECK((tuned == shipped) == !one_row);
      const jit::CompileResult t = jit::compile(tuned, "tuned.cu", "sm_90"), s = jit::compile(shipped, "shipped.cu", "sm_90");
      REQUIRE(t.ok);
      REQUIRE(s.ok);
      CHECK(test::holds_kernel(t.cubin, kHistogramKernelName));
      CHECK(test::holds_kernel(t.cubin, kHistogram2dKernelName) == !one_row);
      CHECK(test::holds_kernel(t.cubin, kHistogramSpanKernelName) == !one_row);
      CHECK(test::holds_kernel(s.cubin, kHistogramKernelName));
      CHECK(test::holds_kernel(s.cubin, kHistogram2dKernelName));
      CHECK(test::holds_kernel(s.cubin, kHistogramSpanKernelName));
      if (one_row) CHECK(t.cubin.size() < s.cubin.size());
      // The tuner times the machine code the cache ships: the 1D entry's code is the same bytes with or without the
      // 2D entry beside it.
      const std::vector<char> timed = test::kernel_code(t.cubin, kHistogramKernelName);
      CHECK(timed.size() > 64);
      CHECK(timed == test::kernel_code(s.cubin, kHistogramKernelName));
      CHECK(test::registers_of(t.cubin, kHistogramKernelName) == test::registers_of(s.cubin, kHistogramKernelName));
      ++checked;
    }
    CHECK(checked == 4);
  }
  TEST_CASE("pixels: the u8 RGBA (3 of 4) and RGB (3 of 3) preambles count 3 channels of 256 bins, of 4 or 3 "
            "samples a pixel (their variants compile in the joint covering below)") {
    for (const int channels : {4, 3}) {
      CAPTURE(channels);
      const std::string src = kernel_source(u8_pixels(channels), HistogramConfig{});
      CHECK(src.find("constexpr int kBins = 768;") != std::string::npos);  // 3 channels x 256 counters
      CHECK(src.find(fmt::format("constexpr int kChannels = {};", channels)) != std::string::npos);
    }
  }
  TEST_CASE("levels per channel: RGBA, RGB and f32 pixels compile for sm_90 with each channel's constants") {
    // Three configurations each (the GPU suite gpu_histimage runs their spaces): 16-byte loads of whole pixels (the
    // channel known at compile time), one sample per load (the channel selected at run time), the default.
    HistogramConfig pixels;
    pixels.privatization = Privatization::shared, pixels.replicas = 32, pixels.block = 512, pixels.vec_bytes = 16;
    HistogramConfig scalar = pixels;
    scalar.vec_bytes = 0, scalar.aggregation = Aggregation::warp;
    for (const HistogramProblem& p :
         {HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}, {17, 10, 200}}),
          HistogramProblem::multi_channel(SampleType::u8, 3, {{32, 0, 256}, {256, 0, 256}, {5, 100, 105}}),
          HistogramProblem::multi_channel(SampleType::f32, 4, {{100, -1, 1}, {37, 0.02, 0.8}})}) {
      CAPTURE(p.shape_key());
      CHECK(compile_configs(p, {pixels, scalar, HistogramConfig::fallback(p)}, "sm_90") == "");
      const std::string src = kernel_source(p, pixels);
      CHECK(src.find(fmt::format("constexpr int kBins = {};", p.counters())) != std::string::npos);
      CHECK(src.find("constexpr bool kUniformChannels = false;") != std::string::npos);
      CHECK(src.find(fmt::format("constexpr int kChBins1 = {};", p.channel(1).bins)) != std::string::npos);
      CHECK(src.find(fmt::format("constexpr int kChOffset1 = {};", p.channel(0).bins)) != std::string::npos);
    }
  }
  TEST_CASE("the u8 RGBA (3 of 4) and RGB (3 of 3) pixel, f32/1024-bin, i32 (negative range), u16/65536-bin (16-bit "
            "shared counters, 64-bit output), f64 and u32/1M-bin (global atomics only) variants compile for sm_90 with "
            "both entry points: one pairwise covering of the seven problems' joint space, every variant under "
            "nvrtc_full") {
    HistogramProblem u16, f64, u32;
    u16.type = SampleType::u16, u16.bins = 65536, u16.lower = 0, u16.upper = 65536, u16.counter_bits = 64;
    f64.type = SampleType::f64, f64.bins = 1000, f64.lower = -1000, f64.upper = 1000;
    u32.type = SampleType::u32, u32.bins = 1 << 20, u32.lower = 0, u32.upper = 1 << 20;
    const std::vector<HistogramProblem> problems{u8_pixels(4), u8_pixels(3), f32_1024(), i32_100(), u16, f64, u32};
    std::vector<std::vector<HistogramConfig>> spaces;
    for (const auto& p : problems) spaces.push_back(space_decl::any_n(p, histogram_space));
    CHECK(test::compile_all_joint(problems, spaces, "sm_90", kHistogramEntryPoints) == "");
    const std::string src = kernel_source(f64, HistogramConfig{});
    CHECK(src.find("typedef double sample_t;") != std::string::npos);
    CHECK(src.find("constexpr double kScaleD = 0x1p-1;") != std::string::npos);  // 1000 bins / 2000
  }

  TEST_CASE("a variant's source holds region_map.cuh in place of the template's #include, behind #line directives "
            "that keep each file's own line numbers; a fragment the template does not include is refused") {
    const std::string tmpl(embedded::histogram_template), frag(embedded::histogram_region_map_cuh);
    const std::string directive = "#include \"region_map.cuh\"\n";
    const std::size_t at = tmpl.find(directive);
    REQUIRE(at != std::string::npos);
    const long next_line = std::count(tmpl.begin(), tmpl.begin() + static_cast<long>(at), '\n') + 2;
    const std::string src = kernel_source(u8_256(), HistogramConfig{});
    CHECK(src.find(directive) == std::string::npos);
    CHECK(src.find("#line 1 \"region_map.cuh\"\n" + frag + fmt::format("#line {} \"histogram.cu\"\n", next_line) +
                   tmpl.substr(at + directive.size())) != std::string::npos);
    // What a fragment is put into: the template's text before the #include, unchanged.
    CHECK(src.find("#line 1 \"histogram.cu\"\n" + tmpl.substr(0, at) + "#line 1 \"region_map.cuh\"") !=
          std::string::npos);
    CHECK(preamble::variant_source("", "t.cu", "a\n#include \"f.cuh\"\nb\n", {{"f.cuh", "x"}}) ==
          "#line 1 \"common.cuh\"\n" + std::string(embedded::common_cuh) +
              "#line 1 \"t.cu\"\na\n#line 1 \"f.cuh\"\nx\n#line 3 \"t.cu\"\nb\n");
    CHECK_THROWS_AS(preamble::variant_source("", "t.cu", "a\nb\n", {{"f.cuh", "x"}}), std::logic_error);
    CHECK_THROWS_AS(preamble::variant_source("", "t.cu", "a #include \"f.cuh\"\n", {{"f.cuh", "x"}}), std::logic_error);
  }

  TEST_CASE("the generated preamble carries the configuration's constants") {
    HistogramConfig c;
    c.block = 512;
    c.loads = 4;
    c.replicas = 8;
    c.aggregation = Aggregation::warp;
    c.merge = Merge::last_block;
    const std::string src = kernel_source(f32_1024(), c);
    CHECK(src.find("constexpr int kBlock = 512;") != std::string::npos);
    CHECK(src.find("constexpr int kLoads = 4;") != std::string::npos);
    CHECK(src.find("constexpr int kReplicas = 8;") != std::string::npos);
    CHECK(src.find("constexpr Aggregation kAggregation = Aggregation::warp;") != std::string::npos);
    CHECK(src.find("constexpr Merge kMerge = Merge::last_block;") != std::string::npos);
    // The enums cross by name, with the host's values: the integer mapping exists only in the host's enum.
    CHECK(src.find("enum class Merge { atomic = 0, last_block = 1, self_zero = 2 };") != std::string::npos);
    CHECK(src.find("enum class Privatization { global = 0, shared = 1, warp = 2 };") != std::string::npos);
    CHECK(src.find("constexpr Privatization kPriv = Privatization::shared;") != std::string::npos);
    CHECK(src.find("constexpr Partitioning kPartitioning = Partitioning::interleaved;") != std::string::npos);
    // The workspace layout, from the one definition the launcher sizes the workspace with.
    CHECK(src.find("constexpr int kHistogramWord = 64;") != std::string::npos);
    CHECK(src.find("constexpr int kTicketWord = 0;") != std::string::npos);
    // The shared device code comes after the preamble and before the template, each named for NVRTC's errors.
    const auto common = src.find("#line 1 \"common.cuh\"\n"), tmpl = src.find("#line 1 \"histogram.cu\"\n");
    CHECK(src.find("}  // namespace at\n") < common);
    CHECK(common < tmpl);
    CHECK(tmpl != std::string::npos);
    CHECK(src.find("constexpr int kCluster = 1;") != std::string::npos);
    CHECK(src.find("#define AT_CLUSTER 1\n") != std::string::npos);
    CHECK(src.find("typedef unsigned int out_t;") != std::string::npos);
    CHECK(src.find("constexpr int kBins = 1024;") != std::string::npos);
    CHECK(src.find("typedef float sample_t;") != std::string::npos);
    // 1024 bins over [-1, 1): scale 512 = 0x1p+9, lower -1 = -0x1p+0.
    CHECK(src.find("constexpr float kScaleF = 0x1p+9f;") != std::string::npos);
    CHECK(src.find("constexpr float kLowerF = -0x1p+0f;") != std::string::npos);
    // Every size and input distribution of a histogram compiles to the same source (one compile-cache entry).
    HistogramProblem other = f32_1024();
    other.n = 12345;
    other.distribution = "runs";
    CHECK(kernel_source(other, c) == src);
  }

  TEST_CASE("a cluster variant declares its cluster size and self_zero merging in the preamble") {
    HistogramConfig c;
    c.cluster = 8, c.merge = Merge::self_zero, c.grid_blocks = 8;
    const std::string src = kernel_source(u8_256(), c);
    CHECK(src.find("constexpr int kCluster = 8;") != std::string::npos);
    CHECK(src.find("constexpr Merge kMerge = Merge::self_zero;") != std::string::npos);
    CHECK(src.find("#define AT_CLUSTER 8\n") != std::string::npos);
    // Clusters need sm_90: for sm_80 NVRTC refuses the variant (the tuner never asks it to).
    CHECK(jit::compile(src, "cluster.cu", "sm_90").ok);
    CHECK_FALSE(jit::compile(src, "cluster.cu", "sm_80").ok);
  }

  TEST_CASE("an evict-first variant (ld=cs) declares kLoadCs and compiles to other machine code than its plain twin") {
    HistogramConfig c = *HistogramConfig::parse(
        "priv=shared,R=32,cbits=32,block=512,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,grid=0");
    const std::string plain = kernel_source(u8_256(), c);
    c.load_cs = true;
    const std::string cs = kernel_source(u8_256(), c);
    CHECK(plain.find("constexpr bool kLoadCs = false;") != std::string::npos);
    CHECK(cs.find("constexpr bool kLoadCs = true;") != std::string::npos);
    const auto a = jit::compile(plain, "plain.cu", "sm_90"), b = jit::compile(cs, "cs.cu", "sm_90");
    REQUIRE(a.ok);
    REQUIRE(b.ok);
    CHECK(a.cubin != b.cubin);
  }

  TEST_CASE("an invalid configuration never reaches NVRTC, and the template's static_asserts back that up") {
    HistogramConfig c;
    c.block = 48;  // not a multiple of 32
    CHECK_THROWS_AS(kernel_source(u8_256(), c), UsageError);
    // Edit a valid preamble by hand, as a host bug would: the template itself refuses it.
    std::string src = kernel_source(u8_256(), HistogramConfig{});
    const std::string from = "constexpr int kBlock = 256;";
    src.replace(src.find(from), from.size(), "constexpr int kBlock = 48;");
    const auto r = jit::compile(src, "bad.cu", "sm_90");
    CHECK_FALSE(r.ok);
    CHECK(r.cubin.empty());
    CHECK(r.log.find("multiple of 32") != std::string::npos);
  }

  TEST_CASE("the read-roof kernel compiles for sm_80 and sm_90") {
    for (const char* arch : {"sm_80", "sm_90"}) {
      const auto r = jit::compile(std::string(embedded::roof_kernel), "roof.cu", arch);
      CHECK_MESSAGE(r.ok, r.log);
      CHECK(test::is_elf(r.cubin));
    }
  }

  TEST_CASE("the on-disk compile cache: a second compile reads the file, a damaged file is compiled again") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("autotune_cubin_test_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const std::string src = kernel_source(u8_256(), HistogramConfig{});
    const auto first = jit::compile_cached(src, "v.cu", "sm_90", dir.string());
    REQUIRE(first.ok);
    CHECK_FALSE(first.from_cache);
    // The cubin files; the directory also holds its HMAC key (core/jit.cpp), created with the first file.
    auto cubin_files = [&] {
      std::vector<fs::path> out;
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename() != "hmac-key") out.push_back(e.path());
      return out;
    };
    std::vector<fs::path> files = cubin_files();
    REQUIRE(files.size() == 1);
    CHECK(fs::exists(dir / "hmac-key"));
    const auto second = jit::compile_cached(src, "v.cu", "sm_90", dir.string());
    CHECK(second.from_cache);
    CHECK(second.cubin == first.cubin);
    // Another architecture or another source is another file.
    CHECK_FALSE(jit::compile_cached(src, "v.cu", "sm_80", dir.string()).from_cache);
    CHECK_FALSE(jit::compile_cached(src + "\n// changed", "v.cu", "sm_90", dir.string()).from_cache);
    CHECK(cubin_files().size() == 3);
    // A damaged file is not served: it is compiled again and replaced.
    std::ofstream(files[0], std::ios::binary | std::ios::trunc) << "garbage";
    const auto third = jit::compile_cached(src, "v.cu", "sm_90", dir.string());
    CHECK_FALSE(third.from_cache);
    CHECK(third.cubin == first.cubin);
    CHECK(jit::compile_cached(src, "v.cu", "sm_90", dir.string()).from_cache);
    // Compile errors are not cached, and an empty directory disables the cache.
    CHECK_FALSE(jit::compile_cached("broken(", "b.cu", "sm_90", dir.string()).ok);
    CHECK(cubin_files().size() == 3);
    CHECK_FALSE(jit::compile_cached(src, "v.cu", "sm_90", "").from_cache);
    fs::remove_all(dir);
  }

  TEST_CASE("a compile error is a value with the log, not an exception") {
    const auto r = jit::compile("extern \"C\" __global__ void k() { undeclared_thing(); }", "broken.cu", "sm_90");
    CHECK_FALSE(r.ok);
    CHECK(r.log.find("undeclared_thing") != std::string::npos);
    CHECK(r.arch == "sm_90");
    CHECK(r.options.front() == "--gpu-architecture=sm_90");
  }

  TEST_CASE("an unknown architecture is refused as a value") {
    const auto r = jit::compile("extern \"C\" __global__ void k() {}", "k.cu", "sm_12");
    CHECK_FALSE(r.ok);
    CHECK_FALSE(r.log.empty());
  }

  TEST_CASE("concurrent compiles from several threads give the same cubin as a serial one") {
    const std::string src = kernel_source(u8_256(), HistogramConfig{});
    const auto serial = jit::compile(src, "v.cu", "sm_90");
    REQUIRE(serial.ok);
    std::vector<jit::CompileResult> results(4);
    {
      std::vector<std::jthread> threads;
      for (std::size_t t = 0; t < results.size(); ++t)
        threads.emplace_back([&, t] { results[t] = jit::compile(src, "v.cu", "sm_90"); });
    }
    for (const auto& r : results) {
      CHECK(r.ok);
      CHECK(r.cubin == serial.cubin);
    }
  }
}

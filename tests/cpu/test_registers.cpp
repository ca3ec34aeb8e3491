// Occupancy guards that need no GPU: the registers NVRTC gives the variants that hold the bandwidth targets. A
// histogram variant of 512-thread blocks runs 4 blocks (2048 threads) per SM only at <= 32 registers; when the pixel
// and 2D paths were added to the even template, its 512 MiB u8 winner went to 64 (2 blocks per SM) unnoticed,
// because nothing but a timed GPU run could see it.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "autotune/problem.hpp"
#include "core/jit.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"

using namespace autotune;

namespace {

std::vector<char> cubin_of(const std::string& source, const std::string& arch = "sm_90") {
  const auto r = jit::compile(source, "registers.cu", arch);
  REQUIRE_MESSAGE(r.ok, r.log);
  return r.cubin;
}

// The registers of a family variant's kernel, compiled for sm_90 from its problem and configuration keys.
int variant_registers(const std::string& problem_key, const std::string& config_key, const std::string& kernel) {
  const auto problem = Problem::parse(problem_key);
  REQUIRE(problem.has_value());
  const auto config = Config::parse(problem->family_name(), config_key);
  REQUIRE(config.has_value());
  return test::registers_of(cubin_of(kernel_source(*problem, *config)), kernel);
}

const std::string kU8Roof = "histogram/u8/bins=256/range=[0,256)/n=536870912/dist=uniform";
const std::string kU8RoofWinner =
    "priv=shared,R=32,cbits=32,block=512,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0";


// The lengths of the runs of global loads in one kernel's PTX, in order: each run ends at a shared-memory atomic
// (a count). Loads issued together before their counts make a run as long as the tile's loads; a load counted
// before the next one is issued makes runs of 1.
std::vector<int> load_runs(const std::string& ptx, const std::string& kernel) {
  const std::string entry = ".entry " + kernel + "(";
  const std::size_t begin = ptx.find(entry);
  REQUIRE_MESSAGE(begin != std::string::npos, kernel, " is not in the PTX");
  const std::size_t end = ptx.find(".entry ", begin + entry.size());
  const std::string body = ptx.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  std::vector<int> runs;
  int run = 0;
  for (std::size_t at = 0; at < body.size(); ++at) {
    if (body.compare(at, 10, "ld.global.") == 0) ++run;
    if ((body.compare(at, 11, "atom.shared") == 0 || body.compare(at, 10, "red.shared") == 0) && run > 0) {
      runs.push_back(run);
      run = 0;
    }
  }
  return runs;
}

}  // namespace

TEST_SUITE("nvrtc") {
  TEST_CASE("registers_of reads each kernel's register count from a cubin, -1 for a kernel it does not hold") {
    // 64 independent running sums kept live across a loop need far more than 32 registers; the same work under
    // __launch_bounds__(1024, 2) (2048 threads per SM) must fit in 32.
    const std::string body = R"(
  float acc[64];
  for (int k = 0; k < 64; ++k) acc[k] = in[k * 131 + threadIdx.x];
  for (int i = 1; i < n; ++i)
    for (int k = 0; k < 64; ++k) acc[k] = acc[k] * in[i * 64 + k] + 1.0f;
  float s = 0;
  for (int k = 0; k < 64; ++k) s += acc[k];
  out[threadIdx.x] = s;
})";
    const auto cubin = cubin_of(
        "extern \"C\" __global__ void __launch_bounds__(64) wide(const float* in, float* out, int n) {" + body +
        "\nextern \"C\" __global__ void __launch_bounds__(1024, 2) narrow(const float* in, float* out, int n) {" +
        body + "\nextern \"C\" __global__ void empty() {}\n");
    const int wide = test::registers_of(cubin, "wide"), narrow = test::registers_of(cubin, "narrow");
    CAPTURE(wide);
    CAPTURE(narrow);
    CHECK(wide > 64);
    CHECK(narrow > 0);
    CHECK(narrow <= 32);
    CHECK(test::registers_of(cubin, "empty") >= 0);
    CHECK(test::registers_of(cubin, "not_a_kernel") == -1);
    CHECK_THROWS(test::registers_of(std::vector<char>{'\x7f', 'E', 'L', 'F'}, "wide"));
  }

  TEST_CASE("the even u8/256 512 MiB winner (R=32, 512 x 4 loads, one launch) keeps 2048 threads per SM: <= 32 "
            "registers") {
    // bench/results/2026-12-01b-h200-size-bench-u8.md: 95.1 % of the read roof at 512M with this configuration.
    const int regs = variant_registers(kU8Roof, kU8RoofWinner, "autotune_histogram");
    MESSAGE("autotune_histogram: ", regs, " registers");
    CAPTURE(regs);
    CHECK(regs > 0);
    CHECK(regs <= 32);
  }

  TEST_CASE("the u8 range histogram's byte-counting variants of 512 and 1024 threads keep 2048 threads per SM: <= 32 "
            "registers") {
    for (const std::string config : {"bin=values,priv=shared,R=32,block=512,vec=16,loads=4,grid=0,merge=self_zero",
                                     "bin=values,priv=shared,R=32,block=1024,vec=16,loads=4,grid=0"}) {
      CAPTURE(config);
      const int regs = variant_registers("histogram_range/u8/bins=255/edges=irregular/n=536870912/dist=uniform",
                                         config, "autotune_histogram_range");
      CAPTURE(regs);
      CHECK(regs > 0);
      CHECK(regs <= 32);
    }
  }
  TEST_CASE("the value-counting twins of the u8 winners (37 bins over [10, 250)) keep 2048 threads per SM: <= 32 "
            "registers") {
    const std::vector<std::string> configs = {
        kU8RoofWinner + ",bin=values",
        "priv=shared,R=32,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,grid=0,bin=values",
        "priv=shared,R=16,cbits=32,block=1024,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0,bin=values"};
    for (const std::string& config : configs) {
      CAPTURE(config);
      const int regs = variant_registers("histogram/u8/bins=37/range=[10,250)/n=268435456/dist=uniform", config,
                                         "autotune_histogram");
      MESSAGE("autotune_histogram ", config, ": ", regs, " registers");
      CAPTURE(regs);
      CHECK(regs > 0);
      CHECK(regs <= 32);
    }
  }
  TEST_CASE("the RGBA winners count a 2D region as one span in as many registers as 1D: 32 (2048 threads per SM)") {
    // The span entry point (kHistogramSpanKernelName) is the 1D body and the loop that takes back the gaps between
    // rows; inside the 1D or the 2D entry point that loop took the registers of these RGBA winners to 38 and 40.
    const std::string rgba = "histogram/u8/bins=256/range=[0,256)/n=134217728/dist=image/channels=4/active=3";
    for (const std::string config :
         {std::string("priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,"
                      "grid=0"),
          kU8RoofWinner}) {
      CAPTURE(config);
      const int flat = variant_registers(rgba, config, kHistogramKernelName);
      const int span = variant_registers(rgba, config, kHistogramSpanKernelName);
      MESSAGE(config, ": 1D ", flat, ", span ", span, " registers");
      CHECK(flat > 0);
      CHECK(flat <= 32);
      CHECK(span > 0);
      CHECK(span <= 32);
    }
  }
  TEST_CASE("float min and max in 512- and 1024-thread blocks keep 2048 threads per SM: <= 32 registers") {
    // The preset's 256M and 16M winners of sum, min and max, and a one-tile-per-block grid where min/max were
    // measured 1.3-1.8x slower than the sum (bench/results/2026-12-01c-h200-preset-standard.log.gz): a hardware
    // min/max per element and NaN noted beside it (reduce.cu) must not cost the occupancy the sum has. (f64 with 4
    // accumulators and 4 loads takes 34, the sum 32: 1536 threads per SM; the space keeps 1 and 2 at <= 32.)
    for (const std::string config : {"red=warp_shuffle,block=1024,vec=16,loads=4,acc=2,finish=last_block,grid=0",
                                     "red=warp_shuffle,block=1024,vec=16,loads=4,acc=1,finish=last_block,grid=0",
                                     "red=warp_shuffle,block=512,vec=16,loads=4,acc=1,finish=last_block,grid=0",
                                     "red=warp_shuffle,block=512,vec=16,loads=2,acc=1,finish=two_pass,grid=-1"})
      for (const std::string type : {"f32", "f64"})
        for (const std::string op : {"min", "max"}) {
          CAPTURE(config);
          const int regs = variant_registers("reduce/" + op + "/" + type + "/acc=" + type + "/n=268435456/dist=uniform",
                                             config, "autotune_reduce");
          MESSAGE(type, " ", op, " ", config, ": ", regs, " registers");
          CHECK(regs > 0);
          CHECK(regs <= 32);
        }
  }
  TEST_CASE("the 1D histogram issues a partial tile's loads together, as a full tile's, and the span entry one at a time") {
    // A grid that covers n has one tile below about a million samples, partial unless n is a whole number of tiles:
    // counted one vector at a time, its loads went out one after another (u16 at 242000 samples, 4 loads: 7.4 us where
    // a whole tile of 262144 ran 5.95; bench/results/2026-12-07-summary.md). The span entry point keeps that loop:
    // its registers rose with the batched one (bench/results/2026-12-07b-data/partial-tile-registers.txt).
    struct Case {
      std::string problem, config;
      int loads;
    };
    const std::vector<Case> cases = {
        {"histogram/u16/bins=920/range=[0,65536)/n=242000/dist=uniform",
         "priv=shared,R=1,cbits=32,block=256,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0", 4},
        {"histogram/f32/bins=579/range=[0.02,300.02)/n=582000/dist=uniform",
         "priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0", 2},
        {"histogram/u8/bins=37/range=[10,250)/n=300000/dist=uniform", kU8RoofWinner + ",bin=values", 4}};
    for (const Case& c : cases) {
      CAPTURE(c.config);
      const auto problem = Problem::parse(c.problem);
      REQUIRE(problem.has_value());
      const auto config = Config::parse("histogram", c.config);
      REQUIRE(config.has_value());
      const std::string text = jit::ptx(kernel_source(*problem, *config), "sm_90");
      // Runs of exactly `loads`: the tiles' (a level or table read elsewhere in the kernel may make a longer run).
      const auto whole = [&](const std::vector<int>& runs) { return std::count(runs.begin(), runs.end(), c.loads); };
      const std::vector<int> flat = load_runs(text, kHistogramKernelName);
      const std::vector<int> span = load_runs(text, kHistogramSpanKernelName);
      MESSAGE(c.config, ": runs of loads in 1D ", fmt::format("{}", fmt::join(flat, " ")), ", span ",
              fmt::format("{}", fmt::join(span, " ")));
      CHECK(whole(flat) >= 2);  // the full tiles' and the partial tile's
      CHECK(whole(span) == 1);  // the full tiles' only
    }
  }
  TEST_CASE("the range histogram issues a partial tile's loads together, as a full tile's") {
    // The same tail as the even family's 1D entry point (kernel_templates/histogram_range/histogram_range.cu). Runs
    // of exactly 4 loads: the table and level reads make other runs (the old code's: 6 1 4 1 1 1 1 for the pre-bin
    // variant, 1 1 4 1 1 1 1 5 for value counting; nvcc 13.0).
    for (const std::string config : {"bin=prebin,priv=shared,R=1,block=1024,vec=16,loads=4,grid=0",
                                     "bin=values,priv=shared,R=32,block=512,vec=16,loads=4,grid=0,merge=self_zero"}) {
      CAPTURE(config);
      const std::string key = config.rfind("bin=values", 0) == 0
                                  ? "histogram_range/u8/bins=37/edges=irregular/n=300000/dist=uniform"
                                  : "histogram_range/f32/bins=999/edges=irregular/n=300000/dist=uniform";
      const auto problem = Problem::parse(key);
      REQUIRE(problem.has_value());
      const auto parsed = Config::parse("histogram_range", config);
      REQUIRE(parsed.has_value());
      const std::vector<int> runs = load_runs(jit::ptx(kernel_source(*problem, *parsed), "sm_90"),
                                              kHistogramRangeKernelName);
      MESSAGE(config, ": runs of loads ", fmt::format("{}", fmt::join(runs, " ")));
      CHECK(std::count(runs.begin(), runs.end(), 4) >= 2);
    }
  }
  TEST_CASE("holds_kernel finds the code of each kernel a cubin defines, by its whole name, and no other") {
    // What the NVRTC suites check of every variant they compile: the entry points the launcher loads
    // (test::compile_all with the family's kernel names).
    const auto cubin = cubin_of("extern \"C\" __global__ void k(int* o) { *o = 1; }\n"
                                "extern \"C\" __global__ void k_2d(int* o) { *o = 2; }\n");
    CHECK(test::holds_kernel(cubin, "k"));
    CHECK(test::holds_kernel(cubin, "k_2d"));
    CHECK_FALSE(test::holds_kernel(cubin, "k_2"));
    CHECK_FALSE(test::holds_kernel(cubin, "k_3d"));
    const auto one = cubin_of("extern \"C\" __global__ void k(int* o) { *o = 1; }\n");
    CHECK(test::holds_kernel(one, "k"));
    CHECK_FALSE(test::holds_kernel(one, "k_2d"));
  }
}

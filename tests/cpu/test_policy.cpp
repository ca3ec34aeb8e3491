// The measured default policy (runtime/policy.hpp): the shipped data of each built-in family parses and is what its
// folder holds, malformed data is refused with a reason, the choice rule (closest valid shape, asymmetric in bins,
// device limits, nearest size), every usable shape as a candidate of the lookup, and what the lookup serves with
// nothing measured (never "tuned" for strict mode).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/argreduce_problem.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/resolution.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "core/family.hpp"
#include "runtime/policy.hpp"
#include "runtime/size_table.hpp"
#include "tests/test_devices.hpp"

using namespace autotune;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

HistogramProblem f32(int bins, std::uint64_t n) {
  HistogramProblem p = HistogramProblem::with_defaults(SampleType::f32, bins);
  p.n = n;
  return p;
}

std::string entry(const HistogramProblem& p, const std::string& config) {
  return fmt::format(R"({{"problem": "{}", "config": "{}"}})", p.key(), config);
}
std::string policy_text(const std::string& entries) {
  return R"({"format": 1, "family": "histogram", "provenance": {"gpu": "Test GPU", "date": "2026-12-01",
            "command": "autotune tune --preset standard"}, "entries": [)" + entries + "]}";
}

// AUTOTUNE_POLICY_DIR naming a fresh folder whose histogram.json holds `text`, while the object lives: the variable
// and the folder are gone after it, whatever the case asserts.
class HistogramPolicyFile {
 public:
  HistogramPolicyFile(const std::string& name, const std::string& text)
      : dir_(std::filesystem::temp_directory_path() / fmt::format("{}_{}", name, ::getpid())) {
    std::filesystem::create_directories(dir_);
    std::ofstream((dir_ / "histogram.json").string()) << text;
    ::setenv("AUTOTUNE_POLICY_DIR", dir_.c_str(), 1);
  }
  ~HistogramPolicyFile() {
    ::unsetenv("AUTOTUNE_POLICY_DIR");
    std::filesystem::remove_all(dir_);
  }
  HistogramPolicyFile(const HistogramPolicyFile&) = delete;
  HistogramPolicyFile& operator=(const HistogramPolicyFile&) = delete;

 private:
  std::filesystem::path dir_;
};

// The range of the handle's size table (untuned_sizes: a cache holding nothing, the shipped costs) that serves
// `problem`'s own n on `device`.
SizeRange served_range(const DeviceInfo& device, const Problem& problem) {
  LookupTarget target{device.model_key(), device.arch(), device.sm_count, 0};
  target.device = device;
  for (const SizeRange& r : untuned_sizes(target, problem).sizes)
    if (r.n_from <= problem.n() && problem.n() <= r.n_to) return r;
  FAIL("no range of the size table holds n=" << problem.n());
  return {};
}

// A held-out histogram row of the shipped policy's narrow entries.
struct NarrowRow {
  SampleType type;
  int bins;
  double lower, upper;
  std::uint64_t n;
};

// What `device`'s size tables serve `row` on narrow samples, checked to be a window beside a global histogram, and
// on uniform ones, checked to be shared counters: the narrow samples' range and the uniform samples' configuration.
std::pair<SizeRange, HistogramConfig> narrow_and_uniform(const DeviceInfo& device, const NarrowRow& row) {
  HistogramProblem p = HistogramProblem::with_defaults(row.type, row.bins, row.lower);
  p.upper = row.upper;
  p.n = row.n;
  p.distribution = "narrow";
  SizeRange narrow = served_range(device, Problem(p));
  const auto* c = narrow.config.as<HistogramConfig>();
  REQUIRE(c != nullptr);
  CHECK(c->privatization == Privatization::global);
  CHECK(c->window == 4096);
  p.distribution = "uniform";
  const SizeRange uniform = served_range(device, Problem(p));
  const auto* u = uniform.config.as<HistogramConfig>();
  REQUIRE(u != nullptr);
  CHECK(u->privatization == Privatization::shared);
  return {std::move(narrow), *u};
}

// Configurations of three regimes, spelled as the tuner writes them.
const std::string kFew = "priv=shared,R=4,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0";
const std::string kMid = "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,grid=0";
const std::string kMany = "priv=global,R=1,cbits=32,block=256,vec=16,loads=1,agg=warp,part=interleaved,merge=atomic,grid=0";

}  // namespace

TEST_SUITE("policy") {
  TEST_CASE("every built-in family's shipped policy parses, is its folder's policy.json, and names its GPU") {
    // The preset-fitted ones (scripts/fit_policy.py) and the benchmark-fitted ones (scripts/policy_from_bench.py).
    struct Shipped { const char* family; const char* command; int min_entries; };
    for (const Shipped& s : {Shipped{"histogram", "--preset standard", 30}, Shipped{"reduce", "--preset standard", 30},
                             Shipped{"argreduce", "policy_from_bench.py", 10},
                             Shipped{"histogram_range", "policy_from_bench.py", 6},
                             Shipped{"segreduce", "policy_from_bench.py", 8}}) {
      // Named copies, not a structured binding: clang 14 (CI's sanitizer build) cannot capture one in CAPTURE's lambda.
      const std::string family = s.family, command = s.command;
      const int min_entries = s.min_entries;
      CAPTURE(family);
      const std::string file =
          read_text(std::string(AUTOTUNE_SOURCE_DIR) + "/kernel_templates/" + family + "/policy.json");
      CHECK(family_named(family).policy_data() == file);
      const Policy& p = family_policy(family);
      const auto doc = nlohmann::json::parse(file);
      CHECK(p.entries.size() == doc["entries"].size());
      CHECK(p.entries.size() >= static_cast<std::size_t>(min_entries));
      CHECK(p.provenance.find("NVIDIA H200") != std::string::npos);
      CHECK(p.provenance.find(command) != std::string::npos);
      for (const PolicyEntry& e : p.entries) CHECK(e.problem.family().violation(e.problem, e.config, nullptr).empty());
    }
  }

  TEST_CASE("malformed policy data is refused with what is wrong") {
    auto refused = [](const std::string& text, const std::string& what) {
      CAPTURE(text);
      try {
        parse_policy("histogram", text);
        FAIL("accepted");
      } catch (const Error& e) {
        CHECK(std::string(e.what()).find(what) != std::string::npos);
      }
    };
    refused("{not json", "not a JSON object");
    refused(R"({"format": 2, "family": "histogram", "entries": []})", "format");
    refused(R"({"format": 1, "family": "reduce", "entries": []})", "another family");
    refused(R"({"format": 1, "family": "histogram"})", "no entries");
    refused(policy_text(R"({"problem": "histogram/nonsense", "config": "x"})"), "not a problem");
    refused(policy_text(entry(f32(64, 1 << 20), "priv=bogus")), "not a configuration");
    // Global atomics with self-zeroing merge: a configuration no problem can run.
    refused(policy_text(entry(f32(65536, 1 << 20),
                              "priv=global,R=1,cbits=32,block=256,vec=16,loads=1,agg=none,part=interleaved,merge=self_zero,grid=0")),
            "cannot run");
    CHECK(parse_policy("histogram", "").entries.empty());  // a family without a policy
  }

  TEST_CASE("AUTOTUNE_POLICY_DIR: DIR/histogram.json replaces the embedded histogram policy (its entries serve, its "
            "provenance names the file), other families keep theirs, a malformed or empty file is an Error naming it") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / fmt::format("at_policy_dir_{}", ::getpid());
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "histogram.json").string();
    struct Unset {  // the variable and the folder are gone after the case, whatever it asserts
      std::filesystem::path dir;
      ~Unset() {
        ::unsetenv("AUTOTUNE_POLICY_DIR");
        std::filesystem::remove_all(dir);
      }
    } unset{dir};
    const std::size_t embedded_reduce = family_policy("reduce").entries.size();
    const std::size_t embedded_histogram = family_policy("histogram").entries.size();
    REQUIRE(embedded_histogram > 1);
    std::ofstream(file) << policy_text(entry(f32(64, 1 << 20), kFew));
    ::setenv("AUTOTUNE_POLICY_DIR", dir.c_str(), 1);
    CHECK(policy_override_path("histogram") == file);
    CHECK(policy_override_path("reduce").empty());  // no reduce.json: the embedded policy serves
    const Policy& over = family_policy("histogram");
    REQUIRE(over.entries.size() == 1);
    CHECK(over.provenance.find("Test GPU") != std::string::npos);
    CHECK(over.provenance.find("read from " + file) != std::string::npos);
    CHECK(family_policy("reduce").entries.size() == embedded_reduce);
    // The file's one entry serves an f32 histogram of 100 bins at 1M, as kFew (16-byte loads of a 4-copy histogram).
    const auto c = policy_choice(Problem(f32(100, 1 << 20)), nullptr);
    REQUIRE(c);
    CHECK(c->config.key() == kFew);

    // Another folder with a malformed file: refused with the file's path; an empty one likewise.
    const std::filesystem::path bad = dir / "bad";
    std::filesystem::create_directories(bad);
    std::ofstream((bad / "histogram.json").string()) << policy_text(entry(f32(64, 1 << 20), "priv=bogus"));
    ::setenv("AUTOTUNE_POLICY_DIR", bad.c_str(), 1);
    const std::string named = (bad / "histogram.json").string() + ", which AUTOTUNE_POLICY_DIR names";
    CHECK_THROWS_WITH_AS(family_policy("histogram"), doctest::Contains(named.c_str()), Error);
    std::ofstream((bad / "histogram.json").string(), std::ios::trunc).flush();
    CHECK(std::filesystem::file_size(bad / "histogram.json") == 0);
    // (parsed once per file: the malformed text above was never cached, so the empty file is read afresh)
    CHECK_THROWS_WITH_AS(family_policy("histogram"), doctest::Contains("is empty"), Error);
    ::unsetenv("AUTOTUNE_POLICY_DIR");
    CHECK(family_policy("histogram").entries.size() == embedded_histogram);
  }

  TEST_CASE("every usable shape is a candidate of the lookup, closest first, with its distance and GPU") {
    const Policy p = parse_policy("histogram", policy_text(entry(f32(64, 1 << 20), kFew) + "," +
                                                             entry(f32(4096, 1 << 16), kMid) + "," +
                                                             entry(f32(4096, 1 << 24), kFew)));
    CHECK(p.gpu == "Test GPU");
    const auto shapes = policy_shapes(p, f32(2000, 1 << 16), nullptr);
    REQUIRE(shapes.size() == 2);
    // 4096 bins: log2(4096/2000) = 1.034 doublings more, counted twice; 64 bins: log2(2000/64) = 4.966 fewer.
    CHECK(shapes[0].shape.shape_key() == f32(4096, 0).shape_key());
    CHECK(shapes[0].distance == doctest::Approx(2 * std::log2(4096.0 / 2000)));
    CHECK(shapes[0].sizes.size() == 2);
    CHECK(shapes[1].shape.shape_key() == f32(64, 0).shape_key());
    CHECK(shapes[1].distance == doctest::Approx(std::log2(2000.0 / 64)));
    CHECK(shapes[1].sizes.size() == 1);
  }

  TEST_CASE("an entry measured on another GPU than its policy's says so in the choice and in its range of the size "
            "table; the other entries do not") {
    const std::string other = R"({"problem": ")" + f32(64, 1 << 16).key() + R"(", "config": ")" + kFew +
                              R"(", "gpu": "Other GPU"})";
    const Policy p = parse_policy("histogram", policy_text(other + "," + entry(f32(64, 1 << 24), kMid)));
    REQUIRE(p.entries.size() == 2);
    CHECK(p.entries[0].gpu == "Other GPU");
    CHECK(p.entries[1].gpu.empty());
    const auto near_other = policy_choice(p, f32(50, 1 << 16), nullptr);
    REQUIRE(near_other);
    CHECK(near_other->why.find("(measured on Other GPU)") != std::string::npos);
    CHECK(near_other->why.find("Test GPU") != std::string::npos);  // the policy's own provenance still follows
    const auto near_own = policy_choice(p, f32(50, 1 << 24), nullptr);
    REQUIRE(near_own);
    CHECK(near_own->why.find("measured on") == std::string::npos);

    // The shipped histogram policy's half-precision shapes were measured on an H100 (2026-12-05f): a bf16 lookup on
    // the H200 without a cache names that GPU in the range it serves, and an f32 lookup served by the H200's entries
    // does not.
    const DeviceInfo h200 = test::lookup_devices().front();
    HistogramProblem bf16 = HistogramProblem::with_defaults(SampleType::bf16, 44);
    bf16.n = 1699000;
    CHECK(served_range(h200, Problem(bf16)).why.find("measured on NVIDIA H100 80GB HBM3") != std::string::npos);
    const std::string own = served_range(h200, Problem(f32(2048, 1 << 20))).why;
    CHECK(own.find("policy: tuned for n=1048576 of histogram/f32/bins=2048") != std::string::npos);
    CHECK(own.find("measured on") == std::string::npos);
  }

  TEST_CASE("a problem with an entry of each of two GPUs serves each GPU its own entry, and any other GPU the policy's "
            "own; two entries of one problem measured on one GPU are refused") {
    const std::string h100_name = test::h100_device("GPU-x").name;
    auto measured_on = [](const HistogramProblem& q, const std::string& config, const std::string& gpu) {
      return fmt::format(R"({{"problem": "{}", "config": "{}", "gpu": "{}"}})", q.key(), config, gpu);
    };
    // The policy's own (Test GPU) entry of f32/4096 at 1M holds kMid, the H100's kFew; 16M holds the policy's alone.
    const std::string both = entry(f32(4096, 1 << 20), kMid) + "," + measured_on(f32(4096, 1 << 20), kFew, h100_name) +
                             "," + entry(f32(4096, 1 << 24), kMany);
    const Policy p = parse_policy("histogram", policy_text(both));
    REQUIRE(p.entries.size() == 3);
    const HistogramProblem wanted = f32(4000, 1 << 20);
    const DeviceInfo h100 = test::h100_device("GPU-two-gpus");
    DeviceInfo other = h100;
    other.name = "Another GPU";
    auto served_on = [&](const DeviceInfo* device, std::string_view gpu) {
      const auto shapes = policy_shapes(p, wanted, device, gpu);
      REQUIRE(shapes.size() == 1);
      REQUIRE(shapes[0].sizes.size() == 2);  // one entry at 1M, whichever GPU's, and 16M
      return shapes[0].config.key();
    };
    CHECK(served_on(&h100, h100_name) == kFew);
    CHECK(served_on(&h100, "") == kFew);  // the device's name
    CHECK(served_on(nullptr, h100_name) == kFew);
    CHECK(served_on(nullptr, "Test GPU") == kMid);
    CHECK(served_on(&other, "") == kMid);
    CHECK(served_on(nullptr, "") == kMid);
    CHECK(policy_choice(p, wanted, &h100)->why.find("(measured on " + h100_name + ")") != std::string::npos);
    CHECK(policy_choice(p, wanted, &other)->why.find("measured on") == std::string::npos);
    // The file's order does not decide: the H100's entry first serves the same.
    const Policy swapped = parse_policy(
        "histogram", policy_text(measured_on(f32(4096, 1 << 20), kFew, h100_name) + "," + entry(f32(4096, 1 << 20), kMid)));
    CHECK(policy_choice(swapped, wanted, &other)->config.key() == kMid);
    CHECK(policy_choice(swapped, wanted, &h100)->config.key() == kFew);

    // Through the ranked lookup (untuned_sizes, the shipped costs): the H100 gets its entry, the H200 the policy's.
    const HistogramPolicyFile file("at_policy_gpus", policy_text(both));
    CHECK(served_range(h100, Problem(wanted)).config.key() == kFew);
    CHECK(served_range(test::lookup_devices().front(), Problem(wanted)).config.key() == kMid);  // the H200

    // Two entries of one problem on one GPU: which serves would be the file's order. "gpu" naming the policy's own
    // GPU is that GPU.
    for (const std::string& twice : {entry(f32(4096, 1 << 20), kMid) + "," + entry(f32(4096, 1 << 20), kFew),
                                     entry(f32(4096, 1 << 20), kMid) + "," + measured_on(f32(4096, 1 << 20), kFew, "Test GPU"),
                                     measured_on(f32(4096, 1 << 20), kMid, h100_name) + "," +
                                         measured_on(f32(4096, 1 << 20), kFew, h100_name)})
      CHECK_THROWS_WITH_AS(parse_policy("histogram", policy_text(twice)), doctest::Contains("two entries of"), Error);
  }

  TEST_CASE("the shipped histogram policy: u32 with 256 bins at 16K is served the H100's own entry on an H100 and the "
            "H200's thread-block-cluster entry on an H200") {
    HistogramProblem u32 = HistogramProblem::with_defaults(SampleType::u32, 256);
    u32.n = 16384;
    const SizeRange h100 = served_range(test::h100_device("GPU-shipped-h100"), Problem(u32));
    const SizeRange h200 = served_range(test::lookup_devices().front(), Problem(u32));
    CHECK(h200.config.key().find("cluster=16") != std::string::npos);
    CHECK(h200.why.find("measured on") == std::string::npos);
    CHECK(h100.config.key().find("cluster=") == std::string::npos);
    CHECK(h100.why.find("measured on NVIDIA H100 80GB HBM3") != std::string::npos);
  }

  TEST_CASE("the shipped histogram policy: 32-bit integers with 75544 and 66593 bins of narrow samples are served a "
            "window beside a global histogram on an H100, the same bins of uniform samples 16-bit shared counters") {
    // The narrow entries of f32/32768 at 1M and u16/65536 at 16M (H100, 2026-12-07d): where the robust entries' 16-bit
    // shared counters ran i32/75544 at 78.8M narrow in 164.6 us and u32/66593 at 112M in 249.3, these ran 128.2 and
    // 201.6 (bench/results/2026-12-07d-summary.md).
    const DeviceInfo h100 = test::h100_device("GPU-shipped-narrow");
    for (const NarrowRow& row : {NarrowRow{SampleType::i32, 75544, 664.0, 183013.0, 78836000},
                                 NarrowRow{SampleType::u32, 66593, 606.0, 96187.0, 111956000}}) {
      CAPTURE(row.bins);
      const auto served = narrow_and_uniform(h100, row);  // no structured binding: CHECK's lambda takes it (clang)
      CHECK(served.first.why.find("dist=narrow") != std::string::npos);
      CHECK(served.second.counter_bits == 16);
    }
  }

  TEST_CASE("the shipped histogram policy: f16 with 73811 bins and bf16 with 19081 bins of narrow samples near 1M are "
            "served a window beside a global histogram on an H100, the same problems of uniform samples shared "
            "counters") {
    // The narrow entries of bf16/32768 and f16/32768 at 1M (H100, 2026-12-07e): f16/73811 at 1.8M narrow ran 9.7 us
    // where the robust entries' 16-bit shared counters ran 20.8 (bench/results/2026-12-07e-summary.md).
    const DeviceInfo h100 = test::h100_device("GPU-shipped-narrow-16");
    for (const NarrowRow& row : {NarrowRow{SampleType::f16, 73811, 0.0, 0.75, 1789000},
                                 NarrowRow{SampleType::bf16, 19081, -4.0, 4.0, 795000}}) {
      CAPTURE(row.bins);
      const auto served = narrow_and_uniform(h100, row);
      CHECK(served.first.why.find("bins=32768/range=[0,1)/dist=narrow") != std::string::npos);
      CHECK(served.second.window == 0);
    }
  }

  TEST_CASE("the shipped histogram policy: bf16 with 51071 bins of narrow samples at 4.5M is served bf16/32768's narrow "
            "entry of 4M on an H100 (the same problem of uniform samples keeps shared counters), and i16 with 12534 bins "
            "on runs at 4.3M u16/1024's robust entry of 4M") {
    // 2026-12-07g (H100): bf16/51071 narrow at 4.5M ran 15.6 us with the 16M robust entry's shared counters and 12.7 with
    // the window of the 4M narrow entry (its exact winner's configuration: 12.4 us on 2026-12-07d); i16/12534 on runs
    // at 4.3M 24.6 -> 10.6 us (CUB 23.3), served the 4M robust entries of the 16-bit shapes instead of u16/65536's 16M
    // runs entry (bench/results/2026-12-07g-summary.md).
    const DeviceInfo h100 = test::h100_device("GPU-shipped-4m");
    const auto served = narrow_and_uniform(h100, NarrowRow{SampleType::bf16, 51071, -4.0, 296.0, 4507000});
    CHECK(served.first.why.find("n=4194304 of histogram/bf16/bins=32768/range=[0,1)/dist=narrow") != std::string::npos);
    CHECK(served.second.window == 0);
    HistogramProblem runs = HistogramProblem::with_defaults(SampleType::i16, 12534, -32768.0);
    runs.upper = 32768.0;
    runs.n = 4266000;
    runs.distribution = "runs";
    const SizeRange r = served_range(h100, Problem(runs));
    CHECK(r.why.find("n=4194304 of histogram/u16/bins=1024/range=[0,65536)/dist=uniform") != std::string::npos);
    const auto* c = r.config.as<HistogramConfig>();
    REQUIRE(c != nullptr);
    CHECK(c->counter_bits == 32);
  }

  TEST_CASE("an entry fitted on one distribution (dist=runs) serves problems of that distribution only, ahead of the "
            "robust entry of its shape; the robust entries serve every other distribution") {
    HistogramProblem runs = f32(4096, 1 << 20);
    runs.distribution = "runs";
    const Policy p = parse_policy("histogram", policy_text(entry(f32(4096, 1 << 20), kMid) + "," + entry(runs, kMany) +
                                                             "," + entry(f32(64, 1 << 20), kFew)));
    HistogramProblem wanted = f32(5000, 1 << 20);
    wanted.distribution = "runs";
    auto shapes = policy_shapes(p, wanted, nullptr);
    REQUIRE(shapes.size() == 3);
    CHECK(shapes[0].of_distribution);
    CHECK(shapes[0].config.key() == kMany);
    CHECK(shapes[0].shape.distribution() == "runs");
    CHECK_FALSE(shapes[1].of_distribution);
    CHECK(shapes[1].config.key() == kMid);
    CHECK(shapes[0].distance == shapes[1].distance);
    for (const char* other : {"uniform", "narrow"}) {
      wanted.distribution = other;
      shapes = policy_shapes(p, wanted, nullptr);
      REQUIRE(shapes.size() == 2);
      CHECK(shapes[0].config.key() == kMid);
      CHECK_FALSE(shapes[0].of_distribution);
    }
    // Ranked with the shipped costs: the problem's own distribution's entry, where the robust one ties with it.
    const DeviceInfo h200 = test::lookup_devices().front();
    const HistogramPolicyFile file("at_policy_dist", policy_text(entry(f32(4096, 1 << 20), kMid) + "," +
                                                                 entry(runs, kMany) + "," + entry(f32(64, 1 << 20), kFew)));
    auto served = [&](const char* distribution) {
      HistogramProblem q = f32(4096, 1 << 20);
      q.distribution = distribution;
      return served_range(h200, Problem(q)).config.key();
    };
    CHECK(served("runs") == kMany);
    CHECK(served("uniform") == kMid);
    CHECK(served("narrow") == kMid);
  }

  TEST_CASE("the choice: the closest valid shape, a shape with more bins counted twice, then the nearest size") {
    const Policy p = parse_policy("histogram", policy_text(entry(f32(64, 1 << 20), kFew) + "," +
                                                             entry(f32(4096, 1 << 16), kMid) + "," +
                                                             entry(f32(4096, 1 << 24), kFew) + "," +
                                                             entry(f32(262144, 1 << 20), kMany)));
    const DeviceInfo h100 = test::h100_device("GPU-policy");
    SUBCASE("2000 bins: 4096 (1.03 doublings above, counted 2.06) beats 64 (4.97 below)") {
      const auto c = policy_choice(p, f32(2000, 1 << 16), &h100);
      REQUIRE(c);
      CHECK(c->config == *Config::parse("histogram", kMid));
      CHECK(c->sizes.size() == 2);
      CHECK(c->sizes[0].problem.n() == (1u << 16));
      CHECK(c->why.find("Test GPU") != std::string::npos);
      // the same shape at a size nearer 16M runs that size's configuration
      CHECK(policy_choice(p, f32(2000, 1 << 23), &h100)->config == *Config::parse("histogram", kFew));
    }
    SUBCASE("1000 bins: 64 (3.97 doublings below) beats 4096 (2.03 above, counted 4.07)") {
      const auto c = policy_choice(p, f32(1000, 1 << 20), &h100);
      REQUIRE(c);
      CHECK(c->config == *Config::parse("histogram", kFew));
    }
    SUBCASE("65536 bins: 4096's 32-bit shared counters (256 KiB) do not fit; they serve with 16-bit ones, not "
            "262144's global atomics") {
      // The issue's case: f32 with 65536 bins on skewed data ran global atomics at 0.13x CUB.
      const auto c = policy_choice(p, f32(65536, 1 << 24), &h100);
      REQUIRE(c);
      HistogramConfig want = *HistogramConfig::parse(kFew);  // 4096 bins at 16M: kFew, R=4
      want.replicas = 1;      // 65536 x 2 B x 4 copies = 512 KiB; one copy of 16-bit counters = 128 KiB
      want.counter_bits = 16;
      CHECK(c->config == Config(want));
      CHECK(c->why.find("(adapted: R=1, cbits=16)") != std::string::npos);
      // At 64K the 4096-bin entry is kMid (self_zero, which 16-bit counters cannot merge): atomics instead.
      const auto small = policy_choice(p, f32(65536, 1 << 16), &h100);
      REQUIRE(small);
      HistogramConfig mid = *HistogramConfig::parse(kMid);
      mid.counter_bits = 16;
      mid.merge = Merge::atomic;
      CHECK(small->config == Config(mid));
      CHECK(small->why.find("(adapted: cbits=16, merge=atomic)") != std::string::npos);
      REQUIRE(small->changes.size() == small->sizes.size());
    }
    SUBCASE("bins that fit no shared counters at all (1M bins: 2 MiB even at 16 bits) take the global shape") {
      const auto c = policy_choice(p, f32(1 << 20, 1 << 20), &h100);
      REQUIRE(c);
      CHECK(c->config == *Config::parse("histogram", kMany));
      CHECK(c->why.find("adapted") == std::string::npos);
    }
    SUBCASE("another sample type is served from the closest shape of the types held; another counter width is not") {
      HistogramProblem u16 = HistogramProblem::with_defaults(SampleType::u16, 2048);
      const auto c = policy_choice(p, u16, &h100);  // 64 bins: 8 + 5 doublings; 4096: 8 + 2 x 1 doubling
      REQUIRE(c);
      CHECK(c->why.find("histogram/f32/bins=4096/") != std::string::npos);
      HistogramProblem wide = f32(1000, 1 << 20);
      wide.counter_bits = 64;
      CHECK_FALSE(policy_choice(p, wide, &h100));
    }
    SUBCASE("a device with less shared memory per block gets what fits it") {
      DeviceInfo small = h100;
      small.shared_per_block_optin = 48 * 1024;  // 13000 bins x 4 B = 52 KiB does not fit; x 2 B = 26 KiB does
      const auto c = policy_choice(p, f32(13000, 1 << 16), &small);
      REQUIRE(c);
      HistogramConfig mid = *HistogramConfig::parse(kMid);
      mid.counter_bits = 16;
      mid.merge = Merge::atomic;
      CHECK(c->config == Config(mid));
      CHECK(policy_choice(p, f32(13000, 1 << 16), &h100)->config == *Config::parse("histogram", kMid));
      small.shared_per_block_optin = 16 * 1024;  // not even 16-bit counters fit: the global shape serves
      CHECK(policy_choice(p, f32(13000, 1 << 16), &small)->config == *Config::parse("histogram", kMany));
    }
  }

  TEST_CASE("i8 samples are served from u8 shapes (and i16 from u16) at their own type's distance plus 1, ahead of "
            "every other type") {
    const DeviceInfo h100 = test::h100_device("GPU-policy-twins");
    // i8 and u8 run one kernel (a signed sample is counted as its bits with the sign flipped).
    const std::string kU8 =
        "priv=shared,R=1,cbits=32,block=256,vec=0,loads=4,agg=none,part=contiguous,merge=atomic,grid=0";
    HistogramProblem u8 = HistogramProblem::with_defaults(SampleType::u8, 32);
    u8.n = 1 << 16;
    HistogramProblem i32 = HistogramProblem::with_defaults(SampleType::i32, 64);
    i32.n = 1 << 16;
    const Policy twins = parse_policy("histogram", policy_text(entry(u8, kU8) + "," + entry(i32, kMid)));
    HistogramProblem i8 = HistogramProblem::with_defaults(SampleType::i8, 32);  // 32 bins over [-128, 128)
    i8.lower = -128, i8.upper = 128, i8.n = 1 << 16;
    const auto shapes = policy_shapes(twins, i8, &h100);
    REQUIRE(shapes.size() == 2);
    CHECK(shapes[0].shape.shape_key() == u8.shape_key());
    CHECK(shapes[0].distance == doctest::Approx(1.0));  // the same bins and range width: only the twin's 1
    CHECK(shapes[1].shape.shape_key() == i32.shape_key());
    CHECK(shapes[1].distance > 8.0);
    // Bins of 8 values (a shift, every value in range) are counted directly, as u8's own shape is.
    const auto c = policy_choice(twins, i8, &h100);
    REQUIRE(c);
    CHECK(c->config.key() == kU8);
    // Bins of 37 over [-100, 100): a division per sample, and values out of range: the byte values are counted.
    i8.bins = 37, i8.lower = -100, i8.upper = 100;
    const auto v = policy_choice(twins, i8, &h100);
    REQUIRE(v);
    CHECK(v->config.key() == kU8 + ",bin=values");
    CHECK(policy_shapes(twins, i8, &h100)[0].shape.shape_key() == u8.shape_key());
    // i16's twin is u16 alone: u8 is another type to it (8 more).
    HistogramProblem i16 = HistogramProblem::with_defaults(SampleType::i16, 32);
    CHECK(policy_shapes(twins, i16, &h100)[0].distance >= 8.0);
  }

  TEST_CASE("arg-reductions and range histograms: the policy serves every type from measured entries") {
    const DeviceInfo h100 = test::h100_device("GPU-policy");
    // The benchmark measured f32, i32 and f64 (argreduce_bench): an f32 argmax at 3M takes f32 argmax's entry nearest
    // 3M (1M, by ratio 3 against 16M's 5.3).
    ArgReduceProblem f32max;
    f32max.type = ValueType::f32;
    f32max.n = 3 << 20;
    const auto a = policy_choice(f32max, &h100);
    REQUIRE(a);
    CHECK(a->why.find("argreduce/argmax/f32/n=1048576/") != std::string::npos);
    CHECK(a->config == *Config::parse("argreduce",
                                      "red=warp_reduce,block=512,vec=16,loads=2,acc=1,finish=last_block,grid=0,pack=u64"));
    // u64 argmin: no u64 entry; a 64-bit type (f64) is closer than a 32-bit one: f64 argmax 4 + 1 (the other op) = 5,
    // f32 argmin 4 + 2 (the other size) = 6. Of f64 argmax's 64K, 1M and 128M, 1M is nearest 5M (ratio 4.8 vs 27).
    ArgReduceProblem u64min;
    u64min.op = ArgOp::argmin;
    u64min.type = ValueType::u64;
    u64min.n = 5'000'000;
    const auto b = policy_choice(u64min, &h100);
    REQUIRE(b);
    CHECK(b->why.find("argreduce/argmax/f64/n=1048576/") != std::string::npos);
    CHECK(b->config ==
          *Config::parse("argreduce", "red=warp_reduce,block=256,vec=16,loads=8,acc=1,finish=last_block,grid=-1"));
    // bf16 argmax: no 2-byte entry; f32 and i32 argmax are one doubling of the element size away (4 + 2 = 6), f64
    // two (4 + 4 = 8): of f32's and i32's entries 1M is nearest 3M, as above, and f32's shape key sorts first (the
    // two 1M entries hold the same configuration).
    ArgReduceProblem bf16max = f32max;
    bf16max.type = ValueType::bf16;
    const auto half = policy_choice(bf16max, &h100);
    REQUIRE(half);
    CHECK(half->why.find("argreduce/argmax/f32/n=1048576/") != std::string::npos);
    CHECK(half->config == a->config);
    // Range histograms: u8 with 100 bins takes a u8 shape's configuration (the byte-value binning): of u8/255 (|log2
    // 2.55| counted twice: 2.70) and u8/16 (|log2 0.16| = 2.64), 16 bins, held at 512M only. i32, which no entry
    // holds, gets a configuration whose binning i32 can run (not the u8/u16-only values or lut): 8 + 2 x log2(999/500)
    // = 9.996 for f32/999 and f64/999 (irregular edges, as the problem's), a tie that the nearer size breaks: f32's
    // 64M entry is the problem's n.
    HistogramRangeProblem u8;
    u8.type = SampleType::u8;
    u8.bins = 100;
    u8.n = 64 << 20;
    const auto c = policy_choice(u8, &h100);
    REQUIRE(c);
    CHECK(c->why.find("histogram_range/u8/bins=16/edges=irregular/n=536870912/") != std::string::npos);
    CHECK(c->config ==
          *Config::parse("histogram_range", "bin=values,priv=shared,R=32,block=1024,vec=16,loads=4,grid=0"));
    HistogramRangeProblem i32 = u8;
    i32.type = SampleType::i32;
    i32.bins = 500;
    const auto d = policy_choice(i32, &h100);
    REQUIRE(d);
    const HistogramRangeConfig* dc = d->config.as<HistogramRangeConfig>();
    REQUIRE(dc);
    CHECK(dc->binning != RangeBinning::values);
    CHECK(dc->binning != RangeBinning::lut);
    CHECK(d->why.find("histogram_range/f32/bins=999/edges=irregular/n=67108864/") != std::string::npos);
    CHECK(d->config ==
          *Config::parse("histogram_range", "bin=prebin,priv=shared,R=1,block=1024,vec=16,loads=4,grid=0"));
    CHECK(Problem(i32).family().violation(Problem(i32), d->config, &h100).empty());
    // Through the lookup with no cache: the policy, never the built-in default.
    const LookupTarget target{h100.model_key(), h100.arch(), h100.sm_count, 0, h100};
    CHECK(untuned_lookup(target, i32).source == ConfigSource::policy);
    CHECK(untuned_lookup(target, u64min).source == ConfigSource::policy);
  }

  TEST_CASE("segmented reductions: the policy serves the closest segment lengths, other types, ops and offsets") {
    const DeviceInfo h100 = test::h100_device("GPU-policy");
    // The benchmark measured f32 sums on seven length distributions (bench/segreduce_bench.cpp): 2K-element segments
    // take the 4K entry (an eighth per doubling: 1 doubling) over fixed:32 (6) or fixed:256K (7).
    SegReduceProblem mid;
    mid.distribution = "fixed:2K";
    mid.n = 64 << 20;
    const auto a = policy_choice(mid, &h100);
    REQUIRE(a);
    CHECK(a->why.find("segreduce/sum/f32/") != std::string::npos);
    CAPTURE(a->why);
    CHECK(a->why.find("dist=fixed:4K") != std::string::npos);
    SegReduceProblem tiny = mid;
    tiny.distribution = "fixed:16";  // as far from fixed:32 as from uniform:0..64 (mean 32): one of those two
    const auto b = policy_choice(tiny, &h100);
    REQUIRE(b);
    CHECK((b->why.find("dist=fixed:32") != std::string::npos || b->why.find("dist=uniform:0..64") != std::string::npos));
    // i32 argmax on power-law lengths: no i32 entry; the f32 argmax of the same lengths (same element size, same op).
    SegReduceProblem i32max;
    i32max.op = SegReduceOp::argmax;
    i32max.type = ValueType::i32;
    i32max.distribution = "power-law";
    i32max.n = 16 << 20;
    const auto c = policy_choice(i32max, &h100);
    REQUIRE(c);
    CHECK(c->why.find("segreduce/argmax/f32/") != std::string::npos);
    CHECK(c->why.find("dist=power-law") != std::string::npos);
    // 64-bit offsets past 2^31 are served too (the configuration runs either width), never the built-in default.
    SegReduceProblem wide = mid;
    wide.offset_bits = 64;
    wide.n = 3ull << 30;
    const auto d = policy_choice(wide, &h100);
    REQUIRE(d);
    CHECK(Problem(wide).family().violation(Problem(wide), d->config, &h100).empty());
    const LookupTarget target{h100.model_key(), h100.arch(), h100.sm_count, 0, h100};
    CHECK(untuned_lookup(target, wide).source == ConfigSource::policy);
  }

  TEST_CASE("a lookup without the device checks configurations against its model's devices row in the cache") {
    // `autotune best --device-model KEY` (no device): a GPU of 16 KiB of shared memory a block, recorded in the cache.
    // f32 with 5000 bins is served the f32/2048 shape's configuration (the next case): 20 KB of 32-bit counters, which
    // this GPU cannot hold; the device's lookup makes it runnable (16-bit counters), and the offline one must agree.
    DeviceInfo small = test::h100_device("GPU-small");
    small.name = "Small GPU";
    small.shared_per_block_optin = 16 * 1024;
    Cache cache(":memory:");
    cache.set_device_roof(small, 1000.0);  // records the devices row
    const HistogramProblem p = f32(5000, 3 << 20);
    const Problem problem(p);
    const LookupTarget offline = LookupTarget::from_model_key(small.model_key());
    REQUIRE_FALSE(offline.device.has_value());
    const Lookup from_row = lookup_config(cache, offline, p);
    CHECK(problem.family().violation(problem, from_row.config, &small).empty());
    const Lookup live = lookup_config(cache, LookupTarget{small.model_key(), small.arch(), small.sm_count, 0, small}, p);
    CHECK(from_row.config == live.config);
    // A cache without the row: nothing rules the 20 KB out.
    const Cache empty(":memory:");
    const Lookup no_row = lookup_config(empty, offline, p);
    CHECK_FALSE(problem.family().violation(problem, no_row.config, &small).empty());
    // The row as recorded, and no row for another model.
    const std::optional<DeviceInfo> row = cache.device(small.model_key());
    REQUIRE(row.has_value());
    CHECK(row->shared_per_block_optin == 16 * 1024);
    CHECK(row->l2_bytes == small.l2_bytes);
    CHECK(row->max_threads_per_block == small.max_threads_per_block);
    CHECK(row->model_key() == small.model_key());
    CHECK_FALSE(cache.device(test::a100_device("GPU-a").model_key()).has_value());
  }

  TEST_CASE("with nothing measured the policy serves, and it is never tuned data") {
    const DeviceInfo h100 = test::h100_device("GPU-policy");
    LookupTarget target{h100.model_key(), h100.arch(), h100.sm_count, 0, h100};
    const Cache empty(":memory:");
    // f32 with 5000 bins at 3M, from the shipped kernel_templates/histogram/policy.json: of its f32 shapes (all over
    // [0,1)), 2048 bins is the closest (|log2(2048/5000)| = 1.29; 64: 6.29; 32768: 2 x 2.71; 262144: 2 x 5.71), and its
    // 20 KB of 32-bit counters fit. Its sizes 4K, 64K, 1M and 16M: 3M is served 16M's configuration (1M's with
    // evict-first loads): runtime/transfer_costs.json predicts less from a larger size than from a smaller one.
    const std::string k64K =
        "priv=shared,R=1,cbits=32,block=512,vec=16,loads=1,agg=none,part=interleaved,merge=self_zero,grid=0";
    const std::string k1M =
        "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,grid=0";
    const std::string k16M = k1M + ",ld=cs";
    const HistogramProblem p = f32(5000, 3 << 20);
    const Lookup l = lookup_config(empty, target, p);
    CHECK(l.source == ConfigSource::policy);
    CHECK(l.config == *Config::parse("histogram", k16M));
    CHECK(l.distance.find("policy fitted for histogram/f32/bins=2048/range=[0,1)/") != std::string::npos);
    CHECK_FALSE(meets(ConfigSource::policy, Requirement::tuned));
    CHECK(meets(ConfigSource::policy, Requirement::any));
    // The table covers every n; its ranges are the policy's sizes, or the built-in default where every policy size
    // is predicted to run worse (far beyond the sizes it was measured at); it agrees with the lookup. At the sizes
    // the chosen shape was measured at, its own entries serve: 64K's configuration at 64K, 1M's at 1M, 16M's at 16M.
    const SizeLookup s = lookup_sizes(empty, target, p);
    REQUIRE(s.sizes.size() >= 2);
    int measured_sizes = 0;
    for (const SizeRange& r : s.sizes)
      for (const auto& [size, config] : {std::pair{1u << 16, k64K}, std::pair{1u << 20, k1M}, std::pair{1u << 24, k16M}})
        if (const unsigned n = size; r.contains(n)) {  // a copy: clang before 16 cannot capture a structured binding
          CAPTURE(n);
          CHECK(r.config == *Config::parse("histogram", config));
          ++measured_sizes;
        }
    CHECK(measured_sizes == 3);
    CHECK(s.sizes.front().n_from == 0);
    CHECK(s.sizes.back().n_to == std::numeric_limits<std::uint64_t>::max());
    for (const SizeRange& r : s.sizes) {
      CHECK((r.source == ConfigSource::policy || r.source == ConfigSource::fallback));
      if (r.source == ConfigSource::policy) CHECK(r.why.rfind("policy: tuned for n=", 0) == 0);
      if (r.contains(p.n)) CHECK(r.config == l.config);
    }
    CHECK(untuned_sizes(target, p).sizes.size() == s.sizes.size());  // without a cache file: the same table
    CHECK(size_table_violation(s.sizes, s.at_hint, p.n, Requirement::tuned).find("measured default policy") !=
          std::string::npos);
    // A reduction of every type and operator has an entry.
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max})
      for (ValueType t : {ValueType::i32, ValueType::u32, ValueType::i64, ValueType::u64, ValueType::f32, ValueType::f64}) {
        ReduceProblem r;
        r.op = op;
        r.type = t;
        r.n = 5'000'000;
        CHECK(lookup_config(empty, target, r).source == ConfigSource::policy);
      }
  }
}

// NVRTC needs no GPU: the reduction variants of each space are compiled here, for the architectures we ship for: one
// pairwise covering of the problems' joint space for sm_90, every configuration value for sm_80 and sm_75 (every
// variant in the nvrtc_full.* tests), each cubin holding both entry points.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/reduce_problem.hpp"
#include "core/jit.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"
#include "kernel_templates/reduce/space.hpp"

using namespace autotune;

namespace {


// A device of compute capability cc with the limits of the smallest GPU we target: what prunes the space for arch.
DeviceInfo device_of(int cc_major, int cc_minor) {
  DeviceInfo d;
  d.name = "test device";
  d.cc_major = cc_major, d.cc_minor = cc_minor;
  d.sm_count = 80;
  d.max_threads_per_block = 1024;
  d.shared_per_block_optin = 96 * 1024;
  return d;
}

// The configurations of the space for `problem` that `device` can run: what prunes the space for its architecture.
std::vector<ReduceConfig> runnable(const ReduceProblem& problem, const DeviceInfo& device) {
  std::vector<ReduceConfig> space;
  for (const auto& c : reduce_space(problem))
    if (reduce_violation(problem, c, &device).empty()) space.push_back(c);
  return space;
}

const std::vector<std::string> kReduceEntryPoints{kReduceKernelName, kReduceFinishKernelName};

ReduceProblem make(ReduceOp op, ValueType t, std::optional<ValueType> acc = std::nullopt, bool deterministic = true) {
  ReduceProblem p;
  p.op = op, p.type = t, p.accumulator = acc, p.deterministic = deterministic;
  return p;
}

// Compiles test::value_coverage() of what an sm_<cc> device runs of `p`'s space (every configuration value at least
// once, every variant under nvrtc_full), each cubin with both entry points.
void check_each_value(const ReduceProblem& p, int cc_major, int cc_minor) {
  const DeviceInfo device = device_of(cc_major, cc_minor);
  const std::vector<ReduceConfig> space = runnable(p, device);
  MESSAGE(p.shape_key(), ": ", test::value_coverage(space).size(), " of ", space.size(), " variants for ",
          device.arch());
  CHECK(!space.empty());
  CHECK(test::compile_each_value(p, space, device.arch(), kReduceEntryPoints) == "");
}

}  // namespace

TEST_SUITE("nvrtc_reduce") {
  // Chosen to cover each kind of code path for sm_90: f32 (vector of four, deterministic), i32 summed in i64
  // (widening, unsigned wrap), f64 max (CAS-free last block, 8-byte elements, NaN rules), u32 min (__reduce_min_sync),
  // u64 sum (64-bit integer atomics) and a fast f32 sum (float atomics, per-thread atomics): one pairwise covering of
  // their joint space (every pair of a problem's value and a configuration value, or of two configuration values,
  // meets in a compiled variant; every variant in the nvrtc_full.* tests). The u32 space, the largest, is compiled for
  // sm_80 as well, and sm_75, the oldest architecture CUDA 13's NVRTC knows (it dropped sm_70), gets the f32 fast
  // space (every finish and block reduction except warp_reduce, which the device check prunes): there each
  // configuration value at least once, since what differs between architectures is whether one construct compiles,
  // and how the values combine is checked on sm_90.
  TEST_CASE("the f32 sum, i32 sum (into i64), f64 max, u32 min, u64 sum and fast f32 sum variants compile for sm_90: "
            "one pairwise covering of the six problems' joint space, every variant under nvrtc_full") {
    const std::vector<ReduceProblem> problems{
        make(ReduceOp::sum, ValueType::f32), make(ReduceOp::sum, ValueType::i32), make(ReduceOp::max, ValueType::f64),
        make(ReduceOp::min, ValueType::u32), make(ReduceOp::sum, ValueType::u64),
        make(ReduceOp::sum, ValueType::f32, std::nullopt, false)};
    std::vector<std::vector<ReduceConfig>> spaces;
    for (const ReduceProblem& p : problems) {
      spaces.push_back(runnable(p, device_of(9, 0)));
      CHECK_MESSAGE(!spaces.back().empty(), p.shape_key());
    }
    CHECK(test::compile_all_joint(problems, spaces, "sm_90", kReduceEntryPoints) == "");
  }
  TEST_CASE("the u32 min variants compile for sm_80 and the fast f32 sum variants for sm_75: every configuration "
            "value at least once, every variant under nvrtc_full") {
    check_each_value(make(ReduceOp::min, ValueType::u32), 8, 0);
    check_each_value(make(ReduceOp::sum, ValueType::f32, std::nullopt, false), 7, 5);
  }

  TEST_CASE("the generated preamble carries the problem's types and the configuration's constants") {
    ReduceConfig c;
    c.block_reduce = BlockReduce::shared_tree;
    c.block = 512;
    c.vec_bytes = 8;
    c.loads = 4;
    c.accumulators = 2;
    c.finish = Finish::two_pass;
    c.grid_blocks = -1;
    std::string src = kernel_source(make(ReduceOp::sum, ValueType::i32), c);
    CHECK(src.find("typedef int in_t;") != std::string::npos);
    CHECK(src.find("typedef long long acc_t;") != std::string::npos);
    CHECK(src.find("typedef unsigned long long work_t;") != std::string::npos);  // integer sums wrap unsigned
    CHECK(src.find("constexpr ReduceOp kOp = ReduceOp::sum;") != std::string::npos);
    CHECK(src.find("enum class Finish { atomic = 0, last_block = 1, two_pass = 2, atomic_last = 3 };") != std::string::npos);
    CHECK(src.find("constexpr int kBlock = 512;") != std::string::npos);
    CHECK(src.find("constexpr int kVecBytes = 8;") != std::string::npos);
    CHECK(src.find("constexpr int kLoads = 4;") != std::string::npos);
    CHECK(src.find("constexpr int kAccumulators = 2;") != std::string::npos);
    CHECK(src.find("constexpr BlockReduce kBlockReduce = BlockReduce::shared_tree;") != std::string::npos);
    CHECK(src.find("constexpr Finish kFinish = Finish::two_pass;") != std::string::npos);
    CHECK(src.find("constexpr bool kSingleBlock = false;") != std::string::npos);
    // The workspace layout, from the one definition the launcher sizes the workspace with.
    CHECK(src.find("constexpr int kPartialsOffset = 256;") != std::string::npos);
    CHECK(src.find("constexpr int kTicketOffset = 0;") != std::string::npos);
    // One element per load: the element's own size. min of f32: +inf is the identity, 0x7fc00000 the NaN.
    c = ReduceConfig{};
    c.vec_bytes = 0;
    src = kernel_source(make(ReduceOp::min, ValueType::f32), c);
    CHECK(src.find("constexpr int kVecBytes = 4;") != std::string::npos);
    CHECK(src.find("typedef float work_t;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0x7f800000ULL;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kNaNBits = 0x7fc00000ULL;") != std::string::npos);
    // max of i64: the identity is the smallest value.
    src = kernel_source(make(ReduceOp::max, ValueType::i64), ReduceConfig{});
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0x8000000000000000ULL;") != std::string::npos);
  }

  TEST_CASE("the source does not depend on n: every size of one reduction shares its cubins") {
    ReduceProblem a = make(ReduceOp::sum, ValueType::f32), b = a;
    a.n = 1000, b.n = 1 << 28;
    CHECK(kernel_source(a, ReduceConfig{}) == kernel_source(b, ReduceConfig{}));
  }

  TEST_CASE("an invalid configuration never reaches NVRTC, and the template's static_asserts back that up") {
    ReduceConfig c;
    c.block_reduce = BlockReduce::warp_reduce;
    CHECK_THROWS_AS(kernel_source(make(ReduceOp::sum, ValueType::f32), c), UsageError);
    ReduceProblem bad = make(ReduceOp::min, ValueType::f32, ValueType::f64);
    CHECK_THROWS_AS(kernel_source(bad, ReduceConfig{}), UsageError);

    // Hand-edited preambles, as a host bug would write them: the template itself refuses them.
    auto compile_edited = [](const ReduceProblem& p, const ReduceConfig& cfg, const std::string& from,
                             const std::string& to, const std::string& arch) {
      std::string src = kernel_source(p, cfg);
      const auto at = src.find(from);
      REQUIRE(at != std::string::npos);
      src.replace(at, from.size(), to);
      return jit::compile(src, "bad.cu", arch);
    };
    const ReduceProblem f32 = make(ReduceOp::sum, ValueType::f32);
    auto r = compile_edited(f32, ReduceConfig{}, "kBlockReduce = BlockReduce::warp_shuffle;",
                            "kBlockReduce = BlockReduce::warp_reduce;", "sm_90");
    CHECK_FALSE(r.ok);
    CHECK(r.log.find("32-bit integers only") != std::string::npos);
    r = compile_edited(f32, ReduceConfig{}, "constexpr int kBlock = 256;", "constexpr int kBlock = 48;", "sm_90");
    CHECK_FALSE(r.ok);
    CHECK(r.log.find("multiple of 32") != std::string::npos);
    // warp_reduce is fine for i32 into i32 on sm_80, refused on sm_75 (the device check prunes it first).
    c.block_reduce = BlockReduce::warp_reduce;
    const ReduceProblem i32 = make(ReduceOp::sum, ValueType::i32, ValueType::i32);
    CHECK(jit::compile(kernel_source(i32, c), "ok.cu", "sm_80").ok);
    r = jit::compile(kernel_source(i32, c), "bad.cu", "sm_75");
    CHECK_FALSE(r.ok);
    CHECK(r.log.find("needs sm_80") != std::string::npos);
  }
}

// core/space_decl.hpp, a search space declared as groups of value lists, on a configuration of its own; and the
// families' launchers against their one validity function (the families' spaces are tested in their suites).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "core/space_decl.hpp"
#include "kernel_templates/argreduce/launcher.hpp"
#include "kernel_templates/argreduce/space.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/histogram_range/launcher.hpp"
#include "kernel_templates/histogram_range/space.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "kernel_templates/segreduce/launcher.hpp"
#include "kernel_templates/segreduce/space.hpp"

using namespace autotune;
namespace sd = autotune::space_decl;

namespace {

enum class Shade { light, dark };

struct Toy {
  int block = 256;
  int loads = 2;
  Shade shade = Shade::light;
  bool operator==(const Toy&) const = default;
};

struct ToyProblem {
  std::uint64_t n = 0;
};

// Refuses three loads whatever the device, and, with a device, blocks past its threads per block.
std::string toy_violation(const ToyProblem&, const Toy& c, const DeviceInfo* device) {
  if (c.loads == 3) return "three loads";
  if (device && c.block > device->max_threads_per_block) return "too many threads";
  return {};
}

bool large(const ToyProblem& p) { return p.n > 10; }

// A configuration as "block/loads/shade" (shade L or D), so that a whole space compares as one list.
std::vector<std::string> texts(const std::vector<Toy>& configs) {
  std::vector<std::string> out;
  for (const Toy& c : configs)
    out.push_back(std::to_string(c.block) + "/" + std::to_string(c.loads) + "/" +
                  (c.shade == Shade::light ? "L" : "D"));
  return out;
}
using Texts = std::vector<std::string>;

constexpr auto L = Shade::light;
constexpr auto D = Shade::dark;

// A group that names one field twice is refused while the group is being made, so a constant group fails to compile.
static_assert(sd::expansion::sets_a_field_twice(sd::values(&Toy::block, {64}), sd::fixed(&Toy::block, 128)));
static_assert(!sd::expansion::sets_a_field_twice(sd::values(&Toy::block, {64}), sd::fixed(&Toy::loads, 1)));

}  // namespace

TEST_SUITE("config") {
  TEST_CASE("a group expands as the product of its axes, the first axis varying slowest") {
    constexpr auto s =
        sd::space(toy_violation, sd::group(sd::values(&Toy::block, {64, 128}), sd::values(&Toy::loads, {1, 2, 4})));
    CHECK(texts(sd::expand(s, ToyProblem{})) == Texts{"64/1/L", "64/2/L", "64/4/L", "128/1/L", "128/2/L", "128/4/L"});
  }

  TEST_CASE(
      "fields declared together take their rows side by side, and fields a group leaves out keep their defaults") {
    constexpr auto s = sd::space(
        toy_violation,
        sd::group(sd::fields(&Toy::block, &Toy::loads).rows({{64, 1}, {512, 8}}), sd::values(&Toy::shade, {D, L})));
    CHECK(texts(sd::expand(s, ToyProblem{})) == Texts{"64/1/D", "64/1/L", "512/8/D", "512/8/L"});
    constexpr auto only_shade = sd::space(toy_violation, sd::group(sd::fixed(&Toy::shade, D)));
    CHECK(texts(sd::expand(only_shade, ToyProblem{})) == Texts{"256/2/D"});
  }

  TEST_CASE("groups expand in their declared order, each only for the problems its predicate accepts") {
    constexpr auto s =
        sd::space(toy_violation, sd::group(sd::values(&Toy::block, {64, 128})),
                  sd::group(sd::fixed(&Toy::shade, D)).only_if(large), sd::group(sd::fixed(&Toy::loads, 8)));
    CHECK(texts(sd::expand(s, ToyProblem{5})) == Texts{"64/2/L", "128/2/L", "256/8/L"});
    CHECK(texts(sd::expand(s, ToyProblem{20})) == Texts{"64/2/L", "128/2/L", "256/2/D", "256/8/L"});
  }

  TEST_CASE("a candidate the validity function refuses, alone or on the largest target GPU, is left out") {
    constexpr auto s = sd::space(
        toy_violation, sd::group(sd::values(&Toy::block, {512, 1024, 2048}), sd::values(&Toy::loads, {2, 3})));
    CHECK(texts(sd::expand(s, ToyProblem{})) == Texts{"512/2/L", "1024/2/L"});
  }

  TEST_CASE("a candidate met twice stays where it was first met") {
    constexpr auto s = sd::space(toy_violation, sd::group(sd::values(&Toy::loads, {4, 1})),
                                 sd::group(sd::values(&Toy::block, {64, 256, 512}), sd::fixed(&Toy::loads, 1)));
    CHECK(texts(sd::expand(s, ToyProblem{})) == Texts{"256/4/L", "256/1/L", "64/1/L", "512/1/L"});
  }

  TEST_CASE("starting_with puts its configuration first and leaving_out drops valid ones") {
    constexpr auto s = sd::space(toy_violation, sd::group(sd::values(&Toy::block, {64, 128, 256})))
                           .starting_with([](const ToyProblem&) {
                             return Toy{128, 16, D};
                           })
                           .leaving_out([](const ToyProblem&, const Toy& c) { return c.block == 64; });
    CHECK(texts(sd::expand(s, ToyProblem{})) == Texts{"128/16/D", "128/2/L", "256/2/L"});
  }

  TEST_CASE("the space at any n is the space at n = 0, then what the largest n adds") {
    static constexpr auto s = sd::space(toy_violation, sd::group(sd::fixed(&Toy::block, 64)).only_if(large),
                                        sd::group(sd::values(&Toy::block, {128, 64})));
    auto space = [](const ToyProblem& p) { return sd::expand(s, p); };
    CHECK(texts(sd::any_n<ToyProblem, Toy>(ToyProblem{}, +space)) == Texts{"128/2/L", "64/2/L"});
  }
}

namespace {

// A GPU that refuses much: sm_70, 512 threads and 48 KiB of shared memory per block.
DeviceInfo small_gpu() {
  DeviceInfo d;
  d.name = "small test GPU";
  d.cc_major = 7;
  d.sm_count = 8;
  d.max_threads_per_block = 512;
  d.shared_per_block_optin = 48 * 1024;
  return d;
}

// How many of `configs` the validity function refuses on `device` (`refused`) and, of those, how many the launcher
// `make(config)` does not refuse with a UsageError that gives the function's reason.
template <class P, class C, class Make>
int launcher_misses(const P& problem, const std::vector<C>& configs, const DeviceInfo& device,
                    std::string (*violation)(const P&, const C&, const DeviceInfo*), Make&& make, int& refused) {
  int misses = 0;
  for (const C& c : configs) {
    const std::string why = violation(problem, c, &device);
    if (why.empty()) continue;  // a valid configuration needs a GPU to load
    ++refused;
    try {
      make(c);
      ++misses;
    } catch (const UsageError& e) {
      if (std::string(e.what()).find(why) == std::string::npos) {
        MESSAGE(c.key() << ": " << e.what() << " lacks " << why);
        ++misses;
      }
    }
  }
  return misses;
}

// The space of `problem` with a configuration invalid for any device added.
template <class C>
std::vector<C> with_invalid(std::vector<C> configs) {
  C c;
  c.block = 48;  // not a multiple of 32 (histograms), below 64 (reductions)
  configs.push_back(c);
  return configs;
}

}  // namespace

TEST_SUITE("config") {
  TEST_CASE("a launcher refuses every configuration its family's validity function refuses, giving the reason") {
    const DeviceInfo d = small_gpu();
    const std::vector<char> cubin;
    int refused = 0;
    HistogramProblem h;
    h.n = 1 << 20;
    CHECK(launcher_misses(
              h, with_invalid(space_decl::any_n(h, histogram_space)), d, histogram_violation,
              [&](const HistogramConfig& c) { HistogramKernel(h, c, d, cubin, false); }, refused) == 0);
    HistogramRangeProblem r;
    r.n = 1 << 20;
    CHECK(launcher_misses(
              r, with_invalid(space_decl::any_n(r, histogram_range_space)), d, histogram_range_violation,
              [&](const HistogramRangeConfig& c) { HistogramRangeKernel(r, c, d, cubin, false); }, refused) == 0);
    ReduceProblem s;
    s.op = ReduceOp::min, s.type = ValueType::i32, s.n = 1 << 16;
    CHECK(launcher_misses(
              s, with_invalid(reduce_space(s)), d, reduce_violation,
              [&](const ReduceConfig& c) { ReduceKernel(s, c, d, cubin); }, refused) == 0);
    ArgReduceProblem a;
    a.n = 1 << 16;
    CHECK(launcher_misses(
              a, with_invalid(argreduce_space(a)), d, argreduce_violation,
              [&](const ArgReduceConfig& c) { ArgReduceKernel(a, c, d, cubin); }, refused) == 0);
    SegReduceProblem g;
    g.n = 1 << 20, g.distribution = "fixed:32";
    CHECK(launcher_misses(
              g, with_invalid(segreduce_space(g)), d, segreduce_violation,
              [&](const SegReduceConfig& c) { SegReduceKernel(g, c, d, cubin); }, refused) == 0);
    // Each family's space holds what this GPU refuses (1024 threads, clusters, warp_reduce before sm_80, ...).
    CHECK(refused > 5 * 2);
  }
}

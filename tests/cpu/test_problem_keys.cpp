// Problem keys printed and read from each family's table (core/problem_key.hpp): every problem the families name
// (their defaults, the standard preset, their policies' problems) and keys chosen for their irregular parts print,
// parse and print back to the same text; malformed keys are refused.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "autotune/problem.hpp"
#include "core/enum_text.hpp"
#include "core/family.hpp"
#include "core/key_text.hpp"
#include "core/problem_key.hpp"

using namespace autotune;

namespace {

const KernelFamily& family_of(std::string_view key) { return *find_family(key.substr(0, key.find('/'))); }

// key -> parse -> key (and the shape key of the problem read back is that of the one printed).
void check_round_trip(const Problem& p) {
  const std::string key = p.key();
  CAPTURE(key);
  const auto back = p.family().parse_problem(key);
  REQUIRE(back.has_value());
  CHECK(back->key() == key);
  CHECK(back->shape_key() == p.shape_key());
  CHECK(Problem::parse(key).has_value());
}

bool refused(std::string_view key) { return !family_of(key).parse_problem(key).has_value(); }

}  // namespace

TEST_CASE("problem keys: every family's named problems print, parse and print back the same") {
  int checked = 0;
  for (const KernelFamily* f : families()) {
    CAPTURE(f->name());
    std::vector<Problem> problems = f->default_problems();
    for (Problem& p : f->preset_problems("standard")) problems.push_back(std::move(p));
    // A family without a shipped policy (a plugin's, such as test_plugin.cpp's "fill", once that test has loaded it
    // into this process's registry) has no entries to read.
    const auto policy = f->policy_data().empty() ? nlohmann::json{{"entries", nlohmann::json::array()}}
                                                 : nlohmann::json::parse(f->policy_data());
    for (const auto& entry : policy.at("entries")) {
      const auto p = f->parse_problem(entry.at("problem").get<std::string>());
      REQUIRE(p.has_value());
      CHECK(p->key() == entry.at("problem").get<std::string>());
      problems.push_back(*p);
    }
    for (const Problem& p : problems) check_round_trip(p);
    checked += static_cast<int>(problems.size());
  }
  CHECK(checked > 100);
}

TEST_CASE("problem keys: keys of the irregular parts round-trip") {
  const char* keys[] = {
      "reduce/user:0123456789abcdef/f32/acc=f32/n=1048576/dist=uniform",
      "reduce/user:fedcba9876543210/i8/acc=i32/n=7/dist=sorted",
      "reduce/sum/f32/acc=f32/n=1048576/dist=uniform/mode=fast",
      "reduce/sum/f16/acc=f32/n=268435456/dist=constant/mode=fast",
      "reduce/sum/i32/acc=i64/n=18446744073709551615/dist=uniform",
      "reduce/absmax/i16/acc=u32/n=4096/dist=sorted",
      "segreduce/user:00000000ffffffff/f64/acc=f64/n=1000/dist=fixed:32",
      "segreduce/sum/i8/acc=i64/n=4294967296/dist=power-law:1..64K/offsets=64",
      "segreduce/argmax/bf16/acc=bf16/n=65536/dist=uniform:0..100",
      "argreduce/argmin/i64/n=1000003/dist=skewed",
      "argreduce/argmax/f16/n=0/dist=uniform",
      "histogram/f64/bins=1000/range=[-2.5,7.25)/n=1000/dist=image",
      "histogram/f32/bins=10/range=[0.1,0.30000000000000004)/n=5/dist=uniform",
      "histogram/f32/bins=1024/range=[-1e-07,1e+20)/n=5/dist=runs/counters=64",
      "histogram/u8/bins=256/range=[0,256)/n=1000/dist=uniform/channels=4/active=3",
      "histogram/u8/bins=256/range=[0,256)/n=1000/dist=uniform/channels=4/active=3/ch1=64:[0,256)/ch2=17:[10,200)",
      "histogram/u16/bins=64/range=[0,65536)/n=8/dist=narrow/counters=64/channels=2/active=2/ch1=3:[1,4)",
      "histogram/u8/bins=256/range=[0,256)/n=3072000/dist=uniform/channels=4/active=3/row=7680/stride=32768",
      "histogram/u8/bins=256/range=[0,256)/n=100/dist=uniform/row=10/stride=64",
      "histogram_range/u8/bins=255/edges=irregular/n=67108864/dist=uniform/counters=64/channels=4/active=3/ch1=63/"
      "ch2=16",
      "histogram_range/f32/bins=999/edges=even/n=16777216/dist=uniform/channels=2/active=2",
      "histogram_range/u16/bins=65536/edges=irregular/n=9007199254740993/dist=uniform",
  };
  for (std::string_view key : keys) {
    CAPTURE(key);
    const auto p = family_of(key).parse_problem(key);
    REQUIRE(p.has_value());
    CHECK(p->key() == key);
  }
  // A user operator's hash survives the trip; fast mode is kept only where it means something.
  const auto user = Problem::parse("reduce/user:0123456789abcdef/f32/acc=f32/n=1048576/dist=uniform");
  REQUIRE(user.has_value());
  CHECK(user->key().find("user:0123456789abcdef") != std::string::npos);
}

TEST_CASE("problem keys: malformed keys are refused") {
  const char* keys[] = {
      // unknown part
      "argreduce/argmax/f32/n=10/dist=uniform/acc=f32",
      "reduce/sum/f32/acc=f32/n=1/dist=uniform/colour=red",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/ch4=1:[0,1)",
      "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/range=[0,1)",
      // repeated part
      "reduce/sum/f32/acc=f32/n=1/n=1/dist=uniform",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/dist=uniform",
      "segreduce/sum/f32/acc=f32/n=1/dist=fixed:1/offsets=64/offsets=64",
      // non-canonical numbers and spellings
      "reduce/sum/f32/acc=f32/n=01/dist=uniform",
      "reduce/sum/f32/acc=f32/n=+1/dist=uniform",
      "reduce/sum/f32/acc=f32/n=18446744073709551616/dist=uniform",
      "histogram/u8/bins=0256/range=[0,256)/n=1/dist=uniform",
      "histogram/u8/bins=256/range=[0,256.0)/n=1/dist=uniform",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4/active=2/ch1=064:[0,256)",
      "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/channels=4/active=2/ch1=07",
      // defaults spelled out, parts out of order
      "reduce/sum/f32/acc=f32/n=1/dist=uniform/mode=deterministic",
      "reduce/sum/i32/acc=i64/n=1/dist=uniform/mode=fast",
      "reduce/sum/f32/n=1/acc=f32/dist=uniform",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/counters=32",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=1/active=1",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4/active=2/ch1=256:[0,256)",
      "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/channels=2/active=2/ch1=255",
      "segreduce/sum/f32/acc=f32/n=1/dist=fixed:1/offsets=32",
      // missing parts
      "reduce/sum/f32/n=1/dist=uniform",
      "argreduce/argmax/f32/n=10",
      "argreduce/argmax/f32/dist=uniform",
      "histogram/u8/bins=256/n=1/dist=uniform",
      "histogram/u8/bins=256/range=[0,256)/n=100/dist=uniform/row=10",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4/active=3/ch1=64:[0,256)",
      "histogram_range/u8/bins=255/n=1/dist=uniform",
      "argreduce/argmax",
      // values outside their tables or ranges
      "reduce/user/f32/acc=f32/n=1/dist=uniform",
      "reduce/user:0123456789ABCDEF/f32/acc=f32/n=1/dist=uniform",
      "argreduce/max/f32/n=10/dist=uniform",
      "argreduce/argmax/u8/n=10/dist=uniform",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=2/active=3",
      "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=5/active=1",
      "histogram/u8/bins=16777217/range=[0,256)/n=1/dist=uniform",
      "histogram_range/u8/bins=257/edges=even/n=1/dist=uniform",
      "histogram_range/u8/bins=255/edges=odd/n=1/dist=uniform",
      "segreduce/sum/f32/acc=f32/n=1/dist=zipf",
  };
  for (std::string_view key : keys) {
    CAPTURE(key);
    CHECK(refused(key));
  }
}

namespace {

struct Shape {
  static constexpr std::string_view kFamily = "shape";
  int sides = 3;
  std::string colour = "red";
  std::uint64_t n = 0;
  std::string distribution = "uniform";
  bool operator==(const Shape&) const = default;
  std::string key() const;
};
constexpr enum_text::Name<int> kSides[] = {{3, "triangle"}, {4, "square"}};
constexpr auto kShapeKey = std::tuple{problem_key::choice("sides", &Shape::sides, kSides).omitted_at(3),
                                      problem_key::size<Shape>(), problem_key::distribution<Shape>()};
std::string Shape::key() const { return problem_key::key(*this, kShapeKey); }

std::optional<Shape> parse_shape(std::string_view text) {
  return problem_key::parse(key_text::problem_parts(text), kShapeKey, &Shape::key);
}

}  // namespace

TEST_CASE("problem keys: the generic table on a problem of its own") {
  Shape s{.sides = 4, .n = 12};
  CHECK(s.key() == "shape/sides=square/n=12/dist=uniform");
  CHECK(problem_key::shape_key(s, kShapeKey) == "shape/sides=square/dist=uniform");
  CHECK(parse_shape("shape/sides=square/n=12/dist=uniform") == s);
  CHECK(parse_shape("shape/n=0/dist=uniform") == Shape{});
  CHECK_FALSE(parse_shape("shape/sides=triangle/n=0/dist=uniform"));  // a default spelled out
  CHECK_FALSE(parse_shape("shape/sides=pentagon/n=0/dist=uniform"));
  CHECK_FALSE(parse_shape("shape/dist=uniform/n=0"));                  // out of order
  CHECK_FALSE(parse_shape("shape/square/n=0/dist=uniform"));          // no positional part
  CHECK_FALSE(parse_shape("shape/n=0"));                               // missing
  CHECK_FALSE(parse_shape("shape/n=0/n=0/dist=uniform"));              // repeated
  CHECK(problem_key::names(kShapeKey) == std::vector<std::string_view>{"sides", "n", "dist"});
}

namespace {

// A problem of two intervals' worth of parts: "[lo,hi)" of two members, and two parts held both or neither.
struct Window {
  static constexpr std::string_view kFamily = "window";
  double lower = 0, upper = 1;
  std::uint64_t row = 0, stride = 0;
  bool operator==(const Window&) const = default;
  std::string key() const;
};
constexpr auto kWindowKey = std::tuple{
    problem_key::interval("range", &Window::lower, &Window::upper),
    problem_key::both(problem_key::number("row", &Window::row, 1, ~std::uint64_t{0}),
                      problem_key::number("stride", &Window::stride, 0, ~std::uint64_t{0}), 0)};
std::string Window::key() const { return problem_key::key(*this, kWindowKey); }

std::optional<Window> parse_window(std::string_view text) {
  return problem_key::parse(key_text::problem_parts(text), kWindowKey, &Window::key);
}

}  // namespace

TEST_CASE("problem keys: an interval part and two parts held both or neither") {
  CHECK(Window{}.key() == "window/range=[0,1)");
  const Window w{.lower = -2.5, .upper = 1e30, .row = 640, .stride = 2560};
  CHECK(w.key() == "window/range=[-2.5,1e+30)/row=640/stride=2560");
  CHECK(parse_window(w.key()) == w);
  CHECK(parse_window("window/range=[0,1)") == Window{});
  CHECK(problem_key::Interval{}.value("[0.5,2)") == std::pair{0.5, 2.0});
  CHECK_FALSE(parse_window("window/range=[0,1]"));                  // not half-open
  CHECK_FALSE(parse_window("window/range=[0;1)"));                  // no comma
  CHECK_FALSE(parse_window("window/range=[x,1)"));                  // not a number
  CHECK_FALSE(parse_window("window/range=[0,1)/row=640"));          // one of the two
  CHECK_FALSE(parse_window("window/range=[0,1)/stride=4"));         // the other one alone
  CHECK_FALSE(parse_window("window/range=[0,1)/row=0/stride=0"));   // row's minimum is 1
  CHECK(problem_key::names(kWindowKey) == std::vector<std::string_view>{"range", "row"});
}

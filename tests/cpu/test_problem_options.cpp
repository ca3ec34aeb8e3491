// core/problem_options.hpp, a family's command-line problem options declared as a table, on a problem type of its
// own (the families' options are tested through their make_problem and command_options in their suites and in
// test_cli.cpp).
#include <doctest/doctest.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "autotune/error.hpp"
#include "core/enum_text.hpp"
#include "core/problem_options.hpp"

namespace {

using namespace autotune;

enum class Fruit { apple, pear, plum };
constexpr enum_text::Name<Fruit> kFruitNames[] = {
    {Fruit::apple, "apple"}, {Fruit::pear, "pear"}, {Fruit::plum, "plum"}};
constexpr enum_text::Name<int> kWidths[] = {{32, "32"}, {64, "64"}};
constexpr enum_text::Name<bool> kSpeeds[] = {{false, "slow"}, {true, "quick"}};

struct Basket {
  static constexpr std::string_view kFamily = "basket";
  Fruit fruit = Fruit::pear;
  std::optional<Fruit> garnish;
  int width = 32;
  bool quick = false;
  std::string label = "none";
  std::uint64_t n = 0;
  std::string distribution = "uniform";
  int label_reads = 0;  // how often the custom reader ran
  std::uint64_t n_seen_by_label = 0;
};

// A custom option: "--label TEXT", refused when empty, printed unless "none"; read after the size.
void read_label(const ProblemOptions& o, Basket& b) {
  ++b.label_reads;
  b.n_seen_by_label = b.n;
  if (o.count("label") == 0) return;
  if (o.at("label").empty()) throw UsageError("--label: empty");
  b.label = o.at("label");
}
void print_label(std::string& out, const Basket& b) {
  if (b.label != "none") out += " --label " + b.label;
}

constexpr auto kOptions = std::tuple{
    problem_options::choice("fruit", "F", "the fruit (required)", &Basket::fruit, kFruitNames, "fruit")
        .required()
        .unless("mystery"),
    problem_options::choice("garnish", "F", "a second fruit", &Basket::garnish, kFruitNames, "fruit"),
    problem_options::choice("width", "BITS", "32 (default) or 64", &Basket::width, kWidths).omitted_at(32),
    problem_options::choice("speed", "S", "slow or quick", &Basket::quick, kSpeeds).expected("quick or slow"),
    problem_options::custom<Basket>("label", "TEXT", "a label", read_label, print_label).after_size(),
    problem_options::custom<Basket>("note", "TEXT", "read by the family itself")};

Basket read(ProblemOptions o) {
  if (o.count("n") == 0) o["n"] = "4K";
  Basket b;
  problem_options::read(o, b, kOptions);
  return b;
}

}  // namespace

TEST_SUITE("config") {
  TEST_CASE("an option table lists its help rows in table order") {
    const std::vector<ProblemParameter> rows = problem_options::parameters(kOptions);
    REQUIRE(rows.size() == 6);
    CHECK(rows[0].name == "fruit");
    CHECK(rows[0].value_name == "F");
    CHECK(rows[0].help == "the fruit (required)");
    CHECK(rows[3].name == "speed");
    CHECK(rows[5].name == "note");
    CHECK(rows[5].help == "read by the family itself");
  }

  TEST_CASE("an option table reads the options given and keeps the defaults of the others") {
    const Basket b = read({{"fruit", "plum"}, {"n", "1M"}, {"dist", "runs"}});
    CHECK(b.fruit == Fruit::plum);
    CHECK(!b.garnish);
    CHECK(b.width == 32);
    CHECK(!b.quick);
    CHECK(b.label == "none");
    CHECK(b.n == 1048576);
    CHECK(b.distribution == "runs");
    const Basket c = read({{"fruit", "apple"}, {"garnish", "pear"}, {"width", "64"}, {"speed", "quick"},
                           {"label", "gift"}, {"note", "ignored here"}});
    CHECK(c.fruit == Fruit::apple);
    CHECK(c.garnish == Fruit::pear);
    CHECK(c.width == 64);
    CHECK(c.quick);
    CHECK(c.label == "gift");
    CHECK(c.distribution == "uniform");
  }

  TEST_CASE("a custom option runs once, given or not, after the size when it asks to") {
    const Basket b = read({{"fruit", "plum"}, {"n", "2K"}});
    CHECK(b.label_reads == 1);
    CHECK(b.n_seen_by_label == 2048);
  }

  TEST_CASE("command options print what the table reads back to the same problem") {
    Basket b;
    b.fruit = Fruit::apple;
    CHECK(problem_options::print(b, kOptions) == "--fruit apple --speed slow");
    b.garnish = Fruit::plum;
    b.width = 64;
    b.quick = true;
    b.label = "gift";
    const std::string text = problem_options::print(b, kOptions);
    CHECK(text == "--fruit apple --garnish plum --width 64 --speed quick --label gift");
    const Basket back = read({{"fruit", "apple"}, {"garnish", "plum"}, {"width", "64"}, {"speed", "quick"},
                              {"label", "gift"}});
    CHECK(back.fruit == b.fruit);
    CHECK(back.garnish == b.garnish);
    CHECK(back.width == b.width);
    CHECK(back.quick == b.quick);
    CHECK(back.label == b.label);
  }

  TEST_CASE("a required option's absence is refused with what it takes") {
    const char* missing = "--fruit is required for --kernel basket (apple, pear, plum), or --mystery";
    CHECK_THROWS_WITH_AS(read({}), missing, UsageError);
    CHECK_THROWS_WITH_AS(read({{"garnish", "plum"}}), missing, UsageError);
  }

  TEST_CASE("an option replaced by another is not read, not even when refused") {
    const Basket b = read({{"mystery", "x"}, {"fruit", "kiwi"}});
    CHECK(b.fruit == Fruit::pear);
  }

  TEST_CASE("a value outside the table is refused naming the option and the known values") {
    CHECK_THROWS_WITH_AS(read({{"fruit", "kiwi"}}),
                         "--fruit: unknown fruit 'kiwi' (known: apple, pear, plum; or --mystery)", UsageError);
    CHECK_THROWS_WITH_AS(read({{"fruit", "Apple"}}),
                         "--fruit: unknown fruit 'Apple' (known: apple, pear, plum; or --mystery)", UsageError);
    CHECK_THROWS_WITH_AS(read({{"fruit", "pear"}, {"garnish", ""}}),
                         "--garnish: unknown fruit '' (known: apple, pear, plum)", UsageError);
    CHECK_THROWS_WITH_AS(read({{"fruit", "pear"}, {"width", "16"}}), "--width: '16' is not 32 or 64", UsageError);
    CHECK_THROWS_WITH_AS(read({{"fruit", "pear"}, {"width", "032"}}), "--width: '032' is not 32 or 64", UsageError);
    CHECK_THROWS_WITH_AS(read({{"fruit", "pear"}, {"speed", "fast"}}), "--speed: 'fast' is not quick or slow",
                         UsageError);
    CHECK_THROWS_WITH_AS(read({{"fruit", "pear"}, {"label", ""}}), "--label: empty", UsageError);
  }

  TEST_CASE("errors come in table order, the size between the early options and the late ones") {
    CHECK_THROWS_WITH_AS(read({{"fruit", "kiwi"}, {"width", "16"}}),
                         "--fruit: unknown fruit 'kiwi' (known: apple, pear, plum; or --mystery)", UsageError);
    CHECK_THROWS_WITH_AS(read({{"fruit", "pear"}, {"n", "lots"}, {"width", "16"}}), "--width: '16' is not 32 or 64",
                         UsageError);
    CHECK_THROWS_WITH_AS(read({{"fruit", "pear"}, {"n", "lots"}, {"label", ""}}),
                         "'lots' is not a size (digits, an optional decimal fraction and an optional K, M or G suffix, "
                         "e.g. 1000, 64K, 1.5M, 1G)",
                         UsageError);
  }

  TEST_CASE("every family's option table names each option once") {
    for (const KernelFamily* f : families()) {
      std::set<std::string> names;
      for (const ProblemParameter& p : f->problem_parameters()) {
        CAPTURE(p.name);
        CHECK(names.insert(p.name).second);
        CHECK(!p.help.empty());
        CHECK(!p.value_name.empty());
      }
    }
  }
}

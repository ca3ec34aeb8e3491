// core/config_fields.hpp, the generic key of a configuration declared as a table, and the preamble's constants the
// table declares (kernel_templates/preamble.hpp), on a configuration of its own (the families' keys are tested in
// their suites: test_config.cpp, test_histogram_range.cpp, test_reduction.cpp).
#include <doctest/doctest.h>

#include <stdexcept>
#include <string_view>
#include <tuple>

#include "autotune/histogram_problem.hpp"
#include "core/config_adapt.hpp"
#include "core/config_fields.hpp"
#include "core/family.hpp"
#include "embedded.hpp"
#include "kernel_templates/preamble.hpp"

namespace {

enum class Shade { light, dark, grey };
std::string_view to_string(Shade s) {
  switch (s) {
    case Shade::light: return "light";
    case Shade::dark: return "dark";
    case Shade::grey: return "grey";
  }
  return "?";
}
constexpr Shade kShades[] = {Shade::light, Shade::dark, Shade::grey};

struct Toy {
  Shade shade = Shade::dark;
  int size = 7;
  int depth = 1;
  Shade edge = Shade::light;
  int untouched = 42;  // not in the table: parse() leaves the default
  bool lit = false;
  bool operator==(const Toy&) const = default;
};

using namespace autotune;

constexpr auto kToyFields = std::tuple{config_fields::choice("shade", &Toy::shade, kShades),
                                       config_fields::number("size", &Toy::size, -1),
                                       config_fields::number("depth", &Toy::depth, 1).omitted_at(1),
                                       config_fields::choice("edge", &Toy::edge, kShades).omitted_at(Shade::light),
                                       config_fields::flag("lit", &Toy::lit, "yes")};

std::optional<Toy> parse(std::string_view key) { return config_fields::parse<Toy>(key, kToyFields); }

}  // namespace

TEST_SUITE("config") {
  TEST_CASE("a field table prints its fields in table order and leaves defaulted fields out at their default") {
    Toy t;
    CHECK(config_fields::key(t, kToyFields) == "shade=dark,size=7");
    t.depth = 3, t.edge = Shade::grey, t.size = -1;
    CHECK(config_fields::key(t, kToyFields) == "shade=dark,size=-1,depth=3,edge=grey");
    CHECK(config_fields::names(kToyFields) == std::vector<std::string_view>{"shade", "size", "depth", "edge", "lit"});
  }

  TEST_CASE("a field table parses its own keys back, defaults filled in") {
    const auto a = parse("shade=grey,size=12");
    REQUIRE(a.has_value());
    CHECK(a->shade == Shade::grey);
    CHECK(a->size == 12);
    CHECK(a->depth == 1);
    CHECK(a->edge == Shade::light);
    CHECK(a->untouched == 42);
    const auto b = parse("shade=light,size=0,depth=2,edge=dark");
    REQUIRE(b.has_value());
    CHECK(*b == Toy{Shade::light, 0, 2, Shade::dark, 42});
  }

  TEST_CASE("a field table refuses what its key() never prints") {
    CHECK_FALSE(parse("").has_value());
    CHECK_FALSE(parse("shade=dark").has_value());                  // a required field missing
    CHECK_FALSE(parse("shade=dark,size=7,colour=1").has_value());  // an unknown field
    CHECK_FALSE(parse("shade=dark,size=7,size=8").has_value());    // a repeated one
    CHECK_FALSE(parse("shade=black,size=7").has_value());          // not one of the enum's values
    CHECK_FALSE(parse("shade=dark,size=-2").has_value());          // below the number's minimum
    CHECK_FALSE(parse("shade=dark,size=7x").has_value());          // not a whole number
    CHECK_FALSE(parse("shade=dark,size=").has_value());
    CHECK_FALSE(parse("shade=dark,size=7,depth=0").has_value());   // below the defaulted field's minimum
    CHECK_FALSE(parse("shade=dark,size=7,depth=1").has_value());   // a default spelled out
    CHECK_FALSE(parse("shade=dark,size=7,edge=light").has_value());
    CHECK_FALSE(parse("shade=dark,size").has_value());             // an item without '='
    CHECK_FALSE(parse("size=7,shade=dark").has_value());           // not the table's order
    CHECK_FALSE(parse("shade=dark,size=07").has_value());          // a leading zero
    CHECK_FALSE(parse("shade=dark,size=+7").has_value());          // a sign key() never prints
    CHECK(parse("shade=dark,size=7").has_value());                 // while the canonical key parses
  }

  TEST_CASE("a flag prints its one spelling when set and is left out when clear") {
    Toy t;
    t.lit = true;
    CHECK(config_fields::key(t, kToyFields) == "shade=dark,size=7,lit=yes");
    t.depth = 2;
    CHECK(config_fields::key(t, kToyFields) == "shade=dark,size=7,depth=2,lit=yes");
    t.lit = false;
    CHECK(config_fields::key(t, kToyFields) == "shade=dark,size=7,depth=2");
  }

  TEST_CASE("a flag parses as set from its spelling and as clear when absent") {
    const auto set = parse("shade=dark,size=7,lit=yes");
    REQUIRE(set.has_value());
    CHECK(set->lit);
    CHECK(*set == Toy{Shade::dark, 7, 1, Shade::light, 42, true});
    const auto clear = parse("shade=dark,size=7");
    REQUIRE(clear.has_value());
    CHECK_FALSE(clear->lit);
  }

  TEST_CASE("a flag refuses any text but its spelling, and a clear flag spelled out") {
    for (const char* bad : {"shade=dark,size=7,lit=", "shade=dark,size=7,lit=no", "shade=dark,size=7,lit=true",
                            "shade=dark,size=7,lit=1", "shade=dark,size=7,lit=0", "shade=dark,size=7,lit=false",
                            "shade=dark,size=7,lit=YES", "shade=dark,size=7,lit=yes,lit=yes", "shade=dark,size=7,lit"})
      CHECK_MESSAGE(!parse(bad).has_value(), bad);
  }

  TEST_CASE("a field table writes its fields' constants and enums into the preamble, part by part") {
    constexpr auto fields =
        std::tuple{config_fields::choice("shade", &Toy::shade, kShades).constant("kShade", "Shade"),
                   config_fields::number("size", &Toy::size, -1).constant("kSize").in_part(1),
                   config_fields::number("depth", &Toy::depth, 1).omitted_at(1).constant("kDepth", "unsigned"),
                   config_fields::choice("edge", &Toy::edge, kShades).omitted_at(Shade::light),
                   config_fields::flag("lit", &Toy::lit, "yes").constant("kLit")};
    Toy t;
    t.lit = true;
    CHECK(config_fields::key(t, fields) == config_fields::key(t, kToyFields));  // the constants leave the key alone
    const preamble::ConfigPreamble p = preamble::config_preamble(t, fields);
    CHECK(p.enums == "enum class Shade { light = 0, dark = 1, grey = 2 };\n");  // a choice without a constant: none
    CHECK(p.part(0) ==
          "constexpr Shade kShade = Shade::dark;\nconstexpr unsigned kDepth = 1u;\nconstexpr bool kLit = true;\n");
    CHECK(p.part(1) == "constexpr int kSize = 7;\n");
    CHECK_THROWS_AS(p.part(2), std::out_of_range);
  }

  // A configuration's field table writes preamble constants (.constant()), so each family's code identity (the text
  // its template hash is taken of, KernelFamily::code_text) holds its config.cpp and the generic writer: a change to
  // a constant's declaration alone makes earlier runs another code's, as a change to the template does.
  TEST_CASE("every built-in family's code identity holds its configuration's field table and the table writer") {
    const std::pair<std::string_view, std::string_view> tables[] = {
        {"histogram", autotune::embedded::histogram_config_cpp},
        {"histogram_range", autotune::embedded::histogram_range_config_cpp},
        {"reduce", autotune::embedded::reduce_config_cpp},
        {"argreduce", autotune::embedded::argreduce_config_cpp},
        {"segreduce", autotune::embedded::segreduce_config_cpp}};
    for (const auto& table : tables) {
      const std::string_view name = table.first;
      CAPTURE(name);
      const std::string code = autotune::family_named(name).code_text();
      REQUIRE(table.second.find(".constant(") != std::string_view::npos);  // the table does declare constants
      CHECK(code.find(table.second) != std::string::npos);
      CHECK(code.find(autotune::embedded::config_fields_hpp) != std::string::npos);
    }
    // The fields the reduction and the arg-reduction share are declared in one table of their own.
    for (std::string_view name : {"reduce", "argreduce"})
      CHECK(autotune::family_named(name).code_text().find(autotune::embedded::reduction_fields_hpp) !=
            std::string::npos);
  }

  // core/config_adapt.hpp: what an adaptation changed, and its steps (on a histogram configuration).
  TEST_CASE("an adaptation notes each change as its key item and stops where the configuration runs") {
    CHECK(config_adapt::changed_items("a=1,b=2,c=3", "a=1,b=4,c=3,d=5") == std::vector<std::string>{"b=4", "d=5"});
    CHECK(config_adapt::changed_items("a=1", "a=1").empty());
    HistogramConfig c;
    c.replicas = 16, c.block = 512;
    config_adapt::Steps<HistogramConfig> s{c, {"bin=direct"}, [](const HistogramConfig& x) { return x.block <= 256; }};
    CHECK_FALSE(s.runs());
    CHECK_FALSE(s.set(&HistogramConfig::replicas, 8, "R=8"));
    CHECK(s.set(&HistogramConfig::block, 256, "block=256"));
    const KernelFamily::Adapted a = s.done();
    CHECK(a.config.key() == s.config.key());
    CHECK(a.change == "bin=direct, R=8, block=256");
  }
}

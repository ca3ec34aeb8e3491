// core/enum_text.hpp, an enum's names declared as one table, on an enum of its own; then every enum the project
// prints: each value gives the literal name that caches, keys and preambles hold, that name parses back to the value,
// and any other text is refused.
#include <doctest/doctest.h>

#include <array>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "autotune/argreduce_problem.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/resolution.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/argreduce/enums.hpp"
#include "kernel_templates/histogram/enums.hpp"
#include "kernel_templates/histogram_range/enums.hpp"
#include "kernel_templates/reduce/enums.hpp"
#include "kernel_templates/segreduce/enums.hpp"
#include "kernel_templates/value_types.hpp"
#include "tuner/ladder.hpp"

using namespace autotune;

namespace {

enum class Tide { low, high, slack };
constexpr enum_text::Name<Tide> kTideNames[] = {{Tide::low, "low"}, {Tide::high, "high"}, {Tide::slack, "slack"}};

// A table of properties with more columns than the value and its name.
struct TideInfo {
  Tide value;
  std::string_view name;
  int metres;
};
constexpr TideInfo kTideInfo[] = {{Tide::low, "ebb", 1}, {Tide::high, "flood", 5}};

template <class E>
using Expected = std::initializer_list<std::pair<E, std::string_view>>;

// `table` holds exactly `expected`, in its order; each value's name is the literal and parses back to the value.
template <class R, std::size_t N, class E = enum_text::value_type<R>>
void check_table(const R (&table)[N], Expected<E> expected) {
  REQUIRE(N == expected.size());
  std::size_t i = 0;
  for (const auto& entry : expected) {  // no structured binding: CAPTURE's lambda cannot capture one on clang 14
    const E value = entry.first;
    const std::string_view name = entry.second;
    CAPTURE(name);
    CHECK(table[i].value == value);
    CHECK(table[i++].name == name);
    CHECK(enum_text::name_of(table, value) == name);
    CHECK(enum_text::parse(table, name) == value);
  }
  CHECK_FALSE(enum_text::parse(table, "no such name"));
  CHECK_FALSE(enum_text::parse(table, ""));
}

// The public face of an enum whose table is its source file's own: to_string() gives the literal, `parse` takes it
// back and refuses other text.
template <class E>
void check_public(Expected<E> expected, auto parse) {
  for (const auto& entry : expected) {
    const E value = entry.first;
    const std::string_view name = entry.second;
    CAPTURE(name);
    CHECK(to_string(value) == name);
    CHECK(parse(name) == value);
  }
  CHECK_FALSE(parse("no such name"));
  CHECK_FALSE(parse(""));
}

}  // namespace

TEST_SUITE("config") {
  TEST_CASE("a name table gives each value's name, parses each name and lists the values in table order") {
    CHECK(enum_text::name_of(kTideNames, Tide::low) == "low");
    CHECK(enum_text::name_of(kTideNames, Tide::slack) == "slack");
    CHECK(enum_text::parse(kTideNames, "high") == Tide::high);
    constexpr auto values = enum_text::values(kTideNames);
    static_assert(values == std::array{Tide::low, Tide::high, Tide::slack});
    CHECK(enum_text::names(kTideNames) == "low, high, slack");
  }

  TEST_CASE("a name table refuses a name it lacks, exactly as spelled, and prints ? for a value it lacks") {
    for (const char* text : {"", "LOW", "Low", " low", "low ", "lo", "lows", "ebb"})
      CHECK_MESSAGE(!enum_text::parse(kTideNames, text), text);
    CHECK(enum_text::name_of(kTideNames, static_cast<Tide>(7)) == "?");
  }

  TEST_CASE("a table of a type's properties serves as its name table") {
    CHECK(enum_text::name_of(kTideInfo, Tide::high) == "flood");
    CHECK(enum_text::parse(kTideInfo, "ebb") == Tide::low);
    CHECK_FALSE(enum_text::parse(kTideInfo, "low"));
    CHECK(enum_text::name_of(kTideInfo, Tide::slack) == "?");
    CHECK(enum_text::values(kTideInfo) == std::array{Tide::low, Tide::high});
    CHECK(enum_text::names(kTideInfo) == "ebb, flood");
  }

  TEST_CASE("the reduction families' enums print the names keys hold and parse them back") {
    check_table(reduce_detail::kReduceOpNames,
                Expected<ReduceOp>{{ReduceOp::sum, "sum"},       {ReduceOp::min, "min"},
                                   {ReduceOp::max, "max"},       {ReduceOp::absmax, "absmax"},
                                   {ReduceOp::sumsq, "sumsq"},   {ReduceOp::sumabs, "sumabs"},
                                   {ReduceOp::l2norm, "l2norm"}, {ReduceOp::user, "user"}});
    check_table(reduce_detail::kBlockReduceNames,
                Expected<BlockReduce>{{BlockReduce::atomic, "atomic"}, {BlockReduce::shared_tree, "shared_tree"},
                                      {BlockReduce::warp_shuffle, "warp_shuffle"},
                                      {BlockReduce::warp_reduce, "warp_reduce"}});
    check_table(reduce_detail::kFinishNames, Expected<Finish>{{Finish::atomic, "atomic"},
                                                              {Finish::last_block, "last_block"},
                                                              {Finish::two_pass, "two_pass"},
                                                              {Finish::atomic_last, "atomic_last"}});
    check_table(argreduce_detail::kArgOpNames, Expected<ArgOp>{{ArgOp::argmin, "argmin"}, {ArgOp::argmax, "argmax"}});
    check_table(segreduce_detail::kSegReduceOpNames,
                Expected<SegReduceOp>{{SegReduceOp::sum, "sum"}, {SegReduceOp::min, "min"}, {SegReduceOp::max, "max"},
                                      {SegReduceOp::argmin, "argmin"}, {SegReduceOp::argmax, "argmax"},
                                      {SegReduceOp::user, "user"}});
    check_table(reduce_detail::kValues,
                Expected<ValueType>{{ValueType::i32, "i32"}, {ValueType::u32, "u32"}, {ValueType::i64, "i64"},
                                    {ValueType::u64, "u64"}, {ValueType::f32, "f32"}, {ValueType::f64, "f64"},
                                    {ValueType::f16, "f16"}, {ValueType::bf16, "bf16"}, {ValueType::i8, "i8"},
                                    {ValueType::i16, "i16"}});
    check_table(reduce_detail::kStorageNames, Expected<reduce_detail::Storage>{{reduce_detail::Storage::plain, "plain"},
                                                                               {reduce_detail::Storage::f16, "f16"},
                                                                               {reduce_detail::Storage::bf16, "bf16"}});
    check_public(Expected<ReduceOp>{{ReduceOp::sum, "sum"}, {ReduceOp::l2norm, "l2norm"}}, parse_reduce_op);
    check_public(Expected<SegReduceOp>{{SegReduceOp::max, "max"}, {SegReduceOp::argmin, "argmin"}}, parse_segreduce_op);
    check_public(Expected<ArgOp>{{ArgOp::argmin, "argmin"}, {ArgOp::argmax, "argmax"}}, parse_arg_op);
    check_public(Expected<ValueType>{{ValueType::u64, "u64"}, {ValueType::bf16, "bf16"}}, parse_value_type);
    CHECK(to_string(BlockReduce::warp_reduce) == "warp_reduce");
    CHECK(to_string(Finish::two_pass) == "two_pass");
    CHECK(reduce_detail::value_type_names() == "i32, u32, i64, u64, f32, f64, f16, bf16, i8, i16");
  }

  TEST_CASE("user prints as an operation's name but does not parse as one (a key spells it user:<hash>)") {
    CHECK(to_string(ReduceOp::user) == "user");
    CHECK(to_string(SegReduceOp::user) == "user");
    CHECK_FALSE(parse_reduce_op("user"));
    CHECK_FALSE(parse_segreduce_op("user"));
  }

  TEST_CASE("the value lists of enums.hpp are their tables' values in declaration order") {
    CHECK(reduce_detail::kReduceOps == std::array{ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::absmax,
                                                  ReduceOp::sumsq, ReduceOp::sumabs, ReduceOp::l2norm, ReduceOp::user});
    CHECK(reduce_detail::kBlockReduces == std::array{BlockReduce::atomic, BlockReduce::shared_tree,
                                                     BlockReduce::warp_shuffle, BlockReduce::warp_reduce});
    CHECK(reduce_detail::kFinishes ==
          std::array{Finish::atomic, Finish::last_block, Finish::two_pass, Finish::atomic_last});
    CHECK(argreduce_detail::kArgOps == std::array{ArgOp::argmin, ArgOp::argmax});
    CHECK(segreduce_detail::kSegReduceOps == std::array{SegReduceOp::sum, SegReduceOp::min, SegReduceOp::max,
                                                        SegReduceOp::argmin, SegReduceOp::argmax, SegReduceOp::user});
    CHECK(histogram_detail::kPrivatizations ==
          std::array{Privatization::global, Privatization::shared, Privatization::warp});
    CHECK(histogram_detail::kPartitionings == std::array{Partitioning::interleaved, Partitioning::contiguous});
    CHECK(histogram_detail::kAggregations == std::array{Aggregation::none, Aggregation::run, Aggregation::warp});
    CHECK(histogram_detail::kMerges == std::array{Merge::atomic, Merge::last_block, Merge::self_zero});
    CHECK(histogram_detail::kBinnings == std::array{Binning::direct, Binning::values});
    CHECK(histogram_range_detail::kBinnings == std::array{RangeBinning::values, RangeBinning::lut, RangeBinning::search,
                                                          RangeBinning::search_global, RangeBinning::prebin});
  }

  TEST_CASE("the histogram families' enums print the names keys hold and parse them back") {
    check_table(histogram_detail::kPrivatizationNames,
                Expected<Privatization>{{Privatization::global, "global"}, {Privatization::shared, "shared"},
                                        {Privatization::warp, "warp"}});
    check_table(histogram_detail::kPartitioningNames,
                Expected<Partitioning>{{Partitioning::interleaved, "interleaved"},
                                       {Partitioning::contiguous, "contiguous"}});
    check_table(histogram_detail::kAggregationNames, Expected<Aggregation>{{Aggregation::none, "none"},
                                                                           {Aggregation::run, "run"},
                                                                           {Aggregation::warp, "warp"}});
    check_table(histogram_detail::kMergeNames, Expected<Merge>{{Merge::atomic, "atomic"},
                                                               {Merge::last_block, "last_block"},
                                                               {Merge::self_zero, "self_zero"}});
    check_table(histogram_detail::kBinningNames,
                Expected<Binning>{{Binning::direct, "direct"}, {Binning::values, "values"}});
    check_table(histogram_range_detail::kBinningNames,
                Expected<RangeBinning>{{RangeBinning::values, "values"}, {RangeBinning::lut, "lut"},
                                       {RangeBinning::search, "search"}, {RangeBinning::search_global, "search_global"},
                                       {RangeBinning::prebin, "prebin"}});
    check_table(histogram_range_detail::kEdgeLayoutNames,
                Expected<EdgeLayout>{{EdgeLayout::even, "even"}, {EdgeLayout::irregular, "irregular"}});
    check_public(Expected<EdgeLayout>{{EdgeLayout::even, "even"}, {EdgeLayout::irregular, "irregular"}},
                 parse_edge_layout);
    check_public(Expected<SampleType>{{SampleType::u8, "u8"}, {SampleType::u16, "u16"}, {SampleType::i32, "i32"},
                                      {SampleType::u32, "u32"}, {SampleType::f32, "f32"}, {SampleType::f64, "f64"},
                                      {SampleType::f16, "f16"}, {SampleType::bf16, "bf16"}, {SampleType::i8, "i8"},
                                      {SampleType::i16, "i16"}},
                 parse_sample_type);
    CHECK(all_sample_types() == std::vector{SampleType::u8, SampleType::u16, SampleType::i32, SampleType::u32,
                                            SampleType::f32, SampleType::f64, SampleType::f16, SampleType::bf16,
                                            SampleType::i8, SampleType::i16});
    CHECK(to_string(Privatization::warp) == "warp");
    CHECK(to_string(Partitioning::contiguous) == "contiguous");
    CHECK(to_string(Aggregation::run) == "run");
    CHECK(to_string(Merge::self_zero) == "self_zero");
    CHECK(to_string(Binning::values) == "values");
    CHECK(to_string(RangeBinning::search_global) == "search_global");
  }

  TEST_CASE("the lookup's and the tuner's enums print their literal names; a requirement parses back") {
    const std::pair<ConfigSource, std::string_view> sources[] = {
        {ConfigSource::exact, "exact"},
        {ConfigSource::nearest_size, "nearest_size"},
        {ConfigSource::similar_problem, "similar_problem"},
        {ConfigSource::similar_device, "similar_device"},
        {ConfigSource::policy, "policy"},
        {ConfigSource::fallback, "fallback"}};
    for (const auto& [source, name] : sources) CHECK(to_string(source) == name);
    check_public(Expected<Requirement>{{Requirement::any, "any"}, {Requirement::tuned, "tuned"},
                                       {Requirement::exact, "exact"}},
                 parse_requirement);
    CHECK(to_string(CrossoverDecision::measure) == "measure");
    CHECK(to_string(CrossoverDecision::same_winner) == "same winner");
    CHECK(to_string(CrossoverDecision::no_size_between) == "no size between");
    CHECK(to_string(CrossoverDecision::recorded) == "recorded");
  }
}

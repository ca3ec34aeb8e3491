// Segmented reductions with an operator of the user's own, without a GPU: keys (the reduce family's hash, read back
// without the source), validation and the command line, the preamble, the tuner's per-segment check against the
// fallback's results on inputs worked out by hand, and (suite nvrtc_segreduce) that a pairwise covering of the space
// compiles for a user max and a user sum of squares, and that an operator NVRTC rejects is a UsageError carrying its
// log at the handle and the CLI.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "autotune/segmented_reduce.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "core/family.hpp"
#include "kernel_templates/segreduce/reference.hpp"
#include "kernel_templates/segreduce/space.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"

using namespace autotune;

namespace {

SegReduceProblem seg_user(ValueType t, std::string op, std::string identity, std::string transform = "",
                          std::string dist = "fixed:32", std::uint64_t n = 4096) {
  SegReduceProblem p;
  p.op = SegReduceOp::user, p.type = t, p.distribution = std::move(dist), p.n = n;
  p.user = UserOp{std::move(op), std::move(identity), std::move(transform)};
  return p;
}

SegReduceProblem seg_max() { return seg_user(ValueType::f32, "a > b ? a : b", "-INFINITY"); }

const KernelFamily& seg_family() { return family_named("segreduce"); }

}  // namespace

TEST_SUITE("segreduce") {
  TEST_CASE("a user operator's key: the reduce family's hash, equivalent spellings share it, other operators never") {
    // The hashes tests/cpu/test_half_reduce.cpp pins (computed apart with Python's hashlib): one operator, one hash
    // in both families; the family part of the key keeps their winners apart.
    CHECK(seg_max().key() == "segreduce/user:74e613c30ecaeb13/f32/acc=f32/n=4096/dist=fixed:32");
    CHECK(seg_user(ValueType::bf16, "a + b", "0", "x * x", "fixed:4096").shape_key() ==
          "segreduce/user:1bdda21858830ae4/bf16/acc=f32/dist=fixed:4K");
    // Whitespace runs, line breaks and the ends do not change the operator; a transform "x" is none.
    CHECK(seg_user(ValueType::f32, " a >  b\n?\ta : b ", "-INFINITY ", " x ").key() == seg_max().key());
    // Another text, identity, transform, type or accumulator is another operator.
    const std::string key = seg_max().shape_key();
    CHECK(seg_user(ValueType::f32, "a>b?a:b", "-INFINITY").shape_key() != key);
    CHECK(seg_user(ValueType::f32, "a > b ? a : b", "-FLT_MAX").shape_key() != key);
    CHECK(seg_user(ValueType::f32, "a > b ? a : b", "-INFINITY", "x * x").shape_key() != key);
    CHECK(seg_user(ValueType::f16, "a > b ? a : b", "-INFINITY").shape_key() != key);
    SegReduceProblem f64 = seg_max();
    f64.accumulator = ValueType::f64;
    CHECK(f64.shape_key() != key);
    // The user defaults of the reduce family: f32 for halves, i32 for i8 and i16, else the type; one value a segment.
    CHECK(seg_user(ValueType::f16, "a + b", "0").accumulator_type() == ValueType::f32);
    CHECK(seg_user(ValueType::i8, "a + b", "0").accumulator_type() == ValueType::i32);
    CHECK(seg_user(ValueType::u64, "a + b", "0").accumulator_type() == ValueType::u64);
    CHECK(seg_user(ValueType::i16, "a + b", "0").result_bytes() == 4);
    // "user" is no operation's name: only "user:<16 hex digits>" parses, and to the hash alone.
    CHECK_FALSE(parse_segreduce_op("user").has_value());
    CHECK_FALSE(Problem::parse("segreduce/user/f32/acc=f32/n=64/dist=fixed:32").has_value());
    CHECK_FALSE(Problem::parse("segreduce/user:74E613C30ECAEB13/f32/acc=f32/n=64/dist=fixed:32").has_value());
    CHECK_FALSE(Problem::parse("segreduce/user:74e613c30ecaeb1/f32/acc=f32/n=64/dist=fixed:32").has_value());
    const auto parsed = Problem::parse(seg_max().key());
    REQUIRE(parsed.has_value());
    const SegReduceProblem* back = parsed->as<SegReduceProblem>();
    REQUIRE(back != nullptr);
    CHECK(back->op == SegReduceOp::user);
    CHECK(back->user.op.empty());
    CHECK(back->user_hash == "74e613c30ecaeb13");
    CHECK(parsed->key() == seg_max().key());
    // Looked up and shown, not compiled.
    CHECK_THROWS_WITH_AS(kernel_source(*back, SegReduceConfig{}), doctest::Contains("source is not known"), UsageError);
    // Winners of another operator, or of the built-in max, say nothing about this one; its own key's do.
    const KernelFamily& f = seg_family();
    SegReduceProblem builtin = seg_max();
    builtin.op = SegReduceOp::max, builtin.user = {};
    CHECK_FALSE(f.shape_distance(Problem(seg_max()), Problem(builtin)).has_value());
    CHECK_FALSE(f.shape_distance(Problem(seg_max()), Problem(seg_user(ValueType::f32, "fmaxf(a, b)", "-INFINITY")))
                    .has_value());
    CHECK(f.shape_distance(Problem(seg_max()), *parsed) == 0.0);
  }

  TEST_CASE("a user operator's validation: the reduce family's rules, and no operator source for a built-in") {
    CHECK_NOTHROW(seg_max().validate());
    for (const char* text : {"a; b", "{a}", "a) + (b", "a /* b */", "#define X", "a <% b %>"}) {
      CAPTURE(text);
      CHECK_THROWS_AS(seg_user(ValueType::f32, text, "0").validate(), UsageError);
      CHECK_THROWS_AS(seg_user(ValueType::f32, "a + b", text).validate(), UsageError);
      CHECK_THROWS_AS(seg_user(ValueType::f32, "a + b", "0", text).validate(), UsageError);
    }
    CHECK_THROWS_WITH_AS(seg_user(ValueType::f32, "a; b", "0").validate(), doctest::Contains("contains ';'"),
                         UsageError);
    CHECK_THROWS_WITH_AS(seg_user(ValueType::f32, "a + b", "").validate(), doctest::Contains("identity"), UsageError);
    CHECK_THROWS_WITH_AS(seg_user(ValueType::f32, " ", "0").validate(), doctest::Contains("empty"), UsageError);
    SegReduceProblem none = seg_user(ValueType::f32, "", "");
    CHECK_THROWS_WITH_AS(none.validate(), doctest::Contains("needs its source"), UsageError);
    none.user_hash = "not a hash";
    CHECK_THROWS_WITH_AS(none.validate(), doctest::Contains("16 lowercase hex digits"), UsageError);
    // Any 32- or 64-bit accumulator, as the reduce family's user operators.
    SegReduceProblem wide = seg_user(ValueType::bf16, "a + b", "0");
    wide.accumulator = ValueType::f64;
    CHECK_NOTHROW(wide.validate());
    wide.accumulator = ValueType::i16;
    CHECK_THROWS_AS(wide.validate(), UsageError);
    for (SegReduceOp op : {SegReduceOp::sum, SegReduceOp::argmax}) {
      SegReduceProblem builtin = seg_max();
      builtin.op = op;
      CHECK_THROWS_WITH_AS(builtin.validate(), doctest::Contains("takes no operator source"), UsageError);
    }
  }

  TEST_CASE("the command line: --user-op with --identity and --transform for --kernel segreduce, and back") {
    const KernelFamily& f = seg_family();
    const Problem p = f.make_problem({{"n", "64M"}, {"segments", "fixed:4K"}, {"user-op", "a + b"}, {"identity", "0"},
                                      {"transform", "x * x"}, {"type", "bf16"}});
    CHECK(p.key() == "segreduce/user:1bdda21858830ae4/bf16/acc=f32/n=67108864/dist=fixed:4K");
    CHECK(f.command_options(p) == "--user-op 'a + b' --identity '0' --transform 'x * x' --type bf16 --acc f32");
    const auto parsed = Problem::parse(p.key());
    REQUIRE(parsed.has_value());
    CHECK(f.command_options(*parsed) ==
          "--user-op <the source of user:1bdda21858830ae4> --identity <its identity> --type bf16 --acc f32");
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1M"}, {"user-op", "a + b"}}), doctest::Contains("--identity"),
                         UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1M"}, {"op", "max"}, {"user-op", "a + b"}, {"identity", "0"}}),
                         doctest::Contains("exclude"), UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1M"}, {"op", "max"}, {"identity", "0"}}),
                         doctest::Contains("--identity goes with --user-op"), UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1M"}, {"user-op", "a; b"}, {"identity", "0"}}),
                         doctest::Contains("contains ';'"), UsageError);
    bool listed = false;
    for (const ProblemParameter& o : f.problem_parameters()) listed |= o.name == "user-op";
    CHECK(listed);
  }

  TEST_CASE("the preamble of a user operator: its functions after acc_t, the user op, the accumulator as work type") {
    const std::string src = kernel_source(seg_max(), SegReduceConfig{});
    const auto acc = src.find("typedef float acc_t;"), op = src.find("#line 1 \"op\"\na > b ? a : b\n");
    REQUIRE(acc != std::string::npos);
    REQUIRE(op != std::string::npos);
    CHECK(acc < op);
    CHECK(src.find("typedef float work_t;") != std::string::npos);
    CHECK(src.find("#line 1 \"identity\"\n-INFINITY\n") != std::string::npos);
    CHECK(src.find("#line 1 \"transform\"\nx\n") != std::string::npos);
    CHECK(src.find("constexpr SegOp kOp = SegOp::user;") != std::string::npos);
    CHECK(src.find("#define AT_USER_OP 1") != std::string::npos);
    CHECK(op < src.find("#line 1 \"common.cuh\""));
    // A built-in operation has no user functions.
    SegReduceProblem builtin = seg_max();
    builtin.op = SegReduceOp::max, builtin.user = {};
    CHECK(kernel_source(builtin, SegReduceConfig{}).find("AT_USER_OP 1") == std::string::npos);
    // i8 through a user operator: read as signed char, computed in the i32 accumulator.
    const std::string i8 = kernel_source(seg_user(ValueType::i8, "a + b", "0", "x * x"), SegReduceConfig{});
    CHECK(i8.find("typedef signed char in_t;") != std::string::npos);
    CHECK(i8.find("typedef int work_t;") != std::string::npos);
  }

  TEST_CASE("the tuner's check of a user operator: each segment against the fallback's result, integers exactly, "
            "floats within the two variants' chains") {
    const SegReduceConfig fallback{};  // 256 threads, groups of 8 up to 256 elements, chunks of 16K
    // Chains worked out by hand: ceil(len / lanes) plus 32 for a vector's elements at the head and the tail.
    CHECK(segment_chain(fallback, 0) == 32);
    CHECK(segment_chain(fallback, 100) == 13 + 32);
    // 100000 elements: queued (16384 / 256 = 64 per lane, 7 chunks' partials over 256 lanes: 1), or left to the group.
    CHECK(segment_chain(fallback, 100000) == 12500 + 32);
    const SegReduceConfig per_block{256, 256, 0, 16, 4, 16384};
    CHECK(segment_chain(per_block, 1000) == 4 + 32);
    const SegReduceConfig warps{256, 32, 1024, 16, 2, 1024};
    CHECK(segment_chain(warps, 1 << 20) == 32768 + 32);

    const std::vector<std::uint64_t> lengths{4, 0, 1000000};
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> want{10.0f, -inf, 12345.0f};
    const SegReduceProblem p = seg_user(ValueType::f32, "a + b", "-INFINITY");
    CHECK(compare_segreduce_user(p, lengths, want.data(), fallback, want.data(), &warps) == "");
    // 12345 (1 + 2^-20) within gamma_k * 12345 (k > 60000 for a million elements); 11 against 10 in 4 is not.
    std::vector<float> got = want;
    got[2] = 12345.0f * (1.0f + std::ldexp(1.0f, -20));
    CHECK(compare_segreduce_user(p, lengths, want.data(), fallback, got.data(), &warps) == "");
    got[0] = 11.0f;
    CHECK(compare_segreduce_user(p, lengths, want.data(), fallback, got.data(), &warps) ==
          "1 of 3 segments wrong; first: segment 0 (length 4): expected 10 (the fallback's result), got 11");
    // An integer operator: equal bits or wrong.
    const SegReduceProblem i = seg_user(ValueType::i32, "a ^ b", "0");
    const std::vector<std::int32_t> iwant{7, 0, -3}, igot{7, 0, -2};
    CHECK(compare_segreduce_user(i, lengths, iwant.data(), fallback, iwant.data(), nullptr) == "");
    CHECK(compare_segreduce_user(i, lengths, iwant.data(), fallback, igot.data(), nullptr).find("1 of 3 segments") == 0);
  }
}

TEST_SUITE("nvrtc_segreduce") {
  TEST_CASE("a user max and a user sum of squares (f32, bf16, i8, and f64 into i64): one pairwise covering of their "
            "spaces compiles for sm_90 (every variant under nvrtc_full)") {
    SegReduceProblem wide = seg_user(ValueType::f64, "max(a, b)", "LLONG_MIN", "x < 0 ? -x : x");
    wide.accumulator = ValueType::i64;
    wide.offset_bits = 64;
    const std::vector<SegReduceProblem> problems{seg_max(), seg_user(ValueType::f32, "a + b", "0", "x * x"),
                                                 seg_user(ValueType::bf16, "a + b", "0", "x * x"),
                                                 seg_user(ValueType::i8, "a > b ? a : b", "INT_MIN"), wide};
    std::vector<std::vector<SegReduceConfig>> spaces;
    for (const SegReduceProblem& p : problems) spaces.push_back(segreduce_space(p));
    const std::string failures = test::compile_all_joint(problems, spaces, "sm_90",
                                                         {kSegReduceKernelName, kSegReduceLongKernelName});
    CHECK_MESSAGE(failures == "", failures);
  }

  TEST_CASE("a user operator NVRTC rejects is a UsageError with its log, at the CLI and the handle (before a device)") {
    const KernelFamily& f = seg_family();
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1M"}, {"user-op", "a + c"}, {"identity", "0"}}),
                         doctest::Contains("identifier \"c\" is undefined"), UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1M"}, {"user-op", "a + c"}, {"identity", "0"}}),
                         doctest::Contains("op(1)"), UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1M"}, {"user-op", "a + b"}, {"identity", "0"}, {"transform", "y"}}),
                         doctest::Contains("transform(1)"), UsageError);
    CHECK_NOTHROW(f.make_problem({{"n", "1M"}, {"user-op", "fmaxf(a, b)"}, {"identity", "-INFINITY"}}));
    CHECK_THROWS_WITH_AS(SegmentedReduce(seg_user(ValueType::f32, "a + b", "zero")),
                         doctest::Contains("identity(1)"), UsageError);
    // A problem read back from its key holds no source: the handle says so, naming the segmented problem.
    const auto parsed = Problem::parse(seg_max().key());
    REQUIRE(parsed.has_value());
    CHECK_THROWS_WITH_AS(SegmentedReduce(*parsed->as<SegReduceProblem>()),
                         doctest::Contains("segreduce/user:74e613c30ecaeb13"), UsageError);
  }
}

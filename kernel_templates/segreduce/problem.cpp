// The segmented reduction problem: operations, segment-length specs, keys and validation.
#include <fmt/format.h>

#include <algorithm>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "core/enum_text.hpp"
#include "core/ladder.hpp"
#include "kernel_templates/segreduce/enums.hpp"

namespace autotune {

namespace {

using Kind = SegmentSpec::Kind;
constexpr enum_text::Name<Kind> kKinds[] = {
    {Kind::fixed, "fixed"}, {Kind::uniform, "uniform"}, {Kind::power_law, "power-law"}};
constexpr SegmentSpec kPowerLaw{Kind::power_law, 1, 1ull << 20};  // "power-law"; "uniform" is SegmentSpec{}

std::uint64_t parse_length(std::string_view text, std::string_view spec) {
  if (text.empty()) throw UsageError(fmt::format("segment spec '{}': a length is missing", spec));
  try {
    return parse_size(text);
  } catch (const UsageError&) {
    throw UsageError(fmt::format("segment spec '{}': '{}' is not a length (e.g. 32, 4K, 1M)", spec, text));
  }
}

}  // namespace

std::string_view to_string(SegReduceOp op) { return enum_text::name_of(segreduce_detail::kSegReduceOpNames, op); }
std::optional<SegReduceOp> parse_segreduce_op(std::string_view text) {
  const auto op = enum_text::parse(segreduce_detail::kSegReduceOpNames, text);
  return op == SegReduceOp::user ? std::nullopt : op;  // a key spells it "user:<hash>"
}
bool is_arg(SegReduceOp op) { return op == SegReduceOp::argmin || op == SegReduceOp::argmax; }

SegmentSpec parse_segment_spec(std::string_view text) {
  if (text == "uniform") return {};  // 1..1K
  if (text == "power-law") return kPowerLaw;
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const auto kind = colon == std::string_view::npos ? std::nullopt : enum_text::parse(kKinds, name);
  if (!kind)
    throw UsageError(fmt::format("unknown segment spec '{}' (known: fixed:L, uniform:A..B, power-law:A..B, power-law "
                                 "(1..1M) or uniform (1..1K); e.g. fixed:32, uniform:1..64K)",
                                 text));
  SegmentSpec s{*kind};
  const std::string_view args = text.substr(colon + 1);
  if (s.kind == Kind::fixed) {
    s.lo = s.hi = parse_length(args, text);
    if (s.lo == 0) throw UsageError(fmt::format("segment spec '{}': a fixed length must be at least 1", text));
  } else {
    const auto dots = args.find("..");
    if (dots == std::string_view::npos)
      throw UsageError(fmt::format("segment spec '{}': expected a range A..B after '{}:'", text, name));
    s.lo = parse_length(args.substr(0, dots), text);
    s.hi = parse_length(args.substr(dots + 2), text);
    if (s.lo > s.hi) throw UsageError(fmt::format("segment spec '{}': the range is empty ({} > {})", text, s.lo, s.hi));
    if (s.kind == Kind::power_law && s.lo == 0)
      throw UsageError(fmt::format("segment spec '{}': a power law starts at length 1 or more", text));
    if (s.hi == 0) throw UsageError(fmt::format("segment spec '{}': every segment would be empty", text));
  }
  // The longest segment a spec may name: offsets are 32-bit ints.
  if (s.hi > (1ull << 31) - 1)
    throw UsageError(fmt::format("segment spec '{}': lengths above 2^31 - 1 do not fit int offsets", text));
  return s;
}

// Lengths as "4K" for 4096, "1M" for 2^20, else decimal (no G: "1024M").
std::string format_segment_spec(const SegmentSpec& s) {
  const std::string_view kind = enum_text::name_of(kKinds, s.kind);
  if (s.kind == Kind::fixed) return fmt::format("fixed:{}", format_size(s.lo, false));
  if (s == SegmentSpec{} || s == kPowerLaw) return std::string(kind);
  return fmt::format("{}:{}..{}", kind, format_size(s.lo, false), format_size(s.hi, false));
}

const std::vector<std::string>& segreduce_distributions() {
  // The measuring set; "uniform" first, the default of every family.
  static const std::vector<std::string> d{"uniform", "fixed:32", "fixed:4K", "fixed:1M", "uniform:1..64K",
                                          "power-law"};
  return d;
}

ValueType SegReduceProblem::accumulator_type() const { return as_reduce().accumulator_type(); }

ReduceProblem SegReduceProblem::as_reduce() const {
  // The reduce family's operation of each SegReduceOp, in its order: argmin and argmax compare as min and max.
  constexpr ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::min, ReduceOp::max,
                               ReduceOp::min, ReduceOp::max, ReduceOp::user};
  return {.op = kOps[static_cast<int>(op)], .type = type, .accumulator = accumulator, .n = n, .user = user,
          .user_hash = user_hash};
}

SegReduceProblem SegReduceProblem::normalized() const {
  SegReduceProblem p = *this;
  // The reduce family's normal form: the accumulator, and a user operator's hash (of its canonical text, the type
  // and the accumulator: the same operator hashes alike in both families; the keys' family part tells them apart).
  const ReduceProblem r = as_reduce().normalized();
  p.accumulator = r.accumulator;
  p.user_hash = r.user_hash;
  try {
    p.distribution = format_segment_spec(parse_segment_spec(distribution));
  } catch (const UsageError&) {
    // validate() reports it; the key keeps the text as given
  }
  return p;
}

void SegReduceProblem::validate() const {
  // Every value type of the reduce family, with its rules (as_reduce().validate(): the accumulator of a sum, halves
  // and i8/i16 compared in float and int); argmin/argmax have no accumulator.
  if (is_arg(op) && accumulator && *accumulator != type)
    throw UsageError(fmt::format("{} of {} values has no accumulator; {} is not supported", to_string(op),
                                 to_string(type), to_string(*accumulator)));
  if (op != SegReduceOp::user && (!user.op.empty() || !user.identity.empty() || !user.transform.empty()))
    throw UsageError(fmt::format("a segmented {} takes no operator source (only op user does)", to_string(op)));
  as_reduce().validate();  // the accumulator's rules, and a user operator's (its text, or its hash)
  (void)parse_segment_spec(distribution);
  if (offset_bits != 32 && offset_bits != 64)
    throw UsageError(fmt::format("offsets of {} bits: 32 (int) or 64 (int64_t)", offset_bits));
  if (offset_bits == 32 && n > (1ull << 31) - 1)
    throw UsageError(fmt::format("n = {} exceeds the int offsets' 2^31 - 1 elements (64-bit offsets take any n)", n));
  if (n > (1ull << 62)) throw UsageError(fmt::format("n = {} exceeds 2^62 elements", n));
}

std::size_t SegReduceProblem::result_bytes() const {
  if (is_arg(op)) return 2 * std::max<std::size_t>(4, size_of(type));
  return size_of(accumulator_type());
}

}  // namespace autotune

#include "kernel_templates/segreduce/reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "autotune/error.hpp"
#include "core/splitmix.hpp"

namespace autotune {

namespace {

std::uint64_t draw_length(const SegmentSpec& s, SplitMix64& rng) {
  switch (s.kind) {
    case SegmentSpec::Kind::fixed: return s.lo;
    case SegmentSpec::Kind::uniform: return s.lo + rng.next() % (s.hi - s.lo + 1);
    case SegmentSpec::Kind::power_law: {
      // Log-uniform: density ~ 1/L on [lo, hi].
      const double l = static_cast<double>(s.lo) * std::exp(rng.unit() * std::log((s.hi + 1.0) / s.lo));
      return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(l), s.lo, s.hi);
    }
  }
  return 1;
}

// "" when diff(s) is empty for every segment, else how many segments differ and the first of them.
template <class Diff>
std::string segment_report(const std::vector<std::uint64_t>& lengths, Diff diff) {
  std::uint64_t wrong = 0;
  std::string first;
  for (std::uint64_t s = 0; s < lengths.size(); ++s) {
    const std::string d = diff(s);
    if (!d.empty() && wrong++ == 0) first = fmt::format("segment {} (length {}): {}", s, lengths[s], d);
  }
  if (wrong == 0) return {};
  return fmt::format("{} of {} segments wrong; first: {}", wrong, lengths.size(), first);
}

}  // namespace

template <class Off>
std::vector<Off> generate_offsets(const SegmentSpec& spec, std::uint64_t n, std::uint64_t seed) {
  if (n > static_cast<std::uint64_t>(std::numeric_limits<Off>::max()))
    throw UsageError(fmt::format("n = {} does not fit {}-bit offsets", n, 8 * sizeof(Off)));
  SplitMix64 rng{seed};
  std::vector<Off> offsets{0};
  std::uint64_t at = 0;
  while (at < n) {
    at = std::min(n, at + draw_length(spec, rng));
    offsets.push_back(static_cast<Off>(at));
  }
  return offsets;
}

template std::vector<int> generate_offsets(const SegmentSpec&, std::uint64_t, std::uint64_t);
template std::vector<std::int64_t> generate_offsets(const SegmentSpec&, std::uint64_t, std::uint64_t);

std::vector<unsigned char> problem_offsets(const SegReduceProblem& problem) {
  const SegmentSpec spec = parse_segment_spec(problem.distribution);
  auto bytes = [](const auto& v) {
    const auto* data = reinterpret_cast<const unsigned char*>(v.data());
    return std::vector<unsigned char>(data, data + v.size() * sizeof(v[0]));
  };
  if (problem.offset_bits == 64) return bytes(generate_offsets<std::int64_t>(spec, problem.n, kOffsetsSeed));
  return bytes(generate_offsets(spec, problem.n, kOffsetsSeed));
}

std::vector<unsigned char> generate_segment_values(const SegReduceProblem& problem, std::uint64_t n,
                                                   std::uint64_t seed) {
  return generate_values(problem.as_reduce(), n, seed);  // as_reduce: the "uniform" distribution
}

template <class Off>
SegReduceExpected reference_segreduce(const SegReduceProblem& problem, const void* values, const Off* begin,
                                      const Off* end, std::uint64_t segments) {
  SegReduceExpected e;
  const ReduceProblem r = problem.as_reduce();
  const std::size_t size = size_of(problem.type);
  // Each segment's: the reduce family's reference, or the arg-reductions' (reduction_reference.hpp).
  for (std::uint64_t s = 0; s < segments; ++s) {
    e.length.push_back(end[s] > begin[s] ? static_cast<std::uint64_t>(end[s] - begin[s]) : 0);
    if (problem.op == SegReduceOp::user) continue;
    const auto* segment = static_cast<const unsigned char*>(values) + begin[s] * size;
    if (!is_arg(problem.op)) {
      e.value.push_back(reference_reduce(r, segment, e.length[s]));
      continue;
    }
    const ArgExpected a = reference_arg_extreme(problem.type, problem.op == SegReduceOp::argmax, segment, e.length[s]);
    e.key.push_back(static_cast<int>(a.index));
    e.bits.push_back(a.value_bits);
  }
  return e;
}

template SegReduceExpected reference_segreduce(const SegReduceProblem&, const void*, const int*, const int*,
                                               std::uint64_t);
template SegReduceExpected reference_segreduce(const SegReduceProblem&, const void*, const std::int64_t*,
                                               const std::int64_t*, std::uint64_t);

std::string compare_segreduce(const SegReduceProblem& problem, const SegReduceExpected& expected, const void* got) {
  const auto* bytes = static_cast<const unsigned char*>(got);
  const std::size_t stride = problem.result_bytes(), size = size_of(problem.type);
  const ReduceProblem r = problem.as_reduce();
  return segment_report(expected.length, [&](std::uint64_t s) -> std::string {
    if (!is_arg(problem.op)) return compare_reduce(r, expected.value[s], bytes + s * stride, expected.length[s]);
    int key = 0;
    std::uint64_t bits = 0;
    std::memcpy(&key, bytes + s * stride, 4);
    std::memcpy(&bits, bytes + s * stride + stride / 2, size);
    if (key == expected.key[s] && bits == expected.bits[s]) return {};
    return fmt::format("expected key {} value bits 0x{:x}, got key {} value bits 0x{:x}", expected.key[s],
                       expected.bits[s], key, bits);
  });
}

std::uint64_t segment_chain(const SegReduceConfig& config, std::uint64_t length) {
  auto share = [](std::uint64_t n, std::uint64_t lanes) { return n == 0 ? 0 : (n - 1) / lanes + 1; };
  // One load's elements at most (16 bytes of i8), in the unaligned head and again in the tail.
  constexpr std::uint64_t kEdges = 2 * 16;
  const std::uint64_t group = share(length, static_cast<std::uint64_t>(config.group)) + kEdges;
  if (config.small_max == 0 || length <= static_cast<std::uint64_t>(config.small_max)) return group;
  const std::uint64_t chunk = static_cast<std::uint64_t>(config.chunk), block = static_cast<std::uint64_t>(config.block);
  const std::uint64_t queued = share(std::min(length, chunk), block) + kEdges + share(share(length, chunk), block);
  return std::max(group, queued);
}

std::string compare_segreduce_user(const SegReduceProblem& problem, const std::vector<std::uint64_t>& lengths,
                                   const void* reference, const SegReduceConfig& reference_config, const void* got,
                                   const SegReduceConfig* variant) {
  const auto* want = static_cast<const unsigned char*>(reference);
  const auto* have = static_cast<const unsigned char*>(got);
  const std::size_t stride = problem.result_bytes();
  const ReduceProblem r = problem.as_reduce();
  return segment_report(lengths, [&](std::uint64_t s) {
    const std::uint64_t len = lengths[s];
    const std::uint64_t chain = segment_chain(reference_config, len) + (variant ? segment_chain(*variant, len) : len);
    return compare_user_results(r, want + s * stride, have + s * stride, len, chain);
  });
}

}  // namespace autotune

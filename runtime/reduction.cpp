// Reductions: problem and configuration vocabulary (names, keys, validation) and the generated kernel source.
#include "autotune/reduction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "autotune/error.hpp"
#include "runtime/key_text.hpp"

namespace autotune::embedded {
extern const std::string_view reduce_template;
}

namespace autotune {

namespace {

struct ValueInfo {
  ValueType type;
  std::string_view name;
  std::size_t size;
  bool is_float;
  bool is_signed;
  std::string_view cuda;           // the type in the kernel
  std::string_view cuda_unsigned;  // its unsigned twin: integer sums add in it, so wrapping is defined
};

constexpr ValueInfo kValues[] = {
    {ValueType::i32, "i32", 4, false, true, "int", "unsigned int"},
    {ValueType::u32, "u32", 4, false, false, "unsigned int", "unsigned int"},
    {ValueType::i64, "i64", 8, false, true, "long long", "unsigned long long"},
    {ValueType::u64, "u64", 8, false, false, "unsigned long long", "unsigned long long"},
    {ValueType::f32, "f32", 4, true, true, "float", "float"},
    {ValueType::f64, "f64", 8, true, true, "double", "double"},
};

const ValueInfo& info(ValueType t) {
  for (const auto& i : kValues)
    if (i.type == t) return i;
  throw UsageError("unknown value type");
}

constexpr std::string_view kOpNames[] = {"sum", "min", "max"};
constexpr BlockReduce kBlockReduces[] = {BlockReduce::atomic, BlockReduce::shared_tree, BlockReduce::warp_shuffle,
                                         BlockReduce::warp_reduce};
constexpr Finish kFinishes[] = {Finish::atomic, Finish::last_block, Finish::two_pass};

using key_text::to_enum;
using key_text::to_int;

}  // namespace

// --- value types and operations --------------------------------------------------------------------------------------

std::string_view to_string(ValueType t) { return info(t).name; }
std::size_t size_of(ValueType t) { return info(t).size; }
bool is_float(ValueType t) { return info(t).is_float; }

std::optional<ValueType> parse_value_type(std::string_view text) {
  for (const auto& i : kValues)
    if (i.name == text) return i.type;
  return std::nullopt;
}

const std::vector<ValueType>& all_value_types() {
  static const std::vector<ValueType> all = [] {
    std::vector<ValueType> v;
    for (const auto& i : kValues) v.push_back(i.type);
    return v;
  }();
  return all;
}

std::string_view to_string(ReduceOp op) { return kOpNames[static_cast<int>(op)]; }

std::optional<ReduceOp> parse_reduce_op(std::string_view text) {
  for (int i = 0; i < 3; ++i)
    if (kOpNames[i] == text) return static_cast<ReduceOp>(i);
  return std::nullopt;
}

// --- the problem -----------------------------------------------------------------------------------------------------

const std::vector<std::string>& reduce_distributions() {
  // Described in tuner/reduce_reference.hpp (generate_values).
  static const std::vector<std::string> d{"uniform", "constant", "sorted"};
  return d;
}

ValueType ReduceProblem::accumulator_type() const {
  if (accumulator) return *accumulator;
  if (op != ReduceOp::sum) return type;
  // A 32-bit integer sum overflows after a handful of large elements: widen by default (CUB does the same when
  // asked for a 64-bit output; our callers should not have to know).
  if (type == ValueType::i32) return ValueType::i64;
  if (type == ValueType::u32) return ValueType::u64;
  return type;
}

ReduceProblem ReduceProblem::normalized() const {
  ReduceProblem p = *this;
  p.accumulator = accumulator_type();
  // Only a float sum depends on the order of its operations; everything else is exact whatever the kernel does.
  if (op != ReduceOp::sum || !is_float(*p.accumulator)) p.deterministic = true;
  return p;
}

void ReduceProblem::validate() const {
  const ValueInfo& in = info(type);
  const ValueInfo& acc = info(accumulator_type());
  if (op != ReduceOp::sum && acc.type != in.type)
    throw UsageError(fmt::format("{} of {} values is computed in {}; an accumulator of {} is not supported",
                                 to_string(op), in.name, in.name, acc.name));
  if (op == ReduceOp::sum) {
    if (in.is_float != acc.is_float)
      throw UsageError(fmt::format("a sum of {} values cannot accumulate in {} ({} into {})", in.name, acc.name,
                                   in.is_float ? "float" : "integer", acc.is_float ? "float" : "integer"));
    if (acc.size < in.size)
      throw UsageError(fmt::format("a {} accumulator is narrower than the {} values it sums", acc.name, in.name));
    if (!in.is_float && in.is_signed != acc.is_signed)
      throw UsageError(fmt::format("a sum of {} values cannot accumulate in {} (signedness differs)", in.name,
                                   acc.name));
  }
  if (std::find(reduce_distributions().begin(), reduce_distributions().end(), distribution) ==
      reduce_distributions().end())
    throw UsageError(fmt::format("unknown distribution '{}' (known: {})", distribution,
                                 fmt::join(reduce_distributions(), ", ")));
}

std::string ReduceProblem::shape_key() const {
  const ReduceProblem p = normalized();
  return fmt::format("reduce/{}/{}/acc={}/dist={}{}", to_string(p.op), to_string(p.type),
                     to_string(*p.accumulator), p.distribution, p.deterministic ? "" : "/mode=fast");
}

std::string ReduceProblem::key() const {
  const ReduceProblem p = normalized();
  return fmt::format("reduce/{}/{}/acc={}/n={}/dist={}{}", to_string(p.op), to_string(p.type),
                     to_string(*p.accumulator), p.n, p.distribution, p.deterministic ? "" : "/mode=fast");
}

std::uint64_t ReduceProblem::identity_bits() const {
  const ValueType acc = accumulator_type();
  if (op == ReduceOp::sum) return 0;  // 0 and +0.0 alike
  const bool lowest = op == ReduceOp::max;  // max starts from the smallest value, min from the largest
  switch (acc) {
    case ValueType::i32: return lowest ? 0x80000000u : 0x7FFFFFFFu;
    case ValueType::u32: return lowest ? 0u : 0xFFFFFFFFu;
    case ValueType::i64: return lowest ? 0x8000000000000000ull : 0x7FFFFFFFFFFFFFFFull;
    case ValueType::u64: return lowest ? 0ull : ~0ull;
    case ValueType::f32: return lowest ? 0xFF800000u : 0x7F800000u;                        // -inf, +inf
    case ValueType::f64: return lowest ? 0xFFF0000000000000ull : 0x7FF0000000000000ull;  // -inf, +inf
  }
  throw UsageError("unknown value type");
}

// --- the configuration -----------------------------------------------------------------------------------------------

std::string_view to_string(BlockReduce b) {
  switch (b) {
    case BlockReduce::atomic: return "atomic";
    case BlockReduce::shared_tree: return "shared_tree";
    case BlockReduce::warp_shuffle: return "warp_shuffle";
    case BlockReduce::warp_reduce: return "warp_reduce";
  }
  return "?";
}

std::string_view to_string(Finish f) {
  switch (f) {
    case Finish::atomic: return "atomic";
    case Finish::last_block: return "last_block";
    case Finish::two_pass: return "two_pass";
  }
  return "?";
}

std::string ReduceConfig::key() const {
  return fmt::format("red={},block={},vec={},loads={},acc={},finish={},grid={}", to_string(block_reduce), block,
                     vec_bytes, loads, accumulators, to_string(finish), grid_blocks);
}

std::optional<ReduceConfig> ReduceConfig::parse(std::string_view key) {
  const auto fields = key_text::split(key);
  if (!fields) return std::nullopt;
  const key_text::Fields& f = *fields;
  const char* names[] = {"red", "block", "vec", "loads", "acc", "finish", "grid"};
  if (f.size() != std::size(names)) return std::nullopt;
  for (const char* n : names)
    if (!f.count(n)) return std::nullopt;
  const auto red = to_enum(f.at("red"), kBlockReduces);
  const auto finish = to_enum(f.at("finish"), kFinishes);
  const auto block = to_int(f.at("block")), vec = to_int(f.at("vec")), loads = to_int(f.at("loads")),
             acc = to_int(f.at("acc")), grid = to_int(f.at("grid"));
  if (!red || !finish || !block || !vec || !loads || !acc || !grid) return std::nullopt;
  if (*block < 1 || *vec < 0 || *loads < 1 || *acc < 1 || *grid < -1) return std::nullopt;
  ReduceConfig c;
  c.block_reduce = *red;
  c.block = *block;
  c.vec_bytes = *vec;
  c.loads = *loads;
  c.accumulators = *acc;
  c.finish = *finish;
  c.grid_blocks = *grid;
  return c;
}

int ReduceConfig::elems_per_load(const ReduceProblem& problem) const {
  return vec_bytes == 0 ? 1 : vec_bytes / static_cast<int>(size_of(problem.type));
}

std::size_t ReduceConfig::shared_bytes(const ReduceProblem& problem) const {
  const std::size_t acc = size_of(problem.accumulator_type());
  switch (block_reduce) {
    case BlockReduce::atomic: return 0;
    case BlockReduce::shared_tree: return static_cast<std::size_t>(block) * acc;  // one slot per thread
    case BlockReduce::warp_shuffle:
    case BlockReduce::warp_reduce: return static_cast<std::size_t>(block / 32) * acc;  // one slot per warp
  }
  return 0;
}

std::string ReduceConfig::invalid_reason(const ReduceProblem& problem) const {
  const ReduceProblem p = problem.normalized();
  const ValueType acc = *p.accumulator;
  if (block < 64 || block > 1024 || block % 32 != 0)
    return fmt::format("block {} is not a multiple of 32 in 64..1024", block);
  if (vec_bytes != 0 && vec_bytes != 4 && vec_bytes != 8 && vec_bytes != 16)
    return fmt::format("vector width {} is not 0 (one element), 4, 8 or 16 bytes", vec_bytes);
  if (vec_bytes != 0 && static_cast<std::size_t>(vec_bytes) < size_of(p.type))
    return fmt::format("{}-byte loads are narrower than {} elements", vec_bytes, to_string(p.type));
  if (loads < 1 || loads > 16) return fmt::format("loads {} is outside 1..16", loads);
  if (accumulators != 1 && accumulators != 2 && accumulators != 4)
    return fmt::format("accumulators {} is not 1, 2 or 4", accumulators);
  if (grid_blocks < -1 || grid_blocks > 1)
    return fmt::format("grid {} is not -1 (cover n), 0 (resident blocks) or 1 (one block)", grid_blocks);
  if (block_reduce == BlockReduce::warp_reduce && (is_float(acc) || size_of(acc) != 4))
    return fmt::format("warp_reduce (__reduce_*_sync) exists for 32-bit integers only, not a {} accumulator",
                       to_string(acc));
  if (block_reduce == BlockReduce::atomic && finish != Finish::atomic)
    return "per-thread atomics (red=atomic) combine straight into the output: they need finish=atomic";
  // One block writes its result directly, whatever the finish: one spelling keeps one key per kernel.
  if (grid_blocks == 1 && finish != Finish::last_block)
    return "the single-block path (grid=1) writes its result directly and is spelled finish=last_block";
  if (p.deterministic && p.op == ReduceOp::sum && is_float(acc) &&
      (finish == Finish::atomic || block_reduce == BlockReduce::atomic))
    return "float atomics add in no fixed order: a deterministic float sum cannot finish with atomics (mode=fast can)";
  return {};
}

ReduceConfig ReduceConfig::fallback(const ReduceProblem&) {
  // Warp shuffles and the last-block finish exist for every type on sm_70 and are deterministic; 16-byte loads work
  // for any pointer aligned to its element (the kernel reads the unaligned head one element at a time); 64 bytes
  // of shared memory and 256 threads fit every GPU. This is ReduceConfig's default, spelled out.
  ReduceConfig c;
  c.block_reduce = BlockReduce::warp_shuffle;
  c.block = 256;
  c.vec_bytes = 16;
  c.loads = 2;
  c.accumulators = 1;
  c.finish = Finish::last_block;
  c.grid_blocks = 0;
  return c;
}

// --- the kernel source -----------------------------------------------------------------------------------------------

std::string kernel_source(const ReduceProblem& problem, const ReduceConfig& config) {
  problem.validate();
  if (const std::string why = config.invalid_reason(problem); !why.empty())
    throw UsageError(fmt::format("configuration {} is invalid for {}: {}", config.key(), problem.key(), why));
  const ReduceProblem p = problem.normalized();
  const ValueInfo& in = info(p.type);
  const ValueInfo& acc = info(*p.accumulator);
  const bool integer_sum = p.op == ReduceOp::sum && !acc.is_float;
  // Our canonical NaN for min/max is the default quiet NaN of the host (positive, payload zero).
  const std::uint64_t nan_bits = acc.size == 4 ? 0x7FC00000ull : 0x7FF8000000000000ull;
  // The comment names the shape, not n: the source (and so the cubin, and the on-disk compile cache entry) is
  // shared by every size of one reduction.
  std::string pre = fmt::format(
      "// Generated by autotune for reduction {} and configuration {}\n"
      "namespace at {{\n"
      "typedef {} in_t;\n"
      "typedef {} acc_t;\n"
      "typedef {} work_t;\n"
      "constexpr int kOp = {};\n"
      "constexpr bool kIsFloat = {};\n"
      "constexpr unsigned long long kIdentityBits = 0x{:x}ULL;\n"
      "constexpr unsigned long long kNaNBits = 0x{:x}ULL;\n"
      "constexpr int kBlock = {};\n"
      "constexpr int kVecBytes = {};\n"
      "constexpr int kLoads = {};\n"
      "constexpr int kAccumulators = {};\n"
      "constexpr int kBlockReduce = {};\n"
      "constexpr int kFinish = {};\n"
      "constexpr bool kSingleBlock = {};\n"
      "}}  // namespace at\n"
      "#line 1 \"reduce.cu\"\n",
      p.shape_key(), config.key(), in.cuda, acc.cuda, integer_sum ? acc.cuda_unsigned : acc.cuda,
      static_cast<int>(p.op), acc.is_float, p.identity_bits(), acc.is_float ? nan_bits : 0ull, config.block,
      config.elems_per_load(p) * static_cast<int>(in.size), config.loads, config.accumulators,
      static_cast<int>(config.block_reduce), static_cast<int>(config.finish), config.grid_blocks == 1);
  pre += embedded::reduce_template;
  return pre;
}

}  // namespace autotune

// Reduction benchmark: the best variant of the space against cub::DeviceReduce and the read roof, on this GPU, in the
// same run. For each case (f32, i32, f64 x sum, min, max x N = 1K .. 256M; f16 and bf16 x sum, absmax, sumsq against
// TransformReduce with a float accumulator; a user max against the built-in one) every variant of reduce_space is compiled
// (once per type and op, in parallel), verified against the CPU reference on the case's input, and timed; the
// fastest four correct ones (and any within 1 % of the fastest) and CUB are then timed together in --samples
// interleaved rounds (bench::final_round: CUDA events around one complete call, presets and second launches
// included, L2 flushed before every call), and the winner (timing.hpp's pick_winner: near-ties go to the cheaper
// configuration) is picked among them on those times, its median and CUB's from the same rounds. GB/s counts the input bytes once; % roof is against the read-only 16-byte
// streaming kernel measured at the start of the run.
//
//   reduce_bench [--quick | --large] [--samples K] [--screen K] [--limit K] [--markdown FILE]
//     --quick     the target rows only: f16 and bf16 x sum, absmax, sumsq at 1M and 256M; f32 max and the same max
//                 as a user operator ('a > b ? a : b', identity -INFINITY) at 256M, with the user's slowdown against
//                 the built-in one in a table of its own
//     --large     f32 and f64 sum, min and max at 128M and 256M: min and max against the sum's time at the roof
//     --samples   samples for the winner and CUB (default 30)
//     --screen    samples per variant while searching (default 10)
//     --limit     only the first K variants of each space (the built-in default is always the first)
//     --compile-only [--arch ARCH]   the cases' spaces into the compile cache, nothing run (bench/compile_space.hpp)
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "autotune/reduce_problem.hpp"
#include "bench/cub_baseline.hpp"
#include "bench/cub_reduce.hpp"
#include "bench/bench_common.hpp"
#include "bench/compile_space.hpp"
#include "bench/read_roof.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "tuner/harness.hpp"

using namespace autotune;

namespace {

struct Options {
  bool quick = false;
  bool large = false;
  int samples = 30;
  int screen = 10;
  std::size_t limit = 0;  // 0: the whole space
  std::string markdown;
  bool compile_only = false;
  std::string arch;
};

// The user operator of the comparison: the built-in max's semantics on inputs without NaN, so its results are checked
// against the max's reference and CUB's Max.
ReduceProblem user_max(std::uint64_t n) {
  ReduceProblem p;
  p.op = ReduceOp::user, p.type = ValueType::f32, p.n = n;
  p.user = UserOp{"a > b ? a : b", "-INFINITY", ""};
  return p;
}

// The halves' target rows and the user max against the built-in max.
void add_target_rows(std::vector<ReduceProblem>& out) {
  for (std::uint64_t n : {1ull << 20, 256ull << 20})
    for (ValueType t : {ValueType::bf16, ValueType::f16})
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::absmax, ReduceOp::sumsq}) {
        ReduceProblem p;
        p.type = t, p.op = op, p.n = n;
        out.push_back(p);
      }
  ReduceProblem max;
  max.type = ValueType::f32, max.op = ReduceOp::max, max.n = 256ull << 20;
  out.push_back(max);
  out.push_back(user_max(256ull << 20));
}

std::vector<ReduceProblem> cases(bool quick, bool large) {
  std::vector<ReduceProblem> out;
  auto add = [&](ValueType t, ReduceOp op, std::uint64_t n) {
    ReduceProblem p;
    p.type = t, p.op = op, p.n = n;
    out.push_back(p);
  };
  if (large) {
    for (ValueType t : {ValueType::f32, ValueType::f64})
      for (std::uint64_t n : {128ull << 20, 256ull << 20})
        for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max}) add(t, op, n);
    return out;
  }
  if (quick) {
    add_target_rows(out);
    return out;
  }
  for (ValueType t : {ValueType::f32, ValueType::i32, ValueType::f64})
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max})
      for (std::uint64_t n : {1ull << 10, 64ull << 10, 1ull << 20, 16ull << 20, 256ull << 20}) add(t, op, n);
  add_target_rows(out);
  return out;
}

// The row's name: "bf16 sumsq", "f32 user max" for the user operator.
std::string case_name(const ReduceProblem& p) {
  if (p.op == ReduceOp::user) return fmt::format("{} user max", to_string(p.type));
  return fmt::format("{} {}", to_string(p.type), to_string(p.op));
}

// What a case is checked as: the user max as the built-in max (its inputs hold no NaN).
ReduceProblem checked_as(const ReduceProblem& p) {
  if (p.op != ReduceOp::user) return p;
  ReduceProblem max = p;
  max.op = ReduceOp::max;
  max.user = {};
  return max;
}

std::string fmt_us(double ms) { return fmt::format("{:.1f}", ms * 1000.0); }

std::string fmt_n(std::uint64_t n) {
  if (n >= (1ull << 20) && n % (1ull << 20) == 0) return fmt::format("{}M", n >> 20);
  if (n >= (1ull << 10) && n % (1ull << 10) == 0) return fmt::format("{}K", n >> 10);
  return std::to_string(n);
}

// Every variant of one type and op, loaded once and reused for every size (the source does not depend on n).
using Shape = bench::CompiledSpace<ReduceConfig, ReduceKernel>;

Shape build_shape(const ReduceProblem& p, const DeviceInfo& dev, std::size_t limit) {
  ReduceProblem all = p;
  all.n = 0;  // the largest space (the single-block path included); each size picks its own part
  std::vector<ReduceConfig> configs;
  for (const auto& c : reduce_space(all))
    if (reduce_violation(all, c, &dev).empty()) configs.push_back(c);
  if (limit && configs.size() > limit) configs.resize(limit);
  return bench::compile_space<ReduceKernel>(all, std::move(configs), dev, "reduce.cu");
}

// The user max's tuned time against the built-in max's, both at 256M in this run: the target is a slowdown of at most
// 3 %. Empty when either is missing.
std::string user_table(const std::map<std::string, double>& median_at_256m) {
  const auto user = median_at_256m.find("f32 user max"), builtin = median_at_256m.find("f32 max");
  if (user == median_at_256m.end() || builtin == median_at_256m.end()) return {};
  const std::string text = fmt::format(
      "\nA user operator against the built-in one (both tuned above, same input):\n\n"
      "| case | n | user (us) | built-in (us) | vs built-in |\n|---|---:|---:|---:|---:|\n"
      "| f32 user max | 256M | {} | {} | {:+.1f} % |\n",
      fmt_us(user->second), fmt_us(builtin->second), 100.0 * (user->second / builtin->second - 1.0));
  std::printf("%s", text.c_str());
  return text;
}

}  // namespace

int main(int argc, char** argv) try {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") o.quick = true;
    else if (a == "--large") o.large = true;
    else if (a == "--samples" && i + 1 < argc) o.samples = std::stoi(argv[++i]);
    else if (a == "--screen" && i + 1 < argc) o.screen = std::stoi(argv[++i]);
    else if (a == "--limit" && i + 1 < argc) o.limit = std::stoul(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) o.markdown = argv[++i];
    else if (a == "--compile-only") o.compile_only = true;
    else if (a == "--arch" && i + 1 < argc) o.arch = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: reduce_bench [--quick | --large] [--samples K] [--screen K] [--limit K] [--markdown FILE] "
                   "[--compile-only [--arch ARCH]]\n");
      return 2;
    }
  }
  if (o.compile_only) {  // each shape's space as build_shape takes it (n = 0), into the compile cache
    std::vector<std::string> sources;
    for (const ReduceProblem& p : cases(o.quick, o.large)) {
      ReduceProblem all = p;
      all.n = 0;
      auto configs = reduce_space(all);
      if (o.limit && configs.size() > o.limit) configs.resize(o.limit);
      bench::add_sources(sources, all, configs);
    }
    return bench::compile_ahead(sources, o.arch.empty() ? query_device(0).arch() : o.arch, "reduce_bench");
  }
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * dev.l2_bytes);

  const bench::ReadRoof roof = bench::measure_bench_roof(flush, o.samples, stream.get());
  const double roof_gbps = roof.gbps, roof_spread = roof.spread;

  std::string header = fmt::format(
      "# Reduction benchmark: {} ({} SMs, {} MiB L2), driver {}.{}, NVRTC {}.{}\n\n"
      "Read roof (16-byte streaming read of 512 MiB): **{:.0f} GB/s** (spread {:.1f} %). Every variant of the space\n"
      "is verified on the case's input and timed ({} samples); the fastest four (and any within 1 % of the fastest)\n"
      "and cub::DeviceReduce are then timed in {} interleaved rounds, the winner picked on those times: the median\n"
      "of calls with the L2 flushed before each, events around one whole call (an identity preset or a second launch\n"
      "included). Deterministic mode: float sums finish in a fixed order.\n\n"
      "| case | n | winner | time (us) | GB/s | % roof | CUB (us) | CUB GB/s | vs CUB | correct |\n"
      "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n",
      dev.name, dev.sm_count, dev.l2_bytes >> 20, dev.driver_version / 1000, dev.driver_version % 1000 / 10,
      dev.nvrtc_version / 1000, dev.nvrtc_version % 1000 / 10, roof_gbps, roof_spread * 100, o.screen, o.samples);
  std::printf("%s", header.c_str());
  std::fflush(stdout);
  std::string table = header;

  std::map<std::string, Shape> shapes;  // by shape key
  std::map<std::string, double> median_at_256m;  // by case name: the user max against the built-in max
  cuda::DeviceBuffer ours(16), theirs(16);
  for (const ReduceProblem& p : cases(o.quick, o.large)) {
    const std::string name = case_name(p);
    const ReduceProblem check = checked_as(p);
    auto it = shapes.find(p.shape_key());
    if (it == shapes.end()) it = shapes.emplace(p.shape_key(), build_shape(p, dev, o.limit)).first;
    const Shape& shape = it->second;

    const auto host = generate_values(check, p.n, 42 + p.n);
    const ReduceExpected expected = reference_reduce(check, host.data(), p.n);
    cuda::DeviceBuffer in(host.size());
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    // A pageable copy may return before its DMA lands: wait before a non-blocking stream reads it.
    AUTOTUNE_CUDA(cudaDeviceSynchronize());

    // Verify and screen every variant of this size's space.
    const auto space = reduce_space(p);
    std::vector<Candidate> candidates;
    std::vector<const ReduceKernel*> contenders;
    std::size_t tried = 0;
    for (std::size_t i = 0; i < shape.configs.size(); ++i) {
      if (std::find(space.begin(), space.end(), shape.configs[i]) == space.end()) continue;
      ++tried;
      if (!shape.kernels[i]) {
        std::fprintf(stderr, "%s n=%llu %s: %s\n", name.c_str(), static_cast<unsigned long long>(p.n),
                     shape.configs[i].key().c_str(), shape.errors[i].c_str());
        continue;
      }
      const ReduceKernel& k = *shape.kernels[i];
      unsigned char got[16];
      AUTOTUNE_CUDA(cudaMemsetAsync(ours.get(), 0xAB, ours.bytes(), stream.get()));
      k.run(in.get(), p.n, ours.get(), stream.get());
      AUTOTUNE_CUDA(cudaMemcpyAsync(got, ours.get(), sizeof got, cudaMemcpyDeviceToHost, stream.get()));
      AUTOTUNE_CUDA(cudaStreamSynchronize(stream.get()));
      if (const std::string diff =
              compare_reduce(check, expected, got, p.n, addition_chain(k.config(), p.n, k.grid_for(p.n)));
          !diff.empty()) {
        std::fprintf(stderr, "%s n=%llu %s: WRONG: %s\n", name.c_str(), static_cast<unsigned long long>(p.n),
                     k.config().key().c_str(), diff.c_str());
        continue;
      }
      const SampleStats t =
          time_calls([&](cudaStream_t s) { k.run(in.get(), p.n, ours.get(), s); }, flush, o.screen, stream.get());
      candidates.push_back({t.median, t.noise, k.config().shared_bytes(p), k.config().block, k.config().key()});
      contenders.push_back(&k);
    }
    if (candidates.empty()) {
      const std::string row = fmt::format("| {} | {} | no correct variant | | | | | | | 0/{} |\n", name, fmt_n(p.n), tried);
      std::printf("%s", row.c_str());
      table += row;
      continue;
    }
    static_assert(static_cast<int>(ValueType::bf16) == static_cast<int>(bench::CubValue::bf16));
    static_assert(static_cast<int>(ReduceOp::sumsq) == static_cast<int>(bench::CubOp::sumsq));
    // The finalists and CUB in interleaved rounds (bench::final_round); CUB writes its own buffer.
    bench::CubReduce cub(static_cast<bench::CubValue>(check.type), static_cast<bench::CubOp>(check.op), p.n);
    const bench::FinalRound final = bench::final_round(
        candidates, [&](std::size_t i, cudaStream_t s) { contenders[i]->run(in.get(), p.n, ours.get(), s); },
        [&](cudaStream_t s) { cub.run(in.get(), theirs.get(), s); }, flush, o.samples, stream.get());
    const ReduceKernel& winner = *contenders[final.winner];
    // The winner's result last in `ours`: what is checked below.
    winner.run(in.get(), p.n, ours.get(), stream.get());
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream.get()));
    const SampleStats t_ours = final.ours, t_cub = final.cub;
    // Both answers checked after the timed calls: ours by the reference's rules, CUB's the same way.
    unsigned char got[16], got_cub[16];
    AUTOTUNE_CUDA(cudaMemcpy(got, ours.get(), sizeof got, cudaMemcpyDeviceToHost));
    AUTOTUNE_CUDA(cudaMemcpy(got_cub, theirs.get(), sizeof got_cub, cudaMemcpyDeviceToHost));
    const std::string diff =
        compare_reduce(check, expected, got, p.n, addition_chain(winner.config(), p.n, winner.grid_for(p.n)));
    // CUB's order is its own: held to the bound of a per-thread run as long as one thread's share on 256 threads per
    // multiprocessor (CUB's even-share grids run at least that many; more threads only shorten the run).
    const std::uint64_t cub_chain = p.n / (256ull * static_cast<std::uint64_t>(dev.sm_count)) + 1;
    const std::string diff_cub = compare_reduce(check, expected, got_cub, p.n, cub_chain);
    const double gbps = p.bytes() / (t_ours.median * 1e-3) / 1e9;
    const double cub_gbps = p.bytes() / (t_cub.median * 1e-3) / 1e9;
    const std::string note =
        (diff.empty() ? "" : " WRONG RESULT: " + diff) + (diff_cub.empty() ? "" : " (CUB: " + diff_cub + ")");
    const std::string row = fmt::format(
        "| {} | {} | `{}` | {} | {:.0f} | {:.1f} | {} | {:.0f} | **{:.2f}x** | {}/{} |{}\n", name, fmt_n(p.n),
        winner.config().key(), fmt_us(t_ours.median), gbps, 100.0 * gbps / roof_gbps, fmt_us(t_cub.median), cub_gbps,
        t_cub.median / t_ours.median, candidates.size(), tried, note);
    std::printf("%s", row.c_str());
    std::fflush(stdout);
    table += row;
    if (p.n == 256ull << 20 && diff.empty()) median_at_256m[name] = t_ours.median;
  }
  table += user_table(median_at_256m);
  if (!o.markdown.empty()) std::ofstream(o.markdown) << table;
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "reduce_bench: %s\n", e.what());
  return 1;
}

// Arg-reduction benchmark: the best variant of the space against cub::DeviceReduce::ArgMax / ArgMin and the read
// roof, on this GPU, in the same run (the method of bench/reduce_bench.cpp). For each case every variant of
// argreduce_space is compiled (once per type and op, in parallel), verified exactly against the CPU reference on the
// case's input, and timed; the fastest four correct ones (and any within 1 % of the fastest) and CUB are then timed
// together in --samples interleaved rounds (bench::final_round: each round every contender once, CUDA events around
// one complete call, a second launch included, L2 flushed before every call), and the winner (timing.hpp's
// pick_winner) is picked among them on those times, its median and CUB's from the same rounds. GB/s counts the input bytes once; % roof is against the read-only 16-byte streaming kernel measured
// at the start of the run. Besides uniform values, real-ish inputs: a drifting random walk ("skewed", a time series
// whose running maximum moves often), ascending values ("sorted") and all-equal values ("constant": every element
// ties, the answer is index 0). Halves: bf16 and f16 argmax at 1M and 256M (bf16 argmax over logits is the ML case),
// 2 bytes an element, against CUB's ArgMax on __nv_bfloat16 / __half.
//
// Where the small sizes go: each row also gives the fastest (value, index) pair variant finished from partials, the
// fastest packed-key variant (pack=u64: types of up to 32 bits) and the fastest wide-key variant (finish=atomic: the
// 8-byte types' 128-bit keys) of the screening, and the run ends with its floors, timed by the same harness:
// an empty kernel (the launch + event + cold-L2 floor) and the f32 sum of the reduction family at the small sizes
// (the best of its small-n winners, kernel_templates/reduce/policy.json): what a reduction that reads the same bytes
// without an index pays.
//
//   argreduce_bench [--quick | --small] [--no-cluster] [--samples K] [--screen K] [--limit K] [--markdown FILE]
//     --quick     f32 argmax at 64K, 1M and 256M (uniform), skewed 256M; bf16 argmax at 1M and 256M
//     --small     only the cases of at most 1M elements (f32, i32, f64), and the floors
//     --no-cluster  leave the thread-block cluster variants (grid=8) out
//     --samples   samples for the winner and CUB (default 30)
//     --screen    samples per variant while searching (default 10)
//     --limit     only the first K variants of each space (the built-in default is always the first)
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "autotune/argreduce_problem.hpp"
#include "autotune/error.hpp"
#include "bench/cub_argreduce.hpp"
#include "bench/bench_common.hpp"
#include "bench/compile_space.hpp"
#include "bench/read_roof.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "kernel_templates/argreduce/launcher.hpp"
#include "kernel_templates/argreduce/reference.hpp"
#include "kernel_templates/argreduce/space.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "tuner/harness.hpp"

using namespace autotune;

namespace {

struct Options {
  bool quick = false;
  bool small = false;
  bool no_cluster = false;
  int samples = 30;
  int screen = 10;
  std::size_t limit = 0;
  std::string markdown;
};

std::vector<ArgReduceProblem> cases(bool quick, bool small) {
  std::vector<ArgReduceProblem> out;
  auto add = [&](ValueType t, ArgOp op, std::uint64_t n, const char* dist = "uniform") {
    ArgReduceProblem p;
    p.type = t, p.op = op, p.n = n, p.distribution = dist;
    out.push_back(p);
  };
  if (quick) {
    for (std::uint64_t n : {64ull << 10, 1ull << 20, 256ull << 20}) add(ValueType::f32, ArgOp::argmax, n);
    add(ValueType::f32, ArgOp::argmax, 256ull << 20, "skewed");
    for (std::uint64_t n : {1ull << 20, 256ull << 20}) add(ValueType::bf16, ArgOp::argmax, n);
    return out;
  }
  if (small) {
    for (std::uint64_t n : {1ull << 10, 64ull << 10, 256ull << 10, 1ull << 20}) add(ValueType::f32, ArgOp::argmax, n);
    for (std::uint64_t n : {64ull << 10, 1ull << 20}) {
      add(ValueType::f32, ArgOp::argmin, n);
      add(ValueType::i32, ArgOp::argmax, n);
      add(ValueType::f64, ArgOp::argmax, n);
    }
    return out;
  }
  for (std::uint64_t n : {1ull << 10, 64ull << 10, 256ull << 10, 1ull << 20, 16ull << 20, 256ull << 20})
    add(ValueType::f32, ArgOp::argmax, n);
  for (std::uint64_t n : {64ull << 10, 1ull << 20, 256ull << 20}) add(ValueType::f32, ArgOp::argmin, n);
  for (std::uint64_t n : {64ull << 10, 1ull << 20, 256ull << 20}) add(ValueType::i32, ArgOp::argmax, n);
  for (std::uint64_t n : {64ull << 10, 1ull << 20, 128ull << 20}) add(ValueType::f64, ArgOp::argmax, n);
  for (std::uint64_t n : {1ull << 20, 256ull << 20}) add(ValueType::f32, ArgOp::argmax, n, "skewed");
  for (std::uint64_t n : {1ull << 20, 16ull << 20}) add(ValueType::f32, ArgOp::argmax, n, "sorted");
  add(ValueType::f32, ArgOp::argmax, 256ull << 20, "constant");
  for (ValueType t : {ValueType::bf16, ValueType::f16})
    for (std::uint64_t n : {1ull << 20, 256ull << 20}) add(t, ArgOp::argmax, n);
  return out;
}

std::string fmt_us(double ms) { return fmt::format("{:.1f}", ms * 1000.0); }

std::string fmt_n(std::uint64_t n) {
  if (n >= (1ull << 20) && n % (1ull << 20) == 0) return fmt::format("{}M", n >> 20);
  if (n >= (1ull << 10) && n % (1ull << 10) == 0) return fmt::format("{}K", n >> 10);
  return std::to_string(n);
}

// Every variant of one type and op, loaded once and reused for every size and distribution.
using Shape = bench::CompiledSpace<ArgReduceConfig, ArgReduceKernel>;

Shape build_shape(const ArgReduceProblem& p, const DeviceInfo& dev, std::size_t limit, bool no_cluster) {
  ArgReduceProblem all = p;
  all.n = 0;  // the largest space (the small-n paths included); each size picks its own part
  std::vector<ArgReduceConfig> configs;
  for (const auto& c : argreduce_space(all))
    if (argreduce_violation(all, c, &dev).empty() && !(no_cluster && c.grid_blocks == kArgReduceClusterGrid))
      configs.push_back(c);
  if (limit && configs.size() > limit) configs.resize(limit);
  return bench::compile_space<ArgReduceKernel>(all, std::move(configs), dev, "argreduce.cu");
}

// The floors of this run, as text after the table (no second table: scripts/policy_from_bench.py reads the first):
// an empty kernel, and the f32 sum at the small sizes, each timed as the winners are.
std::string measure_floors(const DeviceInfo& dev, const cuda::DeviceBuffer& flush, int samples, cudaStream_t stream,
                           const std::map<std::uint64_t, double>& argmax_us) {
  std::string out = "\nFloors in this run (same harness: L2 flushed, events around one call, median of the samples):\n\n";
  const auto empty = jit::compile("extern \"C\" __global__ void autotune_empty() {}\n", "empty.cu", dev.arch());
  if (!empty.ok) throw Error("the empty kernel did not compile: " + empty.log);
  const cuda::Module module(empty.cubin, "autotune_empty");
  const SampleStats t_empty = time_calls(
      [&](cudaStream_t s) {
        AUTOTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(module.kernel()), dim3(1), dim3(32), nullptr, 0, s));
      },
      flush, samples, stream);
  out += fmt::format("- empty kernel (1 block of 32 threads): **{} us**\n", fmt_us(t_empty.median));
  // The reduction family's f32 sum winners of n <= 1M (kernel_templates/reduce/policy.json, 64K..1M).
  ReduceProblem sum;
  sum.op = ReduceOp::sum, sum.type = ValueType::f32;
  std::vector<ReduceConfig> configs;
  for (const char* key : {"red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0",
                          "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=-1",
                          "red=warp_shuffle,block=128,vec=16,loads=4,acc=1,finish=last_block,grid=0",
                          "red=warp_shuffle,block=1024,vec=16,loads=4,acc=1,finish=last_block,grid=1"})
    configs.push_back(*ReduceConfig::parse(key));
  const auto sums = bench::compile_space<ReduceKernel>(sum, configs, dev, "reduce.cu");
  cuda::DeviceBuffer result(8);
  for (const auto& entry : argmax_us) {  // no structured binding: the timing lambda captures n (clang 14)
    const std::uint64_t n = entry.first;
    const double argmax = entry.second;
    ReduceProblem at = sum;
    at.n = n;
    const auto host = generate_values(at, n, 42 + n);
    cuda::DeviceBuffer in(host.size());
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    double best = 0;
    std::string best_key;
    for (std::size_t i = 0; i < sums.configs.size(); ++i) {
      if (!sums.kernels[i] || (sums.configs[i].grid_blocks == 1 && n > (1u << 20))) continue;
      const ReduceKernel& k = *sums.kernels[i];
      const SampleStats t = time_calls([&](cudaStream_t s) { k.run(in.get(), n, result.get(), s); }, flush, samples, stream);
      if (best == 0 || t.median < best) best = t.median, best_key = k.config().key();
    }
    if (best == 0) continue;
    out += fmt::format("- n={}: f32 sum {} us (`{}`), f32 argmax winner {} us: the argmax pays {:+.1f} us over the "
                       "sum, {:.1f} us over the empty kernel\n",
                       fmt_n(n), fmt_us(best), best_key, fmt_us(argmax), (argmax - best) * 1e3,
                       (argmax - t_empty.median) * 1e3);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") o.quick = true;
    else if (a == "--small") o.small = true;
    else if (a == "--no-cluster") o.no_cluster = true;
    else if (a == "--samples" && i + 1 < argc) o.samples = std::stoi(argv[++i]);
    else if (a == "--screen" && i + 1 < argc) o.screen = std::stoi(argv[++i]);
    else if (a == "--limit" && i + 1 < argc) o.limit = std::stoul(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) o.markdown = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: argreduce_bench [--quick | --small] [--no-cluster] [--samples K] [--screen K] [--limit K] "
                   "[--markdown FILE]\n");
      return 2;
    }
  }
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * dev.l2_bytes);
  const bench::ReadRoof roof = bench::measure_bench_roof(flush, o.samples, stream.get());

  std::string header = fmt::format(
      "# Arg-reduction benchmark: {} ({} SMs, {} MiB L2), driver {}.{}, NVRTC {}.{}\n\n"
      "Read roof (16-byte streaming read of 512 MiB): **{:.0f} GB/s** (spread {:.1f} %). Every variant of the space\n"
      "is verified exactly (value bits and index) on the case's input and timed ({} samples); the fastest four (and\n"
      "any within 1 % of the fastest) and cub::DeviceReduce::ArgMax/ArgMin are then timed in {} interleaved rounds,\n"
      "the winner picked on those times: the median of calls with the L2 flushed before each, events around one\n"
      "whole call.\n\n"
      "| case | dist | n | winner | time (us) | GB/s | % roof | CUB (us) | CUB GB/s | vs CUB | correct | best pair / packed / wide (us, screening) |\n"
      "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      dev.name, dev.sm_count, dev.l2_bytes >> 20, dev.driver_version / 1000, dev.driver_version % 1000 / 10,
      dev.nvrtc_version / 1000, dev.nvrtc_version % 1000 / 10, roof.gbps, roof.spread * 100, o.screen, o.samples);
  std::printf("%s", header.c_str());
  std::fflush(stdout);
  std::string table = header;

  std::map<std::string, Shape> shapes;  // by type and op
  cuda::DeviceBuffer ours(16), theirs(16);
  std::map<std::uint64_t, double> f32_argmax_us;  // the winners of the small f32 argmax cases, for the floors
  for (const ArgReduceProblem& p : cases(o.quick, o.small)) {
    const std::string name = fmt::format("{} {}", to_string(p.type), to_string(p.op));
    auto it = shapes.find(name);
    if (it == shapes.end()) it = shapes.emplace(name, build_shape(p, dev, o.limit, o.no_cluster)).first;
    const Shape& shape = it->second;

    const auto host = generate_arg_values(p, p.n, 42 + p.n);
    const ArgExpected expected = reference_argreduce(p, host.data(), p.n);
    cuda::DeviceBuffer in(host.size());
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());

    const auto space = argreduce_space(p);
    std::vector<Candidate> candidates;
    std::vector<const ArgReduceKernel*> contenders;
    std::size_t tried = 0;
    double best_pair = 0, best_packed = 0, best_wide = 0;  // screening medians, 0 = none
    for (std::size_t i = 0; i < shape.configs.size(); ++i) {
      if (std::find(space.begin(), space.end(), shape.configs[i]) == space.end()) continue;
      ++tried;
      if (!shape.kernels[i]) {
        std::fprintf(stderr, "%s n=%llu %s: %s\n", name.c_str(), static_cast<unsigned long long>(p.n),
                     shape.configs[i].key().c_str(), shape.errors[i].c_str());
        continue;
      }
      const ArgReduceKernel& k = *shape.kernels[i];
      unsigned char got[16];
      try {  // a launch the driver refuses is this variant's failure, not the benchmark's
        AUTOTUNE_CUDA(cudaMemsetAsync(ours.get(), 0xAB, ours.bytes(), stream.get()));
        k.run(in.get(), p.n, ours.get(), stream.get());
        AUTOTUNE_CUDA(cudaMemcpyAsync(got, ours.get(), sizeof got, cudaMemcpyDeviceToHost, stream.get()));
        AUTOTUNE_CUDA(cudaStreamSynchronize(stream.get()));
      } catch (const Error& e) {
        std::fprintf(stderr, "%s n=%llu %s: FAILED: %s\n", name.c_str(), static_cast<unsigned long long>(p.n),
                     k.config().key().c_str(), e.what());
        continue;
      }
      if (const std::string diff = compare_argreduce(p, expected, got); !diff.empty()) {
        std::fprintf(stderr, "%s %s n=%llu %s: WRONG: %s\n", name.c_str(), p.distribution.c_str(),
                     static_cast<unsigned long long>(p.n), k.config().key().c_str(), diff.c_str());
        continue;
      }
      const SampleStats t =
          time_calls([&](cudaStream_t s) { k.run(in.get(), p.n, ours.get(), s); }, flush, o.screen, stream.get());
      double& best = k.config().pack ? best_packed : k.config().finish == Finish::atomic ? best_wide : best_pair;
      if (best == 0 || t.median < best) best = t.median;
      Candidate c{t.median, t.noise, k.config().shared_bytes(p), k.config().block, k.config().key()};
      c.launches = k.config().finish == Finish::two_pass ? 2 : 1;
      candidates.push_back(c);
      contenders.push_back(&k);
    }
    if (candidates.empty()) {
      const std::string row =
          fmt::format("| {} | {} | {} | no correct variant | | | | | | | 0/{} |\n", name, p.distribution, fmt_n(p.n), tried);
      std::printf("%s", row.c_str());
      table += row;
      continue;
    }
    // The finalists and CUB in interleaved rounds (bench::final_round); CUB writes its own buffer.
    bench::CubArgReduce cub(static_cast<bench::CubValue>(p.type), p.op == ArgOp::argmax, p.n);
    const bench::FinalRound final = bench::final_round(
        candidates, [&](std::size_t i, cudaStream_t s) { contenders[i]->run(in.get(), p.n, ours.get(), s); },
        [&](cudaStream_t s) { cub.run(in.get(), theirs.get(), s); }, flush, o.samples, stream.get());
    const ArgReduceKernel& winner = *contenders[final.winner];
    // The winner's result last in `ours`: what is checked below.
    winner.run(in.get(), p.n, ours.get(), stream.get());
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream.get()));
    const SampleStats t_ours = final.ours, t_cub = final.cub;
    unsigned char got[16], got_cub[16];
    AUTOTUNE_CUDA(cudaMemcpy(got, ours.get(), sizeof got, cudaMemcpyDeviceToHost));
    AUTOTUNE_CUDA(cudaMemcpy(got_cub, theirs.get(), sizeof got_cub, cudaMemcpyDeviceToHost));
    const std::string diff = compare_argreduce(p, expected, got);
    const std::string diff_cub = compare_argreduce(p, expected, got_cub);
    const double gbps = p.bytes() / (t_ours.median * 1e-3) / 1e9;
    const double cub_gbps = p.bytes() / (t_cub.median * 1e-3) / 1e9;
    const std::string note =
        (diff.empty() ? "" : " WRONG RESULT: " + diff) + (diff_cub.empty() ? "" : " (CUB: " + diff_cub + ")");
    auto us_or_dash = [](double us) { return us > 0 ? fmt_us(us) : std::string("-"); };
    const std::string split =
        fmt::format("{} / {} / {}", us_or_dash(best_pair), us_or_dash(best_packed), us_or_dash(best_wide));
    const std::string row = fmt::format(
        "| {} | {} | {} | `{}` | {} | {:.0f} | {:.1f} | {} | {:.0f} | **{:.2f}x** | {}/{} | {} |{}\n", name,
        p.distribution, fmt_n(p.n), winner.config().key(), fmt_us(t_ours.median), gbps, 100.0 * gbps / roof.gbps,
        fmt_us(t_cub.median), cub_gbps, t_cub.median / t_ours.median, candidates.size(), tried, split, note);
    if (p.type == ValueType::f32 && p.op == ArgOp::argmax && p.distribution == "uniform" && p.n <= (1u << 20))
      f32_argmax_us[p.n] = t_ours.median;
    std::printf("%s", row.c_str());
    std::fflush(stdout);
    table += row;
  }
  if (!o.quick) {
    const std::string floors = measure_floors(dev, flush, o.samples, stream.get(), f32_argmax_us);
    std::printf("%s", floors.c_str());
    table += floors;
  }
  if (!o.markdown.empty()) std::ofstream(o.markdown) << table;
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "argreduce_bench: %s\n", e.what());
  return 1;
}

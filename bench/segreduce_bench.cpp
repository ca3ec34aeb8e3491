// Segmented reduction benchmark: every variant of segreduce_space against cub::DeviceSegmentedReduce and the read
// roof, on this GPU, in the same run. For each case every variant is verified against the CPU reference on the case's
// input and screened (--screen samples); the fastest correct one (pick_winner) and CUB are then timed with --samples
// samples each: CUDA events around one whole call (both launches), L2 flushed before every sample, median. Both use
// the single offsets array (begin = offsets, end = offsets + 1). GB/s counts the value bytes once (offsets not
// counted); % roof is against the 16-byte streaming read measured at the start. The f32 sum cases also give the
// robust variant: the least worst-case slowdown against each case's winner, as `autotune tune --dists` keeps it.
// Rows marked offsets=64 run the variants and CUB on int64 offsets of the same segments. The bf16 rows (4096
// segments of 128K, 1 GiB) hold the batched-argmax target against CUB's ArgMax over the same offsets (CUB 3.0.1, in
// CUDA 13.0, has no fixed-segment-size overload of DeviceSegmentedReduce: the offsets form is the bar), and the sum
// of the same halves in float against CUB's Reduce with a float addition. The f32 user max ('a > b ? a : b', identity
// -INFINITY) runs beside the built-in max on the same segments and values (4K each, 64M): the user operator's target,
// within 3 % of the built-in one, read for segmented reductions (the table after the main one; CUB has no row for it).
//
//   segreduce_bench [--quick] [--samples K] [--screen K] [--markdown FILE] [--compile-only [--arch ARCH]]
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autotune/segmented_reduce_problem.hpp"
#include "bench/cub_segreduce.hpp"
#include "bench/compile_space.hpp"
#include "bench/read_roof.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "kernel_templates/segreduce/launcher.hpp"
#include "kernel_templates/segreduce/reference.hpp"
#include "kernel_templates/segreduce/space.hpp"
#include "tuner/harness.hpp"
#include "tuner/timing.hpp"

using namespace autotune;

namespace {

struct Case {
  SegReduceOp op;
  std::string spec;
  std::uint64_t n;
  int offset_bits = 32;
  ValueType type = ValueType::f32;
};

std::vector<Case> cases(bool quick) {
  std::vector<Case> out{{SegReduceOp::sum, "fixed:32", 64ull << 20},
                        {SegReduceOp::sum, "fixed:256K", 256ull << 20},
                        {SegReduceOp::sum, "power-law", 256ull << 20},
                        // The batched argmax of 4096 rows of 128K bf16 (bench/gpu_targets.py: >= 1.5x CUB), and their
                        // sum in float.
                        {SegReduceOp::argmax, "fixed:128K", 512ull << 20, 32, ValueType::bf16},
                        {SegReduceOp::sum, "fixed:128K", 512ull << 20, 32, ValueType::bf16},
                        // The user max against the built-in max (user_table).
                        {SegReduceOp::max, "fixed:4K", 64ull << 20},
                        {SegReduceOp::user, "fixed:4K", 64ull << 20}};
  // --quick: the rows bench/gpu_targets.py reads (the batched bf16 argmax; the user max beside the built-in max).
  if (quick) return {out[3], out[5], out[6]};
  out.push_back({SegReduceOp::sum, "fixed:4K", 256ull << 20});
  out.push_back({SegReduceOp::sum, "uniform:1..64K", 256ull << 20});
  out.push_back({SegReduceOp::sum, "fixed:1M", 256ull << 20});
  out.push_back({SegReduceOp::sum, "uniform:0..64", 64ull << 20});
  out.push_back({SegReduceOp::max, "power-law", 256ull << 20});
  out.push_back({SegReduceOp::argmin, "fixed:32", 64ull << 20});
  out.push_back({SegReduceOp::argmax, "power-law", 256ull << 20});
  // 64-bit offsets, against CUB on the same int64 offsets.
  out.push_back({SegReduceOp::sum, "fixed:256K", 256ull << 20, 64});
  out.push_back({SegReduceOp::sum, "power-law", 256ull << 20, 64});
  return out;
}

std::string fmt_n(std::uint64_t n) {
  if (n >= (1ull << 20) && n % (1ull << 20) == 0) return fmt::format("{}M", n >> 20);
  if (n >= (1ull << 10) && n % (1ull << 10) == 0) return fmt::format("{}K", n >> 10);
  return std::to_string(n);
}

using Shape = bench::CompiledSpace<SegReduceConfig, SegReduceKernel>;

// The problem of a case, and the shape whose space it runs (every case of one type, op and offset width shares it).
// The user operator of the cases is a max: the built-in max's semantics on inputs without NaN.
SegReduceProblem problem_of(const Case& c) {
  SegReduceProblem p;
  p.op = c.op, p.type = c.type, p.n = c.n, p.distribution = c.spec, p.offset_bits = c.offset_bits;
  if (c.op == SegReduceOp::user) p.user = UserOp{"a > b ? a : b", "-INFINITY", ""};
  return p.normalized();
}
// What a case is checked as, and its values drawn for: the user max as the built-in max, so both rows read the same
// values and segments.
SegReduceProblem checked_as(const SegReduceProblem& p) {
  if (p.op != SegReduceOp::user) return p;
  SegReduceProblem max = p;
  max.op = SegReduceOp::max;
  max.user = {};
  return max.normalized();
}
std::string case_name(const Case& c) {
  return fmt::format("{} {} {}{}", to_string(c.type), c.op == SegReduceOp::user ? "user max" : to_string(c.op), c.spec,
                     c.offset_bits == 64 ? " offsets=64" : "");
}

// The user max's time against the built-in max's on the same segments, both the winners of this run: the target is a
// slowdown of at most 3 % (bench/gpu_targets.py). Empty when either is missing.
std::string user_table(const std::map<std::string, double>& median_of, const Case& user, const Case& builtin) {
  const auto u = median_of.find(case_name(user)), b = median_of.find(case_name(builtin));
  if (u == median_of.end() || b == median_of.end()) return {};
  const std::string text = fmt::format(
      "\nA user operator against the built-in one (the winners above, same segments and values):\n\n"
      "| case | n | user (us) | built-in (us) | vs built-in |\n|---|---:|---:|---:|---:|\n"
      "| {} | {} | {:.1f} | {:.1f} | {:+.1f} % |\n",
      case_name(user), fmt_n(user.n), u->second * 1e3, b->second * 1e3, 100.0 * (u->second / b->second - 1.0));
  std::printf("%s", text.c_str());
  return text;
}
SegReduceProblem shape_of(const Case& c) {
  SegReduceProblem shape = problem_of(c);
  shape.distribution = "uniform";
  return shape;
}

Shape build(const SegReduceProblem& p, const DeviceInfo& dev) {
  std::vector<SegReduceConfig> configs;
  for (const auto& c : segreduce_space(p))
    if (segreduce_violation(p, c, &dev).empty()) configs.push_back(c);
  Shape s = bench::compile_space<SegReduceKernel>(p, std::move(configs), dev, "segreduce.cu");
  for (std::size_t i = 0; i < s.configs.size(); ++i)
    if (!s.errors[i].empty()) std::fprintf(stderr, "%s: %s\n", s.configs[i].key().c_str(), s.errors[i].c_str());
  return s;
}

}  // namespace

int main(int argc, char** argv) try {
  bool quick = false, compile_only = false;
  int samples = 30, screen = 10;
  std::string markdown, arch;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--samples" && i + 1 < argc) samples = std::stoi(argv[++i]);
    else if (a == "--screen" && i + 1 < argc) screen = std::stoi(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else if (a == "--compile-only") compile_only = true;
    else if (a == "--arch" && i + 1 < argc) arch = argv[++i];
    else {
      std::fprintf(stderr, "usage: segreduce_bench [--quick] [--samples K] [--screen K] [--markdown FILE] "
                           "[--compile-only [--arch ARCH]]\n");
      return 2;
    }
  }
  if (compile_only) {  // each shape's space, as build() takes it, into the compile cache
    std::vector<std::string> sources;
    for (const Case& c : cases(quick)) {
      const SegReduceProblem p = shape_of(c);
      bench::add_sources(sources, p, segreduce_space(p));
    }
    return bench::compile_ahead(sources, arch.empty() ? query_device(0).arch() : arch, "segreduce_bench");
  }
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * dev.l2_bytes);
  const bench::ReadRoof roof = bench::measure_bench_roof(flush, samples, stream.get());

  std::string table = fmt::format(
      "# Segmented reduction benchmark: {} ({} SMs, {} MiB L2), driver {}.{}, NVRTC {}.{}\n\n"
      "Read roof (16-byte streaming read of 512 MiB): **{:.0f} GB/s** (spread {:.1f} %). Every variant verified on\n"
      "the case's input and screened ({} samples); winner and cub::DeviceSegmentedReduce timed with {} samples each\n"
      "(median, L2 flushed before each, events around the whole call). GB/s counts value bytes (not offsets).\n"
      "CUB: the offsets form (CUB 3.0.1 has no fixed-segment-size overload); halves summed in float (Reduce).\n\n"
      "| case | n | segments | winner | time (us) | GB/s | % roof | CUB (us) | CUB GB/s | vs CUB | correct |\n"
      "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n",
      dev.name, dev.sm_count, dev.l2_bytes >> 20, dev.driver_version / 1000, dev.driver_version % 1000 / 10,
      dev.nvrtc_version / 1000, dev.nvrtc_version % 1000 / 10, roof.gbps, roof.spread * 100, screen, samples);
  std::printf("%s", table.c_str());
  std::fflush(stdout);

  std::map<std::string, Shape> shapes;
  std::map<std::string, double> median_of;  // the winner's time by case name: the user max against the built-in max
  // f32 sum: every variant's screened time per case (0 = wrong or missing), for the robust choice.
  std::vector<std::string> sum_cases;
  std::vector<std::vector<double>> sum_times;  // [case][variant]
  const Shape* sum_shape = nullptr;
  for (const Case& c : cases(quick)) {
    const SegReduceProblem p = problem_of(c), checked = checked_as(p);
    const std::string shape_name = shape_of(c).shape_key();
    auto it = shapes.find(shape_name);
    if (it == shapes.end()) it = shapes.emplace(shape_name, build(shape_of(c), dev)).first;
    const Shape& shape = it->second;
    const auto offsets = generate_offsets(parse_segment_spec(c.spec), c.n, 42);
    const std::vector<std::int64_t> offsets64(offsets.begin(), offsets.end());
    const std::uint64_t segments = offsets.size() - 1;
    const auto values = generate_segment_values(checked, c.n, 43);
    const auto expected = reference_segreduce(checked, values.data(), offsets.data(), offsets.data() + 1, segments);
    cuda::DeviceBuffer in(values.size()), d_off(offsets.size() * 4), d_off64(offsets.size() * 8),
        out(segments * p.result_bytes() + 16), cub_out(segments * p.result_bytes() + 16);
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), values.data(), values.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaMemcpy(d_off.get(), offsets.data(), offsets.size() * 4, cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaMemcpy(d_off64.get(), offsets64.data(), offsets.size() * 8, cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    // The problem's offsets (int or int64), for our variants and CUB alike.
    const unsigned char* ob = static_cast<const unsigned char*>(p.offset_bits == 64 ? d_off64.get() : d_off.get());
    const void* ob_begin = ob;
    const void* ob_end = ob + p.offset_bytes();
    std::vector<unsigned char> got(segments * p.result_bytes() + 16);
    auto check = [&](const cuda::DeviceBuffer& buf) {
      AUTOTUNE_CUDA(cudaMemcpy(got.data(), buf.get(), got.size(), cudaMemcpyDeviceToHost));
      return compare_segreduce(checked, expected, got.data());
    };

    std::vector<Candidate> candidates;
    std::vector<std::size_t> index;
    std::vector<double> times(shape.configs.size(), 0.0);
    for (std::size_t i = 0; i < shape.configs.size(); ++i) {
      if (!shape.kernels[i]) continue;
      const SegReduceKernel& k = *shape.kernels[i];
      AUTOTUNE_CUDA(cudaMemset(out.get(), 0xAB, out.bytes()));
      k.run(in.get(), segments, ob_begin, ob_end, out.get(), stream.get());
      AUTOTUNE_CUDA(cudaStreamSynchronize(stream.get()));
      if (const std::string diff = check(out); !diff.empty()) {
        std::fprintf(stderr, "%s %s: WRONG: %s\n", case_name(c).c_str(), k.config().key().c_str(), diff.c_str());
        continue;
      }
      const SampleStats t = time_calls([&](cudaStream_t s) { k.run(in.get(), segments, ob_begin, ob_end, out.get(), s); },
                                       flush, screen, stream.get());
      candidates.push_back({t.median, t.noise, 0, k.config().block, k.config().key(), k.config().one_launch() ? 1 : 2});
      index.push_back(i);
      times[i] = t.median;
    }
    if (c.op == SegReduceOp::sum && c.offset_bits == 32 && c.type == ValueType::f32) {
      sum_cases.push_back(fmt::format("{} n={}", c.spec, fmt_n(c.n)));
      sum_times.push_back(times);
      sum_shape = &shape;
    }
    if (candidates.empty()) {
      const std::string row = fmt::format("| {} | {} | {} | no correct variant |||||||| 0/{} |\n", case_name(c),
                                          fmt_n(c.n), segments, shape.configs.size());
      std::printf("%s", row.c_str());
      table += row;
      continue;
    }
    const SegReduceKernel& winner = *shape.kernels[index[pick_winner(candidates)]];
    const SampleStats t_ours = time_calls(
        [&](cudaStream_t s) { winner.run(in.get(), segments, ob_begin, ob_end, out.get(), s); }, flush, samples,
        stream.get());
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    const std::string diff = check(out);
    median_of[case_name(c)] = t_ours.median;
    const double gbps = p.bytes() / (t_ours.median * 1e-3) / 1e9;
    // CUB's columns: none for a user operator (CUB's segmented reduction takes a functor compiled with it).
    std::string cub_cells = "- | - | -", diff_cub;
    if (c.op != SegReduceOp::user) {
      bench::CubSegReduce cub(static_cast<bench::CubSegOp>(c.op), segments, p.offset_bits == 64,
                              static_cast<bench::CubValue>(c.type));
      const SampleStats t_cub =
          time_calls([&](cudaStream_t s) { cub.run(in.get(), ob_begin, ob_end, cub_out.get(), s); }, flush, samples,
                     stream.get());
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      diff_cub = check(cub_out);
      const double cub_gbps = p.bytes() / (t_cub.median * 1e-3) / 1e9;
      cub_cells = fmt::format("{:.1f} | {:.0f} | **{:.2f}x**", t_cub.median * 1e3, cub_gbps,
                              t_cub.median / t_ours.median);
    }
    const std::string note =
        (diff.empty() ? "" : " WRONG RESULT: " + diff) + (diff_cub.empty() ? "" : " (CUB: " + diff_cub + ")");
    const std::string row = fmt::format("| {} | {} | {} | `{}` | {:.1f} | {:.0f} | {:.1f} | {} | {}/{} |{}\n",
                                        case_name(c), fmt_n(c.n), segments, winner.config().key(),
                                        t_ours.median * 1e3, gbps, 100.0 * gbps / roof.gbps, cub_cells,
                                        candidates.size(), shape.configs.size(), note);
    std::printf("%s", row.c_str());
    std::fflush(stdout);
    table += row;
  }
  // The robust f32 sum variant across the sum cases (screened times): least worst-case slowdown.
  if (sum_shape && !sum_times.empty()) {
    double best_worst = 1e30;
    std::size_t best = 0;
    for (std::size_t i = 0; i < sum_shape->configs.size(); ++i) {
      double worst = 0;
      for (const auto& t : sum_times) {
        const double fastest = *std::min_element(t.begin(), t.end(), [](double a, double b) {
          return (a > 0 ? a : 1e30) < (b > 0 ? b : 1e30);
        });
        worst = std::max(worst, t[i] > 0 ? t[i] / fastest : 1e30);
      }
      if (worst < best_worst) best_worst = worst, best = i;
    }
    std::string per;
    for (std::size_t k = 0; k < sum_times.size(); ++k) {
      const auto& t = sum_times[k];
      double fastest = 1e30;
      for (double x : t)
        if (x > 0) fastest = std::min(fastest, x);
      per += fmt::format("{}{} {:.2f}x", k ? ", " : "", sum_cases[k], t[best] / fastest);
    }
    const std::string line =
        fmt::format("\nRobust f32 sum variant across the sum cases: `{}`, worst-case slowdown {:.2f}x ({})\n",
                    sum_shape->configs[best].key(), best_worst, per);
    std::printf("%s", line.c_str());
    table += line;
  }
  table += user_table(median_of, {SegReduceOp::user, "fixed:4K", 64ull << 20}, {SegReduceOp::max, "fixed:4K", 64ull << 20});
  if (!markdown.empty()) std::ofstream(markdown) << table;
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "segreduce_bench: %s\n", e.what());
  return 1;
}

#include "autotune/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <random>
#include <memory>
#include <thread>

#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "tuner/timing.hpp"
#include "core/family.hpp"
#include "core/workload.hpp"
#include "embedded.hpp"


namespace autotune {

std::string version() { return AUTOTUNE_VERSION; }

double measure_read_roof(const DeviceInfo& device, std::size_t bytes, int samples) {
  const jit::CompileResult compiled = jit::compile(std::string(embedded::roof_kernel), "roof.cu", device.arch());
  if (!compiled.ok) throw Error("NVRTC failed to compile the roof kernel:\n" + compiled.log);
  cuda::Module module(compiled.cubin, "autotune_read_roof");
  bytes &= ~std::size_t{15};
  cuda::DeviceBuffer data(bytes), sink(16);
  AUTOTUNE_CUDA(cudaMemset(data.get(), 1, bytes));
  cuda::Stream stream;
  cuda::Event start, stop;
  const unsigned grid = static_cast<unsigned>(module.blocks_per_sm(512, 0) * device.sm_count);
  const void* in = data.get();
  unsigned long long n16 = bytes / 16;
  void* out = sink.get();
  void* args[] = {&in, &n16, &out};
  std::vector<double> ms;
  for (int s = 0; s < samples + 2; ++s) {  // two warm-up reads
    start.record(stream.get());
    AUTOTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(module.kernel()), dim3(grid), dim3(512), args, 0,
                                   stream.get()));
    stop.record(stream.get());
    stream.synchronize();
    if (s >= 2) ms.push_back(stop.elapsed_since(start));
  }
  return static_cast<double>(bytes) / (summarize(ms).median * 1e-3) / 1e9;
}

std::vector<Problem> default_problems() {
  std::vector<Problem> out;
  for (const KernelFamily* f : families())
    for (Problem& p : f->default_problems()) out.push_back(std::move(p));
  return out;
}

const std::vector<std::string>& tune_strategies() {
  static const std::vector<std::string> names{"exhaustive", "random", "halving"};
  return names;
}

namespace {

// Compiles every configuration on a pool of host threads; the GPU loop takes the results in order as they finish,
// so measuring overlaps compiling.
class CompilePool {
 public:
  CompilePool(const Problem& problem, const std::vector<Config>& configs, const std::vector<bool>& wanted,
              const std::string& arch, int threads, std::string cache_dir)
      : results_(configs.size()) {
    std::vector<std::promise<jit::CompileResult>> promises(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) results_[i] = promises[i].get_future();
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const std::string stem(problem.family_name());
    auto work = [this, problem, &configs, &wanted, arch, cache_dir, stem,
                 ps = std::make_shared<decltype(promises)>(std::move(promises))]() {
      for (std::size_t i; (i = next_++) < configs.size();) {
        if (stop_ || !wanted[i]) {
          (*ps)[i].set_value(jit::CompileResult{});
          continue;
        }
        try {
          (*ps)[i].set_value(jit::compile_cached(kernel_source(problem, configs[i]),
                                                 stem + "_" + std::to_string(i) + ".cu", arch, cache_dir));
        } catch (...) {
          (*ps)[i].set_exception(std::current_exception());
        }
      }
    };
    for (int t = 0; t < threads; ++t) workers_.emplace_back(work);
  }
  ~CompilePool() {
    stop_ = true;
    for (auto& w : workers_) w.join();
  }
  jit::CompileResult get(std::size_t i) { return results_[i].get(); }

 private:
  std::vector<std::future<jit::CompileResult>> results_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::jthread> workers_;
};

// True for errors after which the CUDA context is unusable (the kernel faulted).
bool is_sticky(int code) {
  switch (static_cast<cudaError_t>(code)) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

// Times whole calls of one loaded variant until the stopping rule is satisfied. With flush_l2 a buffer twice the
// L2 is overwritten before every sample, so the input is read from memory, as in an application.
std::vector<double> sample_variant(const LoadedVariant& variant, cuda::DeviceBuffer& flush, cuda::Stream& stream,
                                   int warmup, const StoppingRule& rule) {
  cuda::Event start, stop;
  std::vector<double> times;
  const auto t0 = std::chrono::steady_clock::now();
  for (int s = 0;; ++s) {
    if (flush.bytes()) AUTOTUNE_CUDA(cudaMemsetAsync(flush.get(), s & 0xff, flush.bytes(), stream.get()));
    start.record(stream.get());
    variant.run(stream.get());
    stop.record(stream.get());
    stream.synchronize();
    if (s < warmup) continue;
    times.push_back(stop.elapsed_since(start));
    const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (enough_samples(times, elapsed, rule)) return times;
  }
}

// Which configurations a strategy measures first (indices into the space, in space order).
std::vector<std::size_t> initial_selection(const std::vector<Config>& configs, const std::vector<bool>& runnable,
                                           const Config& fallback, const TuneOptions& o) {
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (runnable[i]) all.push_back(i);
  if (o.strategy != "random") return all;
  const std::size_t budget = o.budget > 0 ? static_cast<std::size_t>(o.budget) : std::max<std::size_t>(8, all.size() / 4);
  if (budget >= all.size()) return all;
  // A seeded shuffle: the same seed draws the same subset, so a random run can be resumed and repeated.
  std::vector<std::size_t> shuffled = all;
  std::mt19937_64 rng(o.seed);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  shuffled.resize(budget);
  const auto fb = std::find_if(all.begin(), all.end(), [&](std::size_t i) { return configs[i] == fallback; });
  if (fb != all.end() && std::find(shuffled.begin(), shuffled.end(), *fb) == shuffled.end()) shuffled.back() = *fb;
  std::sort(shuffled.begin(), shuffled.end());
  return shuffled;
}

}  // namespace

TuneReport tune(const Problem& problem, Cache& cache, const TuneOptions& options) {
  problem.validate();
  if (problem.distribution() == kRobustDistribution)
    throw UsageError(fmt::format("dist={} is not an input: tune the distributions it combines with --dists "
                                 "(e.g. --dists uniform,constant,runs)", kRobustDistribution));
  if (std::find(tune_strategies().begin(), tune_strategies().end(), options.strategy) == tune_strategies().end())
    throw UsageError(fmt::format("unknown strategy '{}' (known: exhaustive, random, halving)", options.strategy));
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds_since_start = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  TuneReport report;
  report.problem = problem;
  report.strategy = options.strategy;
  report.device = query_device(options.device);
  const DeviceInfo& device = report.device;
  AUTOTUNE_CUDA(cudaSetDevice(options.device));
  StoppingRule rule;
  rule.max_samples = std::max(1, options.samples);
  rule.min_samples = std::min(options.min_samples, rule.max_samples);
  rule.target_noise = options.target_noise;
  rule.max_ms = options.max_ms_per_variant;
  StoppingRule short_rule;  // successive halving's first round
  short_rule.min_samples = short_rule.max_samples = std::min(3, rule.max_samples);

  // Resume: what an interrupted run of the same problem, model, code and strategy measured is not measured again.
  RunInfo info;
  info.strategy = options.strategy;
  info.tool_version = version();
  info.code = current_identity(problem.family_name(), device.driver_version);
  info.settings_json = fmt::format(
      R"({{"budget":{},"budget_s":{},"finalists":{},"flush_l2":{},"min_samples":{},"samples":{},"seed":{},)"
      R"("target_noise":{},"warmup":{}}})",
      options.budget, options.budget_s, options.finalists, options.flush_l2, rule.min_samples, rule.max_samples,
      options.seed, options.target_noise, options.warmup);
  std::map<std::string, Measurement> done;
  std::optional<std::int64_t> resumed_run;
  if (options.resume) {
    cache.mark_stale(info.code, device.model_key());
    resumed_run = cache.resumable_run(device.model_key(), problem, info.code, info.strategy);
    if (resumed_run)
      for (const Measurement& m : cache.measurements(*resumed_run)) done.emplace(m.config.key(), m);
  }

  // Inputs and the CPU reference first: a device without enough memory fails here, before anything is recorded.
  // The buffers sized below (flush, roof) are allocated while the workload lives: all of it must fit at once.
  const std::uint64_t flush_bytes = options.flush_l2 ? 2ull * device.l2_bytes : 0;
  const std::uint64_t roof_bytes = std::max<std::uint64_t>(256ull << 20, 4ull * device.l2_bytes);
  {
    std::size_t free_bytes = 0, total_bytes = 0;
    AUTOTUNE_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (const std::string why = device_memory_shortfall(problem, options.device,
                                                        device_memory_need(problem, flush_bytes + roof_bytes),
                                                        free_bytes, total_bytes);
        !why.empty())
      throw Error(why);
  }
  const std::unique_ptr<Workload> workload = problem.family().make_workload(problem, device, options.seed);
  const std::vector<Config> configs = workload->space();
  const Config fallback = Config::fallback(problem);
  std::vector<std::string> violations(configs.size());
  std::vector<bool> runnable(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    violations[i] = workload->violation(configs[i]);
    runnable[i] = violations[i].empty();
  }
  const std::vector<std::size_t> selected = initial_selection(configs, runnable, fallback, options);
  std::vector<bool> wanted(configs.size());
  for (std::size_t i : selected) wanted[i] = true;  // resumed ok variants are compiled again (cached) for the final
  const std::string cubin_dir =
      !options.compile_cache ? std::string() : options.compile_cache_dir.empty() ? jit::default_compile_cache_dir()
                                                                               : options.compile_cache_dir;
  CompilePool pool(problem, configs, wanted, device.arch(), options.compile_threads, cubin_dir);

  cuda::Stream stream;
  cuda::DeviceBuffer flush(static_cast<std::size_t>(flush_bytes));
  // The roof over 4x the L2 (at least 256 MiB), so it streams from memory, not from the cache.
  report.roof_gbps = measure_read_roof(device, static_cast<std::size_t>(roof_bytes), 10);
  cache.set_device_roof(device, report.roof_gbps);
  report.run_id = resumed_run ? *resumed_run : cache.begin_run(device, problem, info);

  auto gbps_of = [&](double ms) { return ms > 0 ? static_cast<double>(problem.bytes()) / (ms * 1e-3) / 1e9 : 0.0; };
  auto set_times = [&](Measurement& m, std::vector<double> times) {
    report.throttled_samples += drop_throttled(times);
    const SampleStats st = summarize(times);
    m.median_ms = st.median;
    m.spread = st.spread;
    m.samples = st.count;
    m.gbps = gbps_of(st.median);
    m.roof_pct = 100.0 * m.gbps / report.roof_gbps;
  };
  std::vector<std::vector<char>> cubins(configs.size());  // of the correct variants, for later rounds
  std::vector<std::optional<Measurement>> results(configs.size());
  std::string context_lost;  // set once a variant faults: nothing after it can run in this process
  auto record = [&](std::size_t i, const Measurement& m) {
    cache.add_measurement(report.run_id, m);  // each on its own: an interrupted run keeps what it measured
    results[i] = m;
  };
  // A CudaError from a variant: recorded; a fault ends this process's use of the GPU.
  auto on_cuda_error = [&](std::size_t i, Measurement& m, const CudaError& e) {
    m.status = MeasurementStatus::launch_error;
    m.log = e.what();
    if (!is_sticky(e.code())) return;
    context_lost = fmt::format("not run: the CUDA context was lost when {} faulted", configs[i].key());
    if (options.stop_on_fault) {
      record(i, m);
      throw ContextLostError(fmt::format("{} faulted ({}); the CUDA context of this process is lost", configs[i].key(),
                                         e.what()));
    }
  };

  std::size_t progress = 0;
  const std::size_t total = selected.size();  // configurations that can run on this device and were chosen
  auto report_progress = [&](const Measurement& m) {
    if (options.on_measurement) options.on_measurement(++progress, total, m);
  };
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (wanted[i]) continue;
    if (!violations[i].empty()) {  // recorded so that `show` explains why a configuration never ran
      Measurement m;
      m.config = configs[i];
      m.status = MeasurementStatus::invalid_config;
      m.log = violations[i];
      if (!done.count(configs[i].key())) record(i, m);
      results[i] = m;
    }
    // Configurations a random strategy did not draw are simply not part of this run.
  }

  const bool halving = options.strategy == "halving";
  // Which variants were sampled under the full stopping rule (halving's first round is not): only they compete in the
  // final. A resumed measurement counts as full when it has more samples than the short round takes.
  std::vector<bool> full(configs.size(), false);
  for (std::size_t i : selected) {
    Measurement m;
    m.config = configs[i];
    jit::CompileResult compiled;
    const auto previous = done.find(configs[i].key());
    bool from_previous = false;
    const bool over_budget = options.strategy == "random" && options.budget_s > 0 &&
                             seconds_since_start() > options.budget_s && !(configs[i] == fallback);
    if (over_budget) {
      continue;  // not measured: the time budget is spent
    } else if (!context_lost.empty()) {
      m.status = MeasurementStatus::launch_error;
      m.log = context_lost;
    } else if (const auto hung = options.timed_out.find(configs[i].key());
               hung != options.timed_out.end() && previous == done.end()) {
      m.status = MeasurementStatus::launch_error;  // it hung an earlier worker of this run: never run again
      m.log = hung->second;
    } else if (!(compiled = pool.get(i)).ok) {
      m.status = MeasurementStatus::compile_error;
      m.log = compiled.log;
    } else if (previous != done.end()) {
      m = previous->second;
      from_previous = true;
      full[i] = !halving || m.samples > short_rule.max_samples;
      ++report.resumed;
      if (m.status == MeasurementStatus::ok) cubins[i] = std::move(compiled.cubin);
    } else {
      (compiled.from_cache ? report.compile_cache_hits : report.compiled) += 1;
      try {
        if (options.on_variant_start) options.on_variant_start(configs[i]);
        const auto variant = workload->load(configs[i], compiled.cubin, options.inject_fault == configs[i].key());
        if (auto diff = variant->check(stream.get()); !diff.empty()) {
          m.status = MeasurementStatus::wrong_result;
          m.log = diff;
        } else {
          set_times(m, sample_variant(*variant, flush, stream, options.warmup, halving ? short_rule : rule));
          // With --samples at most the short round's, halving's first round already is the full measurement.
          if (!halving || rule.max_samples <= short_rule.max_samples) ++report.fully_measured, full[i] = true;
          cubins[i] = std::move(compiled.cubin);
        }
      } catch (const UsageError& e) {
        m.status = MeasurementStatus::invalid_config;
        m.log = e.what();
      } catch (const CudaError& e) {
        on_cuda_error(i, m, e);
      }
    }
    if (from_previous) results[i] = m;
    else record(i, m);
    if (options.on_variant_end) options.on_variant_end(configs[i]);
    report_progress(m);
  }

  // The measured correct variants, fastest first.
  auto ranked = [&] {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < configs.size(); ++i)
      if (results[i] && results[i]->status == MeasurementStatus::ok && !cubins[i].empty()) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return results[a]->median_ms < results[b]->median_ms; });
    return order;
  };

  // Successive halving: the fastest quarter of the short measurements is measured again under the full rule.
  if (halving && context_lost.empty()) {
    std::vector<std::size_t> order = ranked();
    const std::size_t keep =
        std::min(order.size(), std::max<std::size_t>(2 * std::max(1, options.finalists), (order.size() + 3) / 4));
    order.resize(keep);
    for (std::size_t i : order) {
      if (full[i]) continue;  // resumed with a full measurement already
      Measurement m = *results[i];
      if (const auto hung = options.timed_out.find(configs[i].key()); hung != options.timed_out.end()) {
        m.status = MeasurementStatus::launch_error;  // its second round hung an earlier worker
        m.log = hung->second;
        cubins[i].clear();
        record(i, m);
        continue;
      }
      try {
        if (options.on_variant_start) options.on_variant_start(configs[i]);
        const auto variant = workload->load(configs[i], cubins[i], false);
        set_times(m, sample_variant(*variant, flush, stream, options.warmup, rule));
        ++report.fully_measured;
        full[i] = true;
      } catch (const CudaError& e) {
        on_cuda_error(i, m, e);
        cubins[i].clear();
      }
      record(i, m);
      if (options.on_variant_end) options.on_variant_end(configs[i]);
      if (!context_lost.empty()) break;
    }
  }

  for (std::size_t i = 0; i < configs.size(); ++i)
    if (results[i]) {
      report.measurements.push_back(*results[i]);
      if (results[i]->status == MeasurementStatus::ok && configs[i] == fallback) report.fallback = *results[i];
    }

  // Finalists: the fastest few, re-measured in interleaved rounds so that drift hits them alike; then the tie-break.
  std::vector<std::size_t> order = ranked();
  if (halving) {  // only fully measured variants compete
    order.erase(std::remove_if(order.begin(), order.end(), [&](std::size_t i) { return !full[i]; }), order.end());
  }
  // The `finalists` fastest, and every other variant within 1 % of the fastest (up to three times as many): a near
  // tie that a single measurement ranked fifth still reaches the tie-break, so that which of the near-equal variants
  // wins does not depend on the first round's noise (two runs on one GPU then pick the same winner).
  {
    const std::size_t base = static_cast<std::size_t>(std::max(1, options.finalists));
    std::size_t keep = std::min(order.size(), base);
    while (keep < order.size() && keep < 3 * base &&
           results[order[keep]]->median_ms <= 1.01 * results[order.front()]->median_ms)
      ++keep;
    order.resize(keep);
  }
  if (!order.empty() && context_lost.empty()) {
    std::vector<std::unique_ptr<LoadedVariant>> variants;
    for (std::size_t i : order) variants.push_back(workload->load(configs[i], cubins[i], false));
    std::vector<std::vector<double>> times(order.size());
    StoppingRule one;
    one.min_samples = one.max_samples = 1;
    for (int round = 0; round < std::max(1, options.final_rounds); ++round)
      for (std::size_t k = 0; k < order.size(); ++k)
        times[k].push_back(sample_variant(*variants[k], flush, stream, round == 0 ? 1 : 0, one).front());
    std::vector<Candidate> candidates;
    for (std::size_t k = 0; k < order.size(); ++k) {
      report.throttled_samples += drop_throttled(times[k]);
      const SampleStats st = summarize(times[k]);
      const Config& c = configs[order[k]];
      candidates.push_back({st.median, st.noise, c.shared_bytes(problem), c.block(), c.key(), c.launches()});
    }
    const std::size_t w = pick_winner(candidates);
    Measurement best = *results[order[w]];
    set_times(best, times[w]);
    report.winner = best;
    cache.finish_run(report.run_id, best, cubins[order[w]]);
  }
  report.seconds = seconds_since_start();
  return report;
}

}  // namespace autotune

#include "autotune/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "tuner/origin.hpp"
#include "tuner/strategy.hpp"
#include "tuner/timing.hpp"
#include "core/family.hpp"
#include "core/workload.hpp"
#include "embedded.hpp"


namespace autotune {

std::string version() { return AUTOTUNE_VERSION; }

double measure_read_roof(const DeviceInfo& device, std::size_t bytes, int samples,
                         const std::string& compile_cache_dir) {
  const jit::CompileResult compiled =
      compile_cache_dir.empty()
          ? jit::compile(std::string(embedded::roof_kernel), "roof.cu", device.arch())
          : jit::compile_cached(std::string(embedded::roof_kernel), "roof.cu", device.arch(), compile_cache_dir);
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

const std::vector<TunePreset>& tune_presets() {
  static const std::vector<TunePreset> presets{
      {"standard",
       "common shapes of every family: histograms of every sample type at 32..262144 bins, sum/min/max of every "
       "type, each at 64K..16M elements (reductions to 256M); histograms on uniform and narrow samples, keeping the "
       "robust winner",
       {"uniform", "narrow"}}};
  return presets;
}

const TunePreset& tune_preset(std::string_view name) {
  for (const TunePreset& p : tune_presets())
    if (p.name == name) return p;
  std::string names;
  for (const TunePreset& p : tune_presets()) names += (names.empty() ? "" : ", ") + p.name;
  throw UsageError(fmt::format("--preset: no preset '{}' (known: {})", name, names));
}

std::vector<Problem> preset_problems(const TunePreset& preset) {
  std::vector<Problem> out;
  for (const KernelFamily* f : families())
    for (Problem& p : f->preset_problems(preset.name)) out.push_back(std::move(p));
  return out;
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
          (*ps)[i].set_value(jit::compile_cached(tuning_source(problem, configs[i]),
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
// L2 is overwritten before every sample, so the input is read from memory, as in an application. Under a far-slower
// cut (rule.cut_ms) a first warm-up call above it ends the warm-up and counts as a sample: a variant that slow needs
// no steady clocks to lose, and one more sample above the cut ends it (enough_samples).
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
    if (s < warmup) {
      if (s > 0 || rule.cut_ms <= 0 || stop.elapsed_since(start) <= rule.cut_ms) continue;
      warmup = 0;  // far slower than the best: this call is its first sample
    }
    times.push_back(stop.elapsed_since(start));
    const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (enough_samples(times, elapsed, rule)) return times;
  }
}

// One call of tune(), phase by phase: prepare (checks, resume, workload, compile pool, roof, run), measure the
// selected variants, halving's second round, then the interleaved final and the tie-break.
class TuneRun {
 public:
  TuneRun(const Problem& problem, Cache& cache, const TuneOptions& options)
      : problem_(problem), cache_(cache), o_(options), t0_(std::chrono::steady_clock::now()) {
    check_arguments();
    strategy_ = make_strategy(o_);
    report_.problem = problem;
    report_.strategy = std::string(strategy_->name());
    report_.device = query_device(o_.device);
    AUTOTUNE_CUDA(cudaSetDevice(o_.device));
    rule_.max_samples = std::max(1, o_.samples);
    rule_.min_samples = std::min(o_.min_samples, rule_.max_samples);
    rule_.target_noise = o_.target_noise;
    rule_.max_ms = o_.max_ms_per_variant;
    short_rule_.min_samples = short_rule_.max_samples = std::min(3, rule_.max_samples);
    halving_ = strategy_->measures_in_two_rounds();
  }

  TuneReport run() {
    resume();
    prepare();
    record_unselected();
    for (std::size_t i : selected_) measure_selected(i);
    if (halving_ && context_lost_.empty()) second_round();
    for (std::size_t i = 0; i < configs_.size(); ++i)
      if (results_[i]) {
        report_.measurements.push_back(*results_[i]);
        if (results_[i]->status == MeasurementStatus::ok && configs_[i] == fallback_) report_.fallback = *results_[i];
      }
    final_round();
    report_.seconds = seconds_since_start();
    return std::move(report_);
  }

 private:
  void check_arguments() const {
    problem_.validate();
    if (problem_.distribution() == kRobustDistribution)
      throw UsageError(fmt::format("dist={} is not an input: tune the distributions it combines with --dists "
                                   "(e.g. --dists uniform,constant,runs)", kRobustDistribution));
    if (!o_.candidates.empty()) {
      for (const Config& c : o_.candidates)
        if (c.family_name() != problem_.family_name())
          throw UsageError(fmt::format("crossover candidate {} is not a configuration of {}", c.key(), problem_.key()));
    }
  }

  double seconds_since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

  // Resume: what an interrupted run of the same problem, model, code and strategy measured is not measured again.
  void resume() {
    const DeviceInfo& device = report_.device;
    info_.strategy = std::string(strategy_->name());
    info_.tool_version = version();
    info_.code = current_identity(problem_.family_name(), device.driver_version);
    info_.settings_json = fmt::format(
        R"({{"budget":{},"budget_s":{},"finalists":{},"flush_l2":{},"min_samples":{},"samples":{},"seed":{},)"
        R"("slow_cut":{},"target_noise":{},"warmup":{}}})",
        o_.budget, o_.budget_s, o_.finalists, o_.flush_l2, rule_.min_samples, rule_.max_samples, o_.seed,
        o_.slow_cut, o_.target_noise, o_.warmup);
    if (!o_.resume) return;
    cache_.mark_stale(info_.code, device.model_key());
    resumed_run_ = cache_.resumable_run(device.model_key(), problem_, info_.code, info_.strategy);
    if (resumed_run_)
      for (const Measurement& m : cache_.measurements(*resumed_run_)) done_.emplace(m.config.key(), m);
    // A crossover resumes only a run of the same candidates: its measurements must be exactly theirs.
    if (!o_.candidates.empty())
      for (const auto& entry : done_)  // not a structured binding: clang cannot capture one in a lambda
        if (std::none_of(o_.candidates.begin(), o_.candidates.end(),
                         [&](const Config& c) { return c.key() == entry.first; })) {
          resumed_run_.reset();
          done_.clear();
          break;
        }
  }

  // Inputs and the CPU reference first: a device without enough memory fails here, before anything is recorded.
  // The buffers sized below (flush, roof) are allocated while the workload lives: all of it must fit at once.
  void prepare() {
    const DeviceInfo& device = report_.device;
    const std::uint64_t flush_bytes = o_.flush_l2 ? 2ull * device.l2_bytes : 0;
    const std::uint64_t roof_bytes = std::max<std::uint64_t>(256ull << 20, 4ull * device.l2_bytes);
    {
      std::size_t free_bytes = 0, total_bytes = 0;
      AUTOTUNE_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      if (const std::string why = device_memory_shortfall(problem_, o_.device,
                                                          device_memory_need(problem_, flush_bytes + roof_bytes),
                                                          free_bytes, total_bytes);
          !why.empty())
        throw DeviceMemoryError(why);
    }
    workload_ = problem_.family().make_workload(problem_, device, o_.seed);
    if (o_.candidates.empty()) {
      configs_ = workload_->space();
    } else {
      for (const Config& c : o_.candidates)
        if (std::find(configs_.begin(), configs_.end(), c) == configs_.end()) configs_.push_back(c);
    }
    fallback_ = Config::fallback(problem_);
    violations_.resize(configs_.size());
    std::vector<bool> runnable(configs_.size());
    for (std::size_t i = 0; i < configs_.size(); ++i) {
      violations_[i] = workload_->violation(configs_[i]);
      runnable[i] = violations_[i].empty();
    }
    selected_ = strategy_->select(configs_, runnable, fallback_, o_);
    wanted_.assign(configs_.size(), false);
    for (std::size_t i : selected_) wanted_[i] = true;  // resumed ok variants are compiled again (cached) for the final
    cubin_dir_ = !o_.compile_cache                 ? std::string()
                 : o_.compile_cache_dir.empty() ? jit::default_compile_cache_dir()
                                                : o_.compile_cache_dir;
    const std::string& cubin_dir = cubin_dir_;
    pool_ = std::make_unique<CompilePool>(problem_, configs_, wanted_, device.arch(), o_.compile_threads, cubin_dir);
    stream_.emplace();
    flush_ = cuda::DeviceBuffer(static_cast<std::size_t>(flush_bytes));
    // The roof over 4x the L2 (at least 256 MiB), so it streams from memory, not from the cache.
    report_.roof_gbps = measure_read_roof(device, static_cast<std::size_t>(roof_bytes), 10, cubin_dir);
    cache_.set_device_roof(device, report_.roof_gbps);
    report_.run_id = resumed_run_ ? *resumed_run_ : cache_.begin_run(device, problem_, info_);
    cubins_.resize(configs_.size());
    results_.resize(configs_.size());
    full_.assign(configs_.size(), false);
  }

  void set_times(Measurement& m, std::vector<double> times) {
    report_.throttled_samples += drop_throttled(times);
    const SampleStats st = summarize(times);
    m.median_ms = st.median;
    m.spread = st.spread;
    m.samples = st.count;
    m.gbps = st.median > 0 ? static_cast<double>(problem_.bytes()) / (st.median * 1e-3) / 1e9 : 0.0;
    m.roof_pct = 100.0 * m.gbps / report_.roof_gbps;
  }

  void record(std::size_t i, const Measurement& m) {
    cache_.add_measurement(report_.run_id, m);  // each on its own: an interrupted run keeps what it measured
    results_[i] = m;
  }

  // A CudaError from a variant: recorded; a fault ends this process's use of the GPU.
  void on_cuda_error(std::size_t i, Measurement& m, const CudaError& e) {
    m.status = MeasurementStatus::launch_error;
    m.log = e.what();
    if (!is_sticky(e.code())) return;
    context_lost_ = fmt::format("not run: the CUDA context was lost when {} faulted", configs_[i].key());
    if (o_.stop_on_fault) {
      record(i, m);
      throw ContextLostError(fmt::format("{} faulted ({}); the CUDA context of this process is lost",
                                         configs_[i].key(), e.what()));
    }
  }

  void report_progress(const Measurement& m) {
    if (o_.on_measurement) o_.on_measurement(++progress_, selected_.size(), m);
  }

  // Recorded so that `show` explains why a configuration never ran. Configurations a random strategy did not draw
  // are simply not part of this run.
  void record_unselected() {
    for (std::size_t i = 0; i < configs_.size(); ++i) {
      if (wanted_[i] || violations_[i].empty()) continue;
      Measurement m;
      m.config = configs_[i];
      m.status = MeasurementStatus::invalid_config;
      m.log = violations_[i];
      if (!done_.count(configs_[i].key())) record(i, m);
      results_[i] = m;
    }
  }

  // The first measurement of a selected variant (the short one under halving): checked against the CPU, then timed.
  void measure_selected(std::size_t i) {
    const Config& config = configs_[i];
    Measurement m;
    m.config = config;
    jit::CompileResult compiled;
    const auto previous = done_.find(config.key());
    bool from_previous = false;
    if (strategy_->stops_at_time_budget() && o_.budget_s > 0 && seconds_since_start() > o_.budget_s && !(config == fallback_))
      return;  // not measured: the time budget is spent
    if (!context_lost_.empty()) {
      m.status = MeasurementStatus::launch_error;
      m.log = context_lost_;
    } else if (const auto hung = o_.timed_out.find(config.key()); hung != o_.timed_out.end() && previous == done_.end()) {
      m.status = MeasurementStatus::launch_error;  // it hung an earlier worker of this run: never run again
      m.log = hung->second;
    } else if (!(compiled = pool_->get(i)).ok) {
      m.status = MeasurementStatus::compile_error;
      m.log = compiled.log;
    } else if (previous != done_.end()) {
      m = previous->second;
      from_previous = true;
      // A resumed measurement counts as full when it has more samples than the short round takes.
      full_[i] = !halving_ || m.samples > short_rule_.max_samples;
      ++report_.resumed;
      if (m.status == MeasurementStatus::ok) cubins_[i] = std::move(compiled.cubin);
    } else {
      (compiled.from_cache ? report_.compile_cache_hits : report_.compiled) += 1;
      try {
        if (o_.on_variant_start) o_.on_variant_start(config);
        const auto variant = workload_->load(config, compiled.cubin, o_.inject_fault == config.key());
        if (auto diff = variant->check(stream_->get()); !diff.empty()) {
          m.status = MeasurementStatus::wrong_result;
          m.log = diff;
        } else {
          StoppingRule rule = halving_ ? short_rule_ : rule_;
          if (o_.slow_cut > 0 && best_ms_ > 0) rule.cut_ms = o_.slow_cut * best_ms_;
          set_times(m, sample_variant(*variant, flush_, *stream_, o_.warmup, rule));
          if (m.median_ms > 0 && (best_ms_ == 0 || m.median_ms < best_ms_)) best_ms_ = m.median_ms;
          // With --samples at most the short round's, halving's first round already is the full measurement.
          if (!halving_ || rule_.max_samples <= short_rule_.max_samples) ++report_.fully_measured, full_[i] = true;
          cubins_[i] = std::move(compiled.cubin);
        }
      } catch (const UsageError& e) {
        m.status = MeasurementStatus::invalid_config;
        m.log = e.what();
      } catch (const CudaError& e) {
        on_cuda_error(i, m, e);
      }
    }
    if (from_previous) results_[i] = m;
    else record(i, m);
    if (o_.on_variant_end) o_.on_variant_end(config);
    report_progress(m);
  }

  // The measured correct variants, fastest first.
  std::vector<std::size_t> ranked() const {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < configs_.size(); ++i)
      if (results_[i] && results_[i]->status == MeasurementStatus::ok && !cubins_[i].empty()) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return results_[a]->median_ms < results_[b]->median_ms; });
    return order;
  }

  // Successive halving: the fastest quarter of the short measurements is measured again under the full rule.
  void second_round() {
    std::vector<std::size_t> order = ranked();
    const std::size_t keep =
        std::min(order.size(), std::max<std::size_t>(2 * std::max(1, o_.finalists), (order.size() + 3) / 4));
    order.resize(keep);
    for (std::size_t i : order) {
      if (full_[i]) continue;  // resumed with a full measurement already
      Measurement m = *results_[i];
      if (const auto hung = o_.timed_out.find(configs_[i].key()); hung != o_.timed_out.end()) {
        m.status = MeasurementStatus::launch_error;  // its second round hung an earlier worker
        m.log = hung->second;
        cubins_[i].clear();
        record(i, m);
        continue;
      }
      try {
        if (o_.on_variant_start) o_.on_variant_start(configs_[i]);
        const auto variant = workload_->load(configs_[i], cubins_[i], false);
        set_times(m, sample_variant(*variant, flush_, *stream_, o_.warmup, rule_));
        ++report_.fully_measured;
        full_[i] = true;
      } catch (const CudaError& e) {
        on_cuda_error(i, m, e);
        cubins_[i].clear();
      }
      record(i, m);
      if (o_.on_variant_end) o_.on_variant_end(configs_[i]);
      if (!context_lost_.empty()) break;
    }
  }

  // Finalists: the fastest few, re-measured in interleaved rounds so that drift hits them alike; then the tie-break.
  // The `finalists` fastest, and every other variant within 1 % of the fastest (up to three times as many): a near
  // tie that a single measurement ranked fifth still reaches the tie-break, so that which of the near-equal variants
  // wins does not depend on the first round's noise (two runs on one GPU then pick the same winner).
  void final_round() {
    std::vector<std::size_t> order = ranked();
    if (halving_)  // only fully measured variants compete
      order.erase(std::remove_if(order.begin(), order.end(), [&](std::size_t i) { return !full_[i]; }), order.end());
    const std::size_t base = static_cast<std::size_t>(std::max(1, o_.finalists));
    std::size_t keep = std::min(order.size(), base);
    while (keep < order.size() && keep < 3 * base &&
           results_[order[keep]]->median_ms <= 1.01 * results_[order.front()]->median_ms)
      ++keep;
    order.resize(keep);
    if (order.empty() || !context_lost_.empty()) return;
    std::vector<std::unique_ptr<LoadedVariant>> variants;
    for (std::size_t i : order) variants.push_back(workload_->load(configs_[i], cubins_[i], false));
    std::vector<std::vector<double>> times(order.size());
    StoppingRule one;
    one.min_samples = one.max_samples = 1;
    for (int round = 0; round < std::max(1, o_.final_rounds); ++round)
      for (std::size_t k = 0; k < order.size(); ++k)
        times[k].push_back(sample_variant(*variants[k], flush_, *stream_, round == 0 ? 1 : 0, one).front());
    std::vector<Candidate> candidates;
    for (std::size_t k = 0; k < order.size(); ++k) {
      report_.throttled_samples += drop_throttled(times[k]);
      const SampleStats st = summarize(times[k]);
      const Config& c = configs_[order[k]];
      candidates.push_back({st.median, st.noise, c.shared_bytes(problem_), c.block(), c.key(), c.launches()});
    }
    const std::size_t w = pick_winner(candidates);
    Measurement best = *results_[order[w]];
    set_times(best, times[w]);
    report_.winner = best;
    const std::vector<char> cubin = shipped_cubin(best.config, cubins_[order[w]]);
    cache_.finish_run(report_.run_id, best, cubin,
                      cubin.empty() ? CubinOrigin{} : cubin_origin(problem_, best.config, report_.device.arch()));
  }

  // The cubin the cache stores for the winner: the full variant (kernel_source), of which the tuner measured the
  // tuning_source. The same cubin where the two sources agree; else compiled now (one compile per run); empty when
  // that fails (the run is kept, and a handle compiles the winner itself).
  std::vector<char> shipped_cubin(const Config& config, const std::vector<char>& measured) const {
    const std::string source = kernel_source(problem_, config);
    if (measured.empty() || source == tuning_source(problem_, config)) return measured;
    jit::CompileResult r = jit::compile_cached(source, std::string(problem_.family_name()) + "_winner.cu",
                                               report_.device.arch(), cubin_dir_);
    return r.ok ? std::move(r.cubin) : std::vector<char>{};
  }

  const Problem problem_;
  Cache& cache_;
  const TuneOptions& o_;
  const std::chrono::steady_clock::time_point t0_;
  TuneReport report_;
  std::unique_ptr<Strategy> strategy_;  // make_strategy(o_), after the problem and the candidates are checked
  StoppingRule rule_, short_rule_;  // the full rule; successive halving's first round
  bool halving_ = false;
  RunInfo info_;
  std::map<std::string, Measurement> done_;  // measured by the resumed run
  std::optional<std::int64_t> resumed_run_;
  std::unique_ptr<Workload> workload_;
  std::vector<Config> configs_;
  Config fallback_;
  std::vector<std::string> violations_;
  std::vector<std::size_t> selected_;
  std::vector<bool> wanted_;
  std::unique_ptr<CompilePool> pool_;
  std::string cubin_dir_;  // the on-disk compile cache ("" when off)
  std::optional<cuda::Stream> stream_;  // made in prepare(), on the device the run measures
  cuda::DeviceBuffer flush_;
  std::vector<std::vector<char>> cubins_;                 // of the correct variants, for later rounds
  std::vector<std::optional<Measurement>> results_;
  std::vector<bool> full_;  // sampled under the full stopping rule (halving's first round is not): the final's field
  std::string context_lost_;  // set once a variant faults: nothing after it can run in this process
  std::size_t progress_ = 0;
  double best_ms_ = 0;  // the fastest median of this run's first round so far (the far-slower cut's base)
};

}  // namespace

TuneReport tune(const Problem& problem, Cache& cache, const TuneOptions& options) {
  return TuneRun(problem, cache, options).run();
}

}  // namespace autotune

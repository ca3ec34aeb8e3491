#include "autotune/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <thread>

#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "runtime/cuda.hpp"
#include "runtime/histogram_kernel.hpp"
#include "runtime/jit.hpp"
#include "tuner/reference.hpp"
#include "tuner/space.hpp"
#include "tuner/timing.hpp"

namespace autotune::embedded {
extern const std::string_view roof_kernel;
}

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

std::vector<HistogramProblem> default_histogram_problems() {
  // The seed chapter's problem (an 8-bit image histogram) at a size well past the L2, and a float histogram with
  // more bins than CUB privatizes in shared memory.
  HistogramProblem u8;
  u8.type = SampleType::u8;
  u8.bins = 256;
  u8.lower = 0;
  u8.upper = 256;
  u8.n = 64ull << 20;
  HistogramProblem f32;
  f32.type = SampleType::f32;
  f32.bins = 1024;
  f32.lower = 0;
  f32.upper = 1;
  f32.n = 16ull << 20;
  return {u8, f32};
}

namespace {

// Compiles every configuration on a pool of host threads; the GPU loop takes the results in order as they finish,
// so measuring overlaps compiling.
class CompilePool {
 public:
  CompilePool(const HistogramProblem& problem, const std::vector<HistogramConfig>& configs,
              const std::vector<bool>& wanted, const std::string& arch, int threads, std::string cache_dir)
      : results_(configs.size()) {
    std::vector<std::promise<jit::CompileResult>> promises(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) results_[i] = promises[i].get_future();
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    auto work = [this, &problem, &configs, &wanted, arch, cache_dir,
                 ps = std::make_shared<decltype(promises)>(std::move(promises))]() {
      for (std::size_t i; (i = next_++) < configs.size();) {
        if (stop_) {
          (*ps)[i].set_value(jit::CompileResult{});
          continue;
        }
        try {
          if (!wanted[i]) {
            (*ps)[i].set_value(jit::CompileResult{});
            continue;
          }
          (*ps)[i].set_value(jit::compile_cached(kernel_source(problem, configs[i]),
                                                 "histogram_" + std::to_string(i) + ".cu", arch, cache_dir));
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

struct GpuBuffers {
  cuda::DeviceBuffer samples;
  cuda::DeviceBuffer counts;
  cuda::DeviceBuffer flush;
};

// Times whole calls of one loaded variant until the stopping rule is satisfied.
std::vector<double> sample_variant(const HistogramKernel& kernel, const HistogramProblem& problem, GpuBuffers& buf,
                                   cuda::Stream& stream, const TuneOptions& o, int warmup, const StoppingRule& rule) {
  cuda::Event start, stop;
  std::vector<double> times;
  const auto t0 = std::chrono::steady_clock::now();
  for (int s = 0;; ++s) {
    if (o.flush_l2) AUTOTUNE_CUDA(cudaMemsetAsync(buf.flush.get(), s & 0xff, buf.flush.bytes(), stream.get()));
    start.record(stream.get());
    // The whole call is timed (zeroing included for atomic merging), so merge strategies compete fairly.
    kernel.run(buf.samples.get(), problem.n, buf.counts.get(), stream.get());
    stop.record(stream.get());
    stream.synchronize();
    if (s < warmup) continue;
    times.push_back(stop.elapsed_since(start));
    const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (enough_samples(times, elapsed, rule)) return times;
  }
}

}  // namespace

TuneReport tune_histogram(const HistogramProblem& problem, Cache& cache, const TuneOptions& options) {
  problem.validate();
  const auto t0 = std::chrono::steady_clock::now();
  TuneReport report;
  report.problem = problem;
  report.device = query_device(options.device);
  const DeviceInfo& device = report.device;
  AUTOTUNE_CUDA(cudaSetDevice(options.device));
  StoppingRule rule;
  rule.max_samples = std::max(1, options.samples);
  rule.min_samples = std::min(options.min_samples, rule.max_samples);
  rule.target_noise = options.target_noise;
  rule.max_ms = options.max_ms_per_variant;

  // Resume: what an interrupted run of the same problem, model and code already measured is not measured again.
  RunInfo info;
  info.strategy = "exhaustive";
  info.tool_version = version();
  info.code = current_identity(device.driver_version);
  info.settings_json = fmt::format(
      R"({{"finalists":{},"flush_l2":{},"min_samples":{},"samples":{},"seed":{},"target_noise":{},"warmup":{}}})",
      options.finalists, options.flush_l2, rule.min_samples, rule.max_samples, options.seed, options.target_noise,
      options.warmup);
  std::map<std::string, Measurement> done;
  std::optional<std::int64_t> resumed_run;
  if (options.resume) {
    cache.mark_stale(info.code, device.model_key());
    resumed_run = cache.resumable_run(device.model_key(), problem, info.code, info.strategy);
    if (resumed_run)
      for (const Measurement& m : cache.measurements(*resumed_run)) done.emplace(m.config.key(), m);
  }

  const std::vector<HistogramConfig> configs = histogram_space(problem);
  std::vector<std::string> violations(configs.size());
  std::vector<bool> wanted(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    violations[i] = histogram_constraint_violation(problem, configs[i], device);
    wanted[i] = violations[i].empty();  // resumed ok variants are compiled again (from the cache) for the final
  }
  const std::string cubin_dir =
      !options.compile_cache ? std::string() : options.compile_cache_dir.empty() ? jit::default_compile_cache_dir()
                                                                               : options.compile_cache_dir;
  CompilePool pool(problem, configs, wanted, device.arch(), options.compile_threads, cubin_dir);

  // Inputs: generated on the host, checked against the CPU reference, copied once.
  const std::vector<unsigned char> host = generate_samples(problem, problem.n, options.seed);
  const std::vector<std::uint64_t> expected =
      counts_as_written(problem, reference_histogram(problem, host.data(), problem.n));
  const std::size_t count_bytes = static_cast<std::size_t>(problem.bins) * (problem.counter_bits / 8);
  cuda::Stream stream;
  GpuBuffers buf{cuda::DeviceBuffer(std::max<std::size_t>(host.size(), 16)), cuda::DeviceBuffer(count_bytes),
                 cuda::DeviceBuffer(options.flush_l2 ? 2 * device.l2_bytes : 0)};
  if (!host.empty())
    AUTOTUNE_CUDA(cudaMemcpyAsync(buf.samples.get(), host.data(), host.size(), cudaMemcpyHostToDevice, stream.get()));
  stream.synchronize();

  // The roof over 4x the L2 (at least 256 MiB), so it streams from memory, not from the cache.
  report.roof_gbps = measure_read_roof(device, std::max<std::size_t>(256u << 20, 4 * device.l2_bytes), 10);
  cache.set_device_roof(device, report.roof_gbps);
  report.run_id = resumed_run ? *resumed_run : cache.begin_run(device, problem, info);

  auto gbps_of = [&](double ms) { return ms > 0 ? static_cast<double>(problem.bytes()) / (ms * 1e-3) / 1e9 : 0.0; };
  std::vector<std::vector<char>> cubins(configs.size());  // of the correct variants, for the final round
  std::string context_lost;  // set once a variant faults: nothing after it can run in this process
  std::vector<unsigned char> got(count_bytes);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    Measurement m;
    m.config = configs[i];
    jit::CompileResult compiled;
    const auto previous = done.find(configs[i].key());
    bool from_previous = false;
    if (!violations[i].empty()) {
      m.status = MeasurementStatus::invalid_config;
      m.log = violations[i];
    } else if (!context_lost.empty()) {
      m.status = MeasurementStatus::launch_error;
      m.log = context_lost;
    } else if (!(compiled = pool.get(i)).ok) {
      m.status = MeasurementStatus::compile_error;
      m.log = compiled.log;
    } else if (previous != done.end()) {
      m = previous->second;
      from_previous = true;
      ++report.resumed;
      if (m.status == MeasurementStatus::ok) cubins[i] = std::move(compiled.cubin);
    } else {
      (compiled.from_cache ? report.compile_cache_hits : report.compiled) += 1;
      try {
        HistogramKernel kernel(problem, configs[i], device, compiled.cubin);
        // Poison the counters first: every variant must overwrite them.
        AUTOTUNE_CUDA(cudaMemsetAsync(buf.counts.get(), 0xAB, count_bytes, stream.get()));
        kernel.run(buf.samples.get(), problem.n, buf.counts.get(), stream.get());
        AUTOTUNE_CUDA(cudaMemcpyAsync(got.data(), buf.counts.get(), count_bytes, cudaMemcpyDeviceToHost, stream.get()));
        stream.synchronize();
        if (auto diff = compare_histograms(expected, widen_counts(problem, got.data())); !diff.empty()) {
          m.status = MeasurementStatus::wrong_result;
          m.log = diff;
        } else {
          std::vector<double> times = sample_variant(kernel, problem, buf, stream, options, options.warmup, rule);
          report.throttled_samples += drop_throttled(times);
          const SampleStats st = summarize(times);
          m.median_ms = st.median;
          m.spread = st.spread;
          m.samples = st.count;
          m.gbps = gbps_of(st.median);
          m.roof_pct = 100.0 * m.gbps / report.roof_gbps;
          cubins[i] = std::move(compiled.cubin);
        }
      } catch (const UsageError& e) {
        m.status = MeasurementStatus::invalid_config;
        m.log = e.what();
      } catch (const CudaError& e) {
        m.status = MeasurementStatus::launch_error;
        m.log = e.what();
        if (is_sticky(e.code()))
          context_lost = fmt::format("not run: the CUDA context was lost when {} faulted", configs[i].key());
      }
    }
    // Each measurement is committed on its own, so an interrupted run keeps everything measured so far.
    if (!from_previous) cache.add_measurement(report.run_id, m);
    if (m.status == MeasurementStatus::ok && m.config == HistogramConfig::fallback(problem)) report.fallback = m;
    report.measurements.push_back(m);
    if (options.on_measurement) options.on_measurement(i + 1, configs.size(), m);
  }

  // Finalists: the fastest few, re-measured in interleaved rounds so that drift hits them alike; then the tie-break.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (report.measurements[i].status == MeasurementStatus::ok && !cubins[i].empty()) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return report.measurements[a].median_ms < report.measurements[b].median_ms;
  });
  if (order.size() > static_cast<std::size_t>(std::max(1, options.finalists))) order.resize(std::max(1, options.finalists));
  if (!order.empty() && context_lost.empty()) {
    std::vector<std::unique_ptr<HistogramKernel>> kernels;
    for (std::size_t i : order) kernels.push_back(std::make_unique<HistogramKernel>(problem, configs[i], device, cubins[i]));
    std::vector<std::vector<double>> times(order.size());
    StoppingRule one;
    one.min_samples = one.max_samples = 1;
    for (int round = 0; round < std::max(1, options.final_rounds); ++round)
      for (std::size_t k = 0; k < order.size(); ++k) {
        const auto t = sample_variant(*kernels[k], problem, buf, stream, options, round == 0 ? 1 : 0, one);
        times[k].push_back(t.front());
      }
    std::vector<Candidate> candidates;
    for (std::size_t k = 0; k < order.size(); ++k) {
      report.throttled_samples += drop_throttled(times[k]);
      const SampleStats st = summarize(times[k]);
      const HistogramConfig& c = configs[order[k]];
      candidates.push_back({st.median, st.noise, c.shared_bytes(problem), c.block, c.key()});
    }
    const std::size_t w = pick_winner(candidates);
    Measurement best = report.measurements[order[w]];
    const SampleStats st = summarize(times[w]);
    best.median_ms = st.median;
    best.spread = st.spread;
    best.samples = st.count;
    best.gbps = gbps_of(st.median);
    best.roof_pct = 100.0 * best.gbps / report.roof_gbps;
    report.winner = best;
    cache.finish_run(report.run_id, best, cubins[order[w]]);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace autotune

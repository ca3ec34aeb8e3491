#include "autotune/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "autotune/error.hpp"
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
              const std::vector<bool>& wanted, const std::string& arch, int threads)
      : results_(configs.size()) {
    std::vector<std::promise<jit::CompileResult>> promises(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) results_[i] = promises[i].get_future();
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    auto work = [this, &problem, &configs, &wanted, arch, ps = std::make_shared<decltype(promises)>(
                                                              std::move(promises))]() {
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
          (*ps)[i].set_value(
              jit::compile(kernel_source(problem, configs[i]), "histogram_" + std::to_string(i) + ".cu", arch));
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

}  // namespace

TuneReport tune_histogram(const HistogramProblem& problem, Cache& cache, const TuneOptions& options) {
  problem.validate();
  const auto t0 = std::chrono::steady_clock::now();
  TuneReport report;
  report.problem = problem;
  report.device = query_device(options.device);
  const DeviceInfo& device = report.device;
  AUTOTUNE_CUDA(cudaSetDevice(options.device));

  const std::vector<HistogramConfig> configs = histogram_space(problem);
  std::vector<std::string> violations(configs.size());
  std::vector<bool> wanted(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    violations[i] = histogram_constraint_violation(problem, configs[i], device);
    wanted[i] = violations[i].empty();
  }
  CompilePool pool(problem, configs, wanted, device.arch(), options.compile_threads);

  // Inputs: generated on the host, checked against the CPU reference, copied once.
  const std::vector<unsigned char> host = generate_samples(problem, problem.n, options.seed);
  const std::vector<std::uint64_t> expected =
      counts_as_written(problem, reference_histogram(problem, host.data(), problem.n));
  const std::size_t count_bytes = static_cast<std::size_t>(problem.bins) * (problem.counter_bits / 8);
  cuda::Stream stream;
  GpuBuffers buf{cuda::DeviceBuffer(std::max<std::size_t>(host.size(), 16)),
                 cuda::DeviceBuffer(count_bytes),
                 cuda::DeviceBuffer(options.flush_l2 ? 2 * device.l2_bytes : 0)};
  if (!host.empty())
    AUTOTUNE_CUDA(cudaMemcpyAsync(buf.samples.get(), host.data(), host.size(), cudaMemcpyHostToDevice, stream.get()));
  stream.synchronize();

  // The roof over 4x the L2 (at least 256 MiB), so it streams from memory, not from the cache.
  report.roof_gbps = measure_read_roof(device, std::max<std::size_t>(256u << 20, 4 * device.l2_bytes), 10);
  cache.set_device_roof(device, report.roof_gbps);

  RunInfo info;
  info.strategy = "exhaustive";
  info.tool_version = version();
  info.settings_json = fmt::format(R"({{"flush_l2":{},"samples":{},"seed":{},"warmup":{}}})", options.flush_l2,
                                   options.samples, options.seed, options.warmup);
  report.run_id = cache.begin_run(device, problem, info);

  std::vector<char> best_cubin;
  std::string context_lost;  // set once a variant faults: nothing after it can run in this process
  cuda::Event start, stop;
  std::vector<unsigned char> got(count_bytes);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    Measurement m;
    m.config = configs[i];
    jit::CompileResult compiled;
    if (!violations[i].empty()) {
      m.status = MeasurementStatus::invalid_config;
      m.log = violations[i];
    } else if (!context_lost.empty()) {
      m.status = MeasurementStatus::launch_error;
      m.log = context_lost;
    } else if (!(compiled = pool.get(i)).ok) {
      m.status = MeasurementStatus::compile_error;
      m.log = compiled.log;
    } else {
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
          // The whole call is timed (zeroing included for atomic merging), so merge strategies compete fairly.
          std::vector<double> times;
          for (int s = 0; s < options.warmup + options.samples; ++s) {
            if (options.flush_l2)
              AUTOTUNE_CUDA(cudaMemsetAsync(buf.flush.get(), s & 0xff, buf.flush.bytes(), stream.get()));
            start.record(stream.get());
            kernel.run(buf.samples.get(), problem.n, buf.counts.get(), stream.get());
            stop.record(stream.get());
            stream.synchronize();
            if (s >= options.warmup) times.push_back(stop.elapsed_since(start));
          }
          const SampleStats st = summarize(times);
          m.median_ms = st.median;
          m.spread = st.spread;
          m.samples = st.count;
          m.gbps = st.median > 0 ? static_cast<double>(problem.bytes()) / (st.median * 1e-3) / 1e9 : 0.0;
          m.roof_pct = 100.0 * m.gbps / report.roof_gbps;
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
    cache.add_measurement(report.run_id, m);
    if (m.status == MeasurementStatus::ok &&
        (!report.winner || m.median_ms < report.winner->median_ms)) {
      report.winner = m;
      best_cubin = compiled.cubin;
    }
    if (m.status == MeasurementStatus::ok && m.config == HistogramConfig::fallback(problem)) report.fallback = m;
    report.measurements.push_back(m);
    if (options.on_measurement) options.on_measurement(i + 1, configs.size(), m);
  }
  if (report.winner) cache.finish_run(report.run_id, *report.winner, best_cubin);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace autotune

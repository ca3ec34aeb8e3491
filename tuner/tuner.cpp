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

namespace autotune {

std::string version() { return AUTOTUNE_VERSION; }

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

  const std::vector<HistogramConfig> configs = histogram_space();
  std::vector<std::string> violations(configs.size());
  std::vector<bool> wanted(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    violations[i] = histogram_constraint_violation(problem, configs[i], device);
    wanted[i] = violations[i].empty();
  }
  CompilePool pool(problem, configs, wanted, device.arch(), options.compile_threads);

  // Inputs: generated on the host, checked against the CPU reference, copied once.
  const std::vector<unsigned char> host = generate_samples(problem, problem.n, options.seed);
  const std::vector<std::uint32_t> expected = reference_histogram(problem, host.data(), problem.n);
  cuda::Stream stream;
  GpuBuffers buf{cuda::DeviceBuffer(std::max<std::size_t>(host.size(), 16)),
                 cuda::DeviceBuffer(static_cast<std::size_t>(problem.bins) * sizeof(unsigned)),
                 cuda::DeviceBuffer(options.flush_l2 ? 2 * device.l2_bytes : 0)};
  if (!host.empty())
    AUTOTUNE_CUDA(cudaMemcpyAsync(buf.samples.get(), host.data(), host.size(), cudaMemcpyHostToDevice, stream.get()));
  stream.synchronize();

  RunInfo info;
  info.strategy = "exhaustive";
  info.tool_version = version();
  report.run_id = cache.begin_run(device, problem, info);

  std::vector<char> best_cubin;
  std::string context_lost;  // set once a variant faults: nothing after it can run in this process
  cuda::Event start, stop;
  std::vector<std::uint32_t> got(expected.size());
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
        kernel.run(buf.samples.get(), problem.n, buf.counts.as<unsigned>(), stream.get());
        AUTOTUNE_CUDA(cudaMemcpyAsync(got.data(), buf.counts.get(), got.size() * sizeof(unsigned),
                                      cudaMemcpyDeviceToHost, stream.get()));
        stream.synchronize();
        if (auto diff = compare_histograms(expected, got); !diff.empty()) {
          m.status = MeasurementStatus::wrong_result;
          m.log = diff;
        } else {
          std::vector<double> times;
          for (int s = 0; s < options.warmup + options.samples; ++s) {
            AUTOTUNE_CUDA(cudaMemsetAsync(buf.counts.get(), 0, buf.counts.bytes(), stream.get()));
            if (options.flush_l2)
              AUTOTUNE_CUDA(cudaMemsetAsync(buf.flush.get(), s & 0xff, buf.flush.bytes(), stream.get()));
            start.record(stream.get());
            kernel.launch(buf.samples.get(), problem.n, buf.counts.as<unsigned>(), stream.get());
            stop.record(stream.get());
            stream.synchronize();
            if (s >= options.warmup) times.push_back(stop.elapsed_since(start));
          }
          const SampleStats st = summarize(times);
          m.median_ms = st.median;
          m.spread = st.spread;
          m.samples = st.count;
          m.gbps = st.median > 0 ? static_cast<double>(problem.bytes()) / (st.median * 1e-3) / 1e9 : 0.0;
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

// Host cost of the runtime API (issue #7), on this GPU:
//   (a) constructing an autotune::Histogram when the cache holds the winner's cubin     target <= 10 ms
//   (b) constructing one when NVRTC must compile the winner (its cubin is not stored)  target <= 500 ms
//   (c) the host time of one call against a raw cuLaunchKernel of the same kernel      target <= 1 us over raw
//
//   api_overhead [--device I] [--n N] [--calls N] [--markdown FILE]
//
// (a) and (b) build a cache file whose winner is a chosen configuration (u8, 256 bins, R = 32 shared copies,
// last-block merge), stored with its cubin for (a) and without for (b), each construction in a fresh directory so
// that no on-disk compile cache helps (b); the times are wall-clock medians, the CUDA context made beforehand.
// (c) loads the same cubin a second time and launches it through the driver's cuLaunchKernel (taken with
// cudaGetDriverEntryPointByVersion: the driver is never linked) with the grid, block, shared memory and arguments
// the handle computes, on a workspace of its own; both are first checked to count exactly. Calls are enqueued
// back to back in batches of 256 on one stream (short enough never to fill the launch queue, so the host never
// waits for the GPU), the host time of each batch is taken with steady_clock and the stream drained untimed
// between batches; handle and raw batches alternate. Reported: the median over batches of the time per call.
// The Merge::atomic configuration (cudaMemsetAsync + launch per call) is measured the same way against a raw
// cudaMemsetAsync + cuLaunchKernel.
#include <cuda.h>  // types of the driver API only; its entry point comes from the runtime
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/histogram.hpp"
#include "core/cuda.hpp"
#include "kernel_templates/histogram/workspace_layout.hpp"
#include "core/jit.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "tests/forced_winner.hpp"

using namespace autotune;

namespace {

using Clock = std::chrono::steady_clock;
using LaunchKernelFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    CUstream, void**, void**);

// A directory under the system's temporary directory, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            fmt::format("autotune_api_overhead_{}_{}", ::getpid(), counter++);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const char* name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Writes a cache at `path` whose winner for `p` on `dev` is `config`, with `cubin` (may be empty).
void write_cache(const std::string& path, const DeviceInfo& dev, const HistogramProblem& p,
                 const HistogramConfig& config, const std::vector<char>& cubin) {
  testing::write_forced_winner(path, dev, p, config, cubin, "api_overhead");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Median milliseconds to construct a handle; each repetition gets a fresh cache file from `prepare`.
// `expect_compiled` is what resolution().compiled must say, or the measurement is refused.
double time_construction(const HistogramProblem& p, int device, int repeats, bool expect_compiled,
                         const std::function<void(const std::string&)>& prepare) {
  std::vector<double> ms;
  for (int r = 0; r < repeats + 1; ++r) {  // the first one warms up the process (NVRTC, SQLite, the driver)
    TempDir dir;
    const std::string path = dir.file("autotune.db");
    prepare(path);
    const auto t0 = Clock::now();
    const Histogram h(p, Histogram::Options{device, path});
    const auto t1 = Clock::now();
    if (h.resolution().compiled != expect_compiled || h.resolution().source != ConfigSource::exact)
      throw Error("the handle did not resolve as intended: " + h.resolution().message);
    if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return median(ms);
}

struct CallCost {
  double handle_us = 0;
  double raw_us = 0;
};

// Host microseconds per call, handle against raw (see the file comment).
CallCost time_calls(const std::function<void(cudaStream_t)>& handle, const std::function<void(cudaStream_t)>& raw,
                    int calls, cudaStream_t stream) {
  constexpr int kBatch = 256;
  std::vector<double> h_us, r_us;
  auto batch = [&](const std::function<void(cudaStream_t)>& call) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kBatch; ++i) call(stream);
    const auto t1 = Clock::now();
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / kBatch;
  };
  batch(handle), batch(raw);  // warm-up: the stream claims its workspace, the driver its resources
  for (int round = 0; round < std::max(1, calls / kBatch / 2); ++round) {
    if (round % 2) {
      h_us.push_back(batch(handle));
      r_us.push_back(batch(raw));
    } else {
      r_us.push_back(batch(raw));
      h_us.push_back(batch(handle));
    }
  }
  return {median(h_us), median(r_us)};
}

std::string verdict(double value, double target) { return value <= target ? "met" : "**missed**"; }

}  // namespace

int main(int argc, char** argv) try {
  int device = 0;
  std::uint64_t n = 1 << 16;
  int calls = 100000;
  std::string markdown;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--device" && i + 1 < argc) device = std::stoi(argv[++i]);
    else if (a == "--n" && i + 1 < argc) n = parse_size(argv[++i]);
    else if (a == "--calls" && i + 1 < argc) calls = std::stoi(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else {
      std::fprintf(stderr, "usage: api_overhead [--device I] [--n N] [--calls N] [--markdown FILE]\n");
      return 2;
    }
  }
  const DeviceInfo dev = query_device(device);
  AUTOTUNE_CUDA(cudaSetDevice(device));
  AUTOTUNE_CUDA(cudaFree(nullptr));  // the context exists before anything is timed

  HistogramProblem p;  // u8, 256 bins over [0, 256)
  p.n = n;
  HistogramConfig last_block;
  last_block.privatization = Privatization::shared, last_block.replicas = 32, last_block.block = 256;
  last_block.vec_bytes = 16, last_block.loads = 2, last_block.merge = Merge::last_block;
  HistogramConfig atomic = last_block;
  atomic.merge = Merge::atomic;

  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  AUTOTUNE_CUDA(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || entry == nullptr) throw Error("the driver has no cuLaunchKernel");
  const auto cu_launch_kernel = reinterpret_cast<LaunchKernelFn>(entry);

  const auto host = generate_samples(p, n, 1);
  const auto expected = counts_as_written(p, reference_histogram(p, host.data(), n));
  cuda::DeviceBuffer in(std::max<std::size_t>(host.size(), 1));
  AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  // A pageable copy may return before its DMA lands: wait before a non-blocking stream reads it.
  AUTOTUNE_CUDA(cudaDeviceSynchronize());
  cuda::DeviceBuffer counts(static_cast<std::size_t>(p.bins) * sizeof(unsigned));
  cuda::Stream stream;
  auto check = [&](const char* who) {
    std::vector<std::uint64_t> got(p.bins);
    std::vector<unsigned> raw(p.bins);
    AUTOTUNE_CUDA(cudaMemcpy(raw.data(), counts.get(), counts.bytes(), cudaMemcpyDeviceToHost));
    std::copy(raw.begin(), raw.end(), got.begin());
    if (const std::string diff = compare_histograms(expected, got); !diff.empty())
      throw Error(fmt::format("{} counted wrong: {}", who, diff));
  };

  std::string table = fmt::format(
      "# Runtime API overhead: {} ({}), driver {}.{}, NVRTC {}.{}\n\n"
      "u8 samples, 256 bins, n = {}; configurations `{}` and `{}`; {} calls per contender in batches of 256.\n\n"
      "| measurement | value | target | |\n|---|---:|---:|---|\n",
      dev.name, dev.arch(), dev.driver_version / 1000, dev.driver_version % 1000 / 10, dev.nvrtc_version / 1000,
      dev.nvrtc_version % 1000 / 10, n, last_block.key(), atomic.key(), calls);
  std::printf("%s", table.c_str());
  std::fflush(stdout);
  auto row = [&](const std::string& text) {
    std::printf("%s", text.c_str());
    std::fflush(stdout);
    table += text;
  };

  const auto compiled = jit::compile(kernel_source(p, last_block), "winner.cu", dev.arch());
  if (!compiled.ok) throw Error("NVRTC failed: " + compiled.log);
  const double with_cubin = time_construction(p, device, 20, false, [&](const std::string& path) {
    write_cache(path, dev, p, last_block, compiled.cubin);
  });
  row(fmt::format("| (a) construct a handle, cubin in the cache (median of 20) | {:.2f} ms | 10 ms | {} |\n",
                  with_cubin, verdict(with_cubin, 10)));
  const double with_nvrtc = time_construction(p, device, 5, true, [&](const std::string& path) {
    write_cache(path, dev, p, last_block, {});
  });
  row(fmt::format("| (b) construct a handle, NVRTC compiles (median of 5) | {:.1f} ms | 500 ms | {} |\n", with_nvrtc,
                  verdict(with_nvrtc, 500)));

  for (const HistogramConfig& config : {last_block, atomic}) {
    TempDir dir;
    const std::string path = dir.file("autotune.db");
    const auto cubin = jit::compile(kernel_source(p, config), "winner.cu", dev.arch());
    if (!cubin.ok) throw Error("NVRTC failed: " + cubin.log);
    write_cache(path, dev, p, config, cubin.cubin);
    const Histogram h(p, Histogram::Options{device, path});

    // The raw contender: the same cubin loaded again, the same launch the handle makes, a workspace of its own.
    const cuda::Module module(cubin.cubin, kHistogramKernelName);
    const std::size_t shared = config.shared_bytes(p);
    if (shared > 48 * 1024) module.set_max_dynamic_shared(shared);
    const unsigned grid = config.grid_for(p, n, static_cast<unsigned>(module.blocks_per_sm(config.block, shared) *
                                                                     dev.sm_count));
    cuda::DeviceBuffer workspace(histogram_detail::HistogramWorkspace::bytes(p, config));  // as the kernel lays it out
    AUTOTUNE_CUDA(cudaMemset(workspace.get(), 0, workspace.bytes()));
    const void* samples = in.get();
    void* out = counts.get();
    void* ws = workspace.get();
    // The launcher's 1D arguments (launcher.cpp): one row of every sample, no 2D mapping.
    unsigned long long one_row = 1, zero = 0;
    unsigned no_magic = 0;
    int no_shift = -1;
    void* args[] = {&samples, &n, &out, &ws, &n, &one_row, &n, &zero, &zero, &no_magic, &no_shift, &zero, &no_magic,
                    &no_shift};
    const auto function = reinterpret_cast<CUfunction>(module.kernel());  // a CUkernel launches as a CUfunction
    const bool zero_first = config.merge == Merge::atomic;
    auto raw = [&](cudaStream_t s) {
      if (zero_first) AUTOTUNE_CUDA(cudaMemsetAsync(out, 0, counts.bytes(), s));
      const CUresult r = cu_launch_kernel(function, grid, 1, 1, config.block, 1, 1, static_cast<unsigned>(shared),
                                          reinterpret_cast<CUstream>(s), args, nullptr);
      if (r != CUDA_SUCCESS) throw Error(fmt::format("cuLaunchKernel failed with CUresult {}", static_cast<int>(r)));
    };
    auto handle = [&](cudaStream_t s) { h(samples, n, counts.as<unsigned>(), s); };

    for (const auto& [who, call] : {std::pair{"the handle", std::function<void(cudaStream_t)>(handle)},
                                    std::pair{"the raw launch", std::function<void(cudaStream_t)>(raw)}}) {
      AUTOTUNE_CUDA(cudaMemset(counts.get(), 0xAB, counts.bytes()));
      call(stream.get());
      stream.synchronize();
      check(who);
    }
    const CallCost cost = time_calls(handle, raw, calls, stream.get());
    const char* what = zero_first ? "memset + launch" : "one launch";
    row(fmt::format("| (c) {}: call the handle | {:.2f} us | | |\n", what, cost.handle_us));
    row(fmt::format("| (c) {}: raw {}cuLaunchKernel | {:.2f} us | | |\n", what,
                    zero_first ? "cudaMemsetAsync + " : "", cost.raw_us));
    row(fmt::format("| (c) {}: handle over raw | {:.2f} us | 1 us | {} |\n", what, cost.handle_us - cost.raw_us,
                    verdict(cost.handle_us - cost.raw_us, 1.0)));
  }
  if (!markdown.empty()) std::ofstream(markdown) << table;
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "api_overhead: %s\n", e.what());
  return 1;
}

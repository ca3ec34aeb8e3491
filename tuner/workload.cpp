#include "tuner/workload.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "autotune/error.hpp"
#include "runtime/histogram_kernel.hpp"
#include "runtime/reduce_kernel.hpp"
#include "tuner/reduce_reference.hpp"
#include "tuner/reduce_space.hpp"
#include "tuner/reference.hpp"
#include "tuner/space.hpp"

namespace autotune {

namespace {

// An address no allocation has: a variant reading it faults with an illegal address, as a broken kernel would.
const void* const kPoisonAddress = reinterpret_cast<const void*>(std::uintptr_t{1} << 47);

cuda::DeviceBuffer upload(const std::vector<unsigned char>& host) {
  cuda::DeviceBuffer buf(std::max<std::size_t>(host.size(), 16));
  if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(buf.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  return buf;
}

// --- histograms ---------------------------------------------------------------------------------------------------

class HistogramWorkload final : public Workload {
 public:
  HistogramWorkload(const HistogramProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : problem_(problem), device_(device) {
    const std::vector<unsigned char> host = generate_samples(problem, problem.n, seed);
    expected_ = counts_as_written(problem, reference_histogram(problem, host.data(), problem.n));
    samples_ = upload(host);
    counts_ = cuda::DeviceBuffer(static_cast<std::size_t>(problem.bins) * (problem.counter_bits / 8));
  }

  std::vector<Config> space() const override {
    const auto configs = histogram_space(problem_);
    return {configs.begin(), configs.end()};
  }
  std::string violation(const Config& c) const override {
    return histogram_constraint_violation(problem_, *c.histogram(), device_);
  }

  class Variant final : public LoadedVariant {
   public:
    Variant(const HistogramWorkload& w, const HistogramConfig& c, const std::vector<char>& cubin, bool poison)
        : w_(w), kernel_(w.problem_, c, w.device_, cubin), input_(poison ? kPoisonAddress : w.samples_.get()) {}
    void run(cudaStream_t stream) const override { kernel_.run(input_, w_.problem_.n, w_.counts_.get(), stream); }
    std::string check(cudaStream_t stream) const override {
      std::vector<unsigned char> got(w_.counts_.bytes());
      AUTOTUNE_CUDA(cudaMemsetAsync(w_.counts_.get(), 0xAB, got.size(), stream));  // every variant must overwrite
      run(stream);
      AUTOTUNE_CUDA(cudaMemcpyAsync(got.data(), w_.counts_.get(), got.size(), cudaMemcpyDeviceToHost, stream));
      AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
      return compare_histograms(w_.expected_, widen_counts(w_.problem_, got.data()));
    }

   private:
    const HistogramWorkload& w_;
    HistogramKernel kernel_;
    const void* input_;
  };

  std::unique_ptr<LoadedVariant> load(const Config& c, const std::vector<char>& cubin, bool poison) const override {
    return std::make_unique<Variant>(*this, *c.histogram(), cubin, poison);
  }

 private:
  HistogramProblem problem_;
  DeviceInfo device_;
  std::vector<std::uint64_t> expected_;
  cuda::DeviceBuffer samples_, counts_;
};

// --- reductions ---------------------------------------------------------------------------------------------------

class ReduceWorkload final : public Workload {
 public:
  ReduceWorkload(const ReduceProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : problem_(problem), device_(device) {
    const std::vector<unsigned char> host = generate_values(problem, problem.n, seed);
    expected_ = reference_reduce(problem, host.data(), problem.n);
    values_ = upload(host);
    out_ = cuda::DeviceBuffer(16);
  }

  std::vector<Config> space() const override {
    const auto configs = reduce_space(problem_);
    return {configs.begin(), configs.end()};
  }
  std::string violation(const Config& c) const override {
    return reduce_constraint_violation(problem_, *c.reduce(), device_);
  }

  class Variant final : public LoadedVariant {
   public:
    Variant(const ReduceWorkload& w, const ReduceConfig& c, const std::vector<char>& cubin, bool poison)
        : w_(w), kernel_(w.problem_, c, w.device_, cubin), input_(poison ? kPoisonAddress : w.values_.get()) {}
    void run(cudaStream_t stream) const override { kernel_.run(input_, w_.problem_.n, w_.out_.get(), stream); }
    std::string check(cudaStream_t stream) const override {
      unsigned char got[16];
      AUTOTUNE_CUDA(cudaMemsetAsync(w_.out_.get(), 0xAB, sizeof got, stream));
      run(stream);
      AUTOTUNE_CUDA(cudaMemcpyAsync(got, w_.out_.get(), sizeof got, cudaMemcpyDeviceToHost, stream));
      AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
      return compare_reduce(w_.problem_, w_.expected_, got, w_.problem_.n,
                            unordered_chain(kernel_.config(), w_.problem_.n, kernel_.grid_for(w_.problem_.n)));
    }

   private:
    const ReduceWorkload& w_;
    ReduceKernel kernel_;
    const void* input_;
  };

  std::unique_ptr<LoadedVariant> load(const Config& c, const std::vector<char>& cubin, bool poison) const override {
    return std::make_unique<Variant>(*this, *c.reduce(), cubin, poison);
  }

 private:
  ReduceProblem problem_;
  DeviceInfo device_;
  ReduceExpected expected_;
  cuda::DeviceBuffer values_, out_;
};

}  // namespace

DeviceMemoryNeed device_memory_need(const Problem& problem, std::uint64_t extra_bytes) {
  DeviceMemoryNeed need;
  need.input = problem.bytes();
  // HistogramWorkload: bins counters; ReduceWorkload: one 16-byte result.
  if (const HistogramProblem* h = problem.histogram())
    need.output = static_cast<std::uint64_t>(h->bins) * static_cast<std::uint64_t>(h->counter_bits / 8);
  else need.output = 16;
  need.extra = extra_bytes;
  return need;
}

namespace {
std::string human_bytes(std::uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", bytes / 1073741824.0);
  if (bytes >= (1ull << 20)) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  return fmt::format("{:.1f} KiB", bytes / 1024.0);
}
}  // namespace

std::string device_memory_shortfall(const Problem& problem, int device, const DeviceMemoryNeed& need,
                                    std::uint64_t free_bytes, std::uint64_t total_bytes) {
  if (need.total() <= free_bytes) return {};
  return fmt::format("not enough GPU memory to tune {}: it needs {} (input {}, output {}, L2 flush and read-roof "
                     "buffers {}, margin {}) but GPU {} has {} free of {}; tune a smaller --n",
                     problem.key(), human_bytes(need.total()), human_bytes(need.input), human_bytes(need.output),
                     human_bytes(need.extra), human_bytes(need.margin), device, human_bytes(free_bytes),
                     human_bytes(total_bytes));
}

std::unique_ptr<Workload> make_workload(const Problem& problem, const DeviceInfo& device, std::uint64_t seed) {
  if (const HistogramProblem* h = problem.histogram()) return std::make_unique<HistogramWorkload>(*h, device, seed);
  return std::make_unique<ReduceWorkload>(*problem.reduce(), device, seed);
}

}  // namespace autotune

// What the tuner workloads of both histogram families (kernel_templates/histogram/workload.cpp,
// kernel_templates/histogram_range/workload.cpp) share over TypedWorkload (core/typed_workload.hpp): the CPU
// reference's exact counts as counters of the problem's width hold them, an output of every counter, and the
// comparison of what a call wrote with those counts.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/typed_workload.hpp"
#include "kernel_templates/histogram_samples.hpp"

namespace autotune::histogram_samples {

template <class P, class C, class Kernel>
class CountsWorkload : public TypedWorkload<P, C, Kernel> {
 protected:
  using TypedWorkload<P, C, Kernel>::TypedWorkload;

  /// The reference's `counts` of what every call reads: what each call must write (32-bit counters wrap).
  void expect(std::vector<std::uint64_t> counts) {
    expected_ = counts_as_written(this->problem_, std::move(counts));
    this->output_ = cuda::DeviceBuffer(counts_bytes(this->problem_));
  }
  std::string compare(const std::vector<unsigned char>& got, const Kernel*) const override {
    return compare_histograms(expected_, widen_counts(this->problem_, got.data()));
  }

 private:
  std::vector<std::uint64_t> expected_;
};

}  // namespace autotune::histogram_samples

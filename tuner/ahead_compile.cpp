#include "tuner/ahead_compile.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "autotune/error.hpp"
#include "core/family.hpp"
#include "core/jit.hpp"
#include "tuner/ladder.hpp"

namespace autotune {

namespace {

// SCHED_IDLE for the calling thread (allowed without privileges: it only lowers the priority); where the kernel
// refuses it, the lowest nice value of the thread instead.
void lowest_priority() {
  sched_param param{};
  param.sched_priority = 0;
  if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) != 0)
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);
}

}  // namespace

std::vector<Problem> compile_ahead_order(const std::vector<Problem>& problems) {
  const std::vector<std::vector<Problem>> ladders = group_ladders(problems);
  std::vector<Problem> out;
  for (std::size_t i = 1; i < ladders.size(); ++i) out.insert(out.end(), ladders[i].begin(), ladders[i].end());
  return out;
}

AheadCompiler::AheadCompiler(std::vector<Problem> problems, const DeviceInfo& device, std::string dir,
                             unsigned threads)
    : problems_(std::move(problems)), device_(device), dir_(std::move(dir)) {
  if (dir_.empty() || problems_.empty()) return;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < threads; ++t) threads_.emplace_back([this] { work(); });
}

AheadCompiler::~AheadCompiler() {
  stop_ = true;
  wait();
}

void AheadCompiler::wait() {
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
}

AheadCompiler::Counts AheadCompiler::counts() const {
  return {compiled_.load(), cached_.load(), failed_.load(), invalid_.load()};
}

bool AheadCompiler::next(Item& item) {
  std::lock_guard lock(mutex_);
  while (!stop_) {
    if (config_ < configs_.size()) {
      item = {loaded_, configs_[config_++]};
      return true;
    }
    if (problem_ >= problems_.size()) return false;
    loaded_ = problem_++;
    config_ = 0;
    try {
      configs_ = problems_[loaded_].family().space(problems_[loaded_]);
    } catch (const Error&) {
      configs_.clear();  // a problem the family refuses: the tuner says why when it gets there
    }
  }
  return false;
}

void AheadCompiler::work() {
  lowest_priority();
  Item item;
  while (next(item)) {
    const Problem& p = problems_[item.problem];
    try {
      if (!p.family().violation(p, item.config, &device_).empty()) {
        ++invalid_;
        continue;
      }
      const std::string source = tuning_source(p, item.config);
      {
        std::lock_guard lock(mutex_);
        if (!seen_.insert(std::hash<std::string>{}(source)).second) continue;
      }
      const jit::CompileResult r = jit::compile_cached(source, "ahead.cu", device_.arch(), dir_);
      ++(!r.ok ? failed_ : r.from_cache ? cached_ : compiled_);
    } catch (const Error&) {
      ++failed_;  // no NVRTC, a configuration the family refuses: the tuner meets it and says why
    }
  }
}

}  // namespace autotune

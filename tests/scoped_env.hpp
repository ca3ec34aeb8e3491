// An environment variable set (or unset) for one scope and put back as it was at its end, so that other test cases
// see the environment they started with.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace autotune::test {

class ScopedEnv {
 public:
  /// Sets `name` to `value`, or unsets it when `value` is empty (std::nullopt).
  ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* v = std::getenv(name_.c_str())) saved_ = v;
    if (value) ::setenv(name_.c_str(), value->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ~ScopedEnv() {
    if (saved_) ::setenv(name_.c_str(), saved_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

}  // namespace autotune::test

// Uses the installed headers and library: validates a problem, generates its kernel source, asks for a handle.
// Without a GPU the handle reports NoDeviceError, which is the expected outcome here (exit 0); any other failure
// exits 1.
#include <autotune/autotune.hpp>

#include <cstdio>

int main() {
  autotune::HistogramProblem p;
  p.n = 1 << 20;
  p.validate();
  const std::string src = autotune::kernel_source(p, autotune::HistogramConfig::fallback(p));
  std::printf("consumer: %s, %zu bytes of kernel source, autotune %s\n", p.key().c_str(), src.size(),
              autotune::version().c_str());
  try {
    autotune::Histogram h(p, autotune::Histogram::Options{-1, ":memory:"});
    std::printf("consumer: %s\n", h.resolution().message.c_str());
  } catch (const autotune::NoDeviceError& e) {
    std::printf("consumer: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: unexpected failure: %s\n", e.what());
    return 1;
  }
  return 0;
}

// CPU suite entry point. The suites run with AUTOTUNE_SELF_ZERO_AS_MEASURED=1: their cases check the policy's and the
// caches' entries as stored, which the lookup's one-launch rule (runtime/one_launch.hpp) serves otherwise on sm_90
// model keys; the rule's own cases (test_one_launch.cpp) turn it back on.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  ::setenv("AUTOTUNE_SELF_ZERO_AS_MEASURED", "1", 1);
  doctest::Context context(argc, argv);
  return context.run();
}

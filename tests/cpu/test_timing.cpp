#include <doctest/doctest.h>

#include "tuner/timing.hpp"

using namespace autotune;

TEST_SUITE("timing") {
  TEST_CASE("summary of an odd number of samples") {
    const auto s = summarize({5.0, 1.0, 3.0});
    CHECK(s.count == 3);
    CHECK(s.median == doctest::Approx(3.0));
    CHECK(s.min == doctest::Approx(1.0));
    CHECK(s.max == doctest::Approx(5.0));
    CHECK(s.spread == doctest::Approx(4.0 / 3.0));
  }
  TEST_CASE("median of an even number of samples is the mean of the middle two") {
    const auto s = summarize({4.0, 1.0, 2.0, 100.0});
    CHECK(s.median == doctest::Approx(3.0));
    CHECK(s.max == doctest::Approx(100.0));
  }
  TEST_CASE("no samples gives zeros") {
    const auto s = summarize({});
    CHECK(s.count == 0);
    CHECK(s.median == 0.0);
    CHECK(s.spread == 0.0);
  }
}

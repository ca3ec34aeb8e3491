#include <doctest/doctest.h>

#include "tuner/timing.hpp"

#include <cmath>

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

TEST_SUITE("timing") {
  TEST_CASE("noise is the relative standard error of the median") {
    // samples 9, 10, 11: mean 10, sample stddev 1, median 10 -> 1.2533 * 1 / sqrt(3) / 10
    const auto s = summarize({9.0, 10.0, 11.0});
    CHECK(s.noise == doctest::Approx(1.2533 / std::sqrt(3.0) / 10.0));
    CHECK(summarize({5.0}).noise == 0.0);
  }

  TEST_CASE("stopping: a minimum, a maximum, a time cap, a settled median, and the far-slower cut") {
    StoppingRule r;
    r.min_samples = 3, r.max_samples = 6, r.target_noise = 0.01, r.max_ms = 100;
    CHECK_FALSE(enough_samples({1.0, 1.0}, 0, r));           // below the minimum, however quiet
    CHECK(enough_samples({1.0, 1.0, 1.0}, 0, r));            // quiet: noise 0
    CHECK_FALSE(enough_samples({1.0, 2.0, 1.5}, 0, r));      // noisy: keep going
    CHECK(enough_samples({1.0, 2.0, 1.5}, 100, r));          // ... unless out of time
    CHECK(enough_samples({1, 2, 1, 2, 1, 2}, 0, r));         // ... or at the maximum
    // The far-slower cut: two samples both above it are enough, one is not, nor two of which one is below it.
    StoppingRule cut = r;
    cut.cut_ms = 4.0;
    CHECK_FALSE(enough_samples({9.0}, 0, cut));
    CHECK(enough_samples({9.0, 4.5}, 0, cut));
    CHECK_FALSE(enough_samples({9.0, 3.9}, 0, cut));
    CHECK_FALSE(enough_samples({9.0, 4.5}, 0, r));  // no cut: the minimum holds
  }

  TEST_CASE("throttled samples are dropped, a uniformly slow variant is not") {
    std::vector<double> s{1.0, 1.01, 0.99, 1.0, 2.5, 1.02};
    CHECK(drop_throttled(s) == 1);
    CHECK(s.size() == 5);
    std::vector<double> slow{1.0, 3.0, 3.1, 2.9, 3.0};  // the median is the slow speed: nothing is above it by 25 %
    CHECK(drop_throttled(slow) == 0);
    CHECK(slow.size() == 5);
    std::vector<double> few{1.0, 5.0};
    CHECK(drop_throttled(few) == 0);
  }

  TEST_CASE("tie-break: the fastest wins unless a cheaper variant is within the noise") {
    std::vector<Candidate> c{
        {1.000, 0.001, 32768, 512, "b"},  // fastest, but needs 32 KiB of shared memory
        {1.004, 0.001, 1024, 256, "a"},   // 0.4 % slower: inside 2 * 0.25 %, and cheaper
        {1.200, 0.001, 0, 128, "c"},      // cheapest, but clearly slower
    };
    CHECK(pick_winner(c) == 1);
    c[1].median_ms = 1.02;  // now 2 % slower: outside the noise, the fastest wins
    CHECK(pick_winner(c) == 0);
    // The same candidates in another order pick the same configuration.
    std::vector<Candidate> d{c[2], c[1], c[0]};
    CHECK(d[pick_winner(d)].key == "b");
    // Equal cost: the block, then the key decide.
    std::vector<Candidate> e{{1.0, 0.0, 0, 256, "y"}, {1.0, 0.0, 0, 256, "x"}};
    CHECK(e[pick_winner(e)].key == "x");
    // One launch is cheaper than a memset + launch, before shared memory counts; 0.6 % is no tie at low noise.
    std::vector<Candidate> f{{1.000, 0.001, 0, 256, "memset+kernel", 2}, {1.004, 0.001, 32768, 512, "one", 1},
                             {1.006, 0.001, 0, 128, "slower", 1}};
    CHECK(f[pick_winner(f)].key == "one");
    f[0].noise = 0.004;  // noisier: 0.6 % is inside 2 * 0.4 %, and "slower" is the cheapest one-launch variant
    CHECK(f[pick_winner(f)].key == "slower");
    CHECK_THROWS(pick_winner({}));
  }
}

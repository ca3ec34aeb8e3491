// The C++ API on the GPU: lookup order (exact, nearest size, fallback) and correct results from each.
#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>

#include "autotune/error.hpp"
#include "autotune/histogram.hpp"
#include "autotune/tuner.hpp"
#include "gpu_fixtures.hpp"

using namespace autotune;
using namespace autotune::testing;

namespace {

std::string temp_cache() {
  static int counter = 0;
  const auto path = std::filesystem::temp_directory_path() /
                    ("autotune_api_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".db");
  std::filesystem::remove(path);
  return path.string();
}

// Runs the handle on adversarial data of `n` samples and compares with the CPU reference.
void check_handle(const Histogram& h, std::uint64_t n) {
  const auto host = adversarial_samples(h.problem(), n, 5);
  DeviceSamples in(host, size_of(h.problem().type), 0);
  cuda::DeviceBuffer counts = counter_buffer(h.problem());
  AUTOTUNE_CUDA(cudaMemset(counts.get(), 0xFF, counts.bytes()));
  cuda::Stream stream;
  if (h.problem().counter_bits == 64) h(in.ptr, n, counts.as<unsigned long long>(), stream.get());
  else h(in.ptr, n, counts.as<unsigned>(), stream.get());
  stream.synchronize();
  CHECK(compare_histograms(expected_counts(h.problem(), host, n), download(h.problem(), counts)) == "");
}

}  // namespace

TEST_SUITE("gpu_api") {
  TEST_CASE("without a cache entry the handle falls back to the default and says so") {
    HistogramProblem p;
    p.n = 1 << 20;
    const std::string path = temp_cache();  // does not exist
    Histogram h(p, Histogram::Options{0, path});
    CHECK(h.resolution().source == ConfigSource::fallback);
    CHECK(h.resolution().config == HistogramConfig::fallback(p));
    CHECK(h.resolution().compiled);
    CHECK(h.resolution().message.find("built-in default") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(path));  // a lookup never creates a cache file
    check_handle(h, p.n);
  }

  TEST_CASE("after tuning, the exact problem loads the winner's cubin without NVRTC; another size uses the nearest") {
    const std::string path = temp_cache();
    HistogramProblem p;
    p.type = SampleType::f32, p.bins = 1024, p.lower = 0, p.upper = 1, p.n = 2 << 20;
    TuneReport r;
    {
      Cache cache(path);
      TuneOptions o;
      o.samples = 3;
      r = tune_histogram(p, cache, o);
    }
    REQUIRE(r.winner.has_value());

    Histogram exact(p, Histogram::Options{0, path});
    CHECK(exact.resolution().source == ConfigSource::exact);
    CHECK(exact.resolution().config == r.winner->config);
    CHECK_FALSE(exact.resolution().compiled);
    check_handle(exact, p.n);
    check_handle(exact, 777);  // any n runs correctly, not only the tuned one

    HistogramProblem bigger = p;
    bigger.n = 8 << 20;
    Histogram near(bigger, Histogram::Options{0, path});
    CHECK(near.resolution().source == ConfigSource::nearest_size);
    CHECK(near.resolution().tuned_n == p.n);
    check_handle(near, bigger.n);

    HistogramProblem other = p;
    other.bins = 512;
    Histogram fb(other, Histogram::Options{0, path});
    CHECK(fb.resolution().source == ConfigSource::fallback);
    check_handle(fb, 1000);
    std::filesystem::remove(path);
  }

  TEST_CASE("64-bit counters, and a counter width that disagrees with the problem is refused") {
    HistogramProblem p;
    p.type = SampleType::f32, p.bins = 300, p.lower = -2, p.upper = 2, p.n = 100000, p.counter_bits = 64;
    Histogram h(p, Histogram::Options{0, temp_cache()});
    check_handle(h, p.n);
    cuda::DeviceBuffer counts(300 * sizeof(unsigned));
    CHECK_THROWS_WITH_AS(h(counts.get(), 10, counts.as<unsigned>()), doctest::Contains("32-bit counters"), UsageError);
    CHECK_THROWS_WITH_AS(h(counts.as<char>() + 1, 10, counts.as<unsigned long long>()), doctest::Contains("aligned"),
                         UsageError);
  }

  TEST_CASE("a winner measured with another kernel template is marked stale and never served") {
    const std::string path = temp_cache();
    HistogramProblem p;
    p.n = 1 << 20;
    {
      Cache cache(path);
      TuneOptions o;
      o.samples = 2;
      REQUIRE(tune_histogram(p, cache, o).winner.has_value());
    }
    CHECK(Histogram(p, Histogram::Options{0, path}).resolution().source == ConfigSource::exact);
    {
      SQLite::Database db(path, SQLite::OPEN_READWRITE);
      db.exec("UPDATE runs SET template_hash = '00000000deadbeef'");  // as if the template had changed since
    }
    Histogram h(p, Histogram::Options{0, path});
    CHECK(h.resolution().source == ConfigSource::fallback);
    CHECK(h.resolution().message.find("marked stale") != std::string::npos);
    check_handle(h, p.n);
    CHECK(Cache(path).winners(true).at(0).stale);
    std::filesystem::remove(path);
  }

  TEST_CASE("null pointers are refused with a clear error") {
    HistogramProblem p;
    p.n = 10;
    Histogram h(p, Histogram::Options{0, temp_cache()});
    cuda::DeviceBuffer counts(256 * sizeof(unsigned));
    CHECK_THROWS_AS(h(nullptr, 10, counts.as<unsigned>()), UsageError);
    CHECK_THROWS_AS(h(counts.get(), 10, static_cast<unsigned*>(nullptr)), UsageError);
    CHECK_NOTHROW(h(nullptr, 0, counts.as<unsigned>()));  // n = 0 reads nothing
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
  }
}

// autotune::Reduce on the GPU: the shared lookup order (exact, nearest size, fallback), results checked against the
// CPU reference, the host-result convenience, type and pointer checks, and a handle looked up by `autotune best`.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <thread>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/reduce.hpp"
#include "autotune/tuner.hpp"
#include "core/cuda.hpp"
#include "kernel_templates/reduce/reference.hpp"

using namespace autotune;

namespace {

std::string temp_cache(const char* name) {
  const auto path = std::filesystem::temp_directory_path() /
                    fmt::format("autotune_reduce_api_{}_{}.db", ::getpid(), name);
  std::filesystem::remove(path);
  return path.string();
}

// Runs `r` on `n` generated values at an element offset of `offset` and compares with the CPU reference.
template <class Acc>
void check_reduce(const Reduce& r, std::uint64_t n, std::size_t offset, std::uint64_t seed) {
  const ReduceProblem& p = r.problem();
  const std::vector<unsigned char> host = generate_values(p, n, seed);
  const std::size_t elem = size_of(p.type);
  cuda::DeviceBuffer in(host.size() + (offset + 1) * elem), out(sizeof(Acc));
  auto* base = static_cast<unsigned char*>(in.get()) + offset * elem;
  if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(base, host.data(), host.size(), cudaMemcpyHostToDevice));
  cuda::Stream stream;
  const Acc got = r.result(base, n, static_cast<Acc*>(out.get()), stream.get());
  CHECK(compare_reduce(p, reference_reduce(p, host.data(), n), &got, n) == "");
}

}  // namespace

TEST_SUITE("gpu_api") {
  TEST_CASE("a reduction handle: exact, nearest size and fallback, each with correct results") {
    const std::string path = temp_cache("order");
    ReduceProblem p;
    p.op = ReduceOp::sum;
    p.type = ValueType::i32;  // accumulates in i64
    p.n = 1ull << 20;
    {
      Cache cache(path);
      TuneOptions o;
      o.samples = 3;
      REQUIRE(tune(p, cache, o).winner);
    }
    const Reduce exact(p, Reduce::Options{0, path});
    MESSAGE(exact.resolution().message);
    CHECK(exact.resolution().source == ConfigSource::exact);
    CHECK_FALSE(exact.resolution().compiled);  // the winner's cubin came from the cache
    check_reduce<long long>(exact, p.n, 0, 1);
    check_reduce<long long>(exact, 1000003, 1, 2);  // another n, an unaligned pointer
    check_reduce<long long>(exact, 0, 0, 3);        // the identity

    ReduceProblem bigger = p;
    bigger.n = 8ull << 20;
    const Reduce near(bigger, Reduce::Options{0, path});
    CHECK(near.resolution().source == ConfigSource::nearest_size);
    CHECK(near.resolution().tuned_n == p.n);
    check_reduce<long long>(near, bigger.n, 0, 4);

    ReduceProblem other = p;
    other.op = ReduceOp::max;  // another operator on the same element type: the tuned sum's winner is adopted
    const Reduce similar(other, Reduce::Options{0, path});
    CHECK(similar.resolution().source == ConfigSource::similar_problem);
    CHECK(similar.resolution().compiled);  // the sum's cubin is another source: compiled for the max
    check_reduce<int>(similar, 12345, 3, 5);

    ReduceProblem f64 = other;
    f64.type = ValueType::f64;  // nothing of its element type tuned
    const Reduce fallback(f64, Reduce::Options{0, path});
    CHECK(fallback.resolution().source == ConfigSource::fallback);
    CHECK(fallback.resolution().compiled);
    std::filesystem::remove(path);
  }

  TEST_CASE("one reduction handle, called from several threads on their own streams at once and in a CUDA graph") {
    ReduceProblem p;
    p.op = ReduceOp::sum;
    p.type = ValueType::i32;  // exact: every call must give exactly the reference
    p.n = 3'000'017;
    const Reduce r(p, Reduce::Options{0, temp_cache("threads")});  // the built-in default finishes in the last block
    const int threads = 12, calls = 8;
    std::vector<std::string> errors(threads);
    {
      std::vector<std::jthread> pool;
      for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          try {
            AUTOTUNE_CUDA(cudaSetDevice(0));
            cuda::Stream stream;
            std::vector<std::vector<unsigned char>> host;
            std::vector<cuda::DeviceBuffer> in, out;
            for (int k = 0; k < calls; ++k) {
              host.push_back(generate_values(p, p.n, 100 * t + k));
              in.emplace_back(host.back().size());
              out.emplace_back(8);
              AUTOTUNE_CUDA(cudaMemcpy(in.back().get(), host.back().data(), host.back().size(), cudaMemcpyHostToDevice));
            }
            for (int k = 0; k < calls; ++k) r(in[k].get(), p.n, static_cast<long long*>(out[k].get()), stream.get());
            stream.synchronize();
            for (int k = 0; k < calls; ++k) {
              long long got = 0;
              AUTOTUNE_CUDA(cudaMemcpy(&got, out[k].get(), 8, cudaMemcpyDeviceToHost));
              if (auto d = compare_reduce(p, reference_reduce(p, host[k].data(), p.n), &got, p.n); !d.empty())
                errors[t] += fmt::format("call {}: {}\n", k, d);
            }
          } catch (const std::exception& e) {
            errors[t] += e.what();
          }
        });
    }
    for (int t = 0; t < threads; ++t) CHECK_MESSAGE(errors[t].empty(), "thread ", t, ": ", errors[t]);

    // Captured once, replayed on new data: each replay exact.
    const std::vector<unsigned char> first = generate_values(p, p.n, 7);
    cuda::DeviceBuffer in(first.size()), out(8);
    cuda::Stream stream;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    AUTOTUNE_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
    r(in.get(), p.n, static_cast<long long*>(out.get()), stream.get());
    AUTOTUNE_CUDA(cudaStreamEndCapture(stream.get(), &graph));
    AUTOTUNE_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; ++replay) {
      const std::vector<unsigned char> host = generate_values(p, p.n, 1000 + replay);
      AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
      AUTOTUNE_CUDA(cudaGraphLaunch(exec, stream.get()));
      stream.synchronize();
      long long got = 0;
      AUTOTUNE_CUDA(cudaMemcpy(&got, out.get(), 8, cudaMemcpyDeviceToHost));
      CHECK(compare_reduce(p, reference_reduce(p, host.data(), p.n), &got, p.n) == "");
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }

  TEST_CASE("float min and max propagate NaN; the output type and pointers are checked") {
    ReduceProblem p;
    p.op = ReduceOp::min;
    p.type = ValueType::f32;
    p.n = 4096;
    const Reduce r(p, Reduce::Options{0, temp_cache("none")});
    std::vector<float> host(p.n);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 97) - 40.0f;
    cuda::DeviceBuffer in(host.size() * sizeof(float)), out(8);
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(r.result(in.get(), p.n, static_cast<float*>(out.get())) == -40.0f);
    host[1234] = std::numeric_limits<float>::quiet_NaN();
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(std::isnan(r.result(in.get(), p.n, static_cast<float*>(out.get()))));

    CHECK_THROWS_WITH_AS(r(in.get(), p.n, static_cast<double*>(out.get())), doctest::Contains("f64 output"), UsageError);
    // Typed calls: the input's type is checked too; spans give n.
    const auto* values = static_cast<const float*>(in.get());
    auto* result = static_cast<float*>(out.get());
    CHECK(std::isnan(r.result(values, p.n, result)));
    CHECK(r.result(std::span(values, 1000), result) == -40.0f);  // before the NaN at 1234
    r(std::span(values, 1000), result);
    float host_result = 0;
    AUTOTUNE_CUDA(cudaMemcpy(&host_result, result, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(host_result == -40.0f);
    CHECK_THROWS_WITH_AS(r(reinterpret_cast<const double*>(values), p.n / 2, result),
                         doctest::Contains("f64 input passed to reduce/min/f32"), UsageError);
    CHECK_THROWS_WITH_AS(r.result(reinterpret_cast<const std::int32_t*>(values), p.n, result),
                         doctest::Contains("i32 input"), UsageError);
    CHECK_THROWS_WITH_AS(r(nullptr, p.n, static_cast<float*>(out.get())), doctest::Contains("input pointer is null"),
                         UsageError);
    CHECK_THROWS_WITH_AS(r(in.get(), p.n, static_cast<float*>(nullptr)), doctest::Contains("output pointer is null"),
                         UsageError);
    CHECK_THROWS_WITH_AS(r(static_cast<const char*>(in.get()) + 2, p.n, static_cast<float*>(out.get())),
                         doctest::Contains("not aligned"), UsageError);
  }
}

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
#include "core/jit.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "gpu_fixtures.hpp"

using namespace autotune;
using namespace autotune::testing;

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
  // A pageable copy may return before its DMA lands: wait before a non-blocking stream reads it.
  AUTOTUNE_CUDA(cudaDeviceSynchronize());
  cuda::Stream stream;
  const Acc got = r.result(base, n, static_cast<Acc*>(out.get()), stream.get());
  CHECK(compare_reduce(p, reference_reduce(p, host.data(), n), &got, n) == "");
}

// One reduction of `n` generated values on `stream`, its result read back: "" or what differs from the CPU.
std::string reduce_once(const Reduce& r, std::uint64_t n, std::uint64_t seed, cudaStream_t stream) {
  const ReduceProblem& p = r.problem();
  const std::vector<unsigned char> host = generate_values(p, n, seed);
  cuda::DeviceBuffer in(host.size() + 8), out(8);
  if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  AUTOTUNE_CUDA(cudaDeviceSynchronize());
  const long long got = r.result(in.get(), n, static_cast<long long*>(out.get()), stream);
  return compare_reduce(p, reference_reduce(p, host.data(), n), &got, n);
}

// Four threads on their own streams, each running sizes of all three ranges.
void check_threads(const Reduce& r, const std::vector<std::pair<std::uint64_t, ReduceConfig>>& calls) {
  std::vector<std::string> errors(4);
  {
    std::vector<std::jthread> pool;
    for (int t = 0; t < 4; ++t)
      pool.emplace_back([&, t] {
        try {
          AUTOTUNE_CUDA(cudaSetDevice(0));
          const cuda::Stream stream;
          for (int k = 0; k < 6; ++k) {
            const std::uint64_t n = calls[(3 * t + k) % calls.size()].first;
            if (const std::string d = reduce_once(r, n, 100 * t + k, stream.get()); !d.empty())
              errors[t] += fmt::format("n={}: {}\n", n, d);
          }
        } catch (const std::exception& e) {
          errors[t] += e.what();
        }
      });
  }
  for (int t = 0; t < 4; ++t) CHECK_MESSAGE(errors[t].empty(), "thread ", t, ": ", errors[t]);
}

// Two graphs on one stream, one n each (a two-pass size and an atomic one), replayed on new data.
void check_graphs(const Reduce& r, const ReduceProblem& p, const ReduceConfig& two_pass, const ReduceConfig& atomic) {
  const std::uint64_t mid = r.resolution().sizes[1].n_from + 9, big = r.resolution().sizes[2].n_from + 11;
  REQUIRE(r.config_for(mid) == two_pass);
  REQUIRE(r.config_for(big) == atomic);
  cuda::DeviceBuffer in_mid(mid * 4), in_big(big * 4), out_mid(8), out_big(8);
  const cuda::Stream stream;
  cudaGraph_t g_mid = nullptr, g_big = nullptr;
  cudaGraphExec_t e_mid = nullptr, e_big = nullptr;
  AUTOTUNE_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  r(in_mid.get(), mid, static_cast<long long*>(out_mid.get()), stream.get());
  AUTOTUNE_CUDA(cudaStreamEndCapture(stream.get(), &g_mid));
  AUTOTUNE_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  r(in_big.get(), big, static_cast<long long*>(out_big.get()), stream.get());
  AUTOTUNE_CUDA(cudaStreamEndCapture(stream.get(), &g_big));
  AUTOTUNE_CUDA(cudaGraphInstantiate(&e_mid, g_mid, 0));
  AUTOTUNE_CUDA(cudaGraphInstantiate(&e_big, g_big, 0));
  for (int replay = 0; replay < 3; ++replay) {
    INFO("replay ", replay);
    const auto host_mid = generate_values(p, mid, 500 + replay), host_big = generate_values(p, big, 600 + replay);
    AUTOTUNE_CUDA(cudaMemcpy(in_mid.get(), host_mid.data(), host_mid.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    AUTOTUNE_CUDA(cudaMemcpy(in_big.get(), host_big.data(), host_big.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    AUTOTUNE_CUDA(cudaGraphLaunch(e_mid, stream.get()));
    AUTOTUNE_CUDA(cudaGraphLaunch(e_big, stream.get()));
    stream.synchronize();
    long long got_mid = 0, got_big = 0;
    AUTOTUNE_CUDA(cudaMemcpy(&got_mid, out_mid.get(), 8, cudaMemcpyDeviceToHost));
    AUTOTUNE_CUDA(cudaMemcpy(&got_big, out_big.get(), 8, cudaMemcpyDeviceToHost));
    CHECK(compare_reduce(p, reference_reduce(p, host_mid.data(), mid), &got_mid, mid) == "");
    CHECK(compare_reduce(p, reference_reduce(p, host_big.data(), big), &got_big, big) == "");
  }
  cudaGraphExecDestroy(e_mid);
  cudaGraphExecDestroy(e_big);
  cudaGraphDestroy(g_mid);
  cudaGraphDestroy(g_big);
}

}  // namespace

TEST_SUITE("gpu_api") {
  TEST_CASE("a size-adaptive reduction: three tuned sizes, three configurations, threads and graphs at several n") {
    ReduceProblem p;
    p.op = ReduceOp::sum;
    p.type = ValueType::i32;  // accumulates in i64: every result must equal the reference exactly
    ReduceConfig one_block, two_pass, atomic;
    one_block.grid_blocks = 1;
    two_pass.finish = Finish::two_pass, two_pass.grid_blocks = -1;
    atomic.finish = Finish::atomic, atomic.block = 512;
    const std::string path = temp_cache("sizes");
    for (const auto& [n, config] : {std::pair{std::uint64_t(4096), one_block}, std::pair{std::uint64_t(1) << 18, two_pass},
                                    std::pair{std::uint64_t(1) << 24, atomic}}) {
      ReduceProblem at = p;
      at.n = n;
      record_forced_winner(path, at, config);
    }

    p.n = 0;  // no size hint
    // Measured data only: with `any` the shipped policy's own entries outrank a tuned size far from n
    // (runtime/rank.hpp), and this case is about the table of the tuned sizes.
    const Reduce r(p, Reduce::Options{0, path, Requirement::tuned});
    MESSAGE(r.resolution().message, "\n", r.resolution().sizes_summary());
    REQUIRE(r.resolution().sizes.size() == 3);
    CHECK_FALSE(r.resolution().compiled);
    CHECK(r.resolution().sizes[0].config == one_block);
    CHECK(r.resolution().sizes[1].config == two_pass);
    CHECK(r.resolution().sizes[2].config == atomic);
    // Each switch lies between the two tuned sizes it separates; where exactly is the ranking's crossover of the two
    // sides' predicted slowdowns (runtime/size_table.cpp), checked by hand in tests/cpu/test_size_table.cpp.
    CHECK(r.resolution().sizes[1].n_from > 4096);
    CHECK(r.resolution().sizes[1].n_from <= (std::uint64_t(1) << 18));
    CHECK(r.resolution().sizes[2].n_from > (std::uint64_t(1) << 18));
    CHECK(r.resolution().sizes[2].n_from <= (std::uint64_t(1) << 24));
    // At and beyond the tuned sizes the tuned configuration runs; between them, the range that holds n.
    auto in_table = [&](std::uint64_t n) {
      for (const SizeRange& range : r.resolution().sizes)
        if (range.contains(n)) return *range.config.as<ReduceConfig>();
      FAIL("no range holds n=" << n);
      return ReduceConfig{};
    };
    const std::vector<std::pair<std::uint64_t, ReduceConfig>> calls = {
        {0, one_block},          {1000, one_block},         {4096, one_block},         {30001, in_table(30001)},
        {36001, in_table(36001)}, {1 << 18, two_pass},      {1000003, in_table(1000003)}, {2000003, in_table(2000003)},
        {2300001, in_table(2300001)}, {1 << 24, atomic},    {20000003, atomic}};
    for (const auto& call : calls) {
      const std::uint64_t n = call.first;  // not a structured binding: clang 14 cannot capture one in INFO's lambda
      const auto& config = call.second;
      INFO("n=", n);
      CHECK(r.config_for(n) == config);
      const cuda::Stream stream;
      CHECK(reduce_once(r, n, n + 1, stream.get()) == "");
    }

    check_threads(r, calls);
    check_graphs(r, p, two_pass, atomic);
    std::filesystem::remove(path);
  }

  TEST_CASE("a reduction handle: exact, nearest size and fallback, each with correct results") {
    const std::string path = temp_cache("order");
    ReduceProblem p;
    p.op = ReduceOp::sum;
    p.type = ValueType::i32;  // accumulates in i64
    p.n = 1ull << 20;
    {
      Cache cache(path);
      const TuneOptions o = tier_tune_options(3);  // a winner is what counts here
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
    // Measured data only: the shipped policy's own entries of the problem (16M, measured on an H200) would rank
    // before a tuned size 3 doublings away otherwise (runtime/rank.hpp).
    const Reduce near(bigger, Reduce::Options{0, path, Requirement::tuned});
    CHECK(near.resolution().source == ConfigSource::nearest_size);
    CHECK(near.resolution().tuned_n == p.n);
    check_reduce<long long>(near, bigger.n, 0, 4);

    ReduceProblem other = p;
    other.op = ReduceOp::max;  // another operator on the same element type: the tuned sum's winner is adopted
    const Reduce similar(other, Reduce::Options{0, path, Requirement::tuned});  // (measured data only, as above)
    CHECK(similar.resolution().source == ConfigSource::similar_problem);
    CHECK(similar.resolution().compiled);  // the sum's cubin is another source: compiled for the max
    check_reduce<int>(similar, 12345, 3, 5);

    ReduceProblem f64 = other;
    f64.type = ValueType::f64;  // nothing of its element type tuned
    const Reduce fallback(f64, Reduce::Options{0, path});
    CHECK(fallback.resolution().source == ConfigSource::policy);  // the shipped policy has every element type
    CHECK(fallback.resolution().compiled);
    check_reduce<double>(fallback, 12345, 3, 5);
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
              AUTOTUNE_CUDA(cudaDeviceSynchronize());
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
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
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
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    CHECK(r.result(in.get(), p.n, static_cast<float*>(out.get())) == -40.0f);
    host[1234] = std::numeric_limits<float>::quiet_NaN();
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
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

// Found by the size-adaptive test: results read from a pageable cudaMemcpy that had not landed when a kernel on a
// non-blocking stream read its input (large grids read later parts of the input sooner). The uploads now wait; this
// checks a two-pass cover-n reduction on such streams at grids of 64 to 256 blocks, with each kind of size hint, and
// the kernel directly on the legacy stream.
TEST_SUITE("gpu_api") {
  TEST_CASE("a two-pass reduction is exact on non-blocking and legacy streams, for every size hint") {
    ReduceProblem p;
    p.op = ReduceOp::sum;
    p.type = ValueType::i32;
    ReduceConfig two_pass;
    two_pass.finish = Finish::two_pass, two_pass.grid_blocks = -1;
    const std::string path = temp_cache("two_pass");
    ReduceProblem at = p;
    at.n = 1 << 18;
    record_forced_winner(path, at, two_pass);
    for (std::uint64_t hint : {std::uint64_t(1) << 18, std::uint64_t(0), std::uint64_t(1000)}) {
      ReduceProblem q = p;
      q.n = hint;
      const Reduce r(q, Reduce::Options{0, path});
      REQUIRE(r.config_for(at.n) == two_pass);
      for (std::uint64_t n : {std::uint64_t(1) << 18, std::uint64_t(1) << 17, std::uint64_t(1) << 19,
                              std::uint64_t(3) << 16, std::uint64_t(262148)}) {
        const cuda::Stream stream;
        CHECK_MESSAGE(reduce_once(r, n, n + 1, stream.get()) == "", "hint ", hint, ", n ", n, ", own stream");
        CHECK_MESSAGE(reduce_once(r, n, n + 2, nullptr) == "", "hint ", hint, ", n ", n, ", legacy stream");
      }
    }
    const DeviceInfo dev = query_device(0);
    const auto compiled = jit::compile(kernel_source(at, two_pass), "two_pass.cu", dev.arch());
    REQUIRE_MESSAGE(compiled.ok, compiled.log);
    const ReduceKernel k(at, two_pass, dev, compiled.cubin);
    CHECK(k.grid_for(at.n) == 128);
    const std::vector<unsigned char> host = generate_values(at, at.n, 5);
    cuda::DeviceBuffer in(host.size() + 8), out(8);
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    k.run(in.get(), at.n, out.get(), nullptr);
    long long got = 0;
    AUTOTUNE_CUDA(cudaMemcpy(&got, out.get(), 8, cudaMemcpyDeviceToHost));
    CHECK(compare_reduce(at, reference_reduce(at, host.data(), at.n), &got, at.n) == "");
    std::filesystem::remove(path);
  }
}

// Work over [0, n) in chunks on every core, with the result a loop in order gives: the tuner's CPU side (inputs of up
// to 2 GiB made and reduced for every size and crossover it measures) without one core doing it all. Internal to the
// library.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace autotune::chunks {

/// Elements per chunk.
inline constexpr std::uint64_t kSize = std::uint64_t{1} << 20;

/// fn(begin, end) for each chunk [begin, end) of [0, n), on `threads` threads (0: one per core; never more than
/// there are chunks), in no particular order. `fn` must be safe to call from several threads and must not throw.
template <class Fn>
void for_each(std::uint64_t n, Fn fn, unsigned threads = 0) {
  const std::uint64_t count = (n + kSize - 1) / kSize;
  auto run = [&](std::uint64_t c) { fn(c * kSize, std::min(n, (c + 1) * kSize)); };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, count));
  if (threads <= 1) {
    for (std::uint64_t c = 0; c < count; ++c) run(c);
    return;
  }
  std::atomic<std::uint64_t> next{0};
  std::vector<std::jthread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (std::uint64_t c; (c = next++) < count;) run(c);
    });
}

/// part(begin, end) of every chunk, then merge(into, next) over them in order from the first: what a loop over
/// [0, n) in order computes, for a `merge` that continues that loop (a strict comparison keeps the earlier of two
/// ties). n = 0: part(0, 0).
template <class PartFn, class MergeFn>
auto reduce(std::uint64_t n, PartFn part, MergeFn merge, unsigned threads = 0) {
  using P = decltype(part(std::uint64_t{0}, std::uint64_t{0}));
  if (n <= kSize) return part(0, n);
  std::vector<P> parts((n + kSize - 1) / kSize);
  for_each(n, [&](std::uint64_t begin, std::uint64_t end) { parts[begin / kSize] = part(begin, end); }, threads);
  P out = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) merge(out, parts[i]);
  return out;
}

}  // namespace autotune::chunks

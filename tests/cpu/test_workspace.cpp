// The lock-free slot table under the per-stream workspace pool (core/workspace.hpp), without a GPU: keys stand
// for streams, the bases are host addresses. The pool itself (device memory, stream keys) is tested in the GPU
// suite (tests/gpu/test_runtime_api.cpp).
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/workspace.hpp"

using namespace autotune;

namespace {

char block_a[1], block_b[1], block_c[1];

}  // namespace

TEST_SUITE("workspace") {
  TEST_CASE("a key keeps its slot; new keys take free slots in order; a full table says so") {
    SlotTable table(block_a);
    CHECK(table.capacity() == 8);
    CHECK(table.owned() == 0);
    for (std::uintptr_t key = 1; key <= 8; ++key) {
      const auto slot = table.claim(key * 16);
      REQUIRE(slot.has_value());
      CHECK(slot->index == key - 1);
      CHECK(slot->in_block == key - 1);
      CHECK(slot->base == block_a);
    }
    CHECK(table.owned() == 8);
    CHECK(table.claim(5 * 16)->index == 4);  // an owner finds its slot again
    CHECK_FALSE(table.claim(9 * 16).has_value());  // nine streams, eight slots
    CHECK(table.owned() == 8);                     // a failed claim takes nothing

    table.append(block_b);
    CHECK(table.capacity() == 16);
    const auto ninth = table.claim(9 * 16);
    REQUIRE(ninth.has_value());
    CHECK(ninth->index == 8);
    CHECK(ninth->in_block == 0);
    CHECK(ninth->base == block_b);
    CHECK(table.claim(3 * 16)->base == block_a);  // old owners stay where they are
    CHECK(table.owned() == 9);
  }

  TEST_CASE("threads claiming at once: every key ends in exactly one slot, no slot has two keys") {
    // 16 threads; each claims for 6 keys taken from a pool of 40, some keys shared by several threads (as one
    // stream used from several host threads), repeatedly; a thread that finds the table full grows it under a
    // lock, as WorkspacePool does. Repeated to give interleavings a chance.
    for (int round = 0; round < 50; ++round) {
      SlotTable table(block_a);
      std::mutex grow;
      std::vector<char> bases(64);
      std::size_t used_bases = 0;
      std::vector<std::vector<std::pair<std::uintptr_t, std::size_t>>> seen(16);
      std::atomic<bool> go{false};
      {
        std::vector<std::jthread> threads;
        for (int t = 0; t < 16; ++t)
          threads.emplace_back([&, t] {
            while (!go.load()) std::this_thread::yield();
            for (int repeat = 0; repeat < 3; ++repeat)
              for (int k = 0; k < 6; ++k) {
                const std::uintptr_t key = 8 * (1 + (t * 7 + k * 5 + round) % 40);
                auto slot = table.claim(key);
                while (!slot) {
                  const std::lock_guard lock(grow);
                  slot = table.claim(key);
                  if (!slot) table.append(&bases[used_bases++]);
                }
                seen[t].emplace_back(key, slot->index);
              }
          });
        go = true;
      }
      std::map<std::uintptr_t, std::size_t> slot_of;
      std::map<std::size_t, std::uintptr_t> key_of;
      bool consistent = true;
      for (const auto& per_thread : seen)
        for (const auto& [key, index] : per_thread) {
          consistent = consistent && slot_of.emplace(key, index).first->second == index;
          consistent = consistent && key_of.emplace(index, key).first->second == key;
        }
      CHECK(consistent);
      CHECK(table.owned() == slot_of.size());
      // Growth happened only when needed: all slots but those of the last block are owned.
      CHECK(table.capacity() >= slot_of.size());
      CHECK(table.capacity() - slot_of.size() < SlotTable::kSlotsPerBlock);
      if (!consistent) break;
    }
  }

  TEST_CASE("blocks appended while other threads claim are found by all of them") {
    SlotTable table(block_a);
    for (std::uintptr_t key = 1; key <= 8; ++key) REQUIRE(table.claim(key * 8));
    std::atomic<int> found{0};
    {
      std::vector<std::jthread> threads;
      for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
          const std::uintptr_t key = 8 * (100 + t);
          for (;;) {
            if (const auto slot = table.claim(key)) {
              found += slot->index >= 8 ? 1 : 0;
              return;
            }
            std::this_thread::yield();
          }
        });
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      table.append(block_c);  // one writer, as under the pool's lock
    }
    CHECK(found == 4);
    CHECK(table.owned() == 12);
  }
}

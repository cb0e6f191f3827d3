// LiveParams (exec/workload_change.hpp): readers on other threads see only whole
// parameter sets while a writer publishes new ones, and every set published stays readable.
#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/exec/workload_change.hpp"

namespace {

// A set whose fields must agree: every weight equals `version`, and they sum to 4 * version.
struct Set {
  std::uint64_t version;
  std::array<std::uint64_t, 4> weights;
};

Set make(std::uint64_t v) { return Set{v, {v, v, v, v}}; }

}  // namespace

int main() {
  islands::LiveParams<Set> params(make(0));
  CHECK(params.read().version == 0);
  constexpr std::uint64_t kVersions = 20000;
  std::atomic<bool> done{false};
  std::atomic<int> torn{0}, backwards{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      std::uint64_t last = 0;
      while (!done.load(std::memory_order_acquire)) {
        const Set& s = params.read();
        std::uint64_t sum = 0;
        for (std::uint64_t w : s.weights) sum += w;
        if (sum != 4 * s.version) torn.fetch_add(1);
        if (s.version < last) backwards.fetch_add(1);
        last = s.version;
      }
    });
  }
  for (std::uint64_t v = 1; v <= kVersions; ++v) params.publish(make(v));
  done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();
  CHECK(torn.load() == 0);
  CHECK(backwards.load() == 0);
  CHECK(params.read().version == kVersions);
  return test_summary("live_params");
}

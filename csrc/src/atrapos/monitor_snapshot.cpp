#include "islands/atrapos/monitor_snapshot.hpp"

#include <stdexcept>
#include <string>

namespace islands::atrapos {

namespace {

std::vector<std::uint64_t> minus(const std::vector<std::uint64_t>& now, const std::vector<std::uint64_t>& before,
                                 const char* what) {
  if (now.size() != before.size()) {
    throw std::invalid_argument(std::string("since: ") + what + " of snapshots of different partition counts");
  }
  std::vector<std::uint64_t> out(now.size());
  for (std::size_t i = 0; i < now.size(); ++i) {
    if (now[i] < before[i]) {
      throw std::invalid_argument(std::string("since: ") + what + "[" + std::to_string(i) +
                                  "] went down (the earlier snapshot is later, or of another monitor)");
    }
    out[i] = now[i] - before[i];
  }
  return out;
}

}  // namespace

MonitorSnapshot MonitorSnapshot::since(const MonitorSnapshot& earlier) const {
  if (earlier.n_partitions != n_partitions) {
    throw std::invalid_argument("since: snapshots of " + std::to_string(earlier.n_partitions) + " and " +
                                std::to_string(n_partitions) + " partitions");
  }
  MonitorSnapshot d;
  d.n_partitions = n_partitions;
  d.actions = minus(actions, earlier.actions, "actions");
  d.cost = minus(cost, earlier.cost, "cost");
  d.sync_count = minus(sync_count, earlier.sync_count, "sync_count");
  d.sync_bytes = minus(sync_bytes, earlier.sync_bytes, "sync_bytes");
  return d;
}

std::uint64_t MonitorSnapshot::total_actions() const noexcept {
  std::uint64_t total = 0;
  for (std::uint64_t a : actions) total += a;
  return total;
}

}  // namespace islands::atrapos

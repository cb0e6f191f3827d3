#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "islands/common/random.hpp"
#include "islands/exec/plp/plp_routing.hpp"

namespace islands {

//! Test mode of a PLP instance (engine.plp_reshuffle_s > 0): a thread that, every period
//! while transactions run, moves 1 to 3 random routing units to other random workers through
//! PlpRouting::apply, so that tests run the workloads' consistency checks and the history
//! checker across many re-partitionings under load.
class PlpReshuffler {
 public:
  //! Re-partitions `routing` every `period_s` seconds from start() to stop(); draws with
  //! `seed`; `abandon` tells apply() that no worker routes any more.
  PlpReshuffler(PlpRouting& routing, double period_s, std::uint64_t seed, std::function<bool()> abandon)
      : routing_(routing), period_(period_s), rng_(seed), abandon_(std::move(abandon)) {}
  PlpReshuffler(const PlpReshuffler&) = delete;
  PlpReshuffler& operator=(const PlpReshuffler&) = delete;
  ~PlpReshuffler() { stop(); }

  //! Starts the thread (once).
  void start() {
    if (thread_.joinable()) return;
    thread_ = std::thread([this] { loop(); });
  }
  //! Lets a re-partitioning in progress finish, then joins the thread (the workers must still
  //! be running, or abandon() true, for its drain to end).
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    const std::size_t workers = routing_.workers();
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (wake_.wait_for(lock, period_, [this] { return stopping_; })) return;
      }
      std::vector<std::uint32_t> target = routing_.current()->owner;
      const std::uint64_t moves = 1 + rng_.below(3);
      for (std::uint64_t m = 0; m < moves; ++m) {
        const std::size_t unit = rng_.below(target.size());
        target[unit] = static_cast<std::uint32_t>((target[unit] + 1 + rng_.below(workers - 1)) % workers);
      }
      routing_.apply(target, abandon_);
    }
  }

  PlpRouting& routing_;
  std::chrono::duration<double> period_;
  Random rng_;
  std::function<bool()> abandon_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace islands

#pragma once
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "islands/common/cycle_clock.hpp"

namespace islands {

//! The drain watchdog of a PLP instance's re-partitioning (exec/plp/plp_routing.hpp; issue 17's
//! unexplained stall: a run whose throughput fell to 0 while the controller's re-partitioning
//! returned only much later). When a drain has waited longer than threshold() for the
//! workers' acknowledgements, the waiting thread writes one dump of what the drain waits on:
//! per worker, the version it acknowledged against the one awaited, what it said the last
//! time it looked at the pending table (why it could not acknowledge: an action held for an
//! older table's transaction, or its commits waiting for the log; how many actions it holds,
//! its hand-offs out and in), the last slow wait it noted (a frozen unit, parked, a
//! rendezvous, ...), and from outside: the instance's view (describe: parked flag, messages
//! queued to it, the run's phase) and the kernel's (its thread's state, CPU, run and
//! run-queue times from /proc).
//!
//! Cost. Nothing on a worker's common path: a worker writes its probe only on paths that
//! are slow already, i.e. while a newer table waits for its acknowledgement (observe_routing
//! past its one-load check) and where it is about to wait (note); a few relaxed stores on its
//! own cache lines. The dump reads the probes' atomics from the waiting thread.
class PlpDrainWatch {
 public:
  //! Why a worker could not acknowledge the table it looked at.
  enum class Blocker : std::uint32_t {
    none = 0,          //!< nothing: it acknowledged (or had not looked yet)
    held_action = 1,   //!< it holds an action of a transaction cut under an older table
    log_pipeline = 2,  //!< its commits appended before it saw the table are not durable yet
  };
  //! The last slow wait a worker noted (where it was, not necessarily where it is).
  enum class Wait : std::uint32_t {
    none = 0,
    frozen_unit = 1,    //!< its transaction needs a unit being moved (waits for the hand-over)
    parked = 2,         //!< its core taken away: pausing between two looks
    rendezvous = 3,     //!< waiting for an action's outcome with nothing to serve
    handoff_slot = 4,   //!< its own draw waits for a hand-off slot
    log_pipeline = 5,   //!< waiting for room in its commit pipeline
    phase_change = 6,   //!< barred by a quiesce (the run's phase changing)
    shutdown = 7,       //!< stopped drawing, serving until every worker has
  };
  //! What a worker saw when it looked at a table newer than the one it acknowledged.
  struct Look {
    std::uint64_t version = 0;     //!< the pending table's version
    Blocker blocker = Blocker::none;
    std::uint64_t held = 0;        //!< actions it holds for a decision, all coordinators
    std::uint64_t held_txn = 0;    //!< held_action: the transaction
    std::uint32_t held_from = 0;   //!< held_action: its coordinator
    std::uint64_t held_route = 0;  //!< held_action: the version it was cut under
    std::uint64_t durable_lsn = 0; //!< log_pipeline: the log's durable end
    std::uint64_t mark_lsn = 0;    //!< log_pipeline: what must be durable first
    std::uint64_t handed_out = 0;  //!< hand-offs it made, unfinished
    std::uint64_t handed_in = 0;   //!< hand-offs to it, unstarted
  };
  //! The default threshold: a drain waiting longer is dumped.
  static constexpr double kDefaultThresholdS = 1.0;

  //! Probes for `workers` workers.
  explicit PlpDrainWatch(std::size_t workers) : workers_(workers), probes_(new Probe[workers]) {}

  //! Number of workers.
  std::size_t workers() const noexcept { return workers_; }

  //! Worker side, once: its thread's kernel id (the dump reads /proc for it).
  void started(std::size_t worker) noexcept {
    probes_[worker].tid.store(static_cast<std::int64_t>(::syscall(SYS_gettid)), std::memory_order_relaxed);
  }
  //! Worker side (only while a table waits for its acknowledgement): what it saw.
  void looked(std::size_t worker, const Look& look) noexcept {
    Probe& p = probes_[worker];
    p.look_tick.store(CycleClock::now(), std::memory_order_relaxed);
    p.look_version.store(look.version, std::memory_order_relaxed);
    p.blocker.store(static_cast<std::uint32_t>(look.blocker), std::memory_order_relaxed);
    p.held.store(look.held, std::memory_order_relaxed);
    p.held_txn.store(look.held_txn, std::memory_order_relaxed);
    p.held_from.store(look.held_from, std::memory_order_relaxed);
    p.held_route.store(look.held_route, std::memory_order_relaxed);
    p.durable_lsn.store(look.durable_lsn, std::memory_order_relaxed);
    p.mark_lsn.store(look.mark_lsn, std::memory_order_relaxed);
    p.handed_out.store(look.handed_out, std::memory_order_relaxed);
    p.handed_in.store(look.handed_in, std::memory_order_relaxed);
  }
  //! Worker side, on a path where it is about to wait: where it was.
  void note(std::size_t worker, Wait wait) noexcept {
    Probe& p = probes_[worker];
    p.wait_tick.store(CycleClock::now(), std::memory_order_relaxed);
    p.wait.store(static_cast<std::uint32_t>(wait), std::memory_order_relaxed);
  }

  //! Seconds a drain may wait before it is dumped.
  double threshold_s() const noexcept { return threshold_s_; }
  //! Test hook: another threshold (seconds, > 0).
  void set_threshold_s(double seconds) noexcept { threshold_s_ = seconds; }
  //! The instance's view of worker w, one line's fragment (set once, before any drain; the
  //! instance outlives every drain that may call it).
  void set_describe(std::function<std::string(std::size_t)> describe) { describe_ = std::move(describe); }

  //! The dump of a drain waiting `waited_s` for `version` (round `round` of 2, `moving`
  //! units frozen), the waiting thread's longest time between two of its looks being
  //! `longest_gap_s` (about its sleep; far more: it, or the whole process, was not
  //! scheduled); `acknowledged(w)` is worker w's acknowledged version.
  //! Also keeps each worker's kernel run and run-queue times for since_dump().
  template <class Acknowledged>
  std::string dump(std::uint64_t version, int round, std::size_t moving, double waited_s, double longest_gap_s,
                   Acknowledged&& acknowledged) {
    at_dump_.assign(workers_, Sched{});
    for (std::size_t w = 0; w < workers_; ++w) at_dump_[w] = sched(probes_[w].tid.load(std::memory_order_relaxed));
    const std::uint64_t now = CycleClock::now();
    const double ns_per_tick = CycleClock::ns_per_tick();
    const auto ago = [&](std::uint64_t tick) {
      if (tick == 0) return std::string("never");
      const double s = tick >= now ? 0.0 : static_cast<double>(now - tick) * ns_per_tick * 1e-9;
      return fixed(s, 3) + " s ago";
    };
    std::ostringstream out;
    out << "plp drain stall: waited " << fixed(waited_s, 2) << " s for the workers to acknowledge routing version "
        << version << " (round " << round << " of 2, " << moving << " units frozen; the waiting thread's longest gap "
        << "between two looks " << fixed(longest_gap_s * 1e3, 1) << " ms)\n";
    for (std::size_t w = 0; w < workers_; ++w) {
      const Probe& p = probes_[w];
      const std::uint64_t acked = acknowledged(w);
      out << "  worker " << w << ": acknowledged " << acked;
      if (acked >= version) {
        out << " (done)\n";
        continue;
      }
      out << ", NOT " << version << "; ";
      const std::uint64_t looked = p.look_version.load(std::memory_order_relaxed);
      if (looked < version) {
        out << "has not looked at version " << version;
        const std::uint64_t tick = p.look_tick.load(std::memory_order_relaxed);
        if (tick == 0) {
          out << " (nor at any table since it started)";
        } else {
          out << " (last looked at version " << looked << ", " << ago(tick) << ")";
        }
      } else {
        out << "last looked " << ago(p.look_tick.load(std::memory_order_relaxed)) << ": ";
        switch (static_cast<Blocker>(p.blocker.load(std::memory_order_relaxed))) {
          case Blocker::held_action:
            out << "holds an action of txn " << hex(p.held_txn.load(std::memory_order_relaxed)) << " from worker "
                << p.held_from.load(std::memory_order_relaxed) << " cut under version "
                << p.held_route.load(std::memory_order_relaxed);
            break;
          case Blocker::log_pipeline:
            out << "its commits wait for the log (durable lsn " << p.durable_lsn.load(std::memory_order_relaxed)
                << " < mark " << p.mark_lsn.load(std::memory_order_relaxed) << ")";
            break;
          case Blocker::none:
            out << "nothing blocked it (acknowledgement due at its next look)";
            break;
        }
      }
      out << "; holds " << p.held.load(std::memory_order_relaxed) << " actions, hand-offs out "
          << p.handed_out.load(std::memory_order_relaxed) << " in " << p.handed_in.load(std::memory_order_relaxed);
      out << "; last wait " << wait_name(static_cast<Wait>(p.wait.load(std::memory_order_relaxed))) << " "
          << ago(p.wait_tick.load(std::memory_order_relaxed));
      if (describe_) out << "; " << describe_(w);
      out << "; " << thread_line(p.tid.load(std::memory_order_relaxed)) << "\n";
    }
    return out.str();
  }

  //! After the drain the dump was about ended: each worker's kernel times since the dump (how
  //! much it ran and waited runnable while the drain still waited: a starved worker shows
  //! here), one line.
  std::string since_dump() const {
    std::string line = "since the dump:";
    const std::size_t empty = line.size();
    for (std::size_t w = 0; w < at_dump_.size(); ++w) {
      const Sched now = sched(probes_[w].tid.load(std::memory_order_relaxed));
      if (!now.ok || !at_dump_[w].ok) continue;
      line += " worker " + std::to_string(w) + " ran " + fixed((now.run_ns - at_dump_[w].run_ns) * 1e-6, 1) +
              " ms, runnable-waiting " + fixed((now.queue_ns - at_dump_[w].queue_ns) * 1e-6, 1) + " ms;";
    }
    if (line.size() == empty) return "";  // no worker's thread known (fake workers without started())
    line.back() = '\n';
    return line;
  }

  //! The name of a wait (dump lines).
  static const char* wait_name(Wait wait) noexcept {
    switch (wait) {
      case Wait::none:
        return "none";
      case Wait::frozen_unit:
        return "frozen-unit";
      case Wait::parked:
        return "parked";
      case Wait::rendezvous:
        return "rendezvous";
      case Wait::handoff_slot:
        return "handoff-slot";
      case Wait::log_pipeline:
        return "log-pipeline";
      case Wait::phase_change:
        return "phase-change";
      case Wait::shutdown:
        return "shutdown";
    }
    return "?";
  }

 private:
  struct alignas(64) Probe {
    std::atomic<std::int64_t> tid{0};
    std::atomic<std::uint64_t> look_tick{0};
    std::atomic<std::uint64_t> look_version{0};
    std::atomic<std::uint32_t> blocker{0};
    std::atomic<std::uint32_t> held_from{0};
    std::atomic<std::uint64_t> held{0};
    std::atomic<std::uint64_t> held_txn{0};
    std::atomic<std::uint64_t> held_route{0};
    std::atomic<std::uint64_t> durable_lsn{0};
    std::atomic<std::uint64_t> mark_lsn{0};
    std::atomic<std::uint64_t> handed_out{0};
    std::atomic<std::uint64_t> handed_in{0};
    std::atomic<std::uint64_t> wait_tick{0};
    std::atomic<std::uint32_t> wait{0};
  };

  // One thread's kernel scheduling times (/proc/self/task/tid/schedstat).
  struct Sched {
    bool ok = false;
    double run_ns = 0, queue_ns = 0, slices = 0;
  };
  static Sched sched(std::int64_t tid) {
    Sched s;
    if (tid <= 0) return s;
    std::istringstream in(slurp("/proc/self/task/" + std::to_string(tid) + "/schedstat"));
    s.ok = static_cast<bool>(in >> s.run_ns >> s.queue_ns >> s.slices);
    return s;
  }

  static std::string fixed(double value, int digits) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
  }
  static std::string hex(std::uint64_t value) {
    char buffer[24];
    std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
    return buffer;
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  // The kernel's view of thread `tid`: its state and last CPU (/proc/self/task/tid/stat, after
  // the command's closing parenthesis), its run and run-queue times (schedstat), its wait channel.
  static std::string thread_line(std::int64_t tid) {
    if (tid <= 0) return "thread not started";
    const std::string base = "/proc/self/task/" + std::to_string(tid) + "/";
    const std::string stat = slurp(base + "stat");
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) return "thread " + std::to_string(tid) + " gone";
    std::istringstream fields(stat.substr(close + 2));  // field 3 (state) onwards
    std::string field, state, cpu;
    for (int i = 3; fields >> field; ++i) {
      if (i == 3) state = field;
      if (i == 39) cpu = field;
    }
    std::string line = "thread " + std::to_string(tid) + " state " + state + " on cpu " + cpu;
    const Sched s = sched(tid);
    if (s.ok) {
      line += ", ran " + fixed(s.run_ns * 1e-9, 3) + " s, runnable-waiting " + fixed(s.queue_ns * 1e-9, 3) +
              " s in its life, " + fixed(s.slices, 0) + " slices";
    }
    const std::string wchan = slurp(base + "wchan");
    if (!wchan.empty() && wchan != "0") line += ", wchan " + wchan;
    return line;
  }

  std::size_t workers_;
  std::unique_ptr<Probe[]> probes_;
  double threshold_s_ = kDefaultThresholdS;
  std::vector<Sched> at_dump_;  // each worker's kernel times at the last dump
  std::function<std::string(std::size_t)> describe_;
};

}  // namespace islands

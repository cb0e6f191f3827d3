#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <vector>

#include "islands/common/cycle_clock.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/exec/instance_config.hpp"
#include "islands/transport/transport.hpp"

namespace islands {

//! One worker's endpoint of the transport mesh (internal to exec/instance_worker.hpp): sends
//! that never deadlock against a peer sending to us, and the inbound messages, those held back
//! while sending first. Unattached (no endpoint) when the instance is the whole deployment.
class WorkerTransport {
 public:
  //! `failed`: the instance's flag, set when one of its workers failed (sends stop waiting).
  explicit WorkerTransport(const std::atomic<bool>& failed) : failed_(failed) {}

  //! Joins the mesh as endpoint `site` of `total_sites` (waiting for every peer); fragments
  //! carry up to `max_part_words` words.
  void attach(const InstanceConfig& config, std::uint32_t site, std::uint32_t total_sites, std::size_t max_part_words) {
    if (config.transport == kNoTransport) return;  // a deployment of local work only
    TransportConfig tc;
    tc.directory = config.directory;
    tc.instance_id = site;
    tc.n_instances = total_sites;
    // The largest message is a fragment holding a whole transaction.
    tc.max_message_bytes = std::max<std::size_t>(kMessageHeaderBytes + 5 + 8 * max_part_words, 256);
    std::size_t ring = std::max<std::size_t>(config.ring_bytes, kMinRingBytes);
    while (ring < 4 * tc.max_message_bytes) ring *= 2;
    tc.ring_bytes = ring;
    tc.attach_timeout_ms = config.attach_timeout_ms;
    spin_ticks_ = static_cast<std::uint64_t>(config.idle_spin_us * 1000 / CycleClock::ns_per_tick());
    // Peers of one deployment send only well-formed records: a malformed one is an overwritten
    // channel, and dropping it would lose a message (a vote, a shutdown) and stall the run.
    tc.strict = true;
    endpoint_ = make_transport(config.transport, tc);
    if (config.message_delay_us > 0 && !config.site_sockets.empty()) {
      delay_ticks_ = static_cast<std::uint64_t>(config.message_delay_us * 1000 / CycleClock::ns_per_tick());
      crosses_socket_.resize(total_sites);
      for (std::uint32_t s = 0; s < total_sites; ++s) crosses_socket_[s] = config.site_sockets[s] != config.site_sockets[site];
    }
  }

  //! Whether receive might return a message (inline: the backlog, then the doorbell); false
  //! means it would certainly return null. The look a worker takes every transaction.
  bool may_have_message() const {
    return !backlog_.empty() || !delayed_.empty() || endpoint_->may_have_message();
  }

  //! Whether there are peers (attach ran).
  bool attached() const { return endpoint_ != nullptr; }

  //! Sends, serving our own inbound messages into a backlog while the channel is full, so
  //! that two workers sending to each other always make progress.
  void send(std::uint32_t dest, const Message& message) {
    while (!endpoint_->send(dest, message)) {
      Message in;
      if (endpoint_->poll(in)) {
        if (must_delay(in)) {
          delay(std::move(in));
        } else {
          backlog_.push_back(std::move(in));
        }
      } else {
        if (failed_.load()) throw std::runtime_error("another worker of this instance failed");
        cpu_relax();
      }
    }
  }

  //! The next inbound message, oldest first: one held back while sending, else one from the
  //! transport; null when there is none. Valid until the next call.
  const Message* receive() {
    if (!backlog_.empty()) {
      held_ = std::move(backlog_.front());
      backlog_.pop_front();
      return &held_;
    }
    if (delay_ticks_ == 0) {
      // The doorbell first: a worker nobody sends to pays one load here, not a system call.
      if (!endpoint_ || !endpoint_->poll_rung(in_)) return nullptr;
      return &in_;
    }
    // Injected delay: messages from another socket wait in delayed_ until they are due.
    while (endpoint_->poll_rung(in_)) {
      if (!must_delay(in_)) return &in_;
      delay(std::move(in_));
    }
    if (delayed_.empty() || CycleClock::now() < delayed_.front().due) return nullptr;
    held_ = std::move(delayed_.front().message);
    delayed_.pop_front();
    return &held_;
  }

  //! Called by a worker that found no message and has nothing else to do until one arrives
  //! (a vote, a peer's shutdown): spins for up to kIdleSpinNs (the answer usually comes within
  //! microseconds, and a sleep would add a wake-up to it), then sleeps on the doorbell for at
  //! most kIdleSleep at a time, so that the caller can look at its own conditions again.
  void idle() {
    if (!endpoint_ || !delayed_.empty()) {  // a delayed message falls due without a doorbell: spin
      cpu_relax();
      return;
    }
    // Back-to-back calls (a wait loop finding nothing) make one idle stretch; a gap means
    // the worker did something else in between, and a new stretch starts spinning again.
    const std::uint64_t now = CycleClock::now();
    if (now - last_idle_ > gap_ticks_) idle_since_ = now;
    last_idle_ = now;
    if (now - idle_since_ < spin_ticks_) {
      cpu_relax();
      return;
    }
    endpoint_->wait_rung(kIdleSleep);
    last_idle_ = CycleClock::now();
  }

  //! Nothing to do until a client's request comes (a worker of the client layer that found none):
  //! where waiting workers sleep at once (idle_spin_us 0: an oversubscribed, functional run), a
  //! sleep on the doorbell of at most kRestSleep, so that idle instances leave the CPUs to the busy
  //! ones (they polled every ring without pause, and took both CPUs between them from 8 instances
  //! on); otherwise one pause, as before (a worker with a core of its own answers at once).
  void rest() {
    if (spin_ticks_ == 0 && endpoint_ && delayed_.empty()) {
      endpoint_->wait_rung(kRestSleep);
    } else {
      cpu_relax();
    }
  }

  //! Inbound messages held back while sending.
  std::size_t backlog() const { return backlog_.size(); }
  //! Messages held back by the injected delay (InstanceConfig::message_delay_us), whole run.
  std::uint64_t delayed_messages() const { return delayed_count_; }
  //! The endpoint's counters (attached only).
  const TransportStats& stats() const { return endpoint_->stats(); }

 private:
  //! How long idle() spins before it sleeps by default (InstanceConfig::idle_spin_us): long
  //! enough that a vote on its way is never waited for asleep (a sleep puts a wake-up, and a
  //! futex call of the sender, on the transaction's path: at 50 us distributed transactions
  //! measured slower than spinning), so only a worker whose peers are stalled or gone goes to sleep.
  static constexpr double kIdleSpinNs = 1000000;
  //! A gap between two idle() calls longer than this starts a new idle stretch.
  static constexpr double kIdleGapNs = 5000;
  //! The longest sleep of one idle() call.
  static constexpr std::chrono::microseconds kIdleSleep{1000};
  //! The longest sleep of one rest() call: an open loop's arrival or a request from another
  //! instance waits at most this long for an oversubscribed worker.
  static constexpr std::chrono::microseconds kRestSleep{2000};

  const std::atomic<bool>& failed_;
  std::unique_ptr<Transport> endpoint_;
  std::uint64_t spin_ticks_ = static_cast<std::uint64_t>(kIdleSpinNs / CycleClock::ns_per_tick());
  std::uint64_t gap_ticks_ = static_cast<std::uint64_t>(kIdleGapNs / CycleClock::ns_per_tick());
  std::uint64_t idle_since_ = 0, last_idle_ = 0;  // ticks: start of this idle stretch, last idle()
  Message in_, held_;
  std::deque<Message> backlog_;
  // The injected delay: for each source site, whether its messages cross sockets; those
  // wait in delayed_ (in arrival order: one delay for all, so their due times are ordered).
  struct Delayed {
    std::uint64_t due;  // cycle clock
    Message message;
  };
  bool must_delay(const Message& m) const {
    return delay_ticks_ > 0 && m.source < crosses_socket_.size() && crosses_socket_[m.source];
  }
  void delay(Message&& m) {
    delayed_.push_back({CycleClock::now() + delay_ticks_, std::move(m)});
    ++delayed_count_;
  }
  std::uint64_t delay_ticks_ = 0;
  std::vector<bool> crosses_socket_;
  std::deque<Delayed> delayed_;
  std::uint64_t delayed_count_ = 0;
};

}  // namespace islands

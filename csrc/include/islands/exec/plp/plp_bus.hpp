#pragma once
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "islands/common/check.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/transport/spsc_ring.hpp"

namespace islands {

struct PlpAction;

//! What travels between the workers of a PLP instance (exec/plp/plp_worker.hpp): an action to run
//! on the receiver's partition, or the coordinator's decision on an action it ran; with
//! engine.plp_handoff, a whole transaction handed to the owner of its home unit, and the
//! owner's word that it is finished. Small and plain: the action's words, its reply and a
//! handed transaction stay in the sender's memory (one process).
struct PlpMessage {
  //! action: run `action` on this partition and publish its outcome in it.
  //! decision: commit (`commit` 1) or abort the action of transaction `txn` held for `source`.
  //! handoff: coordinate the transaction in the drawer's slot `slot` (exec/plp/plp_handoff.hpp).
  //! handoff_done: the transaction in this worker's slot `slot` is finished (committed, rolled
  //! back, given up or dropped at stop): the slot is the drawer's again.
  enum Kind : std::uint32_t { action = 1, decision = 2, handoff = 3, handoff_done = 4 };
  std::uint32_t kind = 0;      //!< Kind
  std::uint32_t source = 0;    //!< the sending worker (the coordinator; handoff: the drawer; done: the owner)
  std::uint64_t txn = 0;       //!< the transaction
  PlpAction* target = nullptr; //!< action: the coordinator's action to run and answer in
  std::uint64_t commit = 0;    //!< decision: 1 commit, 0 abort
  std::uint64_t route = 0;     //!< action: the routing table's version the coordinator split it by
  void* slot = nullptr;        //!< handoff, handoff_done: the drawer's slot (its Workload's type)
};

//! The in-process queues of a PLP instance of `workers` workers: one single-producer
//! single-consumer ring (transport/spsc_ring.hpp, over heap memory) per ordered pair of
//! workers, and one doorbell word per receiver that senders bump after each message, so that
//! a worker learns that nothing waits with one load. Messages from one sender to one receiver
//! arrive in the order sent (FIFO per pair), which the decisions rely on.
//!
//! Waiting. A worker waiting at a rendezvous spins for kSpinNs, then sleeps on its doorbell (a
//! futex) until a message or an action's outcome arrives: on a machine with more runnable
//! threads than cores, a spinning waiter uses up its share and is then descheduled just when
//! its answer comes, while a sleeper is woken at once (measured: multisite micro under load
//! ran at a tenth of the throughput without the sleep). The protocol is the transport
//! doorbell's (transport/doorbell.hpp): the sleeper sets `sleeping`, looks at its conditions
//! once more, and sleeps only while the ring count is unchanged; a sender bumps the count and
//! wakes it when it sleeps; an owner publishing an outcome wakes it only when it sleeps.
class PlpBus {
 public:
  //! Bytes of each ring's data area: room for kRingMessages messages at least.
  static constexpr std::size_t kRingMessages = 256;

  //! Queues between every pair of `workers` workers.
  explicit PlpBus(std::size_t workers) : workers_(workers), bells_(new Bell[workers]), mine_(new Mine[workers]) {
    std::size_t capacity = 64;
    while (capacity < kRingMessages * SpscRing::record_bytes(sizeof(PlpMessage))) capacity *= 2;
    const std::size_t bytes = SpscRing::region_bytes(capacity);
    regions_.resize(workers * workers);
    producers_.resize(workers * workers);
    consumers_.resize(workers * workers);
    for (std::size_t i = 0; i < workers * workers; ++i) {
      void* region = std::aligned_alloc(kRingLineBytes, (bytes + kRingLineBytes - 1) / kRingLineBytes * kRingLineBytes);
      ISLANDS_CHECK(region != nullptr, "plp: cannot allocate a queue");
      regions_[i].reset(region);
      producers_[i] = SpscRing::create(region, capacity);
      std::string error;
      consumers_[i] = SpscRing::attach(region, bytes, error);
      ISLANDS_CHECK(consumers_[i].valid(), "plp: cannot attach a queue");
    }
  }

  //! Workers connected.
  std::size_t workers() const { return workers_; }

  //! Sender `from`: queues `m` for worker `to`; false when that queue is full now (the sender
  //! serves its own queues and tries again: never blocks, so two senders cannot deadlock).
  bool try_send(std::size_t from, std::size_t to, const PlpMessage& m) {
    if (!producers_[from * workers_ + to].try_push(&m, sizeof m)) return false;
    Bell& bell = bells_[to];
    bell.rings.fetch_add(1, std::memory_order_seq_cst);
    if (bell.sleeping.load(std::memory_order_seq_cst) != 0) wake(bell);
    return true;
  }

  //! After publishing something worker `to` may be waiting for (an action's outcome): wakes
  //! it if it sleeps (a fence and one load of a line that is rarely written otherwise).
  void notify(std::size_t to) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    Bell& bell = bells_[to];
    if (bell.sleeping.load(std::memory_order_relaxed) != 0) {
      bell.rings.fetch_add(1, std::memory_order_seq_cst);
      wake(bell);
    }
  }

  //! Receiver `to`: whether any queue holds a message (looks, consumes nothing).
  bool pending(std::size_t to) {
    for (std::size_t from = 0; from < workers_; ++from) {
      std::size_t length = 0;
      if (consumers_[from * workers_ + to].peek(length) != RingPeek::empty) return true;
    }
    return false;
  }

  //! Receiver `to`, which found nothing to do: spins while its idle stretch is shorter than
  //! kSpinNs (`idle_since`: when the stretch began), then
  //! sleeps until a sender or notify rings, at most kSleep, unless `ready()` (its own
  //! condition, e.g. an outcome published) or a queued message is seen once it is marked
  //! sleeping. `spin` false: sleeps at once (a worker whose CPU is shared with another
  //! worker's thread: its spinning would only hold back the thread it waits for).
  template <class Ready>
  void idle(std::size_t to, std::chrono::steady_clock::time_point idle_since, Ready&& ready, bool spin = true) {
    if (spin && std::chrono::steady_clock::now() - idle_since < kSpin) {
      cpu_relax();
      return;
    }
    Bell& bell = bells_[to];
    const std::uint32_t seen = bell.rings.load(std::memory_order_acquire);
    bell.sleeping.store(1, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (!ready() && !pending(to)) {
      timespec ts{0, static_cast<long>(std::chrono::nanoseconds(kSleep).count())};
      ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&bell.rings), FUTEX_WAIT_PRIVATE, seen, &ts, nullptr, 0);
    }
    bell.sleeping.store(0, std::memory_order_relaxed);
  }

  //! Any thread (the drain watchdog): messages queued for worker `to` now, from every sender
  //! (the rings' published and consumed byte counts), and whether it sleeps on its doorbell.
  std::size_t queued(std::size_t to) const {
    std::size_t bytes = 0;
    for (std::size_t from = 0; from < workers_; ++from) {
      const SpscRingControl& c = producers_[from * workers_ + to].control();
      const std::uint64_t head = c.head.load(std::memory_order_acquire);  // first: the tail read after is no less
      bytes += static_cast<std::size_t>(c.tail.load(std::memory_order_acquire) - head);
    }
    return bytes / SpscRing::record_bytes(sizeof(PlpMessage));
  }
  //! Any thread: whether worker `to` sleeps on its doorbell now.
  bool sleeping(std::size_t to) const { return bells_[to].sleeping.load(std::memory_order_relaxed) != 0; }

  //! Receiver `to`: whether a message may wait (one load of its doorbell); false: none does.
  bool may_have_message(std::size_t to) const {
    return bells_[to].rings.load(std::memory_order_acquire) != mine_[to].seen;
  }

  //! Receiver `to`: the next message from any sender (round robin over the senders), into
  //! `out`; false when every queue is empty. Records the doorbell first, so that a message
  //! queued after that look rings again.
  bool receive(std::size_t to, PlpMessage& out) {
    Bell& bell = bells_[to];
    Mine& mine = mine_[to];
    mine.seen = bell.rings.load(std::memory_order_acquire);
    for (std::size_t k = 0; k < workers_; ++k) {
      const std::size_t from = (mine.next + k) % workers_;
      SpscRing& ring = consumers_[from * workers_ + to];
      std::size_t length = 0;
      const RingPeek peek = ring.peek(length);
      if (peek == RingPeek::empty) continue;
      ISLANDS_CHECK(peek == RingPeek::record && length == sizeof out, "plp: a broken queue record");
      ring.read(0, &out, sizeof out);
      ring.pop();
      mine.next = from + 1;
      // More may wait: leave the doorbell looking rung until a receive finds every queue empty.
      mine.seen = bell.rings.load(std::memory_order_relaxed) - 1;
      return true;
    }
    return false;
  }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  //! How long a waiter spins before it sleeps, and its longest sleep.
  static constexpr std::chrono::microseconds kSpin{50};
  static constexpr std::chrono::microseconds kSleep{1000};

  // One receiver's doorbell (bumped by senders; the futex word) and whether it sleeps, on a
  // line of its own.
  struct alignas(kRingLineBytes) Bell {
    std::atomic<std::uint32_t> rings{0};
    std::atomic<std::uint32_t> sleeping{0};
  };
  // What only the receiver writes: the count it saw last, the sender to look at first.
  struct alignas(kRingLineBytes) Mine {
    std::uint32_t seen = 0;
    std::size_t next = 0;
  };
  static void wake(Bell& bell) {
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&bell.rings), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
  std::size_t workers_;
  std::unique_ptr<Bell[]> bells_;
  std::unique_ptr<Mine[]> mine_;
  std::vector<std::unique_ptr<void, Free>> regions_;
  std::vector<SpscRing> producers_, consumers_;  // by from * workers + to
};

}  // namespace islands

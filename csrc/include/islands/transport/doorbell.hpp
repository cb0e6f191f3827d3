#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "islands/transport/run_directory.hpp"

namespace islands {

//! "ISLDBELL": the first word of an initialised doorbell.
constexpr std::uint64_t kDoorbellMagic = 0x4C4C4542444C5349ull;

//! The shared word of one receiving endpoint's doorbell, in a file of the run directory
//! (Doorbell::file_name) mapped by the endpoint and by every peer. Senders bump `rings` after
//! each message they queue; the receiver compares it with the last value it drained at, so it
//! learns that a message waits with one load instead of a system call. `rings` is also the futex word an idle receiver
//! sleeps on, and `sleeping` tells senders that a wake-up is needed. Both on one line: a
//! sender's bump brings the line to its cache, and its read of `sleeping` is then free.
struct alignas(128) DoorbellWord {
  std::uint64_t magic;                  //!< kDoorbellMagic once initialised
  std::atomic<std::uint32_t> rings;     //!< bumped by senders, wrapping; the futex word
  std::atomic<std::uint32_t> sleeping;  //!< 1 while the receiver is (about to be) asleep on rings
};

static_assert(std::atomic<std::uint32_t>::is_always_lock_free, "a futex word must be a plain 32-bit word");

//! One process's mapping of a doorbell: its own (created, and unlinked by close) or a peer's.
//!
//! The protocol never loses a wake-up (a receiver that watches its channels itself uses
//! ring_if_sleeping and wait_unless instead, argued there):
//! - sender: queue the message (socket or ring), then ring(): rings += 1 (sequentially
//!   consistent), then, if sleeping, wake the receiver;
//! - receiver: v = rings (acquire); when v differs from the value it last drained at, it
//!   records v and receives until the transport says empty. A message queued before the bump
//!   that produced v is visible after that acquire, so it is received in this drain; one
//!   queued later comes with a later bump, which the next look sees;
//! - idle receiver, wait(seen): sleeping = 1, then re-read rings (both sequentially
//!   consistent) and sleep on the futex only while rings == seen. Either the sender's read of
//!   sleeping comes after the receiver's store (so it wakes it), or the receiver's re-read
//!   comes after the sender's bump (so it does not sleep); the kernel re-checks the word
//!   atomically as it puts the receiver to sleep.
class Doorbell {
 public:
  //! Name of instance's doorbell file in the run directory ("<transport>-bell-<instance>": two
  //! transports of one instance may share a directory).
  static std::string file_name(const char* transport, std::uint32_t instance);

  //! An unmapped doorbell.
  Doorbell() = default;
  //! Unmaps; unlinks the file when this mapping created it.
  ~Doorbell() { close(); }
  Doorbell(Doorbell&& other) noexcept;
  Doorbell& operator=(Doorbell&& other) noexcept;
  Doorbell(const Doorbell&) = delete;
  Doorbell& operator=(const Doorbell&) = delete;

  //! Creates instance's doorbell in directory (under a temporary name, linked into place once
  //! initialised). `what` names the transport (file name and errors). Throws std::runtime_error when the
  //! file exists already (another endpoint with this id, or a stale run directory).
  static Doorbell create(const RunDirectory& directory, std::uint32_t instance, const char* what);
  //! Maps the existing doorbell of peer instance (its endpoint is set up by the time a
  //! transport attaches to it). Throws std::runtime_error when it is missing or not a doorbell.
  static Doorbell open(const RunDirectory& directory, std::uint32_t instance, const char* what);

  //! Whether this maps a doorbell.
  bool valid() const { return word_ != nullptr; }
  //! Sender: tells the receiver that a message is queued (after queueing it).
  void ring() {
    word_->rings.fetch_add(1, std::memory_order_seq_cst);
    if (word_->sleeping.load(std::memory_order_seq_cst) != 0) wake();
  }
  //! Sender, for a receiver that watches its channels itself (Transport::watch_channels):
  //! rings only when the receiver sleeps, so a busy receiver's doorbell line is never written.
  void ring_if_sleeping() {
    // Pairs with the fence in wait_unless: either we see sleeping, or it sees our record.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (word_->sleeping.load(std::memory_order_relaxed) != 0) {
      word_->rings.fetch_add(1, std::memory_order_seq_cst);
      wake();
    }
  }
  //! Receiver that watches its channels itself: sleeps until a sender rings or `timeout`
  //! passes, unless `pending()` (which looks at the channels without consuming) finds a
  //! record once senders can see that it sleeps.
  template <class Pending>
  void wait_unless(Pending&& pending, std::chrono::microseconds timeout) {
    const std::uint32_t seen = word_->rings.load(std::memory_order_acquire);
    word_->sleeping.store(1, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (!pending()) sleep(seen, timeout);
    word_->sleeping.store(0, std::memory_order_relaxed);
  }
  //! Receiver: the current count (acquire: what was queued before it is visible).
  std::uint32_t rings() const { return word_->rings.load(std::memory_order_acquire); }
  //! Receiver: sleeps until the count differs from `seen` or `timeout` passes (whichever is
  //! first; spurious returns are possible). Returns at once when it differs already.
  void wait(std::uint32_t seen, std::chrono::microseconds timeout);
  //! Unmaps, and unlinks the file if this mapping created it. Safe to call twice.
  void close() noexcept;

 private:
  void wake();
  void sleep(std::uint32_t seen, std::chrono::microseconds timeout);

  DoorbellWord* word_ = nullptr;
  std::string path_;     // file, for cleanup
  bool created_ = false; // this mapping created (and so unlinks) the file
};

}  // namespace islands

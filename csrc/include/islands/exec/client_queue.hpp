#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "islands/common/spin_latch.hpp"

namespace islands {

//! One transaction a client submits: who asked, where its data lives and how to draw it.
//! The serving worker draws the transaction itself from `seed` around `home` (so a request is
//! 32 bytes whatever the transaction's size), and answers `client` when it is decided.
struct ClientRequest {
  std::uint32_t client = 0;     //!< the submitting client (closed loop), or kOpenArrival
  std::uint32_t site = 0;       //!< the global site that owns `home`
  std::uint64_t home = 0;       //!< the workload's home (micro: the first row's key; others: the site)
  std::uint64_t seed = 0;       //!< the random seed the serving worker draws the rest from
  std::uint64_t submitted = 0;  //!< cycle clock when it was submitted (open loop: when it arrived)
};

//! The client of every open-loop arrival (no client waits for its answer).
inline constexpr std::uint32_t kOpenArrival = 0xffffffffu;

//! A bounded multi-producer multi-consumer queue of ClientRequest over memory it does not own
//! (the heap of an in-process run, or a file every instance of a deployment maps): D. Vyukov's
//! bounded queue, each slot stamped with a sequence number so that producers and consumers
//! claim slots with one compare-and-swap and never wait on each other. Only lock-free atomics
//! live in the memory, so processes share it as threads do. Any worker may push (the client
//! side); the workers of the owning instance pop.
class ClientQueue {
 public:
  //! Bytes of memory a queue of `capacity` slots (a power of two) takes.
  static std::size_t bytes(std::size_t capacity) { return sizeof(Header) + capacity * sizeof(Slot); }
  //! The smallest power-of-two capacity of at least `n` slots (and at least 64).
  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 64;
    while (c < n) c *= 2;
    return c;
  }

  ClientQueue() = default;
  //! Initialises an empty queue of `capacity` slots (a power of two) in `memory` (bytes(capacity)
  //! bytes, 64-byte aligned, zeroed; page-aligned so that no other data shares its lines).
  static ClientQueue create(void* memory, std::size_t capacity) {
    ClientQueue q;
    q.header_ = new (memory) Header();
    q.header_->capacity = capacity;
    q.slots_ = reinterpret_cast<Slot*>(static_cast<char*>(memory) + sizeof(Header));
    for (std::size_t i = 0; i < capacity; ++i) new (&q.slots_[i]) Slot{};
    for (std::size_t i = 0; i < capacity; ++i) q.slots_[i].sequence.store(i, std::memory_order_relaxed);
    q.mask_ = capacity - 1;
    q.header_->magic.store(kMagic, std::memory_order_release);
    return q;
  }
  //! The queue another process created in `memory` (`size` bytes mapped); an invalid one (and
  //! `error` saying why) when the memory does not hold one.
  static ClientQueue attach(void* memory, std::size_t size, std::string& error) {
    ClientQueue q;
    if (size < sizeof(Header)) {
      error = "it is " + std::to_string(size) + " bytes, smaller than a queue's header";
      return q;
    }
    auto* header = static_cast<Header*>(memory);
    const std::uint64_t capacity = header->capacity;
    if (header->magic.load(std::memory_order_acquire) != kMagic) {
      error = "it does not start with a client queue's mark";
    } else if (capacity < 64 || (capacity & (capacity - 1)) != 0 || bytes(capacity) > size) {
      error = "its capacity " + std::to_string(capacity) + " is not a power of two that fits its " +
              std::to_string(size) + " bytes";
    } else {
      q.header_ = header;
      q.slots_ = reinterpret_cast<Slot*>(static_cast<char*>(memory) + sizeof(Header));
      q.mask_ = capacity - 1;
    }
    return q;
  }

  //! Whether this refers to a queue.
  bool valid() const { return header_ != nullptr; }

  //! Appends `request`; false (and counted as refused) only when `capacity` requests wait.
  bool push(const ClientRequest& request) {
    std::uint64_t position = header_->tail.load(std::memory_order_relaxed);
    Slot* slot;
    for (;;) {
      slot = &slots_[position & mask_];
      const std::uint64_t sequence = slot->sequence.load(std::memory_order_acquire);
      const auto diff = static_cast<std::int64_t>(sequence - position);
      if (diff == 0) {
        if (header_->tail.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) break;
      } else if (diff < 0) {
        // The slot still holds the request of a lap ago. Full only when `capacity` requests
        // wait; otherwise a consumer that claimed that request has not yet copied it out (it
        // was descheduled in between while the others went round): wait for it, never drop.
        if (position - header_->head.load(std::memory_order_acquire) > mask_) {
          header_->refused.fetch_add(1, std::memory_order_relaxed);
          return false;
        }
        cpu_relax();
        position = header_->tail.load(std::memory_order_relaxed);
      } else {
        position = header_->tail.load(std::memory_order_relaxed);
      }
    }
    slot->request = request;
    slot->sequence.store(position + 1, std::memory_order_release);
    return true;
  }

  //! Takes the oldest request into `request`; false when the queue is empty.
  bool pop(ClientRequest& request) {
    std::uint64_t position = header_->head.load(std::memory_order_relaxed);
    Slot* slot;
    for (;;) {
      slot = &slots_[position & mask_];
      const std::uint64_t sequence = slot->sequence.load(std::memory_order_acquire);
      const auto diff = static_cast<std::int64_t>(sequence - (position + 1));
      if (diff == 0) {
        if (header_->head.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) break;
      } else if (diff < 0) {
        return false;
      } else {
        position = header_->head.load(std::memory_order_relaxed);
      }
    }
    request = slot->request;
    slot->sequence.store(position + mask_ + 1, std::memory_order_release);
    return true;
  }

  //! Requests ever appended.
  std::uint64_t submitted() const { return header_->tail.load(std::memory_order_relaxed); }
  //! Requests ever taken.
  std::uint64_t taken() const { return header_->head.load(std::memory_order_relaxed); }
  //! Requests refused because the queue was full.
  std::uint64_t refused() const { return header_->refused.load(std::memory_order_relaxed); }
  //! Requests waiting now (a snapshot: others may push or pop meanwhile).
  std::uint64_t length() const {
    const std::uint64_t taken_now = taken();
    const std::uint64_t submitted_now = submitted();
    return submitted_now > taken_now ? submitted_now - taken_now : 0;
  }
  //! Slots.
  std::size_t capacity() const { return mask_ + 1; }

 private:
  static constexpr std::uint64_t kMagic = 0x69736c636c6e7431ULL;  // "islclnt1"
  struct alignas(64) Header {
    std::atomic<std::uint64_t> magic{0};
    std::uint64_t capacity = 0;
    alignas(64) std::atomic<std::uint64_t> tail{0};
    alignas(64) std::atomic<std::uint64_t> head{0};
    alignas(64) std::atomic<std::uint64_t> refused{0};
  };
  // One slot per cache line: a producer filling slot i + 1 never shares a line with the
  // consumer reading slot i.
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> sequence{0};
    ClientRequest request;
  };
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "shared between processes");
  static_assert(sizeof(Slot) == 64, "a slot is one cache line");

  Header* header_ = nullptr;
  Slot* slots_ = nullptr;
  std::size_t mask_ = 0;
};

}  // namespace islands

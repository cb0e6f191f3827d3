#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "islands/common/check.hpp"

namespace islands {

//! "ISLDRING": the first word of an initialised ring.
constexpr std::uint64_t kRingMagic = 0x474E4952444C5349ull;
//! Layout version of SpscRingControl and the record frame.
constexpr std::uint32_t kRingVersion = 1;
//! Spacing of the fields two processes write: 128 bytes, because x86 prefetches cache lines in
//! adjacent pairs, so 64-byte spacing would still bounce head and tail together.
constexpr std::size_t kRingLineBytes = 128;

//! The control block at the start of a ring's memory, which may be shared between processes:
//! fixed-size fields and lock-free atomics only. The producer writes tail, the consumer head,
//! each on its own line; the rest is written once at set-up or close.
struct SpscRingControl {
  std::uint64_t magic;       //!< kRingMagic once initialised
  std::uint32_t version;     //!< kRingVersion
  std::uint32_t reserved;    //!< zero
  std::uint64_t capacity;    //!< bytes in the data area (a power of two)
  alignas(kRingLineBytes) std::atomic<std::uint64_t> tail;  //!< bytes ever published
  alignas(kRingLineBytes) std::atomic<std::uint64_t> head;  //!< bytes ever consumed
  alignas(kRingLineBytes) std::atomic<std::int32_t> producer_pid;  //!< 0 until one attaches
  std::atomic<std::int32_t> consumer_pid;        //!< process that created the ring
  std::atomic<std::uint32_t> consumer_closed;    //!< 1 once the consumer has gone away
};

static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "ring positions must be lock-free to be shared between processes");
static_assert(sizeof(SpscRingControl) % kRingLineBytes == 0, "data must start on a line");

//! What the consumer finds at the head of the ring.
//! empty: nothing published. record: a record whose length peek reports.
//! corrupt: the published bytes do not frame a record (a broken or hostile producer); the
//! consumer should count it and discard_all to resynchronise.
enum class RingPeek { empty, record, corrupt };

//! A bounded lock-free single-producer single-consumer ring of variable-length records over a
//! caller-provided memory region (heap for threads, a mapped file for processes).
//!
//! Each record is an 8-byte frame (u32 length, u32 its complement) and the bytes, padded to a
//! multiple of 8. Records wrap around the end of the data area byte-wise (a record may be
//! split in two), so no space is lost to wrap markers. Positions are 64-bit byte counts that
//! only grow; a position's place in the data area is position & (capacity - 1).
//!
//! A SpscRing object is one process's view; the producer and the consumer each use their own
//! view of the same region, from one thread each. Indexes into the data area are always
//! masked, so whatever bytes the other side writes, a view never touches memory outside its
//! region.
class SpscRing {
 public:
  //! Bytes of the frame in front of every record.
  static constexpr std::size_t kFrameBytes = 8;
  //! Offset of the data area in the region.
  static constexpr std::size_t kDataOffset = sizeof(SpscRingControl);

  //! Region bytes needed for a ring of capacity data bytes.
  static constexpr std::size_t region_bytes(std::size_t capacity) { return kDataOffset + capacity; }
  //! Ring bytes a record of length bytes takes (frame and padding).
  static constexpr std::size_t record_bytes(std::size_t length) {
    return kFrameBytes + ((length + 7) & ~static_cast<std::size_t>(7));
  }
  //! True for a usable capacity: a power of two of at least 64 bytes.
  static constexpr bool valid_capacity(std::size_t capacity) {
    return capacity >= 64 && (capacity & (capacity - 1)) == 0;
  }

  //! Initialises an empty ring in region (region_bytes(capacity) bytes, 128-byte aligned) and
  //! returns a view of it.
  static SpscRing create(void* region, std::size_t capacity) {
    ISLANDS_CHECK(valid_capacity(capacity), "ring capacity must be a power of two >= 64");
    std::memset(region, 0, kDataOffset);
    auto* control = new (region) SpscRingControl();
    control->version = kRingVersion;
    control->capacity = capacity;
    control->tail.store(0, std::memory_order_relaxed);
    control->head.store(0, std::memory_order_relaxed);
    control->producer_pid.store(0, std::memory_order_relaxed);
    control->consumer_pid.store(0, std::memory_order_relaxed);
    control->consumer_closed.store(0, std::memory_order_relaxed);
    // The magic goes last, after a release fence, so an attacher that sees it sees the rest.
    std::atomic_thread_fence(std::memory_order_release);
    control->magic = kRingMagic;
    return SpscRing(control);
  }

  //! A view of the ring already initialised in region (mapped_bytes long). Returns an invalid
  //! view (valid() false) and sets error when region does not hold a ring of this version that
  //! fits in mapped_bytes.
  static SpscRing attach(void* region, std::size_t mapped_bytes, std::string& error) {
    if (mapped_bytes < kDataOffset) {
      error = "region of " + std::to_string(mapped_bytes) + " bytes is smaller than a ring header";
      return SpscRing();
    }
    auto* control = static_cast<SpscRingControl*>(region);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (control->magic != kRingMagic) {
      error = "not an initialised ring (bad magic)";
      return SpscRing();
    }
    if (control->version != kRingVersion) {
      error = "ring version " + std::to_string(control->version) + ", this build speaks " +
              std::to_string(kRingVersion);
      return SpscRing();
    }
    if (!valid_capacity(control->capacity) || region_bytes(control->capacity) != mapped_bytes) {
      error = "ring capacity " + std::to_string(control->capacity) + " does not match its " +
              std::to_string(mapped_bytes) + "-byte region";
      return SpscRing();
    }
    return SpscRing(control);
  }

  //! An invalid view (for containers and failed attaches).
  SpscRing() = default;

  //! True for a view of an initialised ring.
  bool valid() const { return control_ != nullptr; }
  //! Data bytes of the ring.
  std::size_t capacity() const { return static_cast<std::size_t>(capacity_); }
  //! Longest record that fits in the empty ring.
  std::size_t max_length() const { return static_cast<std::size_t>(capacity_) - kFrameBytes; }
  //! The shared control block.
  SpscRingControl& control() const { return *control_; }

  //! Producer: publishes one record made of first[0, first_len) then second[0, second_len).
  //! Never blocks: false when the ring lacks room now, or the record exceeds max_length().
  bool try_push(const void* first, std::size_t first_len, const void* second = nullptr,
                std::size_t second_len = 0) {
    const std::uint64_t length = static_cast<std::uint64_t>(first_len) + second_len;
    if (length > max_length()) return false;
    const std::uint64_t need = record_bytes(static_cast<std::size_t>(length));
    // Read the consumer's line only when the cached head says we might be full.
    if (!has_room(need)) {
      cached_head_ = control_->head.load(std::memory_order_acquire);
      if (!has_room(need)) return false;
    }
    const std::uint32_t frame[2] = {static_cast<std::uint32_t>(length),
                                    ~static_cast<std::uint32_t>(length)};
    copy_in(local_tail_, frame, kFrameBytes);
    copy_in(local_tail_ + kFrameBytes, first, first_len);
    copy_in(local_tail_ + kFrameBytes + first_len, second, second_len);
    local_tail_ += need;
    control_->tail.store(local_tail_, std::memory_order_release);
    return true;
  }

  //! Consumer: looks at the next record without consuming it; on record, length is its size.
  RingPeek peek(std::size_t& length) {
    if (cached_tail_ == local_head_) {
      cached_tail_ = control_->tail.load(std::memory_order_acquire);
      if (cached_tail_ == local_head_) return RingPeek::empty;
    }
    // Everything below distrusts the producer: the published span must be plausible and the
    // frame must fit inside it before its length is believed.
    const std::uint64_t available = cached_tail_ - local_head_;
    if (available > capacity_ || available < kFrameBytes || (available & 7) != 0) {
      return RingPeek::corrupt;
    }
    std::uint32_t frame[2];
    copy_out(local_head_, frame, kFrameBytes);
    if (frame[1] != ~frame[0] || record_bytes(frame[0]) > available) return RingPeek::corrupt;
    current_length_ = frame[0];
    length = frame[0];
    return RingPeek::record;
  }

  //! Consumer: copies n bytes from offset of the record peek just reported.
  void read(std::size_t offset, void* out, std::size_t n) const {
    ISLANDS_CHECK(offset + n <= current_length_, "ring read past the record peek reported");
    copy_out(local_head_ + kFrameBytes + offset, out, n);
  }

  //! Consumer: consumes the record peek just reported, freeing its space for the producer.
  void pop() {
    local_head_ += record_bytes(current_length_);
    current_length_ = 0;
    control_->head.store(local_head_, std::memory_order_release);
  }

  //! Consumer: drops everything published so far (resynchronises after corrupt).
  void discard_all() {
    local_head_ = cached_tail_;
    current_length_ = 0;
    control_->head.store(local_head_, std::memory_order_release);
  }

 private:
  explicit SpscRing(SpscRingControl* control)
      : control_(control),
        data_(reinterpret_cast<std::uint8_t*>(control) + kDataOffset),
        capacity_(control->capacity),
        mask_(control->capacity - 1),
        local_tail_(control->tail.load(std::memory_order_acquire)),
        cached_head_(control->head.load(std::memory_order_acquire)),
        local_head_(cached_head_),
        cached_tail_(local_tail_) {}

  bool has_room(std::uint64_t need) const {
    // A head ahead of our tail, or more than a ring behind it, can only come from a broken
    // consumer; treat it as full rather than overwrite unread bytes.
    const std::uint64_t used = local_tail_ - cached_head_;
    return used <= capacity_ && capacity_ - used >= need;
  }

  void copy_in(std::uint64_t position, const void* src, std::size_t n) {
    if (n == 0) return;
    const std::size_t offset = static_cast<std::size_t>(position & mask_);
    const std::size_t first = n < capacity_ - offset ? n : capacity_ - offset;
    std::memcpy(data_ + offset, src, first);
    if (first < n) std::memcpy(data_, static_cast<const std::uint8_t*>(src) + first, n - first);
  }

  void copy_out(std::uint64_t position, void* dst, std::size_t n) const {
    if (n == 0) return;
    const std::size_t offset = static_cast<std::size_t>(position & mask_);
    const std::size_t first = n < capacity_ - offset ? n : capacity_ - offset;
    std::memcpy(dst, data_ + offset, first);
    if (first < n) std::memcpy(static_cast<std::uint8_t*>(dst) + first, data_, n - first);
  }

  SpscRingControl* control_ = nullptr;
  std::uint8_t* data_ = nullptr;
  std::uint64_t capacity_ = 0;
  std::uint64_t mask_ = 0;
  std::uint64_t local_tail_ = 0;   // producer: where the next record goes
  std::uint64_t cached_head_ = 0;  // producer: the consumer's head as last read
  std::uint64_t local_head_ = 0;   // consumer: start of the next record
  std::uint64_t cached_tail_ = 0;  // consumer: the producer's tail as last read
  std::size_t current_length_ = 0; // consumer: length of the record peek reported
};

}  // namespace islands

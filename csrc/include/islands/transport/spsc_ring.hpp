#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <random>
#include <string>

#include "islands/common/check.hpp"

namespace islands {

//! "ISLDRING": the first word of an initialised ring.
constexpr std::uint64_t kRingMagic = 0x474E4952444C5349ull;
//! Layout version of SpscRingControl and the record frame (3: 16-byte frames with hashed stamps).
constexpr std::uint32_t kRingVersion = 3;
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
  std::uint64_t salt;        //!< random, nonzero: hashed into every record's stamp
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
//! Each record is a 16-byte frame and the bytes, padded to a multiple of 8. The frame is the
//! length (u32) and its complement (u32), then a stamp: a bijective hash of the record's
//! position and the ring's random salt, stored last with release order. The consumer polls the
//! stamp where the next record will start, so a message costs the consumer one cache-line
//! transfer (the record's own line) instead of two (the producer's tail, then the record).
//! Hashed rather than plain position ^ salt because the word the consumer polls holds stale
//! bytes: an older stamp, or an older stamp partly overwritten by newer payload or padding
//! bytes. Positions one lap apart share their high bytes, so with plain xor such a mix passes
//! for the new stamp about once in 65536 records (the ring ping-pong test caught it); hashed
//! stamps share no bytes, and a stale word matches only by an 8-byte coincidence.
//! The producer still publishes tail; the consumer reads it only now and then to tell an idle
//! ring from a broken one, and to resynchronise. The consumer publishes head, which the
//! producer reads only when its cached copy says the ring is full.
//!
//! Records wrap around the end of the data area byte-wise (a record may be split in two), so
//! no space is lost to wrap markers; the two frame words are 8-byte aligned and never split.
//! Positions are 64-bit byte counts that only grow; a position's place in the data area is
//! position & (capacity - 1).
//!
//! A SpscRing object is one process's view; the producer and the consumer each use their own
//! view of the same region, from one thread each. Indexes into the data area are always
//! masked, so whatever bytes the other side writes, a view never touches memory outside its
//! region.
class SpscRing {
 public:
  //! Bytes of the frame in front of every record.
  static constexpr std::size_t kFrameBytes = 16;
  //! A consumer finding no record checks the producer's tail once per this many peeks.
  static constexpr std::uint32_t kTailCheckInterval = 64;
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
    // Nonzero so that a zero-filled new ring holds no valid stamp.
    std::random_device random;
    do {
      control->salt = (static_cast<std::uint64_t>(random()) << 32) ^ random();
    } while (control->salt == 0);
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
    if (control->salt == 0 || !valid_capacity(control->capacity) ||
        region_bytes(control->capacity) != mapped_bytes) {
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
    copy_in(local_tail_, frame, sizeof frame);
    copy_in(local_tail_ + kFrameBytes, first, first_len);
    copy_in(local_tail_ + kFrameBytes + first_len, second, second_len);
    // The stamp publishes the record: everything above is visible to a consumer that sees it.
    __atomic_store_n(stamp_at(local_tail_), stamp_for(local_tail_), __ATOMIC_RELEASE);
    local_tail_ += need;
    control_->tail.store(local_tail_, std::memory_order_release);
    return true;
  }

  //! Consumer: the word where the next record's stamp will appear, and the stamp it will carry
  //! (valid until the next pop or discard). While the word differs from the stamp, no record
  //! has arrived, unless the producer is broken (peek's tail check finds that).
  const std::uint64_t* next_stamp_word() const { return stamp_at(local_head_); }
  //! See next_stamp_word.
  std::uint64_t next_stamp() const { return head_stamp_; }

  //! Consumer: looks at the next record without consuming it; on record, length is its size.
  //! A broken frame is reported as corrupt at once when its stamp is right and its length is
  //! not, and within kTailCheckInterval peeks when its stamp is wrong but the tail has moved.
  RingPeek peek(std::size_t& length) {
    if (resync_pending_) {
      // discard_all met a tail not yet past the bad record: wait for it, then skip there.
      cached_tail_ = aligned_tail();
      if (!ahead(cached_tail_)) return RingPeek::empty;
      local_head_ = cached_tail_;
      head_stamp_ = stamp_for(local_head_);
      resync_pending_ = false;
      control_->head.store(local_head_, std::memory_order_release);
    }
    if (__atomic_load_n(stamp_at(local_head_), __ATOMIC_ACQUIRE) != head_stamp_) {
      // Most likely nothing new. Only now and then look at the producer's line to see whether
      // it has published past us anyway, which only a broken frame explains: the stamp is
      // stored before tail, so a tail past us means our record's stamp must be there.
      if (++empty_peeks_ % kTailCheckInterval != 0) return RingPeek::empty;
      cached_tail_ = aligned_tail();
      // Not ahead of us is idle: tail is stored after the stamp, so it may lag behind a
      // record we have already consumed, and that is no sign of damage.
      if (!ahead(cached_tail_)) return RingPeek::empty;
      if (__atomic_load_n(stamp_at(local_head_), __ATOMIC_ACQUIRE) != head_stamp_) {
        return RingPeek::corrupt;
      }
    }
    // The stamp says the producer wrote this frame; the length is still checked before use.
    std::uint32_t frame[2];
    copy_out(local_head_, frame, sizeof frame);
    if (frame[1] != ~frame[0] || frame[0] > max_length()) return RingPeek::corrupt;
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
    head_stamp_ = stamp_for(local_head_);
    current_length_ = 0;
    control_->head.store(local_head_, std::memory_order_release);
  }

  //! Consumer: true when the producer's published tail is more than a whole ring ahead of
  //! this consumer's head, which no producer can reach (it never overwrites unread bytes):
  //! the shared control block was scribbled. Resynchronising to such a tail would skip past
  //! every record the producer writes next, so the caller reports the ring as malformed.
  //! Judged on the tail the last peek read (the one that made it report corrupt), so that a
  //! producer publishing meanwhile cannot hide it.
  bool tail_impossible() const { return ahead(cached_tail_) && cached_tail_ - local_head_ > capacity_; }

  //! Producer: true when the consumer's published head is ahead of this producer's tail or
  //! more than a ring behind it, which no consumer can reach: the control block was scribbled,
  //! and the ring would look full for ever.
  //! Judged on the head the last refused try_push read.
  bool head_impossible() const { return local_tail_ - cached_head_ > capacity_; }

  //! The tail this consumer last read and the head this producer last read (error messages).
  std::uint64_t seen_tail() const { return cached_tail_; }
  std::uint64_t seen_head() const { return cached_head_; }
  //! This view's own position: the consumer's head, or the producer's tail.
  std::uint64_t own_head() const { return local_head_; }
  std::uint64_t own_tail() const { return local_tail_; }

  //! Consumer: drops everything published so far (resynchronises after corrupt).
  void discard_all() {
    // Only ever forwards: tail is stored after a record's stamp, so it may still lag behind
    // (or point at) the record just found bad, and going back would deliver records twice.
    // Then the skip happens in a later peek, once tail has moved past.
    cached_tail_ = aligned_tail();
    if (ahead(cached_tail_)) {
      local_head_ = cached_tail_;
      head_stamp_ = stamp_for(local_head_);
    } else {
      resync_pending_ = true;
    }
    current_length_ = 0;
    control_->head.store(local_head_, std::memory_order_release);
  }

 private:
  explicit SpscRing(SpscRingControl* control)
      : control_(control),
        data_(reinterpret_cast<std::uint8_t*>(control) + kDataOffset),
        capacity_(control->capacity),
        mask_(control->capacity - 1),
        salt_(control->salt),
        local_tail_(control->tail.load(std::memory_order_acquire) & ~static_cast<std::uint64_t>(7)),
        cached_head_(control->head.load(std::memory_order_acquire) & ~static_cast<std::uint64_t>(7)),
        local_head_(cached_head_),
        head_stamp_(stamp_for(local_head_)),
        cached_tail_(local_tail_) {}

  // Where the stamp of the record at position lives: the frame's second word, 8-byte aligned
  // and so never split by the wrap.
  std::uint64_t* stamp_at(std::uint64_t position) const {
    return reinterpret_cast<std::uint64_t*>(data_ + ((position + 8) & mask_));
  }

  // The splitmix64 finaliser of position ^ salt: a bijection in which every output bit depends
  // on every input bit, so the stamps of nearby positions share no bytes.
  std::uint64_t stamp_for(std::uint64_t position) const {
    std::uint64_t z = position ^ salt_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // The producer's tail, aligned down: a position is a multiple of 8 whatever a broken
  // producer wrote, so stamps are always read from aligned words.
  std::uint64_t aligned_tail() const {
    return control_->tail.load(std::memory_order_acquire) & ~static_cast<std::uint64_t>(7);
  }

  // True when position is past the consumer's head (positions compared modulo 2^64).
  bool ahead(std::uint64_t position) const {
    return static_cast<std::int64_t>(position - local_head_) > 0;
  }

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
  std::uint64_t salt_ = 0;
  std::uint64_t local_tail_ = 0;   // producer: where the next record goes
  std::uint64_t cached_head_ = 0;  // producer: the consumer's head as last read
  std::uint64_t local_head_ = 0;   // consumer: start of the next record
  std::uint64_t head_stamp_ = 0;   // consumer: the stamp that record will carry
  std::uint64_t cached_tail_ = 0;  // consumer: the producer's tail as last read
  std::uint32_t empty_peeks_ = 0;  // consumer: peeks that found no stamp (paces tail checks)
  bool resync_pending_ = false;    // consumer: discard_all is waiting for tail to move past
  std::size_t current_length_ = 0; // consumer: length of the record peek reported
};

}  // namespace islands

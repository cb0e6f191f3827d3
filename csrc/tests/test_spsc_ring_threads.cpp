// The SPSC ring between two real threads: every record arrives exactly once, in order, with its
// bytes intact, through many laps of a small ring (records split across the wrap included).
// Run under TSan (make test-tsan) this also checks the ring's publication order.
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/transport/spsc_ring.hpp"

using namespace islands;

namespace {

constexpr std::uint64_t kRecords = 20000;

// The record with sequence number seq: its length (8..max_length) and its bytes. The first 8
// bytes carry seq; the rest is a pattern of seq and position, so a byte from another record or
// a stale lap does not pass.
std::size_t length_of(std::uint64_t seq, std::size_t max_length) {
  return 8 + static_cast<std::size_t>((seq * 2654435761u) % (max_length - 8 + 1));
}
unsigned char byte_of(std::uint64_t seq, std::size_t i) {
  return static_cast<unsigned char>((seq * 131 + i * 7 + (seq >> 8)) ^ 0x5a);
}

struct Outcome {
  std::uint64_t received = 0;
  std::uint64_t bad = 0;       // records out of order, of the wrong length or with wrong bytes
  std::uint64_t corrupt = 0;   // peeks that reported a broken frame
  std::uint64_t split = 0;     // records whose bytes wrapped around the end of the data area
  std::uint64_t ring_bytes = 0;
};

Outcome run(std::size_t capacity) {
  // aligned_alloc wants a multiple of the alignment.
  const std::size_t bytes = (SpscRing::region_bytes(capacity) + kRingLineBytes - 1) / kRingLineBytes * kRingLineBytes;
  void* region = std::aligned_alloc(kRingLineBytes, bytes);
  SpscRing ring = SpscRing::create(region, capacity);
  const std::size_t max_length = ring.max_length();
  Outcome out;

  // The producer uses its own view, as another process would.
  std::thread producer([&] {
    std::string error;
    SpscRing view = SpscRing::attach(region, SpscRing::region_bytes(capacity), error);
    std::vector<unsigned char> body(max_length);
    std::uint64_t position = 0;
    for (std::uint64_t seq = 0; seq < kRecords; ++seq) {
      const std::size_t length = length_of(seq, max_length);
      for (std::size_t i = 8; i < length; ++i) body[i - 8] = byte_of(seq, i);
      Backoff backoff;
      // Two pieces: the sequence number, then the body (the ring joins them).
      while (!view.try_push(&seq, 8, body.data(), length - 8)) backoff.pause();
      const std::size_t bytes = SpscRing::record_bytes(length);
      if ((position & (capacity - 1)) + bytes > capacity) ++out.split;
      position += bytes;
    }
    out.ring_bytes = position;
  });

  std::vector<unsigned char> got(max_length);
  std::uint64_t expected = 0;
  while (expected < kRecords) {
    std::size_t length = 0;
    Backoff backoff;
    RingPeek peek;
    while ((peek = ring.peek(length)) == RingPeek::empty) backoff.pause();
    if (peek == RingPeek::corrupt) {
      ++out.corrupt;
      break;  // a correct producer never breaks a frame; resynchronising would hide the loss
    }
    std::uint64_t seq = ~std::uint64_t{0};
    ring.read(0, &seq, 8);
    bool ok = seq == expected && length == length_of(seq, max_length);
    if (ok) {
      ring.read(8, got.data(), length - 8);
      for (std::size_t i = 8; i < length && ok; ++i) ok = got[i - 8] == byte_of(seq, i);
    }
    if (!ok) ++out.bad;
    ring.pop();
    ++out.received;
    ++expected;
  }
  producer.join();
  // Nothing more than was sent: the ring is empty once every record is consumed.
  std::size_t length = 0;
  for (std::uint32_t i = 0; i < 2 * SpscRing::kTailCheckInterval; ++i) {
    if (ring.peek(length) != RingPeek::empty) ++out.bad;
  }
  std::free(region);
  return out;
}

}  // namespace

int main() {
  // The smallest ring (one record at a time at most lengths) and one that holds a few dozen.
  for (std::size_t capacity : {std::size_t{64}, std::size_t{512}, std::size_t{4096}}) {
    const Outcome o = run(capacity);
    CHECK(o.corrupt == 0);
    CHECK(o.received == kRecords);
    CHECK(o.bad == 0);
    // The test means something only if the ring went round many times, splitting records.
    CHECK(o.ring_bytes > 100 * capacity);
    CHECK(o.split > 0);
  }
  return test_summary("spsc_ring_threads");
}

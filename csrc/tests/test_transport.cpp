// Transport layer: wire format, SPSC ring, and both transports between real processes.
// Plain C++ with a tiny CHECK macro so it runs under ctest on a fresh machine.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "temp_dir.hpp"
#include "test_cases.hpp"
#include "islands/common/spin_latch.hpp"
#include "islands/transport/message.hpp"
#include "islands/transport/ping_pong.hpp"
#include "islands/transport/run_directory.hpp"
#include "islands/transport/shm_ring_transport.hpp"
#include "islands/transport/spsc_ring.hpp"
#include "islands/transport/transport.hpp"
#include "islands/transport/unix_socket_transport.hpp"

using namespace islands;

namespace {

int g_failures = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      ++g_failures;                                                              \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                            \
  } while (0)

// Runs f and checks it throws E whose message contains every one of needles.
template <class E>
void check_throws(const std::function<void()>& f, std::vector<std::string> needles,
                  const char* what) {
  try {
    f();
    ++g_failures;
    std::fprintf(stderr, "expected an exception: %s\n", what);
  } catch (const E& e) {
    for (const auto& needle : needles) {
      if (std::string(e.what()).find(needle) == std::string::npos) {
        ++g_failures;
        std::fprintf(stderr, "%s: message '%s' lacks '%s'\n", what, e.what(), needle.c_str());
      }
    }
  } catch (const std::exception& e) {
    ++g_failures;
    std::fprintf(stderr, "%s: wrong exception type: %s\n", what, e.what());
  }
}

std::string make_temp_dir() { return islands_test::make_temp_dir("transport"); }
using islands_test::list_dir;
using islands_test::remove_dir;

unsigned mode_of(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0xFFFF;
  return st.st_mode & 07777;
}

TransportConfig config_for(const std::string& dir, std::uint32_t id, std::uint32_t n) {
  TransportConfig c;
  c.directory = dir;
  c.instance_id = id;
  c.n_instances = n;
  c.ring_bytes = 4096;  // small: sends fill it and records wrap often
  c.max_message_bytes = 1024;
  c.attach_timeout_ms = 20000;
  return c;
}

// Deterministic message content, so a receiver can verify every byte it gets.
std::vector<std::uint8_t> payload_for(std::uint32_t src, std::uint32_t dst, std::uint64_t seq) {
  const std::size_t size = (seq * 37 + src * 11 + dst * 5) % 600;
  std::vector<std::uint8_t> p(size);
  for (std::size_t k = 0; k < size; ++k) {
    p[k] = static_cast<std::uint8_t>(seq * 131 + k * 7 + src * 13 + dst);
  }
  return p;
}

constexpr MessageType kCycle[4] = {MessageType::fragment, MessageType::vote,
                                   MessageType::decision, MessageType::ack};

Message make_message(MessageType type, std::uint64_t txn, std::vector<std::uint8_t> payload) {
  Message m;
  m.type = type;
  m.txn_id = txn;
  m.payload = std::move(payload);
  return m;
}

// Malformed records, each with the reason a receiver must give. source is the real sender.
std::vector<std::pair<std::vector<std::uint8_t>, DecodeStatus>> garbage_records(
    std::uint32_t source, std::uint32_t n_instances) {
  std::vector<std::pair<std::vector<std::uint8_t>, DecodeStatus>> out;
  Message m = make_message(MessageType::vote, 42, std::vector<std::uint8_t>(10, 0xAB));
  m.source = source;
  const std::vector<std::uint8_t> good = encode(m);
  auto bytes = good;
  bytes[0] ^= 0xFF;
  out.emplace_back(bytes, DecodeStatus::bad_magic);
  bytes = good;
  bytes[4] = 2;
  out.emplace_back(bytes, DecodeStatus::bad_version);
  bytes = good;
  bytes[6] = 99;
  out.emplace_back(bytes, DecodeStatus::unknown_type);
  bytes = good;
  bytes[8] = bytes[9] = bytes[10] = 0xFF;  // claims a payload of ~16 MiB
  out.emplace_back(bytes, DecodeStatus::too_long);
  bytes = good;
  bytes.resize(bytes.size() - 5);
  out.emplace_back(bytes, DecodeStatus::truncated);
  bytes = good;
  bytes.insert(bytes.end(), {1, 2, 3});
  out.emplace_back(bytes, DecodeStatus::trailing_bytes);
  Message forged = m;
  forged.source = n_instances + 7;
  out.emplace_back(encode(forged), DecodeStatus::wrong_source);
  out.emplace_back(std::vector<std::uint8_t>{'h', 'e', 'l', 'l', 'o'}, DecodeStatus::truncated);
  Message hello = m;
  hello.type = MessageType::hello;
  hello.payload.clear();
  out.emplace_back(encode(hello), DecodeStatus::protocol);
  return out;
}

void test_message_round_trip() {
  const std::uint64_t txns[] = {0, 1, 0x0123456789ABCDEFull, ~0ull};
  const std::uint32_t sources[] = {0, 7, 0xFFFFFFFFu};
  const std::size_t sizes[] = {0, 1, 23, 24, 1000, 4096 - kMessageHeaderBytes};
  const MessageType types[] = {MessageType::fragment, MessageType::vote, MessageType::decision,
                               MessageType::ack, MessageType::shutdown};
  for (auto type : types) {
    for (auto txn : txns) {
      for (auto source : sources) {
        for (auto size : sizes) {
          Message m = make_message(type, txn, payload_for(source % 5, 1, txn + size));
          m.payload.resize(size, 0x5A);
          m.source = source;
          const auto bytes = encode(m);
          CHECK(bytes.size() == kMessageHeaderBytes + size);
          Message back;
          back.payload.assign(3, 9);  // decode must replace, not append
          CHECK(decode(bytes.data(), bytes.size(), 4096, back) == DecodeStatus::ok);
          CHECK(back.type == type && back.txn_id == txn && back.source == source);
          CHECK(back.payload == m.payload);
        }
      }
    }
  }
  // The layout is the documented one: little-endian fields at fixed offsets.
  Message m = make_message(MessageType::decision, 0x0102030405060708ull, {0xEE});
  m.source = 0x0A0B0C0D;
  const auto b = encode(m);
  CHECK(std::memcmp(b.data(), "ISLD", 4) == 0);
  CHECK(b[4] == 1 && b[5] == 0);
  CHECK(b[6] == static_cast<std::uint8_t>(MessageType::decision) && b[7] == 0);
  CHECK(b[8] == 1 && b[9] == 0 && b[10] == 0 && b[11] == 0);
  CHECK(b[12] == 0x0D && b[15] == 0x0A);
  CHECK(b[16] == 0x08 && b[23] == 0x01);
  CHECK(b[24] == 0xEE);

  CHECK(std::string(message_type_name(MessageType::vote)) == "vote");
  CHECK(parse_message_type("shutdown") == MessageType::shutdown);
  check_throws<std::invalid_argument>([] { parse_message_type("commit"); },
                                      {"commit", "fragment", "shutdown"}, "parse_message_type");
  CHECK(std::string(decode_status_name(DecodeStatus::wrong_source)) == "wrong_source");
  CHECK(std::string(decode_status_name(DecodeStatus::protocol)) == "protocol");
  CHECK(!is_known_message_type(0) && !is_known_message_type(8) && is_known_message_type(7));
}

void test_message_rejections() {
  Message m = make_message(MessageType::fragment, 9, std::vector<std::uint8_t>(100, 1));
  const auto good = encode(m);
  Message out;
  const std::size_t max = kMessageHeaderBytes + 100;
  CHECK(decode(good.data(), good.size(), max, out) == DecodeStatus::ok);
  // Length limit is inclusive: exactly max passes, one byte less of limit rejects.
  CHECK(decode(good.data(), good.size(), max - 1, out) == DecodeStatus::too_long);
  for (std::size_t size = 0; size < kMessageHeaderBytes; ++size) {
    CHECK(decode(good.data(), size, max, out) == DecodeStatus::truncated);
  }
  CHECK(decode(nullptr, 0, max, out) == DecodeStatus::truncated);
  CHECK(decode(good.data(), good.size() - 1, max, out) == DecodeStatus::truncated);
  auto longer = good;
  longer.push_back(0);
  CHECK(decode(longer.data(), longer.size(), max + 10, out) == DecodeStatus::trailing_bytes);
  for (const auto& [bytes, reason] : garbage_records(0, 1)) {
    Message o;
    const DecodeStatus s = decode(bytes.data(), bytes.size(), 1024, o);
    // wrong_source and protocol are a transport's judgement; to decode those are well formed.
    if (reason == DecodeStatus::wrong_source || reason == DecodeStatus::protocol) {
      CHECK(s == DecodeStatus::ok);
    } else {
      CHECK(s == reason);
    }
  }
  // A length near 4 GiB must not wrap past a large limit, nor be read.
  auto huge = good;
  huge[8] = huge[9] = huge[10] = huge[11] = 0xFF;
  CHECK(decode(huge.data(), huge.size(), ~static_cast<std::size_t>(0), out) ==
        DecodeStatus::truncated);
  CHECK(decode(huge.data(), huge.size(), 0xFFFFFFFFull, out) == DecodeStatus::too_long);
  // The checks go in wire order: with everything wrong, magic is reported.
  auto all_bad = good;
  all_bad[0] = 0;
  all_bad[4] = 9;
  all_bad[6] = 99;
  CHECK(decode(all_bad.data(), all_bad.size(), max, out) == DecodeStatus::bad_magic);

  // Random corruptions of valid messages in exactly-sized buffers: decode always returns a
  // reason, and accepts only records whose size matches their header.
  std::mt19937_64 rng(7);
  std::size_t accepted = 0;
  for (int i = 0; i < 100000; ++i) {
    Message r = make_message(kCycle[i % 4], rng(), std::vector<std::uint8_t>(rng() % 64, 3));
    auto bytes = encode(r);
    const int flips = static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<std::uint8_t>(rng());
    bytes.resize(rng() % (bytes.size() + 8));
    auto exact = std::make_unique<std::uint8_t[]>(bytes.size() + 1);
    std::memcpy(exact.get(), bytes.data(), bytes.size());
    Message o;
    if (decode(exact.get(), bytes.size(), 128, o) == DecodeStatus::ok) {
      ++accepted;
      CHECK(bytes.size() == kMessageHeaderBytes + o.payload.size());
    }
  }
  CHECK(accepted > 0);
}

struct AlignedRegion {
  explicit AlignedRegion(std::size_t bytes) : size(bytes) {
    base = static_cast<std::uint8_t*>(std::aligned_alloc(kRingLineBytes, bytes));
  }
  ~AlignedRegion() { std::free(base); }
  std::uint8_t* base;
  std::size_t size;
};

std::size_t record_length(std::uint64_t i) { return (i * 2654435761u >> 7) % 301; }

std::uint8_t record_byte(std::uint64_t i, std::size_t k) {
  return static_cast<std::uint8_t>((i * 0x9E3779B97F4A7C15ull + k * 40503) >> 29);
}

void test_ring_two_threads() {
  constexpr std::uint64_t kRecords = 1000000;
  const std::size_t capacity = 4096;
  AlignedRegion region(SpscRing::region_bytes(capacity));
  SpscRing producer = SpscRing::create(region.base, capacity);
  std::string error;
  SpscRing consumer = SpscRing::attach(region.base, region.size, error);
  CHECK(consumer.valid());
  std::thread writer([&] {
    std::vector<std::uint8_t> buf(400);
    for (std::uint64_t i = 0; i < kRecords; ++i) {
      const std::size_t len = record_length(i);
      for (std::size_t k = 0; k < len; ++k) buf[k] = record_byte(i, k);
      // Two parts, as the transport pushes header and payload, split at an odd place.
      const std::size_t cut = len / 3;
      Backoff backoff;
      while (!producer.try_push(buf.data(), cut, buf.data() + cut, len - cut)) backoff.pause();
    }
  });
  std::vector<std::uint8_t> got(400);
  std::uint64_t bad_length = 0, bad_content = 0, corrupt = 0;
  for (std::uint64_t i = 0; i < kRecords; ++i) {
    std::size_t length = 0;
    RingPeek p;
    Backoff backoff;
    while ((p = consumer.peek(length)) == RingPeek::empty) backoff.pause();
    if (p == RingPeek::corrupt) {
      ++corrupt;
      break;
    }
    if (length != record_length(i)) {
      ++bad_length;
      break;
    }
    consumer.read(0, got.data(), length);
    for (std::size_t k = 0; k < length; ++k) {
      if (got[k] != record_byte(i, k)) {
        ++bad_content;
        break;
      }
    }
    consumer.pop();
  }
  writer.join();
  CHECK(corrupt == 0);
  CHECK(bad_length == 0);
  CHECK(bad_content == 0);
  std::size_t length = 0;
  CHECK(consumer.peek(length) == RingPeek::empty);
}

// Ping-pong over two rings: one record in flight, so the consumer spins on an empty ring
// and checks the producer's tail while the producer is between storing a record's stamp and
// its tail. Every record must arrive exactly once, and no healthy ring is ever called corrupt.
void test_ring_ping_pong() {
  constexpr std::uint64_t kRoundTrips = 300000;
  const std::size_t capacity = 256;
  AlignedRegion there(SpscRing::region_bytes(capacity));
  AlignedRegion back(SpscRing::region_bytes(capacity));
  SpscRing there_writer = SpscRing::create(there.base, capacity);
  SpscRing back_writer = SpscRing::create(back.base, capacity);
  std::string error;
  SpscRing there_reader = SpscRing::attach(there.base, there.size, error);
  SpscRing back_reader = SpscRing::attach(back.base, back.size, error);
  std::atomic<bool> echo_failed{false};
  std::thread echo([&] {
    std::uint8_t buf[64];
    for (std::uint64_t i = 0; i < kRoundTrips; ++i) {
      std::size_t length = 0;
      RingPeek p;
      Backoff backoff;
      while ((p = there_reader.peek(length)) == RingPeek::empty) backoff.pause();
      std::uint64_t value = ~0ull;
      if (p == RingPeek::record && length == 8 + i % 40) {
        there_reader.read(0, buf, length);
        std::memcpy(&value, buf, 8);
      }
      if (value != i) {
        echo_failed = true;  // the main thread stops waiting for an echo that will not come
        return;
      }
      there_reader.pop();
      while (!back_writer.try_push(buf, length)) backoff.pause();
    }
  });
  std::uint64_t errors = 0;
  std::uint8_t buf[64] = {};
  for (std::uint64_t i = 0; i < kRoundTrips && errors == 0; ++i) {
    std::memcpy(buf, &i, 8);
    Backoff backoff;
    while (!there_writer.try_push(buf, 8 + i % 40)) backoff.pause();
    std::size_t length = 0;
    RingPeek p;
    while ((p = back_reader.peek(length)) == RingPeek::empty && !echo_failed) backoff.pause();
    if (echo_failed) {
      ++errors;
      std::fprintf(stderr, "ring ping-pong: the echo side got a wrong record\n");
      break;
    }
    std::uint64_t value = ~0ull;
    if (p == RingPeek::record && length == 8 + i % 40) {
      back_reader.read(0, buf, 8);
      std::memcpy(&value, buf, 8);
    }
    if (value != i) {
      ++errors;
      std::fprintf(stderr, "ring ping-pong: round trip %llu got %s %llu\n",
                   static_cast<unsigned long long>(i), p == RingPeek::record ? "record" : "corrupt",
                   static_cast<unsigned long long>(value));
      break;
    }
    back_reader.pop();
  }
  if (errors != 0) {
    // Unblock the echo thread, which waits for a record that will not come.
    const std::uint8_t stop[8 + 39] = {};
    while (there_writer.try_push(stop, sizeof stop)) {
    }
  }
  echo.join();
  CHECK(errors == 0);
  CHECK(!echo_failed);
}

// One thread, lockstep: after the consumer has taken every record, peek must say empty, even
// though the word it polls holds stale bytes (old stamps partly overwritten by newer payload
// and padding). Deterministic, and it covers millions of stale words in well under a second.
void test_ring_never_reads_ahead() {
  const std::size_t capacity = 256;
  std::uint64_t early = 0, wrong = 0;
  // Several rings, so several salts; record lengths vary so stale words take many shapes.
  for (int round = 0; round < 32 && early + wrong == 0; ++round) {
    AlignedRegion region(SpscRing::region_bytes(capacity));
    std::memset(region.base, 0, region.size);
    SpscRing writer = SpscRing::create(region.base, capacity);
    std::string error;
    SpscRing reader = SpscRing::attach(region.base, region.size, error);
    std::uint8_t buf[64] = {};
    for (std::uint64_t i = 0; i < 1000000; ++i) {
      std::size_t length = 0;
      if (reader.peek(length) != RingPeek::empty) ++early;
      const std::size_t size = 8 + (round % 2 == 0 ? i % 40 : (i * 2654435761u >> 11) % 40);
      std::memcpy(buf, &i, 8);
      CHECK(writer.try_push(buf, size));
      std::uint64_t value = ~0ull;
      if (reader.peek(length) == RingPeek::record && length == size) {
        reader.read(0, &value, 8);
        reader.pop();
      }
      if (value != i) ++wrong;
      if (early + wrong > 0) break;
    }
  }
  CHECK(early == 0);
  CHECK(wrong == 0);
}

void test_ring_edges() {
  const std::size_t capacity = 256;
  AlignedRegion region(SpscRing::region_bytes(capacity));
  SpscRing ring = SpscRing::create(region.base, capacity);
  std::string error;
  SpscRing reader = SpscRing::attach(region.base, region.size, error);
  CHECK(reader.valid());
  CHECK(!SpscRing::attach(region.base, region.size - 1, error).valid());
  CHECK(ring.max_length() == capacity - SpscRing::kFrameBytes);
  std::vector<std::uint8_t> big(capacity, 0x77);
  CHECK(!ring.try_push(big.data(), ring.max_length() + 1));
  CHECK(ring.try_push(big.data(), ring.max_length()));  // the largest record fits when empty
  CHECK(!ring.try_push(big.data(), 0));                 // and then nothing else does
  std::size_t length = 0;
  CHECK(reader.peek(length) == RingPeek::record && length == ring.max_length());
  reader.pop();
  // Records that straddle the end of the data area come back whole.
  for (int round = 0; round < 50; ++round) {
    std::vector<std::uint8_t> rec(37 + round);
    for (std::size_t k = 0; k < rec.size(); ++k) rec[k] = static_cast<std::uint8_t>(round + k);
    CHECK(ring.try_push(rec.data(), rec.size()));
    std::vector<std::uint8_t> back(rec.size());
    CHECK(reader.peek(length) == RingPeek::record && length == rec.size());
    reader.read(0, back.data(), back.size());
    CHECK(back == rec);
    reader.pop();
  }
  // A corrupted frame is reported, discard_all resynchronises, and later records are fine.
  const std::uint8_t a[5] = {1, 2, 3, 4, 5};
  CHECK(ring.try_push(a, 5));
  CHECK(ring.try_push(a, 5));
  const std::uint64_t second = ring.control().tail.load() - SpscRing::record_bytes(5);
  std::uint8_t* frame = region.base + SpscRing::kDataOffset + (second & (capacity - 1));
  frame[0] = 200;  // length no longer matches its complement
  CHECK(reader.peek(length) == RingPeek::record && length == 5);
  reader.pop();
  CHECK(reader.peek(length) == RingPeek::corrupt);
  reader.discard_all();
  CHECK(reader.peek(length) == RingPeek::empty);
  CHECK(ring.try_push(a, 3));
  std::uint8_t back[3];
  CHECK(reader.peek(length) == RingPeek::record && length == 3);
  reader.read(0, back, 3);
  CHECK(std::memcmp(back, a, 3) == 0);
  reader.pop();
  // A consistent frame longer than the ring can hold is corrupt.
  CHECK(ring.try_push(a, 5));
  const std::uint64_t third = ring.control().tail.load() - SpscRing::record_bytes(5);
  std::uint32_t lie[2] = {1000, ~1000u};
  std::memcpy(region.base + SpscRing::kDataOffset + (third & (capacity - 1)), lie, 8);
  CHECK(reader.peek(length) == RingPeek::corrupt);
  reader.discard_all();
  CHECK(reader.peek(length) == RingPeek::empty);
  // A record whose stamp is wrong (a broken producer, or bytes written over it) is found out
  // through the tail within kTailCheckInterval peeks, and discarded.
  CHECK(ring.try_push(a, 5));
  const std::uint64_t fourth = ring.control().tail.load() - SpscRing::record_bytes(5);
  region.base[SpscRing::kDataOffset + ((fourth + 8) & (capacity - 1))] ^= 1;
  RingPeek p = RingPeek::empty;
  std::uint32_t peeks = 0;
  while (p == RingPeek::empty && peeks++ < 10 * SpscRing::kTailCheckInterval) p = reader.peek(length);
  CHECK(p == RingPeek::corrupt);
  CHECK(peeks <= SpscRing::kTailCheckInterval);
  reader.discard_all();
  for (std::uint32_t i = 0; i < 2 * SpscRing::kTailCheckInterval; ++i) {
    CHECK(reader.peek(length) == RingPeek::empty);  // an idle ring is never called corrupt
  }
  CHECK(ring.try_push(a, 4));
  CHECK(reader.peek(length) == RingPeek::record && length == 4);
  reader.pop();
  // A tail more than a ring ahead of what was read (the control block overwritten) is no place
  // to resynchronise to: the consumer would skip everything written next. tail_impossible tells
  // it from a broken record (the transport then names the ring as malformed).
  CHECK(!reader.tail_impossible());
  const std::uint64_t honest_tail = ring.control().tail.load();
  ring.control().tail.store(honest_tail + 4 * capacity);
  p = RingPeek::empty;
  peeks = 0;
  while (p == RingPeek::empty && peeks++ < 10 * SpscRing::kTailCheckInterval) p = reader.peek(length);
  CHECK(p == RingPeek::corrupt);
  CHECK(reader.tail_impossible());
  ring.control().tail.store(honest_tail);
  // A head ahead of the producer's tail would keep the ring full for ever: head_impossible.
  CHECK(!ring.head_impossible());
  ring.control().head.store(ring.own_tail() + 8 * capacity);
  while (ring.try_push(a, 5)) {
  }
  CHECK(ring.head_impossible());
  // Garbage in the control block and data area: every peek returns, whatever it says, and
  // reads stay inside the region (masked), which the sanitizer build checks.
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) {
    region.base[SpscRing::kDataOffset + rng() % capacity] = static_cast<std::uint8_t>(rng());
    if (i % 97 == 0) ring.control().tail.store(rng());
    if (reader.peek(length) == RingPeek::record) {
      std::vector<std::uint8_t> sink(length);
      reader.read(0, sink.data(), length);
      reader.pop();
    } else if (i % 13 == 0) {
      reader.discard_all();
    }
  }
  // An honest record after a resynchronisation comes through.
  ring.control().tail.store(ring.control().head.load());
  SpscRing fresh_writer = SpscRing::attach(region.base, region.size, error);
  SpscRing fresh_reader = SpscRing::attach(region.base, region.size, error);
  CHECK(fresh_writer.try_push(a, 5));
  CHECK(fresh_reader.peek(length) == RingPeek::record && length == 5);
}

void test_config_and_registry() {
  const std::string dir = make_temp_dir();
  auto names = transport_names();
  CHECK(names.size() == 2 && names[0] == "unix" && names[1] == "shm");
  TransportConfig c = config_for(dir, 0, 1);
  check_throws<std::invalid_argument>([&] { make_transport("tcp", c); }, {"tcp", "unix", "shm"},
                                      "unknown transport");
  auto bad = c;
  bad.instance_id = 3;
  check_throws<std::invalid_argument>([&] { make_transport("shm", bad); }, {"instance_id"},
                                      "instance_id");
  bad = c;
  bad.ring_bytes = 5000;
  check_throws<std::invalid_argument>([&] { make_transport("unix", bad); },
                                      {"ring_bytes", "power of two"}, "ring_bytes");
  bad = c;
  bad.max_message_bytes = 8192;
  check_throws<std::invalid_argument>([&] { make_transport("shm", bad); }, {"ring_bytes"},
                                      "ring too small");
  bad = c;
  bad.max_message_bytes = 10;
  check_throws<std::invalid_argument>([&] { make_transport("shm", bad); },
                                      {"max_message_bytes"}, "max too small");
  bad = c;
  bad.directory = "";
  check_throws<std::invalid_argument>([&] { make_transport("shm", bad); }, {"directory"},
                                      "no directory");
  // A directory others can read is refused, not silently used.
  const std::string open_dir = dir + "/open";
  mkdir(open_dir.c_str(), 0700);
  chmod(open_dir.c_str(), 0755);
  bad = c;
  bad.directory = open_dir;
  for (const char* name : {"unix", "shm"}) {
    check_throws<std::invalid_argument>([&] { make_transport(name, bad); },
                                        {open_dir, "0755", "owner-only"}, "open directory");
  }
  rmdir(open_dir.c_str());
  // A missing directory is created owner-only.
  const std::string fresh = dir + "/fresh";
  {
    auto t = make_transport("unix", config_for(fresh, 0, 1));
    CHECK(mode_of(fresh) == 0700);
    CHECK(mode_of(fresh + "/inst-0.sock") == 0600);
    Message m;
    check_throws<std::invalid_argument>([&] { t->send(0, m); }, {"not a peer"}, "send to self");
  }
  CHECK(list_dir(fresh).empty());
  rmdir(fresh.c_str());
  // Ring files off tmpfs work but are written back to disk: that is said, not hidden.
  char disk_template[] = "/tmp/islands-transport-XXXXXX";
  const std::string disk_dir = mkdtemp(disk_template);
  {
    auto t = make_transport("shm", config_for(disk_dir, 0, 1));
    const bool in_memory = RunDirectory(disk_dir).in_memory();
    CHECK(t->warnings().empty() == in_memory);
    if (!in_memory) CHECK(t->warnings()[0].find("not tmpfs") != std::string::npos);
    auto u = make_transport("unix", config_for(disk_dir, 0, 1));
    CHECK(u->warnings().empty());
  }
  remove_dir(disk_dir);
  remove_dir(dir);
}

void test_attach_timeout() {
  for (const char* name : {"unix", "shm"}) {
    const std::string dir = make_temp_dir();
    TransportConfig c = config_for(dir, 0, 2);
    c.attach_timeout_ms = 200;
    const std::string peer_path = dir + (std::string(name) == "unix" ? "/inst-1.sock" : "/ring-0-to-1");
    check_throws<std::runtime_error>([&] { make_transport(name, c); },
                                     {"peer instance 1", peer_path}, "attach timeout");
    // A failed set-up leaves nothing behind.
    CHECK(list_dir(dir).empty());
    remove_dir(dir);
  }
}

// Two endpoints of one mesh in this process: set-up runs in two threads because each waits
// for the other; afterwards this thread uses both, one call at a time.
std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>> make_pair_in_process(
    const std::string& name, const std::string& dir) {
  std::unique_ptr<Transport> zero;
  std::exception_ptr failure;
  std::thread other([&] {
    try {
      zero = make_transport(name, config_for(dir, 0, 2));
    } catch (...) {
      failure = std::current_exception();
    }
  });
  auto one = make_transport(name, config_for(dir, 1, 2));
  other.join();
  if (failure) std::rethrow_exception(failure);
  return {std::move(zero), std::move(one)};
}

bool poll_until(Transport& t, Message& out, int timeout_ms = 5000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < end) {
    if (t.poll(out)) return true;
  }
  return false;
}

// TransportConfig::strict (the endpoints of one deployment): a malformed record is an error
// naming the channel and the reason, not a dropped record; a well-formed one still passes.
void test_strict_rejects(const std::string& name) {
  const std::string dir = make_temp_dir();
  {
    TransportConfig zero = config_for(dir, 0, 2), one = config_for(dir, 1, 2);
    zero.strict = one.strict = true;
    std::unique_ptr<Transport> a;
    std::thread other([&] { a = make_transport(name, zero); });
    auto b = make_transport(name, one);
    other.join();
    Message in;
    CHECK(b->send(0, make_message(MessageType::ack, 5, {1})));
    CHECK(poll_until(*a, in) && in.txn_id == 5);
    const std::uint8_t garbage[] = {'n', 'o', ' ', 'm', 'e', 's', 's', 'a', 'g', 'e'};
    CHECK(b->send_raw(0, garbage, sizeof garbage));
    const std::string channel = name == "shm" ? "ring " + dir + "/" + ShmRingTransport::ring_name(1, 0) +
                                                    " from peer instance 1"
                                              : "the socket from peer instance 1";
    check_throws<std::runtime_error>(
        [&] {
          for (int i = 0; i < 1000000; ++i) a->poll(in);
        },
        {channel, "is malformed"}, "strict endpoint");
    CHECK(a->stats().malformed == 1);
  }
  remove_dir(dir);
}

void test_pair_in_process(const std::string& name) {
  const std::string dir = make_temp_dir();
  {
    auto [a, b] = make_pair_in_process(name, dir);
    CHECK(a->instance_id() == 0 && b->instance_id() == 1 && a->n_instances() == 2);
    CHECK(std::string(a->name()) == name);
    Message in;
    CHECK(!b->poll(in));
    // A second endpoint claiming instance 0 is refused and removes none of the first's files.
    const auto files = list_dir(dir);
    check_throws<std::runtime_error>([&] { make_transport(name, config_for(dir, 0, 2)); },
                                     {"already exists"}, "duplicate instance");
    CHECK(list_dir(dir) == files);
    check_throws<std::invalid_argument>([&] { a->send(0, Message()); }, {"not a peer"}, "self");
    check_throws<std::invalid_argument>([&] { a->send(2, Message()); }, {"not a peer"}, "range");
    check_throws<std::invalid_argument>(
        [&] { a->send(1, make_message(MessageType::fragment, 1, std::vector<std::uint8_t>(1001))); },
        {"max_message_bytes"}, "oversize send");
    check_throws<std::invalid_argument>([&] { a->send(1, make_message(MessageType::hello, 1, {})); },
                                        {"hello"}, "hello send");
    // Fill the channel: send refuses politely, nothing half-sent, and all arrive in order.
    std::uint64_t sent = 0;
    while (a->send(1, make_message(MessageType::fragment, sent, payload_for(0, 1, sent)))) ++sent;
    CHECK(sent > 0);
    CHECK(a->stats().send_full == 1);
    std::uint64_t received = 0;
    while (b->poll(in)) {
      CHECK(in.source == 0 && in.txn_id == received && in.payload == payload_for(0, 1, received));
      ++received;
    }
    CHECK(received == sent);
    CHECK(a->send(1, make_message(MessageType::vote, 77, {1, 2, 3})));
    CHECK(poll_until(*b, in) && in.txn_id == 77 && in.type == MessageType::vote);
    CHECK(b->send(0, make_message(MessageType::ack, 78, {})));
    CHECK(poll_until(*a, in) && in.txn_id == 78 && in.source == 1 && in.payload.empty());

    if (name == "shm") {
      // Corrupt the frame of a record in place: bad_frame, and the next record still arrives.
      const std::string path = dir + "/ring-0-to-1";
      const int fd = open(path.c_str(), O_RDWR);
      CHECK(fd >= 0);
      const std::size_t bytes = SpscRing::region_bytes(4096);
      auto* base = static_cast<std::uint8_t*>(
          mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
      close(fd);
      auto* control = reinterpret_cast<SpscRingControl*>(base);
      const std::uint64_t at = control->tail.load();
      CHECK(a->send(1, make_message(MessageType::vote, 5, {9, 9})));
      base[SpscRing::kDataOffset + (at & 4095) + 4] ^= 0x10;
      CHECK(!b->poll(in));
      CHECK(b->stats().malformed_by_reason[static_cast<int>(DecodeStatus::bad_frame)] == 1);
      CHECK(a->send(1, make_message(MessageType::vote, 6, {8})));
      CHECK(poll_until(*b, in) && in.txn_id == 6 && in.payload == std::vector<std::uint8_t>{8});
      munmap(base, bytes);
    } else {
      // Strangers on the socket: an oversized record, a hello claiming a peer already connected,
      // and bytes that are no message at all. Each is counted and its connection closed.
      auto stranger = [&](const std::vector<std::uint8_t>& record) {
        const int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const std::string path = dir + "/inst-0.sock";
        std::strcpy(address.sun_path, path.c_str());
        CHECK(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        CHECK(send(fd, record.data(), record.size(), 0) == static_cast<ssize_t>(record.size()));
        return fd;
      };
      std::vector<std::uint8_t> oversized(3000, 1);
      Message hello = make_message(MessageType::hello, 0, {});
      hello.source = 1;
      const int s1 = stranger(oversized);
      const int s2 = stranger(encode(hello));
      const int s3 = stranger({'G', 'E', 'T', ' ', '/'});
      const auto& st = a->stats();
      const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (st.malformed < 3 && std::chrono::steady_clock::now() < end) a->poll(in);
      CHECK(st.malformed == 3);
      CHECK(st.malformed_by_reason[static_cast<int>(DecodeStatus::too_long)] == 1);
      CHECK(st.malformed_by_reason[static_cast<int>(DecodeStatus::protocol)] == 1);
      CHECK(st.malformed_by_reason[static_cast<int>(DecodeStatus::truncated)] == 1);
      // The stranger's connection was closed by the endpoint.
      char byte = 0;
      for (int fd : {s1, s2, s3}) {
        CHECK(send(fd, &byte, 1, MSG_NOSIGNAL) < 0);
        close(fd);
      }
      // The real peer is unaffected.
      CHECK(b->send(0, make_message(MessageType::ack, 79, {4})));
      CHECK(poll_until(*a, in) && in.txn_id == 79);
    }

    // Sending to a peer that closed is an error, not a silent loss or a SIGPIPE.
    b.reset();
    check_throws<std::runtime_error>(
        [&] {
          for (int i = 0; i < 10000; ++i) a->send(1, make_message(MessageType::ack, 1, {}));
        },
        {"peer instance 1"}, "send to closed peer");
  }
  CHECK(list_dir(dir).empty());
  remove_dir(dir);
}

// One instance of a mesh run in a child process: sends kMessages to every peer with garbage
// records mixed in, then a shutdown; receives and verifies everything its peers send.
int mesh_member(const std::string& name, const std::string& dir, std::uint32_t id,
                std::uint32_t n, std::uint64_t per_peer, std::uint64_t garbage_every,
                std::atomic<std::uint32_t>* barrier) {
  g_failures = 0;
  auto t = make_transport(name, config_for(dir, id, n));
  // Owner-only: the directory and what this instance created in it.
  CHECK(mode_of(dir) == 0700);
  if (name == "unix") {
    CHECK(mode_of(dir + "/inst-" + std::to_string(id) + ".sock") == 0600);
  } else {
    for (std::uint32_t j = 0; j < n; ++j) {
      if (j != id) CHECK(mode_of(dir + "/" + ShmRingTransport::ring_name(j, id)) == 0600);
    }
  }
  const auto garbage = garbage_records(id, n);
  // Every peer gets the same plan: good messages, a garbage record after every garbage_every
  // of them (cycling through the kinds), then a shutdown.
  struct Plan {
    std::uint64_t next_good = 0;
    std::uint64_t garbage_sent = 0;
    bool garbage_due = false;
    bool shutdown_sent = false;
  };
  std::vector<Plan> plans(n);
  std::vector<std::uint64_t> expected_seq(n, 0);
  std::vector<bool> shutdown_seen(n, false);
  std::size_t shutdowns = 0;
  std::size_t plans_done = 0;
  std::uint64_t bad_order = 0, bad_content = 0;
  // Sends to peer j until max_burst messages went out, a send found the buffer full, or the
  // plan is done; true when at least one message went out.
  const auto send_some = [&](std::uint32_t j, std::size_t max_burst) {
    Plan& p = plans[j];
    bool sent = false;
    for (std::size_t burst = 0; burst < max_burst && !p.shutdown_sent; ++burst) {
      bool ok;
      if (p.garbage_due) {
        const auto& g = garbage[p.garbage_sent % garbage.size()].first;
        ok = t->send_raw(j, g.data(), g.size());
        if (ok) {
          ++p.garbage_sent;
          p.garbage_due = false;
        }
      } else if (p.next_good < per_peer) {
        const std::uint64_t seq = p.next_good;
        ok = t->send(j, make_message(kCycle[seq % 4], seq, payload_for(id, j, seq)));
        if (ok) {
          ++p.next_good;
          p.garbage_due = p.next_good % garbage_every == 0;
        }
      } else {
        ok = t->send(j, make_message(MessageType::shutdown, per_peer, {}));
        if (ok) {
          p.shutdown_sent = true;
          ++plans_done;
        }
      }
      if (!ok) break;
      sent = true;
    }
    return sent;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(100);
  // First every member fills its buffers to every peer while nobody receives (the barrier holds
  // them until all have), so the full path is exercised whatever the scheduling.
  for (std::uint32_t j = 0; j < n; ++j) {
    if (j != id) send_some(j, SIZE_MAX);
  }
  barrier->fetch_add(1);
  while (barrier->load() < n) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "%s instance %u: timed out at the fill barrier\n", name.c_str(), id);
      return 3;
    }
    sched_yield();
  }
  Message in;
  while (plans_done < n - 1 || shutdowns < n - 1) {
    bool progress = false;
    for (std::uint32_t j = 0; j < n; ++j) {
      if (j != id && !plans[j].shutdown_sent && send_some(j, 8)) progress = true;
    }
    for (int k = 0; k < 32 && t->poll(in); ++k) {
      progress = true;
      const std::uint32_t src = in.source;
      if (src >= n || src == id) {
        ++bad_order;
        continue;
      }
      if (in.type == MessageType::shutdown) {
        if (expected_seq[src] != per_peer || shutdown_seen[src]) ++bad_order;
        shutdown_seen[src] = true;
        ++shutdowns;
        continue;
      }
      const std::uint64_t seq = expected_seq[src]++;
      if (in.txn_id != seq || in.type != kCycle[seq % 4]) ++bad_order;
      if (in.payload != payload_for(src, id, seq)) ++bad_content;
    }
    if (!progress) sched_yield();  // more processes than cores: let the others run
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "%s instance %u: timed out (sent plans %zu/%u, shutdowns %zu)\n",
                   name.c_str(), id, plans_done, n - 1, shutdowns);
      return 3;
    }
  }
  CHECK(bad_order == 0);
  CHECK(bad_content == 0);
  const TransportStats& st = t->stats();
  const std::uint64_t garbage_per_peer = per_peer / garbage_every;
  CHECK(st.messages_received == (n - 1) * (per_peer + 1));
  CHECK(st.messages_sent == (n - 1) * (per_peer + 1));
  CHECK(st.raw_records_sent == (n - 1) * garbage_per_peer);
  CHECK(st.malformed == (n - 1) * garbage_per_peer);
  // Every peer ran the same cycle of garbage kinds: expect the same reasons, kind by kind.
  std::vector<std::uint64_t> expected(kDecodeStatusCount, 0);
  for (std::uint64_t g = 0; g < garbage_per_peer; ++g) {
    expected[static_cast<std::size_t>(garbage[g % garbage.size()].second)] += n - 1;
  }
  for (std::size_t r = 0; r < kDecodeStatusCount; ++r) {
    if (st.malformed_by_reason[r] != expected[r]) {
      std::fprintf(stderr, "%s instance %u: reason %s counted %llu, expected %llu\n", name.c_str(),
                   id, decode_status_name(static_cast<DecodeStatus>(r)),
                   static_cast<unsigned long long>(st.malformed_by_reason[r]),
                   static_cast<unsigned long long>(expected[r]));
      ++g_failures;
    }
  }
  CHECK(st.send_full > 0);  // the fill phase found the small buffers full
  t.reset();
  return g_failures == 0 ? 0 : 1;
}

// Forks n instance processes, waits for all (killing them all on a timeout), and checks that
// each passed and that the run directory is empty afterwards.
void test_mesh(const std::string& name, std::uint32_t n, std::uint64_t per_peer) {
  const std::string dir = make_temp_dir();
  // A barrier word shared with the children (see mesh_member's fill phase).
  void* shared = mmap(nullptr, sizeof(std::atomic<std::uint32_t>), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(shared != MAP_FAILED);
  auto* barrier = new (shared) std::atomic<std::uint32_t>(0);
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<pid_t> children;
  for (std::uint32_t id = 0; id < n; ++id) {
    const pid_t pid = fork();
    if (pid == 0) {
      int code = 4;
      try {
        code = mesh_member(name, dir, id, n, per_peer, 97, barrier);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s instance %u: %s\n", name.c_str(), id, e.what());
      }
      std::fflush(stderr);
      _exit(code);
    }
    CHECK(pid > 0);
    children.push_back(pid);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::size_t finished = 0;
  std::vector<bool> done(n, false);
  while (finished < n) {
    for (std::uint32_t id = 0; id < n; ++id) {
      int status = 0;
      if (done[id] || waitpid(children[id], &status, WNOHANG) != children[id]) continue;
      done[id] = true;
      ++finished;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        ++g_failures;
        std::fprintf(stderr, "%s mesh of %u: instance %u failed (status %d)\n", name.c_str(), n,
                     id, status);
      }
    }
    if (std::chrono::steady_clock::now() > deadline) {
      for (std::uint32_t id = 0; id < n; ++id) {
        if (!done[id]) kill(children[id], SIGKILL);
      }
      for (std::uint32_t id = 0; id < n; ++id) {
        if (!done[id]) waitpid(children[id], nullptr, 0);
      }
      ++g_failures;
      std::fprintf(stderr, "%s mesh of %u: timed out\n", name.c_str(), n);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto left = list_dir(dir);
  CHECK(left.empty());
  for (const auto& f : left) std::fprintf(stderr, "left behind: %s/%s\n", dir.c_str(), f.c_str());
  remove_dir(dir);
  munmap(shared, sizeof(std::atomic<std::uint32_t>));
}

void test_ping_pong(const std::string& name) {
  const std::string dir = make_temp_dir();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    int code = 1;
    try {
      auto t = make_transport(name, config_for(dir, 1, 2));
      ping_pong(*t, 0, false, 0, 0, 20000);
      code = 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ping_pong responder: %s\n", e.what());
    }
    _exit(code);
  }
  {
    auto t = make_transport(name, config_for(dir, 0, 2));
    const auto samples = ping_pong(*t, 1, true, 5000, 100, 20000);
    CHECK(samples.size() == 5000);
    CHECK(t->stats().messages_received == 5000);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(list_dir(dir).empty());
  remove_dir(dir);
}

}  // namespace

// With arguments, runs only the cases named (e.g. `test_transport unix_mesh_2 shm_mesh_3`).
int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  const std::vector<islands_test::TestCase> cases = {
      {"message_round_trip", test_message_round_trip},
      {"message_rejections", test_message_rejections},
      {"ring_two_threads", test_ring_two_threads},
      {"ring_ping_pong", test_ring_ping_pong},
      {"ring_never_reads_ahead", test_ring_never_reads_ahead},
      {"ring_edges", test_ring_edges},
      {"config_and_registry", test_config_and_registry},
      {"attach_timeout", test_attach_timeout},
      {"unix_pair", [] { test_pair_in_process("unix"); }},
      {"shm_pair", [] { test_pair_in_process("shm"); }},
      {"unix_strict", [] { test_strict_rejects("unix"); }},
      {"shm_strict", [] { test_strict_rejects("shm"); }},
      {"unix_mesh_2", [] { test_mesh("unix", 2, 20000); }},
      {"unix_mesh_3", [] { test_mesh("unix", 3, 6000); }},
      {"shm_mesh_2", [] { test_mesh("shm", 2, 20000); }},
      {"shm_mesh_3", [] { test_mesh("shm", 3, 6000); }},
      {"unix_ping_pong", [] { test_ping_pong("unix"); }},
      {"shm_ping_pong", [] { test_ping_pong("shm"); }},
  };
  islands_test::run_cases(cases, argc, argv, g_failures);
  std::printf("%d failure(s)\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}

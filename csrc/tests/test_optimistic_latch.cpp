// The optimistic version latch with real threads: writers rewrite a multi-word record under the
// exclusive latch while optimistic readers read it and validate. A read that validates must
// never see a torn record (words from two different writes); shared holders never see one at
// all; and writers exclude each other (a read-modify-write of the record loses no update).
// The record's words are relaxed atomics, as the words an optimistic reader may race with must
// be, so that TSan (make test-tsan) checks the latch's ordering rather than flagging the
// races a seqlock permits by design.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/common/optimistic_latch.hpp"
#include "islands/common/spin_latch.hpp"

using namespace islands;

namespace {

constexpr int kWords = 8;
constexpr int kWriters = 2;
constexpr int kOptimisticReaders = 2;
constexpr std::uint64_t kWritesPerWriter = 5000;
constexpr std::uint64_t kReadsPerReader = 10000;

// Word i of the record holding value v: every word differs, so a mix of two writes shows.
constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
constexpr std::uint64_t kMulInverse = 0xF1DE83E19937733Dull;  // kMul * kMulInverse == 1 (mod 2^64)
std::uint64_t word_of(std::uint64_t v, int i) { return v * kMul + static_cast<std::uint64_t>(i); }

struct Record {
  OptimisticLatch latch;
  std::atomic<std::uint64_t> words[kWords];
};

// The value the words of `seen` encode, or ~0 when they do not all belong to one write.
std::uint64_t decode(const std::uint64_t (&seen)[kWords]) {
  const std::uint64_t v = seen[0] * kMulInverse;
  for (int i = 0; i < kWords; ++i) {
    if (seen[i] != word_of(v, i)) return ~std::uint64_t{0};
  }
  return v;
}

// The value the record holds, read without validation (by a writer, or once all threads end).
std::uint64_t decode_words(const Record& record) {
  std::uint64_t seen[kWords];
  for (int i = 0; i < kWords; ++i) seen[i] = record.words[i].load(std::memory_order_relaxed);
  return decode(seen);
}

}  // namespace

int main() {
  CHECK(kMul * kMulInverse == 1);  // what decode assumes

  Record record;
  for (int i = 0; i < kWords; ++i) record.words[i].store(word_of(0, i), std::memory_order_relaxed);

  std::atomic<std::uint64_t> torn_validated{0}, validated{0}, invalidated{0};
  std::atomic<std::uint64_t> torn_shared{0}, backwards{0};
  std::atomic<bool> writers_done{false};
  std::atomic<int> ready{0};
  // All threads begin together, so that readers overlap writers.
  auto start_together = [&] {
    ready.fetch_add(1);
    while (ready.load() < kWriters + kOptimisticReaders + 1) std::this_thread::yield();
  };
  std::vector<std::thread> threads;

  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&] {
      start_together();
      for (std::uint64_t n = 0; n < kWritesPerWriter; ++n) {
        record.latch.lock();
        // Read-modify-write: a second writer inside would make the final value fall short.
        const std::uint64_t v = decode_words(record) + 1;
        for (int i = 0; i < kWords; ++i) {
          record.words[i].store(word_of(v, i), std::memory_order_relaxed);
          cpu_relax();  // a wider window for a reader to land in the middle of the write
        }
        record.latch.unlock();
        if (n % 2 == 0) std::this_thread::yield();  // keep pace with the readers
      }
    });
  }
  for (int r = 0; r < kOptimisticReaders; ++r) {
    threads.emplace_back([&] {
      std::uint64_t last = 0;
      start_together();
      for (std::uint64_t n = 0; n < kReadsPerReader; ++n) {
        const std::uint64_t version = record.latch.read_begin();
        std::uint64_t seen[kWords];
        for (int i = 0; i < kWords; ++i) {
          seen[i] = record.words[i].load(std::memory_order_relaxed);
          // Now and then give the CPU away halfway through, so that writers run in the middle
          // of the read even when there are fewer cores than threads.
          if (i == kWords / 2 && n % 4 == 0) std::this_thread::yield();
        }
        if (!record.latch.read_valid(version)) {
          ++invalidated;
          continue;
        }
        ++validated;
        const std::uint64_t v = decode(seen);
        if (v == ~std::uint64_t{0}) {
          ++torn_validated;
          continue;
        }
        // Writes only add: a later validated read never sees an older record.
        if (v < last) ++backwards;
        last = v;
      }
    });
  }
  // A pessimistic reader holding the latch shared while the writers run.
  threads.emplace_back([&] {
    start_together();
    while (!writers_done.load(std::memory_order_acquire)) {
      record.latch.lock_shared();
      std::uint64_t seen[kWords];
      for (int i = 0; i < kWords; ++i) seen[i] = record.words[i].load(std::memory_order_relaxed);
      record.latch.unlock_shared();
      if (decode(seen) == ~std::uint64_t{0}) ++torn_shared;
    }
  });

  for (int t = 0; t < kWriters; ++t) threads[t].join();
  writers_done.store(true, std::memory_order_release);
  for (std::size_t t = kWriters; t < threads.size(); ++t) threads[t].join();

  CHECK(torn_validated.load() == 0);
  CHECK(torn_shared.load() == 0);
  CHECK(backwards.load() == 0);
  CHECK(validated.load() + invalidated.load() == kOptimisticReaders * kReadsPerReader);
  CHECK(validated.load() > 0);
  // Every write counted: writers excluded each other.
  CHECK(decode_words(record) == kWriters * kWritesPerWriter);
  std::printf("optimistic_latch: %llu validated reads, %llu retried\n",
              static_cast<unsigned long long>(validated.load()),
              static_cast<unsigned long long>(invalidated.load()));
  return test_summary("optimistic_latch");
}

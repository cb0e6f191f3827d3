// The client layer's request queue (exec/client_queue.hpp) and board (exec/client_board.hpp):
// between real threads every request is taken exactly once, a full queue refuses and counts,
// and two boards on one run directory (two instances) push into each other's queues through
// their files, which go when the boards go. Run under TSan this also checks the queue's order.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/exec/client_board.hpp"
#include "islands/exec/client_queue.hpp"
#include "temp_dir.hpp"

using namespace islands;

namespace {

constexpr std::uint32_t kProducers = 3;
constexpr std::uint32_t kConsumers = 2;
constexpr std::uint64_t kPerProducer = 30000;

// Producers push (client p, seed i) while consumers pop; every (p, i) must be seen once, and
// each producer's requests in the order it pushed them.
void threads_take_each_request_once() {
  ClientBoard board(0, 1, 256, "", 0);  // a small queue: it fills and drains many times
  ClientQueue& queue = board.own();
  std::vector<std::vector<std::uint8_t>> seen(kProducers, std::vector<std::uint8_t>(kPerProducer, 0));
  std::atomic<std::uint64_t> taken{0};
  std::atomic<std::uint64_t> out_of_order{0};
  std::vector<std::thread> threads;
  for (std::uint32_t p = 0; p < kProducers; ++p) {
    threads.emplace_back([&queue, p] {
      for (std::uint64_t i = 0; i < kPerProducer; ++i) {
        ClientRequest r;
        r.client = p;
        r.seed = i;
        r.home = i * 7 + p;
        while (!queue.push(r)) std::this_thread::yield();
      }
    });
  }
  std::vector<std::vector<std::uint64_t>> last(kConsumers, std::vector<std::uint64_t>(kProducers, 0));
  for (std::uint32_t c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&, c] {
      ClientRequest r;
      while (taken.load() < kProducers * kPerProducer) {
        if (!queue.pop(r)) {
          std::this_thread::yield();
          continue;
        }
        taken.fetch_add(1);
        if (r.client >= kProducers || r.seed >= kPerProducer || r.home != r.seed * 7 + r.client) {
          out_of_order.fetch_add(1);
          continue;
        }
        seen[r.client][r.seed]++;
        // One consumer sees a producer's requests in increasing order (FIFO per producer).
        if (r.seed + 1 < last[c][r.client]) out_of_order.fetch_add(1);
        last[c][r.client] = r.seed + 1;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::uint64_t once = 0;
  for (const auto& per : seen) once += static_cast<std::uint64_t>(std::count(per.begin(), per.end(), 1));
  CHECK(once == kProducers * kPerProducer);
  CHECK(out_of_order.load() == 0);
  CHECK(queue.taken() == kProducers * kPerProducer);
  CHECK(queue.length() == 0);
  CHECK(queue.refused() > 0);  // the producers outran the consumers at times
}

void a_full_queue_refuses() {
  ClientBoard board(0, 1, 64, "", 0);
  ClientQueue& queue = board.own();
  CHECK(queue.capacity() == 64);
  ClientRequest r;
  std::uint32_t pushed = 0;
  for (std::uint32_t i = 0; i < 100; ++i) pushed += queue.push(r) ? 1 : 0;
  CHECK(pushed == 64);
  CHECK(queue.refused() == 36);
  CHECK(queue.submitted() == 64);
  CHECK(queue.length() == 64);
  CHECK(queue.pop(r));
  CHECK(queue.push(r));
  CHECK(queue.length() == 64);
}

void two_instances_share_their_queues() {
  const std::string dir = islands_test::make_temp_dir("clients");
  {
    // Instance 1 creates its file first, then waits for instance 0's, as separate processes would.
    // (What it sees is checked after the join: the check tally is not for two threads at once.)
    bool pushed_to_zero = false;
    std::uint32_t got_from_zero = 0;
    std::thread second([&] {
      ClientBoard one(1, 2, 128, dir, 5000);
      ClientRequest r;
      r.client = 11;
      r.site = 0;
      pushed_to_zero = one.queue(0).push(r);  // to instance 0
      // Wait for instance 0's request to it.
      for (int i = 0; i < 5000 && !one.own().pop(r); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      got_from_zero = r.client;
    });
    ClientBoard zero(0, 2, 128, dir, 5000);
    ClientRequest r;
    r.client = 22;
    CHECK(zero.queue(1).push(r));
    bool got = false;
    for (int i = 0; i < 5000 && !(got = zero.own().pop(r)); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(got && r.client == 11);
    second.join();
    CHECK(pushed_to_zero);
    CHECK(got_from_zero == 22);
  }
  CHECK(islands_test::list_dir(dir).empty());  // each board removed its own file
  ::rmdir(dir.c_str());
}

void a_missing_peer_is_named() {
  const std::string dir = islands_test::make_temp_dir("clients");
  std::string message;
  try {
    ClientBoard lone(0, 2, 64, dir, 50);
  } catch (const std::exception& e) {
    message = e.what();
  }
  CHECK(message.find("instance 1") != std::string::npos);
  CHECK(message.find("clients-1") != std::string::npos);
  CHECK(islands_test::list_dir(dir).empty());  // the failed set-up left nothing behind
  ::rmdir(dir.c_str());
}

void a_plp_board_has_a_queue_per_worker() {
  // The in-process board of a PLP instance: one heap queue per worker, each its own.
  ClientBoard board(3, 64);
  CHECK(board.instances() == 3);
  ClientRequest r;
  for (std::uint32_t q = 0; q < 3; ++q) {
    for (std::uint32_t i = 0; i <= q; ++i) {
      r.client = q * 100 + i;
      CHECK(board.queue(q).push(r));
    }
  }
  for (std::uint32_t q = 0; q < 3; ++q) {
    CHECK(board.queue(q).capacity() == 64);
    CHECK(board.queue(q).length() == q + 1);
    for (std::uint32_t i = 0; i <= q; ++i) {
      CHECK(board.queue(q).pop(r));
      CHECK(r.client == q * 100 + i);  // its own requests, in order
    }
    CHECK(!board.queue(q).pop(r));
  }
  CHECK(&board.own() == &board.queue(0));
}

}  // namespace

int main() {
  threads_take_each_request_once();
  a_full_queue_refuses();
  two_instances_share_their_queues();
  a_missing_peer_is_named();
  a_plp_board_has_a_queue_per_worker();
  return test_summary("client_queue");
}

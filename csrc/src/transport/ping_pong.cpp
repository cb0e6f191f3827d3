#include "islands/transport/ping_pong.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "islands/common/spin_latch.hpp"

namespace islands {

namespace {

using Clock = std::chrono::steady_clock;

// Checks the clock only every few thousand spins: reading it each time would slow the loop
// being measured.
class Watchdog {
 public:
  explicit Watchdog(std::uint32_t timeout_ms) : timeout_(std::chrono::milliseconds(timeout_ms)) {}
  void progress() { last_ = Clock::now(); }
  // One step of a busy wait: a pause, as the engine's own polling loops do, so that the
  // spinning core does not hammer the line the other side is writing.
  void spin(const char* waiting_for) {
    cpu_relax();
    if (++spins_ % 4096 != 0) return;
    if (Clock::now() - last_ > timeout_) {
      throw std::runtime_error(std::string("ping_pong: no progress while waiting for ") +
                               waiting_for);
    }
  }

 private:
  Clock::duration timeout_;
  Clock::time_point last_ = Clock::now();
  std::uint64_t spins_ = 0;
};

void send_spinning(Transport& transport, std::uint32_t peer, const Message& message,
                   Watchdog& watchdog) {
  while (!transport.send(peer, message)) watchdog.spin("room to send");
}

}  // namespace

std::vector<std::uint64_t> ping_pong(Transport& transport, std::uint32_t peer, bool initiator,
                                     std::size_t round_trips, std::size_t payload_bytes,
                                     std::uint32_t timeout_ms) {
  Watchdog watchdog(timeout_ms);
  Message in;
  std::vector<std::uint64_t> samples;
  if (!initiator) {
    Message reply;
    reply.type = MessageType::ack;
    for (;;) {
      if (!transport.poll(in)) {
        watchdog.spin("a ping");
        continue;
      }
      watchdog.progress();
      if (in.source != peer) continue;
      if (in.type == MessageType::shutdown) return samples;
      if (in.type != MessageType::fragment) continue;
      reply.txn_id = in.txn_id;
      reply.payload.swap(in.payload);
      send_spinning(transport, peer, reply, watchdog);
      in.payload.swap(reply.payload);
    }
  }
  Message ping;
  ping.type = MessageType::fragment;
  ping.payload.resize(payload_bytes);
  for (std::size_t i = 0; i < payload_bytes; ++i) ping.payload[i] = static_cast<std::uint8_t>(i * 7 + 1);
  samples.reserve(round_trips);
  for (std::size_t i = 0; i < round_trips; ++i) {
    ping.txn_id = i;
    const auto start = Clock::now();
    send_spinning(transport, peer, ping, watchdog);
    while (!transport.poll(in) || in.source != peer || in.type != MessageType::ack) {
      watchdog.spin("a pong");
    }
    const auto end = Clock::now();
    watchdog.progress();
    if (in.txn_id != i || in.payload != ping.payload) {
      throw std::runtime_error("ping_pong: round trip " + std::to_string(i) +
                               " came back with txn_id " + std::to_string(in.txn_id) +
                               " or a different payload");
    }
    samples.push_back(static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count()));
  }
  Message shutdown;
  shutdown.type = MessageType::shutdown;
  send_spinning(transport, peer, shutdown, watchdog);
  return samples;
}

}  // namespace islands

// The IPC benchmark moves every message intact over every mechanism, notices a corrupted
// message, and rejects bad configs. Short runs; nothing here looks at a time.
#include <sched.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "islands/bench/bench_errors.hpp"
#include "islands/bench/ipc_bench.hpp"
#include "islands/bench/message_pattern.hpp"
#include "islands/common/cpu_affinity.hpp"

using namespace islands;

namespace {

IpcBenchConfig small_config(IpcMechanism mechanism, std::size_t bytes) {
  const std::vector<int> cpus = allowed_cpus();
  IpcBenchConfig c;
  c.mechanism = mechanism;
  c.client_cpu = cpus.front();
  c.server_cpu = cpus.back();
  c.message_bytes = bytes;
  c.warmup_s = 0.0;
  c.round_trips = 200;
  c.timeout_s = 20.0;
  c.seed = 7;
  return c;
}

void test_pattern() {
  std::vector<std::uint8_t> a(257), b(257), r(257), rr(257);
  MessagePattern::fill(a.data(), a.size(), 1, 10);
  MessagePattern::fill(b.data(), b.size(), 1, 11);
  CHECK(MessagePattern::first_difference(a.data(), b.data(), a.size()) < 8);  // another seq differs at once
  MessagePattern::fill(b.data(), b.size(), 2, 10);
  CHECK(MessagePattern::first_difference(a.data(), b.data(), a.size()) < 8);  // another seed too
  MessagePattern::fill(b.data(), b.size(), 1, 10);
  CHECK(MessagePattern::first_difference(a.data(), b.data(), a.size()) == a.size());  // deterministic
  MessagePattern::reply(a.data(), r.data(), a.size());
  CHECK(MessagePattern::first_difference(a.data(), r.data(), a.size()) == 0);  // a reply is not an echo
  MessagePattern::reply(r.data(), rr.data(), r.size());
  CHECK(MessagePattern::first_difference(a.data(), rr.data(), a.size()) == a.size());
  b[200] ^= 1;
  CHECK(MessagePattern::first_difference(b.data(), a.data(), a.size()) == 200);
  CHECK(MessagePattern::describe_mismatch("reply", 3, 200, b.data(), a.data()).find("reply 3 corrupted at byte 200") == 0);
}

void test_mechanism(IpcMechanism mechanism) {
  const char* name = ipc_mechanism_name(mechanism);
  for (std::size_t bytes : {std::size_t{1}, std::size_t{7}, std::size_t{256}, std::size_t{4097}}) {
    try {
      const IpcBenchResult r = run_ipc_bench(small_config(mechanism, bytes));
      CHECK(r.round_trips == 200);
      CHECK(r.total_round_trips == 200);
      CHECK(r.server_verified == 200);
      CHECK(r.round_trip.count() == 200);
      CHECK(r.round_trip.quantile(0.5) > 0);
      CHECK(r.client_cpu_seen == allowed_cpus().front());
      CHECK(r.server_cpu_seen == allowed_cpus().back());
    } catch (const CapabilityMissing& e) {
      std::printf("skipped %s with %zu-byte messages: %s\n", name, bytes, e.what());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s with %zu-byte messages failed: %s\n", name, bytes, e.what());
      CHECK(false);
    }
  }
  // A reply corrupted by the server (fault injection) is an error naming the message.
  IpcBenchConfig bad = small_config(mechanism, 256);
  bad.inject_corruption = 5;
  bool caught = false;
  try {
    run_ipc_bench(bad);
  } catch (const IntegrityError& e) {
    caught = std::string(e.what()).find("reply 5 corrupted at byte 128") != std::string::npos;
    if (!caught) std::fprintf(stderr, "%s: unexpected message: %s\n", name, e.what());
  } catch (const CapabilityMissing&) {
    caught = true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: corruption gave another error: %s\n", name, e.what());
  }
  CHECK(caught);
}

void test_time_based_run_and_affinity_restored() {
  cpu_set_t before, after;
  sched_getaffinity(0, sizeof before, &before);
  IpcBenchConfig c = small_config(IpcMechanism::unix_stream, 256);
  c.round_trips = 0;
  c.warmup_s = 0.02;
  c.duration_s = 0.05;
  const IpcBenchResult r = run_ipc_bench(c);
  CHECK(r.round_trips > 0);
  CHECK(r.total_round_trips >= r.round_trips);
  CHECK(r.server_verified == r.total_round_trips);
  CHECK(r.measured_s > 0.04);
  CHECK(r.messages_per_s() == 2 * r.round_trips_per_s());
  sched_getaffinity(0, sizeof after, &after);
  CHECK(CPU_EQUAL(&before, &after));
}

template <class F>
bool throws_invalid(F f, const char* needle) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return std::string(e.what()).find(needle) != std::string::npos;
  }
  return false;
}

void test_bad_configs() {
  CHECK(throws_invalid([] { parse_ipc_mechanism("carrier_pigeon"); }, "unknown messaging mechanism 'carrier_pigeon'"));
  for (IpcMechanism m : all_ipc_mechanisms()) CHECK(parse_ipc_mechanism(ipc_mechanism_name(m)) == m);
  IpcBenchConfig c = small_config(IpcMechanism::pipe, 0);
  CHECK(throws_invalid([&] { c.validate(); }, "message_bytes"));
  c = small_config(IpcMechanism::pipe, 256);
  c.server_cpu = 100000;
  CHECK(throws_invalid([&] { run_ipc_bench(c); }, "server_cpu: CPU 100000"));
  c = small_config(IpcMechanism::pipe, 256);
  c.round_trips = 0;
  c.duration_s = 0;
  CHECK(throws_invalid([&] { c.validate(); }, "duration_s"));
}

}  // namespace

int main() {
  test_pattern();
  for (IpcMechanism m : all_ipc_mechanisms()) test_mechanism(m);
  test_time_based_run_and_affinity_restored();
  test_bad_configs();
  return test_summary("bench_ipc");
}

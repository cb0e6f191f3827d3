#include "islands/bench/ipc_bench.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "islands/bench/bench_errors.hpp"
#include "islands/bench/ipc_channel.hpp"
#include "islands/bench/message_pattern.hpp"
#include "islands/common/cpu_affinity.hpp"
#include "islands/common/cycle_clock.hpp"

namespace islands {

namespace {

using SteadyClock = std::chrono::steady_clock;

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

void check_cpu(const char* field, int cpu, const std::vector<int>& allowed) {
  if (cpu == -1) return;
  if (std::find(allowed.begin(), allowed.end(), cpu) == allowed.end()) {
    throw std::invalid_argument(std::string(field) + ": CPU " + std::to_string(cpu) +
                                " is not online or not allowed here (allowed: " + cpu_list(allowed) + ")");
  }
}

// What the server tells the client when it ends, through a pipe (one write, < PIPE_BUF).
struct ServerReport {
  enum Status : std::int32_t { ok = 0, integrity = 1, failed = 2, capability = 3 };
  std::int32_t status = failed;
  std::int32_t cpu = -1;
  std::uint64_t verified = 0;
  char message[232] = {};
};
static_assert(sizeof(ServerReport) <= PIPE_BUF, "the report must be written atomically");

// Restores the calling thread's CPU affinity: the client pins the caller's own thread.
class AffinityGuard {
 public:
  AffinityGuard() { saved_ = ::sched_getaffinity(0, sizeof mask_, &mask_) == 0; }
  ~AffinityGuard() {
    if (saved_) ::sched_setaffinity(0, sizeof mask_, &mask_);
  }

 private:
  cpu_set_t mask_{};
  bool saved_ = false;
};

// Blocks SIGPIPE in the calling thread for the run (a write to a dead server's pipe is then an
// EPIPE error), and discards any SIGPIPE left pending before unblocking it.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) && !sigismember(&old_, SIGPIPE)) {
      const timespec zero{0, 0};
      ::sigtimedwait(&pipe_, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_{}, old_{};
};

// Kills the server if the run has not ended by the deadline, so that a hung server turns into
// an error instead of a hung Python process.
class Watchdog {
 public:
  Watchdog(pid_t pid, SteadyClock::time_point deadline)
      : thread_([this, pid, deadline] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!cv_.wait_until(lock, deadline, [this] { return done_; })) {
            fired_ = true;
            ::kill(pid, SIGKILL);
          }
        }) {}
  ~Watchdog() { stop(); }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  bool fired() {
    std::lock_guard<std::mutex> lock(mutex_);
    return fired_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  bool fired_ = false;
  std::thread thread_;
};

// The forked server: verify each request, reply with its bytes XORed, until the client stops.
// Runs in the child only and never returns.
[[noreturn]] void server_main(const IpcBenchConfig& config, IpcChannel& channel, int report_fd, pid_t parent,
                              std::vector<std::uint8_t>& request, std::vector<std::uint8_t>& expected,
                              std::vector<std::uint8_t>& reply) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(3);  // the client died before the line above
  ::signal(SIGPIPE, SIG_IGN);
  ServerReport report;
  const std::size_t n = config.message_bytes;
  std::uint64_t seq = 0;
  try {
    if (config.server_cpu >= 0) pin_current_thread(config.server_cpu);
    channel.attach(IpcSide::server);
    for (;; ++seq) {
      MessagePattern::fill(expected.data(), n, config.seed, seq);  // while waiting
      if (!channel.receive(request.data(), n)) break;
      const std::size_t at = MessagePattern::first_difference(request.data(), expected.data(), n);
      if (at != n) {
        throw IntegrityError(std::string(ipc_mechanism_name(config.mechanism)) + ": server: " +
                             MessagePattern::describe_mismatch("request", seq, at, request.data(), expected.data()));
      }
      MessagePattern::reply(request.data(), reply.data(), n);
      if (config.inject_corruption >= 0 && seq == static_cast<std::uint64_t>(config.inject_corruption)) {
        reply[n / 2] ^= 0x10;  // tests only: the client must notice
      }
      channel.send(reply.data(), n);
    }
    report.status = ServerReport::ok;
  } catch (const IntegrityError& e) {
    report.status = ServerReport::integrity;
    std::strncpy(report.message, e.what(), sizeof report.message - 1);
  } catch (const CapabilityMissing& e) {
    report.status = ServerReport::capability;
    std::strncpy(report.message, e.what(), sizeof report.message - 1);
  } catch (const std::exception& e) {
    report.status = ServerReport::failed;
    std::strncpy(report.message, e.what(), sizeof report.message - 1);
  }
  report.verified = seq;
  report.cpu = ::sched_getcpu();
  [[maybe_unused]] ssize_t w = ::write(report_fd, &report, sizeof report);
  ::_exit(report.status == ServerReport::ok ? 0 : 1);
}

// Reads the server's report (waiting until `deadline`) and reaps it; false if it sent none.
bool collect_server(pid_t pid, int report_fd, SteadyClock::time_point deadline, ServerReport& report) {
  bool got = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
    pollfd p{report_fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::clamp<long long>(left, 0, 86'400'000)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 1) got = ::read(report_fd, &report, sizeof report) == static_cast<ssize_t>(sizeof report);
    break;
  }
  if (!got) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return got;
}

[[noreturn]] void throw_server_error(const ServerReport& report) {
  const std::string what(report.message);
  if (report.status == ServerReport::integrity) throw IntegrityError(what);
  if (report.status == ServerReport::capability) throw CapabilityMissing(what);
  throw std::runtime_error(what);
}

}  // namespace

void IpcBenchConfig::validate() const {
  if (message_bytes < 1) throw std::invalid_argument("message_bytes: must be at least 1 byte");
  if (message_bytes > (std::size_t{64} << 20)) throw std::invalid_argument("message_bytes: at most 64 MiB");
  if (!(warmup_s >= 0.0 && std::isfinite(warmup_s))) {
    throw std::invalid_argument("warmup_s: must be a finite number of seconds >= 0");
  }
  if (round_trips == 0 && !(duration_s > 0.0 && std::isfinite(duration_s))) {
    throw std::invalid_argument("duration_s: must be a finite number of seconds > 0");
  }
  if (!(timeout_s > 0.0 && std::isfinite(timeout_s))) {
    throw std::invalid_argument("timeout_s: must be a finite number of seconds > 0");
  }
  if (inject_corruption < -1) throw std::invalid_argument("inject_corruption: -1 (off) or a message number");
  const std::vector<int> allowed = allowed_cpus();
  if (client_cpu < -1) throw std::invalid_argument("client_cpu: -1 (OS) or a CPU number");
  if (server_cpu < -1) throw std::invalid_argument("server_cpu: -1 (OS) or a CPU number");
  check_cpu("client_cpu", client_cpu, allowed);
  check_cpu("server_cpu", server_cpu, allowed);
}

IpcBenchResult run_ipc_bench(const IpcBenchConfig& config) {
  config.validate();
  const std::size_t n = config.message_bytes;
  const char* name = ipc_mechanism_name(config.mechanism);
  const double ns_per_tick = CycleClock::ns_per_tick();  // measured before fork, once
  std::unique_ptr<IpcChannel> channel = make_ipc_channel(config.mechanism, n);

  const auto start = SteadyClock::now();
  // A counted run has no planned end: allow 10 ms per round trip, far beyond any mechanism's.
  const double measured_s = config.round_trips ? 0.01 * static_cast<double>(config.round_trips) : config.duration_s;
  const double planned_s = config.warmup_s + measured_s + config.timeout_s;
  const auto deadline = start + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(planned_s));
  channel->set_deadline(deadline);

  // Every buffer either side touches exists before fork: the child allocates nothing.
  std::vector<std::uint8_t> request(n), reply(n), expected(n), server_in(n), server_expected(n), server_out(n);
  int report_pipe[2];
  if (::pipe2(report_pipe, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));

  AffinityGuard affinity;
  SigpipeGuard sigpipe;
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(report_pipe[0]);
    ::close(report_pipe[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::close(report_pipe[0]);
    server_main(config, *channel, report_pipe[1], parent, server_in, server_expected, server_out);
  }
  ::close(report_pipe[1]);
  Watchdog watchdog(pid, deadline);

  IpcBenchResult result;
  ServerReport report;
  try {
    if (config.client_cpu >= 0) pin_current_thread(config.client_cpu);
    channel->attach(IpcSide::client);
    const std::uint64_t warmup_ticks = static_cast<std::uint64_t>(config.warmup_s * 1e9 / ns_per_tick);
    const std::uint64_t duration_ticks = static_cast<std::uint64_t>(config.duration_s * 1e9 / ns_per_tick);
    const std::uint64_t tick0 = CycleClock::now();
    bool measuring = warmup_ticks == 0;
    std::uint64_t measure_start = tick0, now = tick0;
    for (std::uint64_t seq = 0;; ++seq) {
      // The request and the reply it must earn are built outside the timed window.
      MessagePattern::fill(request.data(), n, config.seed, seq);
      MessagePattern::reply(request.data(), expected.data(), n);
      const std::uint64_t t0 = CycleClock::now();
      channel->send(request.data(), n);
      if (!channel->receive(reply.data(), n)) {
        throw std::runtime_error(std::string(name) + ": the server stopped answering at message " + std::to_string(seq));
      }
      now = CycleClock::now();
      ++result.total_round_trips;
      const std::size_t at = MessagePattern::first_difference(reply.data(), expected.data(), n);
      if (at != n) {
        throw IntegrityError(std::string(name) + ": client: " +
                             MessagePattern::describe_mismatch("reply", seq, at, reply.data(), expected.data()));
      }
      if (measuring) {
        result.round_trip.record(static_cast<std::uint64_t>(static_cast<double>(now - t0) * ns_per_tick));
        ++result.round_trips;
        if (config.round_trips ? result.round_trips >= config.round_trips : now - measure_start >= duration_ticks) break;
      } else if (now - tick0 >= warmup_ticks) {
        measuring = true;
        measure_start = now;
      }
    }
    result.measured_s = static_cast<double>(now - measure_start) * ns_per_tick * 1e-9;
    result.client_cpu_seen = ::sched_getcpu();
    channel->finish();
  } catch (const std::exception&) {
    // Let the server end normally; its own account explains more when it failed first (it
    // saw a corrupted request, or could not pin).
    try {
      channel->finish();
    } catch (const std::exception&) {
    }
    const bool got = collect_server(pid, report_pipe[0], SteadyClock::now() + std::chrono::seconds(2), report);
    ::close(report_pipe[0]);
    watchdog.stop();
    if (got && report.status != ServerReport::ok) throw_server_error(report);
    if (watchdog.fired()) {
      throw std::runtime_error(std::string(name) + ": no answer within timeout_s = " + std::to_string(config.timeout_s) +
                               " s past the planned end; the server was killed");
    }
    throw;
  }
  const bool got = collect_server(pid, report_pipe[0], deadline, report);
  ::close(report_pipe[0]);
  watchdog.stop();
  if (!got) throw std::runtime_error(std::string(name) + ": the server ended without a report");
  if (report.status != ServerReport::ok) throw_server_error(report);
  result.server_verified = report.verified;
  result.server_cpu_seen = report.cpu;
  if (result.server_verified != result.total_round_trips) {
    throw IntegrityError(std::string(name) + ": the server verified " + std::to_string(result.server_verified) +
                         " requests but the client completed " + std::to_string(result.total_round_trips));
  }
  return result;
}

}  // namespace islands

#include "islands/perf/perf_counters.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string>

namespace islands {
namespace {

long perf_event_open(perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags) {
  return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

// Why an open failed, in the words a user can act on.
std::string open_error(int err, const PerfEventSpec& spec) {
  std::string why;
  switch (err) {
    case ENOENT:
      why = "the kernel does not know this event (no such PMU or event on this processor)";
      break;
    case EOPNOTSUPP:
      why = "not supported here (no hardware PMU: a virtual machine without PMU passthrough?)";
      break;
    case EACCES:
    case EPERM:
      why = "no permission (kernel.perf_event_paranoid too high, or CAP_PERFMON missing)";
      break;
    case EINVAL:
      why = "invalid event encoding for this PMU";
      break;
    case EMFILE:
      why = "too many open files";
      break;
    case ENODEV:
      why = "no such PMU device (or the CPU is offline)";
      break;
    default:
      why = std::strerror(err);
  }
  return "perf_event_open(" + spec.name + "): " + why + " [errno " + std::to_string(err) + "]";
}

}  // namespace

PerfCounters::PerfCounters(const std::vector<PerfEventSpec>& events, CounterScope scope) {
  // Group ids are per scope and per CPU: a group is one leader and its members on one target.
  std::map<std::pair<int, int>, int> leader_of;
  std::map<int, std::size_t> size_of;
  for (const PerfEventSpec& spec : events) {
    if ((scope == CounterScope::thread) != (spec.cpu < 0)) continue;
    Slot slot;
    slot.spec = spec;
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = spec.type;
    attr.config = spec.config;
    attr.config1 = spec.config1;
    attr.config2 = spec.config2;
    attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.exclude_hv = 1;
    const auto key = std::make_pair(spec.group, spec.cpu);
    const auto found = leader_of.find(key);
    const bool lead = found == leader_of.end() || slots_[static_cast<std::size_t>(found->second)].fd < 0;
    attr.disabled = lead ? 1 : 0;
    const int group_fd = lead ? -1 : slots_[static_cast<std::size_t>(found->second)].fd;
    const pid_t pid = spec.cpu < 0 ? 0 : -1;
    long fd = perf_event_open(&attr, pid, spec.cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && spec.cpu < 0) {
      // Unprivileged per-thread counting may still be allowed for user space only.
      attr.exclude_kernel = 1;
      fd = perf_event_open(&attr, pid, spec.cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0) {
      slot.error = open_error(errno, spec);
    } else {
      slot.fd = static_cast<int>(fd);
      const int self = static_cast<int>(slots_.size());
      if (lead) {
        leader_of[key] = self;
        slot.leader = self;
      } else {
        slot.leader = found->second;
      }
      slot.index = size_of[slot.leader]++;
    }
    slots_.push_back(std::move(slot));
  }
}

PerfCounters::~PerfCounters() { close_all(); }

PerfCounters::PerfCounters(PerfCounters&& other) noexcept : slots_(std::move(other.slots_)) { other.slots_.clear(); }

PerfCounters& PerfCounters::operator=(PerfCounters&& other) noexcept {
  if (this != &other) {
    close_all();
    slots_ = std::move(other.slots_);
    other.slots_.clear();
  }
  return *this;
}

void PerfCounters::close_all() {
  for (Slot& slot : slots_) {
    if (slot.fd >= 0) close(slot.fd);
    slot.fd = -1;
  }
}

void PerfCounters::enable() {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (s.fd >= 0 && s.leader == static_cast<int>(i)) {
      ioctl(s.fd, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
      ioctl(s.fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    }
  }
}

void PerfCounters::disable() {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (s.fd >= 0 && s.leader == static_cast<int>(i)) ioctl(s.fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
  }
}

std::vector<CounterReading> PerfCounters::read() const {
  std::vector<CounterReading> out(slots_.size());
  // Group read format: nr, time_enabled, time_running, then one value per member.
  std::map<int, std::vector<std::uint64_t>> buffers;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    if (s.fd < 0 || s.leader != static_cast<int>(i)) continue;
    std::vector<std::uint64_t> buf(3 + slots_.size());
    const ssize_t got = ::read(s.fd, buf.data(), buf.size() * sizeof(std::uint64_t));
    if (got < static_cast<ssize_t>(3 * sizeof(std::uint64_t))) buf.clear();
    buffers[static_cast<int>(i)] = std::move(buf);
  }
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    CounterReading& r = out[i];
    r.name = s.spec.name;
    if (s.fd < 0) {
      r.error = s.error;
      continue;
    }
    const std::vector<std::uint64_t>& buf = buffers[s.leader];
    if (buf.empty() || s.index >= buf[0]) {
      r.error = "reading the counter group failed";
      continue;
    }
    r.time_enabled = buf[1];
    r.time_running = buf[2];
    r.raw = buf[3 + s.index];
    r.value = scale_count(r.raw, r.time_enabled, r.time_running);
    if (r.time_running == 0) r.error = "never scheduled on the PMU (more counters than it has?)";
  }
  return out;
}

}  // namespace islands

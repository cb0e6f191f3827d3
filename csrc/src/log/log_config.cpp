#include "islands/log/log_config.hpp"

#include <cmath>
#include <stdexcept>

namespace islands {

const char* log_mode_name(LogMode mode) {
  switch (mode) {
    case LogMode::off:
      return "off";
    case LogMode::async:
      return "async";
    case LogMode::group_commit:
      return "group_commit";
  }
  return "?";
}

LogMode parse_log_mode(const std::string& name) {
  if (name == "off") return LogMode::off;
  if (name == "async") return LogMode::async;
  if (name == "group_commit") return LogMode::group_commit;
  throw std::invalid_argument("log.mode: unknown mode '" + name + "' (choose off, async, group_commit)");
}

void LogConfig::validate() const {
  if (mode != LogMode::off && directory.empty()) {
    throw std::invalid_argument("log.directory: a directory for the log files is needed when the log is on");
  }
  if (!(flush_interval_us >= 0 && std::isfinite(flush_interval_us) && flush_interval_us <= 1e7)) {
    throw std::invalid_argument("log.flush_interval_us: must be a number of microseconds in [0, 1e7]");
  }
  if (!(group_delay_us >= 0 && std::isfinite(group_delay_us) && group_delay_us <= 1e7)) {
    throw std::invalid_argument("log.group_delay_us: must be a number of microseconds in [0, 1e7]");
  }
  if (buffer_bytes < 4096 || buffer_bytes > (std::size_t{1} << 30)) {
    throw std::invalid_argument("log.buffer_bytes: must be in [4096, 2^30]");
  }
  if (max_pending == 0 || max_pending > 1u << 20) {
    throw std::invalid_argument("log.max_pending: must be in [1, 2^20]");
  }
}

}  // namespace islands

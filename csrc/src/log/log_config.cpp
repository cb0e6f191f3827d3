#include "islands/log/log_config.hpp"

namespace islands {

void LogConfig::validate() const {
  check_fields(*this);
  if (mode != LogMode::off && directory.empty()) {
    throw ConfigError("log.directory", "a directory for the log files is needed when the log is on");
  }
}

}  // namespace islands

#include "islands/log/log_config.hpp"

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

LogMode parse_log_mode(const std::string& name) { return parse_setting_enum<LogMode>("log.mode", name); }

void LogConfig::validate() const {
  check_fields(*this);
  if (mode != LogMode::off && directory.empty()) {
    throw ConfigError("log.directory", "a directory for the log files is needed when the log is on");
  }
}

}  // namespace islands

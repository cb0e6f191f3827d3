#pragma once
#include <stdexcept>
#include <string>

namespace islands {

//! A setting that cannot be used, carrying the field as data so that callers (the sweep's TOML
//! key and line, the CLI's flag) never parse the message. what() is "field: why".
class ConfigError : public std::invalid_argument {
 public:
  //! `field` is the setting as section.name ("micro.rows_per_site", "log.mode"; the
  //! RunConfig's own "workload" alone); `why` says what is wrong with its value.
  ConfigError(std::string field, const std::string& why)
      : std::invalid_argument(field + ": " + why), field_(std::move(field)), why_(why) {}

  const std::string& field() const { return field_; }  //!< the setting that is wrong
  const std::string& why() const { return why_; }      //!< what is wrong with it

 private:
  std::string field_;
  std::string why_;
};

}  // namespace islands

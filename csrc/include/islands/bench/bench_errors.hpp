#pragma once
#include <stdexcept>
#include <string>

namespace islands {

//! The machine cannot run this benchmark case (no POSIX message queues, no loopback TCP, a
//! message larger than a kernel limit). Python records it as a warning and a NaN row.
class CapabilityMissing : public std::runtime_error {
 public:
  explicit CapabilityMissing(const std::string& what) : std::runtime_error(what) {}
};

//! A message arrived corrupted, out of order or short: the run is invalid, never a statistic.
class IntegrityError : public std::runtime_error {
 public:
  explicit IntegrityError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace islands

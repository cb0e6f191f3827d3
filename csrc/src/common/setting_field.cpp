#include "islands/common/setting_field.hpp"

#include <cstdint>
#include <sstream>

namespace islands {

namespace {

// Whole numbers print without a fraction (1000000, not 1e+06) so that messages read as the
// user typed the value; others with up to 6 significant digits.
std::string show(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) {
    return std::to_string(static_cast<long long>(v));
  }
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

void throw_out_of_range(const char* section, const FieldInfo& field, double value) {
  const bool has_min = !std::isnan(field.min);
  const bool has_max = !std::isnan(field.max);
  std::string why;
  if (has_min && has_max) {
    why = "must be between " + show(field.min) + " and " + show(field.max);
  } else if (has_min) {
    why = "must be at least " + show(field.min);
  } else if (has_max) {
    why = "must be at most " + show(field.max);
  } else {
    why = "must be a finite number";
  }
  throw ConfigError(qualified(section, field.name), why + ", got " + show(value));
}

}  // namespace islands

#pragma once
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>

#include "islands/common/config_error.hpp"
#include "islands/common/enum_names.hpp"

// Settings are defined once, as an X-macro per config struct (micro_config.hpp is an example):
// ISLANDS_MICRO_FIELDS(F) lists F(type, name, default, min, max, help) per field, and
// `struct MicroConfig { ISLANDS_SETTINGS(MicroConfig, "micro", "help", ISLANDS_MICRO_FIELDS) ... }`
// declares the members with their defaults, kSection, kHelp and visit_fields(v), which calls
// v(FieldInfo, &Struct::member) per field in declaration order. min and max are the inclusive
// range of a number (kUnbounded for none; ignored for other types). From that list come the
// range checks (check_fields, called by each validate()), the Python bindings and
// _core.settings() (csrc/bindings/config.cpp), and from there the CLI flags and the tests that
// hold the Python dataclasses, the CLI, the README and _core.pyi to the same defaults
// (tests/test_settings.py).

namespace islands {

//! "No bound" as a setting's min or max.
inline constexpr double kUnbounded = std::numeric_limits<double>::quiet_NaN();

//! What a config struct declares about one field besides its type and default.
struct FieldInfo {
  const char* name;  //!< the member's name, as Python, the CLI and experiment files spell it
  const char* help;  //!< one line: what the setting means
  double min;        //!< inclusive lower bound of a number, or kUnbounded
  double max;        //!< inclusive upper bound of a number, or kUnbounded
};

//! Throws ConfigError("section.field", "must be ..., got value") for a number out of range.
[[noreturn]] void throw_out_of_range(const char* section, const FieldInfo& field, double value);

//! Checks one field's value against its declared range (numbers only; a float must also be
//! finite).
template <class T>
void check_field(const char* section, const FieldInfo& field, const T& value) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    const double v = static_cast<double>(value);
    const bool below = !std::isnan(field.min) && v < field.min;
    const bool above = !std::isnan(field.max) && v > field.max;
    if (below || above || !std::isfinite(v)) throw_out_of_range(section, field, v);
  }
}

//! Checks every field of a settings struct against its declared range.
template <class S>
void check_fields(const S& settings) {
  S::visit_fields([&](const FieldInfo& field, auto member) { check_field(S::kSection, field, settings.*member); });
}

//! "section.field", the name a ConfigError carries.
inline std::string qualified(const char* section, const char* field) {
  return std::string(section) + "." + field;
}

}  // namespace islands

#define ISLANDS_SETTING_MEMBER(type, name, def, lo, hi, help) type name = def;
#define ISLANDS_SETTING_VISIT(type, name, def, lo, hi, help) \
  visitor(::islands::FieldInfo{#name, help, static_cast<double>(lo), static_cast<double>(hi)}, &Self::name);

//! Declares the fields of FIELDS (an X-macro of F(type, name, default, min, max, help)) as
//! members of `Struct`, with its section name, its help line and visit_fields().
#define ISLANDS_SETTINGS(Struct, section, help, FIELDS)  \
  FIELDS(ISLANDS_SETTING_MEMBER)                         \
  using Self = Struct;                                   \
  static constexpr const char* kSection = section;       \
  static constexpr const char* kHelp = help;             \
  template <class V>                                     \
  static void visit_fields(V&& visitor) {                \
    FIELDS(ISLANDS_SETTING_VISIT)                        \
  }

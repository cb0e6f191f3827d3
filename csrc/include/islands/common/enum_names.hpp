#pragma once
#include <string>
#include <type_traits>

#include "islands/common/config_error.hpp"

namespace islands {

//! One value of an enum chosen by name at run time.
template <class E>
struct EnumName {
  E value;           //!< the value
  const char* name;  //!< as settings, results and the CLI spell it
};

//! The names of enum `E`, specialised next to the enum:
//! `static constexpr EnumName<E> table[]`, every value once, in the order choices are listed.
template <class E>
struct EnumNames;

//! Whether `T` is an enum with names (a setting chosen by name).
template <class T, class = void>
struct has_enum_names : std::false_type {};
template <class T>
struct has_enum_names<T, std::void_t<decltype(EnumNames<T>::table)>> : std::true_type {};

//! The name of `value` ("unknown" for a value outside its table).
template <class E>
constexpr const char* enum_name(E value) {
  for (const EnumName<E>& e : EnumNames<E>::table) {
    if (e.value == value) return e.name;
  }
  return "unknown";
}

//! The value of `E` called `name`; throws ConfigError(field, ...) listing the choices.
template <class E>
E parse_enum(const std::string& field, const std::string& name) {
  std::string choices;
  for (const EnumName<E>& e : EnumNames<E>::table) {
    if (name == e.name) return e.value;
    choices += (choices.empty() ? "" : ", ") + std::string(e.name);
  }
  throw ConfigError(field, "unknown value '" + name + "' (choose " + choices + ")");
}

}  // namespace islands

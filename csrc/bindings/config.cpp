// The settings classes, bound generically from each struct's field list (setting_field.hpp):
// one property per field, enums as their names; _core.settings() returns the same lists as
// data, and ConfigError reaches Python as islands._core.ConfigError (a ValueError with .field
// and .why).
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "islands/exec/run_config.hpp"

namespace py = pybind11;
using namespace islands;

namespace {

// The Python class of ConfigError; owned by the module (a leaked reference, so that the
// translator never touches a destroyed object at interpreter exit).
PyObject* g_config_error = nullptr;

// Defined in Python so that it constructs, prints and pickles as an ordinary exception:
// ConfigError(field, why), str() = "field: why".
constexpr const char* kConfigErrorSource = R"(
class ConfigError(ValueError):
    """A setting that cannot be used. ``field`` names it as "section.name" ("micro.rows_per_txn",
    "log.mode"; "workload" for the workload's name), ``why`` says what is wrong with its value."""

    def __init__(self, field, why):
        super().__init__(field, why)
        self.field = field
        self.why = why

    def __str__(self):
        return f"{self.field}: {self.why}"
)";

void bind_config_error(py::module_& m) {
  py::dict scope;
  scope["__builtins__"] = py::module_::import("builtins");
  scope["__name__"] = "islands._core";
  py::exec(kConfigErrorSource, scope);
  py::object cls = scope["ConfigError"];
  m.attr("ConfigError") = cls;
  g_config_error = cls.inc_ref().ptr();
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      py::object error = py::reinterpret_borrow<py::object>(g_config_error)(e.field(), e.why());
      PyErr_SetObject(g_config_error, error.ptr());
    }
  });
}

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};

// The Python type of a field, as the schema and the stubs spell it.
template <class T>
std::string python_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return "bool";
  } else if constexpr (has_enum_names<T>::value || std::is_same_v<T, std::string>) {
    return "str";
  } else if constexpr (std::is_integral_v<T>) {
    return "int";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "float";
  } else if constexpr (is_vector<T>::value) {
    using E = typename T::value_type;
    if constexpr (std::is_same_v<E, int>) {
      return "list[int]";
    } else {
      static_assert(std::is_same_v<E, PerfEventSpec>, "a new list setting needs its Python type here");
      return "list[PerfEventSpec]";
    }
  } else {
    static_assert(sizeof(T) == 0, "a setting of this type needs its Python type here");
  }
}

template <class T>
py::object to_python(const T& value) {
  if constexpr (has_enum_names<T>::value) {
    return py::str(enum_name(value));
  } else {
    return py::cast(value);
  }
}

// A bound as Python sees it: None for none, an int for an integer field.
template <class T>
py::object bound(double value) {
  if (std::isnan(value)) return py::none();
  if constexpr (std::is_integral_v<T>) return py::int_(static_cast<long long>(value));
  return py::float_(value);
}

// One property per field; enums cross as their names, parsing the name is their validation.
template <class S>
void bind_settings(py::module_& m, const char* class_name) {
  py::class_<S> cls(m, class_name, S::kHelp);
  cls.def(py::init<>());
  S::visit_fields([&](const FieldInfo& field, auto member) {
    using T = std::decay_t<decltype(std::declval<S&>().*member)>;
    if constexpr (has_enum_names<T>::value) {
      const std::string qualified_name = qualified(S::kSection, field.name);
      cls.def_property(
          field.name, [member](const S& s) { return std::string(enum_name(s.*member)); },
          [member, qualified_name](S& s, const std::string& name) {
            s.*member = parse_enum<T>(qualified_name, name);
          },
          field.help);
    } else {
      cls.def_readwrite(field.name, member, field.help);
    }
  });
  cls.def("validate", &S::validate, "Raises ConfigError naming the first bad field");
}

// [{name, type, default, min, max, choices, help}] of one settings struct, in declaration order.
template <class S>
py::list schema_of() {
  py::list fields;
  const S defaults{};
  S::visit_fields([&](const FieldInfo& field, auto member) {
    using T = std::decay_t<decltype(defaults.*member)>;
    py::dict d;
    d["name"] = field.name;
    d["type"] = python_type<T>();
    d["default"] = to_python(defaults.*member);
    const bool number = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
    d["min"] = number ? bound<T>(field.min) : py::none();
    d["max"] = number ? bound<T>(field.max) : py::none();
    if constexpr (has_enum_names<T>::value) {
      py::list choices;
      for (const EnumName<T>& e : EnumNames<T>::table) choices.append(e.name);
      d["choices"] = choices;
    } else {
      d["choices"] = py::none();
    }
    d["help"] = field.help;
    fields.append(d);
  });
  return fields;
}

constexpr bool same_name(const char* a, const char* b) {
  return *a == *b && (*a == '\0' || same_name(a + 1, b + 1));
}

}  // namespace

void bind_config(py::module_& m) {
  bind_config_error(m);

  // Each workload's settings class, named after its struct (MicroConfig, ...).
#define ISLANDS_BIND_WORKLOAD_SETTINGS(name, Config)                                       \
  static_assert(same_name(Config::kSection, #name), #Config "'s section is not " #name); \
  bind_settings<Config>(m, #Config);
  ISLANDS_WORKLOADS(ISLANDS_BIND_WORKLOAD_SETTINGS)
#undef ISLANDS_BIND_WORKLOAD_SETTINGS
  bind_settings<EngineConfig>(m, "EngineConfig");
  bind_settings<DriverConfig>(m, "DriverConfig");

  py::class_<PerfEventSpec>(m, "PerfEventSpec", "One counter, resolved to its perf_event_open encoding")
      .def(py::init<>())
      .def(py::init([](std::string name, std::uint32_t type, std::uint64_t config, std::uint64_t config1,
                       std::uint64_t config2, int group, int cpu) {
             return PerfEventSpec{std::move(name), type, config, config1, config2, group, cpu};
           }),
           py::arg("name"), py::arg("type"), py::arg("config"), py::arg("config1") = 0, py::arg("config2") = 0,
           py::arg("group") = 0, py::arg("cpu") = -1)
      .def_readwrite("name", &PerfEventSpec::name)
      .def_readwrite("type", &PerfEventSpec::type)
      .def_readwrite("config", &PerfEventSpec::config)
      .def_readwrite("config1", &PerfEventSpec::config1)
      .def_readwrite("config2", &PerfEventSpec::config2)
      .def_readwrite("group", &PerfEventSpec::group)
      .def_readwrite("cpu", &PerfEventSpec::cpu)
      .def("__repr__", [](const PerfEventSpec& e) {
        return "PerfEventSpec(" + e.name + ", type=" + std::to_string(e.type) + ", config=" + std::to_string(e.config) +
               ", group=" + std::to_string(e.group) + ", cpu=" + std::to_string(e.cpu) + ")";
      });

  bind_settings<ProfileConfig>(m, "ProfileConfig");
  bind_settings<LogConfig>(m, "LogConfig");

  m.def(
      "settings",
      [] {
        py::dict sections;
#define ISLANDS_WORKLOAD_SCHEMA(name, Config) sections[#name] = schema_of<Config>();
        ISLANDS_WORKLOADS(ISLANDS_WORKLOAD_SCHEMA)
#undef ISLANDS_WORKLOAD_SCHEMA
        sections["engine"] = schema_of<EngineConfig>();
        sections["driver"] = schema_of<DriverConfig>();
        sections["profile"] = schema_of<ProfileConfig>();
        sections["log"] = schema_of<LogConfig>();
        return sections;
      },
      "Every settings section of a RunConfig: {section: [{name, type, default, min, max, choices, help}]}, "
      "fields in declaration order (min and max inclusive; None: no bound).");

  py::class_<RunConfig>(m, "RunConfig", "Everything one run of one instance needs")
      .def(py::init<>())
      .def_readwrite("workload", &RunConfig::workload)
#define ISLANDS_BIND_SECTION(name, Config) .def_readwrite(#name, &RunConfig::name)
      ISLANDS_WORKLOADS(ISLANDS_BIND_SECTION)
#undef ISLANDS_BIND_SECTION
      .def_readwrite("engine", &RunConfig::engine)
      .def_readwrite("driver", &RunConfig::driver)
      .def_readwrite("profile", &RunConfig::profile)
      .def_readwrite("log", &RunConfig::log)
      .def("validate", &RunConfig::validate, "Raises ConfigError naming the first bad field")
      .def("validate_sites", &RunConfig::validate_sites, py::arg("total_sites"),
           "The same for an instance of a deployment of total_sites sites");
}

// The worker counters (exec/worker_counters.hpp) as Python sees them: each worker's in the
// statistics `_core.run` returns, the run's totals there, and their schema (`_core.counters()`).
// Generated from the two lists; no counter is named here.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "islands/exec/run_stats.hpp"
#include "islands/exec/worker_counters.hpp"

namespace py = pybind11;
using namespace islands;

namespace {

// A shape with labelled entries (PerReason, PerComponent) becomes a dict by label.
template <class Shape, class = void>
struct has_label : std::false_type {};
template <class Shape>
struct has_label<Shape, std::void_t<decltype(Shape::label(0))>> : std::true_type {};

template <class Shape>
py::object to_python(const typename Shape::type& value) {
  if constexpr (std::is_same_v<typename Shape::type, std::uint64_t>) {
    return py::int_(value);
  } else if constexpr (has_label<Shape>::value) {
    py::dict d;
    for (std::size_t i = 0; i < value.size(); ++i) d[Shape::label(i)] = value[i];
    return py::object(d);
  } else {
    return py::cast(std::vector<std::uint64_t>(value.begin(), value.end()));
  }
}

// Adds (or, for max, keeps the larger of) `value` into `total`, entry by entry.
void combine(CounterAggregate how, std::uint64_t& total, std::uint64_t value) {
  total = how == CounterAggregate::max ? std::max(total, value) : total + value;
}
void combine(CounterAggregate how, std::vector<std::uint64_t>& total, const std::vector<std::uint64_t>& value) {
  if (total.size() < value.size()) total.resize(value.size(), 0);
  for (std::size_t i = 0; i < value.size(); ++i) combine(how, total[i], value[i]);
}
template <std::size_t N>
void combine(CounterAggregate how, std::array<std::uint64_t, N>& total, const std::array<std::uint64_t, N>& value) {
  for (std::size_t i = 0; i < N; ++i) combine(how, total[i], value[i]);
}

// Whether `where` is one of the space-separated destinations in `reported`.
bool reported_at(const char* reported, const char* where) {
  const std::size_t n = std::strlen(where);
  for (const char* p = reported; *p != '\0';) {
    const char* end = std::strchr(p, ' ');
    const std::size_t len = end ? static_cast<std::size_t>(end - p) : std::strlen(p);
    if (len == n && std::strncmp(p, where, n) == 0) return true;
    if (!end) break;
    p = end + 1;
  }
  return false;
}

py::list split(const char* reported) {
  py::list out;
  std::string word;
  for (const char* p = reported;; ++p) {
    if (*p == ' ' || *p == '\0') {
      if (!word.empty()) out.append(word);
      word.clear();
      if (*p == '\0') break;
    } else {
      word += *p;
    }
  }
  return out;
}

const char* scope_name(CounterPeriod scope) { return scope == CounterPeriod::window ? "window" : "run"; }

const char* aggregate_name(CounterAggregate how) {
  switch (how) {
    case CounterAggregate::sum:
      return "sum";
    case CounterAggregate::max:
      return "max";
    case CounterAggregate::each:
      return "each";
  }
  return "unknown";
}

}  // namespace

//! Each counter of worker `w` into `d` (its client layer's in d["clients"]).
void put_worker_counters(py::dict& d, const WorkerStats& w) {
#define ISLANDS_PUT(shape, name, scope, aggregate, reported, unit, doc) \
  d[#name] = to_python<counter_shape::shape>(w.name);
  ISLANDS_WORKER_COUNTERS(ISLANDS_PUT)
#undef ISLANDS_PUT
  py::dict clients;
#define ISLANDS_PUT(shape, name, scope, aggregate, reported, unit, doc) \
  clients[#name] = to_python<counter_shape::shape>(w.clients.name);
  ISLANDS_CLIENT_COUNTERS(ISLANDS_PUT)
#undef ISLANDS_PUT
  d["clients"] = clients;
}

//! The run's totals into `out`: every counter reported "run", aggregated over `workers`.
void put_run_totals(py::dict& out, const std::vector<WorkerStats>& workers) {
#define ISLANDS_PUT(shape, name, scope, aggregate, reported, unit, doc)                          \
  if (reported_at(reported, "run")) {                                                          \
    counter_shape::shape::type total{};                                                        \
    for (const WorkerStats& w : workers) combine(CounterAggregate::aggregate, total, w.name);  \
    out[#name] = to_python<counter_shape::shape>(total);                                       \
  }
  ISLANDS_WORKER_COUNTERS(ISLANDS_PUT)
#undef ISLANDS_PUT
#define ISLANDS_PUT(shape, name, scope, aggregate, reported, unit, doc)                                  \
  if (reported_at(reported, "run")) {                                                                  \
    counter_shape::shape::type total{};                                                                \
    for (const WorkerStats& w : workers) combine(CounterAggregate::aggregate, total, w.clients.name);  \
    out[#name] = to_python<counter_shape::shape>(total);                                               \
  }
  ISLANDS_CLIENT_COUNTERS(ISLANDS_PUT)
#undef ISLANDS_PUT
}

//! `_core.counters()`: one dict per worker counter, in declaration order.
py::list counter_schema() {
  py::list out;
  for (const CounterSpec& c : kWorkerCounters) {
    py::dict d;
    d["name"] = c.name;
    d["group"] = c.group;
    d["kind"] = c.kind;
    d["unit"] = c.unit;
    d["scope"] = scope_name(c.scope);
    d["aggregate"] = aggregate_name(c.aggregate);
    d["reported"] = split(c.reported);
    d["doc"] = c.doc;
    out.append(d);
  }
  return out;
}

// Direct handles on the engine's data structures, for property tests against Python models.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <optional>
#include <vector>

#include "islands/common/latency_histogram.hpp"
#include "islands/common/zipf.hpp"
#include "islands/index/btree_index.hpp"
#include "islands/index/hash_index.hpp"

namespace py = pybind11;
using namespace islands;

namespace {

template <class Index>
std::optional<std::uint64_t> lookup(const Index& index, std::uint64_t key) {
  std::uint64_t value = 0;
  if (index.lookup(key, value)) return value;
  return std::nullopt;
}

}  // namespace

void bind_structures(py::module_& m) {
  py::class_<HashIndex>(m, "HashIndex", "The engine's partitioned open-addressing hash index")
      .def(py::init<std::size_t, bool>(), py::arg("expected_keys") = 16, py::arg("latching") = true)
      .def("insert", &HashIndex::insert, "Inserts key -> value; False if the key is present")
      .def("lookup", &lookup<HashIndex>, "The value of key, or None")
      .def("update", &HashIndex::update, "Replaces a present key's value; False if absent")
      .def("erase", &HashIndex::erase, "Removes key; False if absent")
      .def("__len__", &HashIndex::size);

  py::class_<BTreeIndex>(m, "BTreeIndex", "The engine's B+tree index")
      .def(py::init<bool>(), py::arg("latching") = true)
      .def("insert", &BTreeIndex::insert, "Inserts key -> value; False if the key is present")
      .def("lookup", &lookup<BTreeIndex>, "The value of key, or None")
      .def("update", &BTreeIndex::update, "Replaces a present key's value; False if absent")
      .def("erase", &BTreeIndex::erase, "Removes key; False if absent")
      .def("scan", [](const BTreeIndex& index, std::uint64_t low, std::uint64_t high) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
        index.scan(low, high, [&](std::uint64_t k, std::uint64_t v) {
          out.emplace_back(k, v);
          return true;
        });
        return out;
      }, "(key, value) pairs with low <= key <= high, ascending")
      .def_property_readonly("height", &BTreeIndex::height)
      .def("__len__", &BTreeIndex::size);

  m.def("zipf_sample", [](std::uint64_t n, double s, std::size_t count, std::uint64_t seed) {
    ZipfGenerator zipf(n, s);
    Random rng(seed);
    std::vector<std::uint64_t> out(count);
    {
      py::gil_scoped_release release;
      for (auto& x : out) x = zipf.next(rng);
    }
    return out;
  }, py::arg("n"), py::arg("s"), py::arg("count"), py::arg("seed") = 1,
  "count ranks in [0, n) drawn from the engine's Zipf generator (rank 0 hottest)");
  m.def("zipf_probability", [](std::uint64_t n, double s, std::uint64_t k) {
    return ZipfGenerator(n, s).probability(k);
  }, "Exact probability of rank k");
  m.def("zipf_buckets", [](std::uint64_t n, double s) { return ZipfGenerator(n, s).buckets(); },
  "Size of the Zipf generator's alias table (rank buckets) for n items at skew s (0 at s = 0)");
  m.def("key_draw_ns", [](std::uint64_t n, double s, std::size_t count, std::uint64_t seed, bool uniform) {
    // The workload's key choice in a tight loop (the table is built before the clock starts):
    // ZipfGenerator::next, or with uniform=True the plain Random::below it replaces at s = 0.
    ZipfGenerator zipf(n, s);
    Random rng(seed);
    std::uint64_t sink = 0;
    std::chrono::steady_clock::time_point start, stop;
    {
      py::gil_scoped_release release;
      start = std::chrono::steady_clock::now();
      if (uniform) {
        for (std::size_t i = 0; i < count; ++i) sink += rng.below(n);
      } else {
        for (std::size_t i = 0; i < count; ++i) sink += zipf.next(rng);
      }
      stop = std::chrono::steady_clock::now();
    }
    asm volatile("" : : "r"(sink) : "memory");
    return std::chrono::duration<double, std::nano>(stop - start).count() / static_cast<double>(count ? count : 1);
  }, py::arg("n"), py::arg("s"), py::arg("count"), py::arg("seed") = 1, py::arg("uniform") = false,
  "Nanoseconds per drawn key: count draws of ranks in [0, n) from the Zipf generator at skew s, "
  "or (uniform=True) from the uniform draw the workload uses at s = 0");

  m.def("latency_quantiles", [](const std::vector<std::uint64_t>& samples, const std::vector<double>& qs) {
    LatencyHistogram h;
    for (auto s : samples) h.record(s);
    std::vector<double> out;
    for (double q : qs) out.push_back(h.quantile(q));
    return out;
  }, "Quantiles of samples (ns) through the engine's latency histogram");
}

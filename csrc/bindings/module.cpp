// The only translation units that include pybind11. One coarse call per run; the GIL is
// released for all of it.
#include <pybind11/pybind11.h>

namespace py = pybind11;

void bind_config(py::module_& m);
void bind_run(py::module_& m);
void bind_structures(py::module_& m);
void bind_transport(py::module_& m);
void bind_bench(py::module_& m);
void bind_perf(py::module_& m);
void bind_log(py::module_& m);
void bind_tpcc_probe(py::module_& m);
void bind_atrapos(py::module_& m);
void bind_running_instance(py::module_& m);
void bind_workloads(py::module_& m);

PYBIND11_MODULE(_core, m) {
  m.doc() = "islands engine core (C++): storage, indexes, concurrency control, workers";
  bind_config(m);
  bind_run(m);
  bind_structures(m);
  bind_transport(m);
  bind_bench(m);
  bind_perf(m);
  bind_log(m);
  bind_tpcc_probe(m);
  bind_atrapos(m);
  bind_running_instance(m);
  bind_workloads(m);
}

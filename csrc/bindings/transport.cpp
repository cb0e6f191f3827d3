// Python handle on one transport endpoint: for tests that drive real processes and for
// `bench ipc`. Per-message calls are fine here; they are never on an engine's measured path.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "islands/common/spin_latch.hpp"
#include "islands/transport/ping_pong.hpp"
#include "islands/transport/transport.hpp"

namespace py = pybind11;
using namespace islands;

namespace {

// Owns the endpoint so close() can end it (and unlink its files) before Python collects the
// handle, and so calls after close() fail with a message instead of touching freed memory.
class TransportHandle {
 public:
  explicit TransportHandle(std::unique_ptr<Transport> transport)
      : transport_(std::move(transport)) {}

  Transport& get() {
    if (!transport_) throw std::runtime_error("transport: the endpoint is closed");
    return *transport_;
  }

  bool send(std::uint32_t dest, MessageType type, std::uint64_t txn_id, const py::bytes& payload) {
    char* data = nullptr;
    Py_ssize_t size = 0;
    PyBytes_AsStringAndSize(payload.ptr(), &data, &size);
    outgoing_.type = type;
    outgoing_.txn_id = txn_id;
    outgoing_.payload.assign(reinterpret_cast<std::uint8_t*>(data),
                             reinterpret_cast<std::uint8_t*>(data) + size);
    return get().send(dest, outgoing_);
  }

  bool send_raw(std::uint32_t dest, const py::bytes& record) {
    char* data = nullptr;
    Py_ssize_t size = 0;
    PyBytes_AsStringAndSize(record.ptr(), &data, &size);
    return get().send_raw(dest, reinterpret_cast<std::uint8_t*>(data),
                          static_cast<std::size_t>(size));
  }

  py::object poll(double timeout_s) {
    Transport& transport = get();
    bool got = transport.poll(incoming_);
    if (!got && timeout_s > 0) {
      // Spin without the GIL so other Python threads run; Backoff yields the CPU once the
      // wait grows, which matters when processes outnumber cores.
      py::gil_scoped_release release;
      const auto end = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(timeout_s));
      Backoff backoff;
      while (!(got = transport.poll(incoming_)) && std::chrono::steady_clock::now() < end) {
        backoff.pause();
      }
    }
    if (!got) return py::none();
    return py::make_tuple(incoming_.type, incoming_.source, incoming_.txn_id,
                          py::bytes(reinterpret_cast<const char*>(incoming_.payload.data()),
                                    incoming_.payload.size()));
  }

  py::dict stats() {
    Transport& t = get();
    const TransportStats& s = t.stats();
    py::dict reasons;
    for (std::size_t r = 1; r < kDecodeStatusCount; ++r) {
      reasons[decode_status_name(static_cast<DecodeStatus>(r))] = s.malformed_by_reason[r];
    }
    py::dict d;
    d["transport"] = t.name();
    d["instance_id"] = t.instance_id();
    d["n_instances"] = t.n_instances();
    d["messages_sent"] = s.messages_sent;
    d["bytes_sent"] = s.bytes_sent;
    d["raw_records_sent"] = s.raw_records_sent;
    d["send_full"] = s.send_full;
    d["messages_received"] = s.messages_received;
    d["bytes_received"] = s.bytes_received;
    d["malformed"] = s.malformed;
    d["malformed_by_reason"] = reasons;
    d["disconnects"] = s.disconnects;
    d["warnings"] = t.warnings();
    return d;
  }

  std::vector<std::uint64_t> ping_pong_with(std::uint32_t peer, bool initiator,
                                            std::size_t round_trips, std::size_t payload_bytes,
                                            double timeout_s) {
    Transport& t = get();
    py::gil_scoped_release release;
    return ping_pong(t, peer, initiator, round_trips, payload_bytes,
                     static_cast<std::uint32_t>(std::ceil(timeout_s * 1000)));
  }

  void close() { transport_.reset(); }

 private:
  std::unique_ptr<Transport> transport_;
  Message outgoing_;
  Message incoming_;
};

}  // namespace

void bind_transport(py::module_& m) {
  py::enum_<MessageType>(m, "MessageType", "Kind of a message between instances (on the wire)")
      .value("fragment", MessageType::fragment)
      .value("vote", MessageType::vote)
      .value("decision", MessageType::decision)
      .value("ack", MessageType::ack)
      .value("shutdown", MessageType::shutdown)
      .value("validate", MessageType::validate);

  py::class_<TransportHandle>(m, "Transport",
                              "One instance's endpoint of a transport mesh (see make_transport)")
      .def("send", &TransportHandle::send, py::arg("dest"), py::arg("type"), py::arg("txn_id"),
           py::arg("payload") = py::bytes(),
           "Queues a message for instance dest; never blocks: False when the channel is full "
           "(poll, then retry). RuntimeError when dest has closed or died.")
      .def("send_raw", &TransportHandle::send_raw, py::arg("dest"), py::arg("record"),
           "Fault injection: queues record unchecked as one record; the receiver must reject "
           "it if malformed. False when the channel is full.")
      .def("poll", &TransportHandle::poll, py::arg("timeout_s") = 0.0,
           "The next message from any peer as (type, source, txn_id, payload), or None when "
           "none arrives within timeout_s (0: do not wait)")
      .def("stats", &TransportHandle::stats,
           "Counters since the endpoint was made, with malformed records per reason")
      .def("ping_pong", &TransportHandle::ping_pong_with, py::arg("peer"), py::arg("initiator"),
           py::arg("round_trips"), py::arg("payload_bytes") = 0, py::arg("timeout_s") = 30.0,
           "Ping-pong with peer (both sides call it). The initiator returns each round trip in "
           "ns; the responder echoes until the initiator is done and returns []")
      .def("close", &TransportHandle::close,
           "Ends the endpoint and unlinks the files it created; further calls raise")
      .def_property_readonly("instance_id", [](TransportHandle& h) { return h.get().instance_id(); })
      .def_property_readonly("n_instances", [](TransportHandle& h) { return h.get().n_instances(); })
      .def_property_readonly("name", [](TransportHandle& h) { return std::string(h.get().name()); })
      .def("__enter__", [](TransportHandle& h) -> TransportHandle& { return h; },
           py::return_value_policy::reference)
      .def("__exit__", [](TransportHandle& h, py::args) { h.close(); });

  m.def(
      "make_transport",
      [](const std::string& name, const std::string& directory, std::uint32_t instance_id,
         std::uint32_t n_instances, std::size_t ring_bytes, std::size_t max_message_bytes,
         double attach_timeout_s) {
        TransportConfig config;
        config.directory = directory;
        config.instance_id = instance_id;
        config.n_instances = n_instances;
        config.ring_bytes = ring_bytes;
        config.max_message_bytes = max_message_bytes;
        if (!(attach_timeout_s > 0) || attach_timeout_s > 86400) {
          throw std::invalid_argument("transport config: attach_timeout_s must be in (0, 86400]");
        }
        config.attach_timeout_ms = static_cast<std::uint32_t>(std::ceil(attach_timeout_s * 1000));
        std::unique_ptr<Transport> transport;
        {
          // Set-up waits for the peers; other Python threads may run meanwhile.
          py::gil_scoped_release release;
          transport = make_transport(name, config);
        }
        return TransportHandle(std::move(transport));
      },
      py::arg("name"), py::arg("directory"), py::arg("instance_id"), py::arg("n_instances"),
      py::arg("ring_bytes") = TransportConfig().ring_bytes,
      py::arg("max_message_bytes") = TransportConfig().max_message_bytes,
      py::arg("attach_timeout_s") = TransportConfig().attach_timeout_ms / 1000.0,
      "Makes instance_id's endpoint of an n_instances mesh over transport name ('unix' or "
      "'shm') in the private directory; waits up to attach_timeout_s for every peer.");
  m.def("transport_names", &transport_names, "Names of the registered transports");
}

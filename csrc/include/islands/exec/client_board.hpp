#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "islands/exec/client_queue.hpp"

namespace islands {

//! The request queue of every instance of a run, as one instance sees them: its own, which its
//! workers pop, and every other instance's, which its workers (as clients) push to. An instance
//! that is the whole deployment keeps its queue on the heap. In a deployment each instance
//! creates its queue in a file "clients-<instance>" of the private run directory (0600,
//! published under its name only once initialised) and maps every peer's, waiting up to
//! `attach_timeout_ms` for it to appear; its own file is removed when the board goes.
//! A PLP instance (engine.execution = plp) has one queue per worker, all on its heap
//! (in_process): a request goes to the worker that owns its home unit.
class ClientBoard {
 public:
  //! Instance `instance` of `instances`, with queues of `capacity` slots (a power of two).
  ClientBoard(std::uint32_t instance, std::uint32_t instances, std::size_t capacity, const std::string& directory,
              std::uint32_t attach_timeout_ms);
  //! `queues` queues of `capacity` slots (a power of two), all on this process's heap, each on
  //! pages of its own (the workers of a PLP instance); own() is queue 0.
  ClientBoard(std::uint32_t queues, std::size_t capacity);
  ~ClientBoard();
  ClientBoard(const ClientBoard&) = delete;
  ClientBoard& operator=(const ClientBoard&) = delete;

  //! The queue of instance `i`.
  ClientQueue& queue(std::uint32_t i) { return queues_[i]; }
  //! This instance's own queue.
  ClientQueue& own() { return queues_[instance_]; }
  //! Queues: instances (a deployment's board) or workers (in_process).
  std::uint32_t instances() const { return static_cast<std::uint32_t>(queues_.size()); }

 private:
  struct Mapping {
    void* address = nullptr;
    std::size_t bytes = 0;
  };
  void create_own(std::size_t capacity, const std::string& directory);
  void attach_peer(std::uint32_t peer, const std::string& directory, std::uint32_t attach_timeout_ms);
  void release();
  void create_on_heap(std::uint32_t i, std::size_t capacity);

  std::uint32_t instance_;
  std::vector<ClientQueue> queues_;
  std::vector<Mapping> mappings_;  // by queue; heap blocks where heap_
  std::string own_path_;           // the published file of this instance's queue (deployments)
  bool heap_ = false;
};

}  // namespace islands

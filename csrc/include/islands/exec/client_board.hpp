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
//! An instance that is not PLP also has a stash per worker, on its heap (add_stashes): a request
//! a worker submits to its own instance waits in that worker's stash rather than in the
//! instance's queue, so that a client answered and served on one core touches no cache line of
//! another (one queue shared by the workers of a 1ISL instance cost a closed loop 60% of its
//! throughput); an idle worker steals from a sibling's stash.
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

  //! Gives this instance's `workers` workers a stash each of `capacity` slots (a power of two).
  void add_stashes(std::uint32_t workers, std::size_t capacity);
  //! The stash of this instance's worker `worker` (add_stashes).
  ClientQueue& stash(std::uint32_t worker) { return stashes_[worker]; }
  //! Stashes (0 without add_stashes).
  std::uint32_t stashes() const { return static_cast<std::uint32_t>(stashes_.size()); }
  //! Requests waiting for this instance now: in its own queue and in its stashes.
  std::uint64_t waiting() const;

 private:
  struct Mapping {
    void* address = nullptr;
    std::size_t bytes = 0;
  };
  void create_own(std::size_t capacity, const std::string& directory);
  void attach_peer(std::uint32_t peer, const std::string& directory, std::uint32_t attach_timeout_ms);
  void release();
  void create_on_heap(std::uint32_t i, std::size_t capacity);
  // A queue of `capacity` slots on pages of its own; `memory` the block to free.
  static ClientQueue queue_on_heap(std::size_t capacity, void*& memory);

  std::uint32_t instance_;
  std::vector<ClientQueue> queues_;
  std::vector<Mapping> mappings_;  // by queue; heap blocks where heap_
  std::vector<ClientQueue> stashes_;
  std::vector<void*> stash_memory_;  // heap blocks of the stashes
  std::string own_path_;           // the published file of this instance's queue (deployments)
  bool heap_ = false;
};

}  // namespace islands

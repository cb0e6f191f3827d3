#pragma once
#include <cstdint>
#include <memory>

#include "islands/exec/instance_config.hpp"
#include "islands/exec/run_stats.hpp"

namespace islands {

class PlpControl;

//! One engine instance of a deployment, run inside its own process: pinned workers that each
//! drive transactions over the whole key range, execute their instance's part locally and the
//! rest by one-shot two-phase commit with the instances that own it (000 Sec 3.1):
//! - the worker whose home site is local coordinates; each participant instance gets its
//!   whole part in one fragment, executes and prepares it, and votes;
//! - a read-only participant releases its locks at once and votes read-only (no phase 2);
//! - an update participant holds its locks and before-images until the decision;
//! - any conflict aborts everywhere (participants lock no-wait; presumed abort);
//! - a worker waiting for votes keeps serving fragments and decisions sent to it, so two
//!   coordinators never deadlock each other.
//! A single-threaded (cc none) instance runs local transactions without locks or latches; the
//! rows of unfinished distributed transactions are still locked and local work respects them.
//! At the end every worker tells every other that it is done and serves until all have, so no
//! fragment is left without its decision.
class Instance {
 public:
  //! Validates the config; starts nothing. A PLP instance's run attaches to `control` (not
  //! owned; null: nothing controls it) while its workers draw (exec/plp/plp_control.hpp).
  explicit Instance(const InstanceConfig& config, PlpControl* control = nullptr);
  //! Stops and joins the workers if they are still running.
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  //! Starts the workers: each pins itself, loads its site and attaches to the transport mesh
  //! (waiting for every peer). Returns when all are ready; throws if any failed.
  void load();
  //! Runs warm-up from start_at_ns (steady clock, CLOCK_MONOTONIC) and the measured window
  //! after it, then the shutdown handshake; returns this instance's statistics.
  RunStats run(std::int64_t start_at_ns, double warmup_s, double duration_s);
  //! After run, once every instance's log is durable (the launcher asks all of them): writes
  //! a snapshot of every row and starts the log afresh after it, so that recovery reads the
  //! snapshot and only the log that follows. Returns false when there is no log to trim.
  bool checkpoint();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

//! What Instance runs: one workload under one concurrency-control scheme (InstanceImpl,
//! instance/instance_impl.hpp).
class Instance::Impl {
 public:
  virtual ~Impl() = default;
  virtual void load() = 0;                                                               //!< see Instance::load
  virtual RunStats run(std::int64_t start_at_ns, double warmup_s, double duration_s) = 0;  //!< see Instance::run
  virtual bool checkpoint() = 0;                                                         //!< see Instance::checkpoint
  virtual void set_plp_control(PlpControl* control) = 0;  //!< the handle a PLP run attaches to (Instance's constructor)
};

}  // namespace islands

#pragma once
#include "islands/settings/cc_kind.hpp"
#include "islands/common/setting_field.hpp"
#include "islands/settings/execution_kind.hpp"
#include "islands/settings/plp_index_kind.hpp"
#include "islands/settings/plp_placement_kind.hpp"
#include "islands/settings/plp_units_kind.hpp"
#include "islands/settings/system_structures_kind.hpp"
#include "islands/index/index_kind.hpp"

namespace islands {

//! The fields of EngineConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_ENGINE_FIELDS(F)                                                                   \
  F(IndexKind, index, IndexKind::hash, kUnbounded, kUnbounded, "primary index structure")          \
  F(CcKind, cc, CcKind::two_pl, kUnbounded, kUnbounded,                                          \
    "concurrency control: none (single-threaded, no locks), 2pl (row-level), table_2pl (table-level), occ (Silo) or mvcc (snapshot isolation)") \
  F(LockPolicy, lock_policy, LockPolicy::wait_die, kUnbounded, kUnbounded, "2PL on a conflict")    \
  F(IsolationLevel, isolation, IsolationLevel::serializable, kUnbounded, kUnbounded,               \
    "serializable, read_committed (read locks released when a statement ends) or snapshot (mvcc)")                  \
  F(bool, latching, true, kUnbounded, kUnbounded, "latch index operations during the run")         \
  F(bool, prefetch, true, kUnbounded, kUnbounded, "prefetch a transaction's index slots and rows ahead") \
  F(std::int32_t, interleave, -1, -1, 64,                                                          \
    "with prefetch: transactions a worker draws ahead of the one it executes, prefetching their index slots and then their rows so that several transactions' misses overlap (0: off; -1, the default: on where the instance's data outgrows the last-level cache, off where it fits; micro over a hash index, others run as with 0)") \
  F(bool, record_history, false, kUnbounded, kUnbounded,                                           \
    "test mode: record each committed transaction's reads and writes for the history checker")    \
  F(bool, test_skip_read_locks, false, kUnbounded, kUnbounded,                                     \
    "test only: grant reads without locking (breaks isolation on purpose; the checker must catch it)") \
  F(ExecutionKind, execution, ExecutionKind::shared_everything, kUnbounded, kUnbounded,            \
    "shared_everything (any worker any row) or plp (partitions owned by workers, actions routed)") \
  F(bool, test_skip_validation, false, kUnbounded, kUnbounded,                                     \
    "test only: occ commits without validating its reads (broken on purpose; the checker must catch it)") \
  F(bool, test_skip_write_conflict, false, kUnbounded, kUnbounded,                                 \
    "test only: mvcc commits without first-committer-wins (broken on purpose; the checker must catch it)") \
  F(SystemStructuresKind, system_structures, SystemStructuresKind::none, kUnbounded, kUnbounded,  \
    "active-transaction list and system-state lock: none, centralized (one for all workers) or per_socket (each worker its socket's)") \
  F(bool, test_count_cross_socket, false, kUnbounded, kUnbounded,                                  \
    "test mode: count each worker's accesses to system structures kept by another socket")         \
  F(double, test_service_us, 0.0, 0.0, 1e6,                                                        \
    "test mode: every transaction busy-waits this many microseconds before its first attempt (a known service time)") \
  F(double, cross_socket_delay_ns, 0.0, 0.0, 1e6, \
    "injected delay on each access to system structures kept by another socket (virtual topologies), ns") \
  F(double, plp_reshuffle_s, 0.0, 0.0, 86400,                                                 \
    "test mode (plp): every this many seconds while transactions run, move 1-3 random routing units to other workers (0: never)") \
  F(bool, test_skip_drain, false, kUnbounded, kUnbounded,                                          \
    "test only (plp): hand moved units over without draining them (broken on purpose; the ownership check must catch it)") \
  F(bool, plp_monitor, false, kUnbounded, kUnbounded,                                              \
    "plp: each worker records ATraPos's trace (actions and cycles per sub-partition, synchronizations per pair)") \
  F(PlpIndexKind, plp_index, PlpIndexKind::per_unit, kUnbounded, kUnbounded,                        \
    "plp: primary indexes as per_unit (one latch-free root per routing unit, touched only by its owner) or shared (one latched root)") \
  F(PlpUnitsKind, plp_units, PlpUnitsKind::shared_key, kUnbounded, kUnbounded,                      \
    "plp: a routing unit is shared_key (every table's rows of one key range, owned together) or per_table (each table's rows of one key range on their own)") \
  F(PlpPlacementKind, plp_placement, PlpPlacementKind::naive, kUnbounded, kUnbounded,               \
    "plp: where units start: naive (every table's units of site i on worker i), workload_aware (one partition of one table per core, sockets ignored) or atrapos (dependent partitions on one socket); the last two need plp_units = per_table") \
  F(std::uint32_t, plp_handoff, 0, 0, 64,                                                           \
    "plp: each worker hands a transaction whose home unit another worker owns to that owner, whole, keeping at most this many handed and unfinished (0: coordinates every transaction it draws itself)") \
  F(std::uint32_t, plp_workers_per_cpu, 1, 1, 16,                                                  \
    "plp, pinned: this many workers on each CPU of driver.cpus, each with its own site and client (2 with per_table naive: 002's oversaturated naive, table t's partition of a CPU on its own worker)")

//! How one engine instance is built: index, concurrency control, latching.
struct EngineConfig {
  ISLANDS_SETTINGS(EngineConfig, "engine", "Index, concurrency control and latching", ISLANDS_ENGINE_FIELDS)

  //! Throws ConfigError naming the field and why (every value of these fields is valid on its
  //! own; RunConfig checks them against the deployment).
  void validate() const { check_fields(*this); }
};

}  // namespace islands

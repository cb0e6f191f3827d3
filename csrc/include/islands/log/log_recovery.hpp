#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "islands/storage/row.hpp"

namespace islands {

//! What recovery found and did.
struct RecoveryStats {
  bool performed = false;             //!< a log was found and replayed
  std::uint64_t records = 0;          //!< valid records read
  std::uint64_t txns_redone = 0;      //!< committed transactions (or parts) whose redo was applied or command replayed
  std::uint64_t commands_replayed = 0;  //!< of those, command records executed again (log.content = command)
  std::uint64_t rows_redone = 0;      //!< redo entries applied (after-images and deletes)
  std::uint64_t prepared_committed = 0;  //!< prepared parts whose commit was found
  std::uint64_t prepared_aborted = 0;    //!< prepared parts aborted (told so, or presumed)
  std::uint64_t in_doubt = 0;         //!< prepared parts with no outcome in this log (resolved from the coordinator's)
  std::uint64_t discarded = 0;        //!< transactions logged without a commit (not applied)
  std::uint64_t base_lsn = 0;         //!< LSN of the log file's first byte
  std::uint64_t valid_bytes = 0;      //!< bytes of the log file up to its last valid record
  std::uint64_t end_lsn = 0;          //!< LSN after the last valid record: new records start here
  std::uint32_t max_epoch = 0;        //!< the last epoch this instance logged in (0: none)
  std::string tail_note;              //!< empty, or what was cut from a torn or truncated tail
  std::uint64_t snapshot_rows = 0;    //!< rows loaded from the checkpoint snapshot (0: none)
  std::uint64_t snapshot_lsn = 0;     //!< the LSN the snapshot covers up to (older records are skipped)
  std::uint32_t snapshot_epoch = 0;   //!< the epoch of the run whose checkpoint the snapshot is (0: none)
  std::uint64_t acknowledged = 0;     //!< commits acks-<site>.bin says were acknowledged that the log must hold
  std::uint64_t acknowledged_recovered = 0;  //!< how many of those the log holds (always all: fewer is refused)
  double seconds = 0;                 //!< time recovery took
};

//! What recovery applies to an instance's data (the workload's redo interface).
struct RedoTarget {
  //! Before a checkpoint snapshot's rows: drops the rows a fresh load made in the tables whose
  //! rows transactions insert or delete, with their index entries, so that the snapshot (which
  //! holds every row as of the checkpoint) leaves none it no longer holds; rows of the other
  //! tables it overwrites in place.
  std::function<void()> clear;
  //! Applies one after-image (key, image of `columns` columns): overwrites the row (its first
  //! `columns` columns) or inserts it into its table and every index (the workload decides
  //! from the key); false when the row cannot be this instance's (an unknown key, another
  //! width).
  std::function<bool(std::uint64_t key, const std::int32_t* image, std::size_t columns)> apply;
  //! Applies one delete: removes the row of `key` from its table and every index; false when
  //! this instance holds no such row.
  std::function<bool(std::uint64_t key)> erase;
  //! Executes one command record's transaction again (its `n` words, at wall_seconds
  //! `wall_seconds`; log.content = command); false when it does not commit, or its words are
  //! no command of the workload: the log does not fit the data. Empty for a workload that logs
  //! no commands.
  std::function<bool(const std::uint64_t* words, std::size_t n, std::int32_t wall_seconds)> replay;
};

//! Replays instance `instance`'s checkpoint snapshot (when there is one) and then its log in
//! `directory` onto freshly loaded data (target.clear() first when there is a snapshot),
//! skipping records the snapshot covers; applies (after-images and deletes), in log
//! order, the redo of local commits, of its coordinator decisions and of prepared parts that
//! committed; discards everything else. A prepared part with no outcome in this log is in
//! doubt: its coordinator instance's log decides (a forced commit decision there means commit;
//! none means abort: presumed abort). `columns` is the run's widest row (a log written by
//! another configuration is refused). Throws std::runtime_error for a corrupt log (with LSN and
//! offset) or a log that does not fit the data (a row `redo` cannot hold, other columns).
//!
//! Lost commits are refused too, as far as they can be told. A log that starts after LSN 0
//! follows a checkpoint: without its snapshot every commit before it would be lost. And when
//! the instance's sites [first_site, first_site + sites) kept acknowledgement files
//! (acks-<site>.bin, log.record_acks), every commit they list that the snapshot does not
//! cover (its epoch is after the snapshot's: a checkpoint is taken with no transaction
//! running, after every acknowledgement of its run) must be a commit or coordinator decision
//! in this log, and so must the prepare record of each of its parts of a distributed commit
//! that some site acknowledged (a peer's coordinator decision naming this instance; read from
//! the peers' logs, instance-0.log on, and every acks-*.bin in the directory): one missing
//! is a log cut at a record boundary, or replaced by an older one,
//! which no checksum shows. Without acknowledgement files such a cut after the last record
//! anyone saw cannot be told from a run that committed less: no write-ahead log can.
RecoveryStats recover_from_log(const std::string& directory, std::uint32_t instance, std::uint16_t columns,
                               const RedoTarget& target, std::uint32_t first_site = 0, std::uint32_t sites = 0);

//! Path of the acknowledgement file of site `site` in `directory` (log.record_acks).
std::string ack_file_path(const std::string& directory, std::uint32_t site);

}  // namespace islands

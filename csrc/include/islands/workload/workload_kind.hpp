#pragma once
#include <string>
#include <vector>

namespace islands {

//! The workloads an instance can run, chosen at run time by name.
//! micro: the microbenchmark of paper 000 (MicroConfig).
//! tpcb: TPC-B AccountUpdate (TpcbConfig).
//! tatp: TATP's seven transactions (TatpConfig).
//! tpcc: TPC-C's five transactions (TpccConfig).
enum class WorkloadKind { micro, tpcb, tatp, tpcc };

const char* workload_kind_name(WorkloadKind kind);         //!< "micro", "tpcb"
//! The kind called name; throws std::invalid_argument ("workload: ...") listing the names.
WorkloadKind parse_workload_kind(const std::string& name);
std::vector<std::string> workload_names();                 //!< every name, in registry order
//! Whether the workload's writes reach the write-ahead log (redo captured, recovery, checkpoints).
bool workload_logs(WorkloadKind kind);
std::vector<std::string> logged_workload_names();          //!< the names of those that do

}  // namespace islands

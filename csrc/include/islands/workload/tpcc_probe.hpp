#pragma once
// A test hook for TPC-C's consistency conditions: loads a configuration's sites in one
// instance, runs transactions on one thread, optionally breaks one row, and reads the figures.
#include <cstdint>
#include <string>
#include <vector>

#include "islands/exec/run_config.hpp"
#include "islands/exec/run_stats.hpp"

namespace islands {

//! What tpcc_probe found.
struct TpccProbe {
  CheckMap figures;                   //!< check_figures() after the transactions (and the corruption)
  std::vector<std::string> failures;  //!< the conditions those figures violate
  bool corrupted = false;             //!< whether a row to corrupt was found
  std::uint64_t committed = 0;        //!< transactions committed
};

//! Loads `config`'s sites (one per CPU of its driver) in one instance (hash index, no locking),
//! commits `transactions` transactions drawn from its mix on one thread (home sites in turn),
//! then applies `corruption` ("" for none; see TpccWorkload::corrupt_for_test) and checks.
TpccProbe tpcc_probe(const RunConfig& config, std::uint64_t transactions, const std::string& corruption);

}  // namespace islands

#pragma once
#include "islands/settings/micro_config.hpp"
#include "islands/settings/tatp_config.hpp"
#include "islands/settings/tpcb_config.hpp"
#include "islands/settings/tpcc_config.hpp"

//! The workload registry: one line per workload, X(name, Config). `name` is the workload's
//! run-time name, the RunConfig member holding its settings and the Python config section;
//! `Config` is its settings struct. The workload's own .cpp defines workload_entry_<name>()
//! (see exec/workload_registry.hpp). Adding a workload: its files, an include and a line here.
#define ISLANDS_WORKLOADS(X) \
  X(micro, MicroConfig)      \
  X(tpcb, TpcbConfig)        \
  X(tatp, TatpConfig)        \
  X(tpcc, TpccConfig)

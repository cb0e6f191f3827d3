#pragma once
#include <cstddef>

#include "islands/exec/run_config.hpp"
#include "islands/workload/micro_workload.hpp"
#include "islands/workload/tatp_workload.hpp"
#include "islands/workload/tpcb_workload.hpp"
#include "islands/workload/tpcc_workload.hpp"
#include "islands/workload/workload_kind.hpp"

namespace islands {

//! Names a workload type for with_workload's callback.
template <class W>
struct WorkloadTag {
  using type = W;
};

//! Calls f(WorkloadTag<W>{}) with the workload type the config names (one switch at run start;
//! every workload is compiled into the one binary).
template <class Index, class F>
decltype(auto) with_workload(const RunConfig& config, F&& f) {
  switch (parse_workload_kind(config.workload)) {
    case WorkloadKind::tpcb:
      return f(WorkloadTag<TpcbWorkload<Index>>{});
    case WorkloadKind::tatp:
      return f(WorkloadTag<TatpWorkload<Index>>{});
    case WorkloadKind::tpcc:
      return f(WorkloadTag<TpccWorkload<Index>>{});
    case WorkloadKind::micro:
    default:
      return f(WorkloadTag<MicroWorkload<Index>>{});
  }
}

//! Builds workload W for an instance holding global sites [first_site, first_site + sites)
//! of total_sites (0: this instance is the whole deployment).
template <class W>
W make_workload(const RunConfig& config, std::size_t sites, std::size_t first_site = 0,
                std::size_t total_sites = 0) {
  if constexpr (std::is_same_v<W, TpcbWorkload<typename W::IndexType>>) {
    return W(config.tpcb, config.engine, sites, first_site, total_sites);
  } else if constexpr (std::is_same_v<W, TpccWorkload<typename W::IndexType>>) {
    return W(config.tpcc, config.engine, sites, first_site, total_sites);
  } else if constexpr (std::is_same_v<W, TatpWorkload<typename W::IndexType>>) {
    return W(config.tatp, config.engine, sites, first_site, total_sites);
  } else {
    return W(config.micro, config.engine, sites, first_site, total_sites);
  }
}

}  // namespace islands

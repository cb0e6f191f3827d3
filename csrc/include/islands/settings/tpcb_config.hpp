#pragma once
#include <cstdint>
#include <string>

#include "islands/common/setting_field.hpp"

namespace islands {

//! The fields of TpcbConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_TPCB_FIELDS(F)                                                                                  \
  F(std::uint32_t, branches_per_site, 1, 1, 1000000, "branches in each site (one site per worker core)")        \
  F(std::uint32_t, tellers_per_branch, 10, 1, 1000000, "tellers of a branch (specification: 10)")               \
  F(std::uint32_t, accounts_per_branch, 100000, 1, 100000000, "accounts of a branch (specification: 100000)")   \
  F(double, remote, 0.15, 0, 1, "fraction of remote transactions (see remote_pick), 0..1")                        \
  F(std::string, remote_pick, "teller", kUnbounded, kUnbounded,                                                 \
    "what a remote transaction takes from another branch: teller (paper 000) or account (the specification)")

//! TPC-B (000 Sec 3.3, 8.1-8.2): Branch, Teller, Account and History; one transaction,
//! AccountUpdate, that adds a delta to one account, one teller and the account's branch and
//! inserts a History row. Partitioned by branch: site s holds branches
//! [s * branches_per_site, (s + 1) * branches_per_site) with their tellers, accounts and
//! history. A remote transaction takes, from another branch drawn uniformly, a teller (paper
//! 000's choice: the account's branch is updated) or an account (the specification's clause
//! 5.3.5: the teller's branch is updated).
struct TpcbConfig {
  ISLANDS_SETTINGS(TpcbConfig, "tpcb", "TPC-B parameters (paper 000, Sec 3.3, 8.1-8.2)", ISLANDS_TPCB_FIELDS)

  //! Throws ConfigError naming the field and why.
  void validate() const;
  //! Whether a remote transaction takes an account of another branch (remote_pick = account).
  bool remote_account() const { return remote_pick == "account"; }
  //! The same, plus that the deployment's `total_sites` sites hold enough branches.
  void validate_fit(std::uint64_t total_sites) const;
};

}  // namespace islands

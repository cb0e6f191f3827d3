#pragma once
#include <cstdint>

namespace islands {

//! TPC-B (000 Sec 3.3, 8.1-8.2): Branch, Teller, Account and History; one transaction,
//! AccountUpdate, that adds a delta to one account, one teller and the account's branch and
//! inserts a History row. Partitioned by branch: site s holds branches
//! [s * branches_per_site, (s + 1) * branches_per_site) with their tellers, accounts and
//! history. A remote transaction updates a teller of another branch, drawn uniformly.
struct TpcbConfig {
  std::uint32_t branches_per_site = 1;       //!< branches in each site (one site per worker)
  std::uint32_t tellers_per_branch = 10;     //!< tellers of a branch (specification: 10)
  std::uint32_t accounts_per_branch = 100000;  //!< accounts of a branch (specification: 100000)
  double remote = 0.15;                      //!< fraction of transactions with a teller of another branch, 0..1

  //! Throws std::invalid_argument naming the field and why.
  void validate() const;
  //! The same, plus that the deployment's `total_sites` sites hold enough branches.
  void validate_fit(std::uint64_t total_sites) const;
};

}  // namespace islands

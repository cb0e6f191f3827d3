#include "islands/workload/tpcb_config.hpp"

#include <stdexcept>
#include <string>

namespace islands {

void TpcbConfig::validate() const {
  if (branches_per_site == 0 || branches_per_site > 1000000) {
    throw std::invalid_argument("branches_per_site: must be between 1 and 1000000, got " +
                                std::to_string(branches_per_site));
  }
  if (tellers_per_branch == 0 || tellers_per_branch > 1000000) {
    throw std::invalid_argument("tellers_per_branch: must be between 1 and 1000000, got " +
                                std::to_string(tellers_per_branch));
  }
  if (accounts_per_branch == 0 || accounts_per_branch > 100000000) {
    throw std::invalid_argument("accounts_per_branch: must be between 1 and 100000000, got " +
                                std::to_string(accounts_per_branch));
  }
  if (!(remote >= 0.0 && remote <= 1.0)) {
    throw std::invalid_argument("remote: must be a fraction between 0 and 1, got " + std::to_string(remote));
  }
}

void TpcbConfig::validate_fit(std::uint64_t total_sites) const {
  validate();
  const std::uint64_t branches = total_sites * branches_per_site;
  if (remote > 0.0 && branches < 2) {
    throw std::invalid_argument(
        "remote: a remote transaction needs a second branch but the deployment holds " +
        std::to_string(branches) + " (use remote = 0, branches_per_site >= 2, or more cores)");
  }
  const double rows = static_cast<double>(branches) * (static_cast<double>(accounts_per_branch) +
                                                       tellers_per_branch + 1);
  if (rows >= 2.0e14) {
    throw std::invalid_argument("accounts_per_branch: " + std::to_string(branches) +
                                " branches of this size do not fit in 48-bit row ids");
  }
}

}  // namespace islands

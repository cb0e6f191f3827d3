#include "islands/settings/tpcb_config.hpp"

#include <string>

namespace islands {

void TpcbConfig::validate() const {
  check_fields(*this);
  if (remote_pick != "teller" && remote_pick != "account") {
    throw ConfigError("tpcb.remote_pick", "'" + remote_pick + "' is neither teller nor account");
  }
}

void TpcbConfig::validate_fit(std::uint64_t total_sites) const {
  validate();
  const std::uint64_t branches = total_sites * branches_per_site;
  if (remote > 0.0 && branches < 2) {
    throw ConfigError("tpcb.remote", "a remote transaction needs a second branch but the deployment holds " +
                                         std::to_string(branches) +
                                         " (use remote = 0, branches_per_site >= 2, or more cores)");
  }
  const double rows = static_cast<double>(branches) * (static_cast<double>(accounts_per_branch) +
                                                       tellers_per_branch + 1);
  if (rows >= 2.0e14) {
    throw ConfigError("tpcb.accounts_per_branch",
                      std::to_string(branches) + " branches of this size do not fit in 48-bit row ids");
  }
}

}  // namespace islands

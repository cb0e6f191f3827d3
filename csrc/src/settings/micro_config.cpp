#include "islands/settings/micro_config.hpp"

#include <string>

namespace islands {

void MicroConfig::validate() const {
  check_fields(*this);
  if (read_share > 0 && !update) {
    throw ConfigError("micro.update", "read_share (a read/update mix) needs update = true (without it every transaction reads)");
  }
  if (rows_per_txn > rows_per_site) {
    throw ConfigError("micro.rows_per_txn", std::to_string(rows_per_txn) +
                                                " rows per transaction do not fit in a site of " +
                                                std::to_string(rows_per_site) + " rows");
  }
}

}  // namespace islands

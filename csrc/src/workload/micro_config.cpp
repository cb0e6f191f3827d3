#include "islands/workload/micro_config.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "islands/common/zipf.hpp"

namespace islands {

void MicroConfig::validate() const {
  if (rows_per_site == 0) throw std::invalid_argument("rows_per_site: must be at least 1");
  if (columns == 0 || columns > 4096) {
    throw std::invalid_argument("columns: must be between 1 and 4096, got " + std::to_string(columns));
  }
  if (rows_per_txn == 0) throw std::invalid_argument("rows_per_txn: must be at least 1");
  if (rows_per_txn > rows_per_site) {
    throw std::invalid_argument("rows_per_txn: " + std::to_string(rows_per_txn) +
                                " rows per transaction do not fit in a site of " +
                                std::to_string(rows_per_site) + " rows");
  }
  if (!(multisite >= 0.0 && multisite <= 1.0)) {
    throw std::invalid_argument("multisite: must be a fraction between 0 and 1, got " +
                                std::to_string(multisite));
  }
  if (!(zipf_s >= 0.0 && zipf_s <= ZipfGenerator::kMaxSkew)) {
    throw std::invalid_argument("zipf_s: must be between 0 and " +
                                std::to_string(static_cast<int>(ZipfGenerator::kMaxSkew)) +
                                ", got " + std::to_string(zipf_s));
  }
}

}  // namespace islands

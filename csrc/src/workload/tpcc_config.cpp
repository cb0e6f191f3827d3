#include "islands/workload/tpcc_config.hpp"

#include <string>

#include "islands/workload/transaction_mix.hpp"

namespace islands {

const std::array<const char*, kTpccTxnTypes> kTpccTxnNames = {"new_order", "payment", "order_status",
                                                               "delivery", "stock_level"};

std::array<std::uint32_t, kTpccTxnTypes> parse_tpcc_mix(const std::string& mix) {
  // Weights in the order new_order, payment, order_status, delivery, stock_level; paper 004's
  // mixes are named read-only share first (OrderStatus + StockLevel : the rest).
  return parse_mix(mix, kTpccTxnNames,
                   {{"standard", {45, 43, 4, 4, 4}},
                    {"50-50", {24, 23, 25, 3, 25}},
                    {"80-20", {10, 9, 40, 1, 40}},
                    {"100-0", {0, 0, 50, 0, 50}}},
                   "tpcc.mix");
}

void TpccConfig::validate() const {
  check_fields(*this);
  parse_tpcc_mix(mix);
}

void TpccConfig::validate_fit(std::uint64_t total_sites) const {
  validate();
  const std::uint64_t warehouses = total_sites * warehouses_per_site;
  if (warehouses >= (1u << 16)) {
    throw ConfigError("tpcc.warehouses_per_site",
                      std::to_string(warehouses) + " warehouses do not fit (at most 65535)");
  }
  if (warehouses < 2 && (payment_remote > 0 || new_order_remote_item > 0)) {
    throw ConfigError(
        "tpcc.payment_remote",
        "remote payments and items need a second warehouse but the deployment holds " +
        std::to_string(warehouses) +
        " (set payment_remote and new_order_remote_item to 0, warehouses_per_site >= 2, or use more cores)");
  }
}

}  // namespace islands

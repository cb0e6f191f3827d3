#include "islands/settings/tpcc_config.hpp"

#include <string>

#include "islands/settings/transaction_mix.hpp"

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
  if (layout != "spec" && layout != "narrow") {
    throw ConfigError("tpcc.layout", "'" + layout + "' is neither spec nor narrow");
  }
}

}  // namespace islands

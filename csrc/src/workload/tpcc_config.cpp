#include "islands/workload/tpcc_config.hpp"

#include <string>

namespace islands {

const std::array<const char*, kTpccTxnTypes> kTpccTxnNames = {"new_order", "payment", "order_status",
                                                               "delivery", "stock_level"};

namespace {

std::size_t index_of(const std::string& name) {
  for (std::size_t i = 0; i < kTpccTxnTypes; ++i) {
    if (name == kTpccTxnNames[i]) return i;
  }
  throw ConfigError("tpcc.mix", "unknown transaction '" + name +
                              "' (choose standard, 50-50, 80-20, 100-0, new_order, payment, order_status, "
                              "delivery, stock_level, or name:weight,...)");
}

}  // namespace

std::array<std::uint32_t, kTpccTxnTypes> parse_tpcc_mix(const std::string& mix) {
  // Order: new_order, payment, order_status, delivery, stock_level.
  if (mix == "standard") return {45, 43, 4, 4, 4};
  if (mix == "50-50") return {24, 23, 25, 3, 25};
  if (mix == "80-20") return {10, 9, 40, 1, 40};
  if (mix == "100-0") return {0, 0, 50, 0, 50};
  std::array<std::uint32_t, kTpccTxnTypes> weights{};
  if (mix.find(':') == std::string::npos && mix.find(',') == std::string::npos) {
    weights[index_of(mix)] = 100;
    return weights;
  }
  std::uint32_t total = 0;
  std::size_t at = 0;
  while (at <= mix.size()) {
    std::size_t end = mix.find(',', at);
    if (end == std::string::npos) end = mix.size();
    const std::string item = mix.substr(at, end - at);
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos) throw ConfigError("tpcc.mix", "'" + item + "' is not name:weight");
    const std::size_t i = index_of(item.substr(0, colon));
    const std::string weight = item.substr(colon + 1);
    if (weight.empty() || weight.size() > 3 || weight.find_first_not_of("0123456789") != std::string::npos) {
      throw ConfigError("tpcc.mix", "weight '" + weight + "' of " + kTpccTxnNames[i] + " is not a whole number 0..100");
    }
    if (weights[i] != 0) throw ConfigError("tpcc.mix", std::string() + kTpccTxnNames[i] + " is listed twice");
    weights[i] = static_cast<std::uint32_t>(std::stoul(weight));
    total += weights[i];
    at = end + 1;
  }
  if (total != 100) throw ConfigError("tpcc.mix", "the weights sum to " + std::to_string(total) + ", not 100");
  return weights;
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

#include "islands/workload/tpcc_config.hpp"

#include <stdexcept>

namespace islands {

const std::array<const char*, kTpccTxnTypes> kTpccTxnNames = {"new_order", "payment", "order_status",
                                                               "delivery", "stock_level"};

namespace {

std::size_t index_of(const std::string& name) {
  for (std::size_t i = 0; i < kTpccTxnTypes; ++i) {
    if (name == kTpccTxnNames[i]) return i;
  }
  throw std::invalid_argument("mix: unknown transaction '" + name +
                              "' (choose standard, 50-50, 80-20, 100-0, new_order, payment, order_status, "
                              "delivery, stock_level, or name:weight,...)");
}

void check_fraction(const char* field, double value) {
  if (!(value >= 0.0 && value <= 1.0)) {
    throw std::invalid_argument(std::string(field) + ": must be a fraction between 0 and 1, got " +
                                std::to_string(value));
  }
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
    if (colon == std::string::npos) throw std::invalid_argument("mix: '" + item + "' is not name:weight");
    const std::size_t i = index_of(item.substr(0, colon));
    const std::string weight = item.substr(colon + 1);
    if (weight.empty() || weight.size() > 3 || weight.find_first_not_of("0123456789") != std::string::npos) {
      throw std::invalid_argument("mix: weight '" + weight + "' of " + kTpccTxnNames[i] + " is not a whole number 0..100");
    }
    if (weights[i] != 0) throw std::invalid_argument(std::string("mix: ") + kTpccTxnNames[i] + " is listed twice");
    weights[i] = static_cast<std::uint32_t>(std::stoul(weight));
    total += weights[i];
    at = end + 1;
  }
  if (total != 100) throw std::invalid_argument("mix: the weights sum to " + std::to_string(total) + ", not 100");
  return weights;
}

void TpccConfig::validate() const {
  if (warehouses_per_site == 0 || warehouses_per_site > 64) {
    throw std::invalid_argument("warehouses_per_site: must be between 1 and 64, got " + std::to_string(warehouses_per_site));
  }
  if (items < 15 || items > 1000000) {
    throw std::invalid_argument("items: must be between 15 and 1000000, got " + std::to_string(items));
  }
  if (customers_per_district < 10 || customers_per_district > 100000) {
    throw std::invalid_argument("customers_per_district: must be between 10 and 100000, got " +
                                std::to_string(customers_per_district));
  }
  check_fraction("new_order_remote_item", new_order_remote_item);
  check_fraction("new_order_rollback", new_order_rollback);
  check_fraction("payment_remote", payment_remote);
  check_fraction("payment_by_name", payment_by_name);
  parse_tpcc_mix(mix);
}

void TpccConfig::validate_fit(std::uint64_t total_sites) const {
  validate();
  const std::uint64_t warehouses = total_sites * warehouses_per_site;
  if (warehouses >= (1u << 16)) {
    throw std::invalid_argument("warehouses_per_site: " + std::to_string(warehouses) +
                                " warehouses do not fit (at most 65535)");
  }
  if (warehouses < 2 && (payment_remote > 0 || new_order_remote_item > 0)) {
    throw std::invalid_argument(
        "payment_remote: remote payments and items need a second warehouse but the deployment holds " +
        std::to_string(warehouses) +
        " (set payment_remote and new_order_remote_item to 0, warehouses_per_site >= 2, or use more cores)");
  }
}

}  // namespace islands

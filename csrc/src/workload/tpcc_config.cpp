#include "islands/workload/tpcc_config.hpp"

#include <cstdio>
#include <string>

#include "islands/storage/table.hpp"
#include "islands/workload/tpcc_schema.hpp"
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
  if (layout != "spec" && layout != "narrow") {
    throw ConfigError("tpcc.layout", "'" + layout + "' is neither spec nor narrow");
  }
}

std::uint64_t TpccConfig::load_bytes(std::uint64_t total_sites) const {
  using namespace tpcc;
  const bool spec = spec_layout();
  const auto stride = [&](std::uint32_t narrow, std::uint32_t wide) { return Row::stride(spec ? wide : narrow); };
  // Tables other than Stock and Item grow in chunks of 4096 rows per site (storage/table.cpp).
  const auto chunked = [&](std::uint64_t rows) {
    const std::uint64_t per_site = (rows + total_sites - 1) / total_sites;
    return total_sites * ((per_site + 4095) / 4096 * 4096);
  };
  const std::uint64_t w = total_sites * warehouses_per_site, cpd = customers_per_district;
  const std::uint64_t customers = w * kDistricts * cpd;
  const std::uint64_t lines = customers * 10;  // 5-15 per order, one order per customer
  std::uint64_t bytes = chunked(w) * stride(Warehouse::kColumns, Warehouse::kSpecColumns) +
                        chunked(w * kDistricts) * stride(District::kColumns, District::kSpecColumns) +
                        chunked(customers) * stride(Customer::kColumns, Customer::kSpecColumns) +
                        chunked(customers) * stride(History::kColumns, History::kSpecColumns) +
                        chunked(customers) * stride(Order::kColumns, Order::kSpecColumns) +
                        chunked(customers * 3 / 10) * stride(NewOrder::kColumns, NewOrder::kSpecColumns) +
                        chunked(lines) * stride(OrderLine::kColumns, OrderLine::kSpecColumns) +
                        w * std::uint64_t{items} * stride(Stock::kColumns, Stock::kSpecColumns) +
                        total_sites * std::uint64_t{items} * stride(Item::kColumns, Item::kSpecColumns);
  // The primary index (kIndexBytesPerKey a key), the order B+tree (about 48 bytes a key), the
  // last-name lists.
  const std::uint64_t keys = total_sites * std::uint64_t{items} + w * (items + 11 + 2 * customers / w + lines / w);
  bytes += keys * kIndexBytesPerKey + customers * 48 + customers * 8 + w * kDistricts * kLastNames * 24;
  return bytes;
}

void TpccConfig::validate_fit(std::uint64_t total_sites) const {
  validate();
  const std::uint64_t warehouses = total_sites * warehouses_per_site;
  if (warehouses >= (1u << 16)) {
    throw ConfigError("tpcc.warehouses_per_site",
                      std::to_string(warehouses) + " warehouses do not fit (at most 65535)");
  }
  const std::uint64_t need = load_bytes(total_sites), available = available_memory_bytes();
  if (available > 0 && static_cast<double>(need) > memory_budget * static_cast<double>(available)) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "the load of %llu warehouses (%s layout) needs about %.2f GiB but tpcc.memory_budget %.2f of the "
                  "%.2f GiB available allows %.2f GiB: lower warehouses_per_site, items or customers_per_district",
                  static_cast<unsigned long long>(warehouses), layout.c_str(), static_cast<double>(need) / (1 << 30),
                  memory_budget, static_cast<double>(available) / (1 << 30),
                  memory_budget * static_cast<double>(available) / (1 << 30));
    throw ConfigError("tpcc.warehouses_per_site", line);
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

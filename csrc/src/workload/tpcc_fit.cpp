#include "islands/workload/tpcc_fit.hpp"

#include <cstdio>
#include <string>

#include "islands/common/config_error.hpp"
#include "islands/common/system_memory.hpp"
#include "islands/storage/row.hpp"
#include "islands/workload/tpcc_schema.hpp"

namespace islands {

std::vector<TableLoad> tpcc_load_size(const TpccConfig& config) {
  using namespace tpcc;
  const bool spec = config.spec_layout();
  const auto width = [&](std::uint32_t narrow, std::uint32_t wide) -> std::size_t { return spec ? wide : narrow; };
  const std::uint64_t w = config.warehouses_per_site, districts = w * kDistricts;
  const std::uint64_t customers = districts * config.customers_per_district;  // and orders, history rows
  const std::uint64_t new_orders = districts * (config.customers_per_district * 3 / 10);  // the last 30% of orders
  // A key is up to kIndexBytesPerKey of hash slots or B+tree entries; an order also has an entry
  // in the by-customer B+tree (about 48 bytes); each district has kLastNames last-name lists (a
  // vector, 24 bytes) and each customer a pointer in one.
  const std::uint64_t key = kIndexBytesPerKey;
  // Tables other than Stock and Item grow in chunks (storage/table.hpp); Stock and Item are reserved.
  std::vector<TableLoad> tables{
      fixed_table("warehouse", width(Warehouse::kColumns, Warehouse::kSpecColumns), w, key, true),
      fixed_table("district", width(District::kColumns, District::kSpecColumns), districts, key + kLastNames * 24, true),
      fixed_table("customer", width(Customer::kColumns, Customer::kSpecColumns), customers, key + 8, true),
      fixed_table("history", width(History::kColumns, History::kSpecColumns), customers, 0, true),
      fixed_table("orders", width(Order::kColumns, Order::kSpecColumns), customers, key + 48, true),
      fixed_table("new_order", width(NewOrder::kColumns, NewOrder::kSpecColumns), new_orders, key, true),
      // 5-15 lines an order
      drawn_table("order_line", width(OrderLine::kColumns, OrderLine::kSpecColumns), 10.0 * static_cast<double>(customers),
                  5 * customers, 15 * customers, key),
      fixed_table("item", width(Item::kColumns, Item::kSpecColumns), 0, key),
      fixed_table("stock", width(Stock::kColumns, Stock::kSpecColumns), w * std::uint64_t{config.items}, key)};
  tables[7].rows_per_instance = config.items;  // read-only, one copy an instance
  return tables;
}

std::uint64_t tpcc_load_bytes(const TpccConfig& config, std::uint64_t total_sites) {
  return load_bytes(tpcc_load_size(config), total_sites, total_sites);
}

void validate_tpcc_fit(const TpccConfig& config, std::uint64_t total_sites) {
  config.validate();
  const std::uint64_t warehouses = total_sites * config.warehouses_per_site;
  if (warehouses >= (1u << 16)) {
    throw ConfigError("tpcc.warehouses_per_site",
                      std::to_string(warehouses) + " warehouses do not fit (at most 65535)");
  }
  const std::uint64_t need = tpcc_load_bytes(config, total_sites), available = available_memory_bytes();
  if (available > 0 && static_cast<double>(need) > config.memory_budget * static_cast<double>(available)) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "the load of %llu warehouses (%s layout) needs about %.2f GiB but tpcc.memory_budget %.2f of the "
                  "%.2f GiB available allows %.2f GiB: lower warehouses_per_site, items or customers_per_district",
                  static_cast<unsigned long long>(warehouses), config.layout.c_str(), static_cast<double>(need) / (1 << 30),
                  config.memory_budget, static_cast<double>(available) / (1 << 30),
                  config.memory_budget * static_cast<double>(available) / (1 << 30));
    throw ConfigError("tpcc.warehouses_per_site", line);
  }
  if (warehouses < 2 && (config.payment_remote > 0 || config.new_order_remote_item > 0)) {
    throw ConfigError(
        "tpcc.payment_remote",
        "remote payments and items need a second warehouse but the deployment holds " +
        std::to_string(warehouses) +
        " (set payment_remote and new_order_remote_item to 0, warehouses_per_site >= 2, or use more cores)");
  }
}

}  // namespace islands

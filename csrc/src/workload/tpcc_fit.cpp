#include "islands/workload/tpcc_fit.hpp"

#include <cstdio>
#include <string>

#include "islands/common/config_error.hpp"
#include "islands/common/system_memory.hpp"
#include "islands/storage/row.hpp"
#include "islands/workload/tpcc_schema.hpp"

namespace islands {

std::uint64_t tpcc_load_bytes(const TpccConfig& config, std::uint64_t total_sites) {
  using namespace tpcc;
  const bool spec = config.spec_layout();
  const auto stride = [&](std::uint32_t narrow, std::uint32_t wide) { return Row::stride(spec ? wide : narrow); };
  // Tables other than Stock and Item grow in chunks of 4096 rows per site (storage/table.cpp).
  const auto chunked = [&](std::uint64_t rows) {
    const std::uint64_t per_site = (rows + total_sites - 1) / total_sites;
    return total_sites * ((per_site + 4095) / 4096 * 4096);
  };
  const std::uint64_t w = total_sites * config.warehouses_per_site, cpd = config.customers_per_district;
  const std::uint64_t customers = w * kDistricts * cpd;
  const std::uint64_t lines = customers * 10;  // 5-15 per order, one order per customer
  std::uint64_t bytes = chunked(w) * stride(Warehouse::kColumns, Warehouse::kSpecColumns) +
                        chunked(w * kDistricts) * stride(District::kColumns, District::kSpecColumns) +
                        chunked(customers) * stride(Customer::kColumns, Customer::kSpecColumns) +
                        chunked(customers) * stride(History::kColumns, History::kSpecColumns) +
                        chunked(customers) * stride(Order::kColumns, Order::kSpecColumns) +
                        chunked(customers * 3 / 10) * stride(NewOrder::kColumns, NewOrder::kSpecColumns) +
                        chunked(lines) * stride(OrderLine::kColumns, OrderLine::kSpecColumns) +
                        w * std::uint64_t{config.items} * stride(Stock::kColumns, Stock::kSpecColumns) +
                        total_sites * std::uint64_t{config.items} * stride(Item::kColumns, Item::kSpecColumns);
  // The primary index (kIndexBytesPerKey a key), the order B+tree (about 48 bytes a key), the
  // last-name lists.
  const std::uint64_t keys = total_sites * std::uint64_t{config.items} + w * (config.items + 11 + 2 * customers / w + lines / w);
  bytes += keys * kIndexBytesPerKey + customers * 48 + customers * 8 + w * kDistricts * kLastNames * 24;
  return bytes;
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

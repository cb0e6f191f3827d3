#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "islands/common/setting_field.hpp"
#include "islands/common/system_memory.hpp"

namespace islands {

//! The fields of TpccConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_TPCC_FIELDS(F)                                                                              \
  F(std::uint32_t, warehouses_per_site, 1, 1, 64, "warehouses in each site (one site per worker core)")     \
  F(std::uint32_t, items, 100000, 15, 1000000, "rows of Item and of Stock per warehouse (specification: 100000)") \
  F(std::uint32_t, customers_per_district, 3000, 10, 100000,                                               \
    "customers and initial orders per district (specification: 3000)")                                     \
  F(std::string, mix, "standard", kUnbounded, kUnbounded,                                                 \
    "standard, 50-50, 80-20, 100-0, one transaction's name, or name:weight,... summing to 100")            \
  F(double, new_order_remote_item, 0.01, 0, 1, "NewOrder: share of items supplied by another warehouse")   \
  F(double, new_order_rollback, 0.01, 0, 1, "NewOrder: share that names an unused item and rolls back")    \
  F(double, payment_remote, 0.15, 0, 1, "Payment: share paying for a customer of another warehouse")       \
  F(double, payment_by_name, 0.60, 0, 1, "Payment: share choosing the customer by last name")              \
  F(std::string, layout, "spec", kUnbounded, kUnbounded,                                                   \
    "spec: every column of clause 1.3 at its width; narrow: only the numeric columns the arithmetic needs") \
  F(double, memory_budget, 0.8, 1e-6, 1,                                                                   \
    "share of the memory available at load time the run's tables may reach; the run stops with a message there")

//! TPC-C (000 Sec 3.3, 8.3-8.4): the nine tables at the specification's cardinalities per
//! warehouse (10 districts, `customers_per_district` customers and as many initial orders per
//! district, the last 30% of them new orders, 5-15 lines each, a stock row per item), and the
//! five transactions. Partitioned by warehouse: site s holds warehouses
//! [s * warehouses_per_site, (s + 1) * warehouses_per_site); Item is read-only and every
//! instance holds a copy. mix: "standard" (NewOrder 45, Payment 43, OrderStatus, Delivery and
//! StockLevel 4 each), paper 004's "50-50", "80-20" and "100-0" (reads are OrderStatus and
//! StockLevel, halves; the writes keep the standard's proportions), one transaction's name,
//! or "name:W,name:W,..." (whole weights summing to 100).
struct TpccConfig {
  ISLANDS_SETTINGS(TpccConfig, "tpcc", "TPC-C parameters (paper 000, Sec 3.3, 8.3-8.4)", ISLANDS_TPCC_FIELDS)

  //! Throws ConfigError naming the field and why.
  void validate() const;
  //! (workload/tpcc_fit.hpp checks that a deployment's load fits: it needs the schema.)
  //! Whether rows have the specification's layout (layout = "spec").
  bool spec_layout() const { return layout == "spec"; }
};

//! The TPC-C transactions.
constexpr std::size_t kTpccTxnTypes = 5;
//! Their names as a mix spells them.
extern const std::array<const char*, kTpccTxnTypes> kTpccTxnNames;
//! The weights (percent) a mix names; throws ConfigError ("tpcc.mix: ...").
std::array<std::uint32_t, kTpccTxnTypes> parse_tpcc_mix(const std::string& mix);

}  // namespace islands

#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace islands {

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
  std::uint32_t warehouses_per_site = 1;      //!< warehouses in each site (one site per worker)
  std::uint32_t items = 100000;               //!< rows of Item and of Stock per warehouse (specification: 100000)
  std::uint32_t customers_per_district = 3000;  //!< customers and initial orders per district (specification: 3000)
  std::string mix = "standard";                //!< which transactions run, and how often
  double new_order_remote_item = 0.01;        //!< NewOrder: share of items supplied by another warehouse
  double new_order_rollback = 0.01;           //!< NewOrder: share that names an unused item and rolls back
  double payment_remote = 0.15;               //!< Payment: share paying for a customer of another warehouse
  double payment_by_name = 0.60;              //!< Payment: share choosing the customer by last name

  //! Throws std::invalid_argument naming the field and why.
  void validate() const;
  //! The same, plus that the deployment's `total_sites` sites hold enough warehouses.
  void validate_fit(std::uint64_t total_sites) const;
};

//! The TPC-C transactions.
constexpr std::size_t kTpccTxnTypes = 5;
//! Their names as a mix spells them.
extern const std::array<const char*, kTpccTxnTypes> kTpccTxnNames;
//! The weights (percent) a mix names; throws std::invalid_argument ("mix: ...").
std::array<std::uint32_t, kTpccTxnTypes> parse_tpcc_mix(const std::string& mix);

}  // namespace islands

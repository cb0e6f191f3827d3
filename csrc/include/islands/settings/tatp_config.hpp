#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "islands/common/random.hpp"
#include "islands/common/setting_field.hpp"

namespace islands {

//! The fields of TatpConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_TATP_FIELDS(F)                                                                        \
  F(std::uint64_t, subscribers_per_site, 100000, 1, 4294967296.0,                                    \
    "subscribers in each site (specification: >= 100000 in all)")                                    \
  F(std::string, mix, "standard", kUnbounded, kUnbounded,                                           \
    "standard, one transaction's name, or name:weight,... summing to 100")                           \
  F(std::string, id_draw, "nonuniform", kUnbounded, kUnbounded,                                     \
    "how a transaction picks its subscriber: nonuniform (the specification's) or uniform")             \
  F(double, hot_fraction, 0.0, 0, 1,                                                                \
    "skew: share of the instance's subscribers that are hot, 0 (off) .. 1 (002 Fig 11: 0.2)")         \
  F(double, hot_share, 0.5, 0, 1, "skew: share of the requests that go to the hot subscribers")

//! TATP (002 Fig 8, 10): Subscriber, Access_Info, Special_Facility and Call_Forwarding, seven
//! transactions, partitioned by subscriber id (site s holds subscribers
//! [s * subscribers_per_site, (s + 1) * subscribers_per_site) and everything keyed by them).
//! mix: "standard" (35/10/35/2/14/2/2), one transaction's name (it alone), or
//! "name:weight,name:weight,..." with whole weights summing to 100. A worker's transactions
//! pick subscribers of its own site, drawn as the specification's non-uniform draw does over
//! the site's population (tatp_nonuniform_id) or uniformly. Skew (hot_fraction > 0, paper
//! 002 Fig 11): a hot_share of the transactions pick a subscriber uniformly among the first
//! hot_fraction of the instance's subscribers (all its sites, not the worker's own), the
//! others uniformly among the rest. mix, hot_fraction and hot_share can change while a PLP
//! instance runs (WorkloadChange, exec/plp/plp_control.hpp).
struct TatpConfig {
  ISLANDS_SETTINGS(TatpConfig, "tatp", "TATP parameters (paper 002)", ISLANDS_TATP_FIELDS)

  //! Throws ConfigError naming the field and why.
  void validate() const;
  //! Whether subscribers are drawn uniformly (id_draw = uniform) rather than as specified.
  bool uniform_ids() const { return id_draw == "uniform"; }
};

//! The TATP specification's non-uniform subscriber draw over a population of `population`
//! subscribers, 0-based: (rand(0, A) | rand(1, P)) % P, where A is 65535 for P <= 1,000,000,
//! 1,048,575 for P <= 10,000,000 and 2,097,151 above (rand(a, b): uniform over [a, b]).
inline std::uint64_t tatp_nonuniform_id(Random& rng, std::uint64_t population) {
  const std::uint64_t a = population <= 1000000 ? 65535 : population <= 10000000 ? 1048575 : 2097151;
  return (rng.below(a + 1) | (1 + rng.below(population))) % population;
}

//! The seven TATP transactions, in the order of the standard mix.
constexpr std::size_t kTatpTxnTypes = 7;
//! Their names ("get_subscriber_data", ...), as a mix spells them.
extern const std::array<const char*, kTatpTxnTypes> kTatpTxnNames;
//! The weights (percent, summing to 100) a mix string names; throws ConfigError
//! ("tatp.mix: ...") for an unknown name, a bad weight, or weights that do not sum to 100.
std::array<std::uint32_t, kTatpTxnTypes> parse_tatp_mix(const std::string& mix);

}  // namespace islands

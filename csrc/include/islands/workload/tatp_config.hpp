#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "islands/common/setting_field.hpp"

namespace islands {

//! The fields of TatpConfig: F(type, name, default, min, max, help) (see setting_field.hpp).
#define ISLANDS_TATP_FIELDS(F)                                                                        \
  F(std::uint64_t, subscribers_per_site, 100000, 1, 4294967296.0,                                    \
    "subscribers in each site (specification: >= 100000 in all)")                                    \
  F(std::string, mix, "standard", kUnbounded, kUnbounded,                                           \
    "standard, one transaction's name, or name:weight,... summing to 100")

//! TATP (002 Fig 8, 10): Subscriber, Access_Info, Special_Facility and Call_Forwarding, seven
//! transactions, partitioned by subscriber id (site s holds subscribers
//! [s * subscribers_per_site, (s + 1) * subscribers_per_site) and everything keyed by them).
//! mix: "standard" (35/10/35/2/14/2/2), one transaction's name (it alone), or
//! "name:weight,name:weight,..." with whole weights summing to 100.
struct TatpConfig {
  ISLANDS_SETTINGS(TatpConfig, "tatp", "TATP parameters (paper 002)", ISLANDS_TATP_FIELDS)

  //! Throws ConfigError naming the field and why.
  void validate() const;
};

//! The seven TATP transactions, in the order of the standard mix.
constexpr std::size_t kTatpTxnTypes = 7;
//! Their names ("get_subscriber_data", ...), as a mix spells them.
extern const std::array<const char*, kTatpTxnTypes> kTatpTxnNames;
//! The weights (percent, summing to 100) a mix string names; throws ConfigError
//! ("tatp.mix: ...") for an unknown name, a bad weight, or weights that do not sum to 100.
std::array<std::uint32_t, kTatpTxnTypes> parse_tatp_mix(const std::string& mix);

}  // namespace islands

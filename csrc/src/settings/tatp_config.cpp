#include "islands/settings/tatp_config.hpp"

#include <string>

#include "islands/settings/transaction_mix.hpp"

namespace islands {

const std::array<const char*, kTatpTxnTypes> kTatpTxnNames = {
    "get_subscriber_data", "get_new_destination",    "get_access_data",       "update_subscriber_data",
    "update_location",     "insert_call_forwarding", "delete_call_forwarding"};

std::array<std::uint32_t, kTatpTxnTypes> parse_tatp_mix(const std::string& mix) {
  return parse_mix(mix, kTatpTxnNames, {{"standard", {35, 10, 35, 2, 14, 2, 2}}}, "tatp.mix");
}

void TatpConfig::validate() const {
  check_fields(*this);
  parse_tatp_mix(mix);
  if (id_draw != "nonuniform" && id_draw != "uniform") {
    throw ConfigError("tatp.id_draw", "'" + id_draw + "' is neither nonuniform nor uniform");
  }
}

}  // namespace islands

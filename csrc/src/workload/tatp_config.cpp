#include "islands/workload/tatp_config.hpp"

#include <string>

namespace islands {

const std::array<const char*, kTatpTxnTypes> kTatpTxnNames = {
    "get_subscriber_data", "get_new_destination",    "get_access_data",       "update_subscriber_data",
    "update_location",     "insert_call_forwarding", "delete_call_forwarding"};

namespace {

std::string known_names() {
  std::string out = "standard";
  for (const char* name : kTatpTxnNames) out += std::string(", ") + name;
  return out;
}

std::size_t index_of(const std::string& name) {
  for (std::size_t i = 0; i < kTatpTxnTypes; ++i) {
    if (name == kTatpTxnNames[i]) return i;
  }
  throw ConfigError("tatp.mix", "unknown transaction '" + name + "' (choose " + known_names() + ")");
}

}  // namespace

std::array<std::uint32_t, kTatpTxnTypes> parse_tatp_mix(const std::string& mix) {
  if (mix == "standard") return {35, 10, 35, 2, 14, 2, 2};
  std::array<std::uint32_t, kTatpTxnTypes> weights{};
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
    if (colon == std::string::npos) {
      throw ConfigError("tatp.mix", "'" + item + "' is not name:weight (e.g. get_subscriber_data:80,update_location:20)");
    }
    const std::size_t i = index_of(item.substr(0, colon));
    const std::string weight = item.substr(colon + 1);
    if (weight.empty() || weight.size() > 3 || weight.find_first_not_of("0123456789") != std::string::npos) {
      throw ConfigError("tatp.mix", "weight '" + weight + "' of " + kTatpTxnNames[i] + " is not a whole number 0..100");
    }
    if (weights[i] != 0) throw ConfigError("tatp.mix", std::string() + kTatpTxnNames[i] + " is listed twice");
    weights[i] = static_cast<std::uint32_t>(std::stoul(weight));
    total += weights[i];
    at = end + 1;
  }
  if (total != 100) {
    throw ConfigError("tatp.mix", "the weights sum to " + std::to_string(total) + ", not 100");
  }
  return weights;
}

void TatpConfig::validate() const {
  check_fields(*this);
  parse_tatp_mix(mix);
}

}  // namespace islands

#include "islands/settings/transaction_mix.hpp"

#include "islands/common/config_error.hpp"

namespace islands {

std::vector<std::uint32_t> parse_mix(const std::string& mix, const std::vector<std::string>& names,
                                     const std::vector<MixPreset>& presets, const std::string& field) {
  for (const MixPreset& preset : presets) {
    if (mix == preset.name) return preset.weights;
  }
  const auto index_of = [&](const std::string& name) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (name == names[i]) return i;
    }
    std::string known;
    for (const MixPreset& preset : presets) known += std::string(preset.name) + ", ";
    for (const std::string& n : names) known += n + ", ";
    throw ConfigError(field, "unknown transaction '" + name + "' (choose " + known + "or name:weight,...)");
  };
  std::vector<std::uint32_t> weights(names.size(), 0);
  if (mix.find(':') == std::string::npos && mix.find(',') == std::string::npos) {
    weights[index_of(mix)] = 100;
    return weights;
  }
  std::uint32_t total = 0;
  for (std::size_t at = 0; at <= mix.size();) {
    std::size_t end = mix.find(',', at);
    if (end == std::string::npos) end = mix.size();
    const std::string item = mix.substr(at, end - at);
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos) {
      throw ConfigError(field, "'" + item + "' is not name:weight (e.g. " + names.front() + ":80," + names.back() + ":20)");
    }
    const std::size_t i = index_of(item.substr(0, colon));
    const std::string weight = item.substr(colon + 1);
    if (weight.empty() || weight.size() > 3 || weight.find_first_not_of("0123456789") != std::string::npos) {
      throw ConfigError(field, "weight '" + weight + "' of " + names[i] + " is not a whole number 0..100");
    }
    if (weights[i] != 0) throw ConfigError(field, names[i] + " is listed twice");
    weights[i] = static_cast<std::uint32_t>(std::stoul(weight));
    total += weights[i];
    at = end + 1;
  }
  if (total != 100) throw ConfigError(field, "the weights sum to " + std::to_string(total) + ", not 100");
  return weights;
}

}  // namespace islands

#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace islands {

//! A mix with a name of its own ("standard", paper 004's "50-50"): its weights by type.
struct MixPreset {
  const char* name;                    //!< as a mix setting spells it
  std::vector<std::uint32_t> weights;  //!< percent per transaction type, summing to 100
};

//! The weights (percent per transaction type, summing to 100) that `mix` names: a preset's
//! name, one transaction's name (it alone), or "name:weight,..." over `names` (the types in
//! order). Throws ConfigError(field, why) for an unknown name, a malformed item or weight, a
//! name listed twice, or weights that do not sum to 100. Shared by every workload with a mix.
std::vector<std::uint32_t> parse_mix(const std::string& mix, const std::vector<std::string>& names,
                                     const std::vector<MixPreset>& presets, const std::string& field);

//! The same for a workload with N transaction types, as a fixed array.
template <std::size_t N>
std::array<std::uint32_t, N> parse_mix(const std::string& mix, const std::array<const char*, N>& names,
                                       const std::vector<MixPreset>& presets, const std::string& field) {
  const std::vector<std::uint32_t> weights = parse_mix(mix, std::vector<std::string>(names.begin(), names.end()),
                                                       presets, field);
  std::array<std::uint32_t, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = weights[i];
  return out;
}

}  // namespace islands

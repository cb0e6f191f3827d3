#include "islands/exec/fragment.hpp"

#include <cstring>

namespace islands {

namespace {
constexpr std::uint8_t kUpdate = 1, kShared = 2;
}  // namespace

void encode_fragment(FragmentFlags flags, const std::vector<std::uint64_t>& words, Message& out) {
  out.payload.resize(1 + 4 + 8 * words.size());
  out.payload[0] = static_cast<std::uint8_t>((flags.update ? kUpdate : 0) | (flags.shared ? kShared : 0));
  const auto n = static_cast<std::uint32_t>(words.size());
  std::memcpy(out.payload.data() + 1, &n, 4);
  std::memcpy(out.payload.data() + 5, words.data(), 8 * words.size());
}

bool decode_fragment(const Message& in, FragmentFlags& flags, std::vector<std::uint64_t>& words) {
  if (in.payload.size() < 5 || (in.payload[0] & ~(kUpdate | kShared)) != 0) return false;
  std::uint32_t n = 0;
  std::memcpy(&n, in.payload.data() + 1, 4);
  if (in.payload.size() != 5 + 8ull * n) return false;
  flags.update = (in.payload[0] & kUpdate) != 0;
  flags.shared = (in.payload[0] & kShared) != 0;
  words.resize(n);
  std::memcpy(words.data(), in.payload.data() + 5, 8ull * n);
  return true;
}

}  // namespace islands

#include <cstddef>
#include <cstring>
#include <string>

#include "check.hpp"
#include "islands/common/random.hpp"
#include "islands/workload/tpcc_text.hpp"

using namespace islands;

namespace {
// The plain definition: "ORIGINAL" at any place of the string before its first NUL.
bool reference(const char* s, std::size_t width) {
  const std::string text(s, strnlen(s, width));
  return text.find("ORIGINAL") != std::string::npos;
}
// `text` in a field of `width` bytes, NUL-padded (none when it fills the field).
bool in_field(const std::string& text, std::size_t width = 50) {
  char field[64] = {};
  std::memcpy(field, text.data(), text.size());
  return tpcc::has_original(field, width);
}
}  // namespace

int main() {
  // Places and near misses, and a string that fills its field (no NUL to stop at).
  CHECK(in_field("ORIGINAL"));
  CHECK(in_field("xxORIGINAL"));
  CHECK(in_field("ORIGINALxx"));
  CHECK(in_field("OOORIGINAL"));
  CHECK(in_field("ORIGINAORIGINAL"));
  CHECK(!in_field(""));
  CHECK(!in_field("ORIGINA"));
  CHECK(!in_field("xORIGINA"));
  CHECK(!in_field("OOOOOOOOOOOOOOOOOOOO"));
  CHECK(!in_field("original"));
  CHECK(in_field(std::string(42, 'a') + "ORIGINAL"));         // ends exactly at the field's end
  CHECK(!in_field(std::string(43, 'a') + "ORIGINAL"));        // past the field: cut off
  CHECK(!in_field(std::string("abc") + '\0' + "ORIGINAL"));   // after the NUL: not the string's
  // The loader's strings (data_50: "ORIGINAL" in a tenth) and alphanumerics dense in 'O's agree
  // with the plain definition.
  Random random(11);
  int agree = 0, found = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    char data[50];
    tpcc::data_50(random, data);
    if (i % 2) {  // half of them salted with O, OR, ORIG... prefixes at random places
      const char* pieces[] = {"O", "OR", "ORI", "ORIGIN", "ORIGINA", "ORIGINAL"};
      const std::size_t len = strnlen(data, sizeof data);
      for (int k = 0; k < 3 && len >= 8; ++k) {
        const char* piece = pieces[random.below(6)];
        const std::size_t at = random.below(len - std::strlen(piece) + 1);
        std::memcpy(data + at, piece, std::strlen(piece));
      }
    }
    const bool expected = reference(data, sizeof data);
    agree += tpcc::has_original(data, sizeof data) == expected;
    found += expected;
  }
  CHECK(agree == n);
  CHECK(found > n / 10 && found < n);  // both answers were exercised
  return test_summary("test_tpcc_text");
}

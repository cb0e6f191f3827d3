#include "islands/common/check.hpp"

#include <stdexcept>
#include <string>

namespace islands {

void check_failed(const char* file, int line, const char* condition, const char* what) {
  throw std::logic_error(std::string("internal check failed: ") + what + " (" + condition +
                         " at " + file + ":" + std::to_string(line) + ")");
}

}  // namespace islands

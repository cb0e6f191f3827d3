#include "islands/common/abort_reason.hpp"

namespace islands {

const char* abort_reason_name(AbortReason reason) {
  switch (reason) {
#define ISLANDS_NAME_ENTRY(name, doc) \
  case AbortReason::name:             \
    return #name;
    ISLANDS_ABORT_REASONS(ISLANDS_NAME_ENTRY)
#undef ISLANDS_NAME_ENTRY
  }
  return "unknown";
}

const char* abort_reason_doc(AbortReason reason) {
  switch (reason) {
#define ISLANDS_DOC_ENTRY(name, doc) \
  case AbortReason::name:            \
    return doc;
    ISLANDS_ABORT_REASONS(ISLANDS_DOC_ENTRY)
#undef ISLANDS_DOC_ENTRY
  }
  return "unknown";
}

}  // namespace islands

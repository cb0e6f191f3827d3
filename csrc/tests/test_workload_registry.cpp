// The workload registry against the build's selection (CMake ISLANDS_WORKLOADS): every
// workload is described in every build (its transactions, checks, settings' rules and load
// size), and running one whose engine variants the build left out (`make run`'s first build
// compiles micro's only) is refused in one line that names it and `make install`. The refusal
// is checked in every build, on an entry without variants, as a build without it holds it.
#include <cstring>
#include <string>

#include "check.hpp"
#include "islands/common/config_error.hpp"
#include "islands/exec/workload_registry.hpp"

using namespace islands;

namespace {

// The refusal of `entry`'s run: "" when it was not refused, else the message (checked here to
// be one line on field "workload" naming the workload and `make install`).
std::string refusal(const WorkloadEntry& entry) {
  try {
    require_compiled(entry);
    return "";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    CHECK(e.field() == "workload");
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message.find(entry.name) != std::string::npos);
    CHECK(message.find("make install") != std::string::npos);
    return message;
  }
}

}  // namespace

int main() {
  std::size_t compiled = 0;
  for (const WorkloadEntry& entry : workloads()) {
    // Described in every build, compiled or not.
    CHECK(!entry.name.empty());
    CHECK(!entry.transactions.empty());
    CHECK(entry.verify != nullptr);
    CHECK(entry.validate != nullptr);
    // Its variants all there, or none.
    const bool runs = entry.make_instance != nullptr;
    CHECK(runs == (entry.run_fixed != nullptr));
    if (runs) {
      ++compiled;
      CHECK(refusal(entry).empty());
      CHECK(&runnable_workload(entry.name) == &entry);
    } else {
      CHECK(!refusal(entry).empty());
      bool refused = false;
      try {
        runnable_workload(entry.name);
      } catch (const ConfigError& e) {
        refused = e.field() == "workload";
      }
      CHECK(refused);
    }
  }
  CHECK(compiled > 0);
  // "all" exactly when every workload's variants are compiled (what the refusal quotes).
  CHECK((std::strcmp(compiled_workloads(), "all") == 0) == (compiled == workloads().size()));

  // The refusal on an entry without its variants, in every build.
  WorkloadEntry left_out = workloads().back();
  left_out.make_instance = nullptr;
  left_out.run_fixed = nullptr;
  CHECK(!refusal(left_out).empty());

  // An unknown name is still refused by name, with the choices.
  bool unknown = false;
  try {
    runnable_workload("no_such_workload");
  } catch (const ConfigError& e) {
    unknown = e.field() == "workload" && std::string(e.what()).find("no_such_workload") != std::string::npos;
  }
  CHECK(unknown);
  return test_summary("test_workload_registry");
}

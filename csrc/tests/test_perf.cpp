// Counters and the component clock: the multiplexing correction, a software counter that
// really counts, an event that cannot open reading NaN with its reason, and a breakdown whose
// parts add up to the span it timed.
#include <linux/perf_event.h>

#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "check.hpp"
#include "islands/perf/component_clock.hpp"
#include "islands/perf/perf_counters.hpp"

using namespace islands;

namespace {

void test_scale_count() {
  CHECK(scale_count(1000, 100, 100) == 1000.0);       // ran the whole window
  CHECK(scale_count(1000, 100, 25) == 4000.0);        // ran a quarter: x4
  CHECK(std::isnan(scale_count(0, 100, 0)));          // never ran: unknown, not zero
  CHECK(scale_count(7, 0, 0) != 7.0);                 // nothing enabled: NaN as well
  CHECK(scale_count(5, 100, 150) == 5.0);             // clock skew never scales down
  CounterReading r;
  r.time_enabled = 200;
  r.time_running = 50;
  CHECK(r.running_fraction() == 0.25);
}

void test_software_counter() {
  std::vector<PerfEventSpec> events = {
      {"task_clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0, -1},
      {"page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 0, 0, -1},
      {"no_such_pmu", 4242, 0, 0, 0, 1, -1},
  };
  PerfCounters counters(events, CounterScope::thread);
  counters.enable();
  std::vector<char> pages(64 << 20);  // fresh pages fault on first touch
  for (std::size_t i = 0; i < pages.size(); i += 4096) pages[i] = 1;
  volatile std::uint64_t sink = 0;
  for (int i = 0; i < 20000000; ++i) sink = sink + static_cast<std::uint64_t>(i);
  counters.disable();
  const std::vector<CounterReading> r = counters.read();
  CHECK(r.size() == 3);
  CHECK(r[0].name == "task_clock");
  if (r[0].error.empty()) {
    CHECK(r[0].value > 1e6);                  // well over a millisecond of CPU
    CHECK(r[0].running_fraction() > 0.99);    // software counters are never multiplexed
    CHECK(r[1].value >= 0.5 * (64 << 20) / 4096);  // most of the 16384 pages faulted (THP may merge)
  } else {
    std::printf("software counters unavailable here: %s\n", r[0].error.c_str());
  }
  CHECK(std::isnan(r[2].value));
  CHECK(!r[2].error.empty());
}

void test_component_clock() {
  ComponentClock clock;
  clock.start(Component::management);
  {
    ComponentScope exec(&clock, Component::execution);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    {
      ComponentScope lock(&clock, Component::locking);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(clock.current() == Component::execution);
  }
  CHECK(clock.current() == Component::management);
  clock.stop();
  CHECK(clock.spans() == 1);
  const auto& t = clock.ticks();
  CHECK(t[static_cast<int>(Component::execution)] > t[static_cast<int>(Component::locking)] / 4);
  CHECK(t[static_cast<int>(Component::locking)] > 0);
  CHECK(t[static_cast<int>(Component::communication)] == 0);
  ComponentScope off(nullptr, Component::logging);  // breakdown off: nothing happens
}

}  // namespace

int main() {
  test_scale_count();
  test_software_counter();
  test_component_clock();
  return test_summary("test_perf");
}

#include "islands/exec/instance.hpp"

#include "islands/exec/workload_registry.hpp"

namespace islands {

Instance::Instance(const InstanceConfig& config, PlpControl* control) {
  config.validate();
  impl_ = runnable_workload(config.run.workload).make_instance(with_workers_per_cpu(config));
  impl_->set_plp_control(control);
}

Instance::~Instance() = default;

void Instance::load() { impl_->load(); }

RunStats Instance::run(std::int64_t start_at_ns, double warmup_s, double duration_s) {
  return impl_->run(start_at_ns, warmup_s, duration_s);
}

bool Instance::checkpoint() { return impl_->checkpoint(); }

}  // namespace islands

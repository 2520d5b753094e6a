// react_thread's handle and builder: settings are checked here, at start(),
// so a mistake surfaces as a config_error in the caller, not on the thread.
#include <lanes/react/react_thread.hpp>

#include <lanes/config_error.hpp>

#include "react/react_settings.hpp"
#include "react/react_thread_state.hpp"
#include "react/thread_setup.hpp"

namespace lanes::react {

namespace {

constexpr std::size_t max_thread_name = 15;  // pthread_setname_np's limit, without the NUL

std::string default_name(std::optional<unsigned> cpu) {
  std::string name = cpu ? "lanes-react-" + std::to_string(*cpu) : std::string("lanes-react");
  return name.substr(0, max_thread_name);
}

}  // namespace

// --- react_thread ---

react_thread_builder react_thread::builder() { return react_thread_builder(); }
react_thread::react_thread() noexcept = default;
react_thread::react_thread(std::unique_ptr<detail::react_thread_state> state) noexcept : state_(std::move(state)) {}
react_thread::react_thread(react_thread&&) noexcept = default;
react_thread& react_thread::operator=(react_thread&& other) noexcept {
  if (this != &other) {
    state_.reset();  // stops and joins what it ran
    state_ = std::move(other.state_);
  }
  return *this;
}
react_thread::~react_thread() = default;  // the state's destructor stops and joins

void react_thread::stop() noexcept {
  if (state_) state_->stop();
}
void react_thread::join() {
  if (state_) state_->join();
}
bool react_thread::running() const noexcept { return state_ && state_->running(); }
react_metrics react_thread::metrics() const { return state_ ? state_->metrics() : react_metrics{}; }
const std::string& react_thread::name() const {
  static const std::string none;
  return state_ ? state_->name() : none;
}

// --- react_thread_builder ---

react_thread_builder::react_thread_builder() : settings_(std::make_unique<detail::react_settings>()) {}
react_thread_builder::react_thread_builder(react_thread_builder&&) noexcept = default;
react_thread_builder& react_thread_builder::operator=(react_thread_builder&&) noexcept = default;
react_thread_builder::~react_thread_builder() = default;

react_thread_builder& react_thread_builder::core(unsigned cpu) {
  settings_->pin = detail::react_settings::pinning::chosen_core;
  settings_->cpu = cpu;
  return *this;
}
react_thread_builder& react_thread_builder::any_core() {
  settings_->pin = detail::react_settings::pinning::any_core;
  return *this;
}
react_thread_builder& react_thread_builder::unpinned() {
  settings_->pin = detail::react_settings::pinning::none;
  return *this;
}
react_thread_builder& react_thread_builder::allow_last_cpu(bool allow) {
  settings_->allow_last_cpu = allow;
  return *this;
}
react_thread_builder& react_thread_builder::name(std::string name) {
  if (name.empty() || name.size() > max_thread_name) {
    throw config_error("lanes::react::react_thread: name(\"" + name + "\") must be 1 to " +
                       std::to_string(max_thread_name) + " bytes (the kernel's limit for a thread name)");
  }
  settings_->name = std::move(name);
  return *this;
}
react_thread_builder& react_thread_builder::realtime(int priority) {
  detail::check_realtime_priority(priority);
  settings_->realtime_priority = priority;
  settings_->realtime_required = true;
  return *this;
}
react_thread_builder& react_thread_builder::realtime_if_permitted(int priority) {
  detail::check_realtime_priority(priority);
  settings_->realtime_priority = priority;
  settings_->realtime_required = false;
  return *this;
}
react_thread_builder& react_thread_builder::batch(std::size_t max_items) {
  if (max_items == 0) throw config_error("lanes::react::react_thread: batch(0): it must take at least one item");
  settings_->batch = max_items;
  return *this;
}
react_thread_builder& react_thread_builder::on_error(std::function<void(std::exception_ptr)> hook) {
  settings_->on_error = std::move(hook);
  return *this;
}
react_thread_builder& react_thread_builder::wait(std::unique_ptr<wait_strategy> strategy) {
  if (!strategy) throw config_error("lanes::react::react_thread: wait(nullptr): give it a wait strategy");
  settings_->strategy = std::move(strategy);
  return *this;
}
react_thread_builder& react_thread_builder::input_with(std::unique_ptr<detail::react_input> input) {
  settings_->inputs.push_back(std::move(input));
  return *this;
}

react_thread react_thread_builder::start() {
  if (!settings_) throw config_error("lanes::react::react_thread_builder: start() called twice");
  detail::react_settings& s = *settings_;
  if (s.inputs.empty())
    throw config_error("lanes::react::react_thread: no input(): give it at least one ring to react to");
  if (!s.strategy) s.strategy = std::make_unique<busy_spin>();
  if (s.strategy->parks()) {
    for (std::size_t i = 0; i < s.inputs.size(); ++i) {
      if (!s.inputs[i]->may_park()) {
        throw config_error("lanes::react::react_thread: the wait strategy " + std::string(s.strategy->name()) +
                           " parks, but input " + std::to_string(i) +
                           "'s ring was made without ring_options{.consumer_may_park = true}: make the ring "
                           "with it, or pick busy_spin / spin_then_yield");
      }
    }
  }
  lanes::detail::core_reservation core;
  std::optional<unsigned> pinned_to;
  if (s.pin != detail::react_settings::pinning::none) {
    const std::optional<unsigned> wanted =
        s.pin == detail::react_settings::pinning::chosen_core ? std::optional<unsigned>(s.cpu) : std::nullopt;
    core = lanes::detail::reserve_core(wanted, s.allow_last_cpu);
    pinned_to = core.cpu();
  }
  if (s.name.empty()) s.name = default_name(pinned_to);
  auto state = std::make_unique<detail::react_thread_state>(std::move(s), std::move(core), pinned_to);
  settings_.reset();
  state->start();
  return react_thread(std::move(state));
}

}  // namespace lanes::react

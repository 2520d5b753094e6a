// ring_side: what differs between the two ends of a ring for whoever waits
// on one - an io task (bridge/react_ring.hpp) or a plain thread
// (wait_strategy.hpp's wait_for_items / wait_for_space) - so that both wait
// on the same definition of "ready" and arm the same wait slot.
#pragma once

#include <lanes/react/detail/ring_wake_slot.hpp>
#include <lanes/react/spsc_ring.hpp>

namespace lanes::react::detail {

template <class Side>
struct ring_side;

template <class T>
struct ring_side<ring_consumer<T>> {
  static constexpr const char* name = "consumer";
  static bool may_park(ring_consumer<T>& rx) { return rx.options().consumer_may_park; }
  // An item to take, or the producer gone: either way the wait is over.
  static bool ready(ring_consumer<T>& rx) { return !rx.empty() || rx.producer_gone(); }
  static bool arm(ring_consumer<T>& rx, wake_target t) { return rx.arm_wait_for_items(t); }
};

template <class T>
struct ring_side<ring_producer<T>> {
  static constexpr const char* name = "producer";
  static bool may_park(ring_producer<T>& tx) { return tx.options().producer_may_park; }
  // A free slot, or the consumer gone: either way the wait is over.
  static bool ready(ring_producer<T>& tx) { return tx.consumer_gone() || tx.free_slots() != 0; }
  static bool arm(ring_producer<T>& tx, wake_target t) { return tx.arm_wait_for_space(t); }
};

}  // namespace lanes::react::detail

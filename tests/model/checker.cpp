// The interleaving checker (checker.hpp): one controller, model threads
// that take turns, and a depth-first walk over the choices.
#include "checker.hpp"

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

namespace lanes::model {

namespace {

struct choice {
  unsigned taken = 0;
  unsigned count = 0;
};

// One execution in progress. Only the thread whose id is `running` (or the
// controller, at -1) does anything; the others wait on `turn`. The mutex
// hands the baton over, so each thread sees what the previous one wrote.
struct run {
  struct thread_state {
    bool finished = false;
    const void* blocked_on = nullptr;
  };

  std::mutex mutex;
  std::condition_variable turn;
  int running = -1;
  std::vector<thread_state> threads;

  std::vector<choice>& path;
  std::size_t depth = 0;
  unsigned preemptions = 0;
  const unsigned preemption_bound;
  std::string failure;

  run(std::vector<choice>& p, unsigned bound) : path(p), preemption_bound(bound) {}

  // The next choice among `count` options: replayed from the path, or a
  // new one (its first option) that the walk will come back to.
  unsigned choose(unsigned count) {
    if (depth < path.size()) return path[depth++].taken;
    path.push_back({0, count});
    ++depth;
    return 0;
  }
};

thread_local run* current_run = nullptr;
thread_local int current_id = -1;

// The calling model thread gives the baton back and waits for its turn.
void yield_turn(run& r, int me) {
  std::unique_lock lock(r.mutex);
  r.running = -1;
  r.turn.notify_all();
  r.turn.wait(lock, [&] { return r.running == me; });
}

std::string describe(const std::vector<choice>& path) {
  std::ostringstream out;
  for (std::size_t i = 0; i < path.size(); ++i) out << (i == 0 ? "" : ",") << path[i].taken;
  return out.str();
}

// Runs one execution to its end; false (with r.failure) when it failed.
// The threads hold `shared` and `e` too: after a failure some stay blocked
// for good, detached, and what they use must outlive this call.
bool run_one(const std::shared_ptr<run>& shared, const std::shared_ptr<const execution>& e,
             std::vector<std::thread>& threads) {
  run& r = *shared;
  const int n = static_cast<int>(e->threads.size());
  r.threads.assign(static_cast<std::size_t>(n), {});
  for (int id = 0; id < n; ++id) {
    threads.emplace_back([shared, e, id] {
      run& mine = *shared;
      current_run = &mine;
      current_id = id;
      {
        std::unique_lock lock(mine.mutex);
        mine.turn.wait(lock, [&] { return mine.running == id; });
      }
      try {
        e->threads[static_cast<std::size_t>(id)]();
      } catch (const violation& v) {
        std::lock_guard lock(mine.mutex);
        if (mine.failure.empty()) mine.failure = std::string("thread ") + std::to_string(id) + ": " + v.what();
      }
      std::lock_guard lock(mine.mutex);
      mine.threads[static_cast<std::size_t>(id)].finished = true;
      mine.running = -1;
      mine.turn.notify_all();
    });
  }
  int last = -1;
  for (;;) {
    std::unique_lock lock(r.mutex);
    if (!r.failure.empty()) return false;
    std::vector<int> enabled;
    bool last_enabled = false;
    for (int id = 0; id < n; ++id) {
      const auto& t = r.threads[static_cast<std::size_t>(id)];
      if (t.finished || t.blocked_on != nullptr) continue;
      if (id == last) {
        last_enabled = true;
      } else {
        enabled.push_back(id);
      }
    }
    if (last_enabled) enabled.insert(enabled.begin(), last);  // option 0: no preemption
    if (enabled.empty()) {
      bool all_done = true;
      std::string blocked;
      for (int id = 0; id < n; ++id) {
        if (!r.threads[static_cast<std::size_t>(id)].finished) {
          all_done = false;
          blocked += (blocked.empty() ? "" : ", ") + std::to_string(id);
        }
      }
      if (all_done) return true;
      r.failure = "threads " + blocked + " blocked for good (a lost wake-up)";
      return false;
    }
    unsigned options = static_cast<unsigned>(enabled.size());
    if (last_enabled && r.preemptions >= r.preemption_bound) options = 1;
    const int next = enabled[r.choose(options)];
    if (last_enabled && next != last) ++r.preemptions;
    last = next;
    r.running = next;
    r.turn.notify_all();
    r.turn.wait(lock, [&] { return r.running == -1; });
  }
}

}  // namespace

namespace detail {

void step() {
  run* r = current_run;
  if (r == nullptr) return;  // outside the checker (a model object built by the controller)
  yield_turn(*r, current_id);
}

void block_on(const void* address) {
  run* r = current_run;
  if (r == nullptr) throw std::logic_error("model: a wait outside a model thread would block for good");
  {
    std::lock_guard lock(r->mutex);
    r->threads[static_cast<std::size_t>(current_id)].blocked_on = address;
  }
  yield_turn(*r, current_id);
}

void wake_one(const void* address) {
  run* r = current_run;
  if (r == nullptr) return;
  std::vector<std::size_t> waiting;
  {
    std::lock_guard lock(r->mutex);
    for (std::size_t id = 0; id < r->threads.size(); ++id) {
      if (r->threads[id].blocked_on == address) waiting.push_back(id);
    }
  }
  if (waiting.empty()) return;
  // Which waiter the kernel wakes is not ours to know: every one is tried.
  const unsigned pick = waiting.size() == 1 ? 0 : r->choose(static_cast<unsigned>(waiting.size()));
  std::lock_guard lock(r->mutex);
  r->threads[waiting[pick]].blocked_on = nullptr;
}

void wake_all(const void* address) {
  run* r = current_run;
  if (r == nullptr) return;
  std::lock_guard lock(r->mutex);
  for (auto& t : r->threads) {
    if (t.blocked_on == address) t.blocked_on = nullptr;
  }
}

}  // namespace detail

report explore(const std::function<execution()>& make, options opts) {
  report out;
  std::vector<choice> path;
  for (;;) {
    if (out.executions >= opts.max_executions) return out;
    const auto e = std::make_shared<const execution>(make());
    const auto r = std::make_shared<run>(path, opts.preemption_bound);
    std::vector<std::thread> threads;
    const bool ok = run_one(r, e, threads);
    ++out.executions;
    if (!ok) {
      out.failure = r->failure + " (execution " + std::to_string(out.executions) + ", path " + describe(path) + ")";
      for (auto& t : threads) t.detach();  // blocked for good: left behind, holding what they use
      return out;
    }
    for (auto& t : threads) t.join();
    if (e->check) {
      try {
        e->check();
      } catch (const violation& v) {
        out.failure = std::string("check: ") + v.what() + " (execution " + std::to_string(out.executions) + ", path " +
                      describe(path) + ")";
        return out;
      }
    }
    while (!path.empty() && path.back().taken + 1 >= path.back().count) path.pop_back();
    if (path.empty()) {
      out.complete = true;
      return out;
    }
    ++path.back().taken;
  }
}

}  // namespace lanes::model

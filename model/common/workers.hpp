// trn::common::Workers — a fixed team of threads for the model's speed (never its results): run(n, f)
// calls f(i) once for every i in [0, n), spread over the team and the caller, and returns when every
// call has. The calls of one run must touch disjoint state (a system's chips within one phase of a
// cycle); the order they run in is not defined. The caller takes calls too and waits only for calls
// that have begun, so a team member the OS has not scheduled delays nothing. Between runs the team
// spins briefly, then sleeps. An exception in a call is rethrown by run() (the first one) once every
// call has ended.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace trn::common {

class Workers {
 public:
  /// `threads` in all, the caller included (0 or 1: every call on the caller).
  explicit Workers(unsigned threads);
  ~Workers();
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  unsigned threads() const { return static_cast<unsigned>(team_.size()) + 1; }
  void run(unsigned n, const std::function<void(unsigned)>& f);
  /// The threads a run should use by default: the machine's hardware threads (at least 1).
  static unsigned machine();

 private:
  /// A run's calls: slot g % 2 is run g's (it is rewritten two runs later, after run g has ended).
  struct Job {
    std::atomic<const std::function<void(unsigned)>*> f{nullptr};
    std::atomic<unsigned> n{0};
  };
  void loop();
  /// Wake the sleeping members (after a new ticket).
  void wake();
  /// Take and make the calls of run g while any is left.
  void work(std::uint32_t g);
  std::vector<std::thread> team_;
  std::array<Job, 2> job_;
  std::atomic<std::uint64_t> ticket_{0};  // run << 32 | the next call to take
  std::atomic<unsigned> done_{0};         // calls of the current run that have ended
  // a member with nothing to do sleeps on cv_ (std::atomic's wait of g++ 12 can miss a wake-up)
  std::mutex m_;
  std::condition_variable cv_;
  std::atomic<unsigned> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::uint32_t gen_ = 0;  // the caller's current run
  std::mutex err_m_;
  std::exception_ptr err_;
};

}  // namespace trn::common
